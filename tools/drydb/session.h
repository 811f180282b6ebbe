// The query commands of the drydb tool, shared by the interactive session and
// the scripting commands (`drydb get FILE KEY` ...): one open database and a
// current table, printing to one stream in one style.
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "drydb/database.h"
#include "drydb/index.h"
#include "render.h"

namespace drydb::cli {

// A word of a command: `quoted` when it was written in quotes in the session
// (a quoted "*" is the key "*", not an open range end).
struct Token {
  std::string text;
  bool quoted = false;
};

struct QueryArgs {
  std::vector<Token> args;  // the command's positional arguments
  std::string index;        // query this secondary index instead of the table
  bool hex = false;         // keys typed and shown, values shown, as hex digits
  bool desc = false;
  bool exclusive_start = false;
  bool exclusive_end = false;
  bool raw = false;  // get: the value's bytes exactly, nothing else
  std::optional<uint64_t> offset;
  std::optional<uint64_t> limit;
};

enum class ScanWhat { rows, keys, values };

class Session {
 public:
  // Opens `path` (a CliError when it cannot) and selects `table`, or the
  // first table when empty. `shell` selects the session's style: numbered
  // rows, footers, default limits; otherwise rows print in `format`.
  Session(const std::string& path, const std::string& table, bool shell, Format format,
          std::FILE* out);

  const std::string& path() const noexcept { return path_; }
  // The current table's name; empty when the database has no table.
  std::string table_name() const;
  std::vector<std::string> table_names() const;
  std::vector<std::string> index_names() const;
  void use(const std::string& table);

  // Each prints its result; errors are CliErrors. get returns whether the key was found.
  bool get(const QueryArgs& a);
  void scan(const QueryArgs& a, ScanWhat what);
  void range(const QueryArgs& a);
  void prefix(const QueryArgs& a);
  void count(const QueryArgs& a);
  void tables();
  void indexes();
  void info();
  // Statistics of the current table (and its indexes), or of every table.
  void stats(bool all_tables);

 private:
  struct Target;
  Target target(const QueryArgs& a) const;
  const ReadOnlyTable& current() const;
  RowStyle style(const Target& t, const QueryArgs& a) const;
  void footer(const std::string& text);

  std::string path_;
  ReadOnlyDatabase db_;
  std::optional<ReadOnlyTable> table_;
  bool shell_;
  Format format_;
  std::FILE* out_;
};

// Opens a database for the tool: a CliError naming the file when it fails.
ReadOnlyDatabase open_database(const std::string& path);

// How open_database reads files from then on: through pread and a page cache (the default), or
// mapped (`--mmap`). See open_database for why pread is the default.
void use_mapped_reads(bool mapped);

}  // namespace drydb::cli
