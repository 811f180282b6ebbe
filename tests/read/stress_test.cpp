// Stress under eviction: 8 threads share one database read through pread with a page cache of
// a twentieth of the file, so leaves and overflow runs are loaded, evicted and reloaded all the
// time, while each thread also keeps a few Values (pinned pages) alive across its other
// queries. The threads run random gets (present and absent keys), get_range with every bound
// kind in both orders, count_range, prefix scans, cursor seeks and walks and seeks by rank, for
// a fixed number of operations each (not a time), and every answer is checked against a
// std::map model; held Values must keep their bytes until released. A tenth of the operations
// query the secondary indexes instead: get (first row of an index key, or none), get_all,
// get_range with every bound kind in both orders, count_range, prefix (refused on int64 keys),
// and cursors placed by seek_exact or seek_rank and walked either way, each entry's rank, index
// key and row checked, and a Row taken from the cursor kept across its moves. Index queries
// resolve rows all over the primary tree, so they thrash the cache hardest. Run by
// scripts/test.sh under ASan+UBSan and under TSan as well. The test prints how many queries ran
// and how many answers were checked (also as the test properties queries, index_queries and
// checked_answers).
//
// The database (page size 1,024; about 3 MB):
//   items  bytes keys "user/NNNNNNN" (every 3rd number), 20,000 rows, values 0..60 bytes and
//          every 41st an overflow value of 257..3,000 bytes (1 to 3 pages); indexes:
//            tag   non-unique bytes: the value's first 1..3 bytes (with 0x00 bytes; rows with
//                  values under 2 bytes are left out), ~25 rows a key
//            num   unique int64: minus the key's number, every 5th row left out
//   nums   int64 keys (multiples of 7 around 0), 20,000 rows, 12-byte values (uniform leaves)
//          and every 500th a 900-byte overflow value; indexes:
//            bucket  non-unique int64: (key / 7) mod 2,003 - 1,000, ~10 rows a key, scattered
//            name    unique bytes (variable width): "n" and the key in decimal, so text order
#include <gtest/gtest.h>

#include <atomic>
#include <barrier>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <thread>

#include "support/fault_util.h"

namespace drydb_test {
namespace {

using drydb::ReadOnlyDatabase;
using drydb::SortOrder;

constexpr int kThreads = 8;
// Operations per thread: enough to cycle the cache many times over; fewer under sanitizers.
constexpr int kOpsPerThread = DRYDB_TEST_SANITIZED ? 5000 : 60000;
constexpr uint32_t kPageSize = 1024;
constexpr size_t kSpan = 150;      // most rows a bounded range covers
constexpr size_t kIndexSpan = 12;  // most entries a bounded index range covers (each its own row)

DbModel make_model() {
  DbModel m;
  m.page_size = kPageSize;
  TableModel items = make_table("items", drydb::KeyEncoding::bytes());
  for (uint32_t i = 0; i < 20000; ++i) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "user/%07u", i * 3);
    size_t len = (i * 37) % 61;
    if (i % 41 == 7) len = 257 + (i * 131) % 2744;
    items.rows.emplace(buf, make_value(i, len));
  }
  items.indexes.push_back(
      make_index("tag", false, drydb::KeyEncoding::bytes(),
                 [](const std::string&, const std::string& v) -> std::optional<std::string> {
                   if (v.size() < 2) return std::nullopt;
                   return v.substr(0, 1 + static_cast<unsigned char>(v[1]) % 3);
                 }));
  items.indexes.push_back(
      make_index("num", true, drydb::KeyEncoding::int64(),
                 [](const std::string& k, const std::string&) -> std::optional<std::string> {
                   const int64_t n = std::strtoll(k.c_str() + 5, nullptr, 10);
                   if (n % 5 == 1) return std::nullopt;
                   return int64_key(-n);
                 }));
  TableModel nums = make_table("nums", drydb::KeyEncoding::int64());
  for (int64_t i = 0; i < 20000; ++i)
    nums.rows.emplace(int64_key(i * 7 - 70000),
                      make_value(900000 + static_cast<uint64_t>(i), i % 500 == 3 ? 900 : 12));
  nums.indexes.push_back(
      make_index("bucket", false, drydb::KeyEncoding::int64(),
                 [](const std::string& k, const std::string&) -> std::optional<std::string> {
                   const int64_t n = int64_of(k) / 7;
                   return int64_key((n % 2003 + 2003) % 2003 - 1000);
                 }));
  nums.indexes.push_back(
      make_index("name", true, drydb::KeyEncoding::bytes(),
                 [](const std::string& k, const std::string&) -> std::optional<std::string> {
                   return "n" + std::to_string(int64_of(k));
                 }));
  m.tables = {items, nums};
  return m;
}

using Fixture = ModelFile;

// Built once: the threads share the file.
const Fixture& fixture() {
  static const Fixture& f = model_file_for_process(make_model(), "stress.drydb");
  return f;
}

