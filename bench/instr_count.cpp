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
// range (100 rows, 2000..2099) and count (1000..8999); and one per other path of the read path:
// get_bytes (a get on a byte-keyed table of "key%013d" keys, the StringKeys shape), seek_key (a
// cursor seek to a random int64 key, then its value), seek_rank (a cursor seek to a random rank,
// then its value) and index_get (a get through a unique int64 index whose key is rows-1-key);
// and open (OpenAndFirstRead: open a file of the table alone, get key 123, close; one query
// per op, the file in the OS cache, the system calls' kernel time not counted).
// The LCG and the checksum run inside the measured function for both stores alike; get_bytes'
// 1,000 text keys per op are made before counting starts. scripts/bench.sh --callgrind runs
// every pair.
//
// Key shapes (shapes.h), as WORKLOAD@SHAPE: get, miss, scan or count of drydb_bench's key-shape
// workloads (shape_workloads.h) over the same queries, on shape random_1M, clustered_1M, url_1M,
// names, dense_1M or a 16M one (ROWS is ignored):
//   valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*measured_queries*'
//     build/bench/bench/drydb_instr_count drydb get@names 20
// With --cache-sim=yes, callgrind also counts the first-level data cache misses per query. Store
// "sharded" (when drydb::dataset is built) runs them on the shape's rows as a dataset of 8 range
// shards through drydb::ShardedDatabase (sharded_shape.h; no getmany).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bench_common.h"
#include "drydb/drydb.h"
#include "shape_readers.h"
#include "shapes.h"
#ifdef DRYDB_BENCH_HAVE_DATASET
#include "sharded_shape.h"
#endif

