# CSV and TSV output hold keys and values exactly: bytes that are not UTF-8 text (and MessagePack)
# take the JSON output's forms, {"base64":...} and {"msgpack":...}, text that reads as such a form
# is itself written as base64, and drydb build reads the forms back, so a CSV or TSV round trip
# keeps every key and value. (The bytes ff fe and the text \xff\xfe used to print alike.)
cat > tricky.dump <<'EOF'
{"drydb_dump":2,"page_size":4096,"filters":[],"tables":[{"name":"data","key_encoding":"bytes","indexes":[]}]}
{"table":"data","key":{"base64":"//4="},"value":{"base64":"AP8="}}
{"table":"data","key":"\\xff\\xfe","value":"\\x00\\xff"}
{"table":"data","key":"{\"base64\":\"//4=\"}","value":"{\"base64\":\"AP8=\"}"}
{"table":"data","key":"m","value":{"msgpack":{"a":1}}}
{"table":"data","key":"t","value":"{\"msgpack\":{\"a\":1}}"}
{"table":"data","key":"u","value":"{\"a\":1}"}
{"table":"data","key":"q","value":"comma, \"quote\"\ttab\nline"}
{"drydb_dump_end":{"rows":{"data":7},"index_entries":{"data":{}}}}
EOF
run drydb build tricky.drydb -i tricky.dump -q
expect_status 0

# Each form, with its base64 computed here.
b64() { printf '%b' "$1" | base64 -w0; }
run drydb scan tricky.drydb -f csv
expect_status 0
expect_stdout <<END
key,value
\\xff\\xfe,\\x00\\xff
m,"{""msgpack"":{""a"":1}}"
q,"comma, ""quote""	tab
line"
t,"{""base64"":""$(b64 '{"msgpack":{"a":1}}')""}"
u,"{""a"":1}"
"{""base64"":""$(b64 '{"base64":"//4="}')""}","{""base64"":""$(b64 '{"base64":"AP8="}')""}"
"{""base64"":""$(b64 '\xff\xfe')""}","{""base64"":""$(b64 '\x00\xff')""}"
END

# The round trips: every key and value as it was (JSON Lines output is exact).
drydb scan tricky.drydb -f jsonl > want.jsonl
for format in csv tsv; do
  drydb scan tricky.drydb -f $format > rows.$format
  run drydb build back_$format.drydb -i rows.$format -k key -v value -q
  expect_status 0
  run drydb scan back_$format.drydb -f jsonl
  expect_status 0
  expect_stdout < want.jsonl
done
expect_true "the original has 7 rows" test "$(wc -l < want.jsonl)" -eq 7

# A form in the key or --value column of a CSV input is the bytes it stands for; other text is text.
printf 'k,v\n"{""base64"":""%s""}",x\nplain,"{""base64"":""not base64""}"\n' "$(b64 '\xfe')" > in.csv
run drydb build in.drydb -i in.csv -k k -v v -q
expect_status 0
run drydb scan in.drydb -f jsonl
expect_stdout <<END
{"key":"plain","value":"{\"base64\":\"not base64\"}"}
{"key":{"base64":"$(b64 '\xfe')"},"value":"x"}
END

# Only the exact text the output writes is a form (not the same object spaced otherwise), and a
# record stored as MessagePack (--msgpack, the default without --value) keeps every field's text.
printf 'k,v\na,"{""base64"":""/w==""}"\nb,"{ ""base64"":""/w==""}"\n' > forms.csv
run drydb build forms_value.drydb -i forms.csv -k k -v v -q
expect_status 0
run drydb scan forms_value.drydb -f jsonl
expect_stdout <<'END'
{"key":"a","value":{"base64":"/w=="}}
{"key":"b","value":"{ \"base64\":\"/w==\"}"}
END
run drydb build forms_msgpack.drydb -i forms.csv -k k -q
expect_status 0
run drydb scan forms_msgpack.drydb -f jsonl
expect_stdout <<'END'
{"key":"a","value":{"msgpack":{"k":"a","v":"{\"base64\":\"/w==\"}"}}}
{"key":"b","value":{"msgpack":{"k":"b","v":"{ \"base64\":\"/w==\"}"}}}
END
