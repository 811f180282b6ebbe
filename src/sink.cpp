#include "sink.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

namespace drydb::detail {

Error io_error(const std::string& what, int err) {
  return Error(errc::io_error, what + ": " + std::strerror(err));
}

status MemorySink::write_at(uint64_t offset, std::span<const std::byte> bytes) {
  if (offset + bytes.size() > bytes_.size()) bytes_.resize(offset + bytes.size());
  std::copy(bytes.begin(), bytes.end(), bytes_.begin() + static_cast<ptrdiff_t>(offset));
  return {};
}

result<std::unique_ptr<AtomicFileSink>> AtomicFileSink::create(
    const std::filesystem::path& target) {
  std::filesystem::path dir = target.parent_path();
  if (dir.empty()) dir = ".";
  // The temp name starts with the target's name so an operator can tell what
  // a leftover belongs to; mkstemp makes it unique.
  std::string pattern = (dir / ("." + target.filename().string() + ".tmp-XXXXXX")).string();
  int fd = ::mkstemp(pattern.data());
  if (fd < 0) return io_error("cannot create a temp file in '" + dir.string() + "'", errno);
  return std::unique_ptr<AtomicFileSink>(new AtomicFileSink(fd, target, pattern));
}

AtomicFileSink::~AtomicFileSink() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_) ::unlink(temp_.c_str());
}

status AtomicFileSink::write_at(uint64_t offset, std::span<const std::byte> bytes) {
  const std::byte* p = bytes.data();
  size_t left = bytes.size();
  while (left > 0) {
    ssize_t n = ::pwrite(fd_, p, left, static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR) continue;
      return io_error("cannot write '" + temp_.string() + "'", errno);
    }
    p += n;
    left -= static_cast<size_t>(n);
    offset += static_cast<uint64_t>(n);
  }
  return {};
}

// The mode the finished file gets: the replaced file's, else what open(2)
// would give a new file (0666 less the umask). The umask is read from
// /proc/self/status because umask(2) can only be read by changing it, which
// would race with other threads.
mode_t AtomicFileSink::target_mode() const {
  struct stat st;
  if (::stat(target_.c_str(), &st) == 0) return st.st_mode & 07777;
  mode_t mask = 022;
  if (FILE* f = std::fopen("/proc/self/status", "r")) {
    char line[256];
    while (std::fgets(line, sizeof line, f)) {
      unsigned value;
      if (std::sscanf(line, "Umask: %o", &value) == 1) {
        mask = static_cast<mode_t>(value);
        break;
      }
    }
    std::fclose(f);
  }
  return 0666 & ~mask;
}

status AtomicFileSink::commit() {
  if (::fchmod(fd_, target_mode()) != 0)
    return io_error("cannot chmod '" + temp_.string() + "'", errno);
  if (::fsync(fd_) != 0) return io_error("cannot fsync '" + temp_.string() + "'", errno);
  if (::close(fd_) != 0) {
    fd_ = -1;
    return io_error("cannot close '" + temp_.string() + "'", errno);
  }
  fd_ = -1;
  if (::rename(temp_.c_str(), target_.c_str()) != 0)
    return io_error("cannot rename the temp file to '" + target_.string() + "'", errno);
  committed_ = true;
  std::filesystem::path dir = target_.parent_path();
  if (dir.empty()) dir = ".";
  // The rename is durable once the folder is synced; a failure here cannot
  // undo the rename, so it is reported while the file is complete.
  int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (dfd < 0) return io_error("cannot open folder '" + dir.string() + "' to fsync it", errno);
  int rc = ::fsync(dfd);
  int err = errno;
  ::close(dfd);
  if (rc != 0) return io_error("cannot fsync folder '" + dir.string() + "'", err);
  return {};
}

}  // namespace drydb::detail
