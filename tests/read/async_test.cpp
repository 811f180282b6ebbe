// Asynchronous queries (async.h, executor.h): the async form of every table and index query
// gives what the sync form gives, on every storage (mmap, pread through a tiny page
// cache, caller memory) and executor (the default pool, an inline executor, a counting pool, a
// manual queue); Futures and completion callbacks; many threads mixing async and sync queries;
// failing storage reads and page allocations; and destroying a database with work queued,
// running, or finished but unread. No test relies on timing: waits are on conditions, never on
// sleeps.
//
// The database (page size 512):
//   items  bytes keys "user/NNNNNN" (every 3rd number), 1,200 rows, values 0..89 bytes and
//          every 17th an overflow value of 129..2,600 bytes; index "size" (non-unique, bytes:
//          "size-" and a letter from the value's length), leaving out rows of length 0 mod 4
//   nums   int64 keys (multiples of 5, negative and positive), 1,200 rows, 8-byte values and
//          every 50th a 300-byte overflow value; index "negated" (unique, int64: -key)
#include <gtest/gtest.h>

#include <array>
#include <barrier>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>

#include "drydb/async.h"
#include "support/fault_util.h"
#include "support/names.h"
#include "support/wait.h"

namespace drydb_test {
namespace {

using drydb::Executor;
using drydb::Future;
using drydb::OpenOptions;
using drydb::Range;
using drydb::ReadOnlyDatabase;
using drydb::ReadOnlyTable;
using drydb::SortOrder;
using drydb::StorageKind;
using drydb::Task;
using drydb::ThreadPool;
using drydb::Value;
using drydb_test::describe;  // beside fault_util.h's describe of a range query
template <class T>
using result = drydb::result<T>;

constexpr size_t kTinyCache = 4 * 512;  // four leaf/overflow pages: every query evicts

DbModel make_model() {
  DbModel m = users_and_numbers(1200, -3000);
  m.tables[0].indexes.push_back(
      make_index("size", false, drydb::KeyEncoding::bytes(),
                 [](const std::string&, const std::string& value) -> std::optional<std::string> {
                   if (value.size() % 4 == 0) return std::nullopt;
                   return "size-" + std::string(1, static_cast<char>('a' + value.size() % 11));
                 }));
  m.tables[1].indexes.push_back(
      make_index("negated", true, drydb::KeyEncoding::int64(),
                 [](const std::string& key, const std::string&) -> std::optional<std::string> {
                   return int64_key(-int64_of(key));
                 }));
  m.finish();
  return m;
}

using Fixture = ModelFile;

// Built once: tests share the file.
const Fixture& fixture() {
  static const Fixture& f = model_file_for_process(make_model());
  return f;
}

// ---- executors ---------------------------------------------------------------------------------

// Runs every task at once, on the submitting thread.
class InlineExecutor final : public Executor {
 public:
  void submit(Task task) override {
    submitted.fetch_add(1, std::memory_order_relaxed);
    task();
  }
  std::atomic<uint64_t> submitted{0};
};

// A pool of its own that counts what passes through it.
class CountingExecutor final : public Executor {
 public:
  void submit(Task task) override {
    submitted.fetch_add(1, std::memory_order_relaxed);
    pool_.submit(Task([this, t = std::move(task)]() mutable {
      ran.fetch_add(1, std::memory_order_relaxed);
      t();
    }));
  }
  std::atomic<uint64_t> submitted{0}, ran{0};

 private:
  ThreadPool pool_{2};
};

// Holds tasks until the test runs or drops them.
class ManualExecutor final : public Executor {
 public:
  void submit(Task task) override {
    std::lock_guard lock(mu_);
    tasks_.push_back(std::move(task));
  }
  // Runs (or destroys) the tasks held now, outside the lock: a task may submit more.
  size_t run_all() {
    std::deque<Task> tasks = take();
    for (auto& t : tasks)
      t();
    return tasks.size();
  }
  size_t drop_all() { return take().size(); }
  size_t pending() const {
    std::lock_guard lock(mu_);
    return tasks_.size();
  }

 private:
  std::deque<Task> take() {
    std::lock_guard lock(mu_);
    return std::exchange(tasks_, {});
  }
  mutable std::mutex mu_;
  std::deque<Task> tasks_;
};

// ---- storages ----------------------------------------------------------------------------------

// The fixture's file through backend `b` (mmap, pread_small or memory here), its queries on
// `executor`; the small cache is kTinyCache.
result<ReadOnlyDatabase> open_db(Backend b, Executor* executor,
                                 drydb::PageAllocator* alloc = nullptr) {
  const Fixture& f = fixture();
  return open_backend(b, {f.path, f.file},
                      {.small_cache = kTinyCache, .allocator = alloc, .executor = executor});
}

// A MemoryStorage (page cache, counted reads) whose reads are also counted in `*outside`, which
// outlives the database.
class OutsideCountedStorage final : public drydb::Storage {
 public:
  OutsideCountedStorage(Bytes bytes, std::atomic<uint64_t>* outside)
      : inner_(bytes), outside_(outside) {}
  uint64_t size() const override { return inner_.size(); }
  drydb::status read_at(uint64_t offset, std::span<std::byte> dst) const override {
    outside_->fetch_add(1, std::memory_order_relaxed);
    return inner_.read_at(offset, dst);
  }

 private:
  MemoryStorage inner_;
  std::atomic<uint64_t>* outside_;
};

// A gate that storage reads stop at once armed, until it opens.
struct Gate {
  std::mutex mu;
  std::condition_variable cv;
  bool armed = false;
  bool open = false;
  int inside = 0;   // reads waiting at the gate now
  int entered = 0;  // reads that reached the armed gate
  int inside_when_destroyed = -1;

  void arm() {
    std::lock_guard lock(mu);
    armed = true;
  }
  void wait_entered(int n) {
    std::unique_lock lock(mu);
    await_bounded(
        cv, lock, [&] { return entered >= n; }, "reads reaching the gate");
  }
  void release() {
    std::lock_guard lock(mu);
    open = true;
    cv.notify_all();
  }
};

class GatedStorage final : public drydb::Storage {
 public:
  GatedStorage(Bytes bytes, Gate* gate) : inner_(bytes), gate_(gate) {}
  ~GatedStorage() override {
    std::lock_guard lock(gate_->mu);
    gate_->inside_when_destroyed = gate_->inside;
  }
  uint64_t size() const override { return inner_.size(); }
  drydb::status read_at(uint64_t offset, std::span<std::byte> dst) const override {
    {
      std::unique_lock lock(gate_->mu);
      if (gate_->armed) {
        ++gate_->inside;
        ++gate_->entered;
        gate_->cv.notify_all();
        await_bounded(
            gate_->cv, lock, [&] { return gate_->open; }, "the gate opening");
        --gate_->inside;
      }
    }
    return inner_.read_at(offset, dst);
  }

