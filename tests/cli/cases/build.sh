# drydb build: CSV, TSV and JSON Lines input, key encodings, values, indexes, page size and
# compression, progress, and bad input (line numbers, --skip-bad, never a half-written file).

# CSV with a header (RFC 4180 quoting: delimiters, doubled quotes, line breaks in fields).
run drydb build c.drydb -i "$DATA/items.csv" --key id --key-encoding int64 --value note
expect_status 0
expect_no_stdout
expect_stderr_has "drydb build: reading $DATA/items.csv (112 B)"
expect_stderr_has "drydb build: wrote c.drydb: 1 table, 4 rows,"
run drydb scan c.drydb --format csv
expect_stdout <<'EOF'
key,value
1,"crisp, sweet"
2,"said ""ripe"""
3,"two
lines"
4,
EOF

# The whole record as MessagePack (the default), empty fields left out, an int64 index on text.
run drydb build c2.drydb -i "$DATA/items.csv" --key name --omit-empty --index p=price,int64 -q
expect_status 0
run drydb scan c2.drydb
expect_stdout <<'EOF'
apple	{"id":"1","name":"apple","price":"120","note":"crisp, sweet"}
banana	{"id":"2","name":"banana","price":"80","note":"said \"ripe\""}
carrot	{"id":"3","name":"carrot","price":"60","note":"two\nlines"}
daikon	{"id":"4","name":"daikon","price":"150"}
EOF
run drydb range c2.drydb -x p 70 130 --format csv
expect_stdout <<'EOF'
index_key,key,value
80,banana,"{""msgpack"":{""id"":""2"",""name"":""banana"",""price"":""80"",""note"":""said \""ripe\""""}}"
120,apple,"{""msgpack"":{""id"":""1"",""name"":""apple"",""price"":""120"",""note"":""crisp, sweet""}}"
EOF

# TSV from stdin; headerless input with --columns and another delimiter; --header skips a header.
run drydb build t.drydb --format tsv -k name -v score -q < <(printf 'name\tscore\nann\t10\n"b\tob"\t7\n')
expect_status 0
run drydb scan t.drydb --format tsv
expect_stdout < <(printf 'key\tvalue\nann\t10\n"b\tob"\t7\n')
run drydb build h.drydb --delimiter ';' --columns code,name,cat --key code --key-encoding int64 \
  --key-radix 16 --value name -q < <(printf '0041;LATIN CAPITAL LETTER A;Lu\n00E9;LATIN SMALL LETTER E WITH ACUTE;Ll\n')
expect_status 0
run drydb scan h.drydb
expect_stdout <<'EOF'
65	LATIN CAPITAL LETTER A
233	LATIN SMALL LETTER E WITH ACUTE
EOF
run drydb build h2.drydb --format csv --columns k,v --header -k k -v v -q < <(printf 'a,b\nx,1\n')
run drydb scan h2.drydb
expect_stdout <<'EOF'
x	1
EOF

# Several tables from one input; flags before the first --table belong to it; --skip-key.
run drydb build multi.drydb -i "$DATA/items.jsonl" -q --key id --value color --table by_id \
  --table by_price --key price --key-encoding int64 --value id --skip-key '-*'
expect_status 0
run drydb tables multi.drydb --format csv
expect_stdout <<'EOF'
table,key_encoding,rows,indexes
by_id,bytes,7,
by_price,int64,6,
EOF
run drydb build x.drydb -i "$DATA/items.jsonl" --key id --table a --key price
expect_status 2
expect_stderr_has "--key given twice for table 'a'"

# JSON Lines: numbers as keys, nested values kept as JSON text, uuid and ulid keys, sparse indexes.
cat > kinds.jsonl <<'EOF'
{"u":"0190a7e4-5b6c-7d8e-9f00-112233445566","l":"01ARZ3NDEKTSV4RRFFQ69G5FAV","n":1.50,"o":{"a":[1,2]},"tag":"x"}
{"u":"0190a7e4-5b6c-7d8e-9f00-112233445567","l":"01ARZ3NDEKTSV4RRFFQ69G5FAW","n":2,"o":null,"tag":""}
{"u":"0190a7e4-5b6c-7d8e-9f00-112233445568","l":"01ARZ3NDEKTSV4RRFFQ69G5FAX","n":-3e2,"o":"s"}
EOF
run drydb build k.drydb -i kinds.jsonl -q --table uuids --key u --key-encoding uuid_v7 --value o \
  --index 'tag=tag,skip=x*' --table ulids --key l --key-encoding ulid --value n --table nums --key n --value o
expect_status 2
expect_stderr_has "index 'tag': column 'tag' is not stored"
run drydb build k.drydb -i kinds.jsonl -q --table uuids --key u --key-encoding uuid_v7 --index 'tag=tag,skip=x*' \
  --table ulids --key l --key-encoding ulid --value n --table nums --key n --value o
expect_status 0
run drydb get k.drydb -t ulids 01ARZ3NDEKTSV4RRFFQ69G5FAV
expect_stdout <<'EOF'
1.50
EOF
run drydb scan k.drydb -t nums
expect_stdout <<'EOF'
-3e2	s
1.50	{"a":[1,2]}
2	
EOF
run drydb range k.drydb -t uuids 0190a7e4-5b6c-7d8e-9f00-112233445567 '*' --format csv
expect_stdout <<'EOF'
key,value
0190a7e4-5b6c-7d8e-9f00-112233445567,"{""msgpack"":{""u"":""0190a7e4-5b6c-7d8e-9f00-112233445567"",""l"":""01ARZ3NDEKTSV4RRFFQ69G5FAW"",""n"":2,""o"":null,""tag"":""""}}"
0190a7e4-5b6c-7d8e-9f00-112233445568,"{""msgpack"":{""u"":""0190a7e4-5b6c-7d8e-9f00-112233445568"",""l"":""01ARZ3NDEKTSV4RRFFQ69G5FAX"",""n"":-300.0,""o"":""s""}}"
EOF
# "x" is skipped by the glob, "" and a missing tag are left out: the index is empty.
run drydb count k.drydb -t uuids -x tag
expect_stdout <<'EOF'
0
EOF

