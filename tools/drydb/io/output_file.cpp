#include "io/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <system_error>
#include <utility>

#include <fmt/format.h>

#include "common.h"
#include "io/render.h"

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

OutputFile::OutputFile(const std::string& path) : path_(path) {
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
  // A file the user may not write is not replaced behind their back (through symlinks).
  if (::access(path.c_str(), F_OK) == 0 && ::access(path.c_str(), W_OK) != 0)
    fail_errno("write", path, errno);
  auto file = AtomicFile::create(path);
  if (!file) fail(file.error().message);  // it names the folder or file
  file_ = std::make_unique<AtomicFile>(std::move(*file));
  // A stream of its own over a duplicate of the temp file's descriptor: closing it leaves the
  // AtomicFile's descriptor (and its lock) for the commit.
  const int fd = ::fcntl(file_->fd(), F_DUPFD_CLOEXEC, 0);
  if (fd < 0) fail_errno("write", path, errno);
  stream_ = ::fdopen(fd, "wb");
  if (stream_ == nullptr) {
    const int err = errno;
    ::close(fd);
    fail_errno("write", path, err);
  }
}

OutputFile::~OutputFile() {
  if (stream_ != nullptr) {
    flush_output(stream_);  // which fclose would do, and forgets the stream's write error
    std::fclose(stream_);
  }
  // An uncommitted file_ removes its temp file.
}

void OutputFile::commit() {
  std::FILE* f = stream_;
  stream_ = nullptr;
  // The errno of the first write that failed, which a flush with nothing left to write (stdio
  // dropped what the failed write held) has not got. A write that failed earlier fails the
  // command, even when nothing was left to flush.
  const int write_err = flush_output(f);
  const bool closed = std::fclose(f) == 0;
  if (write_err != 0) fail_errno("write", path_, write_err);
  if (!closed) fail_errno("write", path_, errno);
  if (file_ == nullptr) return;                                  // written in place
  if (auto st = file_->commit(); !st) fail(st.error().message);  // it names the file
}

}  // namespace drydb::cli
