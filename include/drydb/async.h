// drydb::Future: the result of an asynchronous query.
//
//   auto f = table.get_async("key1");          // enqueues; never waits on storage
//   ...                                         // other work
//   drydb::result<drydb::Value> v = f.get();    // waits if needed; same result as get("key1")
//
//   table.count_range_async("a", "m").then([](drydb::result<uint64_t> n) { ... });
//
// Every query has an async form: a table's get_async, get_range_async,
// count_range_async, prefix_async and warm_async (table.h), an index's
// get_async, get_all_async, get_range_async, count_range_async and
// prefix_async (index.h). Including this header makes them usable. Each copies
// its keys, enqueues one Task on the database's executor
// (OpenOptions::executor, else drydb's default pool) and returns at once. The
// task runs the synchronous query and hands its result, with the same
// zero-copy views (a Value pins its page, a Range its cursor's leaf), to the
// Future. Handing over through the Future orders the task's writes before
// the reader's reads, so the Value or Range may be used on the reading
// thread; it then belongs to that thread, as a sync result does. An async
// call costs a few small allocations (the query's state, its task, its keys)
// and a few short lock holds, never a storage read; sync queries pay
// nothing for the async ones.
//
// The default pool: max(2, min(hardware threads, 4)) threads, started on the
// first async query of a database opened without an executor, shared by all
// such databases, drained and joined when the process exits normally.
// Queries made while it shuts down (by a static object's destructor, say)
// run inline on the calling thread.
//
// Lifetimes. A Value or Range taken from a Future follows the sync rules: it
// must not outlive its database. Destroying (or assigning over) a database
// with work in flight is safe, from any thread, with Futures still alive:
//   - queries not yet started are cancelled: their Futures become ready
//     with errc::invalid_state, and their tasks do nothing when the executor
//     runs them later;
//   - queries running now (and completion callbacks running now) are waited
//     for: the destructor blocks until they return, which is one query's
//     work each;
//   - unread results that view pages (Value, Range) are released and
//     replaced with errc::invalid_state; unread counts and warm statuses
//     stay readable.
// So a Future may outlive its database; reading it afterwards gives either
// a count/status or errc::invalid_state, never a dangling view. A
// completion callback must not destroy the database it is a callback of
// (that destructor would wait for the callback itself; drydb aborts with a
// message instead of deadlocking). Destroying a Future before its task runs
// cancels the query (the task skips it; detach() instead lets it run);
// destroying it while it runs drops the result as soon as it is made. The
// executor must outlive the database.
#pragma once

#include <chrono>
#include <concepts>
#include <memory>
#include <type_traits>
#include <utility>

#include "drydb/detail/async_op.h"
#include "drydb/executor.h"
#include "drydb/index.h"
#include "drydb/key.h"
#include "drydb/range.h"
#include "drydb/result.h"
#include "drydb/row.h"
#include "drydb/table.h"
#include "drydb/value.h"

namespace drydb {

// The pending result of an asynchronous query: move-only, read once.
//
// get() (or then() or detach()) consumes the Future: afterwards valid() is false and
// every other call but destruction and assignment is a precondition
// violation (drydb prints a message and aborts). One thread at a time.
template <class T>
class [[nodiscard]] Future {
 public:
  // An empty Future (valid() is false).
  Future() noexcept = default;
  Future(Future&&) noexcept = default;
  Future& operator=(Future&& o) noexcept {
    if (this != &o) {
      release();
      op_ = std::move(o.op_);
    }
    return *this;
  }
  // Destroying an unread Future cancels its query if it has not started and
  // drops its result (releasing any page) as soon as there is one.
  ~Future() { release(); }

  // Lets the query run with nobody to read it (its result is dropped when
  // made) and consumes the Future: a warm-up in the background is
  //   table.warm_async(start, end).detach();
  void detach() {
    need("detach()").abandon(/*cancel=*/false);
    op_.reset();
  }

  // Whether this Future still has a result to give.
  bool valid() const noexcept { return op_ != nullptr; }
  // Whether get() would return without waiting.
  bool ready() const { return need("ready()").ready(); }
  // Waits until ready().
  void wait() const { need("wait()").wait(); }
  // Waits until ready() or `timeout` passes; returns ready().
  template <class Rep, class Period>
  bool wait_for(const std::chrono::duration<Rep, Period>& timeout) const {
    return need("wait_for()").wait_for(timeout);
  }
  // Waits, then moves the result out: what the sync query would have
  // returned, or errc::invalid_state when the database was destroyed first
  // (see the top of this file) or the executor dropped the query's task.
  result<T> get() {
    result<T> r = need("get()").take();
    op_.reset();
    return r;
  }
  // Calls fn(result<T>) exactly once, with what get() would return: at once
  // on this thread if the result is ready, else on the thread that completes
  // the query (an executor thread; for a cancelled query, the thread that
  // runs or drops its task). Consumes the Future. A Value or Range given to
  // fn must not outlive the database; while fn runs, the database's
  // destructor waits for it, so fn must not destroy its own database.
  template <class F>
  requires std::invocable < std::decay_t<F>
  &, result < T >> void then(F&& fn) {
    std::shared_ptr<detail::AsyncOp<T>> op = std::move(op_);
    if (!op) detail::die_no_future("then()");
    op->set_callback(detail::Callback<T>(std::forward<F>(fn)));
  }

  // Internal: made by the async queries of ReadOnlyTable.
  explicit Future(std::shared_ptr<detail::AsyncOp<T>> op) noexcept : op_(std::move(op)) {}

 private:
  detail::AsyncOp<T>& need(const char* what) const {
    if (!op_) detail::die_no_future(what);
    return *op_;
  }
  void release() noexcept {
    if (op_) {
      op_->abandon(/*cancel=*/true);
      op_.reset();
    }
  }
  std::shared_ptr<detail::AsyncOp<T>> op_;
};

}  // namespace drydb