# Bad rows stop the build at their line; the output is not written and an old file survives.
printf '{"k":1}\n{"k":2\n{"k":"x"}\n[1]\n\n{"k":3}\n' > bad.jsonl
cp c.drydb keep.drydb
run drydb build keep.drydb -i bad.jsonl --key k --key-encoding int64
expect_status 2
expect_stderr_has "drydb: bad.jsonl:2: column 7: expected a value, ',', ':' or a closing bracket (keep.drydb not written; --skip-bad skips bad rows)"
expect_true "the old file is untouched" cmp -s c.drydb keep.drydb
expect_true "no temp file is left" test "$(ls -A | grep -c tmp)" -eq 0
run drydb build new.drydb -i bad.jsonl --key k --key-encoding int64 -q
expect_status 2
expect_true "no output after a bad row" test ! -e new.drydb
run drydb build b.drydb -i bad.jsonl --key k --key-encoding int64 --skip-bad
expect_status 0
expect_stderr_has "drydb build: skipped bad.jsonl:2: column 7: expected a value, ',', ':' or a closing bracket"
expect_stderr_has "drydb build: skipped bad.jsonl:3: table 'data', key column 'k': 'x' is not an integer for an int64 key"
expect_stderr_has "drydb build: skipped bad.jsonl:4: expected a JSON object"
expect_stderr_has "read 2 rows (38 B) in"
expect_stderr_has "skipped 3 bad rows"
run drydb scan b.drydb
expect_stdout <<'EOF'
1	{"k":1}
3	{"k":3}
EOF
run drydb build b.drydb -i bad.jsonl --key k --key-encoding int64 --skip-bad -q
expect_status 0
expect_stderr <<'EOF'
drydb build: skipped bad.jsonl:2: column 7: expected a value, ',', ':' or a closing bracket
drydb build: skipped bad.jsonl:3: table 'data', key column 'k': 'x' is not an integer for an int64 key
drydb build: skipped bad.jsonl:4: expected a JSON object (for CSV or TSV input use --format)
drydb build: skipped 3 bad rows
EOF

