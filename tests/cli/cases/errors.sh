# Bad input: missing, foreign, truncated and corrupt files; unknown tables and indexes; keys that
# do not parse; bad flags: every one exits 2 (`get` of an absent key exits 1: query.sh). Errors go
# to stderr, never stdout.
run drydb build items.drydb -i "$DATA/items.jsonl" -q --table items --key id --index kind=kind \
  --table prices --key price --key-encoding int64 --value id
expect_status 0

# Files.
run drydb get nope.drydb k
expect_status 2
expect_no_stdout
expect_stderr <<'EOF'
drydb: cannot open 'nope.drydb': No such file or directory
EOF
mkdir folder
run drydb tables folder
expect_status 2
expect_stderr_has "drydb: cannot open 'folder': it is a directory"
echo "hello, world" > text.drydb
run drydb info text.drydb
expect_status 2
expect_stderr_has "not a drydb file"
head -c 5000 items.drydb > trunc.drydb
run drydb scan trunc.drydb
expect_status 2
expect_no_stdout
expect_stderr_has "the header records"
run drydb nope.drydb < /dev/null
expect_status 2
expect_stderr_has "cannot open 'nope.drydb'"
# A damaged leaf: reads of it fail with the page; the catalog's count still answers.
cp items.drydb bad.drydb
printf '\x55' | dd of=bad.drydb bs=1 seek=$((4096 + 100)) conv=notrunc 2>/dev/null
run drydb get bad.drydb apple
expect_status 2
expect_no_stdout
expect_stderr <<'EOF'
drydb: table 'items', page 1: checksum mismatch
EOF
run drydb scan bad.drydb
expect_status 2
expect_stderr_has "page 1: checksum mismatch"
run drydb stats bad.drydb
expect_status 2
expect_stderr_has "table 'items', page 1: checksum mismatch"
run drydb bad.drydb < <(printf 'get apple\ncount\n')
expect_status 2
expect_stdout <<'EOF'
(integer) 7
EOF
expect_stderr <<'EOF'
Error: table 'items', page 1: checksum mismatch
EOF

# Tables, indexes and keys.
run drydb get items.drydb -t nope a
expect_status 2
expect_stderr <<'EOF'
drydb: no table 'nope' (tables: items, prices)
EOF
run drydb items.drydb -t nope < /dev/null
expect_status 2
expect_stderr_has "no table 'nope' (tables: items, prices)"
run drydb count items.drydb -x nope
expect_status 2
expect_stderr <<'EOF'
drydb: table 'items' has no index 'nope' (indexes: kind)
EOF
run drydb get items.drydb -t prices abc
expect_status 2
expect_stderr <<'EOF'
drydb: 'abc' is not an int64 key (a decimal integer, or hex with 0x)
EOF
run drydb range items.drydb -t prices 1 99999999999999999999
expect_status 2
expect_stderr_has "'99999999999999999999' is not an int64 key"
run drydb get items.drydb 'bad\escape'
expect_status 2
expect_stderr_has "bad bytes key"
run drydb get items.drydb --hex 6g
expect_status 2
expect_stderr_has "'6g' is not hex digits"
run drydb prefix items.drydb -x nope a
expect_status 2

# Usage: exit status 2 and a pointer to --help.
run drydb
expect_status 2
expect_stderr_has "A subcommand is required"
run drydb get items.drydb
expect_status 2
expect_stderr_has "key is required"
run drydb scan items.drydb --bogus
expect_status 2
expect_stderr_has "The following argument was not expected: --bogus"
expect_stderr_has "Run 'drydb --help'"
run drydb scan items.drydb --limit many
expect_status 2
expect_stderr_has "drydb: --limit: expected a non-negative integer, not 'many'"
run drydb scan items.drydb --format xml
expect_status 2
run drydb range items.drydb a
expect_status 2
run drydb count items.drydb a b c
expect_status 2
run drydb info items.drydb --format csv
expect_status 2
run drydb --help
expect_status 0
expect_stdout_has "Subcommands:"
run drydb --version
expect_status 0
expect_stdout_has "drydb 0."
run drydb build --help
expect_status 0
expect_stdout_has "--index"

# A mistyped command is named as one, with the closest; negative counts are bad usage.
run drydb sacn items.drydb
expect_status 2
expect_no_stdout
expect_stderr_has "unknown command 'sacn'; did you mean 'scan'?"
run drydb scna items.drydb
expect_stderr_has "did you mean 'scan'?"
run drydb scan items.drydb -n -1
expect_status 2
expect_no_stdout
expect_stderr_has "drydb: --limit: expected a non-negative integer, not '-1'"
run drydb scan items.drydb --offset -1
expect_status 2
expect_no_stdout
expect_stderr_has "drydb: --offset: expected a non-negative integer, not '-1'"
run drydb scan items.drydb --offset 1e3
expect_status 2
expect_stderr_has "drydb: --offset: expected a non-negative integer, not '1e3'"
run drydb build x.drydb -i "$DATA/items.jsonl" -k id --memory -1
expect_status 2
expect_stderr_has "drydb: --memory: expected a non-negative integer, not '-1'"
run drydb build x.drydb -i "$DATA/items.jsonl" -k id --progress-every -0.5
expect_status 2
expect_stderr_has "drydb: --progress-every: expected a non-negative number, not '-0.5'"
# A table or index declared twice is bad usage alike.
run drydb build x.drydb -i "$DATA/items.jsonl" -k id --index kind=kind --index kind=color
expect_status 2
expect_stderr_has "table 'data', index 'kind' is declared twice"
run drydb build x.drydb -i "$DATA/items.jsonl" -t a -k id -t a -k id
expect_status 2
expect_stderr_has "table 'a' is declared twice"
