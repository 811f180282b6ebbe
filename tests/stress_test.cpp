// Stress under eviction: 8 threads share one database read through pread with a page cache of
// a twentieth of the file, so leaves and overflow runs are loaded, evicted and reloaded all the
// time, while each thread also keeps a few Values (pinned pages) alive across its other
// queries. The threads run random gets (present and absent keys), get_range with every bound
// kind in both orders, count_range, prefix scans, cursor seeks and walks and seeks by rank, for
// a fixed number of operations each (not a time), and every answer is checked against a
// std::map model; held Values must keep their bytes until released. Run by scripts/test.sh
// under ASan+UBSan and under TSan as well.
//
// The database (page size 1,024; about 2.6 MB):
//   items  bytes keys "user/NNNNNNN" (every 3rd number), 20,000 rows, values 0..60 bytes and
//          every 41st an overflow value of 257..3,000 bytes (1 to 3 pages)
//   nums   int64 keys (multiples of 7 around 0), 20,000 rows, 12-byte values (uniform leaves)
//          and every 500th a 900-byte overflow value
#include <gtest/gtest.h>

#include <atomic>
#include <barrier>
#include <cstdio>
#include <thread>

#include "fault_util.h"

namespace drydb_fault {
namespace {

using drydb::ReadOnlyDatabase;
using drydb::SortOrder;

constexpr int kThreads = 8;
// Operations per thread: enough to cycle the cache many times over; fewer under sanitizers.
constexpr int kOpsPerThread = DRYDB_TEST_SANITIZED ? 5000 : 60000;
constexpr uint32_t kPageSize = 1024;
constexpr size_t kSpan = 150;  // most rows a bounded range covers

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
  TableModel nums = make_table("nums", drydb::KeyEncoding::int64());
  for (int64_t i = 0; i < 20000; ++i)
    nums.rows.emplace(int64_key(i * 7 - 70000),
                      make_value(900000 + static_cast<uint64_t>(i), i % 500 == 3 ? 900 : 12));
  m.tables = {items, nums};
  m.finish();
  return m;
}

struct Fixture {
  DbModel model;
  std::unique_ptr<TempDir> dir;
  std::filesystem::path path;
  uint64_t file_size = 0;
};

const Fixture& fixture() {
  static const Fixture* f = [] {
    auto* x = new Fixture;
    x->model = make_model();
    const auto bytes = build_memory(x->model);
    x->file_size = bytes.size();
    x->dir = std::make_unique<TempDir>();
    x->path = *x->dir / "stress.drydb";
    if (!write_file(x->path, bytes)) ADD_FAILURE() << "cannot write " << x->path;
    return x;
  }();
  return *f;
}

// A key to ask for: a key of the table, or (one time in four) one in the gap after it.
std::string pick_key(const TableModel& t, Rng& r, size_t i) {
  const std::string& k = t.sorted[i].first;
  if (!r.chance(4)) return k;
  return t.is_int64() ? int64_key(int64_of(k) + 1 + static_cast<int64_t>(r.below(5))) : k + "~";
}

// A random range of at most kSpan rows: bounded at both ends, or open at one end near that
// end of the table, with random exclusivity and order.
void random_range(const TableModel& t, Rng& r, Bound* s, Bound* e, drydb::RangeOptions* o) {
  const size_t n = t.size();
  const size_t i = r.below(n), j = std::min(n - 1, i + r.below(kSpan));
  *s = Bound::at(pick_key(t, r, i));
  *e = Bound::at(pick_key(t, r, j));
  switch (r.below(10)) {
    case 0:
      *s = Bound::none();
      *e = Bound::at(pick_key(t, r, r.below(kSpan)));
      break;
    case 1:
      *s = Bound::at(pick_key(t, r, n - 1 - r.below(kSpan)));
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

// A cursor positioned by key or by rank, then walked a few rows one way and back.
void check_cursor(const drydb::ReadOnlyTable& table, const TableModel& t, Rng& r, Outcome& out) {
  if (r.chance(2)) return check_seek(table, t, pick_key(t, r, r.below(t.size())), out);
  auto c = table.cursor();
  const uint64_t rank = r.below(t.size());
  if (!c.seek_rank(rank)) {
    if (!c.status()) return out.error(c.status());
    return out.mismatch(t.name + ": seek_rank " + std::to_string(rank) + " found nothing");
  }
  const int steps = static_cast<int>(r.below(40));
  const bool forward = r.chance(2);
  uint64_t at = rank;
  for (int s = 0; s < steps; ++s) {
    const bool ok = forward ? c.next() : c.prev();
    if (!c.status()) return out.error(c.status());
    const bool expect = forward ? at + 1 < t.size() : at > 0;
    if (ok != expect) return out.mismatch(t.name + ": cursor walk validity");
    if (!ok) break;
    at = forward ? at + 1 : at - 1;
    auto key = c.key();
    auto value = c.value();
    if (!c.status()) return out.error(c.status());
    if (c.rank() != at || !same(key, t.sorted[at].first) || !same(value, t.sorted[at].second))
      return out.mismatch(t.name + ": cursor walk from rank " + std::to_string(rank) +
                          " reached a wrong row");
  }
  ++out.correct;
}

// A Value a thread keeps for a while, with what it must still read as.
struct Held {
  drydb::Value value;
  const std::string* want = nullptr;
};

TEST(Stress, EightThreadsUnderEviction) {
  const Fixture& f = fixture();
  const size_t cache = f.file_size / 20;
  auto db = ReadOnlyDatabase::open(
      f.path, {.storage = drydb::StorageKind::pread, .page_cache_bytes = cache});
  ASSERT_TRUE(db) << db.error().to_string();
  ASSERT_GE(f.file_size, 20 * cache);

  std::barrier start(kThreads);
  std::atomic<uint64_t> queries{0}, held_checks{0};
  std::vector<Outcome> outcomes(kThreads);
  std::vector<std::thread> threads;
  for (int th = 0; th < kThreads; ++th)
    threads.emplace_back([&, th] {
      Rng r(0x5eed + static_cast<uint64_t>(th));
      Outcome& out = outcomes[static_cast<size_t>(th)];
      std::vector<drydb::ReadOnlyTable> tables;
      for (const auto& t : f.model.tables)
        tables.push_back(db->table(t.name).value());
      std::vector<Held> held(4);
      start.arrive_and_wait();
      uint64_t done = 0;
      for (int op = 0; op < kOpsPerThread; ++op, ++done) {
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
            check_cursor(table, t, r, out);
            break;
        }
      }
      for (Held& h : held)
        if (h.want != nullptr && !same(h.value.bytes(), *h.want))
          out.mismatch("a held Value changed before its release");
      queries += done;
    });
  for (auto& t : threads)
    t.join();

  Outcome all;
  for (const auto& o : outcomes)
    all.merge(o);
  std::printf(
      "[ stress ] %d threads, %llu queries (%llu answers checked, %llu held-value "
      "checks); file %llu bytes, page cache %zu bytes (1/20)\n",
      kThreads, static_cast<unsigned long long>(queries.load()),
      static_cast<unsigned long long>(all.correct),
      static_cast<unsigned long long>(held_checks.load()),
      static_cast<unsigned long long>(f.file_size), cache);
  RecordProperty("queries", std::to_string(queries.load()));
  EXPECT_EQ(queries.load(), uint64_t{kThreads} * kOpsPerThread);
  expect_all_correct(all, queries.load() / 2);
  // The file still verifies through the same (thrashed) cache.
  EXPECT_TRUE(db->verify());
}

}  // namespace
}  // namespace drydb_fault
