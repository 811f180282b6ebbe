# A dataset whose files cannot all be changed, in a mount namespace of the case's own (as
# full_disk_tmpfs.sh; skipped where no mount is allowed): a tmpfs mounted inside an old
# generation makes it impossible to remove (EBUSY), a file bound over HIGHEST makes it impossible
# to replace. A publish that took effect says so (exit 0, a warning for what retention could not
# remove); one that could not raise HIGHEST fails before CURRENT moves, and the run that built
# the generation discards it.
command -v unshare >/dev/null || skip "unshare(1) is missing"
seq 1 300 | awk '{printf "{\"id\":%d,\"v\":\"row %d\"}\n", $1, $1}' >rows.jsonl
run drydb build f.drydb -i rows.jsonl -k id --key-encoding int64 -q
expect_status 0
for n in 2 3 4; do
  run drydb shard split f.drydb -n $n -o ds --keep 5
  expect_status 0
done
mkdir ds/gen-1/busy ds/gen-3/busy
touch other

cat >inside.sh <<'SH'
mount -t tmpfs -o size=64k tmpfs ds/gen-1/busy || exit 77
mount -t tmpfs -o size=64k tmpfs ds/gen-3/busy || exit 77
# Retention cannot remove gen-1: the publish of gen-2 stands all the same.
"$1" shard publish ds 2 --keep 0 >publish.out 2>publish.err
echo $? >publish.status
cat ds/CURRENT >publish.current
ls ds/gen-1 >publish.gen1
# A split whose retention cannot remove gen-3 (gen-2 goes) is live all the same.
"$1" shard split f.drydb -n 2 -o ds --keep 0 >split.out 2>split.err
echo $? >split.status
ls ds >split.ls
# HIGHEST cannot be replaced: the split fails before CURRENT moves and discards its generation.
cp ds/HIGHEST other
mount --bind other ds/HIGHEST || exit 77
"$1" shard split f.drydb -n 3 -o ds >fail.out 2>fail.err
echo $? >fail.status
cat ds/CURRENT >fail.current
ls ds >fail.ls
# The same for a publish of a complete generation above HIGHEST.
mkdir ds/gen-7
cp ds/gen-4/* ds/gen-7/
sed 's/"generation": 4,/"generation": 7,/' ds/gen-4/manifest.json >ds/gen-7/manifest.json
"$1" shard publish ds 7 >publish7.out 2>publish7.err
echo $? >publish7.status
cat ds/CURRENT >publish7.current
exit 0
SH
run unshare --mount --propagation private sh inside.sh "$DRYDB"
if [ "$status" -ne 0 ]; then
  run unshare --map-root-user --mount --propagation private sh inside.sh "$DRYDB"
fi
[ "$status" -eq 0 ] || skip "cannot mount in a mount namespace: $(head -c 200 "$ERR")"

run cat publish.status publish.out publish.err publish.current
expect_stdout <<'OUT'
0
published: ds: generation 2 is live
drydb: warning: published, but cannot remove ds/gen-1: Device or resource busy
gen-2
OUT
# Its manifest went first: what is left of gen-1 is never a rollback target.
run cat publish.gen1
expect_stdout <<'OUT'
busy
OUT

run cat split.status split.out split.err split.ls
expect_stdout <<'OUT'
0
split: f.drydb into 2 shards: ds/gen-4 is live
drydb: warning: published, but cannot remove ds/gen-3: Device or resource busy
CURRENT
HIGHEST
gen-1
gen-3
gen-4
OUT

# gen-5 was claimed, built and discarded: ds holds what it held before.
run cat fail.status fail.out fail.current
expect_stdout <<'OUT'
2
gen-4
OUT
expect_true "the failed split leaves ds as the split before it did" cmp -s split.ls fail.ls
run cat fail.err
expect_stdout_has "HIGHEST"
expect_stdout_has "Device or resource busy"

run cat publish7.status publish7.out publish7.current
expect_stdout <<'OUT'
2
gen-4
OUT

# Outside the namespace, the dataset answers from the generation CURRENT names.
run drydb shard verify ds
expect_status 0
expect_stdout_has "ok: ds: generation 4, 2 shards"
run drydb shard rollback ds
expect_status 2
expect_stderr_has "keeps no complete generation older than gen-4"