// A key to ask for: a key of the table, or (one time in four) one in the gap after it.
std::string pick_key(const TableModel& t, Rng& r, size_t i) {
  const std::string& k = t.sorted[i].first;
  if (!r.chance(4)) return k;
  return t.is_int64() ? int64_key(int64_of(k) + 1 + static_cast<int64_t>(r.below(5))) : k + "~";
}

// A random range of at most `span` of the `n` keys `pick(i)` gives (in order): bounded at both
// ends, or open at one end near that end, with random exclusivity and order.
template <class Pick>
void random_range(size_t n, size_t span, Rng& r, Pick pick, Bound* s, Bound* e,
                  drydb::RangeOptions* o) {
  const size_t i = r.below(n), j = std::min(n - 1, i + r.below(span));
  *s = Bound::at(pick(i));
  *e = Bound::at(pick(j));
  switch (r.below(10)) {
    case 0:
      *s = Bound::none();
      *e = Bound::at(pick(r.below(span)));
      break;
    case 1:
      *s = Bound::at(pick(n - 1 - r.below(span)));
      *e = Bound::none();
      break;
    case 2:
      std::swap(*s, *e);  // start > end: errc::invalid_argument (unless equal)
      break;
    default:
      break;
  }
  o->start_exclusive = r.chance(2);
  o->end_exclusive = r.chance(2);
  o->order = r.chance(2) ? SortOrder::descending : SortOrder::ascending;
}

// A random range of a table, at most kSpan rows.
void random_range(const TableModel& t, Rng& r, Bound* s, Bound* e, drydb::RangeOptions* o) {
  random_range(
      t.size(), kSpan, r, [&](size_t i) { return pick_key(t, r, i); }, s, e, o);
}

// A cursor positioned by key or by rank, then walked a few rows one way and back.
void random_cursor(const drydb::ReadOnlyTable& table, const TableModel& t, Rng& r, Outcome& out) {
  if (r.chance(2)) return check_seek(table, t, pick_key(t, r, r.below(t.size())), out);
  const uint64_t rank = r.below(t.size());
  const int steps = static_cast<int>(r.below(40));
  check_cursor(table, t, std::nullopt, rank, steps, r.chance(2), out);
}

// An index key to ask for: one of an entry, or (one time in four) one just after it, or (one
// time in 32) one past every entry.
std::string pick_index_key(const IndexModel& ix, Rng& r, size_t i) {
  const std::string& k = ix.entries[i].first;
  if (r.chance(32)) return ix.is_int64() ? int64_key(int64_t{1} << 40) : std::string(4, '\xff');
  if (!r.chance(4)) return k;
  return ix.is_int64() ? int64_key(int64_of(k) + 1 + static_cast<int64_t>(r.below(3))) : k + "~";
}

// A random range of an index, at most kIndexSpan entries.
void random_index_range(const IndexModel& ix, Rng& r, Bound* s, Bound* e, drydb::RangeOptions* o) {
  random_range(
      ix.size(), kIndexSpan, r, [&](size_t i) { return pick_index_key(ix, r, i); }, s, e, o);
}

// One random checked query of a secondary index.
void index_query(const drydb::SecondaryIndex& index, const TableModel& t, const IndexModel& ix,
                 Rng& r, Outcome& out) {
  const size_t n = ix.size();
  switch (r.below(6)) {
    case 0:
      return check_index_get(index, t, ix, pick_index_key(ix, r, r.below(n)), out);
    case 1:
      return check_index_get_all(index, t, ix, pick_index_key(ix, r, r.below(n)), out);
    case 2: {
      Bound s, e;
      drydb::RangeOptions o;
      random_index_range(ix, r, &s, &e, &o);
      return check_index_range(index, t, ix, s, e, o, out);
    }
    case 3: {
      Bound s, e;
      drydb::RangeOptions o;
      random_index_range(ix, r, &s, &e, &o);
      if (r.chance(8)) s = Bound::none();  // counts cost two descents whatever the span
      return check_index_count(index, t, ix, s, e, o, out);
    }
    case 4: {
      const auto order = r.chance(2) ? SortOrder::descending : SortOrder::ascending;
      if (ix.is_int64()) return check_index_prefix(index, t, ix, "", order, out);  // refused
      // A prefix of an index key: short keys may lose bytes, long ones keep 5 (a few rows).
      const std::string& k = ix.entries[r.below(n)].first;
      const size_t keep = k.size() > 3 ? std::min<size_t>(k.size(), 5) : 1;
      const size_t len = std::max(keep, k.size() - std::min<size_t>(k.size(), r.below(3)));
      return check_index_prefix(index, t, ix, k.substr(0, len), order, out);
    }
    default: {
      std::optional<std::string> k;
      if (r.chance(2)) k = pick_index_key(ix, r, r.below(n));
      return check_index_cursor(index, t, ix, k, r.below(n), static_cast<int>(r.below(12)),
                                r.chance(2), out);
    }
  }
}

// A Value a thread keeps for a while, with what it must still read as.
struct Held {
  drydb::Value value;
  const std::string* want = nullptr;
};

