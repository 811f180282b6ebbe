// Concurrent readers on one database (design.md §6; issue 2, "Concurrency"): threads querying
// one database whose page cache is far smaller than the file, so pages are loaded, evicted and
// reloaded under load. Every answer is checked against a std::map model; the run is bounded by
// iteration counts, not time. Build with -DDRYDB_SANITIZE=thread to check for data races.
//
// The database (page size 512, about 1,000 pages, 0.5 MB):
//   items  bytes keys "user/NNNNNN" (every 3rd number), 3,000 rows, values 0..89 bytes and
//          every 17th an overflow value of 129..2,600 bytes (1 to 6 pages)
//   nums   int64 keys (multiples of 5, negative and positive), 3,000 rows, 8-byte values and
//          every 50th a 300-byte overflow value
// The page cache is 16 KiB (32 pages); internal pages are pinned for the database's life and
// are not part of that budget.
#include <gtest/gtest.h>

#include <barrier>
#include <cstdio>
#include <thread>

#include "support/fault_util.h"

namespace drydb_test {
namespace {

using drydb::OpenOptions;
using drydb::ReadOnlyDatabase;
using drydb::ReadOnlyTable;
using drydb::SortOrder;
using drydb::StorageKind;

// Iterations per thread: enough to evict every page many times, small enough for TSan.
constexpr int kIterations = DRYDB_TEST_SANITIZED ? 3000 : 20000;
constexpr size_t kCacheBytes = 16 * 1024;

using Fixture = ModelFile;

// Built once: tests share the file.
const Fixture& fixture() {
  static const Fixture& f = model_file_for_process(users_and_numbers(3000, -7000));
  return f;
}

// A key for a query: usually a key of the table, sometimes a key in the gap after one.
std::string pick_key(const TableModel& t, Rng& r, size_t* index = nullptr) {
  size_t i = r.below(t.size());
  if (index) *index = i;
  const std::string& k = t.sorted[i].first;
  if (r.chance(4)) return t.is_int64() ? int64_key(int64_of(k) + 1 + int64_t(r.below(3))) : k + '!';
  return k;
}

Bound pick_bound(const TableModel& t, Rng& r, size_t* index) {
  if (r.chance(12)) {
    *index = r.chance(2) ? 0 : t.size();
    return Bound::none();
  }
  return Bound::at(pick_key(t, r, index));
}

// One random query on one of the tables, checked against the model.
void random_query(const std::vector<ReadOnlyTable>& tables, const DbModel& m, Rng& r,
                  Outcome& out) {
  const size_t ti = r.below(tables.size());
  const ReadOnlyTable& table = tables[ti];
  const TableModel& t = m.tables[ti];
  switch (r.below(10)) {
    case 0:
    case 1:
    case 2:
      return check_get(table, t, pick_key(t, r), out);
    case 3: {  // a short range, or rarely an open-ended one
      size_t a, b;
      Bound s = pick_bound(t, r, &a);
      Bound e = s.bounded && !r.chance(10)
                    ? Bound::at(t.sorted[std::min(t.size() - 1, a + r.below(60))].first)
                    : pick_bound(t, r, &b);
      if (s.bounded && e.bounded && s.key > e.key && !r.chance(20)) std::swap(s, e);
      drydb::RangeOptions o{.start_exclusive = r.chance(2),
                            .end_exclusive = r.chance(2),
                            .order = r.chance(2) ? SortOrder::descending : SortOrder::ascending};
      return check_range(table, t, s, e, o, out);
    }
    case 4:
    case 5: {
      size_t a, b;
      Bound s = pick_bound(t, r, &a), e = pick_bound(t, r, &b);
      if (s.bounded && e.bounded && s.key > e.key && !r.chance(20)) std::swap(s, e);
      return check_count(table, t, s, e,
                         {.start_exclusive = r.chance(2), .end_exclusive = r.chance(2)}, out);
    }
    case 6: {
      if (t.is_int64()) return check_prefix(table, t, "", SortOrder::ascending, out);
      // "user/0012" covers about 33 rows; "user/00123" about 3.
      const std::string& k = t.sorted[r.below(t.size())].first;
      return check_prefix(table, t, k.substr(0, 9 + r.below(2)),
                          r.chance(2) ? SortOrder::descending : SortOrder::ascending, out);
    }
    case 7:
    case 8:
      return check_cursor(table, t, pick_key(t, r), 0, 1 + int(r.below(50)), r.chance(2), out);
    default: {  // the overflow values: big, multi-page, evicted often
      for (int tries = 0; tries < 40; ++tries) {
        const Row& row = t.sorted[r.below(t.size())];
        if (row.second.size() > 128) return check_get(table, t, row.first, out);
      }
      return check_get(table, t, pick_key(t, r), out);
    }
  }
}

// What a set of threads found, together.
Outcome merged(const std::vector<Outcome>& outs) {
  Outcome all;
  for (const auto& o : outs)
    all.merge(o);
  return all;
}

// Runs `threads` threads of random queries on `db`; returns what they found, merged.
Outcome hammer(const ReadOnlyDatabase& db, const DbModel& m, int threads, int iterations,
               uint64_t seed) {
  std::vector<Outcome> outs(threads);
  std::vector<std::thread> pool;
  std::barrier start(threads);
  for (int i = 0; i < threads; ++i)
    pool.emplace_back([&, i] {
      std::vector<ReadOnlyTable> tables;
      for (const auto& t : m.tables)
        tables.push_back(*db.table(t.name));
      Rng r(seed * 1000 + static_cast<uint64_t>(i));
      start.arrive_and_wait();
      for (int k = 0; k < iterations; ++k)
        random_query(tables, m, r, outs[i]);
    });
  for (auto& th : pool)
    th.join();
  return merged(outs);
}

// expect_all_correct, after printing how many answers were checked.
void expect_all_correct_printed(const Outcome& out, uint64_t min_queries) {
  std::printf("    %llu answers checked\n", static_cast<unsigned long long>(out.correct));
  expect_all_correct(out, min_queries);
}

// with_counted_pages of the fixture's file opened with pread and a cache of `cache_bytes`.
template <class Body>
void with_pread_cache(size_t cache_bytes, Body body) {
  with_counted_pages(
      [&](drydb::PageAllocator* alloc) {
        return ReadOnlyDatabase::open(
            fixture().path,
            {.storage = StorageKind::pread, .page_cache_bytes = cache_bytes, .allocator = alloc});
      },
      body);
}

TEST(Concurrency, FixtureIsFarLargerThanTheCache) {
  const Fixture& f = fixture();
  auto db = ReadOnlyDatabase::open_memory(f.file);
  ASSERT_TRUE(db);
  EXPECT_GT(f.file.size(), 20 * kCacheBytes);
  EXPECT_GE(db->table("items")->info().depth, 3u);
  EXPECT_GT(db->table("items")->info().overflow_pages, 100u);
  Outcome out;
  check_database(*db, f.model, out);
  expect_all_correct_printed(out, 1000);
}

TEST(Concurrency, FourThreadsPreadSmallCache) {
  const Fixture& f = fixture();
  with_pread_cache(kCacheBytes, [&](const ReadOnlyDatabase& db, const CountingAllocator& alloc) {
    Outcome out = hammer(db, f.model, 4, kIterations, 1);
    expect_all_correct_printed(out, 4 * kIterations * 9 / 10);
    // Far more page loads than the cache holds: pages were evicted and reloaded.
    std::printf("    %llu page loads for %zu pages\n",
                static_cast<unsigned long long>(alloc.allocations()), f.file.size() / 512);
    EXPECT_GT(alloc.allocations(), 2 * f.file.size() / 512) << "the cache did not churn";
  });
}

TEST(Concurrency, EightThreadsPreadSmallCache) {
  const Fixture& f = fixture();
  with_pread_cache(kCacheBytes / 4, [&](const ReadOnlyDatabase& db, const CountingAllocator&) {
    Outcome out = hammer(db, f.model, 8, kIterations / 2, 2);
    expect_all_correct_printed(out, 8 * kIterations / 2 * 9 / 10);
  });
}

// A cache that holds the whole file: pages become permanent on first load; many threads race
// to load the same pages first.
TEST(Concurrency, FourThreadsPreadWholeFileCache) {
  const Fixture& f = fixture();
  with_pread_cache(64 << 20, [&](const ReadOnlyDatabase& db, const CountingAllocator& alloc) {
    Outcome out = hammer(db, f.model, 4, kIterations / 2, 3);
    expect_all_correct_printed(out, 4 * kIterations / 2 * 9 / 10);
    // Each page is loaded once (racing losers free their copy).
    EXPECT_LE(alloc.live_blocks(), f.file.size() / 512);
  });
}

TEST(Concurrency, FourThreadsMmap) {
  const Fixture& f = fixture();
  auto db = ReadOnlyDatabase::open(f.path, {.storage = StorageKind::mmap});
  ASSERT_TRUE(db) << db.error().to_string();
  Outcome out = hammer(*db, f.model, 4, kIterations, 4);
  expect_all_correct_printed(out, 4 * kIterations * 9 / 10);
}

// Every thread walks every row at once on a freshly opened database, so all of them race to be
// the first to load (pread) or verify (mmap, memory) the same pages.
TEST(Concurrency, SimultaneousFirstTouchOfEveryPage) {
  const Fixture& f = fixture();
  for (int mode = 0; mode < 4; ++mode) {
    OpenOptions o;
    if (mode == 0) o = {.storage = StorageKind::mmap};
    if (mode == 3) o = {.storage = StorageKind::memory};
    if (mode == 1) o = {.storage = StorageKind::pread, .page_cache_bytes = 64 << 20};
    if (mode == 2) o = {.storage = StorageKind::pread, .page_cache_bytes = kCacheBytes};
    auto db = ReadOnlyDatabase::open(f.path, o);
    ASSERT_TRUE(db);
    constexpr int kThreads = 6;
    std::vector<Outcome> outs(kThreads);
    std::barrier start(kThreads);
    std::vector<std::thread> pool;
    for (int i = 0; i < kThreads; ++i)
      pool.emplace_back([&, i] {
        const TableModel& t = f.model.tables[i % 2];
        auto table = *db->table(t.name);
        start.arrive_and_wait();
        check_walk(table, t, i % 4 < 2, outs[i]);
      });
    for (auto& th : pool)
      th.join();
    expect_all_correct_printed(merged(outs), kThreads);
  }
}

// Pages held by Values, Cursors and a Range under iteration survive eviction: every thread
// takes handles, then all threads churn the (tiny) cache, then each checks its handles' views
// byte for byte. Under ASan a page freed while held is a use-after-free report; without it the
// freed memory is reused by other pages and the comparison fails.
TEST(Concurrency, HeldViewsSurviveEvictionByOtherThreads) {
  const Fixture& f = fixture();
  constexpr int kThreads = 4;
  const int rounds = DRYDB_TEST_SANITIZED ? 6 : 25;
  const size_t cache = 4 * 512;
  with_pread_cache(cache, [&](const ReadOnlyDatabase& db, const CountingAllocator& alloc) {
    std::vector<Outcome> outs(kThreads);
    std::barrier sync(kThreads);
    std::vector<std::thread> pool;
    for (int ti = 0; ti < kThreads; ++ti)
      pool.emplace_back([&, ti] {
        Outcome& out = outs[ti];
        Rng r(777 + static_cast<uint64_t>(ti));
        std::vector<ReadOnlyTable> tables{*db.table("items"), *db.table("nums")};
        const TableModel& items = f.model.tables[0];
        for (int round = 0; round < rounds; ++round) {
          // Take handles: 8 Values (half of them overflow values), 3 Cursors with their values
          // read, and a Range stopped on its first row.
          std::vector<std::pair<drydb::Value, const Row*>> values;
          while (values.size() < 8) {
            const Row& row = items.sorted[r.below(items.size())];
            if ((row.second.size() > 128) != (values.size() % 2 == 0)) continue;
            auto v = tables[0].get(key_of(items, row.first));
            if (!v || !v->has_value()) {
              out.mismatch("get failed while taking handles");
              break;
            }
            values.emplace_back(std::move(*v), &row);
          }
          std::vector<std::pair<drydb::Cursor, size_t>> cursors;
          for (int c = 0; c < 3; ++c) {
            size_t at = r.below(items.size());
            auto cur = tables[0].cursor();
            if (!cur.seek(key_of(items, items.sorted[at].first))) out.mismatch("seek failed");
            (void)cur.value();
            cursors.emplace_back(std::move(cur), at);
          }
          const size_t range_at = r.below(items.size() - 10);
          auto got = tables[0].get_range(key_of(items, items.sorted[range_at].first),
                                         key_of(items, items.sorted[range_at + 9].first));
          if (!got) out.error(got.error());
          drydb::Range range = got ? std::move(*got) : drydb::Range();
          auto it = range.begin();
          const drydb::Entry held_entry = it != range.end() ? *it : drydb::Entry{};

          sync.arrive_and_wait();
          // Churn: every thread reads rows far from its handles, evicting everything
          // unpinned many times over.
          for (int k = 0; k < 40; ++k)
            random_query(tables, f.model, r, out);
          sync.arrive_and_wait();

          for (const auto& [v, row] : values)
            if (!same(v.bytes(), row->second))
              out.mismatch("a held Value changed under eviction (key " + show(row->first) + ")");
          for (const auto& [cur, at] : cursors) {
            if (!cur.valid() || !same(cur.key(), items.sorted[at].first) ||
                !same(cur.value(), items.sorted[at].second))
              out.mismatch("a held Cursor's views changed under eviction");
          }
          if (got) {
            if (!same(held_entry.key, items.sorted[range_at].first) ||
                !same(held_entry.value, items.sorted[range_at].second))
              out.mismatch("a held Range row changed under eviction");
            // The Range still iterates correctly from where it stopped.
            size_t n = 1;
            for (++it; it != range.end(); ++it, ++n) {
              auto e = *it;
              if (!same(e.key, items.sorted[range_at + n].first) ||
                  !same(e.value, items.sorted[range_at + n].second))
                out.mismatch("a held Range continued wrongly");
            }
            if (n != 10 || !range.status()) out.mismatch("a held Range ended early");
          }
          ++out.correct;
          sync.arrive_and_wait();  // handles released before anyone takes new ones
        }
      });
    for (auto& th : pool)
      th.join();
    expect_all_correct_printed(merged(outs), static_cast<uint64_t>(kThreads * rounds));

    // With every handle released, the next misses bring the cache back within its budget:
    // held pages were released, not leaked. (Internal pages are pinned outside the budget;
    // one overflow run may be larger than the budget by itself.)
    auto items = *db.table("items");
    Outcome tail;
    check_walk(items, f.model.tables[0], true, tail);
    expect_all_correct_printed(tail, 1);
    const auto info_items = db.table("items")->info(), info_nums = db.table("nums")->info();
    const size_t pinned = (info_items.internal_pages + info_nums.internal_pages) * 512;
    EXPECT_LE(alloc.live_bytes(), pinned + cache + 8 * 512)
        << "the cache holds more than its budget after every handle was released";
  });
}

// Threads querying while the storage fails every 13th read and the allocator every 17th
// allocation: every answer is correct or an io_error / out_of_memory error, failed loads leak
// nothing and poison nothing (afterwards every query answers), and no data race.
TEST(Concurrency, FailingReadsAndAllocationsUnderLoad) {
  const Fixture& f = fixture();
  CountingAllocator alloc;
  {
    auto storage = std::make_unique<MemoryStorage>(f.file);
    MemoryStorage* raw = storage.get();
    auto db = ReadOnlyDatabase::open_storage(
        std::move(storage), {.page_cache_bytes = kCacheBytes, .allocator = &alloc});
    ASSERT_TRUE(db);
    raw->fail_every = 13;
    alloc.fail_every = 17;
    Outcome out = hammer(*db, f.model, 4, kIterations / 4, 5);
    EXPECT_TRUE(out.wrong.empty()) << out.wrong.size() << " wrong answers; first: " << out.wrong[0];
    EXPECT_GT(out.errors, 0u);
    EXPECT_GT(out.correct, 0u);
    for (int code : out.codes)
      EXPECT_TRUE(code == int(drydb::errc::io_error) || code == int(drydb::errc::out_of_memory))
          << code;
    raw->fail_every = 0;
    alloc.fail_every = 0;
    Outcome after = hammer(*db, f.model, 4, kIterations / 8, 6);
    expect_all_correct_printed(after, 4 * (kIterations / 8) * 9 / 10);
  }
  EXPECT_EQ(alloc.live_blocks(), 0u);
  EXPECT_EQ(alloc.bad_frees(), 0u);
}

// Copies and moves of handles across threads: a Value or Cursor belongs to one thread at a
// time but may be handed over (moved) to another, which then reads it.
TEST(Concurrency, HandlesMovedBetweenThreads) {
  const Fixture& f = fixture();
  with_pread_cache(2 * 512, [&](const ReadOnlyDatabase& db, const CountingAllocator&) {
    auto items = *db.table("items");
    const TableModel& t = f.model.tables[0];
    Rng r(99);
    for (int round = 0; round < (DRYDB_TEST_SANITIZED ? 20 : 100); ++round) {
      const Row& row = t.sorted[r.below(t.size())];
      auto v = items.get(key_of(t, row.first));
      ASSERT_TRUE(v && v->has_value());
      auto c = items.cursor();
      ASSERT_TRUE(c.seek(key_of(t, row.first)));
      std::thread other([v = std::move(*v), c = std::move(c), &row, &t, items]() mutable {
        // Churn from this thread, then check the handed-over views.
        Rng r2(reinterpret_cast<uintptr_t>(&row));
        for (int k = 0; k < 10; ++k)
          (void)items.get(key_of(t, t.sorted[r2.below(t.size())].first));
        EXPECT_TRUE(same(v.bytes(), row.second));
        EXPECT_TRUE(same(c.key(), row.first));
        EXPECT_TRUE(same(c.value(), row.second));
        auto copy = c;  // a copy holds its own reference
        c = drydb::Cursor();
        EXPECT_TRUE(same(copy.key(), row.first));
      });
      other.join();
    }
  });
}

}  // namespace
}  // namespace drydb_test
