// Test-only pauses at named points, so that tests send a signal to the tool
// exactly while it is at one (tests/cli/cases/signals.sh) instead of timing
// it. With DRYDB_TEST_PAUSE=NAME in its environment, the tool, the first
// time it reaches point NAME, writes "drydb: test pause at NAME (pid PID)" to
// stderr and waits for a signal: one the tool catches (SIGINT, SIGTERM where
// it catches them) lets it go on and see the flag it set; any other takes its
// action (SIGKILL, or SIGTERM's default: the process ends there); SIGUSR1
// lets it go on as if no signal had come (for commands that do not catch
// SIGINT, and for races: another command runs while this one waits there).
// Without the variable a point costs a test of a flag.
//
// The points: build:reading (the first input row is read), dump:writing (the
// dump's first line is written), session:row (a session's or a query's first
// row is printed), and the library's build points as build:run_spilled,
// build:temp_created, build:pages_written, build:synced, build:renamed, and
// a dataset's build:dataset_locking (publish, rollback or discard about to
// take the dataset's lock) and build:dataset_published (CURRENT moved,
// retention to come) (drydb/build_points.h).
#pragma once

#include <string_view>

namespace drydb::cli {

// Reads DRYDB_TEST_PAUSE and, when it names a library build point, hooks it.
// Called once, first thing in main().
void init_test_pauses();

// Pauses at `point` when DRYDB_TEST_PAUSE names it (once per run).
void test_pause(std::string_view point);

}  // namespace drydb::cli
