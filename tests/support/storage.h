// The one in-memory storage of the tests and fuzz targets, and a checking page allocator (free of
// GoogleTest): a Storage over memory that goes through the page cache and can fail reads (and
// open_cached, which opens bytes through it), the Backends a test opens a file through, and a
// PageAllocator that checks and counts what passes through it and can fail allocations.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <mutex>
#include <new>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>

#include "drydb/drydb.h"
#include "names.h"

namespace drydb_test {

using Bytes = std::span<const std::byte>;

// A Storage over bytes the caller keeps alive, read through read_at only (mapped() is empty), so
// every page goes through the page cache as with pread. Counts reads and can fail them: every
// n-th read, or every read that touches a chosen page.
class MemoryStorage : public drydb::Storage {
 public:
  explicit MemoryStorage(Bytes bytes, uint32_t page_size = 512)
      : bytes_(bytes), page_size_(page_size) {}
  uint64_t size() const override { return bytes_.size(); }
  drydb::status read_at(uint64_t offset, std::span<std::byte> dst) const override {
    const uint64_t n = reads.fetch_add(1, std::memory_order_relaxed) + 1;
    const uint64_t every = fail_every.load(std::memory_order_relaxed);
    if (every != 0 && n % every == 0)
      return drydb::Error(drydb::errc::io_error,
                          "injected read failure number " + std::to_string(n));
    const uint64_t fail = fail_page.load(std::memory_order_relaxed);
    if (fail != 0 && !dst.empty()) {
      const uint64_t first = offset / page_size_, last = (offset + dst.size() - 1) / page_size_;
      if (fail >= first && fail <= last)
        return drydb::Error(drydb::errc::io_error,
                            "injected read failure at page " + std::to_string(fail));
    }
    if (offset > bytes_.size() || dst.size() > bytes_.size() - offset)
      return drydb::Error(drydb::errc::truncated, "MemoryStorage: read past the end");
    if (!dst.empty()) std::memcpy(dst.data(), bytes_.data() + offset, dst.size());
    return {};
  }

  Bytes bytes() const { return bytes_; }

  mutable std::atomic<uint64_t> reads{0};  // read_at calls, failed ones included
  std::atomic<uint64_t> fail_page{0};      // 0 = no failure (page 0 is read at open only)
  std::atomic<uint64_t> fail_every{0};     // fail every n-th read; 0 = never

