// Bounded waits for the tests: a condition that never comes, a query that never completes,
// fails its test after kBoundedWait instead of hanging it (and the suite with it). The bound is
// far above any wait a working build needs, under sanitizers and a loaded machine too.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <utility>

namespace drydb_test {

inline constexpr std::chrono::seconds kBoundedWait{60};

// Polls `done` every millisecond until it holds or `limit` passes: whether it held. For
// conditions no condition variable announces (another thread's progress, a file's state).
template <class Done>
bool eventually(Done&& done, std::chrono::milliseconds limit = kBoundedWait) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= deadline) return done();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

// Fails the test and ends the process: what a wait for `what` that timed out leaves behind
// (a query, a callback, a thread still to run) may reach into the test's stack, so the test
// cannot return.
[[noreturn]] inline void abandon_wait(const char* what) {
  ADD_FAILURE() << what << ": not within " << kBoundedWait.count() << " s";
  std::abort();
}

// cv.wait(lock, pred) for at most kBoundedWait; past it, abandon_wait(what).
template <class Pred>
void await_bounded(std::condition_variable& cv, std::unique_lock<std::mutex>& lock, Pred&& pred,
                   const char* what) {
  if (!cv.wait_for(lock, kBoundedWait, std::forward<Pred>(pred))) abandon_wait(what);
}

// The result of a drydb::Future (or anything with wait_for and get) once it is ready; one not
// ready within kBoundedWait is abandon_wait: get() would block for ever.
template <class Future>
auto settled(Future&& f) {
  if (!f.wait_for(kBoundedWait)) abandon_wait("an async query's result");
  return std::forward<Future>(f).get();
}

}  // namespace drydb_test
