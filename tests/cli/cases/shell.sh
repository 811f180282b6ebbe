# The interactive session driven through stdin: every command, the prompt following `use`, and
# errors (on stderr; a script with a failed command exits 2).
run drydb build items.drydb -i "$DATA/items.jsonl" -q \
  --table items --key id --index kind=kind --index color=color --index price=price,int64,unique \
  --table prices --key price --key-encoding int64 --value id
expect_status 0

cat > session.txt <<'EOF'
get apple
get grape
GET banana
scan
scan 2 2
keys 5
values 0 1
prefix c
prefix "ch" 1
prefix nothing
count
count a c
range b d
range * b --desc
range "banana" "cherry" --exclusive-start --limit 1
tables
indexes
index kind count fruit
index kind all vegetable 2
index price range 100 * --desc --limit 2
index price get -5
index price get 7
index color prefix r
index color scan 1 2
index
use prices
get 120
get --hex 78
range 50 150 --exclusive-end
count 0 100
prefix 1
use nothing
info
stats
frobnicate
get
scan x
range a
index kind frob
get "unterminated
q
get never-run
EOF

run drydb items.drydb < session.txt
expect_status 2
# info and stats print the file's size and its catalog's (what follows the 6 pages of 4,096
# bytes), digits grouped by three.
size=$(stat -c %s items.drydb)
group() { sed ':a;s/\B[0-9]\{3\}\>/,&/;ta' <<<"$1"; }
expect_stdout < <(sed -e "s/@SIZE@/$(group "$size")/" -e "s/@CATALOG@/$((size - 6 * 4096))/" <<'EOF'
{"id":"apple","price":120,"color":"red","kind":"fruit","tags":["sweet","crisp"]}
(nil)
{"id":"banana","price":80,"color":"yellow","kind":"fruit"}
1) apple -> {"id":"apple","price":120,"color":"red","kind":"fruit","t...
2) banana -> {"id":"banana","price":80,"color":"yellow","kind":"fruit"}
3) carrot -> {"id":"carrot","price":60,"color":"orange","kind":"vegeta...
4) cherry -> {"id":"cherry","price":300,"color":"red","kind":"fruit"}
5) daikon -> {"id":"daikon","price":150,"color":"white","kind":"vegeta...
6) eggplant -> {"id":"eggplant","price":200,"color":"purple","kind":"veg...
7) fig -> {"id":"fig","price":-5,"color":"","kind":"fruit"}
Displayed 7 entries of 7 (offset: 0)
3) carrot -> {"id":"carrot","price":60,"color":"orange","kind":"vegeta...
4) cherry -> {"id":"cherry","price":300,"color":"red","kind":"fruit"}
Displayed 2 entries of 7 (offset: 2)
6) eggplant
7) fig
Displayed 2 keys of 7 (offset: 5)
1) {"id":"apple","price":120,"color":"red","kind":"fruit","tags":["sweet","crisp"]}
Displayed 1 values of 7 (offset: 0)
1) carrot -> {"id":"carrot","price":60,"color":"orange","kind":"vegeta...
2) cherry -> {"id":"cherry","price":300,"color":"red","kind":"fruit"}
Displayed 2 of 2 entries with prefix 'c'
1) cherry -> {"id":"cherry","price":300,"color":"red","kind":"fruit"}
Displayed 1 of 1 entries with prefix 'ch'
(empty)
(integer) 7
(integer) 2
1) banana -> {"id":"banana","price":80,"color":"yellow","kind":"fruit"}
2) carrot -> {"id":"carrot","price":60,"color":"orange","kind":"vegeta...
3) cherry -> {"id":"cherry","price":300,"color":"red","kind":"fruit"}
Displayed 3 of 3 entries
1) apple -> {"id":"apple","price":120,"color":"red","kind":"fruit","t...
Displayed 1 of 1 entries
1) carrot -> {"id":"carrot","price":60,"color":"orange","kind":"vegeta...
Displayed 1 of 2 entries
#  table   key encoding  rows  indexes
1  items   bytes         7     kind, color, price (unique)
2  prices  int64         7     -
index  key encoding  unique  entries
kind   bytes         no      7
color  bytes         no      6
price  int64         yes     7
(integer) 4
1) vegetable | carrot -> {"id":"carrot","price":60,"color":"orange","kind":"vegeta...
2) vegetable | daikon -> {"id":"daikon","price":150,"color":"white","kind":"vegeta...
Displayed 2 of 3 entries
1) 300 | cherry -> {"id":"cherry","price":300,"color":"red","kind":"fruit"}
2) 200 | eggplant -> {"id":"eggplant","price":200,"color":"purple","kind":"veg...
Displayed 2 of 4 entries
key: fig
{"id":"fig","price":-5,"color":"","kind":"fruit"}
(nil)
1) red | apple -> {"id":"apple","price":120,"color":"red","kind":"fruit","t...
2) red | cherry -> {"id":"cherry","price":300,"color":"red","kind":"fruit"}
Displayed 2 of 2 entries with prefix 'r'
2) purple | eggplant -> {"id":"eggplant","price":200,"color":"purple","kind":"veg...
3) red | apple -> {"id":"apple","price":120,"color":"red","kind":"fruit","t...
Displayed 2 entries of 6 (offset: 1)
index  key encoding  unique  entries
kind   bytes         no      7
color  bytes         no      6
price  int64         yes     7
Switched to table: prices
apple
6170706c65
1) 60 -> carrot
2) 80 -> banana
3) 120 -> apple
Displayed 3 of 3 entries
(integer) 2
file           items.drydb
size           @SIZE@ bytes
format         2.5
page size      4,096 bytes
pages          6
filters        none
tables         2
current table  prices
key encoding   int64
rows           7
indexes        none
file items.drydb: @SIZE@ bytes, format 2.5, page size 4,096
  pages        6 (page 0 is the header), catalog @CATALOG@ bytes
  compression  none (pages stored as they are; ratio 1.00)

