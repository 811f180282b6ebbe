// Unlinked temp files: sorted runs (sorter.cpp) and the page spool of
// filtered builds.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string_view>

#include "drydb/result.h"
#include "write/sink.h"

namespace drydb::detail {

// A new file in `dir` (named <stem>-XXXXXX), unlinked at once: it lives as
// long as the descriptor, so a killed build leaves nothing behind.
result<int> open_unlinked_temp(const std::filesystem::path& dir, std::string_view stem);

// Writes all of `bytes` at `offset` of `fd`; errc::io_error ("what: ...") otherwise.
status write_exact(int fd, uint64_t offset, std::span<const std::byte> bytes, const char* what);
// Reads exactly dst.size() bytes at `offset` of `fd`; errc::io_error otherwise.
status read_exact(int fd, uint64_t offset, std::span<std::byte> dst, const char* what);

// Where a filtered build writes its pages unfiltered first: the filters may
// need a sample of every page (a trained dictionary) before encoding any.
class PageSpool final : public Sink {
 public:
  static result<std::unique_ptr<PageSpool>> create(const std::filesystem::path& dir);
  ~PageSpool() override;
  status write_at(uint64_t offset, std::span<const std::byte> bytes) override;
  status read_at(uint64_t offset, std::span<std::byte> dst) const;

 private:
  explicit PageSpool(int fd) : fd_(fd) {}
  int fd_;
};

}  // namespace drydb::detail
