// The query commands' CLI11 definitions, written once for the two places they are typed: the
// command line (`drydb get FILE KEY --hex`, main.cpp) and the interactive session (`get KEY
// --hex`, shell.cpp). A command's name, description, arguments and options are declared here
// alone, so both parse them alike and both helps come from the same words.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli11_fwd.h"
#include "commands/session.h"

namespace drydb::cli {

// Where the commands are typed. On the command line each query names its database file first
// and takes -t, -x and -f; in the session those are the session's (`use`, `index NAME ...`),
// and scan, keys, values and prefix also take their [offset] [limit] or [limit] as plain words.
enum class Surface { command_line, shell };

// What a query command's words are parsed into. Reset it (`= {}`) before each parse: CLI11
// writes only what a command line gives.
struct QueryFlags {
  std::string file;   // the command line's database
  std::string table;  // -t; `use`'s table
  std::string index;  // -x; `index NAME ...`'s name
  std::string format = "text";
  bool hex = false, desc = false, exclusive_start = false, exclusive_end = false, raw = false;
  std::optional<uint64_t> limit, offset;
  // The keys, bounds or prefix, in the order typed (help: the command asked about).
  std::vector<std::string> args;
};

// The queries of a table and of an index, declared alike on the app itself and on the session's
// `index NAME`.
struct Queries {
  CLI::App *get = nullptr, *scan = nullptr, *range = nullptr, *prefix = nullptr, *count = nullptr;
};

// The commands add_query_commands declared; a command the surface lacks is null.
struct QueryCommands : Queries {
  CLI::App *tables = nullptr, *info = nullptr, *stats = nullptr;
  // The session's own.
  CLI::App *keys = nullptr, *values = nullptr, *use = nullptr, *indexes = nullptr, *index = nullptr,
           *help = nullptr, *quit = nullptr;
};

// Declares the query commands on `app`, their arguments and options bound to `q`: get, scan,
// range, prefix, count, tables, info and stats on both surfaces; in the session also keys,
// values, use, indexes, index NAME get|all|range|count|prefix|scan, help (alias ?) and quit
// (aliases exit, q).
QueryCommands add_query_commands(CLI::App& app, QueryFlags& q, Surface surface);

// The database file, a command's first positional on the command line.
void add_file_option(CLI::App* command, std::string& file);
// -t, --table.
void add_table_option(CLI::App* command, std::string& table);

// The parsed words as Session takes them; every positional unquoted.
QueryArgs query_args(const QueryFlags& q);

}  // namespace drydb::cli
