# JSON numbers stored as MessagePack (docs/cli.md, "JSON numbers"): an integer of the int64 or
# uint64 range stays an integer; any other number is the double nearest its text; a number that
# loses more than that rounding (an underflow to 0, an integer outside both ranges that no double
# is exactly, a number beyond a double's range) is a bad row naming its line, column and field,
# never a different number stored without a word. A number used only as text is the input's.
cat >kept.jsonl <<'IN'
{"id":1,"v":-9223372036854775808}
{"id":2,"v":18446744073709551615}
{"id":3,"v":18446744073709551616}
{"id":4,"v":0.1}
{"id":5,"v":5e-324}
{"id":6,"v":2.4703282292062328e-324}
{"id":7,"v":0e-500}
{"id":8,"v":-0.0}
{"id":9,"v":1.7976931348623158e308}
{"id":10,"v":[1,{"x":1e3}]}
IN
run drydb build kept.drydb -i kept.jsonl -k id --key-encoding int64 -q
expect_status 0
run drydb scan kept.drydb -f jsonl
expect_stdout <<'OUT'
{"key":1,"value":{"msgpack":{"id":1,"v":-9223372036854775808}}}
{"key":2,"value":{"msgpack":{"id":2,"v":18446744073709551615}}}
{"key":3,"value":{"msgpack":{"id":3,"v":1.8446744073709552e+19}}}
{"key":4,"value":{"msgpack":{"id":4,"v":0.1}}}
{"key":5,"value":{"msgpack":{"id":5,"v":5e-324}}}
{"key":6,"value":{"msgpack":{"id":6,"v":5e-324}}}
{"key":7,"value":{"msgpack":{"id":7,"v":0.0}}}
{"key":8,"value":{"msgpack":{"id":8,"v":-0.0}}}
{"key":9,"value":{"msgpack":{"id":9,"v":1.7976931348623157e+308}}}
{"key":10,"value":{"msgpack":{"id":10,"v":[1,{"x":1000.0}]}}}
OUT
# What a dump writes of them builds the same file again.
run drydb dump kept.drydb -o kept.dump
expect_status 0
run drydb build again.drydb -i kept.dump -q
expect_status 0
expect_true "the dump of the kept numbers builds the same file" cmp kept.drydb again.drydb

# refused LINE: a build of that one line fails, naming it; nothing is written.
refused() {
  printf '%s\n' "$1" >one.jsonl
  run drydb build out.drydb -i one.jsonl -k id -q
  expect_status 2
  expect_stderr <<ERR
drydb: one.jsonl:1: table 'data': $2 (out.drydb not written; --skip-bad skips bad rows)
ERR
  expect_true "nothing is written for $1" test ! -e out.drydb
}
refused '{"id":1,"v":4.9e-325}' \
  "column 13, field v: the number 4.9e-325 is not zero, but it rounds to 0 as a double (the smallest double is 4.9e-324)"
refused '{"id":1,"v":18446744073709551617}' \
  "column 13, field v: the integer 18446744073709551617 is outside the int64 and uint64 ranges, and no double is exactly it (the nearest is 18446744073709551616)"
refused '{"id":1,"v":-9223372036854775809}' \
  "column 13, field v: the integer -9223372036854775809 is outside the int64 and uint64 ranges, and no double is exactly it (the nearest is -9223372036854775808)"
refused '{"id":1,"v":{"a":[0,1e-400]}}' \
  "column 21, field v.a[1]: the number 1e-400 is not zero, but it rounds to 0 as a double (the smallest double is 4.9e-324)"
refused "{\"id\":1,\"v\":1$(printf '%0400d' 0)}" \
  "column 13, field v: the integer 100000000000000000000000... (401 characters) is outside the int64 and uint64 ranges and beyond the range of a double"
# --omit-empty writes the members one by one, and names the field the same way.
printf '{"id":1,"n":null,"v":{"a":[0,1e-400]}}\n' >one.jsonl
run drydb build out.drydb -i one.jsonl -k id -q --omit-empty
expect_status 2
expect_stderr_has "one.jsonl:1: table 'data': column 30, field v.a[1]: the number 1e-400 is not zero"
# Beyond a double's range with a fraction or exponent, the parser refuses it, as before.
printf '{"id":1,"v":1e400}\n' >one.jsonl
run drydb build out.drydb -i one.jsonl -k id -q
expect_status 2
expect_stderr_has "one.jsonl:1: column 13: bad number (or out of the range of a double)"

# --skip-bad skips such rows, and counts them.
cat >mixed.jsonl <<'IN'
{"id":1,"v":1.5}
{"id":2,"v":1e-999}
{"id":3,"v":99999999999999999999999}
{"id":4,"v":7}
IN
run drydb build mixed.drydb -i mixed.jsonl -k id --skip-bad
expect_status 0
expect_stderr_has "drydb build: skipped mixed.jsonl:2: table 'data': column 13, field v: the number 1e-999 is not zero"
expect_stderr_has "drydb build: skipped mixed.jsonl:3: table 'data': column 13, field v: the integer 99999999999999999999999 is outside"
run drydb count mixed.drydb
expect_stdout <<'OUT'
2
OUT

# A number used only as text (a bytes key, a --value column) is its text as written: nothing
# is converted, so nothing is refused.
printf '{"id":123456789012345678901234,"v":4.9e-325}\n' >text.jsonl
run drydb build text.drydb -i text.jsonl -k id -v v -q
expect_status 0
run drydb scan text.drydb
expect_stdout <<'OUT'
123456789012345678901234	4.9e-325
OUT

# A dump's {"msgpack": ...} value is held to the same rule (an edited dump, say).
run drydb dump kept.drydb
head -n 1 "$OUT" >edited.dump
echo '{"table":"data","key":1,"value":{"msgpack":{"v":18446744073709551617}}}' >>edited.dump
tail -n 1 "$OUT" | sed 's/"data":10/"data":1/' >>edited.dump
run drydb build out.drydb -i edited.dump -q
expect_status 2
expect_stderr_has "edited.dump:2: 'value': column 49, field v: the integer 18446744073709551617 is outside the int64 and uint64 ranges"
