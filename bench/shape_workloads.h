// The key-shape workloads (shapes.h), written once over a store interface, and their
// registration. Names are "<Workload>_<shape>/<store>": Get_random_1M/drydb, Scan_names/lmdb.
//
// A store S provides, for every shape:
//
//   class S::ShapeReader {
//     explicit ShapeReader(const Shape& shape);  // the store of that shape, built on first use
//     uint64_t get(const ShapeKey& key);          // shape_fold() of the value, 0 when absent,
//                                                 // kShapeFailed when the lookup failed
//     uint64_t scan(const ShapeKey& from, int64_t n);  // sum of shape_fold() over the first n
//                                                      // rows at or after `from`
//     uint64_t count(const ShapeKey& lo, const ShapeKey& hi);  // rows with keys in [lo, hi]
//     uint64_t file_bytes() const;                // the store's files on disk (0: in memory)
//   };
//
// Workloads, each op a fixed number of queries, answers folded into a checksum that must match:
//   Get    1,000 gets of present keys, walking a random permutation of the rows (no repeats
//          until every key was asked), carried from op to op; counter file_bytes. Gets and
//          misses read their keys in query order (shapes.h QueryKeys)
//   Miss   1,000 gets of absent keys (between present ones; dense ids: outside the range)
//   Scan   100 scans of 100 rows, each from a present key
//   Count  100 counts of ranges of 8,000 rows between present keys
//   GetMany  as Get, through the store's batched lookup (stores that have one: drydb's
//          get_many, in calls of kShapeBatch keys), to compare with Get's single lookups
// Before timing, every row is read through the reader (a full scan, checked): this VM reclaims
// pages idle for about a minute, and each store's caches warm the same way. Readers live for the
// whole run, and a reader that read every row less than kTouchFresh ago skips the scan: Google
// Benchmark runs each benchmark several times per repetition (growing iteration counts until
// min_time), and a full scan of a 16M-row store before each of those runs took most of the
// suite's time.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "shapes.h"
#include "workloads.h"

