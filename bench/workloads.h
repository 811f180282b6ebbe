// The workloads, written once over a store interface, and their registration.
//
// A store S (drydb, a peer, a baseline) provides what its workloads need:
//
//   class S::Reader {  // int64 keys; one per benchmark thread
//     explicit Reader(int64_t rows);  // kRows or kRows1M; the data is built on first use
//     uint64_t get(int64_t key);      // fold() of the value, 0 when absent
//     uint64_t range(int64_t first, int64_t last);  // sum of fold() over keys in [first, last]
//     uint64_t count(int64_t first, int64_t last);  // rows with keys in [first, last]
//   };
//   class S::StringReader {                 // kStringRows rows of 16-byte text keys
//     StringReader();
//     uint64_t get(std::string_view key);
//     uint64_t scan_all();                  // sum of fold() over every row
//   };
//   static uint64_t S::open_and_first_read();   // open the 10,000-row file, get kFindKey, close
//   static void S::build(std::span<const int64_t> keys, const std::string& name);
//                                     // a new store of those keys in <scratch>/<name>/, durable
//   static Built S::inspect(const std::string& name);  // that store read back: rows, bytes
//
// A Reader without range() and count() (a hash: no order) has scan_all(), its rows in any order,
// instead, and only the get workloads are registered for it.
//
// Every benchmark builds its readers before timing, then touches every row through them (this VM
// reclaims pages left idle for about a minute, and a reader's own caches warm up the same way),
// checking the full scan's checksum. Timed loops fold their answers into a checksum that is
// checked against the expected one; a mismatch fails the benchmark (SkipWithError).
#pragma once

#include <benchmark/benchmark.h>

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

#include "bench_common.h"

