# Sharded datasets from the command line: `drydb shard split` cuts a file into range shards (a
# published generation), every read command answers on the dataset as on the file, `drydb shard
# merge` and `drydb dump` of the dataset give the file back, and publish, rollback, route and
# verify do what docs/cli.md says.
printf '{"id":%d,"name":"n%04d","v":"value %d"}\n' $(for i in $(seq 0 999); do
  echo $((i * 3 - 1500)) $((i % 700)) "$i"; done) > wide.jsonl
run drydb build wide.drydb -i wide.jsonl -q --key id --key-encoding int64 --index name=name \
  --compress lz4
expect_status 0
run drydb build items.drydb -i "$DATA/items.jsonl" -q \
  --table items --key id --index kind=kind --index price=price,int64,unique \
  --table prices --key price --key-encoding int64 --value id
expect_status 0

run drydb shard split wide.drydb -n 4 -o ds
expect_status 0
expect_stdout <<'EOF'
split: wide.drydb into 4 shards: ds/gen-1 is live
EOF
run ls ds ds/gen-1
expect_stdout <<'EOF'
ds:
CURRENT
HIGHEST
gen-1

ds/gen-1:
manifest.json
shard-00000.drydb
shard-00001.drydb
shard-00002.drydb
shard-00003.drydb
EOF
# Near-equal rows: 250 per shard.
run drydb info ds -f jsonl
expect_stdout <<'EOF'
{"dataset":"ds","name":"ds","generation":1,"shards":4,"size":32763,"tables":1,"current_table":"data","partitioning":"range-v1","shard_rows":[250,250,250,250]}
EOF

# Every read command, on the dataset (its folder, its generation's folder, its manifest) and on
# the file, gives the same answer.
same_answer() {
  local file_out ds_out
  drydb "$1" wide.drydb "${@:2}" > file.out 2>&1
  local file_status=$?
  for d in ds ds/gen-1 ds/gen-1/manifest.json; do
    drydb "$1" "$d" "${@:2}" > ds.out 2>&1
    local ds_status=$?
    expect_true "drydb $* on $d answers as on the file (status $ds_status, $file_status)" \
      test "$ds_status" = "$file_status"
    expect_true "drydb $* on $d prints what it prints on the file" cmp file.out ds.out
  done
}
same_answer get 3
same_answer get 4
same_answer get 0x5dc --hex
same_answer get -x name n0005
same_answer get -x name zzz
same_answer scan
same_answer scan --desc -n 7 --offset 240
same_answer scan -f csv -n 300 --offset 200
same_answer range 0 900
same_answer range '*' 0 --desc --exclusive-end -f jsonl
same_answer range 747 '*' --exclusive-start -n 5
same_answer count
same_answer count 0 300
same_answer count 9
same_answer count -x name n0010 n0020
same_answer scan -x name --desc -n 20 --offset 3
same_answer range -x name n0100 n0105 -f tsv
same_answer prefix -x name n01
same_answer prefix -x name n01 --desc --offset 50 -n 5
same_answer prefix name
same_answer tables
same_answer tables -f jsonl

# The dataset dumps as the file does, and merges back into the same bytes.
run drydb dump ds -o ds.dump
expect_status 0
drydb dump wide.drydb > wide.dump
expect_true "the dataset's dump is the file's" cmp wide.dump ds.dump
run drydb shard merge ds -o merged.drydb
expect_status 0
expect_stdout <<'EOF'
merged: 1,000 rows of 4 shards into merged.drydb
EOF
expect_true "merge gives the file back, byte for byte" cmp wide.drydb merged.drydb
# Nothing of the dataset is written over: its shards, manifest, CURRENT, HIGHEST.
for out in ds/gen-1/shard-00002.drydb ds/gen-1/manifest.json ds/CURRENT ds/HIGHEST; do
  run drydb shard merge ds -o "$out"
  expect_status 2
  expect_stderr_has "the output '$out' is inside the dataset it reads"
  run drydb dump ds -o "$out"
  expect_status 2
  expect_stderr_has "the output '$out' is inside the dataset it reads"
done
run drydb verify ds
expect_status 0

run drydb verify ds
expect_status 0
expect_stdout <<'EOF'
ok: ds: generation 1, 4 shards, 1 table, 1 index; every checksum, tree invariant and manifest entry holds
EOF
run drydb shard verify ds/gen-1
expect_status 0
expect_stdout_has "ok: ds/gen-1: generation 1, 4 shards"
run drydb shard route ds -- -1500
expect_stdout <<'EOF'
shard 0: ds/gen-1/shard-00000.drydb
EOF
run drydb shard route ds 1497 -f jsonl
expect_stdout <<'EOF'
{"shard":3,"file":"ds/gen-1/shard-00003.drydb"}
EOF
run drydb shard route ds abc
expect_status 2
expect_stderr_has "abc"

# Two tables, one of 7 rows cut into 12 shards: its last shards are empty, split at keys above
# its last; the unique index stays unique across the shards.
run drydb shard split items.drydb -n 12 -o ds --name fruit
expect_status 0
expect_stdout <<'EOF'
split: items.drydb into 12 shards: ds/gen-2 is live
EOF
run cat ds/CURRENT
expect_stdout <<'EOF'
gen-2
EOF
drydb dump items.drydb > items.dump
run drydb dump ds
expect_true "the 12 shards dump as the file" cmp items.dump "$OUT"
run drydb count ds -t prices
expect_stdout <<'EOF'
7
EOF
run drydb range ds -t prices 60 150 --desc
expect_stdout <<'EOF'
150	daikon
120	apple
80	banana
60	carrot
EOF
run drydb get ds -t items -x price 300 -f jsonl
expect_stdout_has '"key":"cherry"'
run drydb info ds -t prices
expect_stdout_has "partitioning   range-v1, 11 split keys"
run drydb verify ds
expect_stdout_has "ok: ds: generation 2, 12 shards, 2 tables, 2 indexes"
run drydb shard merge ds -o items2.drydb
expect_true "merge gives the file back" cmp items.drydb items2.drydb

