# Commands that change a dataset, racing one another at named points (DRYDB_TEST_PAUSE, see
# run_case.sh's start_paused), never sleeps: a run that fails or is interrupted removes only
# what no publish can have named, publish checks its generation under the dataset's lock, and an
# output that would land anywhere in the dataset read is refused.

seq 1 300 | awk '{printf "{\"id\":%d,\"v\":\"row %d\"}\n", $1, $1}' >rows.jsonl
run drydb build f.drydb -i rows.jsonl -k id --key-encoding int64 -q
expect_status 0

# Two splits into one new dataset folder: the first, interrupted while it builds generation 1,
# discards only that generation, not the folder holding generation 2 that the second published.
start_paused build:temp_created "$DRYDB" shard split f.drydb -n 4 -o ds
run drydb shard split f.drydb -n 2 -o ds
expect_status 0
expect_stdout <<'EOF'
split: f.drydb into 2 shards: ds/gen-2 is live
EOF
finish_paused INT
expect_status 2
expect_stderr_has "interrupted; ds is unchanged"
run ls ds
expect_stdout <<'EOF'
CURRENT
HIGHEST
gen-2
EOF
run drydb count ds
expect_stdout <<'EOF'
300
EOF

# Alone, an interrupted split leaves no trace of the dataset folder it made.
start_paused build:temp_created "$DRYDB" shard split f.drydb -n 4 -o solo
finish_paused INT
expect_status 2
expect_true "the dataset folder it made is gone" test ! -e solo

# publish N waits for the lock while publish M --keep 0 removes gen-N: it then finds gen-N gone
# and changes nothing, rather than pointing CURRENT at a removed folder.
run drydb shard split f.drydb -n 3 -o ds --keep 5
expect_status 0
run drydb shard split f.drydb -n 5 -o ds --keep 5
expect_status 0
run ls ds
expect_stdout <<'EOF'
CURRENT
HIGHEST
gen-2
gen-3
gen-4
EOF
start_paused build:dataset_locking "$DRYDB" shard publish ds 2
run drydb shard publish ds 4 --keep 0
expect_status 0
expect_stdout <<'EOF'
published: ds: generation 4 is live
EOF
finish_paused USR1
expect_status 2
expect_stderr_has "ds/gen-2/manifest.json"
expect_no_stdout
run cat ds/CURRENT
expect_stdout <<'EOF'
gen-4
EOF
run drydb shard verify ds
expect_status 0
expect_stdout_has "ok: ds: generation 4, 5 shards"

# A split whose publish has taken place is past undoing: interrupted right after CURRENT moved,
# it says so and keeps its generation.
start_paused build:dataset_published "$DRYDB" shard split f.drydb -n 2 -o ds
finish_paused INT
expect_status 0
expect_stdout <<'EOF'
split: f.drydb into 2 shards: ds/gen-5 is live
EOF
run drydb count ds
expect_stdout <<'EOF'
300
EOF

# Outputs anywhere in the dataset read are refused: another generation's folder (a shard or a
# new file), beside the generations, or through a symlink into the dataset.
mkdir ds/gen-9
ln -s ds/gen-4 link
for out in ds/gen-4/shard-00001.drydb ds/gen-9/new.drydb ds/other.drydb link/x.drydb; do
  for read in ds ds/gen-5 ds/gen-5/manifest.json; do
    run drydb shard merge "$read" -o "$out"
    expect_status 2
    expect_stderr_has "the output '$out' is inside the dataset it reads"
    run drydb dump "$read" -o "$out"
    expect_status 2
    expect_stderr_has "the output '$out' is inside the dataset it reads"
  done
done
expect_true "nothing was written into the dataset" test ! -e ds/gen-9/new.drydb -a ! -e ds/other.drydb
run drydb shard verify ds/gen-4
expect_status 0
# Beside the dataset is fine.
run drydb shard merge ds -o merged.drydb
expect_status 0
run drydb count merged.drydb
expect_stdout <<'EOF'
300
EOF
