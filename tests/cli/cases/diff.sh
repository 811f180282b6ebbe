# drydb diff OLD NEW: what changed between two builds, table by table, as a summary, counts
# (--stat), keys (--keys) or rows (--rows); exit 0 when equal, 1 when they differ, 2 on error.
build_items() {  # OUT INPUT [more build flags]
  local out=$1 input=$2
  shift 2
  drydb build "$out" -i "$input" -q --table items --key id --index kind=kind \
    --index price=price,int64,unique --table prices --key price --key-encoding int64 --value id "$@"
}
build_items old.drydb "$DATA/items.jsonl"

# Equal builds: nothing printed, exit 0; how the bytes are stored does not count.
build_items same.drydb "$DATA/items.jsonl" --page-size 512 --compress zstd
run drydb diff old.drydb same.drydb
expect_status 0
expect_no_stdout
run drydb diff old.drydb old.drydb --stat
expect_status 0
expect_stdout <<'EOF'
{"table":"items","in_old":true,"in_new":true,"old_rows":7,"new_rows":7,"added":0,"removed":0,"changed":0,"unchanged":7,"shape_changed":false}
{"table":"items","index":"kind","in_old":true,"in_new":true,"old_entries":7,"new_entries":7,"added":0,"removed":0,"shape_changed":false}
{"table":"items","index":"price","in_old":true,"in_new":true,"old_entries":7,"new_entries":7,"added":0,"removed":0,"shape_changed":false}
{"table":"prices","in_old":true,"in_new":true,"old_rows":7,"new_rows":7,"added":0,"removed":0,"changed":0,"unchanged":7,"shape_changed":false}
EOF

# banana's price changes (80 to 85), cherry goes, grape comes.
grep -v cherry "$DATA/items.jsonl" | sed 's/"price":80,/"price":85,/' > new.jsonl
echo '{"id":"grape","price":90,"color":"green","kind":"fruit"}' >> new.jsonl
build_items new.drydb new.jsonl
run drydb diff old.drydb new.drydb
expect_status 1
expect_stdout <<'EOF'
items: 1 added, 1 removed, 1 changed, 5 unchanged
items.kind: 1 entries added, 1 removed
items.price: 2 entries added, 2 removed
prices: 2 added, 2 removed, 0 changed, 5 unchanged
EOF
run drydb diff old.drydb new.drydb --keys
expect_status 1
expect_stdout <<'EOF'
{"table":"items","change":"changed","key":"banana"}
{"table":"items","change":"removed","key":"cherry"}
{"table":"items","change":"added","key":"grape"}
{"table":"items","index":"kind","change":"removed","key":"cherry","index_key":"fruit"}
{"table":"items","index":"kind","change":"added","key":"grape","index_key":"fruit"}
{"table":"items","index":"price","change":"removed","key":"banana","index_key":80}
{"table":"items","index":"price","change":"added","key":"banana","index_key":85}
{"table":"items","index":"price","change":"added","key":"grape","index_key":90}
{"table":"items","index":"price","change":"removed","key":"cherry","index_key":300}
{"table":"prices","change":"removed","key":80}
{"table":"prices","change":"added","key":85}
{"table":"prices","change":"added","key":90}
{"table":"prices","change":"removed","key":300}
EOF
run drydb diff old.drydb new.drydb --rows -t prices
expect_status 1
expect_stdout <<'EOF'
{"table":"prices","change":"removed","key":80,"value":"banana"}
{"table":"prices","change":"added","key":85,"value":"banana"}
{"table":"prices","change":"added","key":90,"value":"grape"}
{"table":"prices","change":"removed","key":300,"value":"cherry"}
EOF
run drydb diff old.drydb new.drydb --rows -t items
expect_stdout_has '{"table":"items","change":"changed","key":"banana","old_value":{"msgpack":{"id":"banana","price":80,"color":"yellow","kind":"fruit"}},"new_value":{"msgpack":{"id":"banana","price":85,"color":"yellow","kind":"fruit"}}}'
expect_stdout_has '{"table":"items","change":"removed","key":"cherry","value":{"msgpack":{"id":"cherry","price":300,"color":"red","kind":"fruit"}}}'
run drydb diff old.drydb new.drydb --stat -t prices
expect_stdout <<'EOF'
{"table":"prices","in_old":true,"in_new":true,"old_rows":7,"new_rows":7,"added":2,"removed":2,"changed":0,"unchanged":5,"shape_changed":false}
EOF
# The other way round, added and removed swap.
run drydb diff new.drydb old.drydb -t prices
expect_stdout <<'EOF'
prices: 2 added, 2 removed, 0 changed, 5 unchanged
EOF
run drydb diff new.drydb old.drydb -t items --keys
expect_stdout_has '{"table":"items","change":"added","key":"cherry"}'

