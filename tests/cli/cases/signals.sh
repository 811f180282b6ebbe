# Signals at named points of the tool, reached exactly rather than timed: DRYDB_TEST_PAUSE=POINT
# makes drydb stop at POINT, say so on stderr and wait for a signal (tools/drydb/test_pause.h).
# Whatever the point and the signal, nothing is lost: a target is the old file or the new one,
# whole; a dump to a file leaves the old file; an interrupted dump is refused by `drydb build`.

# POINT SIGNAL CMD...: runs CMD with a pause at POINT (run_case.sh's start_paused) and sends
# SIGNAL there; keeps its stdout, stderr and exit status as `run` does.
paused_run() {
  local point=$1 signal=$2
  shift 2
  start_paused "$point" "$@"
  finish_paused "$signal"
}

temp_files() {  # the build temp files beside t.drydb
  find . -maxdepth 1 -name '.t.drydb.tmp-*' | wc -l
}

seq 1 5000 | awk '{printf "{\"id\":%d,\"name\":\"row %d\"}\n", $1, $1}' > rows.jsonl
seq 1 7 | awk '{printf "{\"id\":%d,\"name\":\"new %d\"}\n", $1, $1}' > new.jsonl
run drydb build t.drydb -i rows.jsonl -k id --key-encoding int64 -q
expect_status 0
cp t.drydb old.drydb

# While reading the input, SIGTERM and SIGINT stop the build cleanly: exit 2, the target as it
# was, no temp file.
for signal in TERM INT; do
  paused_run build:reading "$signal" "$DRYDB" build t.drydb -i new.jsonl -k id -q
  expect_status 2
  expect_stderr_has "drydb: interrupted; t.drydb not written"
  expect_true "the target is as it was" cmp -s t.drydb old.drydb
  expect_true "no temp file is left" test "$(temp_files)" = 0
done

# While the library writes (the pages written, the temp file synced), a signal takes its
# default action: the process ends, the target is as it was, and the temp file it leaves is
# removed by the next build to the same target.
paused_run build:pages_written TERM "$DRYDB" build t.drydb -i new.jsonl -k id -q
expect_status 143
expect_true "the target is as it was" cmp -s t.drydb old.drydb
expect_true "the temp file is left" test "$(temp_files)" = 1
paused_run build:synced KILL "$DRYDB" build t.drydb -i new.jsonl -k id -q
expect_status 137
expect_true "the target is as it was" cmp -s t.drydb old.drydb
run drydb verify t.drydb
expect_status 0
run drydb build t.drydb -i rows.jsonl -k id --key-encoding int64 -q
expect_status 0
expect_true "the next build removed the temp files" test "$(temp_files)" = 0
expect_true "and wrote the same file" cmp -s t.drydb old.drydb

# Killed once the rename is done: the target is the new database, whole.
paused_run build:renamed KILL "$DRYDB" build t.drydb -i new.jsonl -k id --key-encoding int64 -q
expect_status 137
run drydb count t.drydb
expect_status 0
expect_stdout <<END
7
END
run drydb verify t.drydb
expect_status 0
expect_true "no temp file is left" test "$(temp_files)" = 0
cp old.drydb t.drydb

# A dump to a file, interrupted after its first line: exit 2, the file as it was, no temp file.
echo "the previous dump" > out.jsonl
paused_run dump:writing TERM "$DRYDB" dump t.drydb -o out.jsonl
expect_status 2
expect_stderr_has "drydb: interrupted; the dump is incomplete"
expect_true "the output is as it was" test "$(cat out.jsonl)" = "the previous dump"
expect_true "no temp file is left" test "$(find . -maxdepth 1 -name '.out.jsonl*' | wc -l)" = 0

# Killed (SIGKILL) while writing: the file as it was and a temp file beside it, which the next
# dump to the same file removes (no live writer holds it) as it writes the file whole.
paused_run dump:writing KILL "$DRYDB" dump t.drydb -o out.jsonl
expect_status 137
expect_true "the output is as it was" test "$(cat out.jsonl)" = "the previous dump"
expect_true "the killed dump's temp file is left" \
  test "$(find . -maxdepth 1 -name '.out.jsonl.tmp-*' | wc -l)" = 1
run drydb dump t.drydb -o out.jsonl
expect_status 0
expect_true "the next dump removed it" test "$(find . -maxdepth 1 -name '.out.jsonl*' | wc -l)" = 0
expect_true "and wrote the dump" grep -q '"drydb_dump":2' out.jsonl

# A dump to standard output writes in place, and a signal takes its default action there (as
# for any filter of a pipeline): the output ends without the dump's end record, and
# `drydb build` refuses it.
paused_run dump:writing INT "$DRYDB" dump t.drydb
cp "$OUT" cut.jsonl
expect_status 130
expect_true "the header was written" grep -q '"drydb_dump":2' cut.jsonl
run drydb build cut.drydb -i cut.jsonl -q
expect_status 2
expect_stderr_has "the dump ends without its end record: it is incomplete"
expect_true "nothing is written" test ! -e cut.drydb

# A session reading a script keeps SIGINT's default action: a command interrupted ends it.
printf 'scan 0 100\ncount\n' > script.txt
paused_run session:row INT "$DRYDB" t.drydb < script.txt
expect_status 130
