// The one test model (free of GoogleTest): a database as tables of rows in a std::map, each with
// its secondary indexes as sorted entries, and the builds of the model's tables into a file. The
// checker (checker.h) compares a drydb table or index with it; a sharded dataset's tables are
// these tables with their partitioning (tests/dataset/generation_builder.h).
//
// Where a model comes from is the caller's business: rows a test writes, random rows
// (test_util.h), rows a fuzz input appends, or the rows and index entries of a verified file's
// own walks (the fuzz targets).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "drydb/drydb.h"
#include "keys.h"
#include "random.h"

namespace drydb_test {

using Row = std::pair<std::string, std::string>;  // encoded key, value
using Rows = std::map<std::string, std::string>;  // encoded key -> value, in drydb's key order

// A secondary index of a table in the model: its declaration, the function that gives a row's
// encoded index key (or none: the row is not in the index), and, once its table is finished,
// its entries.
struct IndexModel {
  std::string name;
  bool unique = false;
  drydb::KeyEncoding enc = drydb::KeyEncoding::bytes();
  // Empty for an index whose entries were given (from_entries): finish() keeps them.
  std::function<std::optional<std::string>(const std::string& key, const std::string& value)>
      key_of;
  // (encoded index key, position of the row in its table's `sorted`), in the index's order:
  // by index key, then by primary key.
  std::vector<std::pair<std::string, size_t>> entries;

  drydb::KeyKind kind() const { return enc.kind(); }
  bool is_int64() const { return kind() == drydb::KeyKind::int64; }
  // The width of the index's key space: the typed width, a custom fixed width, or 0.
  size_t width() const { return typed_width(kind()) ? typed_width(kind()) : enc.fixed_width(); }
  size_t size() const { return entries.size(); }
  // The index key of entry i.
  const std::string& key(size_t i) const { return entries[i].first; }
  // First entry with index key >= k (lower) or > k (upper).
  size_t lower(std::string_view k) const {
    return static_cast<size_t>(
        std::lower_bound(entries.begin(), entries.end(), k,
                         [](const auto& e, std::string_view x) { return e.first < x; }) -
        entries.begin());
  }
  size_t upper(std::string_view k) const {
    return static_cast<size_t>(
        std::upper_bound(entries.begin(), entries.end(), k,
                         [](std::string_view x, const auto& e) { return x < e.first; }) -
        entries.begin());
  }
};

struct TableModel {
  std::string name;
  drydb::KeyEncoding enc = drydb::KeyEncoding::bytes();
  Rows rows;
  // The rows in key order, filled by finish(); the checker searches it by position.
  std::vector<Row> sorted;
  // Secondary indexes, declared in this order; finish() fills their entries.
  std::vector<IndexModel> indexes;
  uint32_t miss_filter_bits = 0;  // TableBuilder::add_miss_filter's size; 0 = none

