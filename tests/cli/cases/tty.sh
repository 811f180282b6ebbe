# The session on a terminal, through script(1): banner, prompt, libedit line editing, and the
# history kept in $XDG_STATE_HOME/drydb/history (else ~/.local/state/drydb/history), recalled by
# the next session with the up arrow.
if ! command -v script >/dev/null; then
  echo "script(1) is missing: the terminal session is not tested"
  return 0
fi
run drydb build items.drydb -i "$DATA/items.jsonl" -q --table items --key id \
  --table prices --key price --key-encoding int64 --value id

session() {  # INPUT: runs a session on a pseudo-terminal, typing INPUT
  run timeout 30 script -qec "$DRYDB items.drydb" /dev/null < <(printf "$1")
}

session 'count\nuse prices\nget 120\nquit\n'
expect_status 0
expect_stdout_has "Connected to items.drydb"
expect_stdout_has "Table: items | Type 'help' for commands"
expect_stdout_has "items.drydb(items)> "
expect_stdout_has "(integer) 7"
expect_stdout_has "items.drydb(prices)> "
expect_stdout_has "apple"
expect_stdout_has "Bye!"
history="$XDG_STATE_HOME/drydb/history"
expect_true "the history file is written" test -f "$history"
expect_true "the history file is private" test "$(stat -c %a "$history")" = 600
expect_true "the history holds the commands" grep -q 'get.040120' "$history"

# Up three times: "use prices" again.
session '\033[A\033[A\033[A\nquit\n'
expect_status 0
expect_stdout_has "Switched to table: prices"

# Without XDG_STATE_HOME the history goes to ~/.local/state/drydb/history.
run env -u XDG_STATE_HOME timeout 30 script -qec "$DRYDB items.drydb" /dev/null < <(printf 'tables\nquit\n')
expect_status 0
expect_true "the fallback history file" grep -q tables "$HOME/.local/state/drydb/history"

# drydb build on a terminal draws a live bar on stderr: percentage, MB read of the total, rows/s.
seq 1 100000 | awk '{printf "{\"id\":%d,\"name\":\"row %d\"}\n", $1, $1}' > big.jsonl
run timeout 60 script -qec "$DRYDB build bar.drydb -i big.jsonl -k id --key-encoding int64 --progress-every 0" /dev/null
expect_status 0
expect_stdout_has "drydb build: wrote bar.drydb: 1 table, 100,000 rows"
expect_true "a bar is drawn and redrawn in place" grep -q $'\r *[0-9]*% \\[#*\\.*\\] [0-9,]* rows, .* of .* read, [0-9,]* rows/s' "$OUT"
