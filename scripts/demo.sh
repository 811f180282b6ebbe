#!/usr/bin/env bash
# The drydb demo on real data: builds the drydb tool, makes a database of every Unicode character
# from Debian's unicode-data (/usr/share/unicode/UnicodeData.txt) with `drydb build`, and runs a
# scripted session on it. Installs missing Debian packages first (the list is in scripts/test.sh).
#
#   scripts/demo.sh            build, then the session
#
# The database stays in build/demo/unicode.drydb; the last lines say how to open it yourself.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD

bash scripts/test.sh --install-deps

# Same build folder as scripts/test.sh's Release stage, so neither rebuilds the other's work.
cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=g++ \
  -DDRYDB_BUILD_CLI=ON >/dev/null
cmake --build build/release -j2 --target drydb_cli
drydb=build/release/tools/drydb/drydb

mkdir -p build/demo
db=build/demo/unicode.drydb
data=/usr/share/unicode/UnicodeData.txt
echo
echo "== drydb build: $data -> $db"
# UnicodeData.txt: 15 fields separated by ';', no header line (field names from UAX #44).
#  chars  code point (hex in the file) -> the record as MessagePack, empty fields left out;
#         a non-unique index on the general category, and a unique index on the name that
#         leaves out the pseudo-names in angle brackets (<control>, <CJK Ideograph, First>...),
#         which repeat; real character names are unique (Unicode's name stability policy).
#  names  name -> code point (for prefix search), the same pseudo-names left out.
set -x
"$drydb" build "$db" --input "$data" --format csv --delimiter ';' \
  --columns code,name,category,combining,bidi,decomposition,decimal,digit,numeric,mirrored,unicode1_name,iso_comment,uppercase,lowercase,titlecase \
  --compress zstd \
  --table chars --key code --key-encoding int64 --key-radix 16 --omit-empty \
  --index category=category --index 'name=name,unique,skip=<*>' \
  --table names --key name --skip-key '<*>' --value code
{ set +x; } 2>/dev/null

echo
echo "== a scripted session: $drydb shell $db --echo"
"$drydb" shell "$db" --echo <<'EOF'
tables
get 65
get 0x1F600
range 0x41 0x45
range * 0x10FFFF --desc --limit 3
count 0x370 0x3FF
index category count Lu
index category all Sc 4
index category range Zl Zs --limit 4
index name get "SNOWMAN"
index name prefix "GREEK SMALL LETTER ALPHA WITH" 3
use names
prefix "LATIN SMALL LETTER A WITH" 4
get "PILE OF POO"
count
use chars
stats
EOF

echo
echo "Open the session yourself (help lists the commands; history is kept between sessions):"
echo "  $repo/$drydb $repo/$db"
