// LiveDataset (live_dataset.h): a dataset's served generation, swapped by refresh() and pinned
// by readers, epoch style.
//
// Why a reader never meets a released generation: pin() stores the epoch it read into its slot,
// then loads `current`; refresh() stores the new `current`, then advances the epoch, and
// releases a generation swapped out before epoch E only after reading every slot as idle or
// >= E. All of these are sequentially consistent. If the releasing scan missed a reader's slot
// store, that store comes after the scan, so the reader's load of `current` comes after the
// swap and sees the new generation; if the scan saw it, the slot holds an epoch read before the
// advance (< E), and the old generation is kept. (Unpinning stores "idle" with release order: a
// scan that reads it comes after the pin's queries, and the slot's next pin stores after it in
// the slot's modification order, so the argument holds for that pin as for any other.)
#include "drydb/live_dataset.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "drydb/dataset.h"

namespace drydb {

namespace detail {

inline constexpr uint64_t kIdle = UINT64_MAX;

// A reader's slot: the epoch its pin read, or kIdle. A line of its own, so that readers on
// different cores never write one line.
struct alignas(64) ReaderSlot {
  std::atomic<uint64_t> pinned{kIdle};
  bool taken = false;  // guarded by LiveState::mutex
};

struct LiveState {
  // Read by every pin; written only by refresh().
  alignas(64) std::atomic<const ShardedDatabase*> current{nullptr};
  std::atomic<uint64_t> epoch{1};
  // current's generation number, for generation(), which pins nothing and so must not read it
  // through `current` (which a refresh may release meanwhile).
  std::atomic<uint64_t> generation{0};

  std::mutex refreshing;         // held by a refresh from start to end: one at a time
  alignas(64) std::mutex mutex;  // guards what follows; held briefly (never while opening)
  std::filesystem::path path;
  ShardedOptions options;
  std::deque<ReaderSlot> slots;             // a deque: slots never move
  std::unique_ptr<ShardedDatabase> served;  // written by refresh(), holding both locks
  // A generation swapped out when the epoch became `epoch`: released once no slot holds an
  // epoch below it.
  struct Retired {
    std::unique_ptr<ShardedDatabase> db;
    uint64_t epoch;
  };
  std::vector<Retired> retired;

  std::mutex watch_mutex;
  std::condition_variable wake;
  bool stop = false;
  std::thread watcher;

  // Releases the retired generations no reader can still hold. Requires: mutex held.
  void release_unpinned() {
    uint64_t oldest = kIdle;
    for (const ReaderSlot& s : slots)
      oldest = std::min(oldest, s.pinned.load(std::memory_order_seq_cst));
    std::erase_if(retired, [oldest](const Retired& r) { return r.epoch <= oldest; });
  }

