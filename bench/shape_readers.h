// The key-shape queries of drydb and of the sorted-vector baseline, apart from their benchmark
// harness: drydb_bench's ShapeReaders (shape_workloads.h) and drydb_instr_count's shape workloads
// run the same code.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "bench_common.h"
#include "drydb/drydb.h"
#include "shapes.h"

namespace drydb_bench {

// The shape's rows (key, value_of(rank)), in key order, into a table of int64 keys for an
// integer shape and of byte keys for text.
inline void append_shape_rows(drydb::TableBuilder& table, const Shape& shape) {
  for (int64_t r = 0; r < shape.rows(); ++r) {
    const std::string value = value_of(r);
    if (shape.int_keys)
      table.append(shape.ints[static_cast<size_t>(r)], value);
    else
      table.append(shape.keys[static_cast<size_t>(r)], value);
  }
}

inline drydb::KeyEncoding shape_key_encoding(const Shape& shape) {
  return shape.int_keys ? drydb::KeyEncoding::int64() : drydb::KeyEncoding::bytes();
}

// Tables with a batched get (ReadOnlyTable::get_many).
template <class T>
concept BatchedGets = requires(const T& t, std::vector<drydb::Key>& k, std::span<drydb::Value> v) {
  t.get_many(k, v);
};

// The queries of a shape's drydb table (built by append_shape_rows): a file's ReadOnlyTable, or
// a dataset's ShardedTable (sharded_shape.h), which has no get_many.
template <class TableT>
class ShapeQueries {
 public:
  ShapeQueries(const Shape& shape, TableT table) : int_keys_(shape.int_keys), table_(table) {}
  uint64_t get(const ShapeKey& k) const {
    auto v = table_.get(key(k));
    if (!v) return kShapeFailed;
    return v->has_value() ? shape_fold(v->bytes()) : 0;
  }
  // Sum of shape_fold() over the values of keys[0, n), n <= kShapeBatch, by one get_many.
  uint64_t get_many(const ShapeKey* keys, size_t n) const requires BatchedGets<TableT> {
    keys_.clear();  // keeps its capacity: no allocation after the first call
    for (size_t j = 0; j < n; ++j)
      keys_.push_back(key(keys[j]));
    if (!table_.get_many(keys_, std::span(values_).first(n))) return kShapeFailed;
    uint64_t sum = 0;
    for (size_t j = 0; j < n; ++j)
      sum += values_[j].has_value() ? shape_fold(values_[j].bytes()) : 0;
    return sum;
  }
  uint64_t scan(const ShapeKey& from, int64_t n) const {
    auto r = table_.get_range(key(from), drydb::unbounded);
    if (!r) return kShapeFailed;
    uint64_t sum = 0;
    for (auto e : *r) {
      sum += shape_fold(e.value);
      if (--n == 0) break;
    }
    return sum;
  }
  uint64_t count(const ShapeKey& lo, const ShapeKey& hi) const {
    auto n = table_.count_range(key(lo), key(hi));
    return n ? *n : kShapeFailed;
  }

 private:
  drydb::Key key(const ShapeKey& k) const {
    return int_keys_ ? drydb::Key(k.i) : drydb::Key(k.bytes);
  }
  bool int_keys_;
  TableT table_;
  // get_many()'s scratch: the batch's keys and values.
  mutable std::vector<drydb::Key> keys_;
  mutable std::vector<drydb::Value> values_ = std::vector<drydb::Value>(kShapeBatch);
};

using DrydbShapeQueries = ShapeQueries<drydb::ReadOnlyTable>;

// The baseline: std::lower_bound over the shape's own sorted keys (int64_t or std::string),
// beside a vector of their values.
class VectorShapeQueries {
 public:
  explicit VectorShapeQueries(const Shape& shape) : shape_(shape), values_(values_of(shape)) {}
  uint64_t get(const ShapeKey& k) const {
    const size_t i = lower(k);
    if (i == values_.size() || !equal(i, k)) return 0;
    return shape_fold(values_[i].data(), values_[i].size());
  }
  uint64_t scan(const ShapeKey& from, int64_t n) const {
    uint64_t sum = 0;
    for (size_t i = lower(from); i < values_.size() && n > 0; ++i, --n)
      sum += shape_fold(values_[i].data(), values_[i].size());
    return sum;
  }
  uint64_t count(const ShapeKey& lo, const ShapeKey& hi) const {
    if (shape_.int_keys) {
      const auto& v = shape_.ints;
      auto a = std::lower_bound(v.begin(), v.end(), lo.i);
      return static_cast<uint64_t>(std::upper_bound(a, v.end(), hi.i) - a);
    }
    const auto& v = shape_.keys;
    auto a = std::lower_bound(v.begin(), v.end(), lo.bytes);
    return static_cast<uint64_t>(std::upper_bound(a, v.end(), hi.bytes) - a);
  }

 private:
  size_t lower(const ShapeKey& k) const {
    if (shape_.int_keys)
      return static_cast<size_t>(std::lower_bound(shape_.ints.begin(), shape_.ints.end(), k.i) -
                                 shape_.ints.begin());
    return static_cast<size_t>(std::lower_bound(shape_.keys.begin(), shape_.keys.end(), k.bytes) -
                               shape_.keys.begin());
  }
  bool equal(size_t i, const ShapeKey& k) const {
    return shape_.int_keys ? shape_.ints[i] == k.i : shape_.keys[i] == k.bytes;
  }
  // value_of(r) for every row, made once per shape.
  static const std::vector<std::string>& values_of(const Shape& shape) {
    static std::mutex mu;
    static std::map<std::string, std::vector<std::string>> made;
    std::lock_guard lock(mu);
    auto& v = made[shape.name];
    if (v.empty())
      for (int64_t r = 0; r < shape.rows(); ++r)
        v.push_back(value_of(r));
    return v;
  }
  const Shape& shape_;
  const std::vector<std::string>& values_;
};

}  // namespace drydb_bench