# ERROR BUILD-ARGS...: a build stops at its first bad row, saying ERROR (its place and what is
# wrong; exit 2), and with --skip-bad skips that row, saying so, and succeeds.
expect_bad_row() {
  local error=$1
  shift
  run drydb build "$@" -q
  expect_status 2
  expect_stderr_has "$error"
  run drydb build "$@" -q --skip-bad
  expect_status 0
  expect_stderr_has "skipped $error"
}

# CSV errors: the line a malformed record starts on, a wrong field count, a missing column.
printf 'k,v\n1,a\n2,"multi\nline\n3,x"y\n4,"open\n' > bad.csv
expect_bad_row "bad.csv:3: field 2: text after the closing quote" bc.drydb -i bad.csv -k k -v v
expect_stderr_has "skipped bad.csv:6: unterminated quoted field"
run drydb scan bc.drydb
expect_stdout <<'EOF'
1	a
EOF
printf 'k,v\n1,a\n2\n3,c,d\n' > count.csv
expect_bad_row "count.csv:3: 1 fields, expected 2" bc.drydb -i count.csv -k k -v v
expect_stderr_has "skipped count.csv:4: 3 fields, expected 2"
run drydb count bc.drydb
expect_stdout <<'EOF'
1
EOF
run drydb build bc.drydb -i count.csv -k key -q
expect_status 2
expect_stderr_has "table 'data': no column 'key' in the input (columns: k, v)"

# Duplicate keys and unique index values fail the build, naming them; long keys are bad rows.
printf '{"k":"a","v":"1"}\n{"k":"b","v":"1"}\n{"k":"a","v":"2"}\n' > dup.jsonl
run drydb build d.drydb -i dup.jsonl -k k -q
expect_status 2
expect_stderr_has "drydb: d.drydb not written: table 'data': key 'a' was appended twice"
printf '{"k":"a","v":"1"}\n{"k":"b","v":"1"}\n' > dup2.jsonl
run drydb build d.drydb -i dup2.jsonl -k k --index 'v=v,unique' -q --skip-bad
expect_status 2
expect_stderr_has "d.drydb not written"
expect_stderr_has "'1'"
expect_true "no output after a failed build" test ! -e d.drydb
printf '{"k":"%s"}\n{"k":"ok"}\n' "$(head -c 200 /dev/zero | tr '\0' k)" > long.jsonl
run drydb build l.drydb -i long.jsonl -k k --page-size 512 -q
expect_status 2
expect_stderr_has "long.jsonl:1: table 'data': key of 200 bytes is over the limit of 64 for page size 512"

# Page size and compression: a deeper tree with small pages; zstd and lz4 read back the same.
seq 1 3000 | awk '{printf "{\"id\":%d,\"name\":\"row %d\",\"even\":%s}\n", $1, $1, ($1 % 2 ? "false" : "true")}' > n.jsonl
run drydb build small.drydb -i n.jsonl -k id --key-encoding int64 --page-size 512 --index even=even -q
expect_status 0
run drydb stats small.drydb
expect_stdout_has "depth        3"
expect_stdout_has "level 2 (root): 1, level 1: "
run drydb build z.drydb -i n.jsonl -k id --key-encoding int64 --compress zstd:9 --zstd-dictionary 4096 --page-size 1024 -q
expect_status 0
run drydb info z.drydb
expect_stdout_has "filters        zstd (level 9"
run drydb stats z.drydb
expect_stdout_has "compression  zstd (level 9"
expect_stdout_has "(ratio "
# A dictionary takes at most 32 MiB (the pages the builder samples to train one): a larger
# size is bad usage, refused before anything is allocated for it (it used to be std::bad_alloc).
for size in 99999999999999 33554433; do
  run drydb build zbig.drydb -i n.jsonl -k id --compress zstd --zstd-dictionary $size -q
  expect_status 2
  expect_stderr <<ERR
