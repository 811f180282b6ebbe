// The platform layer on POSIX systems (file.h). Linux-only calls stay behind their own guards
// (O_TMPFILE, MADV_HUGEPAGE, /proc), so the same file builds on macOS and the BSDs.
#include "platform/file.h"

#ifndef _WIN32

#include <fcntl.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

#include "format/io_error.h"

namespace drydb {

int64_t read_file_at(NativeFile file, std::span<std::byte> dst, uint64_t offset) {
  return ::pread(file, dst.data(), dst.size(), static_cast<off_t>(offset));
}

namespace platform {
namespace {

// Whether `path` still names the file open as `fd` (it was not removed or replaced).
bool still_named(int fd, const std::filesystem::path& path) {
  struct stat by_fd, by_name;
  return ::fstat(fd, &by_fd) == 0 && ::lstat(path.c_str(), &by_name) == 0 &&
         by_fd.st_dev == by_name.st_dev && by_fd.st_ino == by_name.st_ino;
}

// flock(2), retried when a signal interrupts it.
int flock_retrying(int fd, int operation) {
  int rc;
  do
    rc = ::flock(fd, operation);
  while (rc != 0 && errno == EINTR);
  return rc;
}

// The umask, read from /proc/self/status where there is one, because umask(2) can only be
// read by changing it, which would race with other threads; 022 elsewhere.
mode_t current_umask() {
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
  return mask;
}

}  // namespace

NativeFile no_file() noexcept {
  return -1;
}

Error last_error(const std::string& what) {
  return detail::io_error(what, errno);
}

bool last_error_is_interrupt() noexcept {
  return errno == EINTR;
}

bool close_native(NativeFile file) noexcept {
  return ::close(file) == 0;
}

status File::read_exact(uint64_t offset, std::span<std::byte> dst, const std::string& what) const {
  size_t done = 0;
  while (done < dst.size()) {
    const ssize_t n =
        ::pread(native_, dst.data() + done, dst.size() - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return last_error(what);
    if (n == 0) return Error(errc::io_error, what + ": the file ended early");
    done += static_cast<size_t>(n);
  }
  return {};
}

status File::write_exact(uint64_t offset, std::span<const std::byte> bytes,
                         const std::string& what) const {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::pwrite(native_, bytes.data() + done, bytes.size() - done,
                               static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return last_error(what);
    done += static_cast<size_t>(n);
  }
  return {};
}

status File::sync(const std::string& what) const {
  if (::fsync(native_) != 0) return last_error(what);
  return {};
}

result<File> open_for_reading(const std::filesystem::path& path, uint64_t* size) {
  // Non-blocking: opening a FIFO would otherwise wait for a writer before its type could be
  // checked. Reads of a regular file ignore the flag.
  File file(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  if (!file.is_open()) return last_error("cannot open '" + path.string() + "'");
  struct stat st;
  if (::fstat(file.native(), &st) != 0) return last_error("cannot stat '" + path.string() + "'");
  if (!S_ISREG(st.st_mode))
    return Error(errc::invalid_argument, "'" + path.string() + "' is not a regular file");
  // Blocking again for the reads (a file under a lease or lock could otherwise fail them with
  // EAGAIN).
  if (const int flags = ::fcntl(file.native(), F_GETFL);
      flags == -1 || ::fcntl(file.native(), F_SETFL, flags & ~O_NONBLOCK) == -1)
    return last_error("cannot set up '" + path.string() + "'");
  *size = static_cast<uint64_t>(st.st_size);
  return file;
}

result<File> create_unnamed_temp(const std::filesystem::path& dir, std::string_view stem) {
#ifdef O_TMPFILE
  // O_TMPFILE makes a file with no name at all, so no kill can leave one behind.
  File file(::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600));
  if (file.is_open()) return file;
  // Where the file system lacks it, a named file unlinked at once (below).
  if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
    return last_error("cannot create a temp file in '" + dir.string() + "'");
#endif
  std::string pattern = (dir / (std::string(stem) + "-XXXXXX")).string();
  File named(::mkostemp(pattern.data(), O_CLOEXEC));
  if (!named.is_open()) return last_error("cannot create a temp file in '" + dir.string() + "'");
  ::unlink(pattern.c_str());
  return named;
}

result<HeldTemp> create_held_temp(const std::filesystem::path& dir, const std::string& prefix) {
  for (int attempt = 0;; ++attempt) {
    std::string pattern = (dir / (prefix + std::string(kHeldTempSuffix, 'X'))).string();
    // Close-on-exec from the start: a child the program starts meanwhile must not inherit the
    // descriptor (nor, with it, the hold).
    File file(::mkostemp(pattern.data(), O_CLOEXEC));
    if (!file.is_open()) return last_error("cannot create a temp file in '" + dir.string() + "'");
    // The hold is an flock; the file is not ours yet if another process's cleanup removed it
    // between mkstemp and flock (it saw an unheld leftover): make another.
    if (flock_retrying(file.native(), LOCK_EX) != 0) {
      Error e = last_error("cannot lock temp file '" + pattern + "'");
      ::unlink(pattern.c_str());
      return e;
    }
    if (still_named(file.native(), pattern)) return HeldTemp{std::move(file), pattern};
    if (attempt == 100)
      return Error(errc::io_error, "temp files in '" + dir.string() + "' keep disappearing");
  }
}

void remove_held_temp(HeldTemp& temp) {
  // Unlinked before the close: the hold keeps other builds' cleanup off the file until it is
  // gone.
  ::unlink(temp.path.c_str());
  temp.file = File();
}

void release_hold(const File& file) {
  // Explicitly, before the close, which alone would not drop the lock while a child forked
  // meanwhile (by any thread) still shares the descriptor until its exec.
  (void)::flock(file.native(), LOCK_UN);
}

void remove_if_unheld(const std::filesystem::path& path) {
  const File file(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (!file.is_open()) return;
  struct stat st;
  // Only regular files, and only those no process holds: a live build keeps its lock. The lock
  // taken here goes with the close.
  if (::fstat(file.native(), &st) == 0 && S_ISREG(st.st_mode) &&
      ::flock(file.native(), LOCK_EX | LOCK_NB) == 0 && still_named(file.native(), path))
    ::unlink(path.c_str());
}

status set_replacement_mode(const File& file, const std::filesystem::path& replaced,
                            const std::string& what) {
  struct stat st;
  const mode_t mode =
      ::stat(replaced.c_str(), &st) == 0 ? st.st_mode & 07777 : 0666 & ~current_umask();
  if (::fchmod(file.native(), mode) != 0) return last_error(what);
  return {};
}

status replace_file(const std::filesystem::path& from, const std::filesystem::path& to,
                    const std::string& what) {
  if (::rename(from.c_str(), to.c_str()) != 0) return last_error(what);
  return {};
}

status sync_folder(const std::filesystem::path& dir) {
  File folder(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!folder.is_open()) return last_error("cannot open folder '" + dir.string() + "' to fsync it");
  DRYDB_TRY(folder.sync("cannot fsync folder '" + dir.string() + "'"));
  return folder.close("cannot close folder '" + dir.string() + "'");
}

result<FolderLock> FolderLock::take(const std::filesystem::path& folder) {
  File file(::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!file.is_open()) return last_error("cannot open " + folder.string());
  if (flock_retrying(file.native(), LOCK_EX) != 0)
    return last_error("cannot lock " + folder.string());
  return FolderLock(std::move(file));
}

FolderLock::~FolderLock() {
  // Unlocked explicitly: a child forked meanwhile shares the descriptor until its exec, and a
  // close alone would leave the lock held for it.
  if (file_.is_open()) release_hold(file_);
}

void Region::release() noexcept {
  if (kind_ != Kind::none) ::munmap(data_, static_cast<size_t>(span_));
  kind_ = Kind::none;
}

result<Region> Region::map_file(const File& file, uint64_t size, const std::string& what) {
  if (size > SIZE_MAX) return Error(errc::out_of_memory, what + ": too large to map");
  void* base = ::mmap(nullptr, static_cast<size_t>(size), PROT_READ, MAP_SHARED, file.native(), 0);
  if (base == MAP_FAILED) return last_error(what);
  Region r;
  r.data_ = static_cast<std::byte*>(base);
  r.size_ = r.span_ = size;
  r.kind_ = Kind::mapping;
  return r;
}

result<Region> Region::reserve(uint64_t size, const std::string& what) {
  // The bytes in whole pages; a region that fills a huge page starts on a huge page boundary,
  // found in a reservation one huge page longer whose slack is given back.
  constexpr uint64_t kHugePage = uint64_t{2} << 20;  // x86-64's and arm64's transparent huge page
  const auto page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  const uint64_t length = (size + page - 1) / page * page;
  const uint64_t slack = size >= kHugePage ? kHugePage : 0;
  if (length < size || length > SIZE_MAX - slack)
    return Error(errc::out_of_memory, what + ": too large");
  void* region = ::mmap(nullptr, static_cast<size_t>(length + slack), PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (region == MAP_FAILED)
    return Error(errc::out_of_memory, what + ": cannot reserve " + std::to_string(length) +
                                          " bytes: " + std::strerror(errno));
  auto* base = static_cast<std::byte*>(region);
  if (slack != 0) {
    const auto start = reinterpret_cast<uintptr_t>(region);
    const uint64_t head = (start + kHugePage - 1) / kHugePage * kHugePage - start;
    if (head != 0) ::munmap(region, static_cast<size_t>(head));
    base += head;
    if (slack - head != 0) ::munmap(base + length, static_cast<size_t>(slack - head));
#ifdef MADV_HUGEPAGE
    // Advice only, over the huge pages the bytes fill (a partial last one would hold up to
    // 2 MiB they do not need); without transparent huge pages, small pages serve.
    (void)::madvise(base, static_cast<size_t>(size / kHugePage * kHugePage), MADV_HUGEPAGE);
#endif
  }
  Region r;
  r.data_ = base;
  r.size_ = size;
  r.span_ = length;
  r.kind_ = Kind::reserved;
  return r;
}

status Region::make_read_only(const std::string& what) {
  if (::mprotect(data_, static_cast<size_t>(span_), PROT_READ) != 0) {
    const int err = errno;
    return Error(err == ENOMEM ? errc::out_of_memory : errc::io_error,
                 what + ": " + std::strerror(err));
  }
  return {};
}

}  // namespace platform
}  // namespace drydb

#endif  // !_WIN32
