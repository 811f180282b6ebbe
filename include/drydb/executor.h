// drydb::Executor: where asynchronous queries run (async.h).
//
// An Executor takes Tasks (move-only units of work) and runs each one once,
// on some thread, now or later. drydb ships ThreadPool; a caller plugs in its
// own (a game engine's job system, an io_context, an inline executor for
// tests) by implementing submit():
//
//   class JobSystemExecutor final : public drydb::Executor {
//    public:
//     void submit(drydb::Task task) override { jobs_.push(std::move(task)); }
//   };
//   auto db = drydb::ReadOnlyDatabase::open(path, {.executor = &my_executor});
//
// Nothing here throws; std::thread failing to start a thread aborts the
// process (it would throw std::system_error, and drydb builds without
// exceptions).
#pragma once

#include <concepts>
#include <memory>
#include <type_traits>
#include <utility>

namespace drydb {

// A move-only unit of work (unlike std::function, it may own move-only state).
// Run it once with operator(); running empties it.
class Task {
 public:
  Task() noexcept = default;
  template <class F>
  requires(std::invocable<std::decay_t<F>&> &&
           !std::same_as<std::remove_cvref_t<F>, Task>) explicit Task(F&& f)
      : impl_(new Impl<std::decay_t<F>>(std::forward<F>(f))) {}
  Task(Task&&) noexcept = default;
  Task& operator=(Task&&) noexcept = default;
  Task(const Task&) = delete;
  Task& operator=(const Task&) = delete;
  // Destroying a Task that was never run is allowed: a drydb query whose
  // task is dropped completes its Future with errc::invalid_state.
  ~Task() = default;

  explicit operator bool() const noexcept { return impl_ != nullptr; }
  // Runs the work and empties the Task. Requires: non-empty.
  void operator()() {
    std::unique_ptr<Base> work = std::move(impl_);
    work->run();
  }

 private:
  struct Base {
    virtual ~Base() = default;
    virtual void run() = 0;
  };
  template <class F>
  struct Impl final : Base {
    template <class G>
    explicit Impl(G&& g) : f(std::forward<G>(g)) {}
    void run() override { f(); }
    F f;
  };
  std::unique_ptr<Base> impl_;
};

class Executor {
 public:
  virtual ~Executor() = default;
  // Runs `task` once, on any thread, at any later time (or at once, on the
  // calling thread: an inline executor makes every async query complete
  // before its call returns). Called concurrently from many threads. An
  // executor that cannot run a task may destroy it instead (see Task).
  // Must not block on the tasks it already holds.
  virtual void submit(Task task) = 0;
};

// A fixed set of threads taking tasks from one FIFO queue.
class ThreadPool final : public Executor {
 public:
  // Starts `threads` threads (at least one).
  explicit ThreadPool(unsigned threads);
  // Runs every task submitted so far (and any those submit while it drains),
  // then joins the threads. When called from one of the pool's own threads
  // (a task that destroys its pool), that thread is detached, not joined.
  ~ThreadPool() override;
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  void submit(Task task) override;
  unsigned threads() const noexcept { return threads_; }

 private:
  struct Shared;
  std::shared_ptr<Shared> shared_;  // the queue; each thread holds it too
  unsigned threads_;
};

}  // namespace drydb