namespace drydb_bench {
namespace {

int64_t g_rows = kRows;  // rows in the table; get_random draws keys over all of them

// An int64 table's key from its encoded bytes (big-endian, sign bit flipped).
int64_t decode_int64(std::span<const std::byte> key) {
  uint64_t u = 0;
  for (std::byte b : key)
    u = u << 8 | static_cast<uint8_t>(b);
  return drydb::ordered_to_int64(u);
}

// The text keys of get_bytes: one op's worth, drawn by the LCG over the rows.
std::vector<std::string> g_text_queries;

struct VectorTable {
  std::vector<int64_t> keys;
  std::vector<std::string> values;
  std::vector<std::string> text_keys;  // string_key_of(i), sorted
  uint64_t get(int64_t key) const {
    auto it = std::lower_bound(keys.begin(), keys.end(), key);
    if (it == keys.end() || *it != key) return 0;
    const auto& v = values[it - keys.begin()];
    return fold(v.data(), v.size());
  }
  uint64_t get_bytes(const std::string& key) const {
    auto it = std::lower_bound(text_keys.begin(), text_keys.end(), key);
    if (it == text_keys.end() || *it != key) return 0;
    const auto& v = values[it - text_keys.begin()];
    return fold(v.data(), v.size());
  }
  uint64_t seek_key(int64_t key) const {
    auto it = std::lower_bound(keys.begin(), keys.end(), key);
    if (it == keys.end()) return 0;
    const auto& v = values[it - keys.begin()];
    return fold(v.data(), v.size());
  }
  uint64_t seek_rank(int64_t rank) const {
    const auto& v = values[static_cast<size_t>(rank)];
    return fold(v.data(), v.size());
  }
  // The index maps rows-1-key to key: the same search over the (reversed) keys.
  uint64_t index_get(int64_t index_key) const {
    return get(static_cast<int64_t>(keys.size()) - 1 - index_key);
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
  drydb::ReadOnlyTable text;
  drydb::SecondaryIndex index;
  uint64_t get(int64_t key) const {
    auto v = table.get(key);
    return v && v->has_value() ? fold(v->bytes()) : 0;
  }
  uint64_t get_bytes(const std::string& key) const {
    auto v = text.get(key);
    return v && v->has_value() ? fold(v->bytes()) : 0;
  }
  uint64_t seek_key(int64_t key) const {
    auto c = table.cursor();
    return c.seek(key) ? fold(c.value()) : 0;
  }
  uint64_t seek_rank(int64_t rank) const {
    auto c = table.cursor();
    return c.seek_rank(static_cast<uint64_t>(rank)) ? fold(c.value()) : 0;
  }
  uint64_t index_get(int64_t index_key) const {
    auto r = index.get(index_key);
    return r && r->has_value() ? fold(r->value()) : 0;
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
    } else if (w == "get_bytes") {
      for (const std::string& key : g_text_queries)
        sum += t.get_bytes(key);
      queries += g_text_queries.size();
    } else if (w == "seek_key" || w == "seek_rank" || w == "index_get") {
      Lcg lcg;
      for (int i = 0; i < kGetsPerOp; ++i) {
        const int64_t x = lcg.next(g_rows);
        sum += w == "seek_key" ? t.seek_key(x) : w == "seek_rank" ? t.seek_rank(x) : t.index_get(x);
      }
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

// `ops` ops of a key-shape workload over the shape's queries, as drydb_bench asks them; returns
// {checksum, queries}.
template <class Q>
std::pair<uint64_t, uint64_t> shape_queries(const Q& q, const Shape& s, std::string_view w,
                                            int ops) {
  uint64_t sum = 0, queries = 0;
  size_t pos = 0;
  for (int op = 0; op < ops; ++op) {
    if (w == "get" || w == "miss") {
      const QueryKeys& keys = w == "get" ? s.get_keys : s.miss_keys;
      for (int i = 0; i < kGetsPerOp; ++i, pos = pos + 1 == keys.size() ? 0 : pos + 1)
        sum += q.get(keys[pos]);
      queries += kGetsPerOp;
    } else if (w == "getmany") {
      if constexpr (requires { q.get_many(nullptr, size_t{0}); }) {
        // Batches of kShapeBatch keys, as drydb_bench's GetMany asks them.
        const QueryKeys& keys = s.get_keys;
        for (size_t done = 0; done < kGetsPerOp;) {
          const size_t n = std::min({kShapeBatch, kGetsPerOp - done, keys.size() - pos});
          sum += q.get_many(&keys[pos], n);
          done += n;
          pos = pos + n == keys.size() ? 0 : pos + n;
        }
        queries += kGetsPerOp;
      } else {
        die("no batched lookup in this store:", w);
      }
    } else if (w == "scan") {
      for (int i = 0; i < kRangesPerOp; ++i, pos = pos + 1 == s.scan_ranks.size() ? 0 : pos + 1)
        sum += q.scan(s.key(s.scan_ranks[pos]), kShapeScanRows);
      queries += kRangesPerOp;
    } else if (w == "count") {
      const auto span = static_cast<uint32_t>(std::min<int64_t>(kShapeCountRows, s.rows()));
      for (int i = 0; i < kCountsPerOp; ++i, pos = pos + 1 == s.count_ranks.size() ? 0 : pos + 1) {
        const uint32_t lo = s.count_ranks[pos];
        sum += q.count(s.key(lo), s.key(lo + span - 1));
      }
      queries += kCountsPerOp;
    } else {
      die("unknown key-shape workload", w);
    }
  }
  return {sum, queries};
}

template <class Q>
[[gnu::noinline]] std::pair<uint64_t, uint64_t> measured_queries(const Q& q, const Shape& s,
                                                                 std::string_view w, int ops) {
  return shape_queries(q, s, w, ops);
}

// WORKLOAD@SHAPE on `store`.
int run_shape(std::string_view store, std::string_view spec, int ops) {
  const size_t at = spec.find('@');
  const std::string_view workload = spec.substr(0, at), name = spec.substr(at + 1);
  const Shape* s = nullptr;
  for (const ShapeSize size : suite_shapes())
    if (shape_name(size) == name) s = &shape(size.kind, size.rows);
  if (s == nullptr) die("unknown shape", name);
  auto run_on = [&](const auto& q) {
    // Uncounted, as drydb_bench touches every row before timing: every page faulted in and
    // verified (drydb checks a page on its first visit), the caches warm.
    (void)q.scan(s->key(0), s->rows());
    (void)shape_queries(q, *s, workload, 1);
    auto [sum, n] = measured_queries(q, *s, workload, ops);
    std::printf("queries %llu checksum %llu\n", static_cast<unsigned long long>(n),
                static_cast<unsigned long long>(sum));
  };
  if (store == "vector") {
    run_on(VectorShapeQueries(*s));
    return 0;
  }
#ifdef DRYDB_BENCH_HAVE_DATASET
  if (store == "sharded") {
    build_sharded_shape(*s, scratch_dir() / "sharded", 8);
    {
      auto ds = drydb::ShardedDatabase::open(scratch_dir() / "sharded");
      require(ds.has_value(), "drydb sharded open", ds ? "" : ds.error().message);
      run_on(ShardedShapeQueries(*s, ds->table("items").value()));
    }
    cleanup();
    return 0;
  }
#endif
  if (store != "drydb") die("unknown store", store);
  const auto path = scratch_dir() / "shape.drydb";
  {
    drydb::DatabaseBuilder builder({.page_size = kPageSize});
    append_shape_rows(builder.create_table("items", shape_key_encoding(*s)), *s);
    auto st = builder.build_to_file(path);
    require(st.has_value(), "drydb build", st ? "" : st.error().message);
  }
  {
    auto db = drydb::ReadOnlyDatabase::open(path);
    require(db.has_value(), "drydb open", db ? "" : db.error().message);
    run_on(DrydbShapeQueries(*s, db->table("items").value()));
  }
  cleanup();
  return 0;
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

// One op of workload "open", as OpenAndFirstRead: open the file, its table, get kFindKey, close.
uint64_t open_and_first_get(const std::filesystem::path& path) {
  auto db = drydb::ReadOnlyDatabase::open(path);
  if (!db) return 0;
  auto table = db->table("items");
  if (!table) return 0;
  auto v = table->get(kFindKey);
  return v && v->has_value() ? fold(v->bytes()) : 0;
}

[[gnu::noinline]] std::pair<uint64_t, uint64_t> measured_queries_open(
    const std::filesystem::path& path, int ops) {
  uint64_t sum = 0;
  for (int op = 0; op < ops; ++op)
    sum += open_and_first_get(path);
  return {sum, static_cast<uint64_t>(ops)};
}

int run_open(int ops) {
  const auto path = scratch_dir() / "open.drydb";
  {
    drydb::DatabaseBuilder builder({.page_size = kPageSize});
    auto& items = builder.create_table("items", drydb::KeyEncoding::int64());
    for (int64_t k = 0; k < g_rows; ++k)
      items.append(k, value_of(k));
    auto st = builder.build_to_file(path);
    require(st.has_value(), "drydb build", st ? "" : st.error().message);
  }
  require(open_and_first_get(path) != 0, "drydb open", "no row at the find key");
  auto [sum, n] = measured_queries_open(path, ops);
  std::printf("queries %llu checksum %llu\n", static_cast<unsigned long long>(n),
              static_cast<unsigned long long>(sum));
  cleanup();
  return 0;
}

int main_impl(int argc, char** argv) {
  if (argc != 4 && argc != 5) {
    std::fprintf(
        stderr,
        "usage: %s drydb|vector get_random|get_same|range|count|get_bytes|seek_key|"
        "seek_rank|index_get|open OPS [ROWS] (open: drydb only)\n"
        "       %s drydb|vector get|getmany|miss|scan|count@SHAPE OPS (getmany: drydb only)\n",
        argv[0], argv[0]);
    return 2;
  }
  const std::string_view store = argv[1], workload = argv[2];
  const int ops = std::atoi(argv[3]);
  if (workload.find('@') != std::string_view::npos) return run_shape(store, workload, ops);
  if (argc == 5) g_rows = std::atoll(argv[4]);
  if (g_rows <= kCountLast) die("ROWS must exceed the count range's last key");
  {
    Lcg lcg;
    for (int i = 0; i < kGetsPerOp; ++i)
      g_text_queries.push_back(string_key_of(lcg.next(g_rows)));
  }
  if (store == "vector") {
    VectorTable t;
    for (int64_t k = 0; k < g_rows; ++k) {
      t.keys.push_back(k);
      t.values.push_back(value_of(k));
      t.text_keys.push_back(string_key_of(k));
    }
    return run(t, workload, ops);
  }
  if (store != "drydb") die("unknown store", store);
  if (workload == "open") return run_open(ops);
  const auto path = scratch_dir() / "items.drydb";
  {
    drydb::DatabaseBuilder builder({.page_size = kPageSize});
    auto& items = builder.create_table("items", drydb::KeyEncoding::int64());
    for (int64_t k = 0; k < g_rows; ++k)
      items.append(k, value_of(k));
    items.add_secondary_index("reversed", /*unique=*/true, drydb::KeyEncoding::int64(),
                              [](std::span<const std::byte> key,
                                 std::span<const std::byte>) -> std::optional<drydb::IndexKey> {
                                return g_rows - 1 - decode_int64(key);
                              });
    // The text table holds the same values under "key%013d" keys.
    auto& text = builder.create_table("text", drydb::KeyEncoding::bytes());
    for (int64_t k = 0; k < g_rows; ++k)
      text.append(string_key_of(k), value_of(k));
    auto st = builder.build_to_file(path);
    require(st.has_value(), "drydb build", st ? "" : st.error().message);
  }
  int rc;
  {
    auto db = drydb::ReadOnlyDatabase::open(path);
    require(db.has_value(), "drydb open", db ? "" : db.error().message);
    auto items = db->table("items").value();
    rc = run(DrydbTable{items, db->table("text").value(), items.index("reversed").value()},
             workload, ops);
  }
  cleanup();
  return rc;
}

}  // namespace
}  // namespace drydb_bench

int main(int argc, char** argv) {
  return drydb_bench::main_impl(argc, argv);
}