# Rollback makes generation 1 live again; publish makes 2 live; numbers are never reused.
run drydb shard rollback ds
expect_status 0
expect_stdout <<'EOF'
rolled back: ds: generation 1 is live
EOF
run drydb count ds
expect_stdout <<'EOF'
1000
EOF
run drydb shard publish ds 2
expect_stdout <<'EOF'
published: ds: generation 2 is live
EOF
run drydb shard publish ds 9
expect_status 2
expect_stderr_has "gen-9"
run drydb shard split items.drydb -n 1 -o ds
expect_stdout <<'EOF'
split: items.drydb into 1 shards: ds/gen-3 is live
EOF

# Fewer rows than shards at the top of the int64 range: filler split keys below the first key.
printf '{"id":5,"v":"a"}\n{"id":9223372036854775807,"v":"b"}\n' > top.jsonl
run drydb build top.drydb -i top.jsonl -q --key id --key-encoding int64 --value v
run drydb shard split top.drydb -n 4 -o topds
expect_status 0
run drydb info topds -f jsonl
expect_stdout_has '"shard_rows":[0,0,1,1]'
run drydb dump topds
drydb dump top.drydb > top.dump
expect_true "the shards dump as the file" cmp top.dump "$OUT"
# A byte-keyed table of one row in 300 shards: filler keys grow a byte per 256 of them.
printf '{"k":"only","v":"x"}\n' > one.jsonl
run drydb build one.drydb -i one.jsonl -q --key k --value v
run drydb shard split one.drydb -n 300 -o oneds
expect_status 0
run drydb count oneds
expect_stdout <<'EOF'
1
EOF
# About 150 bytes a shard.
expect_true "the manifest stays small" test "$(stat -c %s oneds/gen-1/manifest.json)" -lt 50000
# A split refused before anything is written: no dataset folder made.
run drydb shard split items.drydb -n 2 -o newds --name "$(printf 'x%.0s' $(seq 300))"
expect_status 2
expect_stderr_has "cannot split items.drydb into 2 shards"
expect_true "nothing is made" test ! -e newds

# Bad usage and bad datasets.
run drydb scan wide.jsonl
expect_status 2
expect_stderr_has "not a drydb file"
run drydb shard verify wide.drydb
expect_status 2
expect_stderr_has "'wide.drydb' is not a dataset"
run drydb shard split ds -n 2 -o other
expect_status 2
expect_stderr_has "'ds' is a dataset, not a database file"
run drydb shard split items.drydb -n 0 -o other
expect_status 2
expect_true "nothing is made for bad usage" test ! -e other
run drydb scan nothing-here/
expect_status 2
mkdir empty empty/gen-1
run drydb count empty
expect_status 2
expect_stderr_has "cannot open 'empty': it is a directory"
touch empty/HIGHEST
run drydb count empty
expect_status 2
expect_stderr_has "cannot open the dataset 'empty': empty is not a dataset (no CURRENT)"
# A generation's folder whose manifest says another generation is refused, naming both numbers.
run drydb shard split wide.drydb -n 2 -o gends
expect_status 0
sed -i 's/"generation": 1,/"generation": 7,/' gends/gen-1/manifest.json
for target in gends gends/gen-1 gends/gen-1/manifest.json; do
  run drydb count "$target"
  expect_status 2
  expect_stderr_has "gends/gen-1/manifest.json: the manifest says generation 7, but it is in gen-1, the folder of generation 1"
done
run drydb verify gends
expect_status 2
expect_stderr_has "the manifest says generation 7, but it is in gen-1"
# A damaged page of a shard: the error names the shard's file, from a query (a leaf in the middle
# of the shard, which the open does not read) and from the open (the shard's first leaf).
run drydb build plain.drydb -i wide.jsonl -q --key id --key-encoding int64 --page-size 512
run drydb shard split plain.drydb -n 2 -o pds
expect_status 0
printf 'x' | dd of=pds/gen-1/shard-00001.drydb bs=1 seek=$((10 * 512 + 256)) conv=notrunc status=none
run drydb scan pds
expect_status 2
expect_stderr_has "drydb: pds/gen-1/shard-00001.drydb: table 'data', page 10: checksum mismatch"
printf 'x' | dd of=pds/gen-1/shard-00001.drydb bs=1 seek=$((512 + 256)) conv=notrunc status=none
run drydb scan pds
expect_status 2
expect_stderr_has "cannot open the dataset 'pds': pds/gen-1/shard-00001.drydb: table 'data', page 1: checksum mismatch"
# A shard changed after the manifest was written: verify names it by its checksum.
cp -r ds/gen-1 bad
printf 'x' | dd of=bad/shard-00001.drydb bs=1 seek=5000 conv=notrunc status=none
run drydb verify bad
expect_status 2
expect_stderr_has "shard-00001.drydb disagrees with its manifest: its XXH3-64 is not the manifest's"
rm bad/shard-00002.drydb
run drydb count bad
expect_status 2
expect_stderr_has "shard 2"
