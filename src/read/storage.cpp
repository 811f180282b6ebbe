#include "drydb/storage.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

#include "format/io_error.h"

namespace drydb {
namespace {

result<int> open_readonly(const std::filesystem::path& path, uint64_t* size) {
  // Non-blocking: opening a FIFO would otherwise wait for a writer before its
  // type could be checked. Reads of a regular file ignore the flag.
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return detail::io_error("cannot open '" + path.string() + "'", errno);
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return detail::io_error("cannot stat '" + path.string() + "'", err);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return Error(errc::invalid_argument, "'" + path.string() + "' is not a regular file");
  }
  // Blocking again for the reads (a file under a lease or lock could otherwise fail them with
  // EAGAIN).
  if (const int flags = ::fcntl(fd, F_GETFL);
      flags == -1 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) == -1) {
    const int err = errno;
    ::close(fd);
    return detail::io_error("cannot set up '" + path.string() + "'", err);
  }
  *size = static_cast<uint64_t>(st.st_size);
  return fd;
}

status pread_exact(int fd, uint64_t size, const PreadFunction& read, uint64_t offset,
                   std::span<std::byte> dst) {
  if (offset > size || dst.size() > size - offset)
    return Error(errc::truncated, "read of " + std::to_string(dst.size()) + " bytes at offset " +
                                      std::to_string(offset) + " runs past the file's end");
  size_t done = 0;
  while (done < dst.size()) {
    const std::span<std::byte> rest = dst.subspan(done);
    const int64_t n =
        read ? read(fd, rest, offset + done)
             : ::pread(fd, rest.data(), rest.size(), static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return detail::io_error("read failed", errno);
    if (n == 0)
      return Error(errc::truncated,
                   "the file ended during a read: it is shorter than when it was opened");
    // A custom read function's count is not trusted to stay within the buffer.
    if (static_cast<uint64_t>(n) > rest.size())
      return Error(errc::io_error, "the read function returned " + std::to_string(n) +
                                       " bytes for a read of " + std::to_string(rest.size()));
    done += static_cast<size_t>(n);
  }
  return {};
}

// A file's bytes at `base`, in a region of `region_size` bytes at `region` that
// this storage unmaps: the file's own mapping (mmap storage; the region is the
// file), or the anonymous memory the file was read into (memory storage; the
// region is the bytes, to the end of their last page).
class MappedRegionStorage final : public Storage {
 public:
  MappedRegionStorage(void* region, size_t region_size, const std::byte* base, uint64_t size)
      : region_(region), region_size_(region_size), base_(base), size_(size) {}
  MappedRegionStorage(const MappedRegionStorage&) = delete;
  MappedRegionStorage& operator=(const MappedRegionStorage&) = delete;
  ~MappedRegionStorage() override {
    if (region_size_ > 0) ::munmap(region_, region_size_);
  }
  uint64_t size() const override { return size_; }
  status read_at(uint64_t offset, std::span<std::byte> dst) const override {
    if (offset > size_ || dst.size() > size_ - offset)
      return Error(errc::truncated, "read past the end of the mapped file");
    if (!dst.empty()) std::memcpy(dst.data(), base_ + offset, dst.size());
    return {};
  }
  std::span<const std::byte> mapped() const override { return {base_, size_}; }

 private:
  void* region_;
  size_t region_size_;
  const std::byte* base_;
  uint64_t size_;
};

class PreadStorage final : public Storage {
 public:
  PreadStorage(int fd, uint64_t size, PreadFunction read)
      : fd_(fd), size_(size), read_(std::move(read)) {}
  ~PreadStorage() override { ::close(fd_); }
  uint64_t size() const override { return size_; }
  status read_at(uint64_t offset, std::span<std::byte> dst) const override {
    return pread_exact(fd_, size_, read_, offset, dst);
  }

 private:
  int fd_;
  uint64_t size_;
  PreadFunction read_;  // empty: ::pread
};

class MemoryStorage final : public Storage {
 public:
  explicit MemoryStorage(std::span<const std::byte> bytes) : bytes_(bytes) {}
  uint64_t size() const override { return bytes_.size(); }
  status read_at(uint64_t offset, std::span<std::byte> dst) const override {
    if (offset > bytes_.size() || dst.size() > bytes_.size() - offset)
      return Error(errc::truncated, "read past the end of the database's memory");
    if (!dst.empty()) std::memcpy(dst.data(), bytes_.data() + offset, dst.size());
    return {};
  }
  std::span<const std::byte> mapped() const override { return bytes_; }

 private:
  std::span<const std::byte> bytes_;
};

}  // namespace

