// drydb::AtomicFile (atomic_file.h): the builder's AtomicFileSink, for anyone's files.
#include "drydb/atomic_file.h"

#include <utility>

#include "write/sink.h"

namespace drydb {

AtomicFile::AtomicFile(std::unique_ptr<detail::AtomicFileSink> sink) noexcept
    : sink_(std::move(sink)) {}
AtomicFile::AtomicFile(AtomicFile&&) noexcept = default;
AtomicFile& AtomicFile::operator=(AtomicFile&&) noexcept = default;
AtomicFile::~AtomicFile() = default;

result<AtomicFile> AtomicFile::create(const std::filesystem::path& path) {
  auto sink = detail::AtomicFileSink::create(path);
  if (!sink) return std::move(sink.error());
  return AtomicFile(std::move(*sink));
}

NativeFile AtomicFile::native_file() const noexcept {
  return sink_->native_file();
}

status AtomicFile::write_at(uint64_t offset, std::span<const std::byte> bytes) {
  return sink_->write_at(offset, bytes);
}

const std::filesystem::path& AtomicFile::target() const noexcept {
  return sink_->target();
}

status AtomicFile::commit() {
  return sink_->commit();
}

}  // namespace drydb
