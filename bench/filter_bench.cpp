// Page filters on the reference rows (int64 keys, 13-byte values "val%010d",
// 4 KiB pages) at 10,000 and 1,000,000 rows: file size and a cold full scan
// (open through pread, then read and decode every page once), for unfiltered,
// lz4, zstd and zstd with a 16 KiB trained dictionary. Warm gets and ranges
// of the same files are in drydb_bench.cpp (stores drydb_lz4, drydb_zstd...).
//
//   build/bench/bench/drydb_bench --benchmark_filter=FilterColdScan
//     --benchmark_enable_random_interleaving=true --benchmark_repetitions=5
//
// Counters: file_bytes (the file's size); items_per_second counts rows.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bench_common.h"
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
    auto path = drydb_bench::scratch_dir() / ("filter_bench_" + std::string(kFilterNames[kind]) +
                                              "_" + std::to_string(rows) + ".drydb");
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

BENCHMARK(FilterColdScan)->Apply(filter_args)->Unit(benchmark::kMillisecond);

}  // namespace
