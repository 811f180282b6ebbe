# drydb dump writes JSON Lines that drydb build reads back into an equivalent database: the same
# tables, encodings, rows, index entries, page size and filters (byte-identical files here).
run drydb build items.drydb -i "$DATA/items.jsonl" -q \
  --table items --key id --index kind=kind --index color=color --index price=price,int64,unique \
  --table prices --key price --key-encoding int64 --value id
run drydb dump items.drydb -o items.dump
expect_status 0
expect_no_stdout
run head -3 items.dump
expect_stdout <<'EOF'
{"drydb_dump":2,"page_size":4096,"filters":[],"tables":[{"name":"items","key_encoding":"bytes","indexes":[{"name":"kind","unique":false,"key_encoding":"bytes"},{"name":"color","unique":false,"key_encoding":"bytes"},{"name":"price","unique":true,"key_encoding":"int64"}]},{"name":"prices","key_encoding":"int64","indexes":[]}]}
{"table":"items","key":"apple","value":{"msgpack":{"id":"apple","price":120,"color":"red","kind":"fruit","tags":["sweet","crisp"]}}}
{"table":"items","key":"banana","value":{"msgpack":{"id":"banana","price":80,"color":"yellow","kind":"fruit"}}}
EOF
run grep -c '"index":' items.dump
expect_stdout <<'EOF'
20
EOF
run drydb build back.drydb -i items.dump -q
expect_status 0
expect_true "dump and build give the same bytes" cmp items.drydb back.drydb
run drydb build back2.drydb -q < <(drydb dump items.drydb)
expect_true "through a pipe too" cmp items.drydb back2.drydb
run drydb dump items.drydb --table prices
expect_stdout <<'EOF'
{"drydb_dump":2,"page_size":4096,"filters":[],"tables":[{"name":"prices","key_encoding":"int64","indexes":[]}]}
{"table":"prices","key":-5,"value":"fig"}
{"table":"prices","key":60,"value":"carrot"}
{"table":"prices","key":80,"value":"banana"}
{"table":"prices","key":120,"value":"apple"}
{"table":"prices","key":150,"value":"daikon"}
{"table":"prices","key":200,"value":"eggplant"}
{"table":"prices","key":300,"value":"cherry"}
{"drydb_dump_end":{"rows":{"prices":7},"index_entries":{"prices":{}}}}
EOF
cp "$OUT" prices.dump
# A table named twice is dumped once, so the dump builds back.
run drydb dump items.drydb -t prices -t prices
expect_status 0
expect_true "-t prices -t prices dumps what -t prices does" cmp prices.dump "$OUT"

# Compressed files keep their filters and page size.
seq 1 2000 | awk '{printf "{\"id\":%d,\"name\":\"row %d\",\"group\":\"g%d\"}\n", $1, $1, $1 % 7}' > n.jsonl
for c in lz4 zstd:7; do
  run drydb build c.drydb -i n.jsonl -k id --key-encoding int64 --index group=group --compress $c --page-size 2048 -q
  expect_status 0
  run drydb build cback.drydb -q < <(drydb dump c.drydb)
  expect_status 0
  expect_true "round trip with --compress $c" cmp c.drydb cback.drydb
done
run drydb dump c.drydb
expect_stdout_has '{"drydb_dump":2,"page_size":2048,"filters":[{"id":"zstd","level":7}],'
# A dictionary is trained again (and kept only when it pays, as the first time): the same rows.
run drydb build d.drydb -i n.jsonl -k id --key-encoding int64 --compress zstd --zstd-dictionary 8192 --page-size 512 -q
run drydb build dback.drydb -q < <(drydb dump d.drydb)
expect_status 0
expect_true "the same filters after a dictionary round trip" \
  cmp <(drydb info d.drydb | grep filters) <(drydb info dback.drydb | grep filters)
expect_true "the same rows after a dictionary round trip" \
  cmp <(drydb dump d.drydb | tail -n +2) <(drydb dump dback.drydb | tail -n +2)