table prices: 7 rows, int64 keys (longest 8 bytes)
  depth        1
  pages        1 = 1 leaf + 0 internal + 0 overflow
  per level    level 0 (root): 1
  fill         leaves 3.5%, internal -
  overflow     0 pages in 0 runs
  stored       4,096 bytes
EOF
)
expect_stderr <<'EOF'
Error: prefix needs byte keys; table 'prices' has int64 keys (use range)
Error: no table 'nothing' (tables: items, prices)
Unknown command: frobnicate
Type 'help' for available commands.
Error: get: key is required (see 'help get')
Error: scan: offset: expected a non-negative integer, not 'x' (see 'help scan')
Error: range: end is required (see 'help range')
Error: unknown index command 'frob': use get, scan, range, prefix, count or all
Error: unterminated quote
EOF

# --echo shows each command after its prompt; the prompt names the table and follows `use`.
run drydb shell items.drydb --echo --table prices < <(printf 'count\nuse items\ncount\nexit\n')
expect_status 0
expect_stdout <<'EOF'
items.drydb(prices)> count
(integer) 7
items.drydb(prices)> use items
Switched to table: items
items.drydb(items)> count
(integer) 7
items.drydb(items)> exit
EOF

# A key that is not there is an answer, not a failure: the script exits 0.
run drydb items.drydb < <(printf 'get nope\n')
expect_status 0
expect_stdout <<'EOF'
(nil)
EOF

# Keys with spaces, quotes and escapes; "*" quoted is a key, * bare an open end.
printf '{"k":"a b","v":"1"}\n{"k":"*","v":"2"}\n{"k":"q\\"x","v":"3"}\n{"k":"t\\tab","v":"4"}\n{"k":"z\\\\","v":"5"}\n' > odd.jsonl
run drydb build odd.drydb -i odd.jsonl -k k -v v -q
expect_status 0
run drydb odd.drydb < <(printf '%s\n' 'get "a b"' 'get a\ b' 'get "*"' 'range * "*"' 'get q\"x' "get 'q\"x'" 'get t\x09ab' 'get "z\\"' 'get z\\' 'scan')
expect_status 0
expect_stdout <<'EOF'
1
1
2
1) * -> 2
Displayed 1 of 1 entries
3
3
4
5
5
1) * -> 2
2) a b -> 1
3) q"x -> 3
4) t\x09ab -> 4
5) z\\ -> 5
Displayed 5 entries of 5 (offset: 0)
EOF

# A binary value: a hex dump; a long one is cut in the session.
printf '{"k":"bin","v":"\\u0001\\u0002ABC"}\n' > bin.jsonl
run drydb build bin.drydb -i bin.jsonl -k k -v v -q
run drydb bin.drydb < <(echo 'get bin')
expect_stdout <<'EOF'
(binary, 5 bytes)
00000000  01 02 41 42 43                                    |..ABC|
EOF
run drydb get bin.drydb bin
expect_stdout <<'EOF'
(binary, 5 bytes)
00000000  01 02 41 42 43                                    |..ABC|
EOF
long_value=$(printf '\\u0001%.0s' $(seq 1 300))
printf '{"k":"long","v":"%s"}\n' "$long_value" > long.jsonl
run drydb build long.drydb -i long.jsonl -k k -v v -q
run drydb long.drydb < <(echo 'get long')
expect_stdout_has "(binary, 300 bytes)"
expect_stdout_has "000000f0  01 01 01 01 01 01 01 01  01 01 01 01 01 01 01 01  |................|"
expect_stdout_has "... (44 more bytes)"
run drydb get long.drydb long
expect_stdout_has "00000120  01 01 01 01 01 01 01 01  01 01 01 01              |............|"

# help lists the commands with their arguments, from the same CLI11 definitions the command
# line's queries use.
run drydb items.drydb < <(echo help)
expect_status 0
expect_stdout <<'EOF2'
Keys are typed in the table's (or index's) encoding: decimal for int64, UUID or ULID
text, text with \xNN escapes (and \\ for a backslash) for bytes; with --hex, keys are
typed and keys and values shown as hex digits. Quote words with spaces: get "LATIN
SMALL LETTER A"; a quoted word is never an option. In ranges, * is an open end ("*"
is the key *).