 private:
  Bytes bytes_;
  uint32_t page_size_;
};

// Opens `bytes` through a MemoryStorage, so through the page cache, with a cache of `cache_bytes`
// and page memory from `allocator` (nullptr: operator new).
inline drydb::result<drydb::ReadOnlyDatabase> open_cached(
    Bytes bytes, size_t cache_bytes, drydb::PageAllocator* allocator = nullptr) {
  return drydb::ReadOnlyDatabase::open_storage(
      std::make_unique<MemoryStorage>(bytes),
      {.page_cache_bytes = cache_bytes, .allocator = allocator});
}

// ---- the ways a test opens a file -------------------------------------------------------------

// Every way the reader reads a file: mapped; with pread through a page cache that is small (every
// query evicts) or large (the whole file stays); the caller's bytes in place (open_memory); the
// file read whole at open (StorageKind::memory); a MemoryStorage (custom storage) through a small
// or large cache.
enum class Backend { mmap, pread_small, pread_large, memory, loaded, custom_small, custom_large };

inline constexpr std::array<const char*, 7> kBackendNames = {
    "mmap",   "pread_small_cache",  "pread_large_cache", "memory",
    "loaded", "custom_small_cache", "custom_large_cache"};
static_assert(names_every_value(kBackendNames, Backend::custom_large));

inline const char* backend_name(Backend b) {
  return name_in(kBackendNames, b);
}

// A file as the backends open it: by its path, or its bytes (memory and custom; kept alive by the
// caller while the database lives).
struct BackendFile {
  std::filesystem::path path;
  Bytes bytes;
};

struct BackendOptions {
  size_t small_cache = 8 * 512;  // the small caches' bytes; a large cache holds twice the file
  drydb::PageAllocator* allocator = nullptr;  // the caches' page memory (nullptr: operator new)
  drydb::Executor* executor = nullptr;        // the async queries' (nullptr: the default pool)
  MemoryStorage** storage = nullptr;          // custom: set to the database's MemoryStorage
};

inline drydb::result<drydb::ReadOnlyDatabase> open_backend(Backend b, const BackendFile& file,
                                                           const BackendOptions& o = {}) {
  using drydb::ReadOnlyDatabase;
  using drydb::StorageKind;
  const size_t large_cache = 2 * file.bytes.size();
  switch (b) {
    case Backend::mmap:
      return ReadOnlyDatabase::open(file.path,
                                    {.storage = StorageKind::mmap, .executor = o.executor});
    case Backend::pread_small:
    case Backend::pread_large:
      return ReadOnlyDatabase::open(
          file.path, {.storage = StorageKind::pread,
                      .page_cache_bytes = b == Backend::pread_small ? o.small_cache : large_cache,
                      .allocator = o.allocator,
                      .executor = o.executor});
    case Backend::memory:
      return ReadOnlyDatabase::open_memory(file.bytes, {.executor = o.executor});
    case Backend::loaded:
      return ReadOnlyDatabase::open(file.path,
                                    {.storage = StorageKind::memory, .executor = o.executor});
    case Backend::custom_small:
    case Backend::custom_large: {
      auto storage = std::make_unique<MemoryStorage>(file.bytes);
      if (o.storage != nullptr) *o.storage = storage.get();
      return ReadOnlyDatabase::open_storage(
          std::move(storage),
          {.page_cache_bytes = b == Backend::custom_small ? o.small_cache : large_cache,
           .allocator = o.allocator,
           .executor = o.executor});
    }
  }
  return drydb::Error(drydb::errc::invalid_argument, "no such backend");
}

// A PageAllocator that checks and counts what passes through it: every deallocate must match a
// live allocate of the same pointer, size and alignment (a mismatch is counted and the block
// leaked rather than the heap corrupted), and every block must come back aligned. Can fail every
// n-th allocation.
class CountingAllocator final : public drydb::PageAllocator {
 public:
  std::byte* allocate(size_t size, size_t alignment) override {
    const uint64_t every = fail_every.load(std::memory_order_relaxed);
    if (every != 0 && attempts_.fetch_add(1, std::memory_order_relaxed) % every == every - 1)
      return nullptr;  // an injected allocation failure
    auto* p =
        static_cast<std::byte*>(::operator new (size, std::align_val_t{alignment}, std::nothrow));
    if (p == nullptr) return nullptr;
    std::lock_guard lock(mu_);
    ++allocations_;
    live_bytes_ += size;
    peak_bytes_ = std::max(peak_bytes_.load(), live_bytes_.load());
    if (reinterpret_cast<uintptr_t>(p) % alignment != 0) ++misaligned_;
    live_[p] = {size, alignment};
    return p;
  }
  void deallocate(std::byte* p, size_t size, size_t alignment) override {
    {
      std::lock_guard lock(mu_);
      ++deallocations_;
      auto it = live_.find(p);
      if (it == live_.end()) {
        ++bad_frees_;  // a double free or a foreign pointer: do not touch it
        return;
      }
      if (it->second.first != size || it->second.second != alignment) {
        ++size_mismatches_;  // leak it rather than free it with the wrong size or alignment
        return;
      }
      live_.erase(it);
      live_bytes_ -= size;
    }
    ::operator delete (p, std::align_val_t{alignment});
  }

  uint64_t allocations() const { return allocations_; }
  uint64_t deallocations() const { return deallocations_; }
  size_t live_bytes() const { return live_bytes_; }
  size_t peak_bytes() const { return peak_bytes_; }
  uint64_t bad_frees() const { return bad_frees_; }
  uint64_t size_mismatches() const { return size_mismatches_; }
  // Misaligned blocks, frees of unknown blocks and mismatched frees.
  uint64_t errors() const { return misaligned_ + bad_frees_ + size_mismatches_; }
  size_t live_blocks() const {
    std::lock_guard lock(mu_);
    return live_.size();
  }

  // Fail every n-th allocation (return nullptr); 0 = never.
  std::atomic<uint64_t> fail_every{0};

 private:
  mutable std::mutex mu_;  // guards live_; the counters change under it too
  std::unordered_map<std::byte*, std::pair<size_t, size_t>> live_;  // size, alignment
  std::atomic<uint64_t> attempts_{0};
  std::atomic<uint64_t> allocations_{0}, deallocations_{0}, misaligned_{0}, bad_frees_{0},
      size_mismatches_{0};
  std::atomic<size_t> live_bytes_{0}, peak_bytes_{0};
};

}  // namespace drydb_test
