# full_disk.sh on a file system that really fills: a 512 KiB tmpfs, mounted in a mount namespace
# of the case's own (unshare(1): as root, or as a user mapped to root in a user namespace), so
# nothing outside sees it; then the same tmpfs remounted read-only (root ignores file modes, so
# a mount is the way to refuse writes). Skipped (ctest reports it) where no such mount is allowed. The
# commands run inside the namespace, whose mount goes with it, and leave what they saw in files
# here for the checks.
command -v unshare >/dev/null || skip "unshare(1) is missing"
awk 'BEGIN { for (i = 0; i < 6000; i++) printf "{\"id\":%d,\"v\":\"%0400d\"}\n", i, i }' >big.jsonl
echo '{"id":1,"v":"old"}' >small.jsonl
run drydb build prev.drydb -i small.jsonl -k id -q
expect_status 0
run drydb build big.drydb -i big.jsonl -k id -q
expect_status 0
# Twelve tables with long names: the dump's end record is longer than stdio's 4 KiB buffer, so
# the write that fails last is that line's and leaves nothing to flush when the dump finishes.
tables=()
for i in $(seq 1 12); do tables+=(--table "t$(printf '%0250d' "$i")" --key id); done
head -n 1500 big.jsonl >wide.jsonl
run drydb build wide.drydb -i wide.jsonl -q "${tables[@]}"
expect_status 0
mkdir small

cat >inside.sh <<'SH'
mount -t tmpfs -o size=512k tmpfs small || exit 77
cp prev.drydb small/out.drydb
"$1" build small/out.drydb -i big.jsonl -k id -q 2>build.err
echo $? >build.status
cmp -s prev.drydb small/out.drydb && echo untouched >build.target
ls -A small >build.ls
echo previous >small/prev.jsonl
"$1" dump big.drydb -o small/prev.jsonl 2>dump.err
echo $? >dump.status
cat small/prev.jsonl >dump.target
ls -A small >dump.ls
rm small/prev.jsonl
"$1" dump big.drydb >small/cut.dump 2>stdout.err
echo $? >stdout.status
rm small/cut.dump
echo previous >small/wide.jsonl
"$1" dump wide.drydb -o small/wide.jsonl 2>wide.err
echo $? >wide.status
cat small/wide.jsonl >wide.target
ls -A small >wide.ls
rm small/wide.jsonl
"$1" dump wide.drydb >small/cut.dump 2>wide-stdout.err
echo $? >wide-stdout.status
rm small/cut.dump
# (In a user namespace only the mount point's flag can change: a bind remount.)
mount -o remount,ro small 2>/dev/null || mount -o remount,bind,ro small || exit 0  # no ro.ls
"$1" build small/out.drydb -i big.jsonl -k id -q 2>ro-build.err
echo $? >ro-build.status
cmp -s prev.drydb small/out.drydb && echo untouched >ro-build.target
"$1" dump big.drydb -o small/out.jsonl 2>ro-dump.err
echo $? >ro-dump.status
ls -A small >ro.ls
exit 0
SH
run unshare --mount --propagation private sh inside.sh "$DRYDB"
if [ "$status" -ne 0 ]; then
  run unshare --map-root-user --mount --propagation private sh inside.sh "$DRYDB"
fi
[ "$status" -eq 0 ] || skip "cannot mount a tmpfs in a mount namespace: $(head -c 200 "$ERR")"
expect_true "the mount stayed inside the namespace" test -z "$(ls -A small)"

run cat build.status build.target build.ls
expect_stdout <<'OUT'
2
untouched
out.drydb
OUT
run cat build.err
expect_stdout_has "drydb: small/out.drydb not written: cannot write 'small/.out.drydb.tmp-"
expect_stdout_has "': No space left on device"

run cat dump.status dump.target dump.ls dump.err
expect_stdout <<'OUT'
2
previous
out.drydb
prev.jsonl
drydb: cannot write 'small/prev.jsonl': No space left on device
OUT

run cat stdout.status stdout.err
expect_stdout <<'OUT'
2
drydb: cannot write the output: No space left on device
OUT

run cat wide.status wide.target wide.ls wide.err wide-stdout.status wide-stdout.err
expect_stdout <<'OUT'
2
previous
out.drydb
wide.jsonl
drydb: cannot write 'small/wide.jsonl': No space left on device
2
drydb: cannot write the output: No space left on device
OUT

# Read-only: nothing can be created beside the target.
expect_true "the tmpfs could be remounted read-only" test -e ro.ls
run cat ro-build.status ro-build.target ro.ls ro-dump.status
expect_stdout <<'OUT'
2
untouched
out.drydb
2
OUT
run cat ro-build.err
expect_stdout_has "drydb: small/out.drydb not written: cannot create a temp file in 'small': Read-only file system"
run cat ro-dump.err
expect_stdout <<'OUT'
drydb: cannot create a temp file in 'small': Read-only file system
OUT
