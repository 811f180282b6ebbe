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
#include <cstdlib>
#include <filesystem>
#include <memory>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "common.h"
#include "io/text.h"

namespace drydb::cli {

namespace {

// What `help` says before the list of commands.
const char kIntro[] =
    R"(Keys are typed in the table's (or index's) encoding: decimal for int64, UUID or ULID
text, text with \xNN escapes (and \\ for a backslash) for bytes; with --hex, keys are
typed and keys and values shown as hex digits. Quote words with spaces: get "LATIN
SMALL LETTER A"; a quoted word is never an option. In ranges, * is an open end ("*"
is the key *).)";

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// The session's help: the commands listed with their arguments ("get <key>", an index's
// commands as "index <name> get <key>"), and no usage line of its own.
class ShellFormatter : public CLI::Formatter {
 public:
  std::string make_option_usage(const CLI::Option* opt) const override {
    std::string name = opt->get_name(true, false);
    if (opt->get_expected_max() > 1) name += "...";
    return opt->get_required() ? "<" + name + ">" : "[" + name + "]";
  }

  std::string make_usage(const CLI::App* app, std::string name) const override {
    if (app->get_parent() == nullptr) return {};
    return Formatter::make_usage(app, std::move(name));
  }

  std::string make_subcommand(const CLI::App* sub) const override {
    std::string names = sub->get_name();
    for (const std::string& alias : sub->get_aliases())
      names += ", " + alias;
    std::string out = line(names + arguments(sub), sub->get_description());
    for (const CLI::App* inner : sub->get_subcommands({}))
      out += line(fmt::format("{}{} {}{}", sub->get_name(), arguments(sub), inner->get_name(),
                              arguments(inner)),
                  inner->get_description());
    return out;
  }

 private:
  std::string arguments(const CLI::App* app) const {
    std::string out;
    for (const CLI::Option* opt :
         app->get_options([](const CLI::Option* o) { return o->get_positional(); }))
      out += " " + make_option_usage(opt);
    return out;
  }
  // As CLI11 lists options: the description at column_width_, or below a longer usage.
  std::string line(const std::string& usage, const std::string& description) const {
    const std::string left = "  " + usage;
    if (left.size() >= column_width_)
      return fmt::format("{}\n{:{}}{}\n", left, "", column_width_, description);
    return fmt::format("{:{}}{}\n", left, column_width_, description);
  }
};

// The first of `app`'s commands that `name` names (case aside, aliases too), or null.
const CLI::App* find_command(const CLI::App& app, const std::string& name) {
  for (const CLI::App* sub :
       app.get_subcommands([&](const CLI::App* s) { return s->check_name(name); }))
    return sub;
  return nullptr;
}

// The names of `app`'s commands, joined as "get, all, ... or scan".
std::string listed(const CLI::App& app) {
  std::string out;
  const auto subs = app.get_subcommands({});
  for (size_t i = 0; i < subs.size(); ++i)
    out += (i == 0 ? "" : i + 1 == subs.size() ? " or " : ", ") + subs[i]->get_name();
  return out;
}

// Whether CLI11 may read `word` as an option: in the session only an unquoted --NAME is one.
bool option_word(const Token& word) {
  return !word.quoted && word.text.size() >= 3 && word.text.compare(0, 2, "--") == 0;
}

// CLI11 reads any word that starts with '-' as an option (and "--" as the end of them). A word
// that must stay an argument although it does (a quoted "--desc", a -5, a -x) reaches CLI11 as a
// stand-in that no typed word can be, since it holds newlines and a line has none: "\n<i>\n",
// the word's place in the line; so does a quoted "*", which Session takes for the key *. The
// stand-ins are read back from what CLI11 parsed (`typed`) and from its messages (`untyped`).
std::string stand_in(size_t i) {
  return fmt::format("\n{}\n", i);
}

}  // namespace

