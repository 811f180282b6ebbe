// The keys and index keys `drydb build` makes from fields: a table's key
// from its key column, an index's key from the column it indexes, and the
// text and kind of a field for globs and messages.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "drydb/key_encoding.h"
#include "io/msgpack.h"
#include "io/records.h"

namespace drydb::cli {

// A secondary index as --index (or a dump's header) declares it.
struct IndexSpec {
  std::string name;
  std::string column;
  bool unique = false;
  KeyEncoding encoding = KeyEncoding::bytes();
  int radix = 10;
  std::optional<std::string> skip;  // glob on the value's text: rows left out
};

// Where an index's column comes from: a field of the record stored as a
// MessagePack map, a field of the record stored as a row of the table's
// column list (at the column's position), the value stored as it is
// (--value), the table's key, or the entries a dump lists.
enum class IndexSource { record, row, raw_value, key, dump };

struct IndexRuntime {
  IndexSpec spec;
  IndexSource source = IndexSource::record;
  Column column;  // spec.column in the input (for CSV/TSV, with its position)
  uint32_t max_key = 0;
  // From a dump: its entries by primary key, each marked used once the index function met its
  // row (at build time, which counts the rows it saw and the entries they used).
  struct DumpEntry {
    std::string index_key;
    bool used = false;
  };
  std::unordered_map<std::string, DumpEntry> dump_entries;
  uint64_t dump_records = 0;  // the dump's entries of this index, bad ones too
  uint64_t dump_rows_seen = 0, dump_entries_used = 0;
  bool dump_entry_unused = false;  // set at the table's last row: the build then fails
};

// The text of a scalar field (for byte keys, globs and messages), in *out
// (which may point into *buf); false for a kind that has none.
bool scalar_text(const Scalar& s, std::string* buf, std::string_view* out);

// The kind of a field, as a message names it: "null", "a boolean", ...
const char* kind_name(const Scalar& s);

// Encodes a field as a key of `enc`. Returns false with *error set.
bool encode_key(const Scalar& s, KeyEncoding enc, int radix, std::string* out, std::string* error);

// The index key of one row (its encoded key and stored value), exactly as the
// build computes it; nullopt for no entry. False with *error for a value the
// index cannot take. The field an index on a record column takes is read from
// the stored MessagePack with msgpack_field.
bool index_key_of(const IndexRuntime& ix, KeyEncoding table_encoding, std::string_view key,
                  std::string_view value, std::optional<std::string>* out, std::string* error);

// The same from the field the index takes, `s` (index_key_of's last step):
// while the input is read, an index on a record column gets it from
// Record::stored_field, which gives what msgpack_field will read back.
bool index_key_of_field(const IndexRuntime& ix, const Scalar& s, std::optional<std::string>* out,
                        std::string* error);

}  // namespace drydb::cli
