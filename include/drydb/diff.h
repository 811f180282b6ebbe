// drydb::diff: what changed between two builds of a database, table by table. Each side is a
// database file or a sharded dataset (read as the one database its shards make). Rows are
// compared by a merge of both tables in key order, so memory does not grow with the tables;
// index entries likewise, in (index key, primary key) order.
//
// What counts: rows added, removed and changed (same key, other value bytes; where the two
// tables' column lists differ, another record: see TableDiff::columns_changed); a table or index
// in one side only; a table whose key encoding differs; an index whose uniqueness or key
// encoding differs; index entries added or removed. What does not: how the bytes are stored
// (page size, compression, miss filters, the format's switches, rows as maps or as arrays of a
// column list), and for a dataset how its rows are sharded.
//
// In drydb::dataset (the library that reads sharded datasets).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "drydb/database.h"
#include "drydb/result.h"
#include "drydb/sharded.h"

namespace drydb {

// One side of a diff: a database file, or a sharded dataset. Holds a reference: the database
// must outlive the diff.
class DiffSide {
 public:
  DiffSide(const ReadOnlyDatabase& file) noexcept : file_(&file) {}          // NOLINT: implicit
  DiffSide(const ShardedDatabase& dataset) noexcept : dataset_(&dataset) {}  // NOLINT: implicit

  const ReadOnlyDatabase* file() const noexcept { return file_; }
  const ShardedDatabase* dataset() const noexcept { return dataset_; }
  // The database whose tables give the side's shape (names, encodings, columns, indexes): the
  // file, or the dataset's first shard.
  const ReadOnlyDatabase& shape() const noexcept { return file_ ? *file_ : dataset_->shard(0); }

 private:
  const ReadOnlyDatabase* file_ = nullptr;
  const ShardedDatabase* dataset_ = nullptr;
};

enum class DiffChange : uint8_t { added, removed, changed };

// A row that differs, as a DiffVisitor sees it. Views are valid during the call only.
// old_table / new_table: the table's shape on each side (nullptr where it has none).
struct DiffRow {
  const ReadOnlyTable* old_table;
  const ReadOnlyTable* new_table;
  DiffChange change;
  // The primary key, encoded as its side's table encodes it (the new side's for added rows, the
  // old side's otherwise).
  std::span<const std::byte> key;
  std::span<const std::byte> old_value;  // empty for an added row
  std::span<const std::byte> new_value;  // empty for a removed row
};

// An index entry in one side only (an entry has no value that could change).
struct DiffIndexEntry {
  const ReadOnlyTable* table;            // the side's table
  const SecondaryIndex* index;           // the side's index
  DiffChange change;                     // added or removed
  std::span<const std::byte> key;        // the row's primary key
  std::span<const std::byte> index_key;  // as the index encodes it
};

// Told every difference, in table order and, within a table, in key order (its rows, then each
// index's entries). An error status ends the diff, which returns it.
class DiffVisitor {
 public:
  virtual ~DiffVisitor() = default;
  virtual status row(const DiffRow& row) = 0;
  virtual status index_entry(const DiffIndexEntry& entry) = 0;
};

struct IndexDiff {
  std::string name;
  bool in_old = false, in_new = false;
  // Both sides have it, unique on one side only or with other key encodings.
  bool shape_changed = false;
  uint64_t old_entries = 0, new_entries = 0;
  uint64_t added = 0, removed = 0;
  bool differs() const noexcept {
    return !in_old || !in_new || shape_changed || added != 0 || removed != 0;
  }
};

struct TableDiff {
  std::string name;
  bool in_old = false, in_new = false;
  // Both sides have it with other key encodings (then every row counts as removed and added:
  // keys of two encodings are not compared) or other column lists (or key columns). Then rows
  // are compared as the records they stand for, as `drydb dump` shows them (a column list's
  // array as the map of its present columns, the key column's nil as the key's text; the same
  // fields in the same order with the same values, an integer whatever its stored width), not by
  // their bytes; a column list that differs is reported but is no change of its own (differs()).
  bool key_encoding_changed = false, columns_changed = false;
  uint64_t old_rows = 0, new_rows = 0;
  uint64_t added = 0, removed = 0, changed = 0, unchanged = 0;
  // The indexes of either side: the old side's in their order, then the new side's others.
  std::vector<IndexDiff> indexes;
  bool differs() const noexcept;
};

struct DatabaseDiff {
  // The tables of either side: the old side's in their order, then the new side's others.
  std::vector<TableDiff> tables;
  bool differs() const noexcept;
};

struct DiffOptions {
  // Only these tables (all when empty); a name neither side has is errc::not_found.
  std::vector<std::string> tables;
  // Compare index entries too (definitions are compared either way).
  bool index_entries = true;
};

// Compares `old_side` with `new_side`; `visitor` (may be null: counts only) is told each
// difference. Errors: a read error of either side (a corrupt page); errc::not_found for an unknown
// table in options.tables; the visitor's.
result<DatabaseDiff> diff(const DiffSide& old_side, const DiffSide& new_side,
                          const DiffOptions& options = {}, DiffVisitor* visitor = nullptr);

}  // namespace drydb
