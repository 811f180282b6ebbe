#include "commands/shell.h"

// libedit (BSD licence) through its readline-compatible interface; not GNU
// readline, whose GPL would bind the binary.
#include <editline/readline.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <set>

#include <fmt/format.h>

#include "common.h"
#include "io/text.h"

namespace drydb::cli {

namespace {

const char kHelp[] =
    R"(Commands. Keys are typed in the table's (or index's) encoding: decimal for int64,
UUID or ULID text, text with \xNN escapes (and \\ for a backslash) for bytes; with
--hex, keys are typed and keys and values shown as hex digits. Quote words with
spaces: get "LATIN SMALL LETTER A". In ranges, * is an open end ("*" is the key *).

  get <key>                          the value of a key, or (nil)
  scan [offset] [limit]              rows in key order (default 0 20); --desc for reverse
  keys [offset] [limit]              keys only
  values [offset] [limit]            values only
  prefix <prefix> [limit]            rows whose key starts with prefix (byte keys; limit 10)
  range <start> <end> [options]      rows between two keys: --desc --exclusive-start
                                     --exclusive-end --limit N (default 20) --offset N
  count [<key> | <start> <end>]      rows in the table, with a key, or in a range
  tables                             the tables of the file
  use <table>                        switch to another table
  indexes                            the current table's secondary indexes
  index <name> get <key>             the first row (in key order) with that index key
  index <name> all <key> [limit]     every row with that index key
  index <name> range <start> <end>   rows in index-key order; range's options
  index <name> count [<key> | <start> <end>]
  index <name> prefix <prefix> [limit]
  index <name> scan [offset] [limit]
  info                               the file and the current table
  stats                              depth, pages per level, fill, overflow pages, compression
  help, ?                            this list
  quit, exit, q                      leave the session
)";

const std::vector<std::string> kCommands = {"get",   "scan",   "keys", "values",  "prefix", "range",
                                            "count", "tables", "use",  "indexes", "index",  "info",
                                            "stats", "help",   "quit", "exit"};
const std::vector<std::string> kIndexCommands = {"get", "all", "range", "count", "prefix", "scan"};

uint64_t parse_number(const std::string& text, std::string_view what) {
  uint64_t v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || p != text.data() + text.size() || text.empty())
    fail_usage(
        fmt::format("{} must be a non-negative integer, not '{}'", what, escape_display(text)));
  return v;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// Pulls the --flags a command allows out of `words` into `a`; the rest are
// positional arguments.
QueryArgs take_flags(const std::string& command, std::vector<Token> words,
                     const std::vector<std::string_view>& allowed) {
  QueryArgs a;
  for (size_t i = 0; i < words.size(); ++i) {
    const Token& w = words[i];
    if (w.quoted || w.text.size() < 3 || w.text.compare(0, 2, "--") != 0) {
      a.args.push_back(w);
      continue;
    }
    const std::string& f = w.text;
    if (std::find(allowed.begin(), allowed.end(), f) == allowed.end())
      fail_usage(fmt::format("{}: unknown option {} (see help)", command, f));
    auto number = [&]() {
      if (i + 1 >= words.size()) fail_usage(fmt::format("{}: {} needs a number", command, f));
      return parse_number(words[++i].text, f);
    };
    if (f == "--hex")
      a.hex = true;
    else if (f == "--desc")
      a.desc = true;
    else if (f == "--exclusive-start")
      a.exclusive_start = true;
    else if (f == "--exclusive-end")
      a.exclusive_end = true;
    else if (f == "--limit")
      a.limit = number();
    else if (f == "--offset")
      a.offset = number();
  }
  return a;
}

// Positional [offset] [limit] of scan, keys, values.
void take_offset_limit(QueryArgs& a, const std::string& command) {
  if (a.args.size() > 2) fail_usage(fmt::format("usage: {} [offset] [limit]", command));
  if (!a.args.empty()) a.offset = parse_number(a.args[0].text, "offset");
  if (a.args.size() == 2) a.limit = parse_number(a.args[1].text, "limit");
  a.args.clear();
}

// Positional [limit] after one argument (prefix, index all).
void take_trailing_limit(QueryArgs& a, const std::string& usage) {
  if (a.args.size() == 2) {
    a.limit = parse_number(a.args[1].text, "limit");
    a.args.pop_back();
  }
  if (a.args.size() != 1) fail_usage("usage: " + usage);
}

// Runs one command line. Returns false for quit.
bool run_command(Session& s, const std::vector<Token>& words) {
  if (words.empty()) return true;
  const std::string cmd = lower(words[0].text);
  std::vector<Token> rest(words.begin() + 1, words.end());
  static const std::vector<std::string_view> kRangeFlags = {
      "--hex", "--desc", "--exclusive-start", "--exclusive-end", "--limit", "--offset"};

  if (cmd == "quit" || cmd == "exit" || cmd == "q") return false;
  if (cmd == "help" || cmd == "?") {
    write_out(stdout, kHelp);
  } else if (cmd == "get") {
    QueryArgs a = take_flags(cmd, rest, {"--hex"});
    if (a.args.size() != 1) fail_usage("usage: get <key>");
    s.get(a);
  } else if (cmd == "scan" || cmd == "keys" || cmd == "values") {
    QueryArgs a = take_flags(cmd, rest, {"--hex", "--desc"});
    take_offset_limit(a, cmd);
    s.scan(a, cmd == "scan" ? ScanWhat::rows : cmd == "keys" ? ScanWhat::keys : ScanWhat::values);
  } else if (cmd == "prefix") {
    QueryArgs a = take_flags(cmd, rest, {"--hex", "--desc"});
    take_trailing_limit(a, "prefix <prefix> [limit]");
    s.prefix(a);
  } else if (cmd == "range") {
    QueryArgs a = take_flags(cmd, rest, kRangeFlags);
    if (a.args.size() != 2) fail_usage("usage: range <start> <end> [options] (* for an open end)");
    s.range(a);
  } else if (cmd == "count") {
    QueryArgs a = take_flags(cmd, rest, {"--hex", "--exclusive-start", "--exclusive-end"});
    if (a.args.size() > 2) fail_usage("usage: count [<key> | <start> <end>]");
    s.count(a);
  } else if (cmd == "tables") {
    s.tables();
  } else if (cmd == "use") {
    if (rest.size() != 1) fail_usage("usage: use <table>");
    s.use(rest[0].text);
    write_out(stdout, fmt::format("Switched to table: {}\n", escape_display(s.table_name())));
  } else if (cmd == "indexes") {
    s.indexes();
  } else if (cmd == "index") {
    if (rest.empty()) {
      s.indexes();
      return true;
    }
    if (rest.size() < 2)
      fail_usage("usage: index <name> get|all|range|count|prefix|scan ... (see help)");
    const std::string name = rest[0].text;
    const std::string sub = lower(rest[1].text);
    std::vector<Token> args(rest.begin() + 2, rest.end());
    QueryArgs a;
    if (sub == "get") {
      a = take_flags("index get", args, {"--hex"});
      if (a.args.size() != 1) fail_usage("usage: index <name> get <key>");
      a.index = name;
      s.get(a);
    } else if (sub == "all") {
      a = take_flags("index all", args, {"--hex", "--desc", "--offset", "--limit"});
      take_trailing_limit(a, "index <name> all <key> [limit]");
      a.args.push_back(a.args[0]);  // all k = range k k
      a.index = name;
      s.range(a);
    } else if (sub == "range") {
      a = take_flags("index range", args, kRangeFlags);
      if (a.args.size() != 2) fail_usage("usage: index <name> range <start> <end> [options]");
      a.index = name;
      s.range(a);
    } else if (sub == "count") {
      a = take_flags("index count", args, {"--hex", "--exclusive-start", "--exclusive-end"});
      if (a.args.size() > 2) fail_usage("usage: index <name> count [<key> | <start> <end>]");
      a.index = name;
      s.count(a);
    } else if (sub == "prefix") {
      a = take_flags("index prefix", args, {"--hex", "--desc"});
      take_trailing_limit(a, "index <name> prefix <prefix> [limit]");
      a.index = name;
      s.prefix(a);
    } else if (sub == "scan") {
      a = take_flags("index scan", args, {"--hex", "--desc"});
      take_offset_limit(a, "index <name> scan");
      a.index = name;
      s.scan(a, ScanWhat::rows);
    } else {
      fail_usage(
          fmt::format("unknown index command '{}': use get, all, range, count, prefix or scan",
                      escape_display(sub)));
    }
  } else if (cmd == "info") {
    s.info();
  } else if (cmd == "stats") {
    s.stats(false);
  } else {
    throw CliError(kExitUsage,
                   fmt::format("Unknown command: {}\nType 'help' for available commands.",
                               escape_display(words[0].text)));
  }
  return true;
}

std::string prompt_of(const Session& s) {
  const std::string file = std::filesystem::path(s.path()).filename().string();
  return fmt::format("{}({})> ", escape_display(file), escape_display(s.table_name()));
}

// ---- line editing: history and completion -------------------------------------------------------

std::string history_path() {
  std::filesystem::path dir;
  if (const char* state = std::getenv("XDG_STATE_HOME"); state && *state == '/') {
    dir = state;
  } else if (const char* home = std::getenv("HOME"); home && *home) {
    dir = std::filesystem::path(home) / ".local" / "state";
  } else {
    return {};
  }
  dir /= "drydb";
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return {};
  return (dir / "history").string();
}

Session* g_session = nullptr;  // for completion, which libedit calls without context
std::vector<std::string> g_candidates;

char* next_candidate(const char* text, int state) {
  static size_t i;
  if (state == 0) i = 0;
  const std::string_view prefix(text);
  while (i < g_candidates.size()) {
    const std::string& c = g_candidates[i++];
    if (c.compare(0, prefix.size(), prefix) == 0) return strdup(c.c_str());
  }
  return nullptr;
}

char** complete(const char* text, int start, int /*end*/) {
  rl_attempted_completion_over = 1;  // never fall back to file names
  std::vector<Token> before;
  try {
    before = split_command_line(std::string(rl_line_buffer, static_cast<size_t>(start)));
  } catch (const CliError&) {
    return nullptr;
  }
  g_candidates.clear();
  const std::string first = before.empty() ? "" : lower(before[0].text);
  if (before.empty()) {
    g_candidates = kCommands;
  } else if (before.size() == 1 && first == "use") {
    g_candidates = g_session->table_names();
  } else if (before.size() == 1 && first == "index") {
    g_candidates = g_session->index_names();
  } else if (before.size() == 2 && first == "index") {
    g_candidates = kIndexCommands;
  }
  return rl_completion_matches(text, next_candidate);
}

}  // namespace