drydb: --zstd-dictionary $size: a dictionary takes at most 33554432 bytes (32 MiB)
ERR
  expect_true "nothing is written with --zstd-dictionary $size" test ! -e zbig.drydb
done
run drydb build zbig.drydb -i n.jsonl -k id --compress zstd --zstd-dictionary 33554432 -q
expect_status 0
run drydb build l4.drydb -i n.jsonl -k id --key-encoding int64 --compress lz4 -q
run drydb info l4.drydb
expect_stdout_has "filters        lz4"
# --miss-filter: a miss filter per table, shown by stats, checked by verify, kept by a dump.
run drydb build mf.drydb -i n.jsonl -k id --key-encoding int64 --miss-filter 10 --page-size 512 -q
expect_status 0
run drydb stats mf.drydb
expect_stdout_has "  miss filter  8 pages (4,096 bytes), at most 10 bits per row"
run drydb stats mf.drydb --format jsonl
expect_stdout_has '"miss_filter_bits_per_key":10,"miss_filter_pages":8}'
run drydb verify mf.drydb
expect_status 0
run drydb get mf.drydb 2999
expect_stdout_has '"name":"row 2999"'
run drydb get mf.drydb 3001
expect_status 1
run drydb dump mf.drydb -o mf.dump
run head -c 160 mf.dump
expect_stdout_has '"key_encoding":"int64","miss_filter_bits_per_key":10,'
run drydb build mf2.drydb -i mf.dump -q
expect_status 0
run cmp mf.drydb mf2.drydb
expect_status 0
run drydb build mf3.drydb -i n.jsonl -k id --miss-filter 33 -q
expect_status 2
expect_stderr_has "--miss-filter"
run drydb scan small.drydb --offset 2990 --format jsonl
expect_stdout <<'EOF'
{"key":2991,"value":{"msgpack":{"id":2991,"name":"row 2991","even":false}}}
{"key":2992,"value":{"msgpack":{"id":2992,"name":"row 2992","even":true}}}
{"key":2993,"value":{"msgpack":{"id":2993,"name":"row 2993","even":false}}}
{"key":2994,"value":{"msgpack":{"id":2994,"name":"row 2994","even":true}}}
{"key":2995,"value":{"msgpack":{"id":2995,"name":"row 2995","even":false}}}
{"key":2996,"value":{"msgpack":{"id":2996,"name":"row 2996","even":true}}}
{"key":2997,"value":{"msgpack":{"id":2997,"name":"row 2997","even":false}}}
{"key":2998,"value":{"msgpack":{"id":2998,"name":"row 2998","even":true}}}
{"key":2999,"value":{"msgpack":{"id":2999,"name":"row 2999","even":false}}}
{"key":3000,"value":{"msgpack":{"id":3000,"name":"row 3000","even":true}}}
EOF
for f in z l4; do
  run drydb scan $f.drydb --offset 2990 --format jsonl
  expect_stdout < <(drydb scan small.drydb --offset 2990 --format jsonl)
done
run drydb count small.drydb -x even true
expect_stdout <<'EOF'
1500
EOF

# Progress: a line every --progress-every seconds when stderr is not a terminal. Sizes in kB of
# 1,000 bytes, one decimal.
input_kb=$(awk -v n="$(stat -c %s n.jsonl)" 'BEGIN { printf "%.1f kB", n / 1000 }')
run drydb build p.drydb -i n.jsonl -k id --key-encoding int64 --progress-every 0
expect_true "a progress line with the input's size" \
  grep -qE "^drydb build: [0-9,]+ rows, [0-9.]+ kB of $input_kb read, " "$ERR"
