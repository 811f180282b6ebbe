#!/usr/bin/env bash
# Build, test and pack drydb's .NET package (dotnet/), then build and run a program outside the
# repository that references the packed .nupkg alone (a local package source).
#
#   scripts/dotnet.sh [BUILD [NATIVE]]
#       BUILD: the CMake build holding the drydb tool and the Python package, which the
#       cross-language tests run (default build/release, as scripts/test.sh leaves it);
#       NATIVE: the folder of the libdrydb_c.so the tests load and the package carries (default
#       BUILD; scripts/test.sh gives the self-contained one, build/shipped/linux-x64, and the
#       program outside the repository then runs with the system's copies of its dependencies
#       hidden: scripts/hide_system_libs.sh)
#
# The package also carries the native libraries of the other platforms when their folders are
# given (scripts/shipped.sh cross-builds them; scripts/test.sh gives both):
#   DRYDB_NATIVE_WIN_X64=FOLDER       drydb_c.dll, packed as runtimes/win-x64/native/
#   DRYDB_NATIVE_LINUX_ARM64=FOLDER   libdrydb_c.so, packed as runtimes/linux-arm64/native/
#
# The tests run on .NET 10 (the net10.0 build) and on .NET 8 (the netstandard2.1 build, Unity's,
# self-contained on the .NET 8 runtime restored from NuGet). The package lands in
# build/dotnet/packages.
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(cd "${1:-build/release}" && pwd)
native=$(cd "${2:-$build}" && pwd)
if ! command -v dotnet >/dev/null; then
  echo "dotnet.sh: the .NET SDK (dotnet, 8 or later) is required" >&2
  exit 2
fi
export DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_SKIP_FIRST_TIME_EXPERIENCE=1
out=$PWD/build/dotnet
rm -rf "$out"
mkdir -p "$out"
version=$(sed -n 's:.*<Version>\(.*\)</Version>.*:\1:p' dotnet/src/Drydb/Drydb.csproj)

# The tests: the cross-language ones run this build's tool and Python package.
DRYDB_CLI=$build/tools/drydb/drydb DRYDB_PYTHONPATH=$build/python/package \
  dotnet test dotnet/tests/Drydb.Tests -c Release "-p:DrydbNativeDir=$native/"

runtimes=()
want_runtimes=""
if [ -n "${DRYDB_NATIVE_WIN_X64:-}" ]; then
  runtimes+=("-p:DrydbNativeWinX64Dir=$(cd "$DRYDB_NATIVE_WIN_X64" && pwd)/")
  want_runtimes+=" runtimes/win-x64/native/drydb_c.dll"
fi
if [ -n "${DRYDB_NATIVE_LINUX_ARM64:-}" ]; then
  runtimes+=("-p:DrydbNativeLinuxArm64Dir=$(cd "$DRYDB_NATIVE_LINUX_ARM64" && pwd)/")
  want_runtimes+=" runtimes/linux-arm64/native/libdrydb_c.so"
fi
for project in Drydb Drydb.MessagePack; do
  dotnet pack "dotnet/src/$project" -c Release "-p:DrydbNativeDir=$native/" "${runtimes[@]}" \
    -o "$out/packages"
done
nupkg=$out/packages/Drydb.$version.nupkg
/usr/bin/python3 - "$nupkg" $want_runtimes <<'PY'
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
want = ["runtimes/linux-x64/native/libdrydb_c.so", "lib/net8.0/Drydb.dll", "lib/net10.0/Drydb.dll",
        "lib/netstandard2.1/Drydb.dll"] + sys.argv[2:]
missing = [n for n in want if n not in names]
if missing:
    sys.exit(f"dotnet.sh: {sys.argv[1]} lacks {missing}")
PY
test -f "$out/packages/Drydb.MessagePack.$version.nupkg"

# A program outside the repository, restored from the package folder alone (and a package cache
# of its own, so that no earlier Drydb package of the same version is taken).
consumer=$(mktemp -d)
trap 'rm -rf "$consumer"' EXIT
cp dotnet/examples/Consumer/Program.cs dotnet/examples/Consumer/Consumer.csproj "$consumer/"
cat >"$consumer/nuget.config" <<XML
<?xml version="1.0" encoding="utf-8"?>
<configuration>
  <packageSources>
    <clear />
    <add key="drydb" value="$out/packages" />
  </packageSources>
</configuration>
XML
printf 'k1\tone\nk2\ttwo\n' >"$out/tool.tsv"
"$build/tools/drydb/drydb" build "$out/tool.drydb" -i "$out/tool.tsv" --columns key,value -k key \
  -v value -q
(cd "$consumer" && dotnet build -c Release -o "$consumer/bin" "-p:DrydbVersion=$version" \
  "-p:RestorePackagesPath=$consumer/packages")
run=(dotnet "$consumer/bin/Consumer.dll" "$out/tool.drydb")
if [ "$native" != "$build" ]; then
  bash scripts/hide_system_libs.sh "${run[@]}"
else
  "${run[@]}"
fi
