#!/usr/bin/env bash
# Compares two builds of drydb_bench side by side: runs OLD and NEW alternately, ROUNDS times,
# each on the benchmarks FILTER selects (3 repetitions of at least 0.2 s), and prints per
# benchmark the median over the rounds of each build's median, and new / old. Alternating the
# builds spreads this machine's drift over both; compare ratios, not absolute times.
#
#   scripts/ab_bench.sh OLD NEW ROUNDS FILTER
#   e.g. cp build/bench/bench/drydb_bench /tmp/old; (change, rebuild)
#        scripts/ab_bench.sh /tmp/old build/bench/bench/drydb_bench 3 \
#          '^(Get|GetMany|Miss|Scan|Count)_(dense_1M|random_1M|clustered_1M|url_1M|names)/drydb/'
set -euo pipefail
if [ $# -ne 4 ]; then
  echo "usage: $0 OLD NEW ROUNDS FILTER" >&2
  exit 2
fi
old=$1 new=$2 rounds=$3 filter=$4
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for round in $(seq 1 "$rounds"); do
  for build in old new; do
    binary=$old
    [ "$build" = new ] && binary=$new
    "$binary" --benchmark_filter="$filter" --benchmark_repetitions=3 --benchmark_min_time=0.2 \
      --benchmark_report_aggregates_only=true --benchmark_format=json \
      > "$out/$build.$round.json" 2>/dev/null
  done
done
/usr/bin/python3 - "$out" <<'EOF'
import collections, glob, json, statistics, sys
medians = {b: collections.defaultdict(list) for b in ("old", "new")}
for build in medians:
    for path in glob.glob(f"{sys.argv[1]}/{build}.*.json"):
        for b in json.load(open(path))["benchmarks"]:
            if b.get("aggregate_name") == "median":
                medians[build][b["run_name"]].append(b["real_time"])
for name in sorted(medians["old"]):
    o = statistics.median(medians["old"][name])
    n = statistics.median(medians["new"].get(name, [float("nan")]))
    print(f"{name:52s} old {o:11.1f}  new {n:11.1f}  new/old {n / o:5.2f}")
EOF
