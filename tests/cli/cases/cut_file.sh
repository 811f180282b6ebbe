# A database truncated in place while a command reads it: the tool reads through pread, so the
# command stops with a message and exit 2 after printing only correct rows; with --mmap the same
# cut kills it with SIGBUS (the documented caveat). The same for a file rewritten in place at
# its size: the pages read after the change fail their checksums. No sleeps: the scan writes into a FIFO that
# this case reads a few lines of, so the scan has produced at most a pipe's and a stdio buffer's
# worth of rows (its pages lie in the first few hundred kB of the file) when the file is cut.
awk 'BEGIN { for (i = 0; i < 200000; i++) printf "{\"id\":%d,\"name\":\"row number %d\"}\n", i, i }' \
  >rows.jsonl
run drydb build full.drydb -i rows.jsonl -k id -q
expect_status 0

# Scans full.drydb's copy v.drydb into out.fifo (drydb flags in "$@"), reads 3 lines, changes
# the file ($change: cut to 8 kB, or zeros written over it from 8 kB on, its size kept), then
# reads the rest; `status` is the scan's exit status.
change=cut
scan_while_cut() {
  cp full.drydb v.drydb
  rm -f out.fifo
  mkfifo out.fifo
  # A subshell that outlives the scan: it reports the scan's status (128 + a signal's number)
  # and keeps bash's "Bus error" line out of the test's output. No core file.
  (
    ulimit -c 0
    "$DRYDB" "$@" scan v.drydb >out.fifo 2>"$ERR"
    exit $?
  ) 2>/dev/null &
  local pid=$! line i
  exec 3<out.fifo
  : >"$OUT"
  for i in 1 2 3; do
    IFS= read -r line <&3 && printf '%s\n' "$line" >>"$OUT"
  done
  if [ "$change" = cut ]; then
    truncate -s 8192 v.drydb
  else
    local size
    size=$(stat -c %s v.drydb)
    dd if=/dev/zero of=v.drydb bs=8192 seek=1 count=$((size / 8192 - 1)) conv=notrunc status=none
  fi
  cat <&3 >>"$OUT"
  exec 3<&-
  wait $pid
  status=$?
  last="drydb $* scan v.drydb, $change after 3 rows"
}

# What the scan prints of the untouched file; a cut scan must print a prefix of it, ending on a
# whole row: no row damaged or made up.
run drydb scan full.drydb
expect_status 0
cp "$OUT" all.txt
rows_intact() {
  [ -s "$OUT" ] && [ "$(tail -c 1 "$OUT" | od -An -c | tr -d ' ')" = '\n' ] &&
    head -c "$(wc -c <"$OUT")" all.txt | cmp -s - "$OUT"
}
# ERROR: the scan failed reading a page, saying ERROR, and stopped early, after printing only
# intact rows; sets $rows to how many it printed.
expect_scan_stopped() {
  expect_status 2
  expect_stderr_has "drydb: table 'data', page "
  expect_stderr_has "$1"
  expect_true "the rows printed before the error are the file's first rows, intact" rows_intact
  rows=$(wc -l <"$OUT")
  expect_true "the scan stopped early ($rows of 200000 rows)" [ "$rows" -lt 200000 ]
}

scan_while_cut
expect_scan_stopped "the file ended during a read: it is shorter than when it was opened"
expect_true "the scan printed at least the 3 rows read before the cut ($rows)" [ "$rows" -ge 3 ]
run drydb verify v.drydb
expect_status 2
expect_stderr_has "but the file has 8192"

# Rewritten in place, size kept: the first page read from the new bytes fails its checksum.
change=zeros
size_before=$(stat -c %s full.drydb)
scan_while_cut
expect_scan_stopped "checksum"
expect_true "the file kept its size" [ "$(stat -c %s v.drydb)" -eq "$size_before" ]
run drydb verify v.drydb
expect_status 2
expect_stderr_has "checksum"
change=cut

# --mmap (before or after the command) maps the file instead: the cut page raises SIGBUS, exit
# status 128 + 7 from the shell.
scan_while_cut --mmap
expect_status 135

# Untouched files read the same both ways.
run drydb scan full.drydb -n 2 --mmap
expect_status 0
expect_stdout <<'OUT'
0	{"id":0,"name":"row number 0"}
1	{"id":1,"name":"row number 1"}
OUT
run drydb --mmap count full.drydb
expect_status 0
expect_stdout <<'OUT'
200000
OUT
