#!/usr/bin/env bash
# Build drydb and run its tests: Release with g++ (unit, consumer, tool and Python tests), the
# shipped binaries, self-contained (scripts/shipped.sh), the Python package's wheel
# (scripts/wheel_test.sh), the .NET package's tests over the Release build
# (scripts/dotnet.sh: needs the .NET SDK), then
# the unit tests under ASan+UBSan with clang++ (and, in a build with exceptions, the tool's tests
# and the MessagePack tables), the Python tests under ASan+UBSan with g++, the
# unit tests under TSan with clang++, then each libFuzzer target for 60 s (scripts/fuzz.sh).
# Installs missing Debian packages first.
#
#   scripts/test.sh                 everything
#   scripts/test.sh --quick         the Release build and tests (C++, Python, wheel, .NET) only
#   scripts/test.sh --install-deps  only install the packages (used by the other scripts)
set -euo pipefail
cd "$(dirname "$0")/.."

# Every Debian package any drydb script needs: the one list to extend (sqlite3, the shell, for
# scripts/csv_size.sh; venv, pip, setuptools and wheel for the wheel, scripts/wheel_test.sh;
# dpkg-dev for the dependencies' source packages, scripts/deps.sh).
PACKAGES=(cmake g++ clang libclang-rt-14-dev libxxhash-dev libzstd-dev liblz4-dev libgtest-dev
  libgmock-dev libbenchmark-dev libsodium-dev libmsgpack-cxx-dev pkg-config libsqlite3-dev
  librocksdb-dev liblmdb-dev libabsl-dev libmarisa-dev libhat-trie-dev python3 libcli11-dev
  libfmt-dev libedit-dev libsimdjson-dev unicode-data wamerican
  sqlite3 python3-dev pybind11-dev python3-pytest python3-msgpack python3-lmdb python3-plyvel
  python3-dask python3-distributed python3-pandas python3-venv python3-pip python3-setuptools
  python3-wheel dpkg-dev)
JOBS=2

install_missing_packages() {
  local missing=() pkg
  for pkg in "${PACKAGES[@]}"; do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "test.sh: installing ${missing[*]}"
  local sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  "${sudo[@]}" apt-get update
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
}

quick=0
case "${1:-}" in
  "") ;;
  --quick) quick=1 ;;
  --install-deps) install_missing_packages; exit 0 ;;
  *) echo "usage: $0 [--quick | --install-deps]" >&2; exit 2 ;;
esac

stage=setup
report_failure() {
  local status=$?
  [ "$status" -eq 0 ] || echo "test.sh: FAILED during $stage (exit $status)" >&2
}
trap report_failure EXIT
start=$SECONDS
install_missing_packages

# Each stage's name and seconds, for the summary line (HACKING.md says where CI's time goes).
done_stages=""
stage_began=$SECONDS
stage_done() {
  done_stages+="${done_stages:+, }$1: $((SECONDS - stage_began)) s"
  echo "test.sh: $1 passed in $((SECONDS - stage_began)) s"
  stage_began=$SECONDS
}

# Configure build/<name> with the given cache arguments and build it.
configure_and_build() {
  local dir=build/$1
  shift
  cmake -S . -B "$dir" "$@"
  cmake --build "$dir" -j"$JOBS"
}

stage=release
# The Python package is required here (a missing pybind11 fails the configure, never skips its
# tests), built for Debian's interpreter: the python3 first on PATH may be another one. No
# benchmarks: no test runs them, and scripts/bench.sh builds its own (build/bench).
configure_and_build release -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=g++ \
  -DDRYDB_BUILD_TESTS=ON -DDRYDB_BUILD_PYTHON=ON -DPython_EXECUTABLE=/usr/bin/python3 \
  -DDRYDB_BUILD_BENCH=OFF
ctest --test-dir build/release --output-on-failure -j"$JOBS"
stage_done release

# The binaries drydb ships, self-contained (scripts/shipped.sh): libdrydb_c and the Python
# extension linked with zstd, lz4, xxHash and simdjson built from Debian's sources and with the
# C++ runtime inside; checked to need only the C library (glibc 2.34 symbol versions at most)
# and to export only their entry points; the C API's and the Python package's tests run with
# the system's copies of those libraries hidden.
stage=shipped
bash scripts/shipped.sh linux-x64
stage_done "shipped (linux-x64)"

# linux-arm64, cross-built (Debian's g++-aarch64-linux-gnu) and self-contained the same way, its
# C API test and unit suites run under qemu-user (scripts/shipped_arm64.sh); the suites that take
# long under emulation are left out here for time (DRYDB_ARM64_TESTS=all runs them).
stage=shipped-arm64
DRYDB_ARM64_TESTS=quick bash scripts/shipped.sh linux-arm64
stage_done "shipped (linux-arm64, under qemu)"

# win-x64, cross-built with MinGW-w64 (scripts/cross_test.sh): drydb_c.dll self-contained and
# checked (only Windows' own DLLs imported, only drydb_ exported), its C API test run under
# wine. The whole suite under wine (DRYDB_WIN_TESTS=all) is not part of this run yet.
stage=win-x64
DRYDB_WIN_TESTS=capi bash scripts/cross_test.sh win-x64
stage_done "win-x64 (C API under wine)"