 private:
  MemoryStorage inner_;
  Gate* gate_;
};

// ---- comparing results -------------------------------------------------------------------------

bool is(const drydb::Error& e, errc code) {
  return &e.code.category() == &drydb::error_category() && e.code.value() == static_cast<int>(code);
}
template <class T>
bool is(const result<T>& r, errc code) {
  return !r && is(r.error(), code);
}

bool same_error(const drydb::Error& a, const drydb::Error& b) {
  return &a.code.category() == &b.code.category() && a.code.value() == b.code.value() &&
         a.message == b.message;
}

template <class RangeT>
std::vector<Row> rows_of(RangeT& r) {
  std::vector<Row> out;
  for (auto e : r)
    out.emplace_back(to_string(e.key), to_string(e.value));
  return out;
}

// An async get against the sync one: same error, or same presence and bytes.
void expect_same_get(const result<Value>& async, const result<Value>& sync,
                     const std::string& what) {
  ASSERT_EQ(async.has_value(), sync.has_value()) << what;
  if (!sync) {
    EXPECT_TRUE(same_error(async.error(), sync.error()))
        << what << ": " << describe(async.error()) << " vs " << describe(sync.error());
    return;
  }
  EXPECT_EQ(async->has_value(), sync->has_value()) << what;
  EXPECT_EQ(async->str(), sync->str()) << what;
}

// An async range against the sync one: same error, or the same rows in the same order. Returns
// the async range's rows.
template <class RangeT>
std::vector<Row> expect_same_range(result<RangeT>& async, result<RangeT>& sync,
                                   const std::string& what) {
  EXPECT_EQ(async.has_value(), sync.has_value()) << what;
  if (!async || !sync) {
    if (!async && !sync) {
      EXPECT_TRUE(same_error(async.error(), sync.error()))
          << what << ": " << describe(async.error()) << " vs " << describe(sync.error());
    }
    return {};
  }
  EXPECT_EQ(async->size(), sync->size()) << what;
  EXPECT_EQ(async->order(), sync->order()) << what;
  std::vector<Row> rows = rows_of(*async);
  EXPECT_TRUE(async->status()) << what;
  EXPECT_EQ(rows, rows_of(*sync)) << what;
  return rows;
}

void expect_same_count(const result<uint64_t>& async, const result<uint64_t>& sync,
                       const std::string& what) {
  ASSERT_EQ(async.has_value(), sync.has_value()) << what;
  if (!sync) {
    EXPECT_TRUE(same_error(async.error(), sync.error())) << what;
    return;
  }
  EXPECT_EQ(*async, *sync) << what;
}

// Issues queries `issue(i)` for i in [0, n) in batches of 64 Futures in flight, then hands each
// result to check(i, result).
template <class T, class Issue, class Check>
void batched(size_t n, Issue issue, Check check) {
  constexpr size_t kBatch = 64;
  std::vector<Future<T>> futures;
  for (size_t base = 0; base < n; base += kBatch) {
    const size_t end = std::min(n, base + kBatch);
    futures.clear();
    for (size_t i = base; i < end; ++i)
      futures.push_back(issue(i));
    for (size_t i = base; i < end; ++i) {
      result<T> r = settled(futures[i - base]);
      EXPECT_FALSE(futures[i - base].valid());
      check(i, r);
    }
  }
}

// A smaller set of bounds than probe_bounds: unbounded, below every key, the first key, a
// middle key and the gap after it, the last key and the gap after it.
std::vector<Bound> range_bounds(const TableModel& t) {
  std::vector<Bound> out{Bound::none(), Bound::at(std::string(t.enc.fixed_width(), '\0'))};
  const size_t width = t.enc.fixed_width();
  for (size_t i : {size_t{0}, t.size() / 2, t.size() - 1}) {
    out.push_back(Bound::at(t.sorted[i].first));
    std::string next;
    if (i != 0 && drydb_test::next_key(width, t.sorted[i].first, &next))
      out.push_back(Bound::at(next));
  }
  return out;
}

struct RangeCase {
  Bound start, end;
  drydb::RangeOptions options;
};

// Every pair of range_bounds (both orders of the pair, so start > end too), every exclusivity,
// both sort orders.
std::vector<RangeCase> range_cases(const TableModel& t) {
  std::vector<RangeCase> out;
  const auto bounds = range_bounds(t);
  for (const auto& s : bounds)
    for (const auto& e : bounds)
      for (int flags = 0; flags < 8; ++flags)
        out.push_back({s,
                       e,
                       {.start_exclusive = (flags & 1) != 0,
                        .end_exclusive = (flags & 2) != 0,
                        .order = (flags & 4) ? SortOrder::descending : SortOrder::ascending}});
  return out;
}

// ---- results equal the sync forms ---------------------------------------------------------------

enum class Exec { default_pool, inline_executor, counting_pool };

constexpr std::array<const char*, 3> kExecNames = {"default_pool", "inline", "counting_pool"};
static_assert(names_every_value(kExecNames, Exec::counting_pool));

const char* exec_name(Exec e) {
  return name_in(kExecNames, e);
}

class AsyncMatchesSync : public ::testing::TestWithParam<std::tuple<Backend, Exec>> {
 protected:
  void SetUp() override {
    auto [store, exec] = GetParam();
    if (exec == Exec::inline_executor) executor_ = &inline_;
    if (exec == Exec::counting_pool) executor_ = &counting_;
    auto db = open_db(store, executor_);
    ASSERT_TRUE(db) << describe(db.error());
    db_.emplace(std::move(*db));
  }
  void TearDown() override {
    db_.reset();
    const uint64_t queries = queries_.load();
    switch (std::get<1>(GetParam())) {
      case Exec::inline_executor:
        EXPECT_EQ(inline_.submitted.load(), queries);
        break;
      case Exec::counting_pool:
        EXPECT_EQ(counting_.submitted.load(), queries);
        EXPECT_EQ(counting_.ran.load(), queries);  // each Future was read: its task ran
        break;
      case Exec::default_pool:
        break;
    }
  }
  ReadOnlyTable table(const TableModel& t) { return *db_->table(t.name); }

