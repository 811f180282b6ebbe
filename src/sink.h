// Where the builder writes: positional writes into a file or a byte vector.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "drydb/result.h"

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
// (fsync, rename, fsync of the folder). Destroying an uncommitted sink removes
// the temp file, so a failed build leaves the target as it was.
class AtomicFileSink final : public Sink {
 public:
  static result<std::unique_ptr<AtomicFileSink>> create(const std::filesystem::path& target);
  ~AtomicFileSink() override;
  status write_at(uint64_t offset, std::span<const std::byte> bytes) override;
  status commit();

 private:
  mode_t target_mode() const;
  AtomicFileSink(int fd, std::filesystem::path target, std::filesystem::path temp)
      : fd_(fd), target_(std::move(target)), temp_(std::move(temp)) {}
  int fd_;
  std::filesystem::path target_;
  std::filesystem::path temp_;
  bool committed_ = false;
};

// "what: strerror(errno)" as an io_error.
Error io_error(const std::string& what, int err);

}  // namespace drydb::detail
