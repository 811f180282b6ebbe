#include "write/page_spool.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <string>

namespace drydb::detail {

result<int> open_unlinked_temp(const std::filesystem::path& dir, std::string_view stem) {
  // O_TMPFILE makes a file with no name at all, so no kill can leave one behind. Where the file
  // system lacks it, a named file unlinked at once (a kill in between leaves it).
  int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0) return fd;
  if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
    return io_error("cannot create a temp file in '" + dir.string() + "'", errno);
  std::string pattern = (dir / (std::string(stem) + "-XXXXXX")).string();
  fd = ::mkostemp(pattern.data(), O_CLOEXEC);
  if (fd < 0) return io_error("cannot create a temp file in '" + dir.string() + "'", errno);
  ::unlink(pattern.c_str());
  return fd;
}

status write_exact(int fd, uint64_t offset, std::span<const std::byte> bytes, const char* what) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n =
        ::pwrite(fd, bytes.data() + done, bytes.size() - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return io_error(what, errno);
    done += static_cast<size_t>(n);
  }
  return {};
}

status read_exact(int fd, uint64_t offset, std::span<std::byte> dst, const char* what) {
  size_t done = 0;
  while (done < dst.size()) {
    ssize_t n =
        ::pread(fd, dst.data() + done, dst.size() - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return io_error(what, errno);
    if (n == 0) return Error(errc::io_error, std::string(what) + ": the file ended early");
    done += static_cast<size_t>(n);
  }
  return {};
}

result<std::unique_ptr<PageSpool>> PageSpool::create(const std::filesystem::path& dir) {
  auto fd = open_unlinked_temp(dir, "drydb-pages");
  if (!fd) return std::move(fd).error();
  return std::unique_ptr<PageSpool>(new PageSpool(*fd));
}

PageSpool::~PageSpool() {
  ::close(fd_);
}

status PageSpool::write_at(uint64_t offset, std::span<const std::byte> bytes) {
  return write_exact(fd_, offset, bytes, "cannot write the page spool");
}

status PageSpool::read_at(uint64_t offset, std::span<std::byte> dst) const {
  return read_exact(fd_, offset, dst, "cannot read the page spool");
}

}  // namespace drydb::detail