  // Declared before the database: executors must outlive it.
  InlineExecutor inline_;
  CountingExecutor counting_;
  Executor* executor_ = nullptr;
  std::optional<ReadOnlyDatabase> db_;
  std::atomic<uint64_t> queries_{0};
};

TEST_P(AsyncMatchesSync, Get) {
  for (const TableModel& t : fixture().model.tables) {
    auto table = this->table(t);
    // Every key, and a key in the gap after each (absent).
    std::vector<std::string> keys;
    for (const auto& row : t.sorted) {
      keys.push_back(row.first);
      std::string next;
      if (drydb_test::next_key(t.enc.fixed_width(), row.first, &next)) keys.push_back(next);
    }
    size_t found = 0;
    batched<Value>(
        keys.size(),
        [&](size_t i) {
          ++queries_;
          return table.get_async(key_of(t, keys[i]));
        },
        [&](size_t i, const result<Value>& r) {
          expect_same_get(r, table.get(key_of(t, keys[i])), t.name + " get " + show(keys[i]));
          const std::string* want = t.find(keys[i]);
          ASSERT_TRUE(r);
          ASSERT_EQ(r->has_value(), want != nullptr);
          if (want) {
            EXPECT_TRUE(same(r->bytes(), *want));
            ++found;
          }
        });
    EXPECT_EQ(found, t.size());
  }
}

TEST_P(AsyncMatchesSync, GetWithTheWrongKeyType) {
  const auto& tables = fixture().model.tables;
  auto items = table(tables[0]), nums = table(tables[1]);
  ++queries_;
  auto a = settled(nums.get_async("text"));
  EXPECT_TRUE(is(a, errc::wrong_key_type));
  expect_same_get(a, nums.get("text"), "text key on an int64 table");
  ++queries_;
  auto b = settled(items.get_async(int64_t{12}));
  EXPECT_TRUE(is(b, errc::wrong_key_type));
  expect_same_get(b, items.get(int64_t{12}), "int64 key on a bytes table");
  ++queries_;
  auto c = settled(items.get_range_async(int64_t{1}, drydb::unbounded));
  EXPECT_TRUE(is(c, errc::wrong_key_type));
  ++queries_;
  auto d = settled(nums.count_range_async(drydb::unbounded, "z"));
  EXPECT_TRUE(is(d, errc::wrong_key_type));
  ++queries_;
  auto w = settled(nums.warm_async("a", "b"));
  EXPECT_TRUE(is(w, errc::wrong_key_type));
}

TEST_P(AsyncMatchesSync, GetRange) {
  for (const TableModel& t : fixture().model.tables) {
    auto table = this->table(t);
    const auto cases = range_cases(t);
    size_t ok = 0, refused = 0;
    batched<Range>(
        cases.size(),
        [&](size_t i) {
          ++queries_;
          return table.get_range_async(key_bound(t, cases[i].start), key_bound(t, cases[i].end),
                                       cases[i].options);
        },
        [&](size_t i, result<Range>& r) {
          const RangeCase& c = cases[i];
          auto sync = table.get_range(key_bound(t, c.start), key_bound(t, c.end), c.options);
          const std::string what = "get_range " + describe(t, c.start, c.end, c.options);
          const std::vector<Row> rows = expect_same_range(r, sync, what);
          size_t lo, hi;
          if (!model_range(t, c.start, c.end, c.options, &lo, &hi)) {
            EXPECT_TRUE(is(r, errc::invalid_argument)) << what;
            ++refused;
            return;
          }
          ASSERT_TRUE(r) << what;
          std::vector<Row> want(t.sorted.begin() + lo, t.sorted.begin() + hi);
          if (c.options.order == SortOrder::descending) std::reverse(want.begin(), want.end());
          EXPECT_EQ(rows, want) << what;
          ++ok;
        });
    EXPECT_GT(ok, 100u);
    EXPECT_GT(refused, 10u);
  }
}

TEST_P(AsyncMatchesSync, CountRange) {
  for (const TableModel& t : fixture().model.tables) {
    auto table = this->table(t);
    const auto cases = range_cases(t);
    batched<uint64_t>(
        cases.size(),
        [&](size_t i) {
          ++queries_;
          return table.count_range_async(key_bound(t, cases[i].start), key_bound(t, cases[i].end),
                                         cases[i].options);
        },
        [&](size_t i, const result<uint64_t>& r) {
          const RangeCase& c = cases[i];
          const std::string what = "count_range " + describe(t, c.start, c.end, c.options);
          expect_same_count(
              r, table.count_range(key_bound(t, c.start), key_bound(t, c.end), c.options), what);
          size_t lo, hi;
          if (model_range(t, c.start, c.end, c.options, &lo, &hi))
            EXPECT_EQ(r.value_or(~uint64_t{0}), hi - lo) << what;
          else
            EXPECT_TRUE(is(r, errc::invalid_argument)) << what;
        });
  }
}

TEST_P(AsyncMatchesSync, Warm) {
  for (const TableModel& t : fixture().model.tables) {
    auto table = this->table(t);
    ++queries_;
    auto all = settled(table.warm_async(drydb::unbounded, drydb::unbounded));
    EXPECT_TRUE(all) << describe(all.error());
    ++queries_;
    auto part =
        settled(table.warm_async(key_of(t, t.sorted[10].first), key_of(t, t.sorted[300].first)));
    EXPECT_TRUE(part) << describe(part.error());
    ++queries_;
    auto reversed =
        settled(table.warm_async(key_of(t, t.sorted[300].first), key_of(t, t.sorted[10].first)));
    EXPECT_TRUE(is(reversed, errc::invalid_argument));
  }
}

// Index queries and prefixes: every async form against its sync form and the model.
TEST_P(AsyncMatchesSync, IndexQueriesAndPrefixes) {
  for (const TableModel& t : fixture().model.tables) {
    auto table = this->table(t);
    ASSERT_EQ(t.indexes.size(), 1u);
    const IndexModel& ix = t.indexes[0];
    auto index = table.index(ix.name).value();
    // The index's distinct keys, and one below them all.
    std::vector<std::string> keys{std::string(ix.enc.fixed_width(), '\0')};
    for (const auto& e : ix.entries)
      if (keys.back() != e.first) keys.push_back(e.first);
    // The model's rows of index keys [lo, hi), in index order.
    auto model_rows = [&](size_t lo, size_t hi) {
      std::vector<Row> rows;
      for (size_t i = lo; i < hi; ++i)
        rows.push_back(t.sorted[ix.entries[i].second]);
      return rows;
    };
    size_t found = 0;
    batched<drydb::Row>(
        keys.size(),
        [&](size_t i) {
          ++queries_;
          return index.get_async(key_of(ix, keys[i]));
        },
        [&](size_t i, const result<drydb::Row>& r) {
          const std::string what = ix.name + " get " + show_index_key(ix, keys[i]);
          ASSERT_TRUE(r) << what << ": " << describe(r.error());
          const auto sync = index.get(key_of(ix, keys[i]));
          ASSERT_TRUE(sync) << what;
          EXPECT_EQ(r->has_value(), sync->has_value()) << what;
          const size_t at = ix.lower(keys[i]);
          const bool present = at < ix.size() && ix.entries[at].first == keys[i];
          ASSERT_EQ(r->has_value(), present) << what;
          if (!present) return;
          const Row& want = t.sorted[ix.entries[at].second];
          EXPECT_EQ(to_string(r->key()), want.first) << what;
          EXPECT_EQ(to_string(r->value()), want.second) << what;
          ++found;
        });
    EXPECT_EQ(found, keys.size() - 1) << ix.name;
    batched<drydb::IndexRange>(
        keys.size(),
        [&](size_t i) {
          ++queries_;
          return index.get_all_async(key_of(ix, keys[i]));
        },
        [&](size_t i, result<drydb::IndexRange>& r) {
          const std::string what = ix.name + " get_all " + show_index_key(ix, keys[i]);
          auto sync = index.get_all(key_of(ix, keys[i]));
          EXPECT_EQ(expect_same_range(r, sync, what),
                    model_rows(ix.lower(keys[i]), ix.upper(keys[i])))
              << what;
        });
    // Ranges and counts between every pair of a few keys, every option.
    std::vector<std::string> bounds;
    for (size_t i = 0; i < keys.size(); i += std::max<size_t>(1, keys.size() / 5))
      bounds.push_back(keys[i]);
    bounds.push_back(keys.back());
    struct Case {
      std::string start, end;
      drydb::RangeOptions options;
    };
    std::vector<Case> cases;
    for (const auto& a : bounds)
      for (const auto& b : bounds)
        for (int flags = 0; flags < 8; ++flags)
          cases.push_back({a,
                           b,
                           {.start_exclusive = (flags & 1) != 0,
                            .end_exclusive = (flags & 2) != 0,
                            .order = (flags & 4) ? SortOrder::descending : SortOrder::ascending}});
    auto model_span = [&](const Case& c, size_t* lo, size_t* hi) {
      *lo = c.options.start_exclusive ? ix.upper(c.start) : ix.lower(c.start);
      *hi = c.options.end_exclusive ? ix.lower(c.end) : ix.upper(c.end);
      if (*hi < *lo) *hi = *lo;
      return c.start <= c.end;
    };
    batched<drydb::IndexRange>(
        cases.size(),
        [&](size_t i) {
          ++queries_;
          return index.get_range_async(key_of(ix, cases[i].start), key_of(ix, cases[i].end),
                                       cases[i].options);
        },
        [&](size_t i, result<drydb::IndexRange>& r) {
          const Case& c = cases[i];
          const std::string what = ix.name + " get_range " + show_index_key(ix, c.start) + ".." +
                                   show_index_key(ix, c.end);
          auto sync = index.get_range(key_of(ix, c.start), key_of(ix, c.end), c.options);
          const std::vector<Row> rows = expect_same_range(r, sync, what);
          size_t lo, hi;
          if (!model_span(c, &lo, &hi)) {
            EXPECT_TRUE(is(r, errc::invalid_argument)) << what;
            return;
          }
          std::vector<Row> want = model_rows(lo, hi);
          if (c.options.order == SortOrder::descending) std::reverse(want.begin(), want.end());
          EXPECT_EQ(rows, want) << what;
        });
    batched<uint64_t>(
        cases.size(),
        [&](size_t i) {
          ++queries_;
          return index.count_range_async(key_of(ix, cases[i].start), key_of(ix, cases[i].end),
                                         cases[i].options);
        },
        [&](size_t i, const result<uint64_t>& r) {
          const Case& c = cases[i];
          const std::string what = ix.name + " count_range " + show_index_key(ix, c.start) + ".." +
                                   show_index_key(ix, c.end);
          expect_same_count(r, index.count_range(key_of(ix, c.start), key_of(ix, c.end), c.options),
                            what);
          size_t lo, hi;
          if (model_span(c, &lo, &hi))
            EXPECT_EQ(r.value_or(~uint64_t{0}), hi - lo) << what;
          else
            EXPECT_TRUE(is(r, errc::invalid_argument)) << what;
        });
    // Prefixes of byte-keyed trees; errc::wrong_key_type on int64 ones, as the sync forms.
    const std::vector<std::string> prefixes{"",          "size-", "size-c", "size-z",
                                            "user/0001", "user/", "x"};
    for (SortOrder order : {SortOrder::ascending, SortOrder::descending}) {
      for (const std::string& p : prefixes) {
        ++queries_;
        auto a = settled(index.prefix_async(p, order));
        auto sync = index.prefix(p, order);
        const std::vector<Row> rows = expect_same_range(a, sync, ix.name + " prefix " + p);
        if (ix.is_int64()) {
          EXPECT_TRUE(is(a, errc::wrong_key_type));
        } else {
          std::vector<Row> want;
          for (const auto& e : ix.entries)
            if (e.first.starts_with(p)) want.push_back(t.sorted[e.second]);
          if (order == SortOrder::descending) std::reverse(want.begin(), want.end());
          EXPECT_EQ(rows, want) << ix.name << " prefix " << p;
        }
        ++queries_;
        auto b = settled(table.prefix_async(p, order));
        auto table_sync = table.prefix(p, order);
        const std::vector<Row> table_rows =
            expect_same_range(b, table_sync, t.name + " prefix " + p);
        if (t.is_int64()) {
          EXPECT_TRUE(is(b, errc::wrong_key_type));
        } else {
          std::vector<Row> want;
          for (const auto& row : t.sorted)
            if (row.first.starts_with(p)) want.push_back(row);
          if (order == SortOrder::descending) std::reverse(want.begin(), want.end());
          EXPECT_EQ(table_rows, want) << t.name << " prefix " << p;
        }
      }
    }
  }
}

// Values and Ranges handed over from the executor's threads keep their pages: taken all at once
// (every page of a tiny cache pinned by them) and read after every query completed.
TEST_P(AsyncMatchesSync, HeldResultsStayValid) {
  const TableModel& t = fixture().model.tables[0];
  auto table = this->table(t);
  std::vector<result<Value>> values;
  std::vector<result<Range>> ranges;
  {
    std::vector<Future<Value>> fv;
    std::vector<Future<Range>> fr;
    for (size_t i = 0; i < t.size(); i += 7) {
      queries_ += 2;
      fv.push_back(table.get_async(key_of(t, t.sorted[i].first)));
      fr.push_back(table.get_range_async(key_of(t, t.sorted[i].first), drydb::unbounded));
    }
    for (auto& f : fv)
      values.push_back(settled(f));
    for (auto& f : fr)
      ranges.push_back(settled(f));
  }
  for (size_t k = 0; k < values.size(); ++k) {
    ASSERT_TRUE(values[k] && values[k]->has_value());
    EXPECT_TRUE(same(values[k]->bytes(), t.sorted[k * 7].second)) << "value " << k;
    ASSERT_TRUE(ranges[k]);
    auto it = ranges[k]->begin();
    ASSERT_FALSE(it == ranges[k]->end());
    EXPECT_TRUE(same((*it).key, t.sorted[k * 7].first));
    EXPECT_TRUE(same((*it).value, t.sorted[k * 7].second));
    EXPECT_EQ(ranges[k]->size(), t.size() - k * 7);
  }
}

INSTANTIATE_TEST_SUITE_P(
    StoresAndExecutors, AsyncMatchesSync,
    ::testing::Combine(::testing::Values(Backend::mmap, Backend::pread_small, Backend::memory),
                       ::testing::Values(Exec::default_pool, Exec::inline_executor,
                                         Exec::counting_pool)),
    [](const auto& info) {
      return std::string(backend_name(std::get<0>(info.param))) + "_" +
             exec_name(std::get<1>(info.param));
    });

// ---- warm-up fills the cache -------------------------------------------------------------------

TEST(AsyncWarm, LaterQueriesOfTheRangeHitTheCache) {
  const Fixture& f = fixture();
  for (const TableModel& t : f.model.tables) {
    // A cache of half the file; the range is an eighth of the table's rows.
    auto storage = std::make_unique<MemoryStorage>(f.file);
    MemoryStorage* reads = storage.get();
    auto db =
        ReadOnlyDatabase::open_storage(std::move(storage), {.page_cache_bytes = f.file.size() / 2});
    ASSERT_TRUE(db);
    auto table = *db->table(t.name);
    const size_t lo = t.size() / 3, hi = lo + t.size() / 8;
    const auto start = key_of(t, t.sorted[lo].first), end = key_of(t, t.sorted[hi].first);
    const uint64_t before = reads->reads.load();
    auto warmed = settled(table.warm_async(start, end));
    ASSERT_TRUE(warmed) << describe(warmed.error());
    const uint64_t after_warm = reads->reads.load();
    EXPECT_GT(after_warm, before) << t.name << ": warming read nothing";

    // Every row of the range, its values (overflow ones included), gets and counts: no reads.
    auto r = table.get_range(start, end);
    ASSERT_TRUE(r);
    Outcome out;
    check_range_rows(
        *r, t, lo, hi + 1, false, [&] { return t.name + " warmed range"; }, out);
    for (size_t i = lo; i <= hi; ++i)
      check_get(table, t, t.sorted[i].first, out);
    check_count(table, t, Bound::at(t.sorted[lo].first), Bound::at(t.sorted[hi].first), {}, out);
    expect_all_correct(out, hi - lo + 3);
    EXPECT_EQ(reads->reads.load(), after_warm) << t.name << ": the warmed range was not cached";
  }
}

// ---- Futures and callbacks
// -----------------------------------------------------------------------

TEST(AsyncFuture, InlineExecutorCompletesBeforeTheCallReturns) {
  InlineExecutor exec;
  auto db = open_db(Backend::memory, &exec);
  ASSERT_TRUE(db);
  auto items = *db->table("items");
  auto f = items.get_async("user/000003");
  EXPECT_EQ(exec.submitted.load(), 1u);
  EXPECT_TRUE(f.valid());
  EXPECT_TRUE(f.ready());
  ASSERT_TRUE(f.wait_for(std::chrono::seconds(0)));
  f.wait();  // returns at once: ready
  auto v = settled(f);
  EXPECT_FALSE(f.valid());
  ASSERT_TRUE(v && v->has_value());
  EXPECT_TRUE(same(v->bytes(), *fixture().model.tables[0].find("user/000003")));
}

TEST(AsyncFuture, PendingUntilTheExecutorRunsIt) {
  ManualExecutor exec;
  auto db = open_db(Backend::pread_small, &exec);
  ASSERT_TRUE(db);
  auto nums = *db->table("nums");
  auto f = nums.count_range_async(int64_t{-3000}, int64_t{0});
  EXPECT_EQ(exec.pending(), 1u);
  EXPECT_FALSE(f.ready());
  EXPECT_FALSE(f.wait_for(std::chrono::milliseconds(0)));  // nothing can run it yet
  EXPECT_EQ(exec.run_all(), 1u);
  EXPECT_TRUE(f.ready());
  auto n = settled(f);
  ASSERT_TRUE(n);
  EXPECT_EQ(*n, 601u);  // -3000, -2995, ..., 0

  // Moving a Future moves the query; assigning over one drops the old query.
  Future<uint64_t> a = nums.count_range_async(drydb::unbounded, drydb::unbounded);
  Future<uint64_t> b = std::move(a);
  EXPECT_FALSE(a.valid());
  EXPECT_TRUE(b.valid());
  b = nums.count_range_async(drydb::unbounded, int64_t{-2996});
  exec.run_all();
  EXPECT_EQ(settled(b).value_or(0), 1u);
}

TEST(AsyncFuture, KeysAreCopiedAtTheCall) {
  ManualExecutor exec;
  auto db = open_db(Backend::memory, &exec);
  ASSERT_TRUE(db);
  auto items = *db->table("items");
  std::string key = "user/000006", start = "user/000000", end = "user/000009";
  auto fv = items.get_async(key);
  auto fr = items.get_range_async(start, end);
  auto fc = items.count_range_async(start, end);
  // The caller's buffers change before the queries run.
  key.assign(key.size(), 'x');
  start.assign("zzz");
  end.assign("zzzz");
  exec.run_all();
  auto v = settled(fv);
  ASSERT_TRUE(v && v->has_value());
  EXPECT_TRUE(same(v->bytes(), *fixture().model.tables[0].find("user/000006")));
  auto r = settled(fr);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->size(), 4u);
  EXPECT_EQ(settled(fc).value_or(0), 4u);
}

TEST(AsyncFuture, ThenOnAReadyFutureRunsAtOnceOnTheCaller) {
  InlineExecutor exec;
  auto db = open_db(Backend::mmap, &exec);
  ASSERT_TRUE(db);
  auto items = *db->table("items");
  auto f = items.get_async("user/000009");
  std::thread::id ran_on;
  std::string got;
  f.then([&](result<Value> v) {
    ran_on = std::this_thread::get_id();
    if (v && v->has_value()) got = std::string(v->str());
  });
  EXPECT_FALSE(f.valid());
  EXPECT_EQ(ran_on, std::this_thread::get_id());
  EXPECT_EQ(got, *fixture().model.tables[0].find("user/000009"));
}

TEST(AsyncFuture, ThenOnAPendingFutureRunsWhereTheQueryCompletes) {
  ManualExecutor exec;
  auto db = open_db(Backend::pread_small, &exec);
  ASSERT_TRUE(db);
  auto items = *db->table("items");
  std::thread::id ran_on;
  uint64_t rows = 0;
  items.get_range_async("user/000100", "user/000200", {.order = SortOrder::descending})
      .then([&](result<Range> r) {
        ran_on = std::this_thread::get_id();
        if (r) rows = count_rows(*r);
      });
  EXPECT_EQ(rows, 0u);
  std::thread runner([&] { exec.run_all(); });
  const auto runner_id = runner.get_id();
  runner.join();
  EXPECT_EQ(ran_on, runner_id);
  EXPECT_EQ(rows, 33u);  // user/000102 ... user/000198
}

// Callbacks on the default pool, counted down to a latch (no timed wait).
TEST(AsyncFuture, ThenOnTheDefaultPool) {
  auto db = open_db(Backend::pread_small, nullptr);
  ASSERT_TRUE(db);
  const TableModel& t = fixture().model.tables[1];
  auto nums = *db->table("nums");
  std::mutex mu;
  std::condition_variable cv;
  size_t done = 0, right = 0;
  const size_t n = 200;
  for (size_t i = 0; i < n; ++i) {
    const Row& row = t.sorted[i * 5];
    nums.get_async(key_of(t, row.first)).then([&, want = row.second](result<Value>&& v) {
      const bool ok = v && v->has_value() && same(v->bytes(), want);
      std::lock_guard lock(mu);
      right += ok;
      if (++done == n) cv.notify_all();
    });
  }
  std::unique_lock lock(mu);
  await_bounded(
      cv, lock, [&] { return done == n; }, "every callback");
  EXPECT_EQ(right, n);
}

TEST(AsyncFuture, DroppedTasksCompleteWithAnError) {
  ManualExecutor exec;
  auto db = open_db(Backend::memory, &exec);
  ASSERT_TRUE(db);
  auto items = *db->table("items");
  auto fv = items.get_async("user/000003");
  std::optional<result<uint64_t>> from_callback;
  items.count_range_async("a", "z").then([&](result<uint64_t> n) { from_callback = std::move(n); });
  EXPECT_EQ(exec.drop_all(), 2u);
  ASSERT_TRUE(fv.ready());
  EXPECT_TRUE(is(settled(fv), errc::invalid_state));
  ASSERT_TRUE(from_callback.has_value());
  EXPECT_TRUE(is(*from_callback, errc::invalid_state));
  // The database is unaffected.
  auto again = items.get_async("user/000003");
  exec.run_all();
  EXPECT_TRUE(settled(again).value().has_value());
}

// ---- many threads, async and sync together ---------------------------------------------------

// Threads issue a mix of sync queries (checked at once) and batches of async ones, some read
// through get() and some through callbacks, all checked against the model.
void mixed_load(const ReadOnlyDatabase& db, int threads, int rounds, uint64_t seed) {
  const DbModel& m = fixture().model;
  std::vector<Outcome> outs(threads);
  std::mutex mu;
  std::condition_variable cv;
  uint64_t callbacks_pending = 0, callbacks_right = 0, callbacks_total = 0;
  std::barrier start(threads);
  std::vector<std::thread> pool;
  for (int ti = 0; ti < threads; ++ti)
    pool.emplace_back([&, ti] {
      Outcome& out = outs[ti];
      Rng r(seed * 100 + static_cast<uint64_t>(ti));
      std::vector<ReadOnlyTable> tables{*db.table("items"), *db.table("nums")};
      start.arrive_and_wait();
      for (int round = 0; round < rounds; ++round) {
        const size_t which = r.below(2);
        const TableModel& t = m.tables[which];
        const ReadOnlyTable& table = tables[which];
        // Async: a get, a range and a count in flight together.
        const size_t i = r.below(t.size()), j = std::min(t.size() - 1, i + r.below(40));
        const std::string gap =
            t.is_int64() ? int64_key(int64_of(t.sorted[i].first) + 1) : t.sorted[i].first + '!';
        const std::string& get_key = r.chance(3) ? gap : t.sorted[i].first;
        const drydb::RangeOptions o{
            .start_exclusive = r.chance(2),
            .end_exclusive = r.chance(2),
            .order = r.chance(2) ? SortOrder::descending : SortOrder::ascending};
        auto fv = table.get_async(key_of(t, get_key));
        auto fr =
            table.get_range_async(key_of(t, t.sorted[i].first), key_of(t, t.sorted[j].first), o);
        auto fc =
            table.count_range_async(key_of(t, t.sorted[i].first), key_of(t, t.sorted[j].first), o);
        // Sync queries meanwhile.
        check_get(table, t, t.sorted[r.below(t.size())].first, out);
        check_count(table, t, Bound::at(t.sorted[j].first), Bound::none(), {}, out);

        auto v = settled(fv);
        if (!v) {
          out.error(v.error());
        } else {
          const std::string* want = t.find(get_key);
          if (v->has_value() != (want != nullptr) || (want && !same(v->bytes(), *want)))
            out.mismatch("get_async " + show_key(t, get_key));
          else
            ++out.correct;
        }
        size_t lo, hi;
        model_range(t, Bound::at(t.sorted[i].first), Bound::at(t.sorted[j].first), o, &lo, &hi);
        auto range = settled(fr);
        if (!range)
          out.error(range.error());
        else
          check_range_rows(
              *range, t, lo, hi, o.order == SortOrder::descending,
              [&] { return std::string("get_range_async"); }, out);
        auto c = settled(fc);
        if (!c)
          out.error(c.error());
        else if (*c != hi - lo)
          out.mismatch("count_range_async");
        else
          ++out.correct;

        // A callback, checked on the executor's thread.
        if (r.chance(2)) {
          const Row& row = t.sorted[r.below(t.size())];
          {
            std::lock_guard lock(mu);
            ++callbacks_pending;
            ++callbacks_total;
          }
          table.get_async(key_of(t, row.first)).then([&, want = row.second](result<Value>&& got) {
            const bool ok = got && got->has_value() && same(got->bytes(), want);
            std::lock_guard lock(mu);
            callbacks_right += ok;
            if (--callbacks_pending == 0) cv.notify_all();
          });
        }
      }
    });
  for (auto& th : pool)
    th.join();
  {
    std::unique_lock lock(mu);
    await_bounded(
        cv, lock, [&] { return callbacks_pending == 0; }, "every callback");
    EXPECT_EQ(callbacks_right, callbacks_total);
  }
  Outcome all;
  for (const auto& o : outs)
    all.merge(o);
  expect_all_correct(all, static_cast<uint64_t>(threads * rounds * 5));
}

constexpr int kRounds = DRYDB_TEST_SANITIZED ? 150 : 1500;

TEST(AsyncConcurrency, ThreadsMixAsyncAndSyncPreadTinyCache) {
  CountingAllocator alloc;
  {
    auto db = open_db(Backend::pread_small, nullptr, &alloc);
    ASSERT_TRUE(db);
    mixed_load(*db, 4, kRounds, 1);
  }
  EXPECT_EQ(alloc.live_blocks(), 0u);
  EXPECT_EQ(alloc.errors(), 0u);
}

TEST(AsyncConcurrency, ThreadsMixAsyncAndSyncMmap) {
  auto db = open_db(Backend::mmap, nullptr);
  ASSERT_TRUE(db);
  mixed_load(*db, 3, kRounds, 2);
}

TEST(AsyncConcurrency, ThreadsMixAsyncAndSyncOnACallerPool) {
  ThreadPool pool(3);
  auto db = open_db(Backend::pread_small, &pool);
  ASSERT_TRUE(db);
  mixed_load(*db, 3, kRounds, 3);
}

// ---- failing storage and page memory ------------------------------------------------------------

// Async queries over storage whose reads fail now and then, or a page allocator that returns
// null now and then: each failure comes back through the Future or the callback as the sync
// query's error would (io_error, out_of_memory), no answer is wrong, every callback runs, and
// once the faults stop the same database answers everything. Page memory is counted (none
// outlives the database); ASan (scripts/test.sh) sees any other leak of a failed query.

enum class Fault { read_error, no_memory };

const char* fault_name(Fault f) {
  return f == Fault::read_error ? "read_error" : "no_memory";
}

// Results checked against the model from the caller's and the executor's threads.
class AsyncChecks {
 public:
  explicit AsyncChecks(Outcome& out) : out_(out) {}
  // Hands f's result to check(result, out): through get() (after a bounded wait), or through
  // then() on whatever thread completes the query.
  template <class T, class Check>
  void deliver(Future<T> f, bool by_callback, Check check) {
    if (by_callback) {
      {
        std::lock_guard lock(mu_);
        ++pending_;
      }
      std::move(f).then([this, check](result<T> r) mutable {
        std::lock_guard lock(mu_);
        const uint64_t before = out_.errors;
        check(r, out_);
        callback_errors_ += out_.errors - before;
        if (--pending_ == 0) cv_.notify_all();
      });
      return;
    }
    result<T> r = settled(f);
    std::lock_guard lock(mu_);
    check(r, out_);
  }
  // Waits (bounded) for every callback; false if some never ran.
  bool all_called_back() {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, kBoundedWait, [&] { return pending_ == 0; });
  }
  // Errors that came through callbacks.
  uint64_t callback_errors() {
    std::lock_guard lock(mu_);
    return callback_errors_;
  }