# The Python package as a wheel (pyproject.toml; its own CMake build in build/wheel): installed
# into a fresh virtual environment, run from outside the checkout, and installed on a
# LocalCluster's workers by docs/python.md's plugin.
stage=wheel
bash scripts/wheel_test.sh
stage_done "wheel"

# The .NET package over the shipped, self-contained libdrydb_c.so (the Release build's tool and
# Python package for the cross-language tests): scripts/dotnet.sh runs `dotnet test`
# (xunit, on .NET 10 and, for the netstandard2.1 build, .NET 8), `dotnet pack`, and a program
# outside the repository built from the .nupkg.
stage=dotnet
DRYDB_NATIVE_LINUX_ARM64=build/shipped/linux-arm64 DRYDB_NATIVE_WIN_X64=build/cross/win-x64/bin \
  bash scripts/dotnet.sh build/release build/shipped/linux-x64
stage_done ".NET"

if [ "$quick" -eq 0 ]; then
  # Sanitizer builds: clang++ (the second supported compiler), -O1 -g keeps them fast enough and
  # the stacks readable; Debug so that assertions stay on; clang for the C API's C test too, whose
  # objects must match the C++ ones' sanitizer runtime. The library and unit tests here; the
  # tool's tests and the MessagePack tables in the tool-asan stage below.
  sanitized=(-DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -g" -DCMAKE_CXX_COMPILER=clang++
    -DCMAKE_C_COMPILER=clang "-DCMAKE_C_FLAGS_DEBUG=-O1 -g"
    -DDRYDB_BUILD_TESTS=ON -DDRYDB_BUILD_EXAMPLES=OFF -DDRYDB_BUILD_BENCH=OFF
    -DDRYDB_BUILD_CLI=OFF -DDRYDB_BUILD_FUZZ=OFF -DDRYDB_CONSUMER_TESTS=OFF -DDRYDB_BUILD_PYTHON=OFF
    -DDRYDB_BUILD_GOLDEN_WRITERS=OFF)
  export ASAN_OPTIONS=halt_on_error=1:abort_on_error=1:detect_leaks=1:strict_string_checks=1
  export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
  export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1

  stage=asan
  configure_and_build asan "${sanitized[@]}" -DDRYDB_SANITIZE=address,undefined \
    -DDRYDB_NO_EXCEPTIONS=ON
  ctest --test-dir build/asan --output-on-failure -j"$JOBS" -L unit
  stage_done "asan+ubsan (no exceptions)"

  # The tool (its cases and unit tests, label cli) and the MessagePack typed tables under
  # ASan+UBSan: both need exceptions, so they get a build of their own, of only their targets.
  # ASan leaves SIGBUS to the kernel here: a case proves that a file cut under `--mmap` ends
  # the tool by SIGBUS (exit 135), as docs/cli.md says, where ASan would report it instead.
  stage=tool-asan
  cmake -S . -B build/asantool "${sanitized[@]}" -DDRYDB_SANITIZE=address,undefined \
    -DDRYDB_BUILD_CLI=ON
  cmake --build build/asantool -j"$JOBS" --target drydb_cli cli_unit_test msgpack_test
  ASAN_OPTIONS=$ASAN_OPTIONS:handle_sigbus=0 \
    ctest --test-dir build/asantool --output-on-failure -j"$JOBS" -L cli
  ctest --test-dir build/asantool --output-on-failure -j"$JOBS" -R '^Msgpack'
  stage_done "tool and msgpack (asan+ubsan)"

  # The Python package under ASan+UBSan (g++, whose runtime the interpreter loads first): views,
  # iterators and cursors outliving a closed database are its risk. Python's own allocations
  # live until exit, so leaks are not reported here.
  stage=python-asan
  configure_and_build pyasan -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -g" \
    -DCMAKE_CXX_COMPILER=g++ -DDRYDB_SANITIZE=address,undefined -DDRYDB_BUILD_PYTHON=ON \
    -DPython_EXECUTABLE=/usr/bin/python3 -DDRYDB_BUILD_TESTS=OFF -DDRYDB_BUILD_EXAMPLES=OFF \
    -DDRYDB_BUILD_BENCH=OFF -DDRYDB_BUILD_CLI=OFF -DDRYDB_BUILD_FUZZ=OFF -DDRYDB_INSTALL=OFF
  LD_PRELOAD="$(g++ -print-file-name=libasan.so) $(g++ -print-file-name=libubsan.so)" \
    ASAN_OPTIONS=halt_on_error=1:abort_on_error=1:detect_leaks=0 \
    PYTHONPATH=build/pyasan/python/package DRYDB_CLI=build/release/tools/drydb/drydb \
    /usr/bin/python3 -m pytest -q -p no:cacheprovider tests/python
  stage_done "python (asan+ubsan)"

  stage=tsan
  configure_and_build tsan "${sanitized[@]}" -DDRYDB_SANITIZE=thread
  ctest --test-dir build/tsan --output-on-failure -j"$JOBS" -L unit
  stage_done "tsan"

  # Each fuzz target for 60 s on a copy of its committed corpus (5 targets: about 6 minutes
  # with the build).
  stage=fuzz
  bash scripts/fuzz.sh 60
  stage_done "fuzz (60 s per target)"
fi

echo "test.sh: all passed ($done_stages) in $((SECONDS - start)) s"
