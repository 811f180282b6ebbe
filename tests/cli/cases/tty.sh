# The session on a terminal, through script(1): banner, prompt, libedit line editing, and the
# history kept in $XDG_STATE_HOME/drydb/history (else ~/.local/state/drydb/history), recalled by
# the next session with the up arrow.
command -v script >/dev/null || skip "script(1) is missing: the terminal session is not tested"
# script(1) runs its command through $SHELL -c; `exec` puts drydb in that shell's place. A shell
# left waiting (dash, /bin/sh on Debian) gets the terminal's Ctrl-C too and, once drydb has
# carried on and exited 0, ends itself by SIGINT: the session would seem to exit 130.
run drydb build items.drydb -i "$DATA/items.jsonl" -q --table items --key id --index kind=kind \
  --table prices --key price --key-encoding int64 --value id

session() {  # INPUT: runs a session on a pseudo-terminal, typing INPUT
  run timeout 30 script -qec "exec $DRYDB items.drydb" /dev/null < <(printf "$1")
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

# Tab completes a command, an index's name after `index` and its command after the name.
session 'cou\t\nindex ki\t co\t fruit\nquit\n'
expect_status 0
expect_stdout_has "(integer) 7"
expect_stdout_has "(integer) 4"

# Without XDG_STATE_HOME the history goes to ~/.local/state/drydb/history.
run env -u XDG_STATE_HOME timeout 30 script -qec "exec $DRYDB items.drydb" /dev/null < <(printf 'tables\nquit\n')
expect_status 0
expect_true "the fallback history file" grep -q tables "$HOME/.local/state/drydb/history"

# drydb build on a terminal draws a live bar on stderr: percentage, MB read of the total, rows/s.
seq 1 100000 | awk '{printf "{\"id\":%d,\"name\":\"row %d\"}\n", $1, $1}' > big.jsonl
run timeout 60 script -qec "exec $DRYDB build bar.drydb -i big.jsonl -k id --key-encoding int64 --progress-every 0" /dev/null
expect_status 0
expect_stdout_has "drydb build: wrote bar.drydb: 1 table, 100,000 rows"
expect_true "a bar is drawn and redrawn in place" grep -q $'\r *[0-9]*% \\[#*\\.*\\] [0-9,]* rows, .* of .* read, [0-9,]* rows/s' "$OUT"

# Ctrl-C at the prompt cancels the line being typed and prompts again; the session goes on.
# Each key is typed only once the session has shown what comes before it (read from its output,
# a bounded wait), so the line is in libedit's hands when Ctrl-C comes.
start_session() {  # COMMAND: runs COMMAND on a terminal, typed to through fd 3, read from fd 4
  rm -f keys.fifo screen.fifo
  mkfifo keys.fifo screen.fifo
  trap '' PIPE  # a session that ended early fails the waits below, not the case's shell
  timeout 60 script -qefc "$1" /dev/null < keys.fifo > screen.fifo &
  session_pid=$!
  exec 3>keys.fifo 4<screen.fifo
  screen=""
}
end_session() {  # closes the session's input, reads what is left and sets status to its exit
  exec 3>&-
  cat <&4 >/dev/null
  exec 4<&-
  wait "$session_pid"
  status=$?
  trap - PIPE
}
start_session "exec $DRYDB items.drydb"
wait_for() {  # TEXT: reads the session's output until TEXT has appeared (since the last call)
  local c seen=""
  while IFS= read -r -d '' -n1 -t 30 c <&4; do
    seen+=$c
    [[ $seen == *"$1"* ]] && break
  done
  screen+=$seen
  checks=$((checks + 1))
  [[ $seen == *"$1"* ]] || { last="wait for '$1'"; failed "the session did not show it: $seen"; }
}
prompt="items.drydb(items)> "
goes_on_after_ctrl_c() {  # the session prompts again, answers a count, quits; sets status
  wait_for "$prompt"
  printf 'count\n' >&3
  wait_for "(integer) 7"
  printf 'quit\n' >&3
  wait_for "Bye!"
  end_session
}
wait_for "$prompt"
printf 'get app' >&3
wait_for "get app"
printf '\003' >&3
goes_on_after_ctrl_c
last="a session given Ctrl-C at its prompt"
expect_status 0
# `get app` would print (nil) (or an error): neither appears.
expect_true "the cancelled line did not run" test "${screen//Error/}" = "$screen"
expect_true "the cancelled line printed nothing" test "${screen//(nil)/}" = "$screen"
expect_true "the cancelled line is not in the history" test "$(grep -c app "$history")" = 0
expect_true "the history ends with the lines that ran" \
  test "$(tail -n 2 "$history" | tr '\n' ' ')" = "count quit "

# Ctrl-C while a command runs stops that command ("Error: interrupted") and prompts again; the
# session goes on. The command waits at its first row (DRYDB_TEST_PAUSE,
# tools/drydb/test_pause.h) until the terminal's Ctrl-C reaches it: no timing.
start_session "exec env DRYDB_TEST_PAUSE=session:row $DRYDB items.drydb"
wait_for "$prompt"
printf 'scan\n' >&3
wait_for "drydb: test pause at session:row"
printf '\003' >&3
wait_for "Error: interrupted"
goes_on_after_ctrl_c
last="a session given Ctrl-C while a command runs"
expect_status 0
expect_true "the scan printed its first row" grep -q '1) ' <<<"$screen"
expect_true "and stopped there" test "${screen//2) /}" = "$screen"
