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
