// `drydb dump FILE`: the whole database (or dataset, read as one) as JSON Lines that `drydb build`
// reads back into an equivalent database.
//
// Line 1, the header: {"drydb_dump":2,"page_size":N,"filters":[...],"tables":[{"name":...,
//   "key_encoding":...,"indexes":[{"name":...,"unique":...,"key_encoding":...}]}]}
// Then per row:         {"table":T,"key":K,"value":V}
// and per index entry:  {"table":T,"index":I,"key":K,"index_key":X}
// Last, written only when every row and entry was: the end, which says how many
// came, so that `drydb build` refuses a dump that was cut (format 1 had none):
//   {"drydb_dump_end":{"rows":{T:N,...},"index_entries":{T:{I:N,...},...}}}
// Keys: a number for int64, text for UUID, ULID and UTF-8 bytes, {"base64":...}
// for other bytes. Values: text when UTF-8, {"msgpack":JSON} when the JSON
// holds the MessagePack exactly, else {"base64":...}.
#pragma once

#include <cstdio>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "drydb/table.h"
#include "io/msgpack.h"

namespace drydb::cli {

// A table's values as the dump writes them (also `drydb diff`'s rows).
class DumpValues {
 public:
  explicit DumpValues(const ReadOnlyTable& t);
  // Appends the JSON of the row of `key` whose stored value is `value` to `line`.
  void append(std::string& line, std::span<const std::byte> key,
              std::span<const std::byte> value) const;

 private:
  std::optional<RowColumns> columns_;
  mutable std::string map_, again_, err_, json_;  // scratch, reused from row to row
};

// Dumps `tables` (all when empty) of the database at `path` to `out`.
void run_dump(const std::string& path, const std::vector<std::string>& tables, std::FILE* out);

}  // namespace drydb::cli