ShellCommands::ShellCommands() : app_(std::make_unique<CLI::App>(kIntro, "")) {
  // Set before the commands are added, which take them over.
  auto formatter = std::make_shared<ShellFormatter>();
  formatter->column_width(40);  // "  index <name> prefix <prefix> [limit]" and its description
  app_->formatter(formatter);
  app_->set_help_flag("--help", "This help");
  app_->ignore_case();
  app_->group("Commands");
  app_->require_subcommand(1);
  c_ = add_query_commands(*app_, q_, Surface::shell);
  app_->set_help_flag();  // the commands have it; a line is never the app's own --help
  app_->footer("'help COMMAND' (or COMMAND --help) shows a command's options.");
}

ShellCommands::~ShellCommands() = default;

std::vector<std::string> ShellCommands::command_names() const {
  std::vector<std::string> out;
  for (const CLI::App* sub : app_->get_subcommands({})) {
    out.push_back(sub->get_name());
    for (const std::string& alias : sub->get_aliases())
      if (alias.size() > 1) out.push_back(alias);
  }
  return out;
}

std::vector<std::string> ShellCommands::index_command_names() const {
  std::vector<std::string> out;
  for (const CLI::App* sub : c_.index->get_subcommands({}))
    out.push_back(sub->get_name());
  return out;
}

std::string ShellCommands::help_text(const std::vector<Token>& words) const {
  app_->clear();  // the help of what was parsed last would be shown otherwise
  if (words.empty()) return app_->help();
  const CLI::App* command = find_command(*app_, words[0].text);
  if (command == nullptr)
    fail_usage(fmt::format("help: no command '{}'; type 'help' for the list",
                           escape_display(words[0].text)));
  if (words.size() == 1) return command->help();
  const CLI::App* inner = find_command(*command, words[1].text);
  if (inner == nullptr)
    fail_usage(fmt::format("help: no command '{} {}'; type 'help' for the list",
                           command->get_name(), escape_display(words[1].text)));
  return inner->help(command->get_name() + " <name>");
}

ShellCommands::Line ShellCommands::parse(const std::vector<Token>& words) {
  Line line;
  if (words.empty()) return line;
  const CLI::App* command = find_command(*app_, words[0].text);
  if (command == nullptr)
    throw CliError(kExitUsage,
                   fmt::format("Unknown command: {}\nType 'help' for available commands.",
                               escape_display(words[0].text)));
  if (command == c_.index && words.size() == 1) {
    line.command = "indexes";
    return line;
  }
  if (command == c_.index && words.size() == 2 && !option_word(words[1]))
    fail_usage(fmt::format("index {}: a command is missing: use {}", escape_display(words[1].text),
                           listed(*c_.index)));
  if (command == c_.index && words.size() >= 3 && !option_word(words[2]) &&
      find_command(*c_.index, words[2].text) == nullptr)
    fail_usage(fmt::format("unknown index command '{}': use {}", escape_display(words[2].text),
                           listed(*c_.index)));

  std::vector<std::string> args;  // reversed, as CLI11 takes them
  for (size_t i = words.size(); i-- > 0;) {
    const Token& w = words[i];
    const bool hidden = (!option_word(w) && !w.text.empty() && w.text[0] == '-') ||
                        (w.quoted && (w.text == "*" || w.text.empty()));
    args.push_back(hidden ? stand_in(i) : w.text);
  }
  // A stand-in's word, quoted or not; any other word as it is.
  const auto typed = [&](const std::string& s) -> Token {
    for (size_t i = 0; i < words.size(); ++i)
      if (s == stand_in(i)) return words[i];
    return Token{s, false};
  };
  // `text` with each stand-in replaced by its word.
  const auto untyped = [&](std::string text) {
    for (size_t i = 0; i < words.size(); ++i)
      for (size_t at; (at = text.find(stand_in(i))) != std::string::npos;)
        text.replace(at, stand_in(i).size(), words[i].text);
    return text;
  };
  // The commands parsed, outermost first ("index", "get"), and their names as words.
  const auto parsed = [&]() {
    std::vector<const CLI::App*> chain;
    for (const CLI::App* app = app_.get(); !app->get_subcommands().empty();)
      chain.push_back(app = app->get_subcommands().front());
    return chain;
  };
  const auto names = [](const std::vector<const CLI::App*>& chain) {
    std::vector<Token> out;
    for (const CLI::App* app : chain)
      out.push_back(Token{app->get_name(), false});
    return out;
  };

  q_ = {};
  try {
    app_->parse(args);
  } catch (const CLI::CallForHelp&) {
    line.command = "help";
    line.text = help_text(names(parsed()));  // the innermost command's
    return line;
  } catch (const CLI::ParseError& e) {
    const std::vector<const CLI::App*> chain = parsed();
    const CLI::App* innermost = chain.empty() ? app_.get() : chain.back();
    std::string path;
    for (const Token& name : names(chain))
      path += (path.empty() ? "" : " ") + name.text;
    // An option the command lacks is named first: CLI11 would report a missing argument first
    // (`get --desc`: the key is missing).
    for (const Token& w : words) {
      const std::string option = w.text.substr(0, w.text.find('='));
      if (option_word(w) && innermost->get_option_no_throw(option) == nullptr)
        fail_usage(fmt::format("{}: unknown option {} (see 'help {}')", path,
                               escape_display(option), path));
    }
    fail_usage(
        fmt::format("{}: {} (see 'help {}')", path, escape_display(untyped(e.what())), path));
  }

  for (const Token& name : names(parsed()))
    line.command += (line.command.empty() ? "" : " ") + name.text;
  if (line.command == "help") {
    std::vector<Token> asked;
    for (const std::string& w : q_.args)
      asked.push_back(typed(w));
    line.text = help_text(asked);
    return line;
  }
  line.query = query_args(q_);
  for (Token& t : line.query.args)
    t = typed(t.text);
  line.query.index = typed(q_.index).text;
  line.text = typed(q_.table).text;
  return line;
}

