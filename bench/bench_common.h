// What every store's benchmarks share: the data's shape, the key sequence, the checksum, the
// scratch folder, and how results are reported.
//
// The data (the C# DryDB's reference workload, ../shared/reference/drydb-behaviour.md §7):
//   int64 keys 0..rows-1, each value the 13 bytes "val%010d" of its key, 4 KiB pages;
//   10,000 rows, and 1,000,000 rows for the big variants.
//   String keys: "key%013d" (16 bytes), 100-byte values (87 'v's, then "val%010d"), 100,000 rows.
//
// Reporting: every benchmark runs on wall time (UseRealTime) and sets the counter sec_per_query,
// the wall time of one query (a get, a range, a count, an open, a built row): the console prints it
// as e.g. "37.6ns", the JSON holds seconds. With N threads it is the wall time over all
// threads' queries, so it is the reciprocal of the aggregate throughput. items_per_second is set
// too.
#pragma once

#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace drydb_bench {

inline constexpr int64_t kRows = 10'000;
inline constexpr int64_t kRows1M = 1'000'000;
inline constexpr int64_t kStringRows = 100'000;
inline constexpr int64_t kBuildRows = 1'000'000;
inline constexpr uint32_t kPageSize = 4096;

inline constexpr size_t kValueSize = 13;
inline constexpr size_t kStringKeySize = 16;
inline constexpr size_t kStringValueSize = 100;

// Op shapes, as in the original: one benchmark iteration is this many queries.
inline constexpr int kGetsPerOp = 1000;
inline constexpr int kRangesPerOp = 100;
inline constexpr int kCountsPerOp = 100;

inline constexpr int64_t kFindKey = 123;
inline constexpr int64_t kRangeFirst = 2'000, kRangeLast = 2'099;          // 100 rows
inline constexpr int64_t kRange1MFirst = 500'000, kRange1MLast = 500'099;  // 100 rows
inline constexpr int64_t kCountFirst = 1'000, kCountLast = 8'999;          // 8,000 rows

std::string value_of(int64_t key);          // "val%010d", 13 bytes
std::string string_key_of(int64_t i);       // "key%013d", 16 bytes; sorts as i does
std::string string_value_of(int64_t i);     // 100 bytes ending in value_of(i)
void store_be64(char out[8], int64_t key);  // big-endian: sorts as key does for key >= 0

// The original's random key sequence (drydb-behaviour.md §7.2): a 32-bit LCG,
// seed = seed * 1664525 + 1013904223 from 123456789, key = seed mod rows. RandomKeys re-seeds it
// every op (the same 1,000 keys each time, as the C# benchmark does); RandomKeysNoRepeat carries
// the seed from op to op.
struct Lcg {
  uint32_t seed = 123456789;
  int64_t next(int64_t rows) {
    seed = seed * 1664525u + 1013904223u;
    return static_cast<int64_t>(seed % static_cast<uint32_t>(rows));
  }
};

// The checksum every loop folds its answers into: the value's length and its last two bytes
// (the key's last two decimal digits). Reading the bytes makes each store really deliver the
// value, and a wrong row changes the sum. A miss folds to 0.
inline uint64_t fold(const void* data, size_t size) {
  const auto* b = static_cast<const unsigned char*>(data);
  return size < 2 ? size : size + b[size - 1] + (uint64_t{b[size - 2]} << 8);
}
inline uint64_t fold(std::span<const std::byte> v) {
  return fold(v.data(), v.size());
}
// fold() of the value stored under `key` (both value shapes end in the key's digits).
inline uint64_t expected_fold(int64_t key, size_t value_size) {
  return value_size + ('0' + key % 10) + (uint64_t('0' + key / 10 % 10) << 8);
}

// The scratch folder for every file the suite writes: made on first use, removed by cleanup().
const std::filesystem::path& scratch_dir();
// Runs `close` in cleanup(), before the folder goes (last registered, first run).
void at_cleanup(std::function<void()> close);
void cleanup();
// Total size of a file, or of the regular files in a folder.
uint64_t size_on_disk(const std::filesystem::path& path);

// Setup failures of a peer (no such file, a failed open) end the program: a benchmark that ran
// on a half-built store would report nonsense.
[[noreturn]] void die(std::string_view what, std::string_view detail = {});
inline void require(bool ok, std::string_view what, std::string_view detail = {}) {
  if (!ok) die(what, detail);
}

// Sets sec_per_query and items_per_second for `queries_per_op` queries per iteration.
void report_queries(benchmark::State& state, double queries_per_op);

// The 1,000 query keys of one StringKeys op (the LCG over kStringRows) and their checksum.
const std::vector<std::string>& string_query_keys();
uint64_t string_query_checksum();

// Input of the Build benchmarks: kBuildRows keys in ascending order or shuffled (a fixed seed),
// and every key's value, made before timing starts.
const std::vector<int64_t>& build_order(bool sorted);
const std::vector<std::string>& build_values();

}  // namespace drydb_bench