# Every key encoding, binary keys and values, index keys of each kind: a hand-written dump (of
# version 1, which has no end record) is built and dumped back as version 2, with its end, and
# otherwise unchanged (the dump form is canonical). The index entries and the u table's rows are
# written in their canonical form and order, so they come back to the letter (kept.part).
cat > kept.part <<'EOF'
{"table":"b","index":"bin","key":"text","index_key":{"base64":"AP8="}}
{"table":"b","index":"bin","key":"été","index_key":"plain"}
{"table":"b","index":"n","key":"","index_key":-1}
{"table":"b","index":"n","key":{"base64":"/wABAg=="},"index_key":-1}
{"table":"b","index":"n","key":"text","index_key":9007199254740993}
{"table":"u","key":"0190a7e4-5b6c-7d8e-9f00-112233445566","value":"u1"}
{"table":"u","key":"0190a7e4-5b6c-7d8e-9f00-112233445567","value":"u2"}
{"table":"u","index":"by_ulid","key":"0190a7e4-5b6c-7d8e-9f00-112233445567","index_key":"01ARZ3NDEKTSV4RRFFQ69G5FAV"}
EOF
{
  cat <<'EOF'
{"drydb_dump":1,"page_size":1024,"filters":[],"tables":[{"name":"b","key_encoding":"bytes","indexes":[{"name":"bin","unique":true,"key_encoding":"bytes"},{"name":"n","unique":false,"key_encoding":"int64"}]},{"name":"u","key_encoding":"uuid_v7","indexes":[{"name":"by_ulid","unique":false,"key_encoding":"ulid"}]},{"name":"l","key_encoding":"ulid","indexes":[]},{"name":"empty","key_encoding":"int64","indexes":[]}]}
{"table":"b","key":"","value":""}
{"table":"b","key":"text","value":"line one\nline two\u0000"}
{"table":"b","key":{"base64":"/wABAg=="},"value":{"base64":"gMHC/w=="}}
{"table":"b","key":"\u00e9t\u00e9","value":{"msgpack":{"f":1.5,"i":-7,"a":[null,true,"x"],"m":{}}}}
EOF
  cat kept.part
  cat <<'EOF'
{"table":"l","key":"01ARZ3NDEKTSV4RRFFQ69G5FAV","value":{"base64":"AA=="}}
EOF
} > all.dump
run drydb build all.drydb -i all.dump -q
expect_status 0
run drydb dump all.drydb
# The b table's rows come back in key order, "\u00e9t\u00e9" as "été"; "\u0000" is the canonical
# form of a value written {"base64":"AA=="}.
expect_stdout < <(
  cat <<'EOF'
{"drydb_dump":2,"page_size":1024,"filters":[],"tables":[{"name":"b","key_encoding":"bytes","indexes":[{"name":"bin","unique":true,"key_encoding":"bytes"},{"name":"n","unique":false,"key_encoding":"int64"}]},{"name":"u","key_encoding":"uuid_v7","indexes":[{"name":"by_ulid","unique":false,"key_encoding":"ulid"}]},{"name":"l","key_encoding":"ulid","indexes":[]},{"name":"empty","key_encoding":"int64","indexes":[]}]}
{"table":"b","key":"","value":""}
{"table":"b","key":"text","value":"line one\nline two\u0000"}
{"table":"b","key":"été","value":{"msgpack":{"f":1.5,"i":-7,"a":[null,true,"x"],"m":{}}}}
{"table":"b","key":{"base64":"/wABAg=="},"value":{"base64":"gMHC/w=="}}
EOF
  cat kept.part
  cat <<'EOF'
{"table":"l","key":"01ARZ3NDEKTSV4RRFFQ69G5FAV","value":"\u0000"}
{"drydb_dump_end":{"rows":{"b":4,"u":2,"l":1,"empty":0},"index_entries":{"b":{"bin":2,"n":3},"u":{"by_ulid":1},"l":{},"empty":{}}}}
EOF
)
run drydb get all.drydb --hex ff000102
expect_stdout <<'EOF'
80c1c2ff
EOF
run drydb all.drydb < <(printf '%s\n' 'get \xff\x00\x01\x02' 'index bin get \x00\xff' 'index n all -1')
expect_stdout <<'EOF'
(binary, 4 bytes)
00000000  80 c1 c2 ff                                       |....|
key: text
(binary, 18 bytes)
00000000  6c 69 6e 65 20 6f 6e 65  0a 6c 69 6e 65 20 74 77  |line one.line tw|
00000010  6f 00                                             |o.|
1) -1 |  -> 
2) -1 | \xff\x00\x01\x02 -> (binary, 4 bytes)
Displayed 2 of 2 entries
EOF

# A dump names its own tables: table flags are a usage error; bad records stop at their line.
run drydb build x.drydb -i all.dump --key k
expect_status 2
printf '%s\n' "$(head -1 all.dump)" '{"table":"nope","key":"a","value":"v"}' > bad.dump
run drydb build x.drydb -i bad.dump -q
expect_status 2
expect_stderr_has "bad.dump:2: a dump record names no table of the header"
printf '%s\n' "$(head -1 all.dump)" '{"table":"b","index":"zz","key":"a","index_key":"v"}' > bad.dump
run drydb build x.drydb -i bad.dump -q
expect_stderr_has "bad.dump:2: a dump index entry names no index of its table"
printf '%s\n' "$(head -1 all.dump)" '{"table":"u","key":"not-a-uuid","value":"v"}' > bad.dump
run drydb build x.drydb -i bad.dump -q
expect_status 2
expect_stderr_has "bad.dump:2: "

