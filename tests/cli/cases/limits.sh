# The record size limit (--max-record, 64 MiB by default): checked while a line is read, so an
# endless line fails at once, naming its line, instead of filling memory; the same for a
# session's script. SIGINT/SIGTERM stops a build inside such a line.
default_limit=$((64 * 1024 * 1024))

# An endless line: refused at the limit, nothing written.
run drydb build z.drydb -i /dev/zero -k id -q
expect_status 2
expect_stderr <<END
drydb: /dev/zero:1: a record of more than $default_limit bytes (--max-record BYTES raises the limit)
END
expect_true "nothing is written" test ! -e z.drydb

# The limit is exact, whatever the chunks: the longest line (line 3) passes at its length, not
# one byte under. The line break does not count, nor a CR before it.
printf '{"id":"a"}\n{"id":"bb"}\r\n{"id":"ccccccccccc"}\n{"id":"d"}\n' > lines.jsonl
longest=$(awk '{ if (length($0) > n) n = length($0) } END { print n }' lines.jsonl)
run drydb build ok.drydb -i lines.jsonl -k id -q --max-record "$longest"
expect_status 0
run drydb build short.drydb -i lines.jsonl -k id -q --max-record $((longest - 1))
expect_status 2
expect_stderr_has "lines.jsonl:3: a record of more than $((longest - 1)) bytes"
expect_true "nothing is written" test ! -e short.drydb
# A CSV record spans its quoted line breaks, and is named by its first line.
record='1,"a
b"'
printf 'k,v\n%s\n2,x\n' "$record" > multi.csv
run drydb build m.drydb -i multi.csv -k k -v v -q --max-record ${#record}
expect_status 0
run drydb build m.drydb -i multi.csv -k k -v v -q --max-record $((${#record} - 1))
expect_status 2
expect_stderr_has "multi.csv:2: a record of more than $((${#record} - 1)) bytes"
# From a pipe (a chunk per read), an endless line or CSV record is refused at the limit without
# searching or parsing it again from its start after each read.
run drydb build p.drydb -k id -q --max-record 1MiB < <(cat /dev/zero)
expect_status 2
expect_stderr <<END
drydb: <stdin>:1: a record of more than 1048576 bytes (--max-record BYTES raises the limit)
END
run drydb build p.drydb --format csv --columns id,v -q --max-record 1MiB < <(cat /dev/zero)
expect_status 2
expect_stderr <<END
drydb: <stdin>:1: a record of more than 1048576 bytes (--max-record BYTES raises the limit)
END
expect_true "nothing is written" test ! -e p.drydb
# Units; a limit of nothing is bad usage.
run drydb build k.drydb -i lines.jsonl -k id -q --max-record 1KiB
expect_status 0
run drydb build k.drydb -i lines.jsonl -k id -q --max-record 0
expect_status 2
expect_stderr_has "--max-record: expected a positive number of bytes, not '0'"

# A line that ends the input without a line break, when the buffer grows for the read that finds
# the end (1 MiB, the first chunk): read where it is now, not where it was.
head -c $((1024 * 1024)) /dev/zero | tr '\0' x > mib.jsonl
run drydb build mib.drydb -i mib.jsonl -k id -q
expect_status 2
expect_stderr_has "mib.jsonl:1: column 1:"

# A session's script lines have the same limit.
run drydb shell ok.drydb < /dev/zero
expect_status 2
expect_stderr_has "drydb: <stdin>:1: a record of more than $default_limit bytes"
run drydb ok.drydb --max-record 8 < <(printf 'count\nget ccccccc\n')
expect_status 2
expect_stdout <<END
(integer) 4
END
expect_stderr_has "<stdin>:2: a record of more than 8 bytes"

# SIGTERM inside an endless line from a source that never blocks (so no read is interrupted):
# the build stops at its next read and writes nothing. The signal goes once the build has
# read 4 MiB (/proc/PID/io), far inside the line, long before the 2 GiB limit.
expect_true "/proc/PID/io shows what a process read" test -r /proc/self/io
"$DRYDB" build endless.drydb -i /dev/zero -k id -q --max-record 2GiB 2>endless.err &
pid=$!
for _ in $(seq 1 3000); do
  read_bytes=$(awk '/^rchar/ { print $2 }' /proc/$pid/io 2>/dev/null)
  [ "${read_bytes:-0}" -gt $((4 * 1024 * 1024)) ] && break
  sleep 0.01
done
kill -TERM $pid
wait $pid
status=$?
last="build from /dev/zero, then SIGTERM"
expect_status 2
expect_true "the interruption is reported" grep -qx "drydb: interrupted; endless.drydb not written" endless.err
expect_true "nothing is written" test ! -e endless.drydb
