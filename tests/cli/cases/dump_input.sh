# A dump as drydb build's input is checked, not trusted: an unknown format version, a zstd level
# the tool does not build with, a header field of the wrong kind and an index entry without its
# row are refused (exit 2, nothing written) instead of building something else.
run drydb build items.drydb -i "$DATA/items.jsonl" -q -k id --index kind=kind --compress zstd
expect_status 0
drydb dump items.drydb > good.dump
run drydb build good.drydb -i good.dump -q
expect_status 0
expect_true "the dump builds back the same file" cmp items.drydb good.drydb

# refused FILE MESSAGE: building from FILE fails with MESSAGE and writes nothing.
refused() {
  run drydb build out.drydb -i "$1" -q
  expect_status 2
  expect_stderr_has "$2"
  expect_true "nothing is written from $1" test ! -e out.drydb
}

# A version this tool does not know may carry what it would drop without a word.
sed '1s/"drydb_dump":[0-9]*,/"drydb_dump":3,/' good.dump > version.dump
refused version.dump "version.dump:1: dump format version 3: this drydb reads versions 1 and 2"
sed '1s/"drydb_dump":\([0-9]*\),/"drydb_dump":"\1",/' good.dump > version_text.dump
refused version_text.dump "version_text.dump:1: bad dump header: no 'drydb_dump'"

# zstd levels: those --compress takes, -7 to 22.
for level in 99 -8 3.5; do
  sed "1s/\"level\":3/\"level\":$level/" good.dump > level.dump
  refused level.dump "level.dump:1: bad dump header:"
done
sed '1s/"level":3/"level":99/' good.dump > level.dump
refused level.dump "bad dump header: zstd level 99: the levels are -7 to 22"
sed '1s/"level":3/"level":22/' good.dump > level22.dump
run drydb build level22.drydb -i level22.dump -q
expect_status 0
run drydb info level22.drydb
expect_stdout_has "zstd"

# A zstd dictionary over the maximum (32 MiB) is refused before anything is allocated for it.
sed '1s/"level":3/"level":3,"dictionary_bytes":99999999999999/' good.dump > dict.dump
refused dict.dump "dict.dump:1: bad dump header: zstd dictionary_bytes 99999999999999: at most 33554432 (32 MiB)"

# Lists that are not lists; numbers that are not numbers.
sed '1s/"filters":\[[^]]*\]/"filters":"zstd"/' good.dump > filters.dump
refused filters.dump "filters.dump:1: bad dump header: 'filters' is not a list"
sed '1s/"indexes":\[[^]]*\]/"indexes":{}/' good.dump > indexes.dump
refused indexes.dump "indexes.dump:1: bad dump header: 'indexes' is not a list"
sed '1s/"page_size":4096/"page_size":"4096"/' good.dump > page.dump
refused page.dump "page.dump:1: bad dump header: a bad 'page_size'"
sed '1s/"page_size":4096/"page_size":4000/' good.dump > page.dump
refused page.dump "page.dump:1: bad dump header: page size 4000"

# An index entry whose row is not in the dump (its row line removed, and the end's count of rows
# made to agree).
rows=$(drydb count items.drydb)
grep -v '^{"table":"data","key":"apple","value"' good.dump |
  sed "\$s/\"rows\":{\"data\":$rows}/\"rows\":{\"data\":$((rows - 1))}/" > orphan.dump
expect_true "the row is gone, its entry stays" grep -q '"index":"kind","key":"apple"' orphan.dump
refused orphan.dump "table 'data', index 'kind': an entry for key 'apple', which no row of the dump has"
# With --skip-bad, a skipped row's index entries are dropped with a warning, whether they come
# after the row or before it.
sed 's/^{"table":"data","key":"apple","value":.*$/{"table":"data","key":"apple","value":5}/' \
  good.dump > skipped.dump
{ head -1 skipped.dump; grep '"index":' skipped.dump; grep -v '"index":' skipped.dump | tail -n +2; } > skipped_early.dump
for f in skipped.dump skipped_early.dump; do
  line=$(grep -n '"key":"apple","value":5' $f | cut -d: -f1)
  run drydb build skipped.drydb -i $f -q --skip-bad
  expect_status 0
  expect_stderr_has "dropped the entry of index 'kind' for the row skipped at $f:$line"
  run drydb count skipped.drydb
  expect_stdout <<END
$((rows - 1))
END
  rm -f skipped.drydb
done
# Entries may come before their rows.
{ head -1 good.dump; grep '"index":' good.dump; grep -v '"index":' good.dump | tail -n +2; } > early.dump
run drydb build early.drydb -i early.dump -q
expect_status 0
expect_true "entries before rows build the same file" cmp items.drydb early.drydb

# A table with a column list keeps a float with an integral value a float through dump and
# build (MessagePack packers may pack 8.0 as the integer 8).
cat > floats.dump <<'DUMP'
{"drydb_dump":2,"page_size":4096,"filters":[],"tables":[{"name":"t","key_encoding":"int64","columns":["id","score"],"key_column":0,"indexes":[]}]}
{"table":"t","key":1,"value":{"msgpack":{"id":1,"score":8.0}}}
{"table":"t","key":2,"value":{"msgpack":{"id":2,"score":-0.0}}}
{"drydb_dump_end":{"rows":{"t":2},"index_entries":{"t":{}}}}
DUMP
run drydb build floats.drydb -i floats.dump -q
expect_status 0
drydb dump floats.drydb > floats_again.dump
expect_true "the floats come back as floats" cmp floats.dump floats_again.dump
