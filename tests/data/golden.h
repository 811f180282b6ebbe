// The model every golden file under tests/data is written from and checked against: files of
// tables of rows (encoded keys, values), their secondary indexes, miss filters (format 2.1) and
// column lists (format 2.3), computed from fixed formulas. Each format version's folder holds its
// files and their model (tests/data/format2/format2_files.h for 2.0, format2.N/format2_N_files.h
// for 2.N), written once by that version's builder; tests/format/format2_compat_test.cpp opens
// them with today's reader and checks every row and index entry against the same model.
//
// This header is compiled against the library of every format version a golden file was
// written with (see golden_writer.h), so it uses nothing but drydb's key types.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "drydb/drydb.h"

namespace drydb_golden {

struct Row {
  std::string key;    // encoded key bytes
  std::string value;  // the value bytes
};

struct IndexSpec {
  std::string name;
  bool unique;
  drydb::KeyEncoding encoding;
  // The row's encoded index key, or nullopt to leave it out.
  std::function<std::optional<std::string>(const Row&)> key_of;
};

struct TableSpec {
  std::string name;
  drydb::KeyEncoding encoding;
  std::vector<Row> rows;  // ascending by key
  std::vector<IndexSpec> indexes;
  // Format 2.1: the miss filter's bits per key (TableBuilder::add_miss_filter); 0 for none. An
  // empty table gets no filter whatever it asks for.
  uint32_t miss_filter_bits = 0;
  // Format 2.3: the column list (TableBuilder::set_columns) and the key's position in it; the
  // rows' values are then MessagePack arrays (msgpack_array below).
  std::vector<std::string> columns = {};
  std::optional<uint32_t> key_column = std::nullopt;
};

struct FileSpec {
  std::string name;  // file name in its version's folder
  uint32_t page_size;
  std::vector<std::shared_ptr<drydb::PageFilter>> filters;
  std::vector<TableSpec> tables;
  // Format 2.2: whether the builder stores some page's keys after their shared prefix (the
  // builder decides where that saves bytes; the model only says the file has such pages).
  bool prefixed_pages = false;
  // Format 2.4: the file records its identity, which seeds its checksums.
  bool file_identity = false;
  // Format 2.5: the file's overflow runs are bound to their place (their checksums seeded with
  // their first page too); set when a table has a value over the inline limit.
  bool placed_runs = false;
};

// The header's required features a file of this model records (docs/format.md, "File header").
inline uint32_t required_features(const FileSpec& f) {
  uint32_t bits = f.filters.empty() ? 0 : 1u;
  for (const TableSpec& t : f.tables) {
    if (t.miss_filter_bits != 0 && !t.rows.empty()) bits |= 2u;
    if (!t.columns.empty()) bits |= 8u;
  }
  if (f.prefixed_pages) bits |= 4u;
  if (f.file_identity) bits |= 16u;
  if (f.placed_runs) bits |= 32u;
  return bits;
}

inline std::string be64(uint64_t v) {
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i)
    out[i] = static_cast<char>(v >> (56 - 8 * i));
  return out;
}
inline std::string int64_bytes(int64_t v) {
  return be64(static_cast<uint64_t>(v) ^ (uint64_t{1} << 63));
}
inline int64_t int64_of(const std::string& k) {
  uint64_t u = 0;
  for (char c : k)
    u = u << 8 | static_cast<uint8_t>(c);
  return static_cast<int64_t>(u ^ (uint64_t{1} << 63));
}

// A value of `len` bytes derived from the row number: every byte depends on both.
inline std::string value_of(uint64_t row, size_t len) {
  std::string v(len, '\0');
  for (size_t i = 0; i < len; ++i)
    v[i] = static_cast<char>((row * 131 + i * 7 + (row >> 3)) & 0xFF);
  return v;
}

// The Key a user passes for encoded key `k` of a table or index of encoding `enc`.
inline drydb::Key typed_key(drydb::KeyEncoding enc, const std::string& k) {
  const auto bytes = std::as_bytes(std::span(k.data(), k.size()));
  switch (enc.kind()) {
    case drydb::KeyKind::int64:
      return drydb::Key(int64_of(k));
    case drydb::KeyKind::uuid:
      return drydb::Key(drydb::Uuid::from_bytes(bytes.first<16>()));
    case drydb::KeyKind::ulid:
      return drydb::Key(drydb::Ulid::from_bytes(bytes.first<16>()));
    default:
      return drydb::Key(bytes);
  }
}

inline TableSpec sorted(TableSpec t) {
  std::sort(t.rows.begin(), t.rows.end(), [](const Row& a, const Row& b) { return a.key < b.key; });
  return t;
}

// MessagePack, as much as column-list rows need: nil, strings, unsigned integers, arrays.
inline std::string msgpack_nil() {
  return std::string(1, '\xc0');
}
inline std::string msgpack_str(std::string_view s) {
  std::string out;
  if (s.size() < 32) {
    out += static_cast<char>(0xa0 | s.size());
  } else {  // str8 (every string here is under 256 bytes)
    out += '\xd9';
    out += static_cast<char>(s.size());
  }
  return out.append(s);
}
inline std::string msgpack_uint(uint32_t v) {
  if (v < 128) return std::string(1, static_cast<char>(v));
  if (v < 256) return std::string{'\xcc', static_cast<char>(v)};
  if (v < 65536) return std::string{'\xcd', static_cast<char>(v >> 8), static_cast<char>(v)};
  return std::string{'\xce', static_cast<char>(v >> 24), static_cast<char>(v >> 16),
                     static_cast<char>(v >> 8), static_cast<char>(v)};
}
inline std::string msgpack_array(const std::vector<std::string>& elements) {
  std::string out(1, static_cast<char>(0x90 | elements.size()));  // fixarray: under 16 here
  for (const std::string& e : elements)
    out += e;
  return out;
}

}  // namespace drydb_golden