namespace {

// Runs one parsed line. Returns false for quit.
bool run_line(Session& s, const ShellCommands::Line& line) {
  const std::string& cmd = line.command;
  // A query's name, the same for a table's and an index's ("index get": get).
  const std::string_view query = std::string_view(cmd).substr(cmd.rfind(' ') + 1);
  const QueryArgs& a = line.query;
  if (cmd.empty()) return true;
  if (cmd == "quit") return false;
  if (cmd == "help") {
    write_out(stdout, line.text);
  } else if (cmd == "use") {
    s.use(line.text);
    write_out(stdout, fmt::format("Switched to table: {}\n", escape_display(s.table_name())));
  } else if (cmd == "tables") {
    s.tables();
  } else if (cmd == "indexes") {
    s.indexes();
  } else if (cmd == "info") {
    s.info();
  } else if (cmd == "stats") {
    s.stats(false);
  } else if (query == "get") {
    s.get(a);
  } else if (query == "scan" || query == "keys" || query == "values") {
    s.scan(a, query == "scan"   ? ScanWhat::rows
              : query == "keys" ? ScanWhat::keys
                                : ScanWhat::values);
  } else if (query == "prefix") {
    s.prefix(a);
  } else if (query == "range") {
    s.range(a);
  } else if (query == "all") {
    QueryArgs both = a;  // all k = range k k
    both.args.push_back(both.args[0]);
    s.range(both);
  } else if (query == "count") {
    s.count(a);
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

// For completion, which libedit calls without context.
Session* g_session = nullptr;
const ShellCommands* g_commands = nullptr;
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
    g_candidates = g_commands->command_names();
  } else if (before.size() == 1 && first == "use") {
    g_candidates = g_session->table_names();
  } else if (before.size() == 1 && first == "index") {
    g_candidates = g_session->index_names();
  } else if (before.size() == 2 && first == "index") {
    g_candidates = g_commands->index_command_names();
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
  ShellCommands commands;
  std::string history;
  if (tty) {
    write_out(
        stdout,
        fmt::format(
            "Connected to {}\nTable: {} | Type 'help' for commands\n", escape_display(options.path),
            session.table_name().empty() ? "(none)" : escape_display(session.table_name())));
    g_session = &session;
    g_commands = &commands;
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
      if (!run_line(session, commands.parse(split_command_line(line)))) {
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