namespace drydb_bench {

// Well inside the minute after which this VM reclaims idle pages.
inline constexpr std::chrono::seconds kTouchFresh{10};

// Store S's reader of shape s, made on first use and never destroyed: the stores a reader uses
// are cached in statics made after this one, which are destroyed first at exit.
template <class S>
typename S::ShapeReader& shape_reader(const Shape& s) {
  static auto* readers = new std::map<const Shape*, std::unique_ptr<typename S::ShapeReader>>;
  std::unique_ptr<typename S::ShapeReader>& r = (*readers)[&s];
  if (!r) r = std::make_unique<typename S::ShapeReader>(s);
  return *r;
}

// Reads every row of s through r, checked, unless r did so less than kTouchFresh ago.
template <class Reader>
bool touch_shape(benchmark::State& state, Reader& r, const Shape& s) {
  using Clock = std::chrono::steady_clock;
  static std::map<const Reader*, Clock::time_point> last_touch;
  const auto it = last_touch.find(&r);
  if (it != last_touch.end() && Clock::now() - it->second < kTouchFresh) return true;
  if (!check(state, r.scan(s.key(0), s.rows()), s.all_rows_sum)) return false;
  last_touch[&r] = Clock::now();
  return true;
}

// The checksum of `iterations` ops of kGetsPerOp gets walking s.get_ranks from its start.
inline uint64_t get_checksum(const Shape& s, int64_t iterations) {
  uint64_t want = 0;
  const size_t n = s.get_ranks.size();
  for (int64_t q = 0, p = 0; q < iterations * int64_t{kGetsPerOp}; ++q) {
    want += s.folds[s.get_ranks[static_cast<size_t>(p)]];
    p = p + 1 == static_cast<int64_t>(n) ? 0 : p + 1;
  }
  return want;
}

template <class S>
void bm_shape_get(benchmark::State& state, ShapeSize size) {
  const Shape& s = shape(size.kind, size.rows);
  typename S::ShapeReader& r = shape_reader<S>(s);
  if (!touch_shape(state, r, s)) return;
  const size_t n = s.get_ranks.size();
  size_t pos = 0;
  uint64_t total = 0;
  for (auto _ : state) {
    uint64_t sum = 0;
    for (int i = 0; i < kGetsPerOp; ++i) {
      sum += r.get(s.get_keys[pos]);
      pos = pos + 1 == n ? 0 : pos + 1;
    }
    total += sum;
  }
  if (!check(state, total, get_checksum(s, state.iterations()))) return;
  report_queries(state, kGetsPerOp);
  state.counters["file_bytes"] = benchmark::Counter(static_cast<double>(r.file_bytes()));
}

template <class S>
void bm_shape_get_many(benchmark::State& state, ShapeSize size) {
  const Shape& s = shape(size.kind, size.rows);
  typename S::ShapeReader& r = shape_reader<S>(s);
  if (!touch_shape(state, r, s)) return;
  const size_t n = s.get_ranks.size();
  size_t pos = 0;
  uint64_t total = 0;
  ShapeKey batch[kShapeBatch];
  for (auto _ : state) {
    uint64_t sum = 0;
    for (int done = 0; done < kGetsPerOp;) {
      const size_t m = std::min<size_t>(kShapeBatch, static_cast<size_t>(kGetsPerOp - done));
      for (size_t j = 0; j < m; ++j) {
        batch[j] = s.get_keys[pos];
        pos = pos + 1 == n ? 0 : pos + 1;
      }
      sum += r.get_many(batch, m);
      done += static_cast<int>(m);
    }
    total += sum;
  }
  if (!check(state, total, get_checksum(s, state.iterations()))) return;
  report_queries(state, kGetsPerOp);
}

template <class S>
void bm_shape_miss(benchmark::State& state, ShapeSize size) {
  const Shape& s = shape(size.kind, size.rows);
  typename S::ShapeReader& r = shape_reader<S>(s);
  if (!touch_shape(state, r, s)) return;
  const size_t n = s.miss_keys.size();
  size_t pos = 0;
  for (auto _ : state) {
    uint64_t sum = 0;
    for (int i = 0; i < kGetsPerOp; ++i) {
      sum += r.get(s.miss_keys[pos]);
      pos = pos + 1 == n ? 0 : pos + 1;
    }
    if (!check(state, sum, 0)) break;
  }
  report_queries(state, kGetsPerOp);
}

template <class S>
void bm_shape_scan(benchmark::State& state, ShapeSize size) {
  const Shape& s = shape(size.kind, size.rows);
  typename S::ShapeReader& r = shape_reader<S>(s);
  if (!touch_shape(state, r, s)) return;
  const size_t n = s.scan_ranks.size();
  size_t pos = 0;
  for (auto _ : state) {
    uint64_t sum = 0, want = 0;
    for (int i = 0; i < kRangesPerOp; ++i) {
      sum += r.scan(s.key(s.scan_ranks[pos]), kShapeScanRows);
      want += s.scan_sums[pos];
      pos = pos + 1 == n ? 0 : pos + 1;
    }
    if (!check(state, sum, want)) break;
  }
  report_queries(state, kRangesPerOp);
}

template <class S>
void bm_shape_count(benchmark::State& state, ShapeSize size) {
  const Shape& s = shape(size.kind, size.rows);
  typename S::ShapeReader& r = shape_reader<S>(s);
  if (!touch_shape(state, r, s)) return;
  const size_t n = s.count_ranks.size();
  const auto span = static_cast<uint32_t>(std::min<int64_t>(kShapeCountRows, s.rows()));
  size_t pos = 0;
  for (auto _ : state) {
    uint64_t sum = 0;
    for (int i = 0; i < kCountsPerOp; ++i) {
      const uint32_t lo = s.count_ranks[pos];
      sum += r.count(s.key(lo), s.key(lo + span - 1));
      pos = pos + 1 == n ? 0 : pos + 1;
    }
    if (!check(state, sum, uint64_t{kCountsPerOp} * span)) break;
  }
  report_queries(state, kCountsPerOp);
}

template <class S>
// point_only: only the point lookups (Get, Miss, GetMany), for a variant of a store whose scans
// and counts are the store's own.
void register_shapes(const std::string& store, bool batched = false, bool point_only = false) {
  for (const ShapeSize size : suite_shapes()) {
    const std::string suffix = "_" + shape_name(size) + "/" + store;
    auto reg = [&](const char* workload, void (*fn)(benchmark::State&, ShapeSize)) {
      benchmark::RegisterBenchmark((workload + suffix).c_str(), fn, size)->UseRealTime();
    };
    reg("Get", bm_shape_get<S>);
    reg("Miss", bm_shape_miss<S>);
    if (!point_only) {
      reg("Scan", bm_shape_scan<S>);
      reg("Count", bm_shape_count<S>);
    }
    if constexpr (requires(typename S::ShapeReader & r, const ShapeKey* k) { r.get_many(k, 1); })
      if (batched) reg("GetMany", bm_shape_get_many<S>);
  }
}

}  // namespace drydb_bench