namespace drydb_bench {

// What a Build benchmark checks and reports of the store it built.
struct Built {
  uint64_t rows;   // as the store reports them when opened again
  uint64_t bytes;  // the store's data files on disk
};

// The full-scan checksum of `rows` int64 rows.
inline uint64_t scan_checksum(int64_t rows, size_t value_size = kValueSize) {
  uint64_t sum = 0;
  for (int64_t k = 0; k < rows; ++k)
    sum += expected_fold(k, value_size);
  return sum;
}

inline uint64_t range_checksum(int64_t first, int64_t last) {
  uint64_t sum = 0;
  for (int64_t k = first; k <= last; ++k)
    sum += expected_fold(k, kValueSize);
  return sum;
}

// `v`, hidden from the optimiser: a loop over a constant key must not be folded into one query.
// (Not benchmark::DoNotOptimize: with g++ 12 the "+m,r" constraint of Google Benchmark 1.7's
// version loses the value in some loops here, and the get then ran with key 0.)
inline int64_t opaque(int64_t v) {
  asm volatile("" : "+r"(v));
  return v;
}

// Fails the benchmark (and returns false) when a checksum is wrong.
inline bool check(benchmark::State& state, uint64_t got, uint64_t want) {
  if (got == want) return true;
  state.SkipWithError(
      ("wrong checksum: got " + std::to_string(got) + ", want " + std::to_string(want)).c_str());
  return false;
}

// A Reader's rows of the reference workload: Data(rows) for rows = kRows or kRows1M, made on
// first use and shared by every Reader of that store and size.
template <class Data>
const Data& reference_rows(int64_t rows) {
  if (rows == kRows) {
    static const Data small(kRows);
    return small;
  }
  static const Data big(kRows1M);
  return big;
}

// A Reader that can answer ranges and counts, as opposed to one of gets only (a hash).
template <class Reader>
concept OrderedReader = requires(Reader& r) {
  r.range(int64_t{0}, int64_t{0});
  r.count(int64_t{0}, int64_t{0});
};

template <class Reader>
bool touch(benchmark::State& state, Reader& r, int64_t rows) {
  if constexpr (OrderedReader<Reader>)
    return check(state, r.range(0, rows - 1), scan_checksum(rows));
  else
    return check(state, r.scan_all(), scan_checksum(rows));
}

// The timed loop of a workload whose ops are alike: each op sums query(i) over its queries
// i = 0 .. per_op - 1, and that sum must be `want` (the first op that misses it fails the
// benchmark).
template <class Query>
void run_ops(benchmark::State& state, int per_op, uint64_t want, Query query) {
  for (auto _ : state) {
    uint64_t sum = 0;
    for (int i = 0; i < per_op; ++i)
      sum += query(i);
    if (!check(state, sum, want)) break;
  }
  report_queries(state, per_op);
}

// FindByKey: 1 op = 1,000 gets of key 123.
template <class S>
void bm_find_by_key(benchmark::State& state) {
  typename S::Reader r(kRows);
  if (!touch(state, r, kRows)) return;
  run_ops(state, kGetsPerOp, kGetsPerOp * expected_fold(kFindKey, kValueSize),
          [&](int) { return r.get(opaque(kFindKey)); });
}

// RandomKeys (kCarry false): 1 op = the LCG re-seeded, then 1,000 gets of its keys.
// RandomKeysNoRepeat (kCarry true): the same, the seed carried from op to op; the checksum is
// checked after the loop by replaying the sequence.
template <class S, int64_t kTableRows, bool kCarry>
void bm_random_keys(benchmark::State& state) {
  typename S::Reader r(kTableRows);
  if (!touch(state, r, kTableRows)) return;
  uint64_t per_op = 0;
  Lcg lcg;
  for (int i = 0; i < kGetsPerOp; ++i)
    per_op += expected_fold(lcg.next(kTableRows), kValueSize);
  lcg = Lcg();
  uint64_t total = 0;
  for (auto _ : state) {
    if constexpr (!kCarry) lcg = Lcg();
    uint64_t sum = 0;
    for (int i = 0; i < kGetsPerOp; ++i)
      sum += r.get(lcg.next(kTableRows));
    if constexpr (kCarry) {
      total += sum;
    } else if (!check(state, sum, per_op)) {
      break;
    }
  }
  if constexpr (kCarry) {
    uint64_t want = 0;
    Lcg replay;
    for (int64_t n = state.iterations() * int64_t{kGetsPerOp}; n > 0; --n)
      want += expected_fold(replay.next(kTableRows), kValueSize);
    if (!check(state, total, want)) return;
  }
  report_queries(state, kGetsPerOp);
}

// Parallel: every thread, 1 op = 1,000 gets of key 123 (one hot page).
template <class S>
void bm_parallel(benchmark::State& state) {
  bm_find_by_key<S>(state);
}

// ParallelSpread: thread t, 1 op = 1,000 gets of keys (t * 1000 + 7i) mod rows.
template <class S>
void bm_parallel_spread(benchmark::State& state) {
  typename S::Reader r(kRows);
  if (!touch(state, r, kRows)) return;
  const int64_t base = int64_t{state.thread_index()} * 1000;
  uint64_t want = 0;
  for (int64_t i = 0; i < kGetsPerOp; ++i)
    want += expected_fold((base + 7 * i) % kRows, kValueSize);
  run_ops(state, kGetsPerOp, want, [&](int i) { return r.get((base + 7 * i) % kRows); });
}

// Range: 1 op = 100 scans of the 100 rows [first, last], folding every value.
template <class S, int64_t kTableRows, int64_t kFirst, int64_t kLast>
void bm_range(benchmark::State& state) {
  typename S::Reader r(kTableRows);
  if (!touch(state, r, kTableRows)) return;
  run_ops(state, kRangesPerOp, kRangesPerOp * range_checksum(kFirst, kLast),
          [&](int) { return r.range(kFirst, kLast); });
}

// Count: 1 op = 100 counts of the 8,000 rows [1000, 8999].
template <class S>
void bm_count(benchmark::State& state) {
  typename S::Reader r(kRows);
  if (!touch(state, r, kRows)) return;
  run_ops(state, kCountsPerOp, uint64_t{kCountsPerOp} * (kCountLast - kCountFirst + 1),
          [&](int) { return r.count(kCountFirst, kCountLast); });
}

// StringKeys: 1 op = 1,000 gets of the LCG's keys over 100,000 16-byte text keys (the same
// 1,000 every op, as RandomKeys; formatted before timing).
template <class S>
void bm_string_keys(benchmark::State& state) {
  typename S::StringReader r;
  if (!check(state, r.scan_all(), scan_checksum(kStringRows, kStringValueSize))) return;
  const auto& keys = string_query_keys();  // kGetsPerOp of them
  run_ops(state, kGetsPerOp, string_query_checksum(), [&](int i) { return r.get(keys[i]); });
}

// OpenAndFirstRead: 1 op = open the 10,000-row file, get key 123, close. The file's pages are
// touched first (through a reader), so this measures opening, not the disk.
template <class S>
void bm_open_and_first_read(benchmark::State& state) {
  {
    typename S::Reader r(kRows);
    if (!touch(state, r, kRows)) return;
  }
  const uint64_t want = expected_fold(kFindKey, kValueSize);
  for (auto _ : state)
    if (!check(state, S::open_and_first_read(), want)) break;
  report_queries(state, 1);
}

// Build: 1 op = a new store of 1,000,000 rows (sorted or shuffled input), made from keys and
// values already in memory, durable when the op ends (each store's own commit). Untimed after
// each op: the store is opened again and must hold every row, then it is removed.
// Counters: rows_per_second, file_bytes (the store's data files on disk).
template <class S, bool kSorted>
void bm_build(benchmark::State& state) {
  const auto& keys = build_order(kSorted);
  (void)build_values();
  uint64_t bytes = 0;
  int n = 0;
  for (auto _ : state) {
    const std::string name = "build-" + std::to_string(n++);
    S::build(keys, name);
    state.PauseTiming();
    const Built built = S::inspect(name);
    std::filesystem::remove_all(scratch_dir() / name);
    state.ResumeTiming();
    if (!check(state, built.rows, kBuildRows)) break;
    bytes = built.bytes;
  }
  report_queries(state, kBuildRows);
  state.counters["rows_per_second"] =
      benchmark::Counter(kBuildRows, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["file_bytes"] = benchmark::Counter(static_cast<double>(bytes));
}

// --- registration
// --------------------------------------------------------------------------------- Names are
// "<workload>/<store>" (Google Benchmark appends "/real_time" and "/threads:N"); scripts/bench.sh
// groups its tables by the workload part.

inline benchmark::internal::Benchmark* add(const std::string& workload, const std::string& store,
                                           void (*fn)(benchmark::State&)) {
  return benchmark::RegisterBenchmark((workload + "/" + store).c_str(), fn)->UseRealTime();
}

// Every workload above but open and build; Range and Count only for an OrderedReader.
template <class S>
void register_int_reads(const std::string& store) {
  constexpr bool ordered = OrderedReader<typename S::Reader>;
  add("FindByKey", store, bm_find_by_key<S>);
  add("RandomKeys", store, bm_random_keys<S, kRows, false>);
  add("RandomKeysNoRepeat", store, bm_random_keys<S, kRows, true>);
  add("Parallel", store, bm_parallel<S>)->Threads(1)->Threads(2)->Threads(8);
  add("ParallelSpread", store, bm_parallel_spread<S>)->Threads(1)->Threads(2)->Threads(8);
  if constexpr (ordered) {
    add("Range", store, bm_range<S, kRows, kRangeFirst, kRangeLast>);
    add("Count", store, bm_count<S>);
  }
  add("RandomKeys_1M", store, bm_random_keys<S, kRows1M, false>);
  add("RandomKeysNoRepeat_1M", store, bm_random_keys<S, kRows1M, true>);
  if constexpr (ordered) add("Range_1M", store, bm_range<S, kRows1M, kRange1MFirst, kRange1MLast>);
}

template <class S>
void register_string_reads(const std::string& store) {
  add("StringKeys_100k", store, bm_string_keys<S>);
}

template <class S>
void register_open(const std::string& store) {
  add("OpenAndFirstRead", store, bm_open_and_first_read<S>);
}

template <class S>
void register_build(const std::string& store) {
  // One op is a second or more: a single iteration per repetition.
  add("Build_1M_sorted", store, bm_build<S, true>)->Iterations(1);
  add("Build_1M_shuffled", store, bm_build<S, false>)->Iterations(1);
}

// Each store's file defines its own (called from main when the store was compiled in).
void register_drydb();
void register_baselines();
void register_sqlite();
void register_rocksdb();
void register_lmdb();
void register_sharded();   // drydb::ShardedDatabase, when drydb::dataset is built
void register_absl();      // absl::btree_map and absl::flat_hash_map, when abseil is found
void register_marisa();    // marisa-trie, when found
void register_hat_trie();  // the HAT-trie, when found
// The 100M-row integer shapes (drydb_bench --shapes_100M), in the stores that run them: drydb
// mapped and through its page cache, the vector, LMDB.
void register_drydb_large_shapes();
void register_vector_large_shapes();
void register_lmdb_large_shapes();

}  // namespace drydb_bench
