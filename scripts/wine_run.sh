#!/usr/bin/env bash
# Run a Windows program under wine64, for ctest (CMAKE_CROSSCOMPILING_EMULATOR of
# cmake/toolchains/win-x64.cmake) and by hand:
#   scripts/wine_run.sh PROGRAM.exe [ARGS...]
# Debian's wine64 keeps its loader in /usr/lib/wine, off PATH. The wine prefix is $WINEPREFIX,
# else build/wine (created on first use; scripts/cross_test.sh creates it before running tests in
# parallel). A program finds the DLLs beside it (a Windows build puts drydb_c.dll with the tests).
# Wine's own messages are off (WINEDEBUG=-all) and it does not offer to install Mono or Gecko.
# The program's standard output loses the carriage returns of Windows' text mode, so that what
# reads it (gtest_discover_tests' list of tests) sees Unix lines. The exit status is the program's.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export WINEPREFIX=${WINEPREFIX:-$root/build/wine}
export WINEDEBUG=${WINEDEBUG:--all}
export WINEDLLOVERRIDES=${WINEDLLOVERRIDES:-mscoree,mshtml=}
wine=/usr/lib/wine/wine64
[ -x "$wine" ] || wine=$(command -v wine64 || command -v wine)
"$wine" "$@" | tr -d '\r'
