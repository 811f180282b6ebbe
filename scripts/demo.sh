#!/usr/bin/env bash
# Build and run examples/quickstart.cpp: build a small database, open it, query it.
# Installs missing Debian packages first (the list lives in scripts/test.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

bash scripts/test.sh --install-deps

# Same build folder as scripts/test.sh's Release stage, so neither rebuilds the other's work.
cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=g++ \
  -DDRYDB_BUILD_EXAMPLES=ON
cmake --build build/release -j2 --target quickstart

# Run in a scratch folder: the example writes its database into the current directory.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
"$repo/build/release/examples/quickstart"
