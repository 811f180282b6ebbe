// drydb::LiveDataset: a sharded dataset that follows its CURRENT generation under load.
// Part of the drydb::dataset library.
//
//   auto live = drydb::LiveDataset::open("datasets/users").value();
//   live.watch(std::chrono::seconds(1));          // or call live.refresh() when told to
//   // in each serving thread:
//   drydb::LiveDataset::Reader reader = live.reader();
//   {
//     auto db = reader.pin();                     // one generation, until db is destroyed
//     auto v = db->table("users")->get(int64_t{42});
//   }
//
// refresh() opens the generation CURRENT names when it is not the one served (checking it as
// ShardedDatabase::open does), and swaps it in: queries that pinned the old generation finish
// on it, queries that pin after the swap see the new one, and none fails or sees a mix. A
// generation that does not open is not swapped in (refresh() returns its error; the old one
// stays served).
//
// Pinning is epoch-based: each Reader owns a slot (a cache line of its own) in which pin()
// stores the epoch it read, and unpinning stores "idle" there. A pin costs two loads of shared
// lines that only refresh() writes, and two stores to the reader's own line: no shared atomic
// read-modify-write, so readers on many cores do not contend. A generation swapped out is
// released once every slot is idle or has pinned a later epoch, by the next refresh() (or
// the watcher's next tick) that finds it so, or by the destructor.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>

#include "drydb/result.h"
#include "drydb/sharded.h"

namespace drydb {

namespace detail {
struct LiveState;
struct ReaderSlot;
}  // namespace detail

class LiveDataset {
 public:
  // A generation pinned by a Reader: the ShardedDatabase stays open (and its tables, ranges
  // and cursors valid) until the Pinned is destroyed. Belongs to the Reader's thread.
  class Pinned {
   public:
    Pinned(Pinned&& o) noexcept : db_(o.db_), slot_(o.slot_) { o.slot_ = nullptr; }
    Pinned(const Pinned&) = delete;
    Pinned& operator=(const Pinned&) = delete;
    ~Pinned();
    const ShardedDatabase& operator*() const noexcept { return *db_; }
    const ShardedDatabase* operator->() const noexcept { return db_; }

   private:
    friend class LiveDataset;
    Pinned(const ShardedDatabase* db, detail::ReaderSlot* slot) noexcept : db_(db), slot_(slot) {}
    const ShardedDatabase* db_;
    detail::ReaderSlot* slot_;
  };

  // A thread's way to pin generations: one per thread (or per task that runs on one thread at a
  // time). Requires: at most one Pinned of a Reader at a time; the Reader destroyed before the
  // LiveDataset. A Reader destroyed while its Pinned lives keeps its slot from other readers
  // (the pinned generation stays protected; the slot is not reused).
  class Reader {
   public:
    Reader(Reader&& o) noexcept : state_(o.state_), slot_(o.slot_) { o.slot_ = nullptr; }
    Reader(const Reader&) = delete;
    Reader& operator=(const Reader&) = delete;
    ~Reader();
    // The generation served now, pinned. Not on a temporary Reader: pin a kept one.
    Pinned pin() const& noexcept;
    Pinned pin() const&& = delete;

   private:
    friend class LiveDataset;
    Reader(detail::LiveState* state, detail::ReaderSlot* slot) noexcept
        : state_(state), slot_(slot) {}
    detail::LiveState* state_;
    detail::ReaderSlot* slot_;
  };

  // Opens the dataset folder at `path` (its CURRENT generation) as ShardedDatabase::open does,
  // with its errors; errc::invalid_argument for a path that is not a dataset folder with a
  // CURRENT (a gen-N folder or a manifest names one generation, which nothing would swap: open
  // it with ShardedDatabase).
  static result<LiveDataset> open(const std::filesystem::path& path,
                                  const ShardedOptions& options = {});

  LiveDataset(LiveDataset&&) noexcept;
  LiveDataset& operator=(LiveDataset&&) noexcept;
  // Stops the watcher. Requires: no Reader left.
  ~LiveDataset();

  // A Reader with a slot of its own (taken under a lock: once per thread, not per query).
  Reader reader();

  // Serves CURRENT's generation if it is not the one served: opens and checks it, swaps it in,
  // and releases the generations swapped out earlier that no reader still pins. Returns whether
  // it swapped; an error (the new generation's open error) leaves the served one in place.
  // Safe to call from any thread, also while holding a pin (it never waits for readers); while
  // it opens a generation, pins, reader() and other calls go on (refreshes run one at a time).
  result<bool> refresh();

  // Calls refresh() every `every` on a thread of its own until the LiveDataset is destroyed or
  // stop_watching() is called; each error is passed to `on_error` (when given) and the watcher
  // goes on. Calling it again replaces the watcher. `on_error` runs on the watcher's thread: it
  // must not throw, nor stop the watcher or destroy the LiveDataset.
  void watch(std::chrono::milliseconds every, std::function<void(const Error&)> on_error = nullptr);
  void stop_watching();

  // The generation served now (what the next pin() sees).
  uint64_t generation() const noexcept;
  // Generations swapped out and not yet released (a reader still pinned them at the last
  // refresh).
  size_t retired() const noexcept;

 private:
  explicit LiveDataset(std::unique_ptr<detail::LiveState> s);
  std::unique_ptr<detail::LiveState> state_;
};

}  // namespace drydb
