# Device files: a read command refuses a device at once (timeout turns a hang into status 124),
# a build never replaces one (directly or through a symlink), and writes to /dev/full (a device
# that is always full) fail with exit 2 and the system's message.
for dev in /dev/null /dev/zero /dev/full; do
  [ -c "$dev" ] || skip "$dev is not a character device here"
done
run drydb build items.drydb -i "$DATA/items.jsonl" -q --table items --key id
expect_status 0

for dev in /dev/null /dev/zero; do
  for cmd in verify info scan dump; do
    run timeout 10 "$DRYDB" $cmd $dev
    expect_status 2
    expect_stderr <<ERR
drydb: '$dev' is not a regular file
ERR
  done
done

# build refuses a device as its target, and through a link to one; both stay as they were.
ln -s /dev/null null.link
for target in /dev/null /dev/full null.link; do
  run drydb build $target -i "$DATA/items.jsonl" -q --table items --key id
  expect_status 2
  expect_stderr_has "drydb: $target not written: "
  expect_stderr_has "is not a regular file: a database replaces only a regular file"
done
expect_true "/dev/null is still a character device" test -c /dev/null
expect_true "/dev/full is still a character device" test -c /dev/full
expect_true "the link is still a link to /dev/null" test "$(readlink null.link)" = /dev/null

# Output to a full device, through -o and through stdout.
run drydb dump items.drydb -o /dev/full
expect_status 2
expect_stderr <<'ERR'
drydb: cannot write '/dev/full': No space left on device
ERR
for cmd in dump scan; do
  run sh -c 'exec "$0" "$1" items.drydb >/dev/full' "$DRYDB" $cmd
  expect_status 2
  expect_stderr <<'ERR'
drydb: cannot write the output: No space left on device
ERR
done
# A dump whose last line (the end record, which names every table twice) is longer than stdio's
# buffer: the write that fails is that line's, which leaves nothing to flush at the end. The
# dump still fails, with the system's message (it used to succeed on a device written in place).
tables=()
for i in $(seq 1 12); do tables+=(--table "t$(printf '%0250d' "$i")" --key id); done
run drydb build wide.drydb -i "$DATA/items.jsonl" -q "${tables[@]}"
expect_status 0
run drydb dump wide.drydb
expect_true "the end record is longer than a 4 KiB buffer" test "$(tail -n 1 "$OUT" | wc -c)" -gt 4096
run drydb dump wide.drydb -o /dev/full
expect_status 2
expect_stderr <<'ERR'
drydb: cannot write '/dev/full': No space left on device
ERR
run sh -c 'exec "$0" dump wide.drydb -o /dev/stdout >/dev/full' "$DRYDB"
expect_status 2
expect_stderr <<'ERR'
drydb: cannot write '/dev/stdout': No space left on device
ERR
run sh -c 'exec "$0" dump wide.drydb >/dev/full' "$DRYDB"
expect_status 2
expect_stderr <<'ERR'
drydb: cannot write the output: No space left on device
ERR

# Diagnostics to a full device: a message that cannot be written is lost, but the command still
# ends as it would have (never SIGABRT, status 134), with its ordinary status: 2 for an error or
# bad usage, 1 for an absent key, 0 for a success (a build's progress lost), and 2 when stdout
# fails too.
in_full() {  # CMD...: the tool with stderr on /dev/full
  run sh -c '"$@" 2>/dev/full' in_full "$DRYDB" "$@"
}
in_full count nope.drydb
expect_status 2
in_full count items.drydb -t nope
expect_status 2
in_full count items.drydb --no-such-flag
expect_status 2
in_full countt items.drydb
expect_status 2
in_full get items.drydb no-such-key
expect_status 1
in_full count items.drydb
expect_status 0
expect_stdout <<'OUT'
7
OUT
in_full build rebuilt.drydb -i "$DATA/items.jsonl" --progress-every 0.001 --table items --key id
expect_status 0
expect_true "the build wrote its file" test -s rebuilt.drydb
in_full build rebuilt.drydb -i /dev/null/nope --table items --key id
expect_status 2
echo 'get apple' >script.txt
in_full items.drydb -t nope <script.txt
expect_status 2
printf 'no-such-command\ncount\n' >script.txt
in_full items.drydb <script.txt
expect_status 2
expect_stdout <<'OUT'
(integer) 7
OUT
for cmd in scan dump verify; do
  run sh -c '"$0" "$1" items.drydb >/dev/full 2>/dev/full' "$DRYDB" $cmd
  expect_status 2
done
run sh -c '"$0" count nope.drydb >/dev/full 2>/dev/full' "$DRYDB"
expect_status 2
