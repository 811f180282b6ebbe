#!/usr/bin/env bash
# Build the binaries drydb ships for a target, self-contained, and prove they are:
# libdrydb_c (the C API, which the .NET package carries) and the Python extension, linked with
# zstd, lz4, xxHash and simdjson built from Debian's sources (scripts/deps.sh) and with the C++
# runtime inside (-DDRYDB_STATIC_RUNTIME=ON), in build/shipped/TARGET. Then:
#   1. scripts/check_shipped.py: each needs only the C library (glibc 2.34 symbol versions at
#      most) and exports only its own entry points;
#   2. the C API's test and the Python package's tests run with Debian's zstd, lz4, xxHash and
#      simdjson libraries hidden (scripts/hide_system_libs.sh), so a dependency that is still
#      linked dynamically fails to load.
#
#   scripts/shipped.sh [TARGET]   TARGET: linux-x64 (the default; this machine) or linux-arm64
#                                 (libdrydb_c only, cross-built and tested under qemu-user:
#                                 scripts/shipped_arm64.sh)
set -euo pipefail
cd "$(dirname "$0")/.."

target=${1:-linux-x64}
case "$target" in
  linux-x64) ;;
  linux-arm64) exec bash scripts/shipped_arm64.sh ;;
  *) echo "shipped.sh: unknown target $target (known: linux-x64, linux-arm64)" >&2; exit 2 ;;
esac
JOBS=${JOBS:-2}
build=build/shipped/$target

bash scripts/deps.sh "$target"
mkdir -p build/shipped

cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release "-DCMAKE_PREFIX_PATH=$PWD/build/deps/$target" \
  -DDRYDB_STATIC_RUNTIME=ON -DDRYDB_BUILD_TESTS=ON -DDRYDB_BUILD_PYTHON=ON \
  -DPython_EXECUTABLE=/usr/bin/python3 -DDRYDB_BUILD_EXAMPLES=OFF -DDRYDB_BUILD_BENCH=OFF \
  -DDRYDB_BUILD_CLI=OFF -DDRYDB_BUILD_FUZZ=OFF -DDRYDB_CONSUMER_TESTS=OFF -DDRYDB_INSTALL=OFF \
  >"$build.configure.log" || { cat "$build.configure.log" >&2; exit 1; }
# The configure must have taken the static dependencies (a library found by drydb's find
# modules, or a CMake package of build/deps): a shared one found instead would link.
for entry in zstd_LIBRARY:FILEPATH LZ4_LIBRARY:FILEPATH xxHash_DIR:PATH simdjson_DIR:PATH; do
  found=$(sed -n "s/^${entry}=//p" "$build/CMakeCache.txt")
  case "$found" in
    "$PWD/build/deps/$target/lib/"*) ;;
    *) echo "shipped.sh: ${entry%%:*} is '$found', not in build/deps/$target" >&2
       exit 1 ;;
  esac
done
cmake --build "$build" -j"$JOBS" --target drydb_c capi_test drydb_python

extension=$(ls "$build"/python/package/drydb/_drydb*.so)
/usr/bin/python3 scripts/check_shipped.py --exports '^drydb_' "$build/libdrydb_c.so"
/usr/bin/python3 scripts/check_shipped.py --exports '^PyInit__drydb$' "$extension"

mkdir -p "$build/capi"
bash scripts/hide_system_libs.sh "$build/tests/capi_test" "$build/capi"
bash scripts/hide_system_libs.sh env PYTHONPATH="$build/python/package" \
  /usr/bin/python3 -m pytest -q -p no:cacheprovider tests/python
echo "shipped.sh: $target's libdrydb_c and Python extension are self-contained ($build)"
