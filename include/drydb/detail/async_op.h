// The machinery behind drydb::Future (async.h): a database's AsyncHub, the
// state of one query (AsyncOp) that its task and its Future share, the task
// itself, and the keys a query owns while it waits. Not for users.
#pragma once

#include <chrono>
#include <concepts>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "drydb/executor.h"
#include "drydb/key.h"
#include "drydb/range.h"
#include "drydb/result.h"
#include "drydb/row.h"
#include "drydb/value.h"

namespace drydb {

template <class T>
class Future;

namespace detail {

class DatabaseState;
class AsyncOpBase;

// The asynchronous side of one open database: its executor, and the queries
// that its destructor must cancel, wait for or release. Shared by the
// database and its queries, so a query or Future that outlives the database
// can still lock it and see `closed`. A table finds its database's hub in a
// process-wide map keyed by the DatabaseState (one lookup under a mutex per
// async call), made on first use, so the read path's types stay as they are.
class AsyncHub {
 public:
  explicit AsyncHub(Executor* executor) noexcept : executor_(executor) {}
  AsyncHub(const AsyncHub&) = delete;
  AsyncHub& operator=(const AsyncHub&) = delete;

  // Hands a task to the database's executor or the default pool.
  void submit(Task task);
  // The database is going away: cancels queued queries, releases unread
  // page views, waits for running queries and callbacks. Once only.
  void close();

  // Guards every field of this hub and of its queries (AsyncOp).
  std::mutex mu;
  bool closed = false;           // the database is gone: no query may start
  uint32_t running = 0;          // queries and callbacks that may touch the database
  std::condition_variable idle;  // notified when running drops to 0 after close

  // Queries close() must visit: queued ones, and finished ones whose Future
  // has not taken the result. Intrusive, so linking never allocates.
  void link(AsyncOpBase* op) noexcept;
  void unlink(AsyncOpBase* op) noexcept;

 private:
  Executor* executor_;  // nullptr: the default pool
  AsyncOpBase* head_ = nullptr;
};

// The hub of `db`, made on first use, on the executor the database was
// opened with (OpenOptions::executor; nullptr = the default pool).
std::shared_ptr<AsyncHub> async_hub(const DatabaseState* db);
// Called by the database's destructor and move-assignment: closes the hub,
// if there is one.
void async_close(const DatabaseState* db);

// Errors of cancelled and released queries (errc::invalid_state).
Error closed_before_run();
Error closed_before_read();
Error dropped_by_executor();
// Aborts with a message: a Future used without a result (precondition).
[[noreturn]] void die_no_future(const char* what);

// Marks the current thread as running a completion callback of `hub`'s
// database while it lives, so that close() from inside it fails loudly
// instead of waiting for itself.
class CallbackScope {
 public:
  explicit CallbackScope(const AsyncHub* hub) noexcept;
  ~CallbackScope();
  CallbackScope(const CallbackScope&) = delete;
  CallbackScope& operator=(const CallbackScope&) = delete;

 private:
  const AsyncHub* saved_;
};

// Whether a T may view pages of its database (and so must not outlive it):
// everything but counts and statuses.
template <class T>
inline constexpr bool kViewsPages = !std::is_void_v<T> && !std::is_arithmetic_v<T>;

// A move-only callable taking a result<T> (a completion callback).
template <class T>
class Callback {
 public:
  Callback() noexcept = default;
  template <class F>
  explicit Callback(F&& f) : impl_(new Impl<std::decay_t<F>>(std::forward<F>(f))) {}
  explicit operator bool() const noexcept { return impl_ != nullptr; }
  void operator()(result<T> r) {
    std::unique_ptr<Base> f = std::move(impl_);
    f->call(std::move(r));
  }

