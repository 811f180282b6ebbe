// The interactive session: `drydb FILE` or `drydb shell FILE`.
#pragma once

#include <string>
#include <vector>

#include "commands/session.h"
#include "io/input.h"

namespace drydb::cli {

struct ShellOptions {
  std::string path;
  std::string table;  // empty: the first table
  // Print the prompt and each command before its output when reading a
  // script (for demos and transcripts).
  bool echo = false;
  // The longest line of a script: a longer one ends the session (exit 2).
  size_t max_line = kDefaultMaxRecord;
};

// Runs the session on stdin: with line editing, history and a prompt when
// stdin is a terminal, else line by line without them. Returns the exit
// status: with a script, 2 when any command failed.
int run_shell(const ShellOptions& options);

// Splits a session line into words: whitespace separates, "..." and '...'
// group (a quoted word is marked quoted), and a backslash before a quote, a
// space or a tab takes it literally. Other backslashes are kept, so \xNN and
// \\ (a pair, never splitting) reach the key parser. A CliError (usage) for
// an unterminated quote.
std::vector<Token> split_command_line(const std::string& line);

}  // namespace drydb::cli