Commands:
  get <key>                             The value of a key, or (nil)
  scan [offset] [limit]                 Every row, in key order
  range <start> <end>                   Rows between two keys (* for an open end)
  prefix <prefix> [limit]               Rows whose key starts with a prefix (byte keys)
  count [start] [end]                   Rows in a table, with a key, or in a range
  keys [offset] [limit]                 Keys only, in key order
  values [offset] [limit]               Values only, in key order
  tables                                The tables of a database
  info                                  The file and the current table
  stats                                 Depth, pages, fill, overflow and compression of the table's trees
  use <table>                           Switch to another table
  indexes                               The current table's secondary indexes (also: index)
  index <name>                          Query a secondary index of the current table
  index <name> get <key>                The first row with that index key, or (nil)
  index <name> scan [offset] [limit]    Every row, in index-key order
  index <name> range <start> <end>      Rows between two index keys (* for an open end)
  index <name> prefix <prefix> [limit]  Rows whose index key starts with a prefix (byte keys)
  index <name> count [start] [end]      Entries in the index, with a key, or in a range
  index <name> all <key> [limit]        Every row with that index key
  help, ? [command...]                  The commands, or a command's options
  quit, exit, q                         Leave the session (also Ctrl-D)

'help COMMAND' (or COMMAND --help) shows a command's options.
EOF2

# Every command's help: its usage and options, the same for `help COMMAND`, `COMMAND --help` and
# any case of the name; and `?` for help.
for command in get scan range prefix count keys values tables info stats use indexes index help quit; do
  run drydb items.drydb < <(echo "help $command")
  expect_status 0
  expect_stdout_has "Usage: $command "
  expect_stdout_has "  --help "
  cp "$OUT" help.txt
  run drydb items.drydb < <(echo "${command^^} --help")
  expect_status 0
  expect_true "'${command^^} --help' is 'help $command'" cmp -s help.txt "$OUT"
done
for command in get scan range prefix count all; do
  run drydb items.drydb < <(echo "? index $command")
  expect_status 0
  expect_stdout_has "Usage: index <name> $command [OPTIONS]"
  cp "$OUT" help.txt
  run drydb items.drydb < <(echo "index kind $command --help")
  expect_true "'index kind $command --help' is 'help index $command'" cmp -s help.txt "$OUT"
done
run drydb items.drydb < <(echo 'help range')
expect_stdout <<'EOF2'
Rows between two keys (* for an open end)
Usage: range [OPTIONS] <start> <end>

Positionals:
  start TEXT REQUIRED                   The first key, included unless --exclusive-start
  end TEXT REQUIRED                     The last key, included unless --exclusive-end

Options:
  --help                                This help
  --hex                                 Keys typed, and keys and values shown, as hex digits
  --limit UINT                          Print at most this many rows (default 20)
  --offset UINT                         Skip this many rows first
  --desc                                Descending order
  --exclusive-start                     Leave out rows equal to the start
  --exclusive-end                       Leave out rows equal to the end

EOF2

# Options the command line's queries have: scan's --limit and --offset, beside its positional
# [offset] [limit] (not both). Bad options and arguments name the command and the word.
cat > options.txt <<'EOF2'
scan --limit 2 --offset 5
keys 1 1
Index kind Count fruit --exclusive-start
scan 1 --offset 2
scan --bogus
index kind range a z --nope
get a b
tables x
help nope
index kind
EOF2
run drydb items.drydb < options.txt
expect_status 2
expect_stdout <<'EOF2'
6) eggplant -> {"id":"eggplant","price":200,"color":"purple","kind":"veg...
7) fig -> {"id":"fig","price":-5,"color":"","kind":"fruit"}
Displayed 2 entries of 7 (offset: 5)
2) banana
Displayed 1 keys of 7 (offset: 1)
(integer) 0
EOF2
expect_stderr <<'EOF2'
Error: scan: --offset excludes offset (see 'help scan')
Error: scan: unknown option --bogus (see 'help scan')
Error: index range: unknown option --nope (see 'help index range')
Error: get: The following argument was not expected: b (see 'help get')
Error: tables: The following argument was not expected: x (see 'help tables')
Error: help: no command 'nope'; type 'help' for the list
Error: index kind: a command is missing: use get, scan, range, prefix, count or all
EOF2

# A quoted word is never an option, and a word of one dash never one either: keys that look
# like options.
printf '{"k":"--desc","v":"1"}\n{"k":"--help","v":"2"}\n{"k":"-x","v":"3"}\n{"k":"--","v":"4"}\n' > dashes.jsonl
run drydb build dashes.drydb -i dashes.jsonl -k k -v v -q
expect_status 0
run drydb dashes.drydb < <(printf '%s\n' 'get "--desc"' "get '--help'" 'get -x' 'get --' 'range "--" "--desc" --desc' 'count "--desc" -x' 'get 2d78 --hex' 'get --desc')
expect_status 2
expect_stdout <<'EOF2'
1
2
3
4
1) --desc -> 1
2) -- -> 4
Displayed 2 of 2 entries
(integer) 3
33
EOF2
expect_stderr <<'EOF2'
Error: get: unknown option --desc (see 'help get')
EOF2
