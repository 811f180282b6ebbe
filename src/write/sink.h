// Where the builder writes: positional writes into a file or a byte vector.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "drydb/result.h"
#include "format/io_error.h"
#include "platform/file.h"

namespace drydb::detail {

class Sink {
 public:
  virtual ~Sink() = default;
  virtual status write_at(uint64_t offset, std::span<const std::byte> bytes) = 0;
};

class MemorySink final : public Sink {
 public:
  status write_at(uint64_t offset, std::span<const std::byte> bytes) override;
  std::vector<std::byte>& bytes() { return bytes_; }

 private:
  std::vector<std::byte> bytes_;
};

// A temp file beside the target; commit() makes it the target atomically
// (sync, rename, sync of the folder: platform/file.h). Destroying an uncommitted
// sink removes the temp file, so a failed build leaves the target as it was. The
// target is the path given or, through symlinks, the file they name; one that
// exists and is not a regular file (a device, FIFO, socket, folder) is refused.
//
// Stale temp files: a build that is killed (SIGKILL, power loss) cannot remove
// its temp file, `.<name>.tmp-XXXXXX` beside the target. The sink holds its temp
// file (platform::create_held_temp: an flock, a byte-range lock on Windows) from
// creation until just after the rename, and create() first removes every
// `.<name>.tmp-*` file of the same target that no process holds: the system
// drops a dead process's holds, so a leftover of a killed build is removed by
// the next build to the same target, while the temp file of a build still
// running (in this or another process) is left alone.
class AtomicFileSink final : public Sink {
 public:
  static result<std::unique_ptr<AtomicFileSink>> create(const std::filesystem::path& path);
  ~AtomicFileSink() override;
  status write_at(uint64_t offset, std::span<const std::byte> bytes) override;
  status commit();
  // The temp file, open for writing; no file after commit().
  NativeFile native_file() const noexcept { return temp_.file.native(); }
  const std::filesystem::path& target() const noexcept { return target_; }

 private:
  // Removes the temp files of `target` that no live build holds (see above).
  static void remove_stale_temp_files(const std::filesystem::path& dir, const std::string& prefix);
  AtomicFileSink(platform::HeldTemp temp, std::filesystem::path target)
      : temp_(std::move(temp)), target_(std::move(target)) {}
  platform::HeldTemp temp_;
  std::filesystem::path target_;
  bool committed_ = false;
};

}  // namespace drydb::detail
