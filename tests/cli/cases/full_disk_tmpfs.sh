# full_disk.sh on a file system that really fills: a 512 KiB tmpfs, mounted in a mount namespace
# of the case's own (unshare(1): as root, or as a user mapped to root in a user namespace), so
# nothing outside sees it; then the same tmpfs remounted read-only (root ignores file modes, so
# a mount is the way to refuse writes). Skipped (ctest reports it) where no such mount is allowed. The
# commands run inside the namespace, whose mount goes with it, and leave what they saw in files
# here for the checks.
command -v unshare >/dev/null || skip "unshare(1) is missing"
full_disk_inputs
# Twelve tables with long names: the dump's end record is longer than stdio's 4 KiB buffer, so
# the write that fails last is that line's and leaves nothing to flush when the dump finishes.
tables=()
for i in $(seq 1 12); do tables+=(--table "t$(printf '%0250d' "$i")" --key id); done
head -n 1500 big.jsonl >wide.jsonl
run drydb build wide.drydb -i wide.jsonl -q "${tables[@]}"
expect_status 0
mkdir small
awk 'BEGIN { for (i = 0; i < 3000; i++) printf "{\"id\":%d,\"v\":\"%0200d\"}\n", i, i }' >split.jsonl
run drydb build split.drydb -i split.jsonl -k id -q
expect_status 0

cat >inside.sh <<'SH'
drydb=$1
# DB NAME: DB dumped with -o over small/NAME.jsonl, which holds "previous", then to stdout; each
# dump's exit status and stderr kept in NAME.* and NAME-stdout.*, what the first left at its
# target in NAME.target and the tmpfs's listing after it in NAME.ls.
dumps() {
  echo previous >small/$2.jsonl
  "$drydb" dump $1 -o small/$2.jsonl 2>$2.err
  echo $? >$2.status
  cat small/$2.jsonl >$2.target
  ls -A small >$2.ls
  rm small/$2.jsonl
  "$drydb" dump $1 >small/cut.dump 2>$2-stdout.err
  echo $? >$2-stdout.status
  rm small/cut.dump
}
mount -t tmpfs -o size=512k tmpfs small || exit 77
cp prev.drydb small/out.drydb
"$drydb" build small/out.drydb -i big.jsonl -k id -q 2>build.err
echo $? >build.status
cmp -s prev.drydb small/out.drydb && echo untouched >build.target
ls -A small >build.ls
dumps big.drydb prev
dumps wide.drydb wide
# `shard split` into a new folder on a disk that fills at each of its steps in turn (a filler
# a page larger each time): each split that fails must leave no folder behind. split.log has a
# line per failure: its message, then what the dataset folder held.
mkdir split
if mount -t tmpfs -o size=1024k tmpfs split; then
  fill=0
  while [ $fill -le 1024 ]; do
    rm -rf split/ds split/filler
    [ $fill -gt 0 ] && dd if=/dev/zero of=split/filler bs=4k count=$((fill / 4)) 2>/dev/null
    if ! "$drydb" shard split split.drydb -n 3 -o split/ds >/dev/null 2>split.err; then
      echo "$(head -n 1 split.err) :: $(ls -A split/ds 2>/dev/null | tr '\n' ' ')" >>split.log
    fi
    fill=$((fill + 4))
  done
  umount split
fi
# (In a user namespace only the mount point's flag can change: a bind remount.)
mount -o remount,ro small 2>/dev/null || mount -o remount,bind,ro small || exit 0  # no ro.ls
"$drydb" build small/out.drydb -i big.jsonl -k id -q 2>ro-build.err
echo $? >ro-build.status
cmp -s prev.drydb small/out.drydb && echo untouched >ro-build.target
"$drydb" dump big.drydb -o small/out.jsonl 2>ro-dump.err
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

# NAME: both of inside.sh's `dumps` under NAME failed for want of space, and the one with -o
# left its target as it was, with no temp file beside it.
expect_dumps_failed() {
  run cat "$1.status" "$1.target" "$1.ls" "$1.err" "$1-stdout.status" "$1-stdout.err"
  expect_stdout <<OUT
2
previous
out.drydb
$1.jsonl
drydb: cannot write 'small/$1.jsonl': No space left on device
2
drydb: cannot write the output: No space left on device
OUT
}
expect_dumps_failed prev
expect_dumps_failed wide

# A split whose shards, manifest, HIGHEST or CURRENT cannot be written (each was, in turn) fails
# and leaves no dataset folder: it used to keep HIGHEST and the unpublished gen-1 when CURRENT
# could not be replaced.
expect_true "the splits ran on their tmpfs" test -s split.log
expect_true "their mount stayed inside the namespace" test -z "$(ls -A split)"
run cat split.log
expect_stdout_has ".shard-00000.drydb.tmp-"
expect_stdout_has "/gen-1/.manifest.json.tmp-"
expect_stdout_has "split/ds/.HIGHEST.tmp-"
expect_stdout_has "split/ds/.CURRENT.tmp-"
expect_stdout_has "No space left on device"
run grep -v ' :: $' split.log
expect_no_stdout

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
