#!/usr/bin/env bash
# `drydb diff` of two 1M-row files (int64 keys, MessagePack rows of three fields; the second
# build drops 1% of the rows, changes 1% and adds 5,000): the median of 5 runs of each output
# mode, as rows compared per second (both files' rows over the wall time, open included).
#   bench/diff_bench.sh [DRYDB]     DRYDB: the tool (default build/release/tools/drydb/drydb)
set -euo pipefail
DRYDB=$(realpath "${1:-build/release/tools/drydb/drydb}")
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
awk 'BEGIN { for (i = 0; i < 1000000; i++)
  printf "{\"id\":%d,\"name\":\"user %d\",\"score\":%d}\n", i * 3, i, i % 1000 }' > old.jsonl
awk 'BEGIN { for (i = 0; i < 1000000; i++) {
    if (i % 100 == 5) continue
    printf "{\"id\":%d,\"name\":\"user %d\",\"score\":%d}\n", i * 3, i, i % 100 == 7 ? i + 1 : i % 1000 }
  for (i = 0; i < 5000; i++) printf "{\"id\":%d,\"name\":\"new %d\",\"score\":1}\n", 3000000 + i, i }' > new.jsonl
"$DRYDB" build old.drydb -i old.jsonl -q --key id --key-encoding int64
"$DRYDB" build new.drydb -i new.jsonl -q --key id --key-encoding int64
rows=$((1000000 + 995000))
for mode in "" --stat --keys --rows; do
  times=()
  for _ in 1 2 3 4 5; do
    cat old.drydb new.drydb > /dev/null  # the files' pages in memory, as for every run
    start=$(date +%s%N)
    "$DRYDB" diff old.drydb new.drydb $mode > out.txt || [ $? -eq 1 ]
    times+=($(( $(date +%s%N) - start )))
  done
  median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 3p)
  awk -v m="${mode:-summary}" -v ns="$median" -v r="$rows" -v lines="$(wc -l < out.txt)" \
    'BEGIN { printf "%-8s %6.1f ms  %5.1f M rows/s  (%d lines out)\n", m, ns / 1e6, r / (ns / 1e9) / 1e6, lines }'
done