 private:
  Outcome& out_;
  std::mutex mu_;
  std::condition_variable cv_;
  uint64_t pending_ = 0, callback_errors_ = 0;
};

// The checks AsyncChecks::deliver runs on a query's answer, named `what` in failures: a count
// equal to the model's, table rows lo..hi or index entries lo..hi in `descending` order.
auto counted(std::string what, uint64_t want) {
  return [what, want](result<uint64_t>& n, Outcome& out) {
    if (!n) return out.error(what, n.error());
    if (*n != want) return out.mismatch(what);
    ++out.correct;
  };
}
auto table_rows(std::string what, const TableModel& t, size_t lo, size_t hi, bool descending) {
  return [what, &t, lo, hi, descending](result<Range>& range, Outcome& out) {
    if (!range) return out.error(what, range.error());
    check_range_rows(
        *range, t, lo, hi, descending, [&what] { return what; }, out);
  };
}
auto index_rows(std::string what, const TableModel& t, const IndexModel& ix, size_t lo, size_t hi,
                bool descending) {
  return [what, &t, &ix, lo, hi, descending](result<drydb::IndexRange>& range, Outcome& out) {
    if (!range) return out.error(what, range.error());
    check_index_rows(
        *range, t, ix, lo, hi, descending, [&what] { return what; }, out);
  };
}

