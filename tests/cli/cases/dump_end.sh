# A dump (format 2) ends with a record that counts its rows and index entries, written only when
# the dump completed; drydb build requires it, so a dump cut short (by a damaged page, a full
# disk, a copy stopped early) is refused instead of building fewer rows. A version 1 dump, which
# has none, still builds, with a warning.
run drydb build items.drydb -i "$DATA/items.jsonl" -q --table items --key id --index kind=kind \
  --index color=color --table prices --key price --key-encoding int64 --value id
expect_status 0
drydb dump items.drydb > items.dump

# The end record: each table's rows and each index's entries, as count reports them.
rows_items=$(drydb count items.drydb -t items)
rows_prices=$(drydb count items.drydb -t prices)
kind=$(drydb count items.drydb -t items -x kind)
color=$(drydb count items.drydb -t items -x color)
run tail -1 items.dump
expect_stdout <<END
{"drydb_dump_end":{"rows":{"items":$rows_items,"prices":$rows_prices},"index_entries":{"items":{"kind":$kind,"color":$color},"prices":{}}}}
END
run drydb build back.drydb -i items.dump -q
expect_status 0
expect_no_stdout
run cmp items.drydb back.drydb
expect_status 0

# Cut anywhere on a line boundary: refused, nothing written.
total=$(wc -l < items.dump)
for keep in 1 3 $((total - 1)); do
  head -n "$keep" items.dump > cut.dump
  run drydb build cut.drydb -i cut.dump -q
  expect_status 2
  expect_stderr_has "cut.dump: the dump ends without its end record: it is incomplete"
  expect_true "nothing is written (first $keep lines)" test ! -e cut.drydb
done
# Lines lost before the end (a row, an index entry) or added after it.
grep -v '"key":"banana","value"' items.dump > lost_row.dump
run drydb build x.drydb -i lost_row.dump -q
expect_status 2
expect_stderr_has "the dump's end counts $rows_items rows of table 'items', but $((rows_items - 1)) came before it"
grep -v '"index":"color","key":"banana"' items.dump > lost_entry.dump
run drydb build x.drydb -i lost_entry.dump -q
expect_status 2
expect_stderr_has "the dump's end counts $color entries of table 'items', index 'color', but $((color - 1)) came"
{ cat items.dump; sed -n 2p items.dump; } > after.dump
run drydb build x.drydb -i after.dump -q
expect_status 2
expect_stderr_has "after.dump:$((total + 1)): a record after the dump's end"
expect_true "nothing is written" test ! -e x.drydb

# A dump of a file damaged mid-way fails and writes no end, so its output does not build.
seq 1 600 | awk '{printf "{\"id\":%d,\"name\":\"row %d\"}\n", $1, $1}' > n.jsonl
run drydb build n.drydb -i n.jsonl -k id --key-encoding int64 -q
cp n.drydb damaged.drydb
printf '\x55' | dd of=damaged.drydb bs=1 seek=$((3 * 4096 + 100)) conv=notrunc 2>/dev/null
run drydb dump damaged.drydb
expect_status 2
expect_stderr_has "page 3: checksum mismatch"
cp "$OUT" partial.dump
expect_true "some rows were written" test "$(wc -l < partial.dump)" -gt 1
expect_true "the output ends on a line boundary" test "$(tail -c 1 partial.dump | od -An -c | tr -d ' ')" = '\n'
run drydb build partial.drydb -i partial.dump -q
expect_status 2
expect_stderr_has "partial.dump: the dump ends without its end record: it is incomplete"
expect_true "nothing is written" test ! -e partial.drydb

# Version 1 (earlier drydb): no end record; it builds, with a warning also under --quiet.
sed -e '1s/"drydb_dump":2,/"drydb_dump":1,/' -e '$d' items.dump > v1.dump
run drydb build v1.drydb -i v1.dump -q
expect_status 0
expect_stderr <<END
drydb build: v1.dump is a version 1 dump, which has no end record: whether it is complete cannot be checked
END
run cmp items.drydb v1.drydb
expect_status 0
