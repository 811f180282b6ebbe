// In-memory baselines: what the same queries cost without any storage engine.
//
//   vector:  std::lower_bound over a sorted std::vector of keys (int64_t, or std::string for the
//            text shapes), values in a parallel std::vector<std::string> (13-byte values sit
//            inside the strings, SSO). A range or scan walks from lower_bound; a count is two
//            binary searches.
//   std_map: std::map (map_store.h). A count walks the rows (std::distance), as a user of
//            std::map would.
#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "map_store.h"
#include "shape_readers.h"
#include "shape_workloads.h"
#include "workloads.h"

namespace drydb_bench {
namespace {

struct Vector {
  struct IntData {
    std::vector<int64_t> keys;
    std::vector<std::string> values;
    explicit IntData(int64_t rows) {
      for (int64_t k = 0; k < rows; ++k) {
        keys.push_back(k);
        values.push_back(value_of(k));
      }
    }
  };

  class Reader {
   public:
    explicit Reader(int64_t rows) : d_(reference_rows<IntData>(rows)) {}
    uint64_t get(int64_t key) const {
      auto it = std::lower_bound(d_.keys.begin(), d_.keys.end(), key);
      if (it == d_.keys.end() || *it != key) return 0;
      const auto& v = d_.values[it - d_.keys.begin()];
      return fold(v.data(), v.size());
    }
    uint64_t range(int64_t first, int64_t last) const {
      uint64_t sum = 0;
      for (auto it = std::lower_bound(d_.keys.begin(), d_.keys.end(), first);
           it != d_.keys.end() && *it <= last; ++it) {
        const auto& v = d_.values[it - d_.keys.begin()];
        sum += fold(v.data(), v.size());
      }
      return sum;
    }
    uint64_t count(int64_t first, int64_t last) const {
      auto lo = std::lower_bound(d_.keys.begin(), d_.keys.end(), first);
      auto hi = std::upper_bound(lo, d_.keys.end(), last);
      return static_cast<uint64_t>(hi - lo);
    }

   private:
    const IntData& d_;
  };

  struct StringData {
    std::vector<std::string> keys;
    std::vector<std::string> values;
    StringData() {
      for (int64_t i = 0; i < kStringRows; ++i) {
        keys.push_back(string_key_of(i));
        values.push_back(string_value_of(i));
      }
    }
  };

  class StringReader {
   public:
    StringReader() : d_(data()) {}
    uint64_t get(std::string_view key) const {
      auto it = std::lower_bound(d_.keys.begin(), d_.keys.end(), key);
      if (it == d_.keys.end() || *it != key) return 0;
      const auto& v = d_.values[it - d_.keys.begin()];
      return fold(v.data(), v.size());
    }
    uint64_t scan_all() const {
      uint64_t sum = 0;
      for (const auto& v : d_.values)
        sum += fold(v.data(), v.size());
      return sum;
    }

   private:
    static const StringData& data() {
      static const StringData d;
      return d;
    }
    const StringData& d_;
  };

  // The key shapes: the shape's own sorted keys (int64_t or std::string) and their values.
  class ShapeReader : public VectorShapeQueries {
   public:
    explicit ShapeReader(const Shape& shape) : VectorShapeQueries(shape) {}
    uint64_t file_bytes() const { return 0; }
  };
};

using StdMap =
    MapStore<std::map<int64_t, std::string>, std::map<std::string, std::string, std::less<>>>;

}  // namespace

void register_baselines() {
  register_reads<Vector>("vector");
  register_int_reads<StdMap>("std_map");
  register_string_reads<StdMap>("std_map");
}

void register_vector_large_shapes() {
  register_shapes<Vector>("vector", false, false, large_shapes());
}

}  // namespace drydb_bench