# Tables and indexes in one side only, definitions that differ, empty tables.
drydb build shape.drydb -i "$DATA/items.jsonl" -q --table items --key id \
  --index price=price,int64 --index color=color --table extra --key id --value color
printf '' > empty.jsonl
drydb build empty.drydb -i empty.jsonl -q --table items --key id --table prices --key price \
  --key-encoding int64 --value id
run drydb diff old.drydb shape.drydb
expect_status 1
expect_stdout <<'EOF'
items.kind: only in OLD (7 entries)
items.price: unique in OLD, not in NEW
items.color: only in NEW (6 entries)
prices: only in OLD (7 rows)
extra: only in NEW (7 rows)
EOF
run drydb diff old.drydb shape.drydb --keys -t extra
expect_stdout <<'EOF'
{"table":"extra","change":"added","key":"apple"}
{"table":"extra","change":"added","key":"banana"}
{"table":"extra","change":"added","key":"carrot"}
{"table":"extra","change":"added","key":"cherry"}
{"table":"extra","change":"added","key":"daikon"}
{"table":"extra","change":"added","key":"eggplant"}
{"table":"extra","change":"added","key":"fig"}
{"table":"extra","change":"table_added"}
EOF
run drydb diff old.drydb shape.drydb --keys -t items
expect_stdout_has '{"table":"items","index":"kind","change":"removed","key":"apple","index_key":"fruit"}'
expect_stdout_has '{"table":"items","index":"color","change":"added","key":"banana","index_key":"yellow"}'
expect_stdout_has '{"table":"items","index":"price","change":"definition","old":{"unique":true,"key_encoding":"int64"},"new":{"unique":false,"key_encoding":"int64"}}'
expect_stdout_has '{"table":"items","index":"color","change":"index_added"}'
expect_stdout_has '{"table":"items","index":"kind","change":"index_removed"}'
run drydb diff old.drydb empty.drydb -t prices
expect_stdout <<'EOF'
prices: 0 added, 7 removed, 0 changed, 0 unchanged
EOF
run drydb diff empty.drydb empty.drydb
expect_status 0
expect_no_stdout

# A key encoding that differs: every row removed and added.
drydb build text.drydb -i "$DATA/items.jsonl" -q --table prices --key price --value id
run drydb diff old.drydb text.drydb -t prices
expect_status 1
expect_stdout <<'EOF'
prices: key encoding int64 in OLD, bytes in NEW
prices: 7 added, 7 removed, 0 changed, 0 unchanged
EOF

# Column lists (format 2.3 rows) that differ.
printf 'id,name\n1,a\n2,b\n' > two.csv
printf 'id,title\n1,a\n2,b\n' > renamed.csv
drydb build two.drydb -i two.csv -q --key id --key-encoding int64
drydb build renamed.drydb -i renamed.csv -q --key id --key-encoding int64
run drydb diff two.drydb renamed.drydb --stat
expect_status 1
expect_stdout_has '"shape_changed":true'
run drydb diff two.drydb renamed.drydb
expect_stdout_has 'data: columns ["id","name"] in OLD, ["id","title"] in NEW'

# How rows are stored is not what they hold: 300 rows as CSV (a column list: each row an array
# of the columns, the key column's field nil) and as JSON Lines (each row a map) dump as the same
# records, so the builds are equal (exit 0); the column list is reported, as a definition, not as
# a change of every row. A field changed in one row is one row changed.
awk 'BEGIN { print "id,name,score"; for (i = 0; i < 300; i++) printf "%d,n%d,%d.5\n", i, i, i }' \
  >rows.csv
