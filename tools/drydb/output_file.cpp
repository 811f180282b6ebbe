#include "output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include <fmt/format.h>

#include "common.h"
#include "render.h"

namespace drydb::cli {

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  return std::filesystem::equivalent(a, b, ec) && !ec;
}

bool is_stdin(const std::string& path) {
  struct stat in, named;
  return ::fstat(0, &in) == 0 && ::stat(path.c_str(), &named) == 0 && S_ISREG(in.st_mode) &&
         in.st_dev == named.st_dev && in.st_ino == named.st_ino;
}

namespace {

[[noreturn]] void fail_errno(const std::string& what, const std::string& path, int err) {
  fail(fmt::format("cannot {} '{}': {}", what, path, std::strerror(err)));
}

}  // namespace

OutputFile::OutputFile(const std::string& path) : path_(path), target_(path) {
  struct stat st;
  const bool exists = ::stat(path.c_str(), &st) == 0;
  if (exists && S_ISDIR(st.st_mode))
    fail(fmt::format("cannot write '{}': it is a directory", path));
  // /dev/stdout, /dev/fd/N, /proc/self/fd/N: an open descriptor's file, as the shell opened it
  // (appending, perhaps), even when that is a regular file.
  const bool named_descriptor = path == "/dev/stdout" || path == "/dev/stderr" ||
                                path.starts_with("/dev/fd/") ||
                                (path.starts_with("/proc/") && path.find("/fd/") != path.npos);
  if ((exists && !S_ISREG(st.st_mode)) || named_descriptor) {
    // In place. A descriptor's regular file appended to: one the shell opened with >> keeps
    // what it holds.
    stream_ = std::fopen(path.c_str(), exists && S_ISREG(st.st_mode) ? "ab" : "wb");
    if (stream_ == nullptr) fail_errno("write", path, errno);
    return;
  }
  // Through symlinks, one at a time, to the file they name (which a dangling link's target
  // makes).
  std::filesystem::path p = path;
  std::error_code ec;
  for (int hops = 0; std::filesystem::is_symlink(std::filesystem::symlink_status(p, ec)); ++hops) {
    if (hops == 40) fail(fmt::format("cannot write '{}': too many symlinks", path));
    const std::filesystem::path link = std::filesystem::read_symlink(p, ec);
    if (ec) fail(fmt::format("cannot resolve '{}': {}", path, ec.message()));
    p = link.is_absolute() ? link : p.parent_path() / link;
  }
  target_ = p.string();
  // A file the user may not write is not replaced behind their back.
  if (::access(target_.c_str(), F_OK) == 0 && ::access(target_.c_str(), W_OK) != 0)
    fail_errno("write", path, errno);
  std::filesystem::path dir = std::filesystem::path(target_).parent_path();
  if (dir.empty()) dir = ".";
  std::string pattern =
      (dir / ("." + std::filesystem::path(target_).filename().string() + ".tmp-XXXXXX")).string();
  const int fd = ::mkostemp(pattern.data(), O_CLOEXEC);
  if (fd < 0) fail_errno("create a temp file in", dir.string(), errno);
  temp_ = pattern;
  stream_ = ::fdopen(fd, "wb");
  if (stream_ == nullptr) {
    const int err = errno;
    ::close(fd);
    ::unlink(temp_.c_str());
    fail_errno("write", temp_, err);
  }
}

OutputFile::~OutputFile() {
  if (stream_ != nullptr) {
    flush_output(stream_);  // which fclose would do, and forgets the stream's write error
    std::fclose(stream_);
  }
  if (!temp_.empty()) ::unlink(temp_.c_str());
}

void OutputFile::commit() {
  std::FILE* f = stream_;
  stream_ = nullptr;
  if (temp_.empty()) {
    // A write that failed earlier fails the command, even when nothing was left to flush.
    const int write_err = flush_output(f);
    const bool closed = std::fclose(f) == 0;
    if (write_err != 0) fail_errno("write", path_, write_err);
    if (!closed) fail_errno("write", path_, errno);
    return;
  }
  // The replaced file's permissions, else what open(2) gives a new file. The
  // tool has one thread: reading the umask by setting it races with nothing.
  mode_t mode;
  if (struct stat st; ::stat(target_.c_str(), &st) == 0) {
    mode = st.st_mode & 07777;
  } else {
    const mode_t mask = ::umask(022);
    ::umask(mask);
    mode = 0666 & ~mask;
  }
  // The errno of the first write that failed, which a flush with nothing left to write (stdio
  // dropped what the failed write held) has not got.
  const int write_err = flush_output(f);
  const bool written = write_err == 0;
  const int fd = ::fileno(f);
  const bool synced = written && ::fchmod(fd, mode) == 0 && ::fsync(fd) == 0;
  const int sync_err = errno;
  const bool closed = std::fclose(f) == 0;
  if (!written) fail_errno("write", path_, write_err);
  if (!synced || !closed) fail_errno("write", path_, synced ? errno : sync_err);
  if (::rename(temp_.c_str(), target_.c_str()) != 0) fail_errno("replace", path_, errno);
  temp_.clear();
}

}  // namespace drydb::cli
