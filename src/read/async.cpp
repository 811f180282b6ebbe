// Asynchronous queries (async.h): each database's hub, the default pool, and
// the *_async forms of ReadOnlyTable and SecondaryIndex.
#include "drydb/async.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "drydb/detail/db_state.h"
#include "drydb/index.h"
#include "drydb/table.h"

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
  std::lock_guard lock(async_mu_);
  if (!async_hub_) async_hub_ = std::make_shared<AsyncHub>(executor_);
  return async_hub_;
}

void DatabaseState::close_async() const {
  std::shared_ptr<AsyncHub> hub;
  {
    std::lock_guard lock(async_mu_);
    hub = std::move(async_hub_);
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

// ---- ReadOnlyTable's asynchronous forms --------------------------------------------------------

Future<Value> ReadOnlyTable::get_async(const Key& key) const {
  return detail::launch<Value>(
      db_, [table = *this, key = detail::OwnedKey(key)] { return table.get(key.key()); });
}

Future<Range> ReadOnlyTable::get_range_async(const KeyBound& start, const KeyBound& end,
                                             RangeOptions options) const {
  return detail::launch<Range>(
      db_, [table = *this, start = detail::OwnedBound(start), end = detail::OwnedBound(end),
            options] { return table.get_range(start.bound(), end.bound(), options); });
}

Future<uint64_t> ReadOnlyTable::count_range_async(const KeyBound& start, const KeyBound& end,
                                                  RangeOptions options) const {
  return detail::launch<uint64_t>(
      db_, [table = *this, start = detail::OwnedBound(start), end = detail::OwnedBound(end),
            options] { return table.count_range(start.bound(), end.bound(), options); });
}

Future<Range> ReadOnlyTable::prefix_async(std::span<const std::byte> prefix,
                                          SortOrder order) const {
  return detail::launch<Range>(
      db_, [table = *this, prefix = std::vector<std::byte>(prefix.begin(), prefix.end()), order] {
        return table.prefix(prefix, order);
      });
}

Future<Range> ReadOnlyTable::prefix_async(std::string_view text, SortOrder order) const {
  return prefix_async(std::as_bytes(std::span(text.data(), text.size())), order);
}

// ---- SecondaryIndex's asynchronous forms -------------------------------------------------------

Future<Row> SecondaryIndex::get_async(const Key& key) const {
  return detail::launch<Row>(
      db_, [index = *this, key = detail::OwnedKey(key)] { return index.get(key.key()); });
}

Future<IndexRange> SecondaryIndex::get_all_async(const Key& key) const {
  return detail::launch<IndexRange>(
      db_, [index = *this, key = detail::OwnedKey(key)] { return index.get_all(key.key()); });
}

Future<IndexRange> SecondaryIndex::get_range_async(const KeyBound& start, const KeyBound& end,
                                                   RangeOptions options) const {
  return detail::launch<IndexRange>(
      db_, [index = *this, start = detail::OwnedBound(start), end = detail::OwnedBound(end),
            options] { return index.get_range(start.bound(), end.bound(), options); });
}

Future<uint64_t> SecondaryIndex::count_range_async(const KeyBound& start, const KeyBound& end,
                                                   RangeOptions options) const {
  return detail::launch<uint64_t>(
      db_, [index = *this, start = detail::OwnedBound(start), end = detail::OwnedBound(end),
            options] { return index.count_range(start.bound(), end.bound(), options); });
}

Future<IndexRange> SecondaryIndex::prefix_async(std::span<const std::byte> prefix,
                                                SortOrder order) const {
  return detail::launch<IndexRange>(
      db_, [index = *this, prefix = std::vector<std::byte>(prefix.begin(), prefix.end()), order] {
        return index.prefix(prefix, order);
      });
}

Future<IndexRange> SecondaryIndex::prefix_async(std::string_view text, SortOrder order) const {
  return prefix_async(std::as_bytes(std::span(text.data(), text.size())), order);
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
  return detail::launch<void>(db_,
                              [table = *this, start = detail::OwnedBound(start),
                               end = detail::OwnedBound(end)]() -> status {
                                auto range = table.get_range(start.bound(), end.bound());
                                if (!range) return std::move(range).error();
                                // Walking the range loads each leaf once; value() resolves overflow
                                // runs.
                                uint8_t sum = 0;
                                for (const Entry& e : *range)
                                  sum ^= static_cast<uint8_t>(touch(e.key) ^ touch(e.value));
                                volatile uint8_t sink = sum;  // keep the reads
                                (void)sink;
                                if (!range->status()) return range->status().error();
                                return {};
                              });
}

}  // namespace drydb
