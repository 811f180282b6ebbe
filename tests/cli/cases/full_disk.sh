# A disk that fills while the tool writes: build and dump -o fail with exit 2 and the system's
# message, the file at the target keeps its previous bytes and no temp file is left; a dump to
# stdout that fails is cut without its end record, so a build refuses it. The disk fills through
# the file size limit (ulimit -f, SIGXFSZ ignored: writes past it fail with EFBIG), which needs
# no root and no mount; full_disk_tmpfs.sh does the same on a small tmpfs.
full_disk_inputs
limit_kb=256
expect_true "the database is larger than the limit" \
  test "$(stat -c %s big.drydb)" -gt $((limit_kb * 1024))

# Runs the tool under the limit.
limited() {
  run bash -c 'ulimit -f "$1"; trap "" XFSZ; shift; exec "$@"' limited $limit_kb "$DRYDB" "$@"
}
no_temp_files() {
  run sh -c 'ls -A | grep -c tmp-'
  expect_stdout <<'OUT'
0
OUT
}

cp prev.drydb out.drydb
limited build out.drydb -i big.jsonl -k id -q
expect_status 2
expect_stderr_has "drydb: out.drydb not written: cannot write './.out.drydb.tmp-"
expect_stderr_has "': File too large"
expect_true "the previous database is untouched" cmp prev.drydb out.drydb
no_temp_files

echo previous >prev.jsonl
limited dump big.drydb -o prev.jsonl
expect_status 2
expect_stderr <<'ERR'
drydb: cannot write 'prev.jsonl': File too large
ERR
run cat prev.jsonl
expect_stdout <<'OUT'
previous
OUT
no_temp_files

# To stdout (the case's capture file): written in place up to the limit, then exit 2; the cut
# dump lacks its end record.
limited dump big.drydb
expect_status 2
expect_stderr <<'ERR'
drydb: cannot write the output: File too large
ERR
cp "$OUT" cut.dump
expect_true "the dump was cut at the limit" test "$(stat -c %s cut.dump)" -eq $((limit_kb * 1024))
run drydb build from-cut.drydb -i cut.dump -q
expect_status 2
expect_stderr_has "drydb: cut.dump:"
expect_stderr_has "(from-cut.drydb not written; --skip-bad skips bad rows)"
run drydb build from-cut.drydb -i cut.dump -q --skip-bad
expect_status 2
expect_stderr_has "the dump ends without its end record: it is incomplete"
expect_true "nothing is built from it" test ! -e from-cut.drydb

# Without the limit the same commands succeed: the limit was the cause.
run drydb build out.drydb -i big.jsonl -k id -q
expect_status 0
run drydb dump big.drydb -o prev.jsonl
expect_status 0