# CSV and TSV records stored whole are rows of the table's column list (format 2.3): the names
# once in the file, each row an array whose key column is nil when it holds the key's text.
# The tool shows and dumps them as the maps they stand for; the dump names the columns and
# builds back the same bytes, with and without --omit-empty, for bytes and int64 keys.
printf 'id,name,score,note\n1,Ada,9.5,\n2,Bob,7,x\n0003,Cy,,\n' > p.csv
run drydb build p.drydb -i p.csv -k id --index name=name -q
expect_status 0
run drydb info p.drydb
expect_stdout_has 'columns        id, name, score, note (key: id)'
run drydb scan p.drydb --hex
expect_stdout <<'EOF'
30303033	94c0a24379a0a0
31	94c0a3416461a3392e35a0
32	94c0a3426f62a137a178
EOF
run drydb scan p.drydb --index name --format jsonl
expect_stdout <<'EOF'
{"index_key":"Ada","key":"1","value":{"msgpack":{"id":"1","name":"Ada","score":"9.5","note":""}}}
{"index_key":"Bob","key":"2","value":{"msgpack":{"id":"2","name":"Bob","score":"7","note":"x"}}}
{"index_key":"Cy","key":"0003","value":{"msgpack":{"id":"0003","name":"Cy","score":"","note":""}}}
EOF
run drydb dump p.drydb
expect_stdout_has '"tables":[{"name":"data","key_encoding":"bytes","columns":["id","name","score","note"],"key_column":0,"indexes":'
expect_stdout_has '{"table":"data","key":"2","value":{"msgpack":{"id":"2","name":"Bob","score":"7","note":"x"}}}'
run drydb build pback.drydb -q < <(drydb dump p.drydb)
expect_status 0
expect_true "a table with a column list round trips" cmp p.drydb pback.drydb
run drydb build q.drydb -i p.csv -k id --key-encoding int64 --omit-empty -q
run drydb get q.drydb 3
expect_stdout <<'EOF'
{"id":"0003","name":"Cy"}
EOF
run drydb scan q.drydb --hex
expect_stdout <<'EOF'
1	93c0a3416461a3392e35
2	94c0a3426f62a137a178
3	92a430303033a24379
EOF
run drydb build qback.drydb -q < <(drydb dump q.drydb)
expect_true "int64 keys, --omit-empty: the same bytes" cmp q.drydb qback.drydb
# --row-maps keeps a map per record: no column list.
run drydb build m.drydb -i p.csv -k id --row-maps -q
run drydb info m.drydb --format jsonl
expect_true "no column list" bash -c "! grep -q columns '$OUT'"
run od -An -tu4 -j8 -N4 m.drydb  # required features: bits 2 (prefixed keys) and 4 (identity), not 3
expect_stdout <<'EOF'
         20
EOF
run drydb build bad.drydb -i p.csv -k id --value name --row-maps -q
expect_status 2
expect_stderr_has '--msgpack, --omit-empty and --row-maps are for the whole record'
# A dump row whose map has a field that is no column is a bad row, named.
{ drydb dump p.drydb | head -1; echo '{"table":"data","key":"9","value":{"msgpack":{"id":"9","age":3}}}'; } > bad.dump
run drydb build bad.drydb -i bad.dump -q
expect_status 2
expect_stderr_has "the map has a field 'age' that is not a column of the table"
# A header whose names cannot be a column list (one over 255 bytes) keeps a map per record.
printf 'id,%0300d\n1,a\n' 0 > long.csv
run drydb build long.drydb -i long.csv -k id -q
expect_status 0
run drydb info long.drydb --format jsonl
expect_true "no column list for a name over 255 bytes" bash -c "! grep -q columns '$OUT'"
run drydb get long.drydb 1
expect_stdout_has '"id":"1"'
# Rows whose map JSON cannot hold exactly (text that is not UTF-8, in a field and in the key) are
# dumped as the rows themselves and build back the same bytes; a column name that is not UTF-8,
# which a dump's header could not carry, keeps a map per record.
printf 'id,name\n1,caf\xe9\nk\xff,plain\n' > latin1.csv
run drydb build latin1.drydb -i latin1.csv -k id -q
expect_status 0
run drydb info latin1.drydb
expect_stdout_has 'columns        id, name (key: id)'
run drydb build latin1back.drydb -q < <(drydb dump latin1.drydb)
expect_status 0
expect_true "rows that JSON cannot hold round trip" cmp latin1.drydb latin1back.drydb
printf 'id,n\xe9\n1,a\n' > latin1_header.csv
run drydb build latin1_header.drydb -i latin1_header.csv -k id -q
expect_status 0
run drydb info latin1_header.drydb --format jsonl
expect_true "no column list for a name that is not UTF-8" bash -c "! grep -q columns '$OUT'"
run drydb build latin1_headerback.drydb -q < <(drydb dump latin1_header.drydb)
expect_status 0
expect_true "and it round trips" cmp latin1_header.drydb latin1_headerback.drydb
