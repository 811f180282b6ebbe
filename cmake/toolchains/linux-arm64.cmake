# Cross-compiling drydb for Linux on 64-bit Arm (aarch64) from a Debian machine of another
# architecture, with Debian's cross toolchain (g++-aarch64-linux-gnu, its C library in
# /usr/aarch64-linux-gnu) and qemu-user to run what it builds:
#
#   cmake -S . -B build/arm64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/linux-arm64.cmake \
#         -DCMAKE_FIND_ROOT_PATH=$PWD/build/deps/linux-arm64 \
#         -DCMAKE_PREFIX_PATH=$PWD/build/deps/linux-arm64
#
# scripts/deps.sh linux-arm64 builds the dependencies (zstd, lz4, xxHash, simdjson, GoogleTest)
# for this target into build/deps/linux-arm64; scripts/shipped.sh linux-arm64 builds and tests
# with this file. Libraries, headers and CMake packages are looked up only under the target's
# roots (the cross C library's and those given in CMAKE_FIND_ROOT_PATH), never in the build
# machine's /usr, whose x86-64 libraries would not link; programs (the build's own tools) only
# on the build machine.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

list(APPEND CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# Test programs run under qemu-user: ctest's tests and gtest_discover_tests' listing alike.
# -L points its loader and shared libraries at the cross C library's.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64;-L;/usr/aarch64-linux-gnu)
