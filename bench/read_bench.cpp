// Read-path benchmarks on the reference workload (the C# DryDB's): 10,000 rows,
// int64 keys 0..9,999, 13-byte values "val%010d", 4 KiB pages, opened with mmap.
// Baseline: std::lower_bound over a sorted std::vector<int64_t> with a parallel
// value array. Peers (SQLite, RocksDB, LMDB) join with the benchmark suite.
//
// One iteration ("op") is 1,000 gets, 100 ranges or 100 counts, as in the
// original; items_per_second counts queries. Every loop folds its answers into
// a checksum that is checked, so nothing is optimised away or wrong.
//
//   build/release/bench/drydb_bench --benchmark_enable_random_interleaving=true
//     --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "drydb/drydb.h"

namespace {

constexpr int64_t kRows = 10'000;
constexpr int kGetsPerOp = 1000;
constexpr int kRangesPerOp = 100;
constexpr int kCountsPerOp = 100;

std::string value_of(int64_t i) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "val%010lld", static_cast<long long>(i));
  return buf;
}

// The original's LCG: seed = seed * 1664525 + 1013904223, key = seed mod N.
struct Lcg {
  uint32_t seed = 123456789;
  int64_t next(int64_t n) {
    seed = seed * 1664525u + 1013904223u;
    return static_cast<int64_t>(seed % static_cast<uint32_t>(n));
  }
};

struct Fixture {
  std::filesystem::path path;
  drydb::ReadOnlyDatabase db;
  drydb::ReadOnlyTable table;
  std::vector<int64_t> keys;
  std::vector<std::string> values;

  static Fixture& get() {
    static Fixture* f = make();
    return *f;
  }

  static Fixture* make() {
    auto path = std::filesystem::temp_directory_path() / "drydb_read_bench.drydb";
    drydb::DatabaseBuilder builder({.page_size = 4096});
    auto& items = builder.create_table("items", drydb::KeyEncoding::int64());
    for (int64_t i = 0; i < kRows; ++i)
      items.append(i, value_of(i));
    builder.build_to_file(path).value();
    auto db = drydb::ReadOnlyDatabase::open(path).value();
    auto table = db.table("items").value();  // stays valid when db is moved
    auto* f = new Fixture{path, std::move(db), table, {}, {}};
    for (int64_t i = 0; i < kRows; ++i) {
      f->keys.push_back(i);
      f->values.push_back(value_of(i));
    }
    return f;
  }

  // Touch every page and every baseline element: this VM reclaims pages left
  // idle, so each benchmark starts from resident memory.
  void touch() {
    uint64_t sum = 0;
    for (auto e : *table.get_range(drydb::unbounded, drydb::unbounded))
      sum += e.value.size();
    for (const auto& v : values)
      sum += v.size();
    benchmark::DoNotOptimize(sum);
  }
};

void check(benchmark::State& state, uint64_t got, uint64_t want) {
  if (got != want) state.SkipWithError("wrong checksum");
}

size_t vector_get(const Fixture& f, int64_t key) {
  auto it = std::lower_bound(f.keys.begin(), f.keys.end(), key);
  return it != f.keys.end() && *it == key ? f.values[it - f.keys.begin()].size() : 0;
}

size_t drydb_get(const Fixture& f, int64_t key) {
  auto v = f.table.get(key);
  return v && v->has_value() ? v->size() : 0;
}

template <size_t (*Get)(const Fixture&, int64_t), bool kRepeat>
void BM_Get_Random(benchmark::State& state) {
  auto& f = Fixture::get();
  f.touch();
  Lcg lcg;
  for (auto _ : state) {
    if (kRepeat) lcg = Lcg();
    uint64_t sum = 0;
    for (int i = 0; i < kGetsPerOp; ++i)
      sum += Get(f, lcg.next(kRows));
    check(state, sum, 13u * kGetsPerOp);
  }
  state.SetItemsProcessed(state.iterations() * kGetsPerOp);
}

