#!/usr/bin/env bash
# Build drydb's libFuzzer targets with clang (-fsanitize=fuzzer,address,undefined) into
# build/fuzz and run each for SECONDS seconds (default 60) on a copy of its committed corpus.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]     targets: open page page_index build manifest (default: all)
#
# Each run starts from a fresh copy of the committed corpus in build/fuzz/corpus/<target>, where
# the inputs it finds stay until the next run (FUZZ_KEEP_CORPUS=1 keeps and extends them, for
# longer campaigns; CI does not, so its run time stays bounded). A crash leaves
# build/fuzz/artifacts/<target>/crash-*; add it to tests/fuzz/regressions/<target>/ (and fix the
# bug): tests/api/fuzz_regression_test.cpp replays that folder in every test run. Set FUZZ_JOBS=N to
# run N fuzzing processes per target (libFuzzer -fork=N); default 1.
#
# libFuzzer's entropic schedule is off (-entropic=0; FUZZ_ENTROPIC=1 turns it on): its per-feature
# bookkeeping took 35-40% of the time of targets whose executions reach tens of thousands of
# features (page, page_index, build); without it the build target made twice as many executions
# in 25-30 s runs, reaching the same coverage, and the page targets about as many or up to 1.5
# times as many (measured on a loaded machine).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(open page page_index build manifest)
case "$seconds" in '' | *[!0-9]*) echo "usage: $0 [SECONDS] [TARGET...]" >&2; exit 2 ;; esac

bash scripts/test.sh --install-deps

cmake -S . -B build/fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
  -DDRYDB_BUILD_FUZZ=ON -DDRYDB_BUILD_TESTS=OFF -DDRYDB_BUILD_EXAMPLES=OFF \
  -DDRYDB_BUILD_BENCH=OFF -DDRYDB_BUILD_CLI=OFF -DDRYDB_INSTALL=OFF -DDRYDB_BUILD_PYTHON=OFF \
  "-DDRYDB_FUZZ_SANITIZE=address,undefined"
cmake --build build/fuzz -j"${FUZZ_BUILD_JOBS:-2}" --target "${targets[@]/#/fuzz_}"

# Input size caps: whole files (open), two pages of 512 bytes plus two bytes (page, page_index:
# a longer input would only change more pages, each a tree more to check), build requests.
declare -A max_len=([open]=65536 [page]=1026 [page_index]=1026 [build]=1024 [manifest]=8192)
# ASan keeps 5 frames of each allocation's and free's stack (malloc_context_size; the default 30
# made unwinding and storing them a real share of every execution that allocates much). A
# report's own stack stays whole; only the "allocated by" and "freed by" stacks it cites are cut
# to 5 frames. In 30 s runs side by side with and without it on a loaded 2-core machine:
# page_index 1,033 executions per CPU-second against 746, build 673 against 555. (A smaller
# quarantine, quarantine_size_mb=8, did not make the build target faster.)
export ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:abort_on_error=1:detect_leaks=1:malloc_context_size=5}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

status=0
for t in "${targets[@]}"; do
  corpus=build/fuzz/corpus/$t
  artifacts=build/fuzz/artifacts/$t
  [ "${FUZZ_KEEP_CORPUS:-0}" = 1 ] || rm -rf "$corpus"
  mkdir -p "$corpus" "$artifacts"
  cp -n tests/fuzz/corpus/"$t"/* "$corpus"/ 2>/dev/null || true
  fork=()
  [ "${FUZZ_JOBS:-1}" -gt 1 ] && fork=(-fork="$FUZZ_JOBS" -ignore_crashes=0)
  echo "fuzz.sh: $t for ${seconds} s"
  regressions=()
  [ -d tests/fuzz/regressions/"$t" ] && regressions=(tests/fuzz/regressions/"$t")
  if ! build/fuzz/tests/fuzz/fuzz_"$t" "$corpus" "${regressions[@]}" \
      -max_total_time="$seconds" -max_len="${max_len[$t]}" -timeout=25 -rss_limit_mb=4096 \
      -artifact_prefix="$artifacts"/ -print_final_stats=1 -entropic="${FUZZ_ENTROPIC:-0}" \
      "${fork[@]}" \
      2>build/fuzz/"$t".log; then
    echo "fuzz.sh: $t FAILED; see build/fuzz/$t.log and $artifacts/" >&2
    tail -n 60 build/fuzz/"$t".log >&2
    status=1
  fi
  grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb|^#[0-9]+ *DONE' build/fuzz/"$t".log || true
done
exit $status
