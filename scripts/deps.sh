#!/usr/bin/env bash
# Build drydb's dependencies (zstd, lz4, xxHash, simdjson) as static, position-independent
# libraries for a shipped binary, from Debian's own source packages (`apt-get source`, the
# release this machine runs), into build/deps/TARGET/{include,lib}. A build of drydb given
# -DCMAKE_PREFIX_PATH=$PWD/build/deps/TARGET finds these before the system's shared ones, so
# libdrydb_c and the Python extension carry them inside and need nothing of them at run time
# (scripts/shipped.sh builds and checks that). Debian's own libzstd.a is not position-independent,
# and it has no static simdjson: hence the sources.
#
#   scripts/deps.sh [TARGET]   TARGET: linux-x64 (the default; this machine), linux-arm64, win-x64
#
# linux-arm64 is cross-built (cmake/toolchains/linux-arm64.cmake: Debian's g++-aarch64-linux-gnu,
# whose packages this script installs, with qemu-user to run the tests), win-x64 with MinGW-w64
# (cmake/toolchains/win-x64.cmake; the cross compiler and wine are installed here); both add
# GoogleTest, from Debian's googletest source package, since their tests are built for the
# target too.
#
# Adds a deb-src entry for Debian's main archive when none is configured (apt-get source needs
# one), and installs what it needs (scripts/test.sh's package list: dpkg-dev, cmake, g++). Sources are unpacked once into
# build/deps/src; a target whose stamp names the same package versions is not built again.
set -euo pipefail
cd "$(dirname "$0")/.."

target=${1:-linux-x64}
packages=(libzstd lz4 xxhash simdjson)
target_packages=()  # Debian packages the target's build needs beyond scripts/test.sh's
case "$target" in
  linux-x64) toolchain=() ;;
  linux-arm64)
    toolchain=("-DCMAKE_TOOLCHAIN_FILE=$PWD/cmake/toolchains/linux-arm64.cmake")
    target_packages=(g++-aarch64-linux-gnu binutils-aarch64-linux-gnu qemu-user)
    packages+=(googletest) ;;
  win-x64)
    toolchain=("-DCMAKE_TOOLCHAIN_FILE=$PWD/cmake/toolchains/win-x64.cmake")
    packages+=(googletest)
    target_packages=(g++-mingw-w64-x86-64-posix gcc-mingw-w64-x86-64-posix
      binutils-mingw-w64-x86-64 wine64)
    ;;
  *) echo "deps.sh: unknown target $target (known: linux-x64, linux-arm64, win-x64)" >&2; exit 2 ;;
esac
root=$PWD/build/deps
src=$root/src
prefix=$root/$target
JOBS=${JOBS:-2}

sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo)

# apt-get source needs a deb-src line of this release; Debian's images ship none.
ensure_deb_src() {
  if [ -n "$(apt-cache showsrc libzstd 2>/dev/null)" ]; then return 0; fi
  local codename
  codename=$(. /etc/os-release && echo "$VERSION_CODENAME")
  echo "deps.sh: adding a deb-src entry for Debian $codename (main)"
  "${sudo[@]}" tee /etc/apt/sources.list.d/drydb-deb-src.sources >/dev/null <<EOF
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: $codename $codename-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  "${sudo[@]}" apt-get update -qq
}

bash scripts/test.sh --install-deps  # dpkg-dev, cmake, the compilers
# A cross target's compiler and emulator (scripts/test.sh's list is the build machine's own).
missing=()
for p in "${target_packages[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps.sh: installing ${missing[*]}"
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
fi
ensure_deb_src

# A source package's .dsc file name at the version apt would fetch now (no epoch).
dsc_of() {
  local version
  version=$(apt-cache showsrc "$1" | awk '/^Version:/ {print $2; exit}')
  echo "$1_${version#*:}.dsc"
}
# The stamp of what the target was built from.
versions=$(for p in "${packages[@]}"; do dsc_of "$p"; done)
if [ -f "$prefix/stamp" ] && [ "$(cat "$prefix/stamp")" = "$versions" ]; then
  echo "deps.sh: $target is up to date ($prefix)"
  exit 0
fi

mkdir -p "$src"
(
  cd "$src"
  for p in "${packages[@]}"; do
    dsc=$(dsc_of "$p")
    if [ ! -f "$dsc" ]; then
      # As root, apt warns that it downloads unsandboxed: expected, not an error.
      apt-get source --download-only -qq "$p" 2>&1 | grep -v 'unsandboxed' || true
    fi
    dir=${dsc%.dsc}  # one folder per source version
    [ -d "$dir" ] || dpkg-source --no-check -x "$dsc" "$dir" >/dev/null
    echo "$p $dir" >>"$src/dirs.new"
  done
  mv "$src/dirs.new" "$src/dirs"
)
dir_of() { awk -v p="$1" '$1 == p {print $2}' "$src/dirs"; }

rm -rf "$prefix" "$root/build-$target"
# Release, position-independent, static only, no programs or tests: what a shared library links.
common=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DBUILD_SHARED_LIBS=OFF
  "-DCMAKE_INSTALL_PREFIX=$prefix" -DCMAKE_INSTALL_LIBDIR=lib "${toolchain[@]}")
build_one() {  # name source-dir cmake-args...
  local name=$1 dir=$2
  shift 2
  echo "deps.sh: $target: $name"
  cmake -S "$dir" -B "$root/build-$target/$name" "${common[@]}" "$@" >"$root/build-$target.$name.log"
  cmake --build "$root/build-$target/$name" -j"$JOBS" >>"$root/build-$target.$name.log"
  cmake --install "$root/build-$target/$name" >>"$root/build-$target.$name.log"
}
mkdir -p "$root/build-$target"
build_one zstd "$src/$(dir_of libzstd)/build/cmake" -DZSTD_BUILD_SHARED=OFF -DZSTD_BUILD_STATIC=ON \
  -DZSTD_BUILD_PROGRAMS=OFF -DZSTD_BUILD_TESTS=OFF -DZSTD_LEGACY_SUPPORT=OFF
build_one lz4 "$src/$(dir_of lz4)/build/cmake" -DBUILD_STATIC_LIBS=ON -DLZ4_BUILD_CLI=OFF \
  -DLZ4_BUILD_LEGACY_LZ4C=OFF -DLZ4_POSITION_INDEPENDENT_LIB=ON
build_one xxhash "$src/$(dir_of xxhash)/cmake_unofficial" -DXXHASH_BUILD_XXHSUM=OFF
build_one simdjson "$src/$(dir_of simdjson)" -DSIMDJSON_DEVELOPER_MODE=OFF
if [ -n "$(dir_of googletest)" ]; then
  # GoogleTest and GoogleMock, for a cross target's test suite (never linked into what ships).
  build_one googletest "$src/$(dir_of googletest)" -DINSTALL_GTEST=ON -DBUILD_GMOCK=ON
fi
echo "$versions" >"$prefix/stamp"
echo "deps.sh: $target in $prefix"
