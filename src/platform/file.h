// The platform layer: every file, mapping, lock, sync and rename the library does goes through
// here, with one implementation for POSIX systems (file_posix.cpp) and one for Windows
// (file_win32.cpp). Paths are std::filesystem paths (UTF-16 on Windows, where the library's
// UTF-8 text is converted when the path is made); errors come back as errc::io_error "what:
// the system's reason" unless a function says otherwise.
//
// What differs between the two, as callers see it (docs/errors.md, "Windows"):
// - A held temp file (create_held_temp) is held by flock(2) on POSIX and by a byte-range lock
//   (LockFileEx) on Windows; either way the system drops a dead process's hold, which is how a
//   later build tells a killed build's leftover from a live build's file.
// - replace_file renames over the target; on Windows a target that some process has open or
//   mapped cannot be replaced (the build fails, the target stays as it was).
// - sync_folder fsyncs a folder on POSIX; on Windows a rename is made durable by MoveFileExW's
//   write-through, and there is nothing to sync.
// - FolderLock locks the folder itself on POSIX and a file `.drydb-lock` inside it on Windows,
//   where folders cannot be locked.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "drydb/result.h"
#include "drydb/storage.h"  // NativeFile, read_file_at

namespace drydb::platform {

// The value of a NativeFile that names no file.
NativeFile no_file() noexcept;

// The calling thread's last system error (errno, or GetLastError() on Windows) as
// errc::io_error "what: reason".
Error last_error(const std::string& what);

// Whether the calling thread's last system error says a signal interrupted the call (EINTR),
// which is then retried. Never on Windows.
bool last_error_is_interrupt() noexcept;

// Closes `file` (close, CloseHandle); false, with the thread's last system error set, when the
// close failed.
bool close_native(NativeFile file) noexcept;

// An open file, closed when destroyed.
class File {
 public:
  File() noexcept : native_(no_file()) {}
  explicit File(NativeFile native) noexcept : native_(native) {}
  File(File&& other) noexcept : native_(other.release()) {}
  File& operator=(File&& other) noexcept {
    if (this != &other) {
      if (is_open()) close_native(native_);
      native_ = other.release();
    }
    return *this;
  }
  File(const File&) = delete;
  File& operator=(const File&) = delete;
  ~File() {
    if (is_open()) close_native(native_);
  }

  bool is_open() const noexcept { return native_ != no_file(); }
  NativeFile native() const noexcept { return native_; }
  NativeFile release() noexcept {
    const NativeFile n = native_;
    native_ = no_file();
    return n;
  }
  // Closes the file now, reporting a failure (a write the system deferred can fail here).
  status close(const std::string& what) {
    if (!close_native(release())) return last_error(what);
    return {};
  }

  // Reads exactly dst.size() bytes at `offset`; errc::io_error "what: ..." when the file ends
  // first or a read fails.
  status read_exact(uint64_t offset, std::span<std::byte> dst, const std::string& what) const;
  // Writes all of `bytes` at `offset`, retrying short writes.
  status write_exact(uint64_t offset, std::span<const std::byte> bytes,
                     const std::string& what) const;
  // Makes what was written durable (fsync, FlushFileBuffers).
  status sync(const std::string& what) const;

