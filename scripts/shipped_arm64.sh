#!/usr/bin/env bash
# scripts/shipped.sh linux-arm64: libdrydb_c for Linux on 64-bit Arm, cross-built on this machine
# (cmake/toolchains/linux-arm64.cmake: Debian's g++-aarch64-linux-gnu) and tested under qemu-user.
# As for linux-x64: linked with zstd, lz4, xxHash and simdjson built from Debian's sources for the
# target (scripts/deps.sh linux-arm64) and with the C++ runtime inside. Then:
#   1. scripts/check_shipped.py: it needs only the C library (glibc 2.34 symbol versions at most)
#      and exports only the drydb_ functions;
#   2. the C API's test runs under qemu with the system's copies of those libraries hidden;
#   3. the library's test suite (ctest's label unit: the GoogleTest suites, the C API's tests),
#      built for the target, runs under qemu (CMAKE_CROSSCOMPILING_EMULATOR).
# No Python extension, tool, benchmarks or fuzz targets for this target: the extension would need
# an arm64 interpreter to test it, and the rest is not shipped.
#
#   scripts/shipped_arm64.sh   (called by scripts/shipped.sh linux-arm64)
#
# DRYDB_ARM64_TESTS chooses how much of the suite runs under qemu: "all" (the default) or
# "quick" (every suite but the long-running ones below; for a CI short of time).
set -euo pipefail
cd "$(dirname "$0")/.."

target=linux-arm64
JOBS=${JOBS:-2}
build=build/shipped/$target
deps=$PWD/build/deps/$target
tests=${DRYDB_ARM64_TESTS:-all}
case "$tests" in
  all | quick) ;;
  *) echo "shipped_arm64.sh: DRYDB_ARM64_TESTS is '$tests', not all or quick" >&2; exit 2 ;;
esac

bash scripts/deps.sh "$target"
mkdir -p build/shipped

# CMAKE_FIND_ROOT_PATH: the toolchain looks for libraries only under the target's roots; the
# dependencies' prefix is one of them.
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release \
  "-DCMAKE_TOOLCHAIN_FILE=$PWD/cmake/toolchains/$target.cmake" \
  "-DCMAKE_FIND_ROOT_PATH=$deps" "-DCMAKE_PREFIX_PATH=$deps" \
  -DDRYDB_STATIC_RUNTIME=ON -DDRYDB_BUILD_TESTS=ON -DDRYDB_BUILD_PYTHON=OFF \
  -DDRYDB_BUILD_EXAMPLES=OFF -DDRYDB_BUILD_BENCH=OFF -DDRYDB_BUILD_CLI=OFF \
  -DDRYDB_BUILD_FUZZ=OFF -DDRYDB_CONSUMER_TESTS=OFF -DDRYDB_INSTALL=OFF \
  -DDRYDB_BUILD_GOLDEN_WRITERS=OFF \
  >"$build.configure.log" || { cat "$build.configure.log" >&2; exit 1; }
# The configure must have taken the target's static dependencies (a host library would not link,
# a shared one of the target's would not be inside).
for entry in zstd_LIBRARY:FILEPATH LZ4_LIBRARY:FILEPATH xxHash_DIR:PATH simdjson_DIR:PATH \
    GTest_DIR:PATH; do
  found=$(sed -n "s/^${entry}=//p" "$build/CMakeCache.txt")
  case "$found" in
    "$deps/lib/"*) ;;
    *) echo "shipped_arm64.sh: ${entry%%:*} is '$found', not in build/deps/$target" >&2
       exit 1 ;;
  esac
done
cmake --build "$build" -j"$JOBS"

/usr/bin/python3 scripts/check_shipped.py --machine AArch64 --exports '^drydb_' \
  "$build/libdrydb_c.so"

mkdir -p "$build/capi"
bash scripts/hide_system_libs.sh qemu-aarch64 -L /usr/aarch64-linux-gnu \
  "$build/tests/capi_test" "$build/capi"

# A death test that re-executes the test program ("threadsafe") cannot run here: qemu-user runs
# only the program it started (no binfmt_misc handler). Death tests fork instead ("fast"); those
# that set their style choose by DRYDB_TEST_EMULATED (tests/read/async_test.cpp).
export GTEST_DEATH_TEST_STYLE=fast
# DRYDB_ARM64_TESTS=quick leaves out the suites that take longest under qemu: sweeps and model
# comparisons over many files, pages or threads that test the same portable C++ in every
# linux-x64 stage (Release, ASan+UBSan, TSan). Each is printed with that reason.
excluded=()
if [ "$tests" = quick ]; then
  long_running=('^Corruption\.' '^CrashBuild\.KilledAtRandomMoments$' '^Shapes/LargeTree\.'
    '^Shapes/DescentIndex\.' '^Stress\.' '^MissFilter\.EveryFlippedBitOfAFilterPageIsDetected$'
    '^Int64Test\.PrefixKeyPathMatchesTheModel$' '^Resource\.' '^PageSizes/IndexDifferential\.'
    '^Filters\.DamagedFilteredPagesAreDetected$')
  regex=$(IFS='|'; echo "${long_running[*]}")
  mapfile -t left_out < <(ctest --test-dir "$build" -N -L unit -R "$regex" |
    sed -n 's/^ *Test *#[0-9]*: //p')
  for name in "${left_out[@]}"; do
    echo "shipped_arm64.sh: left out (long under qemu; run natively on linux-x64): $name"
  done
  echo "shipped_arm64.sh: DRYDB_ARM64_TESTS=quick leaves out ${#left_out[@]} tests"
  excluded=(-E "$regex")
fi
echo "shipped_arm64.sh: running the unit suite under qemu-aarch64 (DRYDB_ARM64_TESTS=$tests)"
ctest --test-dir "$build" --output-on-failure -j"$JOBS" -L unit ${excluded[@]+"${excluded[@]}"}
echo "shipped_arm64.sh: $target's libdrydb_c is self-contained and its tests pass under qemu ($build)"
