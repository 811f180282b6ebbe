// drydb: the command-line tool. `drydb FILE` opens an interactive session;
// `drydb get|scan|range|prefix|count|tables|info|stats|verify|dump FILE ...`
// answer one query for scripts; `drydb diff OLD NEW` compares two builds;
// `drydb build OUT` makes a database from JSON Lines, CSV or TSV; `drydb shard ...`
// works on sharded datasets, which every read command also reads. docs/cli.md
// documents every command and flag.
//
// Data goes to stdout, diagnostics to stderr. Exit status: 0 success, 1 not
// found (`get` of a key that is not there) or, for `diff`, builds that differ, 2 any error,
// bad usage included.
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "drydb/limits.h"

#include "commands/build.h"
#include "commands/diff.h"
#include "commands/dump.h"
#include "commands/query_commands.h"
#include "commands/session.h"
#include "commands/shard.h"
#include "commands/shell.h"
#include "common.h"
#include "io/output_file.h"
#include "io/render.h"
#include "test_pause.h"

#ifndef DRYDB_VERSION
#define DRYDB_VERSION "unknown"
#endif

namespace drydb::cli {
namespace {

// Edits (insertions, deletions, substitutions, swaps of neighbours) from a to b: how far a
// mistyped command is from a real one.
size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i)
    d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j)
    d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min(
          {d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

// The options of the commands that are not queries (query_commands.h declares those).
struct OtherFlags {
  std::vector<std::string> tables;  // dump's and diff's
  std::string output;
  bool echo = false;
  size_t max_line = kDefaultMaxRecord;
};

int run(int argc, char** argv) {
  CLI::App app("drydb: query, build and check drydb read-only databases", "drydb");
  app.set_version_flag("--version", fmt::format("drydb {} (file format {}.{})", DRYDB_VERSION,
                                                drydb::kFormatMajor, drydb::kFormatMinor));
  app.require_subcommand(1);
  app.footer(
      "Run `drydb FILE` for an interactive session. `drydb COMMAND --help` for a command's "
      "flags; docs/cli.md for all of them.\nExit status: 0 success, 1 not found (get) or "
      "builds that differ (diff), 2 any error, bad usage included.");
  QueryFlags q;
  OtherFlags o;
  // Global: before or after the command (subcommands pass options they do not know to the app).
  bool mmap = false;
  app.add_flag("--mmap", mmap,
               "Read database files mapped (faster; a file truncated under a running command "
               "then kills it with SIGBUS)");
  app.fallthrough();

  auto* shell = app.add_subcommand("shell", "Interactive session on a database (also: drydb FILE)");
  add_file_option(shell, q.file);
  add_table_option(shell, q.table);
  shell->add_flag("--echo", o.echo, "Print the prompt and each command read from a script");
  add_max_record_option(shell, &o.max_line, "a script line");

  const QueryCommands queries = add_query_commands(app, q, Surface::command_line);

  auto* verify = app.add_subcommand(
      "verify", "Check every checksum and tree invariant (exit 2 at the first fault)");
  add_file_option(verify, q.file);

  auto* dump =
      app.add_subcommand("dump", "The database as JSON Lines that `drydb build` reads back");
  add_file_option(dump, q.file);
  dump->add_option("-t,--table", o.tables, "Dump only these tables (repeatable)")
      ->allow_extra_args(false);
  dump->add_option("-o,--output", o.output, "Write to this file instead of stdout");

  auto* diff = app.add_subcommand(
      "diff", "What changed between two builds, table by table (exit 1 when they differ)");
  std::string diff_old, diff_new;
  bool diff_stat = false, diff_keys = false, diff_rows = false;
  diff->add_option("old", diff_old, "The older build: a file, dataset, generation or manifest")
      ->required();
  diff->add_option("new", diff_new, "The newer build")->required();
  auto* stat_flag =
      diff->add_flag("--stat", diff_stat, "Counts per table and index, as JSON Lines");
  auto* keys_flag =
      diff->add_flag("--keys", diff_keys, "The keys of the rows that differ, as JSON Lines");
  auto* rows_flag = diff->add_flag("--rows", diff_rows, "The rows that differ, as JSON Lines");
  stat_flag->excludes(keys_flag)->excludes(rows_flag);
  keys_flag->excludes(rows_flag);
  diff->add_option("-t,--table", o.tables, "Compare only these tables (repeatable)")
      ->allow_extra_args(false);

  BuildCommand build(app);
  ShardCommand shard(app);

  // `drydb FILE [...]` is `drydb shell FILE [...]`.
  std::vector<std::string> args(argv + 1, argv + argc);
  // The first word after the global flags.
  size_t first = 0;
  while (first < args.size() && args[first] == "--mmap")
    ++first;
  if (first < args.size() && !args[first].empty() && args[first][0] != '-') {
    const std::string& word = args[first];
    std::set<std::string> names;
    for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
      names.insert(sub->get_name());
    if (!names.count(word)) {
      // A word that names no file but is a command's near miss is a mistyped command, not a
      // database to open a session on.
      std::error_code ec;
      if (!std::filesystem::exists(word, ec))
        for (const std::string& name : names)
          if (edit_distance(word, name) <= std::min<size_t>(2, name.size() / 2))
            fail_usage(fmt::format("unknown command '{}'; did you mean '{}'?", word, name));
      args.insert(args.begin() + static_cast<std::ptrdiff_t>(first), "shell");
    }
  }
  std::reverse(args.begin(), args.end());  // CLI11 takes them reversed
  try {
    app.parse(args);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    write_err(fmt::format("drydb: {}\n", e.what()));
    write_err("Run 'drydb --help' (or 'drydb COMMAND --help') for usage.\n");
    return kExitUsage;
  }

  use_mapped_reads(mmap);
  const Format format = parse_format(q.format);
  if (shell->parsed()) return run_shell({q.file, q.table, o.echo, o.max_line});
  if (build.subcommand()->parsed()) return build.run();
  if (shard.subcommand()->parsed()) return shard.run();
  if (verify->parsed() && is_dataset(q.file)) {
    verify_dataset(q.file, stdout);
    return kExitOk;
  }
  if (verify->parsed()) {
    const ReadOnlyDatabase db = open_database(q.file);
    if (auto st = db.verify(); !st) fail(fmt::format("{}: {}", q.file, st.error().message));
    size_t n = db.tables().size(), ix = 0;
    for (const auto& t : db.tables())
      ix += t.indexes().size();
    write_out(
        stdout,
        fmt::format("ok: {}: {} table{}, {} index{}; every checksum and tree invariant holds\n",
                    q.file, n, n == 1 ? "" : "s", ix, ix == 1 ? "" : "es"));
    return kExitOk;
  }
  if (diff->parsed()) {
    const DiffMode mode = diff_stat   ? DiffMode::stat
                          : diff_keys ? DiffMode::keys
                          : diff_rows ? DiffMode::rows
                                      : DiffMode::summary;
    return run_diff(diff_old, diff_new, mode, o.tables, stdout);
  }
  if (dump->parsed()) {
    if (o.output.empty()) {
      run_dump(q.file, o.tables, stdout);
      return kExitOk;
    }
    if (same_file(q.file, o.output))
      fail_usage(fmt::format("the output '{}' is the database being dumped", o.output));
    if (is_dataset(q.file)) refuse_output_in(open_dataset(q.file), o.output);
    // Replaced only by a complete dump: a failed or interrupted one leaves the file as it was.
    OutputFile out(o.output);
    catch_interrupts(true);
    run_dump(q.file, o.tables, out.stream());
    catch_interrupts(false);
    out.commit();
    return kExitOk;
  }

  Session session(q.file, q.table, /*shell=*/false, format, stdout);
  const QueryArgs a = query_args(q);
  if (queries.get->parsed()) return session.get(a) ? kExitOk : kExitNotFound;
  if (queries.scan->parsed())
    session.scan(a, ScanWhat::rows);
  else if (queries.range->parsed())
    session.range(a);
  else if (queries.prefix->parsed())
    session.prefix(a);
  else if (queries.count->parsed())
    session.count(a);
  else if (queries.tables->parsed())
    session.tables();
  else if (queries.info->parsed())
    session.info();
  else if (queries.stats->parsed())
    session.stats(q.table.empty());
  return kExitOk;
}

}  // namespace
}  // namespace drydb::cli

int main(int argc, char** argv) {
  drydb::cli::init_test_pauses();
  int status;
  try {
    status = drydb::cli::run(argc, argv);
  } catch (const drydb::cli::CliError& e) {
    std::fflush(stdout);
    drydb::cli::write_err(fmt::format("drydb: {}\n", e.what()));
    status = e.code();
  } catch (const std::exception& e) {
    std::fflush(stdout);
    drydb::cli::write_err(fmt::format("drydb: {}\n", e.what()));
    status = drydb::cli::kExitError;
  }
  if (const int err = drydb::cli::flush_output(stdout); err != 0) {
    drydb::cli::write_err(fmt::format("drydb: cannot write the output: {}\n", std::strerror(err)));
    // An error whatever the command found: `diff`'s 1 ("differ") or `get`'s ("not found") would
    // pass a cut output for a complete one.
    status = drydb::cli::kExitError;
  }
  return status;
}
