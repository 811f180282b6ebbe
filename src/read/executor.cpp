// drydb::ThreadPool (executor.h).
#include "drydb/executor.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

namespace drydb {

// What the pool's threads share with it. Each thread holds a reference, so a thread detached by
// a destructor that runs on it can still finish its loop.
struct ThreadPool::Shared {
  std::mutex mu;
  std::condition_variable wake;
  std::deque<Task> queue;
  bool stopping = false;
  std::vector<std::thread> workers;

  static void work(const std::shared_ptr<Shared>& self) {
    std::unique_lock lock(self->mu);
    for (;;) {
      self->wake.wait(lock, [&] { return self->stopping || !self->queue.empty(); });
      if (self->queue.empty()) return;  // stopping, and drained
      Task task = std::move(self->queue.front());
      self->queue.pop_front();
      lock.unlock();
      task();
      lock.lock();
    }
  }
};

ThreadPool::ThreadPool(unsigned threads)
    : shared_(std::make_shared<Shared>()), threads_(std::max(threads, 1u)) {
  shared_->workers.reserve(threads_);
  for (unsigned i = 0; i < threads_; ++i)
    shared_->workers.emplace_back([s = shared_] { Shared::work(s); });
}

ThreadPool::~ThreadPool() {
  std::vector<std::thread> workers;
  {
    std::lock_guard lock(shared_->mu);
    shared_->stopping = true;
    workers.swap(shared_->workers);
  }
  shared_->wake.notify_all();
  const auto self = std::this_thread::get_id();
  for (auto& t : workers) {
    if (t.get_id() == self)
      t.detach();  // a task is destroying its own pool: this thread ends when it returns
    else
      t.join();
  }
}

void ThreadPool::submit(Task task) {
  // Notifies under the lock: once it is released the task may run and destroy this pool, so
  // nothing of the pool may be touched after.
  std::lock_guard lock(shared_->mu);
  shared_->queue.push_back(std::move(task));
  shared_->wake.notify_one();
}

}  // namespace drydb