// `rounds` rounds of every async query kind of the tables and their indexes (a get, a range, a
// count and a warm of the table, a prefix of items, an index get, range and count), each read
// through get() or a callback at random, checked against the model into `out`. Returns the
// number of errors that came through callbacks.
uint64_t async_queries(const ReadOnlyDatabase& db, int rounds, uint64_t seed, Outcome& out) {
  const DbModel& m = fixture().model;
  AsyncChecks checks(out);
  Rng r(seed);
  for (int round = 0; round < rounds; ++round) {
    const size_t which = r.below(2);
    const TableModel& t = m.tables[which];
    const IndexModel& ix = t.indexes[0];
    const ReadOnlyTable table = *db.table(t.name);
    const drydb::SecondaryIndex index = *table.index(ix.name);
    const size_t i = r.below(t.size()), j = std::min(t.size() - 1, i + r.below(60));
    const Bound s = Bound::at(t.sorted[i].first), e = Bound::at(t.sorted[j].first);
    const drydb::RangeOptions o{
        .start_exclusive = r.chance(2),
        .end_exclusive = r.chance(2),
        .order = r.chance(2) ? SortOrder::descending : SortOrder::ascending};
    size_t lo, hi;
    model_range(t, s, e, o, &lo, &hi);

    checks.deliver(table.get_async(key_of(t, t.sorted[i].first)), r.chance(2),
                   [&t, i](result<Value>& v, Outcome& out) {
                     if (!v) return out.error("get_async", v.error());
                     if (!v->has_value() || !same(v->bytes(), t.sorted[i].second))
                       return out.mismatch("get_async " + show_key(t, t.sorted[i].first));
                     ++out.correct;
                   });
    const bool descending = o.order == SortOrder::descending;
    checks.deliver(table.get_range_async(key_bound(t, s), key_bound(t, e), o), r.chance(2),
                   table_rows("get_range_async", t, lo, hi, descending));
    checks.deliver(table.count_range_async(key_bound(t, s), key_bound(t, e), o), r.chance(2),
                   counted("count_range_async", hi - lo));
    checks.deliver(table.warm_async(key_bound(t, s), key_bound(t, e)), r.chance(2),
                   [](result<void>& st, Outcome& out) {
                     if (!st) return out.error("warm_async", st.error());
                     ++out.correct;
                   });
    if (t.kind() == drydb::KeyKind::bytes) {
      const std::string p = t.sorted[i].first.substr(0, 9);  // "user/NNNN": up to 10 rows
      const size_t plo = t.lower(p);
      size_t phi = plo;
      while (phi < t.size() && t.sorted[phi].first.starts_with(p))
        ++phi;
      checks.deliver(table.prefix_async(p, o.order), r.chance(2),
                     table_rows("prefix_async", t, plo, phi, descending));
    }
    const size_t at = r.below(ix.size()), to = std::min(ix.size() - 1, at + r.below(40));
    const std::string& ik = ix.entries[at].first;
    checks.deliver(index.get_async(key_of(ix, ik)), r.chance(2),
                   [&t, &ix, ik](result<drydb::Row>& row, Outcome& out) {
                     if (!row) return out.error("index get_async", row.error());
                     const size_t first = ix.lower(ik);
                     if (!row->has_value() || !is_entry_row(t, ix, first, row->key(), row->value()))
                       return out.mismatch("index get_async " + show_index_key(ix, ik));
                     ++out.correct;
                   });
    const Bound is = Bound::at(ik), ie = Bound::at(ix.entries[to].first);
    size_t ilo, ihi;
    model_range(ix, is, ie, o, &ilo, &ihi);
    checks.deliver(index.get_range_async(key_bound(ix, is), key_bound(ix, ie), o), r.chance(2),
                   index_rows("index get_range_async", t, ix, ilo, ihi, descending));
    checks.deliver(index.count_range_async(key_bound(ix, is), key_bound(ix, ie), o), r.chance(2),
                   counted("index count_range_async", ihi - ilo));
  }
  EXPECT_TRUE(checks.all_called_back()) << "a completion callback never ran";
  return checks.callback_errors();
}