 private:
  struct Base {
    virtual ~Base() = default;
    virtual void call(result<T>&& r) = 0;
  };
  template <class F>
  struct Impl final : Base {
    template <class G>
    explicit Impl(G&& g) : f(std::forward<G>(g)) {}
    void call(result<T>&& r) override { f(std::move(r)); }
    F f;
  };
  std::unique_ptr<Base> impl_;
};

// One query's shared state, between its Future and its Task. Every field is
// guarded by hub_->mu. An op is on its hub's list only while its Future or
// its Task holds it (taking, abandoning and delivering unlink it), so close()
// never visits a destroyed op.
class AsyncOpBase {
 public:
  explicit AsyncOpBase(std::shared_ptr<AsyncHub> hub) noexcept : hub_(std::move(hub)) {}
  virtual ~AsyncOpBase() = default;
  AsyncOpBase(const AsyncOpBase&) = delete;
  AsyncOpBase& operator=(const AsyncOpBase&) = delete;

 protected:
  friend class AsyncHub;
  enum class Phase : uint8_t {
    queued,   // submitted, not started
    running,  // computing (counted in hub_->running)
    done,     // a result (or a cancellation error) waits in the op
    taken,    // the result went to the Future's reader or a callback
  };
  // The database is closing (hub lock held): cancel if queued, release the
  // result if it views pages.
  virtual void on_close() noexcept = 0;

  std::shared_ptr<AsyncHub> hub_;
  std::condition_variable ready_;  // notified when phase_ becomes done
  Phase phase_ = Phase::queued;
  bool abandoned_ = false;  // the Future was destroyed or detached unread
  bool cancel_ = false;     // ... and the query need not run
  bool linked_ = false;     // on hub_'s list
  AsyncOpBase* prev_ = nullptr;
  AsyncOpBase* next_ = nullptr;
};

template <class T>
class AsyncOp : public AsyncOpBase {
 public:
  using AsyncOpBase::AsyncOpBase;

  // The task's side. run() computes (unless cancelled) and completes;
  // discard() completes a query whose task was destroyed unrun.
  void run() {
    std::unique_lock lock(hub_->mu);
    if (phase_ != Phase::queued || (abandoned_ && cancel_) || hub_->closed) {
      if (phase_ == Phase::queued) {  // abandoned (nobody wants the result), or closed
        phase_ = Phase::done;
        if (!abandoned_) result_.emplace(closed_before_run());
        hub_->unlink(this);
        ready_.notify_all();
      }
      deliver_error(lock);  // a callback of a cancelled query
      return;
    }
    phase_ = Phase::running;
    ++hub_->running;
    lock.unlock();
    std::optional<result<T>> r(std::in_place, compute());
    lock.lock();
    if (abandoned_)
      r.reset();  // detached: drop page views while still counted as running
    else if (hub_->closed && kViewsPages<T> && r->has_value())
      r.emplace(closed_before_read());
    if (r) result_.emplace(std::move(*r));
    r.reset();
    phase_ = Phase::done;
    ready_.notify_all();
    if (callback_ && result_) {
      phase_ = Phase::taken;
      hub_->unlink(this);
      Callback<T> callback = std::move(callback_);
      {
        result<T> out = std::move(*result_);
        result_.reset();
        lock.unlock();
        CallbackScope scope(hub_.get());
        callback(std::move(out));
      }
      lock.lock();
    }
    if (--hub_->running == 0 && hub_->closed) hub_->idle.notify_all();
  }

  void discard() {
    std::unique_lock lock(hub_->mu);
    if (phase_ == Phase::queued) {
      phase_ = Phase::done;
      result_.emplace(dropped_by_executor());
      ready_.notify_all();
    }
    deliver_error(lock);
  }

  // The Future's side.
  bool ready() {
    std::lock_guard lock(hub_->mu);
    return phase_ == Phase::done;
  }
  void wait() {
    std::unique_lock lock(hub_->mu);
    ready_.wait(lock, [&] { return phase_ == Phase::done; });
  }
  template <class Rep, class Period>
  bool wait_for(const std::chrono::duration<Rep, Period>& d) {
    std::unique_lock lock(hub_->mu);
    return ready_.wait_for(lock, d, [&] { return phase_ == Phase::done; });
  }
  result<T> take() {
    std::unique_lock lock(hub_->mu);
    ready_.wait(lock, [&] { return phase_ == Phase::done; });
    return take_locked();
  }
  void set_callback(Callback<T> callback) {
    std::unique_lock lock(hub_->mu);
    if (phase_ != Phase::done) {
      callback_ = std::move(callback);
      return;
    }
    result<T> out = take_locked();
    lock.unlock();
    callback(std::move(out));
  }
  // The Future is gone: a query not yet started is skipped when `cancel`,
  // else run with its result dropped when made.
  void abandon(bool cancel) noexcept {
    std::lock_guard lock(hub_->mu);
    abandoned_ = true;
    cancel_ = cancel;
    hub_->unlink(this);
    result_.reset();
  }

