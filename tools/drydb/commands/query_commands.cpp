#include "commands/query_commands.h"

#include <CLI/CLI.hpp>

#include "commands/option_checks.h"

namespace drydb::cli {

void add_file_option(CLI::App* command, std::string& file) {
  command->add_option("file", file, "The database file")->required();
}

void add_table_option(CLI::App* command, std::string& table) {
  command->add_option("-t,--table", table, "The table (default: the first in the file)");
}

namespace {

// The `slot`th of the command's key arguments (q.args[slot]): a key, a bound or a prefix.
CLI::Option* add_word(CLI::App* c, QueryFlags& q, size_t slot, const std::string& name,
                      const std::string& description) {
  return c->add_option_function<std::string>(
      name,
      [&q, slot](const std::string& word) {
        if (q.args.size() <= slot) q.args.resize(slot + 1);
        q.args[slot] = word;
      },
      description);
}

void add_hex(CLI::App* c, QueryFlags& q) {
  c->add_flag("--hex", q.hex, "Keys typed, and keys and values shown, as hex digits");
}

void add_bounds_flags(CLI::App* c, QueryFlags& q) {
  c->add_flag("--exclusive-start", q.exclusive_start, "Leave out rows equal to the start");
  c->add_flag("--exclusive-end", q.exclusive_end, "Leave out rows equal to the end");
}

// The options of a command that prints rows. In the session, `positional_offset` adds scan's
// [offset] [limit] words and `positional_limit` prefix's [limit], each excluding its option.
void add_rows(CLI::App* c, QueryFlags& q, Surface surface, bool positional_offset,
              bool positional_limit, uint64_t shell_limit) {
  const bool shell = surface == Surface::shell;
  CLI::Option* limit = c->add_option(shell ? "--limit" : "-n,--limit", q.limit,
                                     shell ? "Print at most this many rows (default " +
                                                 std::to_string(shell_limit) + ")"
                                           : std::string("Print at most this many rows"))
                           ->check(non_negative_integer());
  CLI::Option* offset = c->add_option("--offset", q.offset, "Skip this many rows first")
                            ->check(non_negative_integer());
  c->add_flag("--desc", q.desc, "Descending order");
  if (shell && positional_offset)
    c->add_option("offset", q.offset, "As --offset")
        ->check(non_negative_integer())
        ->excludes(offset);
  if (shell && (positional_offset || positional_limit))
    c->add_option("limit", q.limit, "As --limit")->check(non_negative_integer())->excludes(limit);
}

// -f for rows: text, jsonl, csv or tsv.
void add_rows_format(CLI::App* c, QueryFlags& q) {
  c->add_option("-f,--format", q.format, "Output: text, jsonl, csv or tsv")
      ->check(CLI::IsMember({"text", "jsonl", "csv", "tsv"}));
}

// A query command on `parent`: on the command line with its database file (its first
// positional), -t, -x and -f; everywhere with --hex.
CLI::App* add_query(CLI::App& parent, QueryFlags& q, Surface surface, const std::string& name,
                    const std::string& description) {
  CLI::App* c = parent.add_subcommand(name, description);
  if (surface == Surface::command_line) {
    add_file_option(c, q.file);
    add_table_option(c, q.table);
    c->add_option("-x,--index", q.index, "Query this secondary index of the table");
    add_rows_format(c, q);
  }
  add_hex(c, q);
  return c;
}

// The queries of a table and of an index, on `parent`: the app itself, or the session's `index`.
// `index` is whether `parent` is the session's `index NAME`.
Queries add_queries(CLI::App& parent, QueryFlags& q, Surface surface, bool index) {
  const bool shell = surface == Surface::shell;
  Queries c;
  c.get = add_query(parent, q, surface, "get",
                    index   ? "The first row with that index key, or (nil)"
                    : shell ? "The value of a key, or (nil)"
                            : "The value of one key (nothing and exit 1 if absent)");
  add_word(c.get, q, 0, "key", "The key, in the table's (or index's) encoding")->required();
  if (!shell) c.get->add_flag("--raw", q.raw, "Write the value's bytes exactly, with no newline");

  c.scan = add_query(parent, q, surface, "scan",
                     index ? "Every row, in index-key order" : "Every row, in key order");
  add_rows(c.scan, q, surface, true, false, 20);

  c.range = add_query(parent, q, surface, "range",
                      index ? "Rows between two index keys (* for an open end)"
                            : "Rows between two keys (* for an open end)");
  add_word(c.range, q, 0, "start", "The first key, included unless --exclusive-start")->required();
  add_word(c.range, q, 1, "end", "The last key, included unless --exclusive-end")->required();
  add_rows(c.range, q, surface, false, false, 20);
  add_bounds_flags(c.range, q);

  c.prefix = add_query(parent, q, surface, "prefix",
                       index ? "Rows whose index key starts with a prefix (byte keys)"
                             : "Rows whose key starts with a prefix (byte keys)");
  add_word(c.prefix, q, 0, "prefix", "The prefix")->required();
  add_rows(c.prefix, q, surface, false, true, 10);

  c.count = add_query(parent, q, surface, "count",
                      index ? "Entries in the index, with a key, or in a range"
                            : "Rows in a table, with a key, or in a range");
  add_word(c.count, q, 0, "start", "A key, or the range's first key");
  add_word(c.count, q, 1, "end", "The range's last key");
  add_bounds_flags(c.count, q);
  return c;
}

}  // namespace

QueryCommands add_query_commands(CLI::App& app, QueryFlags& q, Surface surface) {
  const bool shell = surface == Surface::shell;
  QueryCommands c{add_queries(app, q, surface, false)};
  if (shell) {
    c.keys = add_query(app, q, surface, "keys", "Keys only, in key order");
    c.values = add_query(app, q, surface, "values", "Values only, in key order");
    for (CLI::App* sub : {c.keys, c.values})
      add_rows(sub, q, surface, true, false, 20);
  }

  c.tables = app.add_subcommand("tables", "The tables of a database");
  if (!shell) {
    add_file_option(c.tables, q.file);
    add_rows_format(c.tables, q);
  }

  c.info =
      app.add_subcommand("info", shell ? "The file and the current table" : "The file and a table");
  c.stats = app.add_subcommand(
      "stats", shell
                   ? "Depth, pages, fill, overflow and compression of the table's trees"
                   : "Depth, pages per level, fill, overflow pages and compression of every tree");
  for (CLI::App* sub : {c.info, c.stats}) {
    if (shell) continue;
    add_file_option(sub, q.file);
    add_table_option(sub, q.table);
    sub->add_option("-f,--format", q.format, "Output: text or jsonl")
        ->check(CLI::IsMember({"text", "jsonl"}));
  }
  if (!shell) return c;

  c.use = app.add_subcommand("use", "Switch to another table");
  c.use->add_option("table", q.table, "The table")->required();
  c.indexes = app.add_subcommand("indexes", "The current table's secondary indexes (also: index)");
  // `index NAME get KEY`: the name is read before the command; a name that is also a command's
  // (an index called "get") is still a name, since CLI11 fills a required positional first.
  c.index = app.add_subcommand("index", "Query a secondary index of the current table");
  c.index->add_option("name", q.index, "The index")->required();
  c.index->require_subcommand(1);
  add_queries(*c.index, q, surface, true);
  CLI::App* all = add_query(*c.index, q, surface, "all", "Every row with that index key");
  add_word(all, q, 0, "key", "The index key")->required();
  add_rows(all, q, surface, false, true, 20);

  c.help = app.add_subcommand("help", "The commands, or a command's options")->alias("?");
  c.help->add_option("command", q.args, "A command (help index get: an index's command)")
      ->expected(0, 2);
  c.quit = app.add_subcommand("quit", "Leave the session (also Ctrl-D)")->alias("exit")->alias("q");
  return c;
}

QueryArgs query_args(const QueryFlags& q) {
  QueryArgs a;
  for (const auto& s : q.args)
    a.args.push_back(Token{s, false});
  a.index = q.index;
  a.hex = q.hex;
  a.desc = q.desc;
  a.exclusive_start = q.exclusive_start;
  a.exclusive_end = q.exclusive_end;
  a.raw = q.raw;
  a.offset = q.offset;
  a.limit = q.limit;
  return a;
}

}  // namespace drydb::cli