class AsyncFaults : public ::testing::TestWithParam<std::tuple<Fault, Exec>> {};

TEST_P(AsyncFaults, ErrorsComeBackThroughFuturesAndCallbacks) {
  const auto [fault, exec] = GetParam();
  const Fixture& f = fixture();
  InlineExecutor inline_exec;
  CountingExecutor counting;
  Executor* executor = exec == Exec::inline_executor ? static_cast<Executor*>(&inline_exec)
                       : exec == Exec::counting_pool ? &counting
                                                     : nullptr;
  CountingAllocator alloc;
  {
    auto storage = std::make_unique<MemoryStorage>(f.file);
    MemoryStorage* store = storage.get();
    auto db = ReadOnlyDatabase::open_storage(
        std::move(storage),
        {.page_cache_bytes = kTinyCache, .allocator = &alloc, .executor = executor});
    ASSERT_TRUE(db) << describe(db.error());
    const int rounds = DRYDB_TEST_SANITIZED ? 60 : 200;

    // Every 5th read, or every 3rd allocation, fails.
    if (fault == Fault::read_error)
      store->fail_every = 5;
    else
      alloc.fail_every = 3;
    Outcome faulty;
    const uint64_t through_callbacks = async_queries(*db, rounds, 7, faulty);
    EXPECT_TRUE(faulty.wrong.empty()) << faulty.wrong[0];
    const errc want = fault == Fault::read_error ? errc::io_error : errc::out_of_memory;
    EXPECT_EQ(faulty.codes, std::set<int>{static_cast<int>(want)}) << faulty.first_error;
    EXPECT_GT(faulty.errors, static_cast<uint64_t>(rounds / 4)) << "the faults reached queries";
    EXPECT_GT(faulty.correct, static_cast<uint64_t>(rounds)) << "queries between faults answer";
    EXPECT_GT(through_callbacks, 0u);
    EXPECT_LT(through_callbacks, faulty.errors) << "and through get()";
    const std::string injected =
        fault == Fault::read_error ? "injected read failure" : "cannot allocate";
    EXPECT_NE(faulty.first_error.find(injected), std::string::npos) << faulty.first_error;

    // The faults stop: the same database answers every query.
    store->fail_every = 0;
    alloc.fail_every = 0;
    Outcome clean;
    async_queries(*db, rounds, 8, clean);
    EXPECT_TRUE(clean.clean()) << clean.first_error << (clean.wrong.empty() ? "" : clean.wrong[0]);
    EXPECT_GT(clean.correct, static_cast<uint64_t>(rounds * 7));
  }
  EXPECT_EQ(alloc.live_blocks(), 0u) << "page memory outlived the database";
  EXPECT_EQ(alloc.errors(), 0u);
  if (exec == Exec::counting_pool) {
    EXPECT_EQ(counting.ran.load(), counting.submitted.load());
  }
}

