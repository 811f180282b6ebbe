// ThreadPool (executor.h): runs every task submitted, including those submitted while it drains
// at destruction, and survives a task that destroys it. No test relies on timing.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>

#include "drydb/drydb.h"

namespace {

using drydb::Task;
using drydb::ThreadPool;

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
  cv.wait(lock, [&] { return destroyed; });
}

}  // namespace