result<std::unique_ptr<Storage>> open_loaded_storage(const std::filesystem::path& path,
                                                     PreadFunction read) {
  uint64_t size = 0;
  auto fd = open_readonly(path, &size);
  if (!fd) return std::move(fd).error();
  const int file = *fd;
  if (size == 0) {
    ::close(file);
    return std::unique_ptr<Storage>(new MappedRegionStorage(nullptr, 0, nullptr, 0));
  }
  // The file's bytes in whole pages; a file that fills a huge page starts on a huge page
  // boundary, found in a reservation one huge page longer whose slack is given back.
  constexpr uint64_t kHugePage = uint64_t{2} << 20;  // x86-64's transparent huge page
  const auto page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  const uint64_t length = (size + page - 1) / page * page;
  const uint64_t slack = size >= kHugePage ? kHugePage : 0;
  if (length < size || length > SIZE_MAX - slack) {
    ::close(file);
    return Error(errc::out_of_memory, "'" + path.string() + "' is too large to load");
  }
  void* region = ::mmap(nullptr, static_cast<size_t>(length + slack), PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (region == MAP_FAILED) {
    const int err = errno;
    ::close(file);
    return Error(errc::out_of_memory, "cannot reserve " + std::to_string(length) +
                                          " bytes to load '" + path.string() +
                                          "': " + std::strerror(err));
  }
  auto* base = static_cast<std::byte*>(region);
  if (slack != 0) {
    const auto start = reinterpret_cast<uintptr_t>(region);
    const uint64_t head = (start + kHugePage - 1) / kHugePage * kHugePage - start;
    if (head != 0) ::munmap(region, static_cast<size_t>(head));
    base += head;
    if (slack - head != 0) ::munmap(base + length, static_cast<size_t>(slack - head));
#ifdef MADV_HUGEPAGE
    // Advice only, over the huge pages the file fills (a partial last one would hold up to
    // 2 MiB the file does not need); without transparent huge pages, 4 KiB pages serve.
    (void)::madvise(base, static_cast<size_t>(size / kHugePage * kHugePage), MADV_HUGEPAGE);
#endif
  }
  status loaded = pread_exact(file, size, read, 0, {base, static_cast<size_t>(size)});
  ::close(file);
  if (loaded && ::mprotect(base, static_cast<size_t>(length), PROT_READ) != 0) {
    const int err = errno;
    loaded = Error(err == ENOMEM ? errc::out_of_memory : errc::io_error,
                   std::string("cannot make the loaded bytes read-only: ") + std::strerror(err));
  }
  if (!loaded) {
    ::munmap(base, static_cast<size_t>(length));
    Error e = std::move(loaded).error();
    e.message = "cannot load '" + path.string() + "': " + e.message;
    return e;
  }
  return std::unique_ptr<Storage>(
      new MappedRegionStorage(base, static_cast<size_t>(length), base, size));
}

result<std::unique_ptr<Storage>> open_mmap_storage(const std::filesystem::path& path) {
  uint64_t size = 0;
  auto fd = open_readonly(path, &size);
  if (!fd) return std::move(fd).error();
  void* base = nullptr;
  if (size > 0) {
    base = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, *fd, 0);
    if (base == MAP_FAILED) {
      int err = errno;
      ::close(*fd);
      return detail::io_error("cannot map '" + path.string() + "'", err);
    }
  }
  // The mapping keeps the file's contents reachable; the descriptor is not needed.
  ::close(*fd);
  return std::unique_ptr<Storage>(
      new MappedRegionStorage(base, size, static_cast<const std::byte*>(base), size));
}

result<std::unique_ptr<Storage>> open_pread_storage(const std::filesystem::path& path) {
  return open_pread_storage(path, PreadFunction{});
}

result<std::unique_ptr<Storage>> open_pread_storage(const std::filesystem::path& path,
                                                    PreadFunction read) {
  uint64_t size = 0;
  auto fd = open_readonly(path, &size);
  if (!fd) return std::move(fd).error();
  return std::unique_ptr<Storage>(new PreadStorage(*fd, size, std::move(read)));
}

std::unique_ptr<Storage> memory_storage(std::span<const std::byte> bytes) {
  return std::make_unique<MemoryStorage>(bytes);
}

}  // namespace drydb
