// A columnar append's rows (TableBuilder::append_columns, append_values):
// the batch checked whole first, then each row's encoded key and value made
// on demand, so that a bad batch appends nothing and a good one needs no
// copy of itself.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "drydb/columns.h"
#include "drydb/key_encoding.h"
#include "drydb/result.h"

namespace drydb::detail {

// What a columnar append needs to know of its table.
struct ColumnBatchTable {
  std::string_view name;
  KeyEncoding encoding = KeyEncoding::bytes();
  uint32_t max_key_length = 0;
  std::span<const std::string> columns;  // the column list; empty for none
  uint32_t key_column = 0;               // kNoKeyColumn for none
};

class ColumnBatch {
 public:
  // Rows of the table's column list from named columns (append_columns).
  static result<ColumnBatch> of_columns(const ColumnBatchTable& table, const ColumnView& keys,
                                        std::span<const ColumnView> columns);
  // The keys alone (for_each_encoded_key): row(i)'s value is empty.
  static result<ColumnBatch> of_keys(const ColumnBatchTable& table, const ColumnView& keys);
  // Rows whose values are one text or bytes column (append_values).
  static result<ColumnBatch> of_values(const ColumnBatchTable& table, const ColumnView& keys,
                                       const ColumnView& values);

  size_t rows() const noexcept { return keys_.length; }
  // Row i's encoded key and value; both valid until the next call.
  std::pair<std::span<const std::byte>, std::span<const std::byte>> row(size_t i);
  // Row i's encoded key alone; valid until the next call.
  std::span<const std::byte> encode_key(size_t i);

 private:
  ColumnBatch(const ColumnBatchTable& table, const ColumnView& keys) : table_(table), keys_(keys) {}

  status check_keys() const;
  void pack_row(size_t i, std::span<const std::byte> key);
  bool stands_for_key(const ColumnView& c, size_t i, std::span<const std::byte> key) const;

  ColumnBatchTable table_;
  ColumnView keys_;
  // of_columns: the column at each position of the list, or nullptr.
  std::vector<const ColumnView*> slots_;
  // of_values: the values.
  bool raw_values_ = false;
  ColumnView values_;
  std::byte key_scratch_[8];
  std::string parsed_key_;
  std::vector<std::byte> value_;
};

}  // namespace drydb::detail
