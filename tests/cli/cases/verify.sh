# drydb verify: every checksum and tree invariant; exit 1 with the page and reason at the first
# fault.
seq 1 5000 | awk '{printf "{\"id\":%d,\"v\":\"value %d\",\"g\":\"g%d\"}\n", $1, $1, $1 % 10}' > n.jsonl
run drydb build n.drydb -i n.jsonl -k id --key-encoding int64 --index g=g --page-size 512 -q
expect_status 0
run drydb verify n.drydb
expect_status 0
expect_stdout <<'EOF'
ok: n.drydb: 1 table, 1 index; every checksum and tree invariant holds
EOF
expect_true "verify writes nothing to stderr when the file is sound" test ! -s "$ERR"

# A flipped byte in a page: verify names the page.
cp n.drydb bad.drydb
printf '\xAA' | dd of=bad.drydb bs=1 seek=$((512 * 7 + 40)) conv=notrunc 2>/dev/null
run drydb verify bad.drydb
expect_status 2
expect_no_stdout
expect_stderr <<'EOF'
drydb: bad.drydb: table 'data', page 7: checksum mismatch
EOF
# A flipped byte in the header is found when the file is opened.
cp n.drydb bad.drydb
printf '\xAA' | dd of=bad.drydb bs=1 seek=30 conv=notrunc 2>/dev/null
run drydb verify bad.drydb
expect_status 2
expect_stderr_has "header checksum mismatch"
# Compressed files are checked after decoding.
run drydb build z.drydb -i n.jsonl -k id --key-encoding int64 --index g=g --compress zstd -q
run drydb verify z.drydb
expect_status 0
size=$(stat -c %s z.drydb)
cp z.drydb bad.drydb
printf '\xAA\xAA\xAA\xAA' | dd of=bad.drydb bs=1 seek=$((size / 3)) conv=notrunc 2>/dev/null
run drydb verify bad.drydb
expect_status 2
expect_stderr_has "page "
run drydb verify missing.drydb
expect_status 2
expect_stderr_has "cannot open 'missing.drydb'"
