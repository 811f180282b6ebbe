// drydb_instr_count: a fixed number of queries in one function, for an instruction count under
// callgrind, which is steady where wall time on a shared machine is not.
//
//   valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*measured_queries*'
//     build/bench/bench/drydb_instr_count drydb get_random 100
//   -> callgrind's total Ir divided by the queries printed = instructions per query.
//
// Stores: drydb (the reference file, 10,000 rows unless ROWS is given; mmap) and vector
// (std::lower_bound). Workloads:
// get_random (RandomKeys: the LCG re-seeded every 1,000 gets), get_same (FindByKey, key 123),
// range (100 rows, 2000..2099) and count (1000..8999). The LCG and the checksum run inside the
// measured function for both stores alike. scripts/bench.sh --callgrind runs every pair.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bench_common.h"
#include "drydb/drydb.h"

namespace drydb_bench {
namespace {

int64_t g_rows = kRows;  // rows in the table; get_random draws keys over all of them

struct VectorTable {
  std::vector<int64_t> keys;
  std::vector<std::string> values;
  uint64_t get(int64_t key) const {
    auto it = std::lower_bound(keys.begin(), keys.end(), key);
    if (it == keys.end() || *it != key) return 0;
    const auto& v = values[it - keys.begin()];
    return fold(v.data(), v.size());
  }
  uint64_t range(int64_t first, int64_t last) const {
    uint64_t sum = 0;
    for (auto it = std::lower_bound(keys.begin(), keys.end(), first);
         it != keys.end() && *it <= last; ++it) {
      const auto& v = values[it - keys.begin()];
      sum += fold(v.data(), v.size());
    }
    return sum;
  }
  uint64_t count(int64_t first, int64_t last) const {
    auto lo = std::lower_bound(keys.begin(), keys.end(), first);
    return static_cast<uint64_t>(std::upper_bound(lo, keys.end(), last) - lo);
  }
};

struct DrydbTable {
  drydb::ReadOnlyTable table;
  uint64_t get(int64_t key) const {
    auto v = table.get(key);
    return v && v->has_value() ? fold(v->bytes()) : 0;
  }
  uint64_t range(int64_t first, int64_t last) const {
    auto r = table.get_range(first, last);
    uint64_t sum = 0;
    if (r)
      for (auto e : *r)
        sum += fold(e.value);
    return sum;
  }
  uint64_t count(int64_t first, int64_t last) const {
    auto n = table.count_range(first, last);
    return n ? *n : 0;
  }
};

// `ops` ops of the workload; returns {checksum, queries}.
template <class T>
std::pair<uint64_t, uint64_t> queries(const T& t, std::string_view w, int ops) {
  uint64_t sum = 0, queries = 0;
  for (int op = 0; op < ops; ++op) {
    if (w == "get_random") {
      Lcg lcg;
      for (int i = 0; i < kGetsPerOp; ++i)
        sum += t.get(lcg.next(g_rows));
      queries += kGetsPerOp;
    } else if (w == "get_same") {
      for (int i = 0; i < kGetsPerOp; ++i) {
        int64_t key = kFindKey;
        asm volatile("" : "+r"(key));
        sum += t.get(key);
      }
      queries += kGetsPerOp;
    } else if (w == "range") {
      for (int i = 0; i < kRangesPerOp; ++i)
        sum += t.range(kRangeFirst, kRangeLast);
      queries += kRangesPerOp;
    } else if (w == "count") {
      for (int i = 0; i < kCountsPerOp; ++i)
        sum += t.count(kCountFirst, kCountLast);
      queries += kCountsPerOp;
    } else {
      die("unknown workload", w);
    }
  }
  return {sum, queries};
}

// Only calls made inside this function are counted (--toggle-collect).
template <class T>
[[gnu::noinline]] std::pair<uint64_t, uint64_t> measured_queries(const T& t, std::string_view w,
                                                                 int ops) {
  return queries(t, w, ops);
}

template <class T>
int run(const T& t, std::string_view workload, int ops) {
  // One uncounted op first: the pages are faulted in and the cache is warm when counting starts.
  (void)queries(t, workload, 1);
  auto [sum, n] = measured_queries(t, workload, ops);
  std::printf("queries %llu checksum %llu\n", static_cast<unsigned long long>(n),
              static_cast<unsigned long long>(sum));
  return 0;
}

int main_impl(int argc, char** argv) {
  if (argc != 4 && argc != 5) {
    std::fprintf(stderr, "usage: %s drydb|vector get_random|get_same|range|count OPS [ROWS]\n",
                 argv[0]);
    return 2;
  }
  const std::string_view store = argv[1], workload = argv[2];
  const int ops = std::atoi(argv[3]);
  if (argc == 5) g_rows = std::atoll(argv[4]);
  if (g_rows <= kCountLast) die("ROWS must exceed the count range's last key");
  if (store == "vector") {
    VectorTable t;
    for (int64_t k = 0; k < g_rows; ++k) {
      t.keys.push_back(k);
      t.values.push_back(value_of(k));
    }
    return run(t, workload, ops);
  }
  if (store != "drydb") die("unknown store", store);
  const auto path = scratch_dir() / "items.drydb";
  {
    drydb::DatabaseBuilder builder({.page_size = kPageSize});
    auto& items = builder.create_table("items", drydb::KeyEncoding::int64());
    for (int64_t k = 0; k < g_rows; ++k)
      items.append(k, value_of(k));
    auto st = builder.build_to_file(path);
    require(st.has_value(), "drydb build", st ? "" : st.error().message);
  }
  int rc;
  {
    auto db = drydb::ReadOnlyDatabase::open(path);
    require(db.has_value(), "drydb open", db ? "" : db.error().message);
    rc = run(DrydbTable{db->table("items").value()}, workload, ops);
  }
  cleanup();
  return rc;
}

}  // namespace
}  // namespace drydb_bench

int main(int argc, char** argv) {
  return drydb_bench::main_impl(argc, argv);
}
