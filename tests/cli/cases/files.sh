# The files around a command: a FIFO is refused at once (not waited on), and no command loses
# data: dump and build never replace their own input, a dump that fails leaves its output file as
# it was, and a build replaces only a regular file (through symlinks, which stay).
run drydb build items.drydb -i "$DATA/items.jsonl" -q --table items --key id --index kind=kind
expect_status 0
cp items.drydb before.drydb

# FIFOs: every read command answers at once (timeout turns a hang into status 124).
mkfifo pipe.drydb
for cmd in verify info tables scan dump; do
  run timeout 10 "$DRYDB" $cmd pipe.drydb
  expect_status 2
  expect_stderr_has "is not a regular file"
done
run timeout 10 "$DRYDB" get pipe.drydb apple
expect_status 2

# dump: not over the database it reads (directly or through a link), and not before it could read.
run drydb dump items.drydb -o items.drydb
expect_status 2
expect_stderr_has "the output 'items.drydb' is the database being dumped"
ln -s items.drydb alias.drydb
run drydb dump items.drydb -o alias.drydb
expect_status 2
expect_true "the database is unchanged" cmp items.drydb before.drydb
echo previous > prev.jsonl
run drydb dump missing.drydb -o prev.jsonl
expect_status 2
run cat prev.jsonl
expect_stdout <<'OUT'
previous
OUT
head -c 9000 items.drydb > damaged.drydb
run drydb dump damaged.drydb -o prev.jsonl
expect_status 2
run cat prev.jsonl
expect_stdout <<'OUT'
previous
OUT
run drydb dump items.drydb -o prev.jsonl
expect_status 0
run head -c 13 prev.jsonl
expect_stdout_has '{"drydb_dump"'
chmod 640 prev.jsonl
run drydb dump items.drydb -o prev.jsonl
run stat -c %a prev.jsonl
expect_stdout <<'OUT'
640
OUT
run drydb dump items.drydb -o /dev/null
expect_status 0
ln -s made.jsonl dangling.jsonl
run drydb dump items.drydb -o dangling.jsonl
expect_status 0
expect_true "a dangling link stays a link" test -L dangling.jsonl
expect_true "and its target is made" cmp made.jsonl prev.jsonl
run ls -a
expect_stdout_has "prev.jsonl"
run sh -c "ls -a | grep -c tmp-"
expect_stdout <<'OUT'
0
OUT

# build: not over its input, and only over a regular file.
cp "$DATA/items.jsonl" in.jsonl
cp in.jsonl in.copy
run drydb build in.jsonl -i in.jsonl -k id -q
expect_status 2
expect_stderr_has "the output 'in.jsonl' is the input"
expect_true "the input is unchanged" cmp in.jsonl in.copy
run sh -c '"$0" build in.jsonl -k id -q < in.jsonl' "$DRYDB"
expect_status 2
expect_stderr_has "the output 'in.jsonl' is the input"
expect_true "stdin's file is unchanged" cmp in.jsonl in.copy
run timeout 10 "$DRYDB" build pipe.drydb -i in.jsonl -k id -q
expect_status 2
expect_stderr_has "is not a regular file"
expect_true "the FIFO stays a FIFO" test -p pipe.drydb
mkdir out.d
run drydb build out.d -i in.jsonl -k id -q
expect_status 2
expect_true "the folder stays" test -d out.d
ln -s target.drydb link.drydb
run drydb build link.drydb -i in.jsonl -k id -q
expect_status 0
expect_true "the link stays a link" test -L link.drydb
run drydb get target.drydb apple
expect_status 0
