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
// A store without order (a hash) has no scan() or count() but scan_all(): the sum of
// shape_fold() over every row, in any order; only its point lookups are registered. A store of
// text keys only declares `static constexpr bool kTextOnly = true;` in its ShapeReader: only the
// text shapes are registered for it.
//
// Workloads, each op a fixed number of queries, answers folded into a checksum that must match:
//   Get    1,000 gets of present keys, walking a random permutation of the rows (no repeats
//          until every key was asked; at 100M rows, of a random 2^24 of them, shapes.h),
//          carried from op to op; counter file_bytes. Gets and
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

template <class Reader>
concept ShapeScans = requires(Reader& r, const ShapeKey& k) {
  r.scan(k, int64_t{1});
};
template <class Reader>
concept ShapeCounts = requires(Reader& r, const ShapeKey& k) {
  r.count(k, k);
};
template <class Reader>
concept TextOnlyShapes = Reader::kTextOnly;

// Reads every row of s through r, checked, unless r did so less than kTouchFresh ago.
template <class Reader>
bool touch_shape(benchmark::State& state, Reader& r, const Shape& s) {
  using Clock = std::chrono::steady_clock;
  static std::map<const Reader*, Clock::time_point> last_touch;
  const auto it = last_touch.find(&r);
  if (it != last_touch.end() && Clock::now() - it->second < kTouchFresh) return true;
  uint64_t all = 0;
  if constexpr (ShapeScans<Reader>)
    all = r.scan(s.key(0), s.rows());
  else
    all = r.scan_all();
  if (!check(state, all, s.all_rows_sum)) return false;
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

// Walks a list of queries round and round, carried from op to op: next() is the position of the
// next query.
class Cycle {
 public:
  explicit Cycle(size_t n) : n_(n) {}
  size_t next() {
    const size_t at = pos_;
    pos_ = pos_ + 1 == n_ ? 0 : pos_ + 1;
    return at;
  }

 private:
  size_t n_;
  size_t pos_ = 0;
};

// The workloads, each given the shape and its store's reader, every row already read through it.

template <class Reader>
void bm_shape_get(benchmark::State& state, const Shape& s, Reader& r) {
  Cycle at(s.get_ranks.size());
  uint64_t total = 0;
  for (auto _ : state) {
    uint64_t sum = 0;
    for (int i = 0; i < kGetsPerOp; ++i)
      sum += r.get(s.get_keys[at.next()]);
    total += sum;
  }
  if (!check(state, total, get_checksum(s, state.iterations()))) return;
  report_queries(state, kGetsPerOp);
  state.counters["file_bytes"] = benchmark::Counter(static_cast<double>(r.file_bytes()));
}

template <class Reader>
void bm_shape_get_many(benchmark::State& state, const Shape& s, Reader& r) {
  Cycle at(s.get_ranks.size());
  uint64_t total = 0;
  ShapeKey batch[kShapeBatch];
  for (auto _ : state) {
    uint64_t sum = 0;
    for (int done = 0; done < kGetsPerOp;) {
      const size_t m = std::min<size_t>(kShapeBatch, static_cast<size_t>(kGetsPerOp - done));
      for (size_t j = 0; j < m; ++j)
        batch[j] = s.get_keys[at.next()];
      sum += r.get_many(batch, m);
      done += static_cast<int>(m);
    }
    total += sum;
  }
  if (!check(state, total, get_checksum(s, state.iterations()))) return;
  report_queries(state, kGetsPerOp);
}

template <class Reader>
void bm_shape_miss(benchmark::State& state, const Shape& s, Reader& r) {
  Cycle at(s.miss_keys.size());
  run_ops(state, kGetsPerOp, 0, [&](int) { return r.get(s.miss_keys[at.next()]); });
}

template <class Reader>
void bm_shape_scan(benchmark::State& state, const Shape& s, Reader& r) {
  Cycle at(s.scan_ranks.size());
  for (auto _ : state) {
    uint64_t sum = 0, want = 0;
    for (int i = 0; i < kRangesPerOp; ++i) {
      const size_t p = at.next();
      sum += r.scan(s.key(s.scan_ranks[p]), kShapeScanRows);
      want += s.scan_sums[p];
    }
    if (!check(state, sum, want)) break;
  }
  report_queries(state, kRangesPerOp);
}

template <class Reader>
void bm_shape_count(benchmark::State& state, const Shape& s, Reader& r) {
  Cycle at(s.count_ranks.size());
  const auto span = static_cast<uint32_t>(std::min<int64_t>(kShapeCountRows, s.rows()));
  run_ops(state, kCountsPerOp, uint64_t{kCountsPerOp} * span, [&](int) {
    const uint32_t lo = s.count_ranks[at.next()];
    return r.count(s.key(lo), s.key(lo + span - 1));
  });
}

// point_only: only the point lookups (Get, Miss, GetMany), for a variant of a store whose scans
// and counts are the store's own. Scan and Count only where the reader has them. `sizes`: the
// suite's shapes, or the 100M-row ones (large_shapes()).
template <class S>
void register_shapes(const std::string& store, bool batched = false, bool point_only = false,
                     const std::vector<ShapeSize>& sizes = suite_shapes()) {
  using Reader = typename S::ShapeReader;
  for (const ShapeSize size : sizes) {
    if constexpr (TextOnlyShapes<Reader>)
      if (int_shape(size.kind)) continue;
    const std::string suffix = "_" + shape_name(size) + "/" + store;
    auto reg = [&](const char* workload, void (*fn)(benchmark::State&, const Shape&, Reader&)) {
      auto run = [fn, size](benchmark::State& state) {
        const Shape& s = shape(size.kind, size.rows);
        Reader& r = shape_reader<S>(s);
        if (touch_shape(state, r, s)) fn(state, s, r);
      };
      benchmark::RegisterBenchmark((workload + suffix).c_str(), run)->UseRealTime();
    };
    reg("Get", bm_shape_get<Reader>);
    reg("Miss", bm_shape_miss<Reader>);
    if constexpr (ShapeScans<Reader>)
      if (!point_only) reg("Scan", bm_shape_scan<Reader>);
    if constexpr (ShapeCounts<Reader>)
      if (!point_only) reg("Count", bm_shape_count<Reader>);
    if constexpr (requires(Reader & r, const ShapeKey* k) { r.get_many(k, 1); })
      if (batched) reg("GetMany", bm_shape_get_many<Reader>);
  }
}

// Every workload of workloads.h and of this file, for a store that has them all (a peer
// database, which has no batched lookup).
template <class S>
void register_all(const std::string& store) {
  register_int_reads<S>(store);
  register_string_reads<S>(store);
  register_open<S>(store);
  register_build<S>(store);
  register_shapes<S>(store);
}

// Every read workload (integer keys, text keys, the key shapes), for an in-memory store: it has
// no file to open or build.
template <class S>
void register_reads(const std::string& store) {
  register_int_reads<S>(store);
  register_string_reads<S>(store);
  register_shapes<S>(store);
}

}  // namespace drydb_bench
