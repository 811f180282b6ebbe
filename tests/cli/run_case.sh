#!/usr/bin/env bash
# Runs one test case of the drydb tool:  bash run_case.sh DRYDB cases/NAME.sh
#
# The case is sourced in an empty scratch folder (its current directory), with HOME and
# XDG_STATE_HOME inside it, and these helpers:
#   run CMD...           runs CMD (stdin as given to `run`), keeping its stdout, stderr, status
#   expect_status N      the last command exited with N
#   expect_stdout        its stdout equals the text on stdin (a here-document)
#   expect_stderr        its stderr equals the text on stdin
#   expect_stdout_has S  its stdout contains S;  expect_stderr_has S  its stderr contains S
#   expect_no_stdout     its stdout is empty
#   expect_true WHAT CMD...   CMD succeeds (WHAT says what is checked)
#   eventually CMD...    runs CMD until it succeeds, at most 300 times 0.1 s apart (a bounded
#                        wait, 30 s, for something the tool does); its last status
#   start_paused POINT CMD...  starts CMD in the background with DRYDB_TEST_PAUSE=POINT
#                        (tools/drydb/test_pause.h) and checks that it stops there; sets $pid
#   wait_paused POINT FILE     checks that process $pid says in FILE (its stderr) that it stopped
#                        at POINT, waiting for it as `eventually` does
#   finish_paused SIGNAL sends SIGNAL to the command start_paused started and waits for it,
#                        keeping its stdout, stderr and status as `run` does
#   expect_sigterm_stops_build TARGET ERRFILE  sends SIGTERM to the build $pid (started in the
#                        background, its stderr to ERRFILE) and checks that it stops cleanly:
#                        exit 2, "drydb: interrupted; TARGET not written", no TARGET
#   full_disk_inputs     the inputs of full_disk.sh and full_disk_tmpfs.sh: big.jsonl (6,000 rows
#                        of 400-byte values, 2.5 MB) built into big.drydb, small.jsonl (one row)
#                        into prev.drydb
#   skip WHY             ends the case as skipped (exit 77, which ctest reports as skipped; a case
#                        whose checks failed before it fails instead): for a
#                        helper program or data file the machine lacks
# `drydb` runs the binary under test; $DATA is tests/cli/data. A case fails when any check does,
# and when it made none.
set -u
DRYDB=$(realpath "$1")
CASE=$(realpath "$2")
DATA=$(dirname "$CASE")/../data
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
export HOME="$WORK/home" XDG_STATE_HOME="$WORK/state" LC_ALL=C.UTF-8 TZ=UTC
mkdir -p "$HOME"

failures=0
checks=0
last=""
status=0
OUT="$WORK/.stdout"
ERR="$WORK/.stderr"

drydb() { "$DRYDB" "$@"; }

run() {
  last="$*"
  "$@" >"$OUT" 2>"$ERR"
  status=$?
}

failed() {
  failures=$((failures + 1))
  echo "FAIL ($(basename "$CASE")): \`$last\`: $1"
  echo "--- stdout:"; head -c 4000 "$OUT"
  echo "--- stderr:"; head -c 4000 "$ERR"
  echo "---"
}

expect_status() {
  checks=$((checks + 1))
  [ "$status" -eq "$1" ] || failed "exit status $status, expected $1"
}

expect_same() {  # FILE NAME, expected text on stdin
  checks=$((checks + 1))
  local expected="$WORK/.expected"
  cat >"$expected"
  if ! cmp -s "$expected" "$1"; then
    failed "$2 differs from what is expected:"
    diff -u "$expected" "$1" | head -60
  fi
}
expect_stdout() { expect_same "$OUT" stdout; }
expect_stderr() { expect_same "$ERR" stderr; }

expect_stdout_has() {
  checks=$((checks + 1))
  grep -qF -- "$1" "$OUT" || failed "stdout lacks: $1"
}
expect_stderr_has() {
  checks=$((checks + 1))
  grep -qF -- "$1" "$ERR" || failed "stderr lacks: $1"
}
expect_no_stdout() {
  checks=$((checks + 1))
  [ ! -s "$OUT" ] || failed "stdout is not empty"
}
expect_true() {
  local what=$1
  shift
  checks=$((checks + 1))
  "$@" || { last="$*"; failed "$what"; }
}

eventually() {
  local i
  for i in $(seq 1 300); do
    "$@" && return 0
    sleep 0.1
  done
  "$@"
}

PAUSED_OUT="$WORK/.paused.out"
PAUSED_ERR="$WORK/.paused.err"
start_paused() {
  local point=$1
  shift
  last="$*"
  # With job control on, the background command keeps SIGINT's action (bash otherwise starts it
  # with SIGINT ignored).
  set -m
  DRYDB_TEST_PAUSE=$point "$@" >"$PAUSED_OUT" 2>"$PAUSED_ERR" &
  pid=$!
  set +m
  wait_paused "$point" "$PAUSED_ERR"
}
wait_paused() {
  checks=$((checks + 1))
  eventually grep -q "drydb: test pause at $1 (pid $pid)" "$2" ||
    failed "drydb did not pause at $1"
}
finish_paused() {
  last="$last (paused, then SIG$1)"
  kill "-$1" "$pid"
  wait "$pid"
  status=$?
  cp "$PAUSED_OUT" "$OUT"
  cp "$PAUSED_ERR" "$ERR"
}

expect_sigterm_stops_build() {
  kill -TERM "$pid"
  wait "$pid"
  status=$?
  expect_status 2
  expect_true "the interruption is reported" grep -qx "drydb: interrupted; $1 not written" "$2"
  expect_true "nothing is written" test ! -e "$1"
}

full_disk_inputs() {
  awk 'BEGIN { for (i = 0; i < 6000; i++) printf "{\"id\":%d,\"v\":\"%0400d\"}\n", i, i }' >big.jsonl
  echo '{"id":1,"v":"old"}' >small.jsonl
  run drydb build prev.drydb -i small.jsonl -k id -q
  expect_status 0
  run drydb build big.drydb -i big.jsonl -k id -q
  expect_status 0
}

skip() {
  if [ "$failures" -ne 0 ]; then  # a skip after failed checks must not hide them
    echo "$(basename "$CASE"): $failures of $checks checks failed, then skipped: $1"
    exit 1
  fi
  echo "$(basename "$CASE"): skipped: $1"
  exit 77
}

# shellcheck source=/dev/null
source "$CASE"

if [ "$failures" -ne 0 ]; then
  echo "$(basename "$CASE"): $failures of $checks checks failed"
  exit 1
fi
if [ "$checks" -eq 0 ]; then  # a case that checked nothing proves nothing
  echo "$(basename "$CASE"): no checks were made"
  exit 1
fi
echo "$(basename "$CASE"): all $checks checks passed"
