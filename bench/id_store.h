// Stores of text keys that map a key to an id, their values kept in a vector by id, as a user of
// such an index keeps them (marisa-trie, the HAT-trie): IdStore<Index>, its readers for the
// 16-byte text keys (workloads.h) and for the text shapes (shape_workloads.h).
//
// An Index is built from distinct keys and answers point lookups only:
//
//   class Index {
//     explicit Index(const std::vector<std::string>& keys);  // ids()[i] is keys[i]'s id,
//     const std::vector<uint32_t>& ids() const;              // each below keys.size()
//     int64_t find(std::string_view key) const;              // the key's id, -1 when absent
//     template <class F> void for_each(F f) const;           // f(id) for every key, in the
//   };                                                       // index's own order
//
// for_each walks the index itself, so the readers' full scans (every row read before timing)
// touch what a get reads.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "shape_workloads.h"
#include "shapes.h"
#include "workloads.h"

namespace drydb_bench {

template <class Index>
struct IdStore {
  // keys (distinct) and each one's value, value_of_row(i) for keys[i].
  struct Rows {
    Index index;
    std::vector<std::string> values;  // by id
    template <class ValueOf>
    Rows(const std::vector<std::string>& keys, ValueOf value_of_row) : index(keys) {
      values.resize(keys.size());
      for (size_t i = 0; i < keys.size(); ++i)
        values[index.ids()[i]] = value_of_row(static_cast<int64_t>(i));
    }
    // Fold(value) of key's row, 0 when it is absent.
    template <uint64_t (*Fold)(const void*, size_t)>
    uint64_t get(std::string_view key) const {
      const int64_t id = index.find(key);
      if (id < 0) return 0;
      const std::string& v = values[static_cast<size_t>(id)];
      return Fold(v.data(), v.size());
    }
    template <uint64_t (*Fold)(const void*, size_t)>
    uint64_t fold_all() const {
      uint64_t sum = 0;
      index.for_each([&](size_t id) { sum += Fold(values[id].data(), values[id].size()); });
      return sum;
    }
  };

  // kStringRows 16-byte text keys (workloads.h).
  class StringReader {
   public:
    StringReader() : rows_(rows()) {}
    uint64_t get(std::string_view key) const { return rows_.template get<fold>(key); }
    uint64_t scan_all() const { return rows_.template fold_all<fold>(); }

   private:
    static const Rows& rows() {
      static const Rows r = [] {
        std::vector<std::string> keys;
        for (int64_t i = 0; i < kStringRows; ++i)
          keys.push_back(string_key_of(i));
        return Rows(keys, string_value_of);
      }();
      return r;
    }
    const Rows& rows_;
  };

  // The text shapes (shape_workloads.h): the shape's keys, row r holding value_of(r).
  class ShapeReader {
   public:
    static constexpr bool kTextOnly = true;
    explicit ShapeReader(const Shape& s) : rows_(s.keys, value_of) {}
    uint64_t get(const ShapeKey& k) const { return rows_.template get<shape_fold>(k.bytes); }
    uint64_t scan_all() const { return rows_.template fold_all<shape_fold>(); }
    uint64_t file_bytes() const { return 0; }

   private:
    Rows rows_;
  };
};

// Every workload an IdStore answers: the text-key reads and the text shapes.
template <class Index>
void register_id_store(const std::string& store) {
  register_string_reads<IdStore<Index>>(store);
  register_shapes<IdStore<Index>>(store);
}

}  // namespace drydb_bench
