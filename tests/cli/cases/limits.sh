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

# SIGTERM inside a long line: the build stops (at the read it interrupts, or at its next read,
# which looks for the signal first) and writes nothing. The line comes from a FIFO this case
# writes to: 4 MiB without a line break, a write that returns only once the build has read all
# but what the pipe buffers (64 KiB), so the signal surely comes inside the line; the FIFO stays
# open, so the line never ends on its own.
mkfifo endless.fifo
"$DRYDB" build endless.drydb -i endless.fifo -k id -q 2>endless.err &
pid=$!
exec 5>endless.fifo
head -c $((4 * 1024 * 1024)) /dev/zero >&5
last="build from a FIFO, SIGTERM inside its first line"
expect_sigterm_stops_build endless.drydb endless.err
exec 5>&-
