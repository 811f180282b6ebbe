#!/usr/bin/env bash
# The file size of a table built from CSV by `drydb build` against SQLite's: a generated
# ROWS-row CSV of `id,name,score` (default 3,000,000 rows; ids 1..ROWS, an 11-character name,
# a one-decimal score; the same bytes for the same ROWS) built
#   - by drydb with int64 keys: rows of the table's column list (the default), and one
#     MessagePack map per record (--row-maps); and with the ids as text keys (bytes);
#   - by `sqlite3 .import` into `t(id INTEGER PRIMARY KEY, name TEXT, score REAL) WITHOUT ROWID`
#     and into the same table with TEXT columns (what .import gives a new table).
# Prints a Markdown table of the sizes. Needs the drydb tool (DRYDB, default
# build/release/tools/drydb/drydb) and sqlite3.
#
#   scripts/csv_size.sh [ROWS]
set -euo pipefail
cd "$(dirname "$0")/.."
rows=${1:-3000000}
drydb=${DRYDB:-build/release/tools/drydb/drydb}
[ -x "$drydb" ] || { echo "csv_size.sh: no drydb tool at $drydb (build it, or set DRYDB)" >&2; exit 2; }
command -v sqlite3 >/dev/null || { echo "csv_size.sh: needs sqlite3 (apt-get install sqlite3)" >&2; exit 2; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

awk -v n="$rows" 'BEGIN {
  srand(7); print "id,name,score"
  for (i = 1; i <= n; i++) printf "%d,name_%06x,%.1f\n", i, int(rand() * 16777216), rand() * 100
}' > "$dir/t.csv"

"$drydb" build "$dir/columns.drydb" -i "$dir/t.csv" -k id --key-encoding int64 -q
"$drydb" build "$dir/maps.drydb" -i "$dir/t.csv" -k id --key-encoding int64 --row-maps -q
"$drydb" build "$dir/text_keys.drydb" -i "$dir/t.csv" -k id -q
"$drydb" verify "$dir/columns.drydb" >/dev/null
sqlite_import() {  # FILE SCHEMA
  sqlite3 "$1" "$2" ".mode csv" ".import --skip 1 $dir/t.csv t" "VACUUM"
}
sqlite_import "$dir/typed.sqlite" \
  "CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT, score REAL) WITHOUT ROWID;"
sqlite_import "$dir/text.sqlite" \
  "CREATE TABLE t(id TEXT PRIMARY KEY, name TEXT, score TEXT) WITHOUT ROWID;"
[ "$(sqlite3 "$dir/typed.sqlite" 'SELECT count(*) FROM t')" = "$rows" ]

size() { stat -c %s "$1"; }
csv=$(size "$dir/t.csv")
sqlite=$(size "$dir/typed.sqlite")
echo "| $rows rows of id,name,score | bytes | bytes per row | ÷ SQLite (typed) |"
echo "|---|---:|---:|---:|"
for f in t.csv columns.drydb maps.drydb text_keys.drydb typed.sqlite text.sqlite; do
  s=$(size "$dir/$f")
  case $f in
    t.csv) name="the CSV" ;;
    columns.drydb) name="drydb, rows of a column list (default)" ;;
    maps.drydb) name="drydb, a map per record (--row-maps)" ;;
    text_keys.drydb) name="drydb, rows of a column list, the ids as text (bytes) keys" ;;
    typed.sqlite) name="SQLite WITHOUT ROWID, INTEGER/TEXT/REAL" ;;
    text.sqlite) name="SQLite WITHOUT ROWID, TEXT columns" ;;
  esac
  awk -v n="$name" -v s="$s" -v r="$rows" -v q="$sqlite" \
    'BEGIN { printf "| %s | %d | %.1f | %.2f |\n", n, s, s / r, s / q }'
done
