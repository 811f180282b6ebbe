#!/usr/bin/env bash
# Build drydb_bench (Release, in build/bench) and run the benchmark suite: drydb against SQLite,
# LMDB, RocksDB and in-memory baselines. Writes docs/benchmarks.md and one SVG chart per workload
# in docs/bench/ from the run's JSON. Installs missing Debian packages first.
#
#   scripts/bench.sh                     the whole suite, 5 interleaved repetitions (on a 2-core
#                                        machine, 25 minutes with --min-time 0.3, then a few
#                                        for the CSV sizes; the 1M-row key shapes alone:
#                                        --filter '_(dense|random|clustered|url)_1M/|_names/'
#                                        ran in 146 s with 3 repetitions of 0.2 s); then the
#                                        100M-row integer shapes, one process each (12 GB of
#                                        memory, its 5.4 GB of files mapped included)
#   scripts/bench.sh --filter Range      only benchmarks whose name matches the regex (names are
#                                        <workload>/<store>/...; "Python" runs
#                                        bench/python_bench.py, "Dask" bench/dask_build_bench.py,
#                                        "Dotnet" the .NET package's bench/dotnet, about 15 min;
#                                        a filter naming "100M" runs only the 100M-row shapes it
#                                        matches, e.g. 'Get_random_100M/(drydb|vector)/');
#                                        the report then goes to
#                                        build/bench/report/ unless --out is given
#   scripts/bench.sh --repetitions 5     repetitions per benchmark (default 5)
#   scripts/bench.sh --min-time 0.5      seconds per benchmark and repetition (default 0.5)
#   scripts/bench.sh --callgrind         also count instructions per query under callgrind
#   scripts/bench.sh --out DIR           write DIR/benchmarks.md and DIR/bench/*.svg
#   scripts/bench.sh --report-only JSON  only rewrite the report from an earlier run's JSON
#                                        (and the 100M shapes' runs beside it: for results.json,
#                                        results_SHAPE_100M.json)
set -euo pipefail
cd "$(dirname "$0")/.."

usage() {
  sed -n '2,/^set /p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
  exit 2
}

filter=""
repetitions=5
min_time=0.5
callgrind=0
out=""
report_only=""
args=("$@")
while [ $# -gt 0 ]; do
  case "$1" in
    --filter) filter=${2:?--filter needs a regex}; shift 2 ;;
    --repetitions) repetitions=${2:?--repetitions needs a number}; shift 2 ;;
    --min-time) min_time=${2:?--min-time needs seconds}; shift 2 ;;
    --callgrind) callgrind=1; shift ;;
    --out) out=${2:?--out needs a folder}; shift 2 ;;
    --report-only) report_only=${2:?--report-only needs a JSON file}; shift 2 ;;
    -h | --help) usage ;;
    *) echo "bench.sh: unknown argument $1" >&2; usage ;;
  esac
done
if [ -z "$out" ]; then
  if [ -n "$filter" ]; then out=build/bench/report; else out=docs; fi
fi

BUILD=build/bench
JOBS=2
results=$BUILD/results.json
callgrind_out=$BUILD/callgrind.txt
csv_size_out=$BUILD/csv_size.md
python_out=$BUILD/python_bench.md
dask_out=$BUILD/dask_build.md
dotnet_out=$BUILD/dotnet_bench.md

if ! command -v python3 >/dev/null; then
  echo "bench.sh: python3 is needed to write the report (Debian: python3)" >&2
  exit 1
fi

