#!/usr/bin/env bash
# Cross-build drydb for another target and test it there, on this machine:
#   win-x64   MinGW-w64 (cmake/toolchains/win-x64.cmake), tests run under wine64.
# In build/cross/TARGET: the dependencies from Debian's sources (scripts/deps.sh TARGET), the
# library, drydb_c.dll (the C API as shipped: the runtime and dependencies inside) and the test
# suite. Then:
#   1. scripts/check_shipped_dll.py: drydb_c.dll imports only Windows' own DLLs and exports only
#      the drydb_ functions;
#   2. the C API's test (capi_test.exe), then the whole ctest suite, under wine, in a wine prefix
#      of the build's own;
#   3. the tests skipped on the target, each with the reason it gave.
#
#   scripts/cross_test.sh win-x64
#
# DRYDB_WIN_TESTS chooses how much runs: "all" (the default: the whole suite) or "capi" (only
# drydb_c.dll and the C API's test are built and run: what scripts/test.sh runs, while the
# suite under wine still has failures to work through; HACKING.md lists them).
set -euo pipefail
cd "$(dirname "$0")/.."

target=${1:-}
case "$target" in
  win-x64) ;;
  *) echo "usage: $0 win-x64" >&2; exit 2 ;;
esac
JOBS=${JOBS:-2}
tests=${DRYDB_WIN_TESTS:-all}
case "$tests" in
  all | capi) ;;
  *) echo "cross_test.sh: DRYDB_WIN_TESTS is '$tests', not all or capi" >&2; exit 2 ;;
esac
build=$PWD/build/cross/$target
deps=$PWD/build/deps/$target
started=$SECONDS

bash scripts/deps.sh "$target"
mkdir -p "$build"

# Release, the shipped runtime linked in; the command-line tool, the Python package, examples,
# benchmarks and fuzz targets are not built for Windows, nor the consumer tests (host builds).
cmake -S . -B "$build" -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/toolchains/$target.cmake" \
  "-DCMAKE_FIND_ROOT_PATH=$deps" -DCMAKE_BUILD_TYPE=Release -DDRYDB_STATIC_RUNTIME=ON \
  -DDRYDB_BUILD_TESTS=ON -DDRYDB_BUILD_PYTHON=OFF -DDRYDB_BUILD_EXAMPLES=OFF \
  -DDRYDB_BUILD_BENCH=OFF -DDRYDB_BUILD_CLI=OFF -DDRYDB_BUILD_FUZZ=OFF \
  -DDRYDB_CONSUMER_TESTS=OFF -DDRYDB_INSTALL=OFF -DDRYDB_BUILD_GOLDEN_WRITERS=OFF \
  ${CMAKE_ARGS:-} >"$build.configure.log" || { cat "$build.configure.log" >&2; exit 1; }
# Every dependency must come from build/deps/TARGET (a host library would not even link).
for entry in zstd_LIBRARY:FILEPATH LZ4_LIBRARY:FILEPATH xxHash_DIR:PATH simdjson_DIR:PATH \
  GTest_DIR:PATH; do
  found=$(sed -n "s/^${entry}=//p" "$build/CMakeCache.txt")
  case "$found" in
    "$deps/lib/"*) ;;
    *) echo "cross_test.sh: ${entry%%:*} is '$found', not in $deps" >&2; exit 1 ;;
  esac
done
if [ "$tests" = capi ]; then
  cmake --build "$build" -j"$JOBS" --target drydb_c capi_test
else
  cmake --build "$build" -j"$JOBS"
fi
echo "cross_test.sh: $target built in $((SECONDS - started)) s"

/usr/bin/python3 scripts/check_shipped_dll.py --objdump x86_64-w64-mingw32-objdump \
  --exports '^drydb_' "$build/bin/drydb_c.dll"

# One wine prefix for the run, made before the tests start in parallel, and one wine server kept
# up for all of them (each program otherwise starts and stops its own).
export WINEPREFIX=$build/wine
export WINEDEBUG=-all WINEDLLOVERRIDES=mscoree,mshtml=
wineserver=/usr/lib/wine/wineserver64
[ -x "$wineserver" ] || wineserver=$(command -v wineserver)
bash scripts/wine_run.sh wineboot.exe --init
"$wineserver" -w  # until the boot's own server is gone: -p refuses while one runs
"$wineserver" -p
trap '"$wineserver" -k 2>/dev/null || true' EXIT

tested=$SECONDS
mkdir -p "$build/capi-direct"
bash scripts/wine_run.sh "$build/bin/capi_test.exe" "$build/capi-direct"
echo "cross_test.sh: capi_test passed under wine"
if [ "$tests" = capi ]; then
  echo "cross_test.sh: $target done in $((SECONDS - started)) s (the C API's test only)"
  exit 0
fi

status=0
ctest --test-dir "$build" --output-on-failure -j"$JOBS" || status=$?
echo "cross_test.sh: ctest under wine took $((SECONDS - tested)) s"

# The skipped tests and their reasons, from ctest's log: a GoogleTest skip prints
# "<file>:<line>: Skipped", the message, then "[  SKIPPED ] <test>".
/usr/bin/python3 - "$build/Testing/Temporary/LastTest.log" <<'PY'
import re, sys
log = open(sys.argv[1], errors="replace").read()
reasons = {}
for block in re.split(r"\n-{50,}\n", log):
    for m in re.finditer(r": Skipped\n(.*?)\n\[  SKIPPED \] (\S+)", block, re.S):
        reasons[m.group(2)] = " ".join(m.group(1).split())
print(f"cross_test.sh: {len(reasons)} tests skipped on this target:")
for name, why in sorted(reasons.items()):
    print(f"  {name}: {why}")
PY
echo "cross_test.sh: $target done in $((SECONDS - started)) s (exit $status)"
exit "$status"
