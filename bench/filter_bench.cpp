// Page filters on the reference rows (int64 keys, 13-byte values "val%010d",
// 4 KiB pages) at 10,000 and 1,000,000 rows: file size, warm random gets and
// 100-row ranges, and a cold full scan (open, then decode every page), for
// unfiltered, lz4, zstd and zstd with a 16 KiB trained dictionary pages.
//
//   build/bench/bench/drydb_bench --benchmark_filter=Filter
//     --benchmark_enable_random_interleaving=true --benchmark_repetitions=5
//
// Counters: file_bytes (the file's size); gets and ranges report items/s per
// query. Filtered files read through the page cache (64 MiB by default, so
// both sizes stay resident once warm); unfiltered ones are read in place.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "drydb/drydb.h"

namespace {

enum FilterKind : int { kNone, kLz4, kZstd, kZstdDict };
const char* const kFilterNames[] = {"none", "lz4", "zstd", "zstd_dict"};

std::vector<std::shared_ptr<drydb::PageFilter>> filters_of(int kind) {
  switch (kind) {
    case kLz4:
      return {drydb::filters::lz4()};
    case kZstd:
      return {drydb::filters::zstd()};
    case kZstdDict:
      return {drydb::filters::zstd({.level = 3, .dictionary_bytes = 16 << 10})};
    default:
      return {};
  }
}

std::string value_of(int64_t i) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "val%010lld", static_cast<long long>(i));
  return buf;
}

struct FilteredFile {
  std::filesystem::path path;
  uint64_t bytes;
  drydb::ReadOnlyDatabase db;
  drydb::ReadOnlyTable table;
};

// One file per (filter, rows), built on first use and kept for the process.
FilteredFile& file_for(int kind, int64_t rows) {
  static std::map<std::pair<int, int64_t>, std::unique_ptr<FilteredFile>> files;
  auto& slot = files[{kind, rows}];
  if (!slot) {
    auto path = std::filesystem::temp_directory_path() /
                ("drydb_filter_bench_" + std::string(kFilterNames[kind]) + "_" +
                 std::to_string(rows) + ".drydb");
    drydb::DatabaseBuilder builder({.page_size = 4096, .filters = filters_of(kind)});
    auto& t = builder.create_table("items", drydb::KeyEncoding::int64());
    for (int64_t i = 0; i < rows; ++i)
      t.append(i, value_of(i));
    builder.build_to_file(path).value();
    auto db = drydb::ReadOnlyDatabase::open(path).value();
    auto table = db.table("items").value();
    slot.reset(new FilteredFile{path, std::filesystem::file_size(path), std::move(db), table});
  }
  // Touch every page: this VM reclaims memory left idle.
  uint64_t sum = 0;
  for (auto e : *slot->table.get_range(drydb::unbounded, drydb::unbounded))
    sum += e.value.size();
  if (sum != static_cast<uint64_t>(rows) * 13) std::abort();
  return *slot;
}

void FilterGet(benchmark::State& state) {
  const int kind = static_cast<int>(state.range(0));
  const int64_t rows = state.range(1);
  FilteredFile& f = file_for(kind, rows);
  uint32_t seed = 123456789;  // the original's LCG, carried across ops
  uint64_t sum = 0, expected = 0;
  for (auto _ : state) {
    for (int i = 0; i < 1000; ++i) {
      seed = seed * 1664525u + 1013904223u;
      auto v = f.table.get(static_cast<int64_t>(seed % static_cast<uint32_t>(rows)));
      sum += v->size();
      expected += 13;
    }
  }
  if (sum != expected) state.SkipWithError("wrong answers");
  state.SetItemsProcessed(state.iterations() * 1000);
  state.counters["file_bytes"] = static_cast<double>(f.bytes);
  state.SetLabel(kFilterNames[kind]);
}

void FilterRange100(benchmark::State& state) {
  const int kind = static_cast<int>(state.range(0));
  const int64_t rows = state.range(1);
  FilteredFile& f = file_for(kind, rows);
  uint64_t sum = 0;
  for (auto _ : state) {
    for (int i = 0; i < 100; ++i)
      for (auto e : *f.table.get_range(int64_t{2000}, int64_t{2099}))
        sum += e.value.size();
  }
  if (sum != static_cast<uint64_t>(state.iterations()) * 100 * 100 * 13)
    state.SkipWithError("wrong answers");
  state.SetItemsProcessed(state.iterations() * 100);
  state.counters["file_bytes"] = static_cast<double>(f.bytes);
  state.SetLabel(kFilterNames[kind]);
}

// Open and read every row once: every page is read (and decoded) once.
void FilterColdScan(benchmark::State& state) {
  const int kind = static_cast<int>(state.range(0));
  const int64_t rows = state.range(1);
  FilteredFile& f = file_for(kind, rows);
  for (auto _ : state) {
    auto db = drydb::ReadOnlyDatabase::open(f.path, {.storage = drydb::StorageKind::pread});
    uint64_t n = 0;
    for (auto e : *db->table("items")->get_range(drydb::unbounded, drydb::unbounded))
      n += e.value.size() == 13;
    if (n != static_cast<uint64_t>(rows)) state.SkipWithError("wrong answers");
  }
  state.SetItemsProcessed(state.iterations() * rows);
  state.counters["file_bytes"] = static_cast<double>(f.bytes);
  state.SetLabel(kFilterNames[kind]);
}

void filter_args(benchmark::internal::Benchmark* b) {
  for (int64_t rows : {10'000, 1'000'000})
    for (int kind : {kNone, kLz4, kZstd, kZstdDict})
      b->Args({kind, rows});
}

BENCHMARK(FilterGet)->Apply(filter_args);
BENCHMARK(FilterRange100)->Apply(filter_args);
BENCHMARK(FilterColdScan)->Apply(filter_args)->Unit(benchmark::kMillisecond);

}  // namespace
