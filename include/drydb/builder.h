// DatabaseBuilder and TableBuilder: write one immutable .drydb file.
//
//   drydb::DatabaseBuilder builder({.page_size = 4096});
//   auto& items = builder.create_table("items", drydb::KeyEncoding::bytes());
//   items.append("key1", "value1");                 // any order; the builder sorts
//   if (auto st = builder.build_to_file("items.drydb"); !st) { ... st.error().message ... }
//
// Errors are sticky (as in LevelDB's TableBuilder): append and create_table
// record the first error and ignore later calls; build_* returns it.
// (append_columns and append_values return a bad batch's error instead, and
// record nothing.) A builder is single-threaded and builds once.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "drydb/columns.h"
#include "drydb/key.h"
#include "drydb/key_encoding.h"
#include "drydb/options.h"
#include "drydb/result.h"

namespace drydb {

namespace detail {
class BuilderState;
struct TableState;
}  // namespace detail

// A secondary index's key for one row: a key, std::nullopt to leave the row
// out of the index (a sparse index), or an Error, which fails the build: its
// code is build_to_*'s, its message follows the table, index and row it came
// from. (A function that cannot compute a key, such as a Python callable that
// raised, says so this way; returning a key of the wrong kind would be
// reported as errc::wrong_key_type instead.) `key` is the row's encoded
// primary key (for int64 tables: 8 bytes big-endian with the sign bit
// flipped, see int64_to_ordered), `value` its value. Called once per row at
// build time, in primary-key order, from the thread that builds. A function
// that returns std::optional<IndexKey> (or anything an IndexKey is made from)
// converts to this type.
using IndexKeyFunction = std::function<result<std::optional<IndexKey>>(
    std::span<const std::byte> key, std::span<const std::byte> value)>;

class TableBuilder {
 public:
  // Copies the key and value. Records errc::key_too_long (key over
  // max_key_length), errc::wrong_key_type (e.g. text for an int64 table) or
  // errc::value_too_large (4 GiB or more); a duplicate key is found when the
  // rows are sorted and fails the build with errc::duplicate_key. Messages name
  // the table and the key.
  TableBuilder& append(const Key& key, std::span<const std::byte> value);
  TableBuilder& append(const Key& key, std::string_view value) {
    return append(key, std::as_bytes(std::span(value.data(), value.size())));
  }

  // Appends a batch of rows given as columns (drydb/columns.h), whole or not
  // at all: row i's key is keys' value i; its value is a row of the table's
  // column list (set_columns, required), each field from the column of its
  // name in `columns`, MessagePack of the column's type. A column the list
  // names but `columns` lacks, and a null, leave the row without that field
  // (nil; the array ends at its last field, or at the key column). At the key column, a text
  // field equal to the key's text is stored as nil, which stands for it (docs/format.md,
  // "Column lists"; a nil reads back as text: a bytes or number field is stored as it is); a
  // missing key column stands for the key too. Keys: an integer column for int64 tables (a uint64
  // over INT64_MAX is refused), text or bytes for the others (UUID and ULID tables take 16-byte
  // bytes or their text).
  //
  // The batch is checked whole before any row is appended. A bad batch
  // returns errc::invalid_argument (a null key, a column of another length,
  // a column not in the list or given twice, offsets out of order),
  // errc::wrong_key_type (a key column of the wrong type: floats for int64
  // keys), errc::key_too_long or errc::value_too_large, its message naming
  // the table, the column and the first bad row; it appends nothing and
  // records nothing, so the builder goes on. The builder's own first error
  // (a failed spill, a build done) is returned as it is from status().
  drydb::status append_columns(const ColumnView& keys, std::span<const ColumnView> columns);
  // The same for values given whole: row i's value is `values`' value i (text
  // or bytes; a null is an empty value), checked against the column list as
  // append() checks a value when the table has one.
  drydb::status append_values(const ColumnView& keys, const ColumnView& values);