  drydb::KeyKind kind() const { return enc.kind(); }
  bool is_int64() const { return kind() == drydb::KeyKind::int64; }
  // The width of the table's key space: the typed width, a custom fixed width, or 0.
  size_t width() const { return typed_width(kind()) ? typed_width(kind()) : enc.fixed_width(); }
  bool finished() const { return sorted.size() == rows.size(); }
  void finish() {
    sorted.assign(rows.begin(), rows.end());
    for (auto& ix : indexes) {
      if (!ix.key_of) continue;
      ix.entries.clear();
      for (size_t i = 0; i < sorted.size(); ++i)
        if (auto k = ix.key_of(sorted[i].first, sorted[i].second)) ix.entries.emplace_back(*k, i);
      std::sort(ix.entries.begin(), ix.entries.end());
    }
  }
  size_t size() const { return sorted.size(); }
  // The key of row i.
  const std::string& key(size_t i) const { return sorted[i].first; }
  // First position with key >= k (lower) or > k (upper).
  size_t lower(std::string_view k) const {
    return static_cast<size_t>(std::lower_bound(sorted.begin(), sorted.end(), k,
                                                [](const Row& r, std::string_view x) {
                                                  return std::string_view(r.first) < x;
                                                }) -
                               sorted.begin());
  }
  size_t upper(std::string_view k) const {
    return static_cast<size_t>(std::upper_bound(sorted.begin(), sorted.end(), k,
                                                [](std::string_view x, const Row& r) {
                                                  return x < std::string_view(r.first);
                                                }) -
                               sorted.begin());
  }
  const std::string* find(std::string_view k) const {
    size_t i = lower(k);
    return i < sorted.size() && sorted[i].first == k ? &sorted[i].second : nullptr;
  }
};

inline IndexModel make_index(std::string name, bool unique, drydb::KeyEncoding enc,
                             decltype(IndexModel::key_of) key_of) {
  IndexModel ix;
  ix.name = std::move(name);
  ix.unique = unique;
  ix.enc = enc;
  ix.key_of = std::move(key_of);
  return ix;
}

// A table model (not finished) of `rows`.
inline TableModel make_table(std::string name, drydb::KeyEncoding enc, Rows rows = {}) {
  TableModel t;
  t.name = std::move(name);
  t.enc = enc;
  t.rows = std::move(rows);
  return t;
}

// A finished table model of `rows` (encoded key, value; in any order, keys distinct).
template <class Rows>
TableModel table_of(std::string name, drydb::KeyEncoding enc, const Rows& rows) {
  TableModel t = make_table(std::move(name), enc);
  for (const auto& [k, v] : rows)
    t.rows.emplace(k, v);
  t.finish();
  return t;
}

// An index of finished table `t` from its entries (encoded index key, primary key), sorted by
// index key, then primary key; false (and `missing` set to the first primary key that names no
// row of `t`) when an entry has no row.
inline bool index_of_entries(const TableModel& t, IndexModel* ix,
                             const std::vector<std::pair<std::string, std::string>>& entries,
                             std::string* missing) {
  ix->key_of = nullptr;
  ix->entries.clear();
  ix->entries.reserve(entries.size());
  for (const auto& [ik, pk] : entries) {
    const size_t at = t.lower(pk);
    if (at == t.size() || t.sorted[at].first != pk) {
      *missing = pk;
      return false;
    }
    ix->entries.emplace_back(ik, at);
  }
  return true;
}

struct DbModel {
  uint32_t page_size = 512;
  std::vector<TableModel> tables;
  void finish() {
    for (auto& t : tables)
      t.finish();
  }
  const TableModel* find(std::string_view name) const {
    for (const auto& t : tables)
      if (t.name == name) return &t;
    return nullptr;
  }
};

// A Key for an encoded model key, of the kind the table takes. For bytes (and custom) tables
// the Key references `k`, which must outlive it; typed keys are copied into the Key.
inline drydb::Key key_of(const TableModel& t, std::string_view k) {
  return typed_key(t.kind(), k);
}
inline drydb::Key key_of(const IndexModel& ix, std::string_view k) {
  return typed_key(ix.kind(), k);
}

// Creates table `t` on `b` with its miss filter and secondary indexes, and appends those of its
// rows whose key `keep` takes (every row when `keep` is empty): in key order, or, given a
// `shuffle_seed`, in an order shuffled by it (the builder must sort).
inline void add_table(drydb::DatabaseBuilder& b, const TableModel& t,
                      std::optional<uint64_t> shuffle_seed = std::nullopt,
                      const std::function<bool(const std::string& key)>& keep = {}) {
  auto& tb = b.create_table(t.name, t.enc);
  std::vector<const std::pair<const std::string, std::string>*> order;
  order.reserve(t.rows.size());
  for (const auto& row : t.rows)
    if (!keep || keep(row.first)) order.push_back(&row);
  if (shuffle_seed) {
    Rng rng(*shuffle_seed);
    std::shuffle(order.begin(), order.end(), rng);
  }
  for (const auto* row : order)
    tb.append(key_of(t, row->first), row->second);
  if (t.miss_filter_bits != 0) tb.add_miss_filter(t.miss_filter_bits);
  for (const auto& ix : t.indexes)
    tb.add_secondary_index(ix.name, ix.unique, ix.enc,
                           [fn = ix.key_of, kind = ix.kind()](
                               Bytes key, Bytes value) -> std::optional<drydb::IndexKey> {
                             auto k = fn(to_string(key), to_string(value));
                             if (!k) return std::nullopt;
                             return drydb::IndexKey(typed_key(kind, *k));
                           });
}

// build_to_memory of the model's tables (add_table), with pages of the model's page size.
inline drydb::result<std::vector<std::byte>> build_database(
    const DbModel& m, drydb::BuildOptions options = {},
    std::optional<uint64_t> shuffle_seed = std::nullopt) {
  options.page_size = m.page_size;
  drydb::DatabaseBuilder b(std::move(options));
  for (const auto& t : m.tables)
    add_table(b, t, shuffle_seed);
  return b.build_to_memory();
}

}  // namespace drydb_test
