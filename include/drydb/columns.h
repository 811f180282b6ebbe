// Columnar appends: a batch of rows given as columns, a key column and value
// columns, appended to a TableBuilder in one call (TableBuilder::
// append_columns, append_values). The columns are read in place, in the
// layouts of Arrow's C data interface and of NumPy's arrays; each row is
// packed by the builder, with no call per row.
//
//   const int64_t ids[] = {3, 1, 2};
//   const double scores[] = {9.5, 7.0, 8.25};
//   const int32_t name_offsets[] = {0, 3, 6, 9};
//   drydb::ColumnView columns[] = {
//       drydb::ColumnView::fixed("id", drydb::ColumnType::int64, ids, 3),
//       drydb::ColumnView::fixed("score", drydb::ColumnType::float64, scores, 3),
//       drydb::ColumnView::strings("name", drydb::ColumnType::text, name_offsets, "AdaBobCyd", 3)};
//   users.set_columns({"id", "name", "score"}, 0);
//   if (auto st = users.append_columns(columns[0], columns); !st) { ... }
//
// The caller keeps every buffer alive and unchanged for the call; the builder
// copies what it keeps.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string_view>

#include "drydb/key_encoding.h"
#include "drydb/result.h"

namespace drydb {

// A column's values. A row stores each as MessagePack (docs/format.md,
// "Column lists"): boolean as bool, the integers as MessagePack's smallest
// integer that holds the value, float32 and float64 as such, text as str,
// bytes as bin, timestamp as MessagePack's timestamp (extension type -1,
// the shortest of its three forms).
enum class ColumnType : uint8_t {
  boolean,  // one byte per value, 0 false, anything else true
  int8,
  int16,
  int32,
  int64,
  uint8,
  uint16,
  uint32,
  uint64,
  float32,
  float64,
  text,       // UTF-8 (not checked)
  bytes,      // any bytes
  timestamp,  // int64 counts of `unit` since 1970-01-01T00:00:00Z
};

enum class TimeUnit : uint8_t { second, millisecond, microsecond, nanosecond };

// The name of a ColumnType, as messages give it ("int64", "text"...).
std::string_view column_type_name(ColumnType type) noexcept;
// The bytes of one value of a fixed-width type (boolean: 1); 0 for text and
// bytes.
size_t column_type_width(ColumnType type) noexcept;

// One column of `length` values. Fill it through the factories below; the
// fields say where each value is.
struct ColumnView {
  // The column's name: for append_columns, the table's column it fills; in
  // every error message about it.
  std::string_view name;
  ColumnType type = ColumnType::int64;
  TimeUnit unit = TimeUnit::nanosecond;  // timestamp only
  size_t length = 0;

  // Fixed-width types, and text or bytes of fixed width: value i starts at
  // values + i * stride. (The factories take a stride of 0 as the values side
  // by side; set the field to 0 after for one value repeated, as in NumPy's
  // broadcast arrays.)
  const void* values = nullptr;
  ptrdiff_t stride = 0;
  // Text and bytes with offsets (Arrow's utf8, binary and their large forms):
  // value i is data[offsets[i] .. offsets[i + 1]), offsets of 64 bits when
  // wide_offsets, else of 32; the offsets are checked (never decreasing,
  // never negative). Without offsets: `width` bytes at values + i * stride;
  // with trim_zeros, trailing zero bytes are not part of the value (NumPy's
  // "S" arrays), else they are (Arrow's fixed-size binary).
  const void* offsets = nullptr;
  bool wide_offsets = false;
  const std::byte* data = nullptr;
  size_t width = 0;
  bool trim_zeros = false;

  // Nulls: value i is null when bit validity_bit + i of `validity` is 0
  // (Arrow's validity bitmap, least significant bit first), when null_mask[i]
  // is not 0 (NumPy and pandas masks), or, with missing_sentinels, when a
  // float is NaN or a timestamp INT64_MIN (pandas' NaN and NaT).
  const uint8_t* validity = nullptr;
  size_t validity_bit = 0;
  const uint8_t* null_mask = nullptr;
  bool missing_sentinels = false;

  // `length` fixed-width values of `type` (not text or bytes), `stride`
  // bytes apart (0: side by side).
  static ColumnView fixed(std::string_view name, ColumnType type, const void* values, size_t length,
                          ptrdiff_t stride = 0) noexcept;
  // `length` timestamps in `unit`.
  static ColumnView timestamps(std::string_view name, const int64_t* counts, size_t length,
                               TimeUnit unit, ptrdiff_t stride = 0) noexcept;
  // Text or bytes by offsets: `length` + 1 offsets into `data`.
  static ColumnView strings(std::string_view name, ColumnType type, const int32_t* offsets,
                            const void* data, size_t length) noexcept;
  static ColumnView strings(std::string_view name, ColumnType type, const int64_t* offsets,
                            const void* data, size_t length) noexcept;
  // Text or bytes of `width` bytes each.
  static ColumnView fixed_width_strings(std::string_view name, ColumnType type, const void* values,
                                        size_t width, size_t length, bool trim_zeros,
                                        ptrdiff_t stride = 0) noexcept;

  bool is_null(size_t i) const noexcept;
};

// Each key of `keys` encoded as a table of `encoding` orders it (the bytes
// append_columns appends; for routing rows to shards, docs/sharding.md):
// checks every key first, with append_columns' errors (the key length limit
// aside), then calls visit(i, encoded key i) in row order; the span is valid
// for that call.
status for_each_encoded_key(const ColumnView& keys, KeyEncoding encoding,
                            const std::function<void(size_t, std::span<const std::byte>)>& visit);

}  // namespace drydb
