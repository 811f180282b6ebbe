#!/usr/bin/env bash
# Runs COMMAND with the system's copies of the libraries drydb's shipped binaries carry inside
# (zstd, lz4, xxHash, simdjson) hidden: in a mount namespace of its own, an empty file is bound
# over each, so a binary that still loads one of them dynamically fails ("file too short").
# scripts/shipped.sh and scripts/dotnet.sh run the shipped binaries' tests this way.
#
#   scripts/hide_system_libs.sh COMMAND [ARG...]
#
# The namespace is root's, or else an unprivileged user namespace's. Exits 1 if the hiding does
# not take (Debian's libzstd still loads), else with COMMAND's status.
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: $0 COMMAND [ARG...]" >&2; exit 2; }

hidden=()
for soname in libzstd.so.1 liblz4.so.1 libxxhash.so.0 libsimdjson.so.14; do
  for dir in /usr/lib/x86_64-linux-gnu /lib/x86_64-linux-gnu /usr/lib/aarch64-linux-gnu; do
    [ -e "$dir/$soname" ] && hidden+=("$(readlink -f "$dir/$soname")")
  done
done
empty=$(mktemp)
trap 'rm -f "$empty"' EXIT
namespace=(unshare --mount)
[ "$(id -u)" -eq 0 ] || namespace=(unshare --user --map-root-user --mount)

"${namespace[@]}" -- bash -c '
  set -e
  empty=$1; shift; count=$1; shift
  for ((i = 0; i < count; i++)); do mount --bind "$empty" "$1"; shift; done
  # The hiding must take: Debian'"'"'s libzstd no longer loads.
  if [ "$count" -gt 0 ] &&
      /usr/bin/python3 -c "import ctypes; ctypes.CDLL(\"libzstd.so.1\")" 2>/dev/null; then
    echo "hide_system_libs.sh: hiding the system'"'"'s libzstd did not take" >&2
    exit 1
  fi
  exec "$@"' _ "$empty" "${#hidden[@]}" "${hidden[@]}" "$@"