 protected:
  virtual result<T> compute() = 0;

 private:
  void on_close() noexcept override {
    if (phase_ == Phase::queued) {
      phase_ = Phase::done;
      result_.emplace(closed_before_run());
      ready_.notify_all();
    } else if (phase_ == Phase::done && kViewsPages<T> && result_ && result_->has_value()) {
      result_.emplace(closed_before_read());
    }
  }
  // Requires: phase_ == done, lock held.
  result<T> take_locked() {
    phase_ = Phase::taken;
    hub_->unlink(this);
    result<T> out = std::move(*result_);
    result_.reset();
    return out;
  }
  // Hands a cancellation error to a waiting callback, outside the lock.
  void deliver_error(std::unique_lock<std::mutex>& lock) {
    if (!callback_ || !result_ || phase_ != Phase::done) return;
    Callback<T> callback = std::move(callback_);
    result<T> out = take_locked();
    lock.unlock();
    callback(std::move(out));
  }

  std::optional<result<T>> result_;
  Callback<T> callback_;
};

// A query: `fn` run once on the executor.
template <class T, class Fn>
class AsyncQuery final : public AsyncOp<T> {
 public:
  AsyncQuery(std::shared_ptr<AsyncHub> hub, Fn fn)
      : AsyncOp<T>(std::move(hub)), fn_(std::move(fn)) {}

 private:
  result<T> compute() override { return fn_(); }
  Fn fn_;
};

// The Task of a query: runs it, or completes it with an error when the
// executor destroys the task unrun.
template <class T>
class QueryTask {
 public:
  explicit QueryTask(std::shared_ptr<AsyncOp<T>> op) noexcept : op_(std::move(op)) {}
  QueryTask(QueryTask&&) noexcept = default;
  QueryTask& operator=(QueryTask&&) = delete;
  ~QueryTask() {
    if (op_) op_->discard();
  }
  void operator()() {
    std::shared_ptr<AsyncOp<T>> op = std::move(op_);
    op->run();
  }

 private:
  std::shared_ptr<AsyncOp<T>> op_;
};

// A key copied out of the caller's memory, for a query that runs later.
class OwnedKey {
 public:
  explicit OwnedKey(const Key& key) : typed_(key) {
    if (key.kind() == KeyKind::bytes) bytes_.assign(key.bytes().begin(), key.bytes().end());
  }
  // Valid while this OwnedKey lives.
  Key key() const noexcept {
    // typed_ of a text/bytes key still points at the caller's bytes: never read.
    return typed_.kind() == KeyKind::bytes ? Key(std::span<const std::byte>(bytes_)) : typed_;
  }

 private:
  Key typed_;
  std::vector<std::byte> bytes_;
};

class OwnedBound {
 public:
  explicit OwnedBound(const KeyBound& b)
      : bounded_(b.bounded()), key_(b.bounded() ? b.key() : Key(std::string_view())) {}
  KeyBound bound() const noexcept {
    if (!bounded_) return unbounded;
    return KeyBound(key_.key());
  }

 private:
  bool bounded_;
  OwnedKey key_;
};

// Starts `fn` (returning result<T>) on the executor of database `db`.
template <class T, class Fn>
Future<T> launch(const DatabaseState* db, Fn fn) {
  std::shared_ptr<AsyncHub> hub = async_hub(db);
  auto op = std::make_shared<AsyncQuery<T, Fn>>(hub, std::move(fn));
  {
    std::lock_guard lock(hub->mu);
    hub->link(op.get());
  }
  Future<T> future(op);
  hub->submit(Task(QueryTask<T>(std::move(op))));
  return future;
}

}  // namespace detail

}  // namespace drydb
