// Maps held in memory as stores: std::map, absl::btree_map and absl::flat_hash_map, each one
// MapStore of its map types. Values are std::string, as a user keeping 13-byte values in a map
// holds them (they sit inside the string, SSO).
//
//   ordered maps (std::map, absl::btree_map): a get is find(); a range or scan walks from
//     lower_bound(); a count walks the rows from lower_bound(lo) to upper_bound(hi)
//     (std::distance), as these maps keep no subtree sizes and their users do just that;
//   a hash (absl::flat_hash_map): gets only (find()); it has no order, so no range, scan or
//     count, and the workloads register none for it (workloads.h, shape_workloads.h).
#pragma once

#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>

#include "shape_workloads.h"
#include "shapes.h"
#include "workloads.h"

namespace drydb_bench {

// A map with ordered lookups, as opposed to a hash.
template <class M>
concept OrderedMap = requires(const M& m, const typename M::key_type& k) {
  m.lower_bound(k);
};

// Sum of fold() over every value of m, in m's order.
template <class M>
uint64_t fold_values(const M& m) {
  uint64_t sum = 0;
  for (const auto& [k, v] : m)
    sum += fold(v.data(), v.size());
  return sum;
}

// IntRows maps int64_t and StringRows std::string to std::string; TextKey is what StringRows's
// heterogeneous lookups take (std::string_view, or abseil's own string_view).
template <class IntRows, class StringRows, class TextKey = std::string_view>
struct MapStore {
  static TextKey text_key(std::string_view k) { return TextKey(k.data(), k.size()); }

  // The reference workload (workloads.h).
  class Reader {
   public:
    explicit Reader(int64_t rows) : m_(reference_rows<Data>(rows).rows) {}
    uint64_t get(int64_t key) const {
      auto it = m_.find(key);
      return it == m_.end() ? 0 : fold(it->second.data(), it->second.size());
    }
    uint64_t range(int64_t first, int64_t last) const requires OrderedMap<IntRows> {
      uint64_t sum = 0;
      for (auto it = m_.lower_bound(first); it != m_.end() && it->first <= last; ++it)
        sum += fold(it->second.data(), it->second.size());
      return sum;
    }
    uint64_t count(int64_t first, int64_t last) const requires OrderedMap<IntRows> {
      return static_cast<uint64_t>(std::distance(m_.lower_bound(first), m_.upper_bound(last)));
    }
    uint64_t scan_all() const { return fold_values(m_); }

   private:
    struct Data {
      IntRows rows;
      explicit Data(int64_t n) {
        for (int64_t k = 0; k < n; ++k)
          rows.emplace_hint(rows.end(), k, value_of(k));
      }
    };
    const IntRows& m_;
  };

  // kStringRows 16-byte text keys (workloads.h).
  class StringReader {
   public:
    StringReader() : m_(rows()) {}
    uint64_t get(std::string_view key) const {
      auto it = m_.find(text_key(key));
      return it == m_.end() ? 0 : fold(it->second.data(), it->second.size());
    }
    uint64_t scan_all() const { return fold_values(m_); }

   private:
    static const StringRows& rows() {
      static const StringRows m = [] {
        StringRows r;
        for (int64_t i = 0; i < kStringRows; ++i)
          r.emplace_hint(r.end(), string_key_of(i), string_value_of(i));
        return r;
      }();
      return m;
    }
    const StringRows& m_;
  };

  // The key shapes (shape_workloads.h): the shape's keys (int64_t or std::string) to
  // value_of(rank), in the reader's own map.
  class ShapeReader {
   public:
    explicit ShapeReader(const Shape& s) : int_keys_(s.int_keys) {
      for (int64_t r = 0; r < s.rows(); ++r) {
        const auto i = static_cast<size_t>(r);
        if (int_keys_)
          ints_.emplace_hint(ints_.end(), s.ints[i], value_of(r));
        else
          texts_.emplace_hint(texts_.end(), s.keys[i], value_of(r));
      }
    }
    uint64_t get(const ShapeKey& k) const {
      return int_keys_ ? found(ints_, ints_.find(k.i))
                       : found(texts_, texts_.find(text_key(k.bytes)));
    }
    uint64_t scan(const ShapeKey& from,
                  int64_t n) const requires OrderedMap<IntRows> && OrderedMap<StringRows> {
      return int_keys_ ? walk(ints_, ints_.lower_bound(from.i), n)
                       : walk(texts_, texts_.lower_bound(text_key(from.bytes)), n);
    }
    uint64_t count(const ShapeKey& lo, const ShapeKey& hi) const requires OrderedMap<IntRows> &&
        OrderedMap<StringRows> {
      if (int_keys_)
        return static_cast<uint64_t>(
            std::distance(ints_.lower_bound(lo.i), ints_.upper_bound(hi.i)));
      return static_cast<uint64_t>(std::distance(texts_.lower_bound(text_key(lo.bytes)),
                                                 texts_.upper_bound(text_key(hi.bytes))));
    }
    uint64_t scan_all() const {
      return int_keys_ ? walk(ints_, ints_.begin(), static_cast<int64_t>(ints_.size()))
                       : walk(texts_, texts_.begin(), static_cast<int64_t>(texts_.size()));
    }
    uint64_t file_bytes() const { return 0; }

   private:
    template <class M>
    static uint64_t found(const M& m, typename M::const_iterator it) {
      return it == m.end() ? 0 : shape_fold(it->second.data(), it->second.size());
    }
    // Sum of shape_fold() over at most n rows from `it`.
    template <class M>
    static uint64_t walk(const M& m, typename M::const_iterator it, int64_t n) {
      uint64_t sum = 0;
      for (; it != m.end() && n > 0; ++it, --n)
        sum += shape_fold(it->second.data(), it->second.size());
      return sum;
    }
    bool int_keys_;
    IntRows ints_;      // integer shapes
    StringRows texts_;  // text shapes
  };
};

}  // namespace drydb_bench
