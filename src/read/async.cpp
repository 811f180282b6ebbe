// Asynchronous queries (async.h): each database's hub, the default pool, and
// the *_async forms of ReadOnlyTable and SecondaryIndex.
#include "drydb/async.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <tuple>
#include <vector>

#include "drydb/detail/db_state.h"
#include "drydb/index.h"
#include "drydb/table.h"
#include "read/locked_state.h"

namespace drydb {

namespace detail {
namespace {

// ---- the default pool
// ----------------------------------------------------------------------------

// Set when the default pool starts shutting down (at exit); constant-initialised and trivially
// destructible, so readable during static destruction.
std::atomic<bool> default_pool_gone{false};

struct DefaultPool {
  ThreadPool pool{std::clamp(std::thread::hardware_concurrency(), 2u, 4u)};
  // The flag goes up before `pool` drains: tasks it runs while draining that start queries
  // (completion callbacks) run those inline instead of queueing behind a closing door.
  ~DefaultPool() { default_pool_gone.store(true, std::memory_order_release); }
};

// The default pool, started on first use; nullptr once it has shut down. A function-local
// static: constructed on first use, thread-safely, and destroyed (drained, joined) at exit in
// the reverse order of construction, so databases made before it outlive it and close with no
// queued work (the drain ran or dropped it), and databases made after it close first.
ThreadPool* default_pool() {
  if (default_pool_gone.load(std::memory_order_acquire)) return nullptr;
  static DefaultPool pool;
  return &pool.pool;
}

// The hub whose completion callback this thread is running, if any.
thread_local const AsyncHub* callback_hub = nullptr;

}  // namespace

std::shared_ptr<AsyncHub> DatabaseState::async_hub() const {
  std::lock_guard lock(locked_->async_mu);
  if (!locked_->async_hub) locked_->async_hub = std::make_shared<AsyncHub>(executor_);
  return locked_->async_hub;
}

void DatabaseState::close_async() const {
  std::shared_ptr<AsyncHub> hub;
  {
    std::lock_guard lock(locked_->async_mu);
    hub = std::move(locked_->async_hub);
  }
  if (hub) hub->close();  // never used asynchronously otherwise
}

std::shared_ptr<AsyncHub> async_hub(const DatabaseState* db) {
  return db->async_hub();
}

void async_close(const DatabaseState* db) {
  db->close_async();
}

void AsyncHub::submit(Task task) {
  if (executor_ != nullptr) return executor_->submit(std::move(task));
  if (ThreadPool* pool = default_pool()) return pool->submit(std::move(task));
  task();  // the default pool has shut down (static destruction): run inline
}

void AsyncHub::close() {
  if (callback_hub == this) {
    std::fputs(
        "drydb: a database was destroyed inside a completion callback of its own query; its "
        "destructor would wait for that callback forever\n",
        stderr);
    std::abort();
  }
  std::unique_lock lock(mu);
  closed = true;
  for (AsyncOpBase* op = head_; op != nullptr;) {
    AsyncOpBase* next = op->next_;
    op->on_close();
    op->linked_ = false;
    op->prev_ = op->next_ = nullptr;
    op = next;
  }
  head_ = nullptr;
  idle.wait(lock, [&] { return running == 0; });
}

void AsyncHub::link(AsyncOpBase* op) noexcept {
  if (closed) return;  // nothing left for close() to do
  op->linked_ = true;
  op->prev_ = nullptr;
  op->next_ = head_;
  if (head_) head_->prev_ = op;
  head_ = op;
}

void AsyncHub::unlink(AsyncOpBase* op) noexcept {
  if (!op->linked_) return;
  if (op->prev_)
    op->prev_->next_ = op->next_;
  else
    head_ = op->next_;
  if (op->next_) op->next_->prev_ = op->prev_;
  op->prev_ = op->next_ = nullptr;
  op->linked_ = false;
}

CallbackScope::CallbackScope(const AsyncHub* hub) noexcept : saved_(callback_hub) {
  callback_hub = hub;
}
CallbackScope::~CallbackScope() {
  callback_hub = saved_;
}

Error closed_before_run() {
  return Error(errc::invalid_state, "the database was destroyed before this query ran");
}
Error closed_before_read() {
  return Error(errc::invalid_state,
               "the database was destroyed before this query's result was read; its views "
               "were released");
}
Error dropped_by_executor() {
  return Error(errc::invalid_state, "the executor destroyed this query's task without running it");
}

void die_no_future(const char* what) {
  std::fprintf(stderr, "drydb: Future::%s called on a Future with no result (already read)\n",
               what);
  std::abort();
}

}  // namespace detail

// ---- the asynchronous forms of ReadOnlyTable and SecondaryIndex ---------------------------------

namespace detail {
namespace {

// A query's argument, owned by its task until the task runs: keys, bounds and prefixes copied
// out of the caller's memory (owned), and seen again as what the query takes (viewed); options
// and orders by value.
OwnedKey owned(const Key& key) {
  return OwnedKey(key);
}
OwnedBound owned(const KeyBound& bound) {
  return OwnedBound(bound);
}
std::vector<std::byte> owned(std::span<const std::byte> bytes) {
  return {bytes.begin(), bytes.end()};
}
template <class T>
T owned(const T& value) {
  return value;
}
Key viewed(const OwnedKey& key) {
  return key.key();
}
KeyBound viewed(const OwnedBound& bound) {
  return bound.bound();
}
std::span<const std::byte> viewed(const std::vector<std::byte>& bytes) {
  return bytes;
}
template <class T>
const T& viewed(const T& value) {
  return value;
}

// Runs query(q, args...) on q's database's executor, with the arguments owned by the task.
template <class R, class Q, class Query, class... Args>
Future<R> launch_query(const DatabaseState* db, const Q& q, Query query, const Args&... args) {
  return launch<R>(db, [q, query, kept = std::tuple(owned(args)...)] {
    return std::apply([&](const auto&... a) { return query(q, viewed(a)...); }, kept);
  });
}

// The queries, named once for every class that has them.
constexpr auto kGet = [](const auto& q, const Key& key) { return q.get(key); };
constexpr auto kGetAll = [](const auto& q, const Key& key) { return q.get_all(key); };
constexpr auto kGetRange = [](const auto& q, const KeyBound& start, const KeyBound& end,
                              const RangeOptions& options) {
  return q.get_range(start, end, options);
};
constexpr auto kCountRange = [](const auto& q, const KeyBound& start, const KeyBound& end,
                                const RangeOptions& options) {
  return q.count_range(start, end, options);
};
constexpr auto kPrefix = [](const auto& q, std::span<const std::byte> prefix, SortOrder order) {
  return q.prefix(prefix, order);
};

std::span<const std::byte> text_bytes(std::string_view text) {
  return std::as_bytes(std::span(text.data(), text.size()));
}

}  // namespace
}  // namespace detail

Future<Value> ReadOnlyTable::get_async(const Key& key) const {
  return detail::launch_query<Value>(db_, *this, detail::kGet, key);
}
Future<Range> ReadOnlyTable::get_range_async(const KeyBound& start, const KeyBound& end,
                                             RangeOptions options) const {
  return detail::launch_query<Range>(db_, *this, detail::kGetRange, start, end, options);
}
Future<uint64_t> ReadOnlyTable::count_range_async(const KeyBound& start, const KeyBound& end,
                                                  RangeOptions options) const {
  return detail::launch_query<uint64_t>(db_, *this, detail::kCountRange, start, end, options);
}
Future<Range> ReadOnlyTable::prefix_async(std::span<const std::byte> prefix,
                                          SortOrder order) const {
  return detail::launch_query<Range>(db_, *this, detail::kPrefix, prefix, order);
}
Future<Range> ReadOnlyTable::prefix_async(std::string_view text, SortOrder order) const {
  return prefix_async(detail::text_bytes(text), order);
}

Future<Row> SecondaryIndex::get_async(const Key& key) const {
  return detail::launch_query<Row>(db_, *this, detail::kGet, key);
}
Future<IndexRange> SecondaryIndex::get_all_async(const Key& key) const {
  return detail::launch_query<IndexRange>(db_, *this, detail::kGetAll, key);
}
Future<IndexRange> SecondaryIndex::get_range_async(const KeyBound& start, const KeyBound& end,
                                                   RangeOptions options) const {
  return detail::launch_query<IndexRange>(db_, *this, detail::kGetRange, start, end, options);
}
Future<uint64_t> SecondaryIndex::count_range_async(const KeyBound& start, const KeyBound& end,
                                                   RangeOptions options) const {
  return detail::launch_query<uint64_t>(db_, *this, detail::kCountRange, start, end, options);
}
Future<IndexRange> SecondaryIndex::prefix_async(std::span<const std::byte> prefix,
                                                SortOrder order) const {
  return detail::launch_query<IndexRange>(db_, *this, detail::kPrefix, prefix, order);
}
Future<IndexRange> SecondaryIndex::prefix_async(std::string_view text, SortOrder order) const {
  return prefix_async(detail::text_bytes(text), order);
}

namespace {

// Reads one byte in every 4 KiB of `bytes` (and its last), so a mapped page is faulted in.
uint8_t touch(std::span<const std::byte> bytes) {
  uint8_t sum = 0;
  for (size_t i = 0; i < bytes.size(); i += 4096)
    sum ^= std::to_integer<uint8_t>(bytes[i]);
  if (!bytes.empty()) sum ^= std::to_integer<uint8_t>(bytes.back());
  return sum;
}

}  // namespace

Future<void> ReadOnlyTable::warm_async(const KeyBound& start, const KeyBound& end) const {
  return detail::launch_query<void>(
      db_, *this,
      [](const ReadOnlyTable& table, const KeyBound& from, const KeyBound& to) -> status {
        auto range = table.get_range(from, to);
        if (!range) return std::move(range).error();
        // Walking the range loads each leaf once; value() resolves overflow runs.
        uint8_t sum = 0;
        for (const Entry& e : *range)
          sum ^= static_cast<uint8_t>(touch(e.key) ^ touch(e.value));
        volatile uint8_t sink = sum;  // keep the reads
        (void)sink;
        if (!range->status()) return range->status().error();
        return {};
      },
      start, end);
}

}  // namespace drydb