awk 'BEGIN { for (i = 0; i < 300; i++)
  printf "{\"id\":\"%d\",\"name\":\"n%d\",\"score\":\"%d.5\"}\n", i, i, i }' >rows.jsonl
drydb build rows-csv.drydb -i rows.csv -q --key id --key-encoding int64
drydb build rows-jsonl.drydb -i rows.jsonl -q --key id --key-encoding int64
drydb dump rows-csv.drydb | tail -n +2 >csv.dump
drydb dump rows-jsonl.drydb | tail -n +2 >jsonl.dump
expect_true "the two builds dump as the same records" cmp csv.dump jsonl.dump
run drydb diff rows-csv.drydb rows-jsonl.drydb --stat
expect_status 0
expect_stdout <<'EOF'
{"table":"data","in_old":true,"in_new":true,"old_rows":300,"new_rows":300,"added":0,"removed":0,"changed":0,"unchanged":300,"shape_changed":true}
EOF
run drydb diff rows-jsonl.drydb rows-csv.drydb
expect_status 0
expect_stdout <<'EOF'
data: columns [] in OLD, ["id","name","score"] in NEW
EOF
run drydb diff rows-csv.drydb rows-jsonl.drydb --keys
expect_status 0
expect_stdout <<'EOF'
{"table":"data","change":"columns","old":["id","name","score"],"new":[]}
EOF
sed 's/"n7"/"n7!"/' rows.jsonl >changed.jsonl
drydb build changed.drydb -i changed.jsonl -q --key id --key-encoding int64
run drydb diff rows-csv.drydb changed.drydb --rows
expect_status 1
expect_stdout <<'EOF'
{"table":"data","change":"changed","key":7,"old_value":{"msgpack":{"id":"7","name":"n7","score":"7.5"}},"new_value":{"msgpack":{"id":"7","name":"n7!","score":"7.5"}}}
{"table":"data","change":"columns","old":["id","name","score"],"new":[]}
EOF
run drydb diff rows-csv.drydb changed.drydb --stat
expect_status 1
expect_stdout_has '"changed":1,"unchanged":299,'

# A dataset against the file it was split from: equal; against the changed file: the changes.
run drydb shard split old.drydb -n 3 -o ds
expect_status 0
run drydb diff old.drydb ds
expect_status 0
expect_no_stdout
run drydb diff ds/gen-1 new.drydb -t items
expect_status 1
expect_stdout <<'EOF'
items: 1 added, 1 removed, 1 changed, 5 unchanged
items.kind: 1 entries added, 1 removed
items.price: 2 entries added, 2 removed
EOF
run drydb diff ds/gen-1/manifest.json new.drydb -t items --keys
expect_stdout_has '{"table":"items","change":"changed","key":"banana"}'

# A report that cannot be written (a full device, a closed stdout) is an error, exit 2, in
# every mode: never "differ" (1), which would pass a cut report for a complete one.
for mode in "" --stat --keys --rows; do
  run sh -c 'exec "$0" diff old.drydb new.drydb $1 >/dev/full' "$DRYDB" "$mode"
  expect_status 2
  expect_stderr <<'ERR'
drydb: cannot write the output: No space left on device
ERR
  run sh -c 'exec "$0" diff old.drydb new.drydb $1 >&-' "$DRYDB" "$mode"
  expect_status 2
  expect_stderr <<'ERR'
drydb: cannot write the output: Bad file descriptor
ERR
done
# Equal builds: --stat still writes its counts, and cannot.
run sh -c 'exec "$0" diff old.drydb same.drydb --stat >/dev/full' "$DRYDB"
expect_status 2
# Nothing to write: equal, whatever stdout is.
run sh -c 'exec "$0" diff old.drydb same.drydb >/dev/full' "$DRYDB"
expect_status 0

# Errors: exit 2.
run drydb diff old.drydb missing.drydb
expect_status 2
expect_stderr_has 'missing.drydb'
run drydb diff old.drydb new.drydb -t nothing
expect_status 2
expect_stderr_has "no table 'nothing' in either database"
run drydb diff old.drydb new.drydb --stat --keys
expect_status 2
run drydb diff old.drydb
expect_status 2