 private:
  NativeFile native_;
};

// Opens an existing regular file to read, and its size. Anything else (a folder, a FIFO, a
// device) is refused with errc::invalid_argument, without blocking on it.
result<File> open_for_reading(const std::filesystem::path& path, uint64_t* size);

// A new file in `dir` that has no name, or loses it at once (O_TMPFILE, else a named file
// unlinked; on Windows, deleted when closed): it lives as long as the File, and a killed
// process leaves nothing behind (except on a POSIX file system without O_TMPFILE, if killed
// between the create and the unlink). `stem` starts the name while it has one.
result<File> create_unnamed_temp(const std::filesystem::path& dir, std::string_view stem);

// A new file in `dir` named `prefix` and six random characters, which this process holds until
// release_hold() or the File's close: remove_if_unheld() leaves a held file alone, and the
// system drops the hold when the process dies.
struct HeldTemp {
  File file;
  std::filesystem::path path;
};
result<HeldTemp> create_held_temp(const std::filesystem::path& dir, const std::string& prefix);
// The number of random characters create_held_temp adds to the prefix.
inline constexpr size_t kHeldTempSuffix = 6;
// Removes the held temp file `temp` (not committed): it is gone before the hold is dropped.
void remove_held_temp(HeldTemp& temp);
// Drops the hold on a held temp file while it stays open (after it was renamed over its
// target, so that no process that inherited the file keeps a hold on the finished file).
void release_hold(const File& file);
// Removes `path` when it is a regular file that no live process holds; best effort, silent.
void remove_if_unheld(const std::filesystem::path& path);

// Gives `file`, which will replace `replaced`, the permissions `replaced` has, or those a new
// file gets (0666 less the umask) when it does not exist. Nothing on Windows, where a file
// takes its folder's permissions.
status set_replacement_mode(const File& file, const std::filesystem::path& replaced,
                            const std::string& what);

// Renames `from` over `to` in one step: a reader sees the old file or the new one. `from` may be
// open (a held temp file). rename(2); MoveFileExW with MOVEFILE_REPLACE_EXISTING and
// MOVEFILE_WRITE_THROUGH on Windows.
status replace_file(const std::filesystem::path& from, const std::filesystem::path& to,
                    const std::string& what);
// Makes the renames done in `dir` durable: fsync of the folder; nothing on Windows.
status sync_folder(const std::filesystem::path& dir);

// An exclusive lock between processes (and between threads that each take one) on a folder,
// held while the object lives; take() waits for it.
class FolderLock {
 public:
  static result<FolderLock> take(const std::filesystem::path& folder);
  FolderLock(FolderLock&& other) noexcept = default;
  FolderLock& operator=(FolderLock&&) = delete;
  ~FolderLock();

 private:
  explicit FolderLock(File file) noexcept : file_(std::move(file)) {}
  File file_;
};

// Memory the library maps or reserves: a read-only mapping of a whole file, or anonymous memory
// a file is loaded into. Released when destroyed.
class Region {
 public:
  Region() noexcept = default;
  Region(Region&& other) noexcept { take(other); }
  Region& operator=(Region&& other) noexcept {
    if (this != &other) {
      release();
      take(other);
    }
    return *this;
  }
  Region(const Region&) = delete;
  Region& operator=(const Region&) = delete;
  ~Region() { release(); }

  // A read-only, shared mapping of the first `size` bytes (> 0) of `file`.
  static result<Region> map_file(const File& file, uint64_t size, const std::string& what);
  // `size` (> 0) bytes of zeroed, writable memory in whole pages; when `size` fills a huge page
  // (2 MiB) it starts on a huge page boundary, and on Linux transparent huge pages are asked
  // for (advice only). Fails with errc::out_of_memory.
  static result<Region> reserve(uint64_t size, const std::string& what);
  // Makes a reserved region read-only (errc::out_of_memory or errc::io_error otherwise).
  status make_read_only(const std::string& what);

  std::byte* data() const noexcept { return data_; }
  uint64_t size() const noexcept { return size_; }

 private:
  enum class Kind : uint8_t { none, mapping, reserved };
  // Gives the memory back to the system (munmap; UnmapViewOfFile or VirtualFree).
  void release() noexcept;
  // Takes `other`'s memory, leaving it empty.
  void take(Region& other) noexcept {
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    span_ = std::exchange(other.span_, 0);
    kind_ = std::exchange(other.kind_, Kind::none);
  }
  std::byte* data_ = nullptr;
  uint64_t size_ = 0;  // the bytes asked for
  uint64_t span_ = 0;  // the bytes the system holds from data_ (whole pages)
  Kind kind_ = Kind::none;
};

}  // namespace drydb::platform