if [ -z "$report_only" ]; then
  # The peers (SQLite, RocksDB, LMDB; abseil, marisa-trie and the HAT-trie for the in-memory
  # baselines) and Google Benchmark are in test.sh's package list.
  scripts/test.sh --install-deps

  cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DDRYDB_BUILD_BENCH=ON \
    -DDRYDB_BUILD_TESTS=OFF -DDRYDB_BUILD_EXAMPLES=OFF -DDRYDB_BUILD_CLI=OFF \
    -DDRYDB_BUILD_FUZZ=OFF -DDRYDB_INSTALL=OFF -DDRYDB_BUILD_PYTHON=OFF
  cmake --build "$BUILD" -j"$JOBS" --target drydb_bench drydb_instr_count

  run_opts=(--benchmark_enable_random_interleaving=true
    "--benchmark_repetitions=$repetitions" "--benchmark_min_time=$min_time"
    --benchmark_display_aggregates_only=true --benchmark_out_format=json)
  bench=("$BUILD/bench/drydb_bench" "${run_opts[@]}" "--benchmark_out=$results")
  [ -z "$filter" ] || bench+=("--benchmark_filter=$filter")
  rm -f "$BUILD"/results_*_100M.json
  start=$SECONDS
  ran=()  # the commands run, for the report
  if [[ "$filter" == *100M* ]]; then
    : >"$results"  # no suite benchmark: an empty run
  else
    echo "bench.sh: ${bench[*]}"
    "${bench[@]}"
    ran+=("${bench[*]}")
  fi
  # The 100M-row integer shapes: one process per shape, each running the benchmarks of that
  # shape the filter matches (all of them on the whole suite).
  if [ -z "$filter" ] || [[ "$filter" == *100M* ]]; then
    listed=$("$BUILD/bench/drydb_bench" --shapes_100M --benchmark_list_tests \
      "--benchmark_filter=${filter:-.}")
    for shape in dense random clustered; do
      names=$(grep "_${shape}_100M/" <<<"$listed" || true)
      [ -n "$names" ] || continue
      large=("$BUILD/bench/drydb_bench" --shapes_100M "${run_opts[@]}"
        "--benchmark_out=$BUILD/results_${shape}_100M.json"
        "--benchmark_filter=^($(paste -sd '|' <<<"$names"))\$")
      echo "bench.sh: ${large[*]}"
      "${large[@]}"
      ran+=("${large[*]}")
    done
  fi
  if [ ${#ran[@]} -eq 0 ] && [[ "$filter" == *100M* ]]; then
    echo "bench.sh: --filter '$filter' matches no benchmark of the 100M-row shapes" >&2
    exit 1
  fi
  echo "bench.sh: the benchmarks ran in $((SECONDS - start)) s"
  echo "$((SECONDS - start))" >"$results.seconds"
  git describe --always --dirty >"$results.commit" 2>/dev/null || rm -f "$results.commit"
  ran_text=""
  for c in "${ran[@]}"; do ran_text+="${ran_text:+; }$c"; done
  printf '%s\n' "scripts/bench.sh${args[*]:+ ${args[*]}}, which ran: $ran_text" >"$results.command"

  # The file size of a CSV table against SQLite's, on the whole suite only (it builds the tool).
  rm -f "$csv_size_out"
  if [ -z "$filter" ]; then
    cmake -S . -B "$BUILD/cli" -DCMAKE_BUILD_TYPE=Release -DDRYDB_BUILD_CLI=ON \
      -DDRYDB_BUILD_TESTS=OFF -DDRYDB_BUILD_EXAMPLES=OFF -DDRYDB_BUILD_BENCH=OFF \
      -DDRYDB_BUILD_FUZZ=OFF -DDRYDB_INSTALL=OFF -DDRYDB_BUILD_PYTHON=OFF
    cmake --build "$BUILD/cli" -j"$JOBS" --target drydb_cli
    DRYDB="$BUILD/cli/tools/drydb/drydb" scripts/csv_size.sh | tee "$csv_size_out"
  fi

  # The Python package beside dict, sqlite3, python-lmdb and plyvel (bench/python_bench.py), on
  # the whole suite or a filter that matches "Python"; built for Debian's interpreter.
  rm -f "$python_out"
  if [ -z "$filter" ] || [[ Python =~ $filter ]]; then
    cmake -S . -B "$BUILD/python" -DCMAKE_BUILD_TYPE=Release -DDRYDB_BUILD_PYTHON=ON \
      -DPython_EXECUTABLE=/usr/bin/python3 -DDRYDB_BUILD_TESTS=OFF -DDRYDB_BUILD_EXAMPLES=OFF \
      -DDRYDB_BUILD_BENCH=OFF -DDRYDB_BUILD_CLI=ON -DDRYDB_BUILD_FUZZ=OFF -DDRYDB_INSTALL=OFF
    cmake --build "$BUILD/python" -j"$JOBS" --target drydb_python
    /usr/bin/python3 bench/python_bench.py --package "$BUILD/python/python/package" \
      --rounds "$repetitions" --out "$python_out"
  fi

  # A sharded dataset built by Dask on a 2-worker LocalCluster beside `drydb build`
  # (bench/dask_build_bench.py): the Python package and the tool, on the whole suite or "Dask".
  rm -f "$dask_out"
  if [ -z "$filter" ] || [[ Dask =~ $filter ]]; then
    cmake -S . -B "$BUILD/python" -DCMAKE_BUILD_TYPE=Release -DDRYDB_BUILD_PYTHON=ON \
      -DPython_EXECUTABLE=/usr/bin/python3 -DDRYDB_BUILD_TESTS=OFF -DDRYDB_BUILD_EXAMPLES=OFF \
      -DDRYDB_BUILD_BENCH=OFF -DDRYDB_BUILD_CLI=ON -DDRYDB_BUILD_FUZZ=OFF -DDRYDB_INSTALL=OFF
    cmake --build "$BUILD/python" -j"$JOBS" --target drydb_python drydb_cli
    /usr/bin/python3 bench/dask_build_bench.py --package "$BUILD/python/python/package" \
      --cli "$BUILD/python/tools/drydb/drydb" --rounds 3 --out "$dask_out"
  fi

  # The .NET package beside LightningDB, RocksDB and Microsoft.Data.Sqlite from NuGet
  # (bench/dotnet, BenchmarkDotNet), over a Release libdrydb_c.so, on the whole suite or "Dotnet".
  rm -f "$dotnet_out"
  if [ -z "$filter" ] || [[ Dotnet =~ $filter ]]; then
    if ! command -v dotnet >/dev/null; then
      echo "bench.sh: the .NET benchmarks need the .NET SDK (dotnet)" >&2
      exit 1
    fi
    cmake -S . -B "$BUILD/capi" -DCMAKE_BUILD_TYPE=Release -DDRYDB_BUILD_TESTS=OFF \
      -DDRYDB_BUILD_EXAMPLES=OFF -DDRYDB_BUILD_BENCH=OFF -DDRYDB_BUILD_CLI=OFF \
      -DDRYDB_BUILD_FUZZ=OFF -DDRYDB_INSTALL=OFF -DDRYDB_BUILD_PYTHON=OFF
    cmake --build "$BUILD/capi" -j"$JOBS" --target drydb_c
    rm -rf "$BUILD/dotnet"
    dotnet run -c Release --project bench/dotnet/Drydb.Benchmarks "-p:DrydbNativeDir=$PWD/$BUILD/capi/" \
      -- --filter '*' --artifacts "$BUILD/dotnet"
    # The same gets called from C, entered clean and with dirty upper vector state.
    cmake --build "$BUILD" -j"$JOBS" --target drydb_capi_entry_bench
    "$BUILD/bench/drydb_capi_entry_bench" \
      --benchmark_enable_random_interleaving=true --benchmark_repetitions=5 \
      --benchmark_min_time=0.3 --benchmark_out_format=json \
      "--benchmark_out=$BUILD/capi_entry.json" >/dev/null
    python3 bench/dotnet/summarize.py "$BUILD/dotnet/results" --out "$dotnet_out" \
      --command "scripts/bench.sh --filter Dotnet" --capi-entry "$BUILD/capi_entry.json"
  fi

  rm -f "$callgrind_out"
  if [ "$callgrind" -eq 1 ]; then
    if ! command -v valgrind >/dev/null; then
      echo "bench.sh: --callgrind needs valgrind (Debian: valgrind)" >&2
      exit 1
    fi
    for store in drydb vector; do
      # workload:ops:rows
      for run in get_random:200:10000 get_same:200:10000 range:100:10000 count:100:10000 \
        get_bytes:100:10000 seek_key:100:10000 seek_rank:100:10000 index_get:100:10000 \
        get_random:50:1000000; do
        IFS=: read -r workload ops rows <<<"$run"
        valgrind --tool=callgrind --callgrind-out-file="$BUILD/callgrind.out" \
          --collect-atstart=no --toggle-collect='*measured_queries*' \
          "$BUILD/bench/drydb_instr_count" "$store" "$workload" "$ops" "$rows" \
          >"$BUILD/callgrind.log" 2>&1
        queries=$(awk '/^queries/ {print $2}' "$BUILD/callgrind.log")
        total=$(awk '/^totals:/ {print $2}' "$BUILD/callgrind.out")
        per=$(awk -v t="$total" -v q="$queries" 'BEGIN {printf "%.1f", t / q}')
        [ "$rows" = 10000 ] || workload+="_$((rows / 1000000))M"
        echo "$store $workload $per" | tee -a "$callgrind_out"
      done
    done
  fi
else
  results=$report_only
fi
# The 100M-row shapes' runs beside the suite's JSON.
shopt -s nullglob
large_results=("${results%.json}"_*_100M.json)
shopt -u nullglob

cxx=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$BUILD/CMakeCache.txt" 2>/dev/null || true)
compiler=$("${cxx:-c++}" --version 2>/dev/null | head -n 1 || echo unknown)
command="scripts/bench.sh${args[*]:+ ${args[*]}}"
[ ! -f "$results.command" ] || command=$(cat "$results.command")
report=(python3 bench/report.py "$results" "${large_results[@]}" --out "$out" --command "$command"
  --compiler "$compiler")
[ ! -f "$callgrind_out" ] || report+=(--callgrind "$callgrind_out")
[ ! -f "$csv_size_out" ] || report+=(--csv-size "$csv_size_out")
[ ! -f "$python_out" ] || report+=(--python "$python_out")
[ ! -f "$dask_out" ] || report+=(--dask "$dask_out")
[ ! -f "$dotnet_out" ] || report+=(--dotnet "$dotnet_out")
report+=(--shipped bench/shipped_library.md)
[ ! -f "$results.seconds" ] || report+=(--seconds "$(cat "$results.seconds")")
[ ! -f "$results.commit" ] || report+=(--commit "$(cat "$results.commit")")
report+=(--notes bench/key_shape_notes.md)
"${report[@]}"
echo "bench.sh: wrote $out/benchmarks.md and $out/bench/*.svg"
