// drydb/atomic_file.h: a file written whole or not at all, as the builder writes a database.
//
//   auto file = drydb::AtomicFile::create("out.jsonl");   // a temp file beside it
//   ... write through file->native_file() or file->write_at(...) ...
//   file->commit();                                        // fsync, rename, fsync the folder
//
// The bytes go to a temp file beside the target (`.NAME.tmp-XXXXXX`), which commit() syncs and
// renames over it, then syncs the folder: a reader sees the old file or the new one, never part
// of one, and a committed file survives a crash. Destroyed without commit(), the temp file is
// removed and the target is untouched. A writer killed before it could remove its temp file
// (SIGKILL, power loss) leaves it behind; the next AtomicFile (or build) to the same target
// removes every such leftover that no live writer holds (each holds a lock on its own).
// The target is the path given or, through symlinks, the file they name; one that exists and is
// not a regular file (a FIFO, a device, a folder) is refused: write those in place instead.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>

#include "drydb/result.h"
#include "drydb/storage.h"  // NativeFile

namespace drydb {

namespace detail {
class AtomicFileSink;
}

class AtomicFile {
 public:
  // Fails with errc::invalid_argument when the target exists and is not a regular file (or
  // symlinks lead nowhere after 40 hops), errc::io_error when it cannot be inspected or the temp
  // file cannot be made. A target that does not exist yet is fine.
  static result<AtomicFile> create(const std::filesystem::path& path);

  AtomicFile(AtomicFile&&) noexcept;
  AtomicFile& operator=(AtomicFile&&) noexcept;
  ~AtomicFile();

  // The temp file as the system names it (a descriptor, close-on-exec; a HANDLE on Windows),
  // open for writing, for code that writes through one or a stdio stream of its own (fdopen of
  // a dup). Valid until commit().
  NativeFile native_file() const noexcept;
#ifndef _WIN32
  // The temp file's descriptor: native_file() on POSIX systems.
  int fd() const noexcept {
    return native_file();
  }
#endif
  // Writes `bytes` at `offset` of the temp file, whole (retrying short writes).
  status write_at(uint64_t offset, std::span<const std::byte> bytes);
  // The file the commit replaces (symlinks followed).
  const std::filesystem::path& target() const noexcept;
  // Gives the file the replaced file's permissions (else 0666 less the umask), syncs it, renames
  // it over the target and syncs the folder. After an error before the rename the target is as
  // it was; an error syncing the folder comes after the rename (the new file is complete).
  // At most once. A moved-from AtomicFile may only be destroyed or assigned to.
  status commit();

 private:
  explicit AtomicFile(std::unique_ptr<detail::AtomicFileSink> sink) noexcept;
  std::unique_ptr<detail::AtomicFileSink> sink_;
};

}  // namespace drydb