  // Declares a secondary index, stored as its own tree with subtree counts.
  // At build time `index_key` gives each row's index key (of `encoding`'s
  // kind), or none. A unique index fails the build with errc::duplicate_key
  // naming both rows' primary keys when two rows give one index key; a
  // non-unique index returns the rows of one index key in primary-key order.
  // Records errc::invalid_argument for a name that is empty or over 255 bytes
  // or a missing function, errc::duplicate_name for a name this table already
  // uses. Index keys obey the limits of primary keys (errc::key_too_long,
  // errc::wrong_key_type, reported with the row at build time); in a
  // non-unique index a key also takes 8 bytes more, and each 0x00 byte of a
  // variable-length key 2 bytes.
  TableBuilder& add_secondary_index(std::string_view name, bool unique, KeyEncoding encoding,
                                    IndexKeyFunction index_key);

  // Gives the table a miss filter of at most `bits_per_key` bits per row
  // (1 to 32; 10 answers about 99% of gets of absent keys from one cache
  // line, for 1.25 bytes per row in the file): a blocked Bloom filter over
  // the primary keys, which get() and get_many() test before descending the
  // tree. A present key always passes. Costs a get of a present key one
  // hash and one more cache line; ranges, cursors and index queries do not
  // use it. The builder holds the filter in memory while it writes the
  // table. Called again, the last size counts. Records errc::invalid_argument
  // for a size outside 1 .. 32. An empty table gets no filter.
  TableBuilder& add_miss_filter(uint32_t bits_per_key = 10);

  // Declares the table's values rows of these columns, their names stored
  // once in the file (format 2.3) instead of in every row. Each value must
  // then be a MessagePack array whose element i is column i's value, nil
  // when the row has no such column; an array shorter than the list leaves
  // out the last columns. `key_column`, when given, is the key's position
  // among the columns: a row may store nil there, which stands for the key's
  // text (KeyEncoding::column_text), so the key need not be stored twice.
  // (A row shorter than the key column's position does not hold the key.)
  //
  // append() checks each row's shape (errc::invalid_argument: not one
  // well-formed array, or more fields than columns) and verify() each stored
  // row. ReadOnlyTable::columns() gives the list back; drydb/msgpack.h's
  // typed tables and the drydb tool read such rows as maps (a typed builder
  // stores the maps it packs as such rows). Must come before the table's
  // first row. Records errc::invalid_argument for no names or more than
  // 65,534, a name empty or over 255 bytes, a key column outside the list,
  // or rows already appended; errc::duplicate_name for a name given twice.
  TableBuilder& set_columns(std::vector<std::string> names,
                            std::optional<uint32_t> key_column = std::nullopt);

  std::string_view name() const noexcept;
  KeyEncoding encoding() const noexcept;
  // The column list given to set_columns (empty without one) and the key's
  // position in it.
  std::span<const std::string> columns() const noexcept;
  std::optional<uint32_t> key_column() const noexcept;
  uint64_t rows_appended() const noexcept;
  // The builder's first error so far, if any.
  const drydb::status& status() const noexcept;

 private:
  friend struct detail::TableState;
  explicit TableBuilder(detail::TableState* state) : state_(state) {}
  detail::TableState* state_;
};

class DatabaseBuilder {
 public:
  explicit DatabaseBuilder(BuildOptions options = {});
  ~DatabaseBuilder();
  // TableBuilder references stay valid across a move. A moved-from builder
  // may only be destroyed or assigned to.
  DatabaseBuilder(DatabaseBuilder&&) noexcept;
  DatabaseBuilder& operator=(DatabaseBuilder&&) noexcept;

  // Adds a table. The reference stays valid for the builder's life. A name
  // that is empty, over 255 bytes or already used records an error.
  TableBuilder& create_table(std::string_view name, KeyEncoding encoding = KeyEncoding::bytes());

  // Writes the database atomically: to a temp file beside `path` (named
  // .<name>.tmp-XXXXXX), fsync, rename over `path`, fsync the folder. On an
  // error before the rename `path` is untouched and the temp file removed; a
  // failed fsync of the folder after it is reported, with `path` complete.
  // The new file takes the old one's permissions, else 0666 less the umask.
  // A symlink at `path` stays: its final target is the file replaced. A
  // `path` that is a device, FIFO, socket or folder is refused
  // (errc::invalid_argument), never replaced.
  drydb::status build_to_file(const std::filesystem::path& path);
  // The database's bytes.
  result<std::vector<std::byte>> build_to_memory();

  // The first error recorded so far, if any.
  const drydb::status& status() const noexcept;

 private:
  std::unique_ptr<detail::BuilderState> state_;
};

}  // namespace drydb
