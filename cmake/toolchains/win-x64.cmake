# Cross-building drydb for 64-bit Windows with Debian's MinGW-w64 (g++-mingw-w64-x86-64-posix):
#   cmake -S . -B build/win-x64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/win-x64.cmake \
#         -DCMAKE_FIND_ROOT_PATH=$PWD/build/deps/win-x64
# The -posix compilers: their thread model is POSIX threads (winpthreads), which std::thread,
# std::mutex and std::condition_variable need in g++ 12; the -win32 ones lack them.
# CMAKE_FIND_ROOT_PATH names where the Windows builds of the dependencies are (scripts/deps.sh
# win-x64); nothing is taken from the host's /usr.
# Every binary links libgcc, libstdc++ and winpthreads statically (-static): drydb_c.dll then
# imports only Windows' own DLLs, and a test runs under wine without MinGW's DLLs beside it.
# Programs run through scripts/wine_run.sh (CMAKE_CROSSCOMPILING_EMULATOR), so ctest and
# gtest_discover_tests run the .exe files under wine64, in a wine prefix inside the build folder.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR AMD64)

set(DRYDB_MINGW x86_64-w64-mingw32)
set(CMAKE_C_COMPILER ${DRYDB_MINGW}-gcc-posix)
set(CMAKE_CXX_COMPILER ${DRYDB_MINGW}-g++-posix)
set(CMAKE_RC_COMPILER ${DRYDB_MINGW}-windres)

# The dependencies' prefix, from the command line, then MinGW's own; headers, libraries and
# CMake packages only from there, programs only from the host.
list(APPEND CMAKE_FIND_ROOT_PATH /usr/${DRYDB_MINGW})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

set(CMAKE_EXE_LINKER_FLAGS_INIT -static)
set(CMAKE_SHARED_LINKER_FLAGS_INIT -static)
set(CMAKE_MODULE_LINKER_FLAGS_INIT -static)

get_filename_component(DRYDB_SOURCE_ROOT "${CMAKE_CURRENT_LIST_DIR}/../.." ABSOLUTE)
set(CMAKE_CROSSCOMPILING_EMULATOR "${DRYDB_SOURCE_ROOT}/scripts/wine_run.sh")
