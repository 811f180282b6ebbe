// Storage back ends and the custom-loader seam.
//
// A database reads its file through a Storage: mmap (the default for files),
// pread, the file read whole into memory at open (StorageKind::memory), caller
// memory (open_memory), or a custom implementation, the
// counterpart of a game engine's own asset loader. A PageAllocator decides
// where cached page memory lives (an engine's native allocator, say).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
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

// Opens `path` read-only (no lock or sidecar file is created).
result<std::unique_ptr<Storage>> open_mmap_storage(const std::filesystem::path& path);
result<std::unique_ptr<Storage>> open_pread_storage(const std::filesystem::path& path);

// An open file as the system names it: a descriptor on POSIX systems, a HANDLE
// on Windows.
#ifdef _WIN32
using NativeFile = void*;
#else
using NativeFile = int;
#endif

// The call pread storage reads its file through: up to dst.size() bytes of
// `file` at `offset` into dst, returning the count read (0 at the end of the
// file) or -1 with the system's error set (errno, as ::pread does; on Windows
// the thread's last error, as ReadFile does). Called concurrently from many
// threads. A wrapper may count, throttle or inject faults; the storage retries
// EINTR and reads the rest after a short count, and reports any other failure
// as errc::io_error and a count of 0 as errc::truncated.
using PreadFunction =
    std::function<int64_t(NativeFile file, std::span<std::byte> dst, uint64_t offset)>;
// The read an empty PreadFunction stands for (::pread; ReadFile at an offset on
// Windows), for wrappers to call.
int64_t read_file_at(NativeFile file, std::span<std::byte> dst, uint64_t offset);
// pread storage reading through `read` (empty: read_file_at).
result<std::unique_ptr<Storage>> open_pread_storage(const std::filesystem::path& path,
                                                    PreadFunction read);
// The file read whole at open into memory of its own (StorageKind::memory; see
// options.h), through `read` (empty: read_file_at) as pread storage reads.
result<std::unique_ptr<Storage>> open_loaded_storage(const std::filesystem::path& path,
                                                     PreadFunction read = {});

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
