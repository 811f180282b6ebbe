// What every part of the drydb tool shares: its error type and exit codes.
#pragma once

#include <csignal>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <string_view>

#include "drydb/result.h"

namespace drydb::cli {

// Exit statuses, grep's and cmp's convention, so that a script can tell an
// absent key from a failure: 0 success, 1 not found (`get` of a key that is not
// there), 2 any error (a missing or damaged file, a bad key, a failed build or
// verify, bad usage: an unknown flag, a missing or malformed argument).
inline constexpr int kExitOk = 0;
inline constexpr int kExitNotFound = 1;
// `drydb diff`: the two builds differ (diff(1)'s 1).
inline constexpr int kExitDiffer = 1;
inline constexpr int kExitError = 2;
// Bad usage is an error like any other; the name says at the throw site why.
inline constexpr int kExitUsage = kExitError;

// Set by SIGINT/SIGTERM while `drydb build` reads its input, which then stops
// at the next record (or blocked read) without writing anything, and while
// `drydb dump -o` writes, which then stops at the next line and removes its
// temp file; and by SIGINT (Ctrl-C) while the session on a terminal waits at
// its prompt, which then cancels the line, or runs a command, whose row walk
// then stops.
inline volatile std::sig_atomic_t g_interrupted = 0;

// on: SIGINT and SIGTERM set g_interrupted (without SA_RESTART, so that a read
// blocked on a pipe returns and sees the flag); off: their default action.
void catch_interrupts(bool on);
// The same for SIGINT alone, for the session on a terminal: SIGTERM keeps its
// action, and SIGINT restarts what it interrupts (SA_RESTART: a write blocked
// on a full pipe to a pager goes on), but for the prompt's wait, which
// ppoll does and a signal always ends.
void catch_sigint(bool on);

// Writes a diagnostic (an error, a warning, progress) to stderr, and never fails: a message that
// cannot be written (stderr closed, or on a full disk) is lost, and the exit status still tells
// how the command ended. Every write to stderr goes through here: fmt::print throws when a write
// fails, which inside main's error handler would end the process with SIGABRT.
inline void write_err(std::string_view text) noexcept {
  std::fwrite(text.data(), 1, text.size(), stderr);
}

// A failure that ends a command: its message goes to stderr and `code` is the
// exit status. The tool uses exceptions (CLI11 does); the library does not.
class CliError : public std::runtime_error {
 public:
  CliError(int code, const std::string& message) : std::runtime_error(message), code_(code) {}
  int code() const noexcept { return code_; }

 private:
  int code_;
};

[[noreturn]] inline void fail(const std::string& message) {
  throw CliError(kExitError, message);
}
[[noreturn]] inline void fail_usage(const std::string& message) {
  throw CliError(kExitUsage, message);
}

// The value of `r`, or a CliError with its message.
template <class T>
T check(result<T> r) {
  if (!r) fail(r.error().message);
  return std::move(r).value();
}
inline void check(const status& s) {
  if (!s) fail(s.error().message);
}

}  // namespace drydb::cli
