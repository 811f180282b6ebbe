#include "write/sink.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

#include "write/reach_build_point.h"

namespace drydb::detail {

status MemorySink::write_at(uint64_t offset, std::span<const std::byte> bytes) {
  if (offset + bytes.size() > bytes_.size()) bytes_.resize(offset + bytes.size());
  std::copy(bytes.begin(), bytes.end(), bytes_.begin() + static_cast<ptrdiff_t>(offset));
  return {};
}

namespace {

// Whether `path` still names the file open as `fd` (it was not removed or replaced).
bool still_named(int fd, const char* path) {
  struct stat by_fd, by_name;
  return ::fstat(fd, &by_fd) == 0 && ::lstat(path, &by_name) == 0 &&
         by_fd.st_dev == by_name.st_dev && by_fd.st_ino == by_name.st_ino;
}

}  // namespace

void AtomicFileSink::remove_stale_temp_files(const std::filesystem::path& dir,
                                             const std::string& prefix) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return;  // best effort: the build reports its own errors
  std::vector<std::string> candidates;
  while (const dirent* e = ::readdir(d)) {
    const std::string_view name(e->d_name);
    // prefix + the 6 characters mkstemp fills in
    if (name.size() == prefix.size() + 6 && name.substr(0, prefix.size()) == prefix)
      candidates.emplace_back(name);
  }
  ::closedir(d);
  for (const std::string& name : candidates) {
    const std::string path = (dir / name).string();
    const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) continue;
    struct stat st;
    // Only regular files, and only those no process holds: a live build keeps its lock.
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && ::flock(fd, LOCK_EX | LOCK_NB) == 0 &&
        still_named(fd, path.c_str()))
      ::unlink(path.c_str());
    ::close(fd);  // drops the lock
  }
}

namespace {

// The file a build to `path` replaces: `path`, or the final target of a
// symlink (the link stays and its target is replaced, as writing through it
// would). Fails when that is something other than a regular file or nothing:
// a device, FIFO, socket or folder is not replaced by a database.
result<std::filesystem::path> replaced_file(const std::filesystem::path& path) {
  std::filesystem::path p = path;
  for (int hops = 0;; ++hops) {
    struct stat st;
    if (::lstat(p.c_str(), &st) != 0) {
      if (errno == ENOENT) return p;
      return io_error("cannot stat '" + p.string() + "'", errno);
    }
    if (S_ISREG(st.st_mode)) return p;
    if (!S_ISLNK(st.st_mode))
      return Error(errc::invalid_argument,
                   "'" + path.string() +
                       "' is not a regular file: a database replaces only a "
                       "regular file (or is a new one)");
    if (hops == 40)
      return Error(errc::invalid_argument, "too many symlinks at '" + path.string() + "'");
    char buf[4096];
    const ssize_t n = ::readlink(p.c_str(), buf, sizeof buf);
    if (n < 0) return io_error("cannot read symlink '" + p.string() + "'", errno);
    const std::filesystem::path link(std::string(buf, static_cast<size_t>(n)));
    p = link.is_absolute() ? link : p.parent_path() / link;
  }
}

}  // namespace

result<std::unique_ptr<AtomicFileSink>> AtomicFileSink::create(const std::filesystem::path& path) {
  auto resolved = replaced_file(path);
  if (!resolved) return std::move(resolved.error());
  const std::filesystem::path& target = *resolved;
  std::filesystem::path dir = target.parent_path();
  if (dir.empty()) dir = ".";
  // The temp name starts with the target's name so an operator (and the next
  // build, which removes stale ones) can tell what a leftover belongs to;
  // mkstemp makes it unique.
  const std::string prefix = "." + target.filename().string() + ".tmp-";
  remove_stale_temp_files(dir, prefix);
  for (int attempt = 0;; ++attempt) {
    std::string pattern = (dir / (prefix + "XXXXXX")).string();
    // Close-on-exec: a child the program starts during the build must not
    // inherit the descriptor (nor, with it, the lock).
    int fd = ::mkostemp(pattern.data(), O_CLOEXEC);
    if (fd < 0) return io_error("cannot create a temp file in '" + dir.string() + "'", errno);
    // The lock marks the file as in use until the sink is done with it. It is
    // not ours yet if another build's cleanup removed the file between mkstemp
    // and flock (it saw an unlocked leftover): make another.
    while (::flock(fd, LOCK_EX) != 0) {
      if (errno != EINTR) {
        const int err = errno;
        ::close(fd);
        ::unlink(pattern.c_str());
        return io_error("cannot lock temp file '" + pattern + "'", err);
      }
    }
    if (still_named(fd, pattern.c_str()))
      return std::unique_ptr<AtomicFileSink>(new AtomicFileSink(fd, target, pattern));
    ::close(fd);
    if (attempt == 100)
      return Error(errc::io_error, "temp files in '" + dir.string() + "' keep disappearing");
  }
}

AtomicFileSink::~AtomicFileSink() {
  // Unlink before close: the lock keeps other builds' cleanup off the file
  // until it is gone.
  if (!committed_) ::unlink(temp_.c_str());
  if (fd_ >= 0) ::close(fd_);
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
  reach_build_point(BuildPoint::synced);
  // Renamed while still open, so the lock keeps other builds' cleanup of stale
  // temp files away from it until it has its final name.
  if (::rename(temp_.c_str(), target_.c_str()) != 0)
    return io_error("cannot rename the temp file to '" + target_.string() + "'", errno);
  committed_ = true;
  // Unlocked before the close, which alone would not drop the lock while a child forked
  // meanwhile (by any thread) still shares the descriptor until its exec: a reader that takes a
  // shared flock, as .NET's File.Open does, would find the new file locked.
  ::flock(fd_, LOCK_UN);
  reach_build_point(BuildPoint::renamed);
  const int close_rc = ::close(fd_);
  const int close_err = errno;
  fd_ = -1;
  // The data was synced before the rename; a close error now is still reported.
  if (close_rc != 0) return io_error("cannot close '" + target_.string() + "'", close_err);
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