std::vector<Token> split_command_line(const std::string& line) {
  std::vector<Token> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t'))
      ++i;
    if (i >= line.size()) break;
    Token t;
    char quote = 0;
    for (; i < line.size(); ++i) {
      const char c = line[i];
      if (quote != 0) {
        if (c == quote) {
          quote = 0;
        } else if (c == '\\' && i + 1 < line.size() && line[i + 1] == quote) {
          t.text += quote;
          ++i;
        } else if (c == '\\' && i + 1 < line.size() && line[i + 1] == '\\') {
          t.text += "\\\\";  // kept for the key parser, which reads \\ as one backslash
          ++i;
        } else {
          t.text += c;
        }
        continue;
      }
      if (c == ' ' || c == '\t') break;
      if (c == '"' || c == '\'') {
        quote = c;
        t.quoted = true;
      } else if (c == '\\' && i + 1 < line.size() &&
                 (line[i + 1] == '"' || line[i + 1] == '\'' || line[i + 1] == ' ' ||
                  line[i + 1] == '\t')) {
        t.text += line[++i];
      } else if (c == '\\' && i + 1 < line.size() && line[i + 1] == '\\') {
        t.text += "\\\\";
        ++i;
      } else {
        t.text += c;
      }
    }
    if (quote != 0) fail_usage("unterminated quote");
    out.push_back(std::move(t));
  }
  return out;
}