INSTANTIATE_TEST_SUITE_P(FailingStorageAndMemory, AsyncFaults,
                         ::testing::Combine(::testing::Values(Fault::read_error, Fault::no_memory),
                                            ::testing::Values(Exec::default_pool,
                                                              Exec::inline_executor,
                                                              Exec::counting_pool)),
                         [](const auto& info) {
                           return std::string(fault_name(std::get<0>(info.param))) + "_" +
                                  exec_name(std::get<1>(info.param));
                         });

// ---- destroying the database with work in flight
// ---------------------------------------------------

// Finished but unread: views are released (errc::invalid_state), counts and statuses stay.
TEST(AsyncDestruction, DatabaseDestroyedBeforeFinishedFuturesAreRead) {
  for (Backend store : {Backend::mmap, Backend::pread_small, Backend::memory}) {
    SCOPED_TRACE(backend_name(store));
    CountingAllocator alloc;
    InlineExecutor exec;
    Future<Value> found, missing;
    Future<Range> range;
    Future<uint64_t> count;
    Future<void> warm;
    {
      auto db = open_db(store, &exec, &alloc);
      ASSERT_TRUE(db);
      auto items = *db->table("items");
      found = items.get_async("user/000003");
      missing = items.get_async("user/000004");
      range = items.get_range_async("user/000000", "user/000300");
      count = items.count_range_async("user/000000", "user/000300");
      warm = items.warm_async("user/000000", "user/000300");
      EXPECT_TRUE(found.ready() && missing.ready() && range.ready() && count.ready() &&
                  warm.ready());
    }  // the database goes, with every result unread
    EXPECT_EQ(alloc.live_blocks(), 0u) << "held pages outlived the database";
    auto v = settled(found);
    EXPECT_TRUE(is(v, errc::invalid_state)) << (v ? "a Value survived" : describe(v.error()));
    EXPECT_TRUE(is(settled(missing), errc::invalid_state));
    EXPECT_TRUE(is(settled(range), errc::invalid_state));
    EXPECT_EQ(settled(count).value_or(0), 101u);
    EXPECT_TRUE(settled(warm));
  }
}

// Queued, not started: cancelled at once; their tasks later do nothing (no storage read).
TEST(AsyncDestruction, DatabaseDestroyedWithQueriesQueued) {
  const Fixture& f = fixture();
  ManualExecutor exec;  // outlives the database
  std::atomic<uint64_t> reads{0};
  std::vector<Future<Value>> values;
  Future<Range> range;
  Future<uint64_t> count;
  std::optional<result<Range>> from_callback;
  {
    auto db =
        ReadOnlyDatabase::open_storage(std::make_unique<OutsideCountedStorage>(f.file, &reads),
                                       {.page_cache_bytes = kTinyCache, .executor = &exec});
    ASSERT_TRUE(db);
    auto items = *db->table("items");
    const TableModel& t = f.model.tables[0];
    for (size_t i = 0; i < 20; ++i)
      values.push_back(items.get_async(key_of(t, t.sorted[i * 50].first)));
    range = items.get_range_async(drydb::unbounded, drydb::unbounded);
    count = items.count_range_async(drydb::unbounded, "user/000300");
    items.get_range_async("user/000000", "user/000100").then([&](result<Range> r) {
      from_callback = std::move(r);
    });
    EXPECT_EQ(exec.pending(), 23u);
    EXPECT_FALSE(count.ready());
  }
  // Ready without the executor running anything.
  for (auto& v : values) {
    ASSERT_TRUE(v.ready());
    EXPECT_TRUE(is(settled(v), errc::invalid_state));
  }
  EXPECT_TRUE(is(settled(range), errc::invalid_state));
  auto c = settled(count);
  ASSERT_TRUE(is(c, errc::invalid_state));
  EXPECT_NE(c.error().message.find("before this query ran"), std::string::npos);

  const uint64_t reads_before = reads.load();
  EXPECT_FALSE(from_callback.has_value());
  EXPECT_EQ(exec.run_all(), 23u);
  EXPECT_EQ(reads.load(), reads_before) << "a cancelled query read storage";
  ASSERT_TRUE(from_callback.has_value());  // the callback ran, when its task did
  EXPECT_TRUE(is(*from_callback, errc::invalid_state));
}

// Future destroyed before its task runs: the task skips the query.
TEST(AsyncDestruction, FutureDestroyedBeforeItsTaskRuns) {
  const Fixture& f = fixture();
  ManualExecutor exec;
  std::atomic<uint64_t> reads{0};
  std::optional<ReadOnlyDatabase> db;
  {
    auto opened =
        ReadOnlyDatabase::open_storage(std::make_unique<OutsideCountedStorage>(f.file, &reads),
                                       {.page_cache_bytes = kTinyCache, .executor = &exec});
    ASSERT_TRUE(opened);
    db.emplace(std::move(*opened));
  }
  auto items = *db->table("items");
  {
    auto a = items.get_async("user/000300");
    auto b = items.get_range_async(drydb::unbounded, drydb::unbounded);
    auto c = items.warm_async(drydb::unbounded, drydb::unbounded);
  }
  const uint64_t reads_before = reads.load();
  EXPECT_EQ(exec.run_all(), 3u);
  EXPECT_EQ(reads.load(), reads_before) << "an abandoned query ran";

  // Abandoned, then the database destroyed, then the tasks run or are dropped.
  {
    auto a = items.get_async("user/000300");
    auto b = items.count_range_async("a", "b");
  }
  auto kept = items.get_async("user/000300");
  db.reset();
  EXPECT_TRUE(is(settled(kept), errc::invalid_state));
  EXPECT_EQ(exec.drop_all(), 3u);
}

// A detached query runs with nobody to read it: a background warm-up.
TEST(AsyncFuture, DetachedQueriesStillRun) {
  const Fixture& f = fixture();
  ManualExecutor exec;
  std::atomic<uint64_t> reads{0};
  auto db =
      ReadOnlyDatabase::open_storage(std::make_unique<OutsideCountedStorage>(f.file, &reads),
                                     {.page_cache_bytes = f.file.size() / 2, .executor = &exec});
  ASSERT_TRUE(db);
  auto items = *db->table("items");
  items.warm_async("user/000000", "user/000600").detach();
  items.get_async("user/000300").detach();
  const uint64_t before = reads.load();
  EXPECT_EQ(exec.run_all(), 2u);
  const uint64_t after = reads.load();
  EXPECT_GT(after, before) << "the detached warm-up did not run";
  auto r = items.get_range("user/000000", "user/000600");
  ASSERT_TRUE(r);
  EXPECT_EQ(rows_of(*r).size(), 201u);
  EXPECT_EQ(reads.load(), after);
}

// A query whose result is being made when the database is destroyed: the destructor waits for
// it, and its view is released (errc::invalid_state) rather than left dangling.
TEST(AsyncDestruction, DatabaseDestroyedWhileAQueryRuns) {
  const Fixture& f = fixture();
  const TableModel& t = f.model.tables[0];
  for (int variant = 0; variant < 2; ++variant) {
    SCOPED_TRACE(variant == 0 ? "get" : "count");
    ThreadPool pool(1);  // outlives the database
    Gate gate;
    CountingAllocator alloc;
    std::optional<ReadOnlyDatabase> db;
    {
      auto opened = ReadOnlyDatabase::open_storage(
          std::make_unique<GatedStorage>(f.file, &gate),
          {.page_cache_bytes = kTinyCache, .allocator = &alloc, .executor = &pool});
      ASSERT_TRUE(opened);
      db.emplace(std::move(*opened));
    }
    auto items = *db->table("items");
    gate.arm();
    Future<Value> value;
    Future<uint64_t> count;
    if (variant == 0)
      value = items.get_async(key_of(t, t.sorted[600].first));
    else
      count = items.count_range_async(key_of(t, t.sorted[100].first), drydb::unbounded);
    gate.wait_entered(1);  // the query is inside a storage read
    std::thread destroyer([&] { db.reset(); });
    gate.release();  // whether or not the destroyer is already waiting
    destroyer.join();
    EXPECT_EQ(gate.inside_when_destroyed, 0) << "storage destroyed under a running read";
    EXPECT_EQ(alloc.live_blocks(), 0u);
    if (variant == 0) {
      EXPECT_TRUE(is(settled(value), errc::invalid_state));
    } else {
      EXPECT_EQ(settled(count).value_or(0), t.size() - 100);
    }
  }
}