template <size_t (*Get)(const Fixture&, int64_t)>
void BM_Get_FindByKey(benchmark::State& state) {
  auto& f = Fixture::get();
  f.touch();
  for (auto _ : state) {
    uint64_t sum = 0;
    for (int i = 0; i < kGetsPerOp; ++i) {
      int64_t key = 123;
      benchmark::DoNotOptimize(key);
      sum += Get(f, key);
    }
    check(state, sum, 13u * kGetsPerOp);
  }
  state.SetItemsProcessed(state.iterations() * kGetsPerOp);
}

void BM_Range100_Vector(benchmark::State& state) {
  auto& f = Fixture::get();
  f.touch();
  for (auto _ : state) {
    uint64_t sum = 0;
    for (int r = 0; r < kRangesPerOp; ++r) {
      auto lo = std::lower_bound(f.keys.begin(), f.keys.end(), int64_t{2000});
      auto hi = std::upper_bound(lo, f.keys.end(), int64_t{2099});
      for (auto it = lo; it != hi; ++it)
        sum += f.values[it - f.keys.begin()].size();
    }
    check(state, sum, 1300u * kRangesPerOp);
  }
  state.SetItemsProcessed(state.iterations() * kRangesPerOp);
}

void BM_Range100_Drydb(benchmark::State& state) {
  auto& f = Fixture::get();
  f.touch();
  for (auto _ : state) {
    uint64_t sum = 0;
    for (int r = 0; r < kRangesPerOp; ++r)
      for (auto [key, value] : *f.table.get_range(int64_t{2000}, int64_t{2099}))
        sum += value.size();
    check(state, sum, 1300u * kRangesPerOp);
  }
  state.SetItemsProcessed(state.iterations() * kRangesPerOp);
}

void BM_Count8000_Vector(benchmark::State& state) {
  auto& f = Fixture::get();
  f.touch();
  for (auto _ : state) {
    uint64_t sum = 0;
    for (int r = 0; r < kCountsPerOp; ++r) {
      auto lo = std::lower_bound(f.keys.begin(), f.keys.end(), int64_t{1000});
      auto hi = std::upper_bound(f.keys.begin(), f.keys.end(), int64_t{8999});
      sum += static_cast<uint64_t>(hi - lo);
    }
    check(state, sum, 8000u * kCountsPerOp);
  }
  state.SetItemsProcessed(state.iterations() * kCountsPerOp);
}

void BM_Count8000_Drydb(benchmark::State& state) {
  auto& f = Fixture::get();
  f.touch();
  for (auto _ : state) {
    uint64_t sum = 0;
    for (int r = 0; r < kCountsPerOp; ++r)
      sum += *f.table.count_range(int64_t{1000}, int64_t{8999});
    check(state, sum, 8000u * kCountsPerOp);
  }
  state.SetItemsProcessed(state.iterations() * kCountsPerOp);
}

BENCHMARK(BM_Get_FindByKey<vector_get>)->Name("FindByKey/lower_bound");
BENCHMARK(BM_Get_FindByKey<drydb_get>)->Name("FindByKey/drydb");
BENCHMARK(BM_Get_Random<vector_get, true>)->Name("RandomKeys/lower_bound");
BENCHMARK(BM_Get_Random<drydb_get, true>)->Name("RandomKeys/drydb");
BENCHMARK(BM_Get_Random<vector_get, false>)->Name("RandomKeysNoRepeat/lower_bound");
BENCHMARK(BM_Get_Random<drydb_get, false>)->Name("RandomKeysNoRepeat/drydb");
BENCHMARK(BM_Range100_Vector)->Name("Range100/vector");
BENCHMARK(BM_Range100_Drydb)->Name("Range100/drydb");
BENCHMARK(BM_Count8000_Vector)->Name("Count8000/lower_bound");
BENCHMARK(BM_Count8000_Drydb)->Name("Count8000/drydb");

}  // namespace
