// Storage back ends and the custom-loader seam.
//
// A database reads its file through a Storage: mmap (the default for files),
// pread, caller memory (open_memory), or a custom implementation, the
// counterpart of a game engine's own asset loader. A PageAllocator decides
// where cached page memory lives (an engine's native allocator, say).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>

#include "drydb/result.h"

namespace drydb {

class Storage {
 public:
  virtual ~Storage() = default;
  // The file's length in bytes.
  virtual uint64_t size() const = 0;
  // Reads exactly dst.size() bytes at `offset`; a short read is an error.
  // Called concurrently from many threads.
  virtual status read_at(uint64_t offset, std::span<std::byte> dst) const = 0;
  // When the whole file is addressable memory (a mapping, caller memory), its
  // bytes, which must stay valid and unchanged for the storage's life; pages
  // are then read in place with no copy and no cache. Empty otherwise.
  virtual std::span<const std::byte> mapped() const { return {}; }
};

// Opens `path` read-only (O_RDONLY; no lock or sidecar file is created).
result<std::unique_ptr<Storage>> open_mmap_storage(const std::filesystem::path& path);
result<std::unique_ptr<Storage>> open_pread_storage(const std::filesystem::path& path);
// Bytes owned by the caller, who keeps them alive and unchanged while the
// database and anything read from it live.
std::unique_ptr<Storage> memory_storage(std::span<const std::byte> bytes);

// Where the page cache gets page memory. Thread-safe.
class PageAllocator {
 public:
  virtual ~PageAllocator() = default;
  // Returns `size` bytes aligned to `alignment` (a power of two), or nullptr.
  virtual std::byte* allocate(size_t size, size_t alignment) = 0;
  virtual void deallocate(std::byte* p, size_t size, size_t alignment) = 0;
};

}  // namespace drydb