TEST(Stress, EightThreadsUnderEviction) {
  const Fixture& f = fixture();
  const size_t cache = f.file.size() / 20;
  auto db = ReadOnlyDatabase::open(
      f.path, {.storage = drydb::StorageKind::pread, .page_cache_bytes = cache});
  ASSERT_TRUE(db) << db.error().to_string();
  ASSERT_GE(f.file.size(), 20 * cache);

  std::barrier start(kThreads);
  std::atomic<uint64_t> queries{0}, index_queries{0}, held_checks{0};
  std::vector<Outcome> outcomes(kThreads);
  std::vector<std::thread> threads;
  for (int th = 0; th < kThreads; ++th)
    threads.emplace_back([&, th] {
      Rng r(0x5eed + static_cast<uint64_t>(th));
      Outcome& out = outcomes[static_cast<size_t>(th)];
      std::vector<drydb::ReadOnlyTable> tables;
      // Every index of every table: (table number, index number) and the handle.
      std::vector<std::pair<size_t, size_t>> index_of;
      std::vector<drydb::SecondaryIndex> indexes;
      for (size_t ti = 0; ti < f.model.tables.size(); ++ti) {
        const TableModel& t = f.model.tables[ti];
        tables.push_back(db->table(t.name).value());
        for (size_t xi = 0; xi < t.indexes.size(); ++xi) {
          index_of.emplace_back(ti, xi);
          indexes.push_back(tables.back().index(t.indexes[xi].name).value());
        }
      }
      std::vector<Held> held(4);
      start.arrive_and_wait();
      uint64_t done = 0, index_done = 0;
      for (int op = 0; op < kOpsPerThread; ++op, ++done) {
        if (r.chance(10)) {  // a tenth of the operations: an index query
          const size_t x = r.below(indexes.size());
          const TableModel& t = f.model.tables[index_of[x].first];
          index_query(indexes[x], t, t.indexes[index_of[x].second], r, out);
          ++index_done;
          continue;
        }
        const size_t ti = r.below(tables.size());
        const TableModel& t = f.model.tables[ti];
        const drydb::ReadOnlyTable& table = tables[ti];
        switch (r.below(8)) {
          case 0:
          case 1:
            check_get(table, t, pick_key(t, r, r.below(t.size())), out);
            break;
          case 2: {  // a get whose Value is kept: its page must stay put while others evict
            Held& h = held[r.below(held.size())];
            if (h.want != nullptr) {
              ++held_checks;
              if (!same(h.value.bytes(), *h.want)) out.mismatch(t.name + ": a held Value changed");
            }
            const size_t i = r.below(t.size());
            auto v = table.get(key_of(t, t.sorted[i].first));
            if (!v || !*v) {
              if (!v)
                out.error(v.error());
              else
                out.mismatch(t.name + ": get missed a present key");
              h = Held{};
              break;
            }
            h = Held{std::move(*v), &t.sorted[i].second};
            break;
          }
          case 3: {
            Bound s, e;
            drydb::RangeOptions o;
            random_range(t, r, &s, &e, &o);
            check_range(table, t, s, e, o, out);
            break;
          }
          case 4: {
            Bound s, e;
            drydb::RangeOptions o;
            random_range(t, r, &s, &e, &o);
            if (r.chance(8)) s = Bound::none();  // counts cost two descents whatever the span
            check_count(table, t, s, e, o, out);
            break;
          }
          case 5:
            if (t.is_int64()) {
              check_prefix(table, t, "", SortOrder::ascending, out);  // refused: typed keys
            } else {
              const std::string& k = t.sorted[r.below(t.size())].first;
              check_prefix(table, t, k.substr(0, 9 + r.below(3)),
                           r.chance(2) ? SortOrder::descending : SortOrder::ascending, out);
            }
            break;
          default:
            random_cursor(table, t, r, out);
            break;
        }
      }
      for (Held& h : held)
        if (h.want != nullptr && !same(h.value.bytes(), *h.want))
          out.mismatch("a held Value changed before its release");
      queries += done;
      index_queries += index_done;
    });
  for (auto& t : threads)
    t.join();

  Outcome all;
  for (const auto& o : outcomes)
    all.merge(o);
  std::printf(
      "[ stress ] %d threads, %llu checked queries (%llu of tables, %llu of indexes; %llu "
      "answers checked right, %llu held-value checks); file %llu bytes, page cache %zu bytes "
      "(1/20)\n",
      kThreads, static_cast<unsigned long long>(queries.load()),
      static_cast<unsigned long long>(queries.load() - index_queries.load()),
      static_cast<unsigned long long>(index_queries.load()),
      static_cast<unsigned long long>(all.correct),
      static_cast<unsigned long long>(held_checks.load()),
      static_cast<unsigned long long>(f.file.size()), cache);
  RecordProperty("queries", std::to_string(queries.load()));
  RecordProperty("index_queries", std::to_string(index_queries.load()));
  RecordProperty("checked_answers", std::to_string(all.correct));
  EXPECT_EQ(queries.load(), uint64_t{kThreads} * kOpsPerThread);
  expect_all_correct(all, queries.load() / 2);
  // The file still verifies through the same (thrashed) cache.
  EXPECT_TRUE(db->verify());
}

}  // namespace
}  // namespace drydb_test