  // LiveDataset::refresh (the watcher's too, which holds the state, not the LiveDataset that
  // may move).
  result<bool> refresh() {
    std::lock_guard one_at_a_time(refreshing);
    {
      std::lock_guard lock(mutex);
      release_unpinned();
    }
    // `served` changes only under `refreshing`, which this thread holds.
    const uint64_t serving = served->generation();
    auto live = current_generation(path);
    if (!live) return std::move(live).error();
    if (*live == serving) return false;
    auto db = ShardedDatabase::open(path, options);
    if (!db) return std::move(db).error();
    if (db->generation() == serving) return false;  // CURRENT moved back meanwhile
    auto next = std::make_unique<ShardedDatabase>(std::move(*db));
    std::lock_guard lock(mutex);
    current.store(next.get(), std::memory_order_seq_cst);
    generation.store(next->generation(), std::memory_order_relaxed);
    // Pins from now on read this epoch or a later one, and so hold `next`.
    const uint64_t now = epoch.fetch_add(1, std::memory_order_seq_cst) + 1;
    retired.push_back({std::move(served), now});
    served = std::move(next);
    release_unpinned();
    return true;
  }
};

}  // namespace detail

LiveDataset::Pinned::~Pinned() {
  if (slot_ != nullptr) slot_->pinned.store(detail::kIdle, std::memory_order_release);
}

LiveDataset::Reader::~Reader() {
  if (slot_ == nullptr) return;
  std::lock_guard lock(state_->mutex);
  // A slot whose pin is still held (a Pinned outliving its Reader) stays taken: handed to
  // another reader, that pin's end would mark the other reader idle.
  if (slot_->pinned.load(std::memory_order_acquire) == detail::kIdle) slot_->taken = false;
}

LiveDataset::Pinned LiveDataset::Reader::pin() const& noexcept {
  slot_->pinned.store(state_->epoch.load(std::memory_order_seq_cst), std::memory_order_seq_cst);
  return Pinned(state_->current.load(std::memory_order_seq_cst), slot_);
}

result<LiveDataset> LiveDataset::open(const std::filesystem::path& path,
                                      const ShardedOptions& options) {
  std::error_code ec;
  if (!std::filesystem::is_directory(path, ec) || !std::filesystem::exists(path / "CURRENT", ec))
    return Error(errc::invalid_argument,
                 path.string() +
                     " is not a dataset folder with a CURRENT generation (a LiveDataset follows "
                     "CURRENT; a gen-N folder or manifest opens with ShardedDatabase)");
  auto db = ShardedDatabase::open(path, options);
  if (!db) return std::move(db).error();
  auto state = std::make_unique<detail::LiveState>();
  state->path = path;
  state->options = options;
  state->served = std::make_unique<ShardedDatabase>(std::move(*db));
  state->current.store(state->served.get());
  state->generation.store(state->served->generation());
  return LiveDataset(std::move(state));
}

LiveDataset::LiveDataset(std::unique_ptr<detail::LiveState> s) : state_(std::move(s)) {}
LiveDataset::LiveDataset(LiveDataset&&) noexcept = default;
LiveDataset& LiveDataset::operator=(LiveDataset&& o) noexcept {
  if (this != &o) {
    if (state_) stop_watching();
    state_ = std::move(o.state_);
  }
  return *this;
}

LiveDataset::~LiveDataset() {
  if (state_) stop_watching();
}

LiveDataset::Reader LiveDataset::reader() {
  std::lock_guard lock(state_->mutex);
  auto free = std::find_if(state_->slots.begin(), state_->slots.end(),
                           [](const detail::ReaderSlot& s) { return !s.taken; });
  detail::ReaderSlot& slot = free != state_->slots.end() ? *free : state_->slots.emplace_back();
  slot.taken = true;
  return Reader(state_.get(), &slot);
}

result<bool> LiveDataset::refresh() {
  return state_->refresh();
}

void LiveDataset::watch(std::chrono::milliseconds every,
                        std::function<void(const Error&)> on_error) {
  stop_watching();
  detail::LiveState* s = state_.get();
  s->watcher = std::thread([s, every, on_error = std::move(on_error)] {
    std::unique_lock lock(s->watch_mutex);
    while (!s->wake.wait_for(lock, every, [s] { return s->stop; })) {
      lock.unlock();
      auto swapped = s->refresh();
      if (!swapped && on_error) on_error(swapped.error());
      lock.lock();
    }
  });
}

void LiveDataset::stop_watching() {
  detail::LiveState& s = *state_;
  if (!s.watcher.joinable()) return;
  {
    std::lock_guard lock(s.watch_mutex);
    s.stop = true;
  }
  s.wake.notify_all();
  s.watcher.join();
  s.stop = false;
}

uint64_t LiveDataset::generation() const noexcept {
  return state_->generation.load(std::memory_order_relaxed);
}

size_t LiveDataset::retired() const noexcept {
  std::lock_guard lock(state_->mutex);
  return state_->retired.size();
}

}  // namespace drydb