namespace {
// readline's input: a byte of stdin, or -1 (readline then returns nullptr) at its end, on an
// error, or once SIGINT came. SIGINT is blocked while the flag is looked at and let in only while
// ppoll waits, so a signal that comes outside the wait (readline busy, or between two reads) also
// cancels the line, instead of setting the flag unseen until Enter throws the next line away.
int getc_or_cancel(FILE*) {
  sigset_t sigint, mask;
  sigemptyset(&sigint);
  sigaddset(&sigint, SIGINT);
  for (;;) {
    sigprocmask(SIG_BLOCK, &sigint, &mask);
    if (g_interrupted) {
      sigprocmask(SIG_SETMASK, &mask, nullptr);
      return -1;
    }
    pollfd p{STDIN_FILENO, POLLIN, 0};
    const int ready = ::ppoll(&p, 1, nullptr, &mask);
    sigprocmask(SIG_SETMASK, &mask, nullptr);
    if (ready < 0) {
      if (errno == EINTR) continue;  // the flag is looked at first
      return -1;
    }
    unsigned char c;
    const ssize_t n = ::read(STDIN_FILENO, &c, 1);
    if (n == 1) return c;
    if (n < 0 && errno == EINTR) continue;
    return -1;
  }
}
}  // namespace

int run_shell(const ShellOptions& options) {
  const bool tty = ::isatty(STDIN_FILENO) != 0;
  Session session(options.path, options.table, /*shell=*/true, Format::text, stdout);
  std::string history;
  if (tty) {
    write_out(
        stdout,
        fmt::format(
            "Connected to {}\nTable: {} | Type 'help' for commands\n", escape_display(options.path),
            session.table_name().empty() ? "(none)" : escape_display(session.table_name())));
    g_session = &session;
    rl_readline_name = "drydb";
    // SIGINT is ours (see the loop): libedit's handler would pass it on and retry the read.
    rl_catch_signals = 0;
    rl_getc_function = getc_or_cancel;
    rl_attempted_completion_function = complete;
    using_history();
    stifle_history(1000);
    history = history_path();
    if (!history.empty()) read_history(history.c_str());
    // On a terminal SIGINT only sets g_interrupted, from here to the end of the session: at
    // the prompt it cancels the line; while a command runs, the command's row walk stops at
    // the flag (commands that print no rows finish first); between the two it is dropped.
    catch_sigint(true);
  }
  // A script's lines, bounded as build's records are: stdin may be /dev/zero.
  std::unique_ptr<InputSource> script;
  std::unique_ptr<LineReader> script_lines;
  if (!tty) {
    script = std::make_unique<InputSource>("-");
    script_lines = std::make_unique<LineReader>(*script, options.max_line, /*keep_blank=*/true);
  }
  bool failed = false;
  for (;;) {
    std::string line;
    const std::string prompt = prompt_of(session);
    if (tty) {
      std::fflush(stdout);
      // Ctrl-C at the prompt cancels the line and prompts again, as shells and sqlite3 do:
      // while readline waits, SIGINT only sets g_interrupted, and the read it interrupts makes
      // readline return nullptr (getc_or_cancel).
      g_interrupted = 0;
      char* raw = readline(prompt.c_str());
      if (g_interrupted) {
        std::free(raw);  // a line read as the signal came: cancelled too
        write_out(stdout, "\n");
        continue;
      }
      if (raw == nullptr) {
        write_out(stdout, "\n");
        break;
      }
      line = raw;
      std::free(raw);
      if (line.find_first_not_of(" \t") != std::string::npos) {
        add_history(line.c_str());
        if (!history.empty()) {
          write_history(history.c_str());
          ::chmod(history.c_str(), 0600);  // keys typed may be private
        }
      }
    } else {
      std::string_view l;
      uint64_t line_number;
      if (!script_lines->next(&l, &line_number)) break;
      line = l;
      if (options.echo) write_out(stdout, prompt + line + "\n");
    }
    // On a terminal, Ctrl-C while a command runs stops that command (its row
    // walk sees the flag: "Error: interrupted") and the session prompts
    // again, as sqlite3 does; a script's session keeps SIGINT's default.
    g_interrupted = 0;
    try {
      if (!run_command(session, split_command_line(line))) {
        if (tty) write_out(stdout, "Bye!\n");
        break;
      }
    } catch (const CliError& e) {
      std::fflush(stdout);
      const std::string_view msg = e.what();
      if (msg.rfind("Unknown command", 0) == 0)
        write_err(fmt::format("{}\n", msg));
      else
        write_err(fmt::format("Error: {}\n", msg));
      failed = true;
    }
    std::fflush(stdout);
  }
  if (tty) catch_sigint(false);
  return !tty && failed ? kExitError : kExitOk;
}

}  // namespace drydb::cli
