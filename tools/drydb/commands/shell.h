// The interactive session: `drydb FILE` or `drydb shell FILE`.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "commands/query_commands.h"
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

// The session's commands, parsed by the CLI11 definitions the command line's queries share
// (query_commands.h) on an app of their own: one line's words at a time.
class ShellCommands {
 public:
  ShellCommands();
  ~ShellCommands();

  // A line as parsed.
  struct Line {
    // The command: "get", "scan", ..., "index get" (the index's name in query.index), "indexes",
    // "use", "help" (also for COMMAND --help), "quit"; empty for a line of no words.
    std::string command;
    QueryArgs query;   // a query's arguments and options
    std::string text;  // use: the table; help: what to print
  };

  // Parses a line's words. Command names are case-insensitive; a word is an option only when
  // it is an unquoted --NAME (a quoted "--desc", a -5 or a -x is an argument), and a quoted
  // "*" stays marked quoted. A CliError (usage) for an unknown command ("Unknown command: X"
  // and a hint, on two lines) or a bad argument or option: its message names the command.
  Line parse(const std::vector<Token>& words);

  // The names of the commands (and their aliases of more than one letter), and of an index's
  // commands, in the order help lists them.
  std::vector<std::string> command_names() const;
  std::vector<std::string> index_command_names() const;

 private:
  std::string help_text(const std::vector<Token>& words) const;

  std::unique_ptr<CLI::App> app_;
  QueryFlags q_;
  QueryCommands c_;
};

// Splits a session line into words: whitespace separates, "..." and '...'
// group (a quoted word is marked quoted), and a backslash before a quote, a
// space or a tab takes it literally. Other backslashes are kept, so \xNN and
// \\ (a pair, never splitting) reach the key parser. A CliError (usage) for
// an unterminated quote.
std::vector<Token> split_command_line(const std::string& line);

}  // namespace drydb::cli
