// The page spool of filtered builds, in an unnamed temp file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>

#include "drydb/result.h"
#include "platform/file.h"
#include "write/sink.h"

namespace drydb::detail {

// Where a filtered build writes its pages unfiltered first: the filters may
// need a sample of every page (a trained dictionary) before encoding any.
class PageSpool final : public Sink {
 public:
  static result<std::unique_ptr<PageSpool>> create(const std::filesystem::path& dir);
  status write_at(uint64_t offset, std::span<const std::byte> bytes) override;
  status read_at(uint64_t offset, std::span<std::byte> dst) const;

 private:
  explicit PageSpool(platform::File file) : file_(std::move(file)) {}
  platform::File file_;  // an unnamed temp file
};

}  // namespace drydb::detail
