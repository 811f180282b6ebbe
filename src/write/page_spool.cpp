#include "write/page_spool.h"

namespace drydb::detail {

result<std::unique_ptr<PageSpool>> PageSpool::create(const std::filesystem::path& dir) {
  auto file = platform::create_unnamed_temp(dir, "drydb-pages");
  if (!file) return std::move(file).error();
  return std::unique_ptr<PageSpool>(new PageSpool(std::move(*file)));
}

status PageSpool::write_at(uint64_t offset, std::span<const std::byte> bytes) {
  return file_.write_exact(offset, bytes, "cannot write the page spool");
}

status PageSpool::read_at(uint64_t offset, std::span<std::byte> dst) const {
  return file_.read_exact(offset, dst, "cannot read the page spool");
}

}  // namespace drydb::detail
