// The query commands of the drydb tool, shared by the interactive session and
// the scripting commands (`drydb get FILE KEY` ...): one open database (a file,
// or a sharded dataset's generation read as one, docs/sharding.md) and a
// current table, printing to one stream in one style.
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "drydb/database.h"
#include "drydb/index.h"
#include "drydb/sharded.h"
#include "io/render.h"

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
  // Opens `path` (a CliError when it cannot): a database file, or a dataset
  // (is_dataset); selects `table`, or the first table when empty. `shell` selects the session's
  // style: numbered rows, footers, default limits; otherwise rows print in `format`.
  Session(const std::string& path, const std::string& table, bool shell, Format format,
          std::FILE* out);

  const std::string& path() const noexcept { return path_; }
  // Whether the session reads a sharded dataset rather than one file.
  bool sharded() const noexcept { return dataset_.has_value(); }
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
  // The rows (or index entries) of a sharded target between two bounds, or
  // with a prefix, printed as the file's walks print them.
  uint64_t walk_sharded(const Target& t, const KeyBound& start, const KeyBound& end,
                        const RangeOptions& o, const std::string* prefix, uint64_t offset,
                        uint64_t limit, RowPrinter& printer) const;
  void dataset_info();

  std::string path_;
  std::optional<ReadOnlyDatabase> db_;      // a file's
  std::optional<ShardedDatabase> dataset_;  // or a dataset's, read as one
  // The current table: a file's, or for a dataset its first shard's (which
  // gives its column list) beside the table across the shards.
  std::optional<ReadOnlyTable> table_;
  std::optional<ShardedTable> sharded_table_;
  bool shell_;
  Format format_;
  std::FILE* out_;
};

// Opens a database for the tool: a CliError naming the file when it fails.
ReadOnlyDatabase open_database(const std::string& path);

// Whether `path` names a sharded dataset (docs/sharding.md) rather than a
// database file: a folder (a dataset or one of its gen-N folders), or a
// manifest file (JSON text, where a database file starts with its magic).
bool is_dataset(const std::string& path);

// Opens a dataset for the tool, checking its manifest against every shard
// (and, with `checksums`, each shard's XXH3-64): a CliError naming the path
// when it fails.
ShardedDatabase open_dataset(const std::string& path, bool checksums = false);

// A usage error when `output` would be written inside the dataset `ds` reads: anywhere under its
// dataset folder (every generation, CURRENT, HIGHEST), or under the generation's folder when it
// is not a dataset's gen-N. Symlinks are resolved first.
void refuse_output_in(const ShardedDatabase& ds, const std::string& output);

// How open_database reads files from then on: through pread and a page cache (the default), or
// mapped (`--mmap`). See open_database for why pread is the default.
void use_mapped_reads(bool mapped);

}  // namespace drydb::cli