expect_stderr_has "drydb build: read 3,000 rows ($input_kb) in "

# Usage errors: exit status 2.
run drydb build u.drydb -i n.jsonl
expect_status 2
expect_stderr_has "name the key column: --key COLUMN"
run drydb build u.drydb -i n.jsonl -k id --compress brotli
expect_status 2
run drydb build u.drydb -i n.jsonl -k id --page-size 1000
expect_status 2
expect_stderr_has "not a power of two"
run drydb build u.drydb -i n.jsonl -k id --index nocolumn
expect_status 2
run drydb build u.drydb -i n.jsonl -k id --format jsonl --columns a,b
expect_status 2
expect_stderr_has "--delimiter, --columns and --header are for csv and tsv input"
run drydb build u.drydb -i missing.jsonl -k id
expect_status 2
expect_stderr_has "cannot open input 'missing.jsonl': No such file or directory"

# Interrupted while blocked reading its input (SIGTERM during a read(2) of a fifo that has no
# more data yet): a clean stop, nothing written. No timed guess: the build pauses after its first
# row (DRYDB_TEST_PAUSE, tools/drydb/test_pause.h), SIGUSR1 lets it read on into the half-written
# second one, and the kernel says when it waits in the fifo's read (/proc/PID/wchan); both waits
# are bounded (30 s).
mkfifo input.fifo
DRYDB_TEST_PAUSE=build:reading "$DRYDB" build int.drydb -i input.fifo -k k -q 2>int.err &
pid=$!
exec 3>input.fifo
printf '{"k":"a"}\n{"k":"b"' >&3
last="build from a fifo"
wait_paused build:reading int.err
kill -USR1 $pid
# The kernel function a reader of an empty pipe sleeps in: pipe_wait, pipe_read or anon_pipe_read
# as kernels name it. Where wchan reads 0 (a kernel or sandbox that hides it), the process
# sleeping (state S) is the sign: after SIGUSR1 the fifo's read is the only place it sleeps.
in_pipe_read() {
  local wchan
  wchan=$(cat "/proc/$pid/wchan" 2>/dev/null)
  if [ "$wchan" = 0 ] || [ -z "$wchan" ]; then
    [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" = S ]
  else
    printf '%s\n' "$wchan" | grep -qE '(^|_)pipe_(read|wait)$'
  fi
}
expect_true "the build waits in the fifo's read" eventually in_pipe_read
last="build from a fifo, then SIGTERM"
expect_sigterm_stops_build int.drydb int.err
exec 3>&-

# Values over a quarter page go to overflow runs: stats counts them, with and without filters.
# Row i's value is 60 * i bytes; a value over 1024 / 4 bytes takes ceil((16 + length) / 1024)
# pages (docs/format.md, "Overflow run").
seq 1 50 | awk '{s = ""; for (i = 0; i < $1 * 60; i++) s = s "x"; printf "{\"id\":%d,\"blob\":\"%s\"}\n", $1, s}' > ov.jsonl
read -r runs overflow_pages < <(seq 1 50 | awk '$1 * 60 > 1024 / 4 {
  runs++; pages += int((16 + $1 * 60 + 1023) / 1024) } END { print runs, pages }')
for c in none zstd lz4; do
  run drydb build ov.drydb -i ov.jsonl -k id --key-encoding int64 -v blob --page-size 1024 --compress $c -q
  run drydb stats ov.drydb
  expect_stdout_has "pages        $((3 + overflow_pages)) = 2 leaf + 1 internal + $overflow_pages overflow"
  expect_stdout_has "per level    level 1 (root): 1, level 0 (leaves): 2"
  expect_stdout_has "overflow     $overflow_pages pages in $runs runs"
  run drydb get ov.drydb 50 --raw
  expect_true "a 3,000-byte value reads back ($c)" test "$(wc -c < "$OUT")" -eq 3000
done
