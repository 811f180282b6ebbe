// The page cache for storage that is not mapped (pread, custom loaders).
//
// One slot per page number, allocated at open, so a lookup is an index, not a
// hash probe, and slots never move or die while the database lives (about
// 24 bytes per page of the file). A slot's `refs` is its whole state:
//   0            not resident
//   kPermanent   resident for the database's life: read with no reference
//                count (internal pages; every page when the cache can hold
//                the whole file)
//   1 + holders  resident and evictable; 1 is the cache's own reference
// A hit on a permanent page is one acquire load: no lock, no read-modify-write.
// A hit on an evictable page is one compare-and-swap (refusing to revive 0),
// released by the holder's handle.
//
// Eviction is CLOCK (one "referenced" bit per slot, swept by a hand). Why not
// LRU: LRU reorders a list on every hit, which needs a lock or atomics on
// shared lines in the read path; CLOCK's hit path writes only a flag that is
// usually already set, and approximates LRU well for B+tree leaves (the hot
// inner levels are permanent anyway). The miss path takes a mutex.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "drydb/detail/config.h"

namespace drydb::detail {

inline constexpr uint32_t kPermanent = 0x8000'0000u;

struct PageSlot {
  std::atomic<uint32_t> refs{0};
  std::atomic<uint8_t> referenced{0};
  size_t bytes = 0;  // size of `data`, for accounting (written under the miss mutex)
  std::atomic<const std::byte*> data{nullptr};

  // Takes a reference if resident. Returns the page bytes, or nullptr on a
  // miss. *pin is set to this slot when the caller must release() later.
  DRYDB_ALWAYS_INLINE const std::byte* try_acquire(PageSlot** pin) noexcept {
    uint32_t r = refs.load(std::memory_order_acquire);
    if (r & kPermanent) {
      *pin = nullptr;
      return data.load(std::memory_order_relaxed);
    }
    while (r != 0) {
      if (refs.compare_exchange_weak(r, r + 1, std::memory_order_acquire,
                                     std::memory_order_acquire)) {
        if (!referenced.load(std::memory_order_relaxed))
          referenced.store(1, std::memory_order_relaxed);
        *pin = this;
        return data.load(std::memory_order_relaxed);
      }
      if (r & kPermanent) {
        *pin = nullptr;
        return data.load(std::memory_order_relaxed);
      }
    }
    return nullptr;
  }

  void release() noexcept { refs.fetch_sub(1, std::memory_order_release); }
};

// Releases a pin if there is one.
inline void unpin(PageSlot* pin) noexcept {
  if (pin) pin->release();
}

}  // namespace drydb::detail