// Under load: databases destroyed right after a burst of queries on the default pool. Every
// answer is either right or errc::invalid_state; ASan and TSan watch the rest.
TEST(AsyncDestruction, DatabaseDestroyedUnderLoad) {
  const TableModel& t = fixture().model.tables[0];
  const int rounds = DRYDB_TEST_SANITIZED ? 15 : 60;
  uint64_t right = 0, cancelled = 0;
  for (int round = 0; round < rounds; ++round) {
    const Backend store = round % 3 == 0   ? Backend::mmap
                          : round % 3 == 1 ? Backend::pread_small
                                           : Backend::memory;
    CountingAllocator alloc;
    std::vector<std::pair<Future<Value>, size_t>> values;
    std::vector<std::pair<Future<uint64_t>, size_t>> counts;
    std::atomic<uint64_t> callbacks_right{0}, callbacks_cancelled{0}, callbacks{0};
    {
      auto db = open_db(store, nullptr, &alloc);
      ASSERT_TRUE(db);
      auto items = *db->table("items");
      for (size_t i = 0; i < 40; ++i) {
        const size_t at = (i * 29 + static_cast<size_t>(round)) % t.size();
        values.emplace_back(items.get_async(key_of(t, t.sorted[at].first)), at);
        counts.emplace_back(
            items.count_range_async(key_of(t, t.sorted[at].first), drydb::unbounded), at);
        if (i % 4 == 0)
          items.get_range_async(key_of(t, t.sorted[at].first), drydb::unbounded)
              .then([&, at](result<Range> r) {
                if (r && r->size() == t.size() - at)
                  callbacks_right.fetch_add(1);
                else if (is(r, errc::invalid_state))
                  callbacks_cancelled.fetch_add(1);
                callbacks.fetch_add(1);
              });
      }
      if (round % 2) values.resize(20);  // some Futures dropped while in flight
    }
    EXPECT_EQ(alloc.live_blocks(), 0u);
    for (auto& [f, at] : values) {
      auto v = settled(f);
      if (v && v->has_value() && same(v->bytes(), t.sorted[at].second))
        ADD_FAILURE() << "a Value outlived its database";
      else if (is(v, errc::invalid_state))
        ++cancelled;
      else
        ADD_FAILURE() << "unexpected: " << (v ? "wrong value" : describe(v.error()));
    }
    for (auto& [f, at] : counts) {
      auto c = settled(f);
      if (c && *c == t.size() - at)
        ++right;
      else if (is(c, errc::invalid_state))
        ++cancelled;
      else
        ADD_FAILURE() << "wrong count";
    }
    // Callbacks of cancelled queries run when the pool reaches their tasks; the others ran
    // before the destructor returned. Both kinds are counted once all have run.
    // A bounded wait: a callback that never runs fails the test instead of hanging it.
    const auto deadline = std::chrono::steady_clock::now() + kBoundedWait;
    while (callbacks.load() < 10 && std::chrono::steady_clock::now() < deadline)
      std::this_thread::yield();
    ASSERT_EQ(callbacks.load(), 10u) << "completion callbacks never ran";
    EXPECT_EQ(callbacks_right.load() + callbacks_cancelled.load(), 10u);
  }
  std::printf("    %llu right, %llu cancelled\n", static_cast<unsigned long long>(right),
              static_cast<unsigned long long>(cancelled));
}

TEST(AsyncDestruction, AssigningOverADatabaseSettlesItsQueries) {
  ManualExecutor exec;
  auto first = open_db(Backend::pread_small, &exec);
  auto second = open_db(Backend::memory, &exec);
  ASSERT_TRUE(first && second);
  auto queued = first->table("items")->get_async("user/000003");
  exec.run_all();
  auto unread = first->table("items")->get_async("user/000006");
  ASSERT_FALSE(unread.ready());
  auto done = std::move(queued);
  *first = std::move(*second);  // the old database of `first` goes
  EXPECT_TRUE(is(settled(done), errc::invalid_state));
  EXPECT_TRUE(is(settled(unread), errc::invalid_state));
  auto now = first->table("items")->get_async("user/000003");
  exec.run_all();
  EXPECT_TRUE(settled(now).value().has_value());
}

// The death tests' child re-executes the test program ("threadsafe"), as a process with threads
// needs. Under qemu-user nothing can re-execute an arm64 program (no binfmt handler), so there
// the child is forked from the test itself, which ctest runs alone in a process of its own.
constexpr const char* kDeathTestStyle = DRYDB_TEST_EMULATED ? "fast" : "threadsafe";

// A callback that destroys its own database would wait for itself: drydb aborts, loudly.
TEST(AsyncDestructionDeathTest, DestroyingTheDatabaseInItsOwnCallbackAborts) {
  GTEST_FLAG_SET(death_test_style, kDeathTestStyle);
  EXPECT_DEATH(
      {
        // Built in memory, not through fixture(): the dying child would leave its folder behind.
        static const std::vector<std::byte> bytes = build_memory(make_model());
        ManualExecutor exec;
        auto* db =
            new ReadOnlyDatabase(ReadOnlyDatabase::open_memory(bytes, {.executor = &exec}).value());
        db->table("items")->count_range_async("a", "z").then([&](result<uint64_t>) { delete db; });
        exec.run_all();
      },
      "destroyed inside a completion callback");
}

// ---- ThreadPool and the default pool
// -------------------------------------------------------------

TEST(AsyncThreadPool, RunsEverySubmittedTaskBeforeItIsDestroyed) {
  std::atomic<int> ran{0};
  {
    ThreadPool pool(3);
    EXPECT_EQ(pool.threads(), 3u);
    for (int i = 0; i < 500; ++i)
      pool.submit(Task([&] {
        // 1000 % 50 == 0: the nested tasks' additions do not change which calls see n % 50 == 0.
        if ((ran.fetch_add(1) + 1) % 50 == 0) pool.submit(Task([&] { ran.fetch_add(1000); }));
      }));
  }  // drains, including the tasks submitted while draining
  EXPECT_EQ(ran.load(), 500 + 10 * 1000);
}

TEST(AsyncThreadPool, ATaskMayDestroyItsPool) {
  std::mutex mu;
  std::condition_variable cv;
  bool destroyed = false;
  auto* pool = new ThreadPool(2);
  pool->submit(Task([&] {
    delete pool;  // joins the other thread, detaches this one
    std::lock_guard lock(mu);
    destroyed = true;
    cv.notify_all();
  }));
  std::unique_lock lock(mu);
  await_bounded(
      cv, lock, [&] { return destroyed; }, "the task destroying its pool");
}

// At exit the default pool drains its queue and joins: work queued on a database that outlives
// it completes (its callbacks run, during the drain); a database destroyed before it (made
// later) cancels its own. The child process must exit with status 0 and print the count.
TEST(AsyncThreadPoolDeathTest, DefaultPoolShutsDownCleanlyAtExit) {
  GTEST_FLAG_SET(death_test_style, kDeathTestStyle);
  EXPECT_EXIT(
      {
        static std::atomic<int> ran{0};
        struct Report {  // made before the pool: destroyed after it drained
          ~Report() { std::fprintf(stderr, "callbacks ran: %d of 300\n", ran.load()); }
        };
        static Report report;
        static const std::vector<std::byte> bytes = build_memory(make_model());
        static ReadOnlyDatabase early = ReadOnlyDatabase::open_memory(bytes).value();
        auto items = *early.table("items");
        for (int i = 0; i < 300; ++i)
          items.count_range_async("user/000000", "user/001000").then([items](result<uint64_t>) {
            items.get_async("user/000003").detach();  // made while the pool drains: runs inline
            ran.fetch_add(1);
          });
        // Made after the pool: destroyed before it, cancelling its queued queries first.
        static std::vector<Future<Range>> pending;
        static ReadOnlyDatabase late = open_cached(bytes, kTinyCache).value();
        for (int i = 0; i < 300; ++i)
          pending.push_back(
              late.table("nums")->get_range_async(drydb::unbounded, drydb::unbounded));
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "callbacks ran: 300 of 300");
}

}  // namespace
}  // namespace drydb_test
