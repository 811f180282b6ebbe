#include "drydb/storage.h"

#include <cstring>
#include <string>
#include <utility>

#include "platform/file.h"

namespace drydb {
namespace {

status pread_exact(NativeFile file, uint64_t size, const PreadFunction& read, uint64_t offset,
                   std::span<std::byte> dst) {
  if (offset > size || dst.size() > size - offset)
    return Error(errc::truncated, "read of " + std::to_string(dst.size()) + " bytes at offset " +
                                      std::to_string(offset) + " runs past the file's end");
  size_t done = 0;
  while (done < dst.size()) {
    const std::span<std::byte> rest = dst.subspan(done);
    const int64_t n =
        read ? read(file, rest, offset + done) : read_file_at(file, rest, offset + done);
    if (n < 0 && platform::last_error_is_interrupt()) continue;
    if (n < 0) return platform::last_error("read failed");
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

// A file's bytes in memory this storage owns: the file's own mapping (mmap storage), or the
// memory the file was read into (memory storage). An empty file has no region.
class RegionStorage final : public Storage {
 public:
  explicit RegionStorage(platform::Region region) : region_(std::move(region)) {}
  uint64_t size() const override { return region_.size(); }
  status read_at(uint64_t offset, std::span<std::byte> dst) const override {
    if (offset > region_.size() || dst.size() > region_.size() - offset)
      return Error(errc::truncated, "read past the end of the mapped file");
    if (!dst.empty()) std::memcpy(dst.data(), region_.data() + offset, dst.size());
    return {};
  }
  std::span<const std::byte> mapped() const override {
    return {region_.data(), static_cast<size_t>(region_.size())};
  }

 private:
  platform::Region region_;
};

class PreadStorage final : public Storage {
 public:
  PreadStorage(platform::File file, uint64_t size, PreadFunction read)
      : file_(std::move(file)), size_(size), read_(std::move(read)) {}
  uint64_t size() const override { return size_; }
  status read_at(uint64_t offset, std::span<std::byte> dst) const override {
    return pread_exact(file_.native(), size_, read_, offset, dst);
  }

 private:
  platform::File file_;
  uint64_t size_;
  PreadFunction read_;  // empty: read_file_at
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
  auto file = platform::open_for_reading(path, &size);
  if (!file) return std::move(file).error();
  if (size == 0) return std::unique_ptr<Storage>(new RegionStorage(platform::Region()));
  auto region = platform::Region::reserve(size, "cannot load '" + path.string() + "'");
  if (!region) return std::move(region).error();
  status loaded =
      pread_exact(file->native(), size, read, 0, {region->data(), static_cast<size_t>(size)});
  if (loaded) loaded = region->make_read_only("cannot make the loaded bytes read-only");
  if (!loaded) {
    Error e = std::move(loaded).error();
    e.message = "cannot load '" + path.string() + "': " + e.message;
    return e;
  }
  return std::unique_ptr<Storage>(new RegionStorage(std::move(*region)));
}

result<std::unique_ptr<Storage>> open_mmap_storage(const std::filesystem::path& path) {
  uint64_t size = 0;
  auto file = platform::open_for_reading(path, &size);
  if (!file) return std::move(file).error();
  if (size == 0) return std::unique_ptr<Storage>(new RegionStorage(platform::Region()));
  // The mapping keeps the file's contents reachable; the file is closed on return.
  auto region = platform::Region::map_file(*file, size, "cannot map '" + path.string() + "'");
  if (!region) return std::move(region).error();
  return std::unique_ptr<Storage>(new RegionStorage(std::move(*region)));
}

result<std::unique_ptr<Storage>> open_pread_storage(const std::filesystem::path& path) {
  return open_pread_storage(path, PreadFunction{});
}

result<std::unique_ptr<Storage>> open_pread_storage(const std::filesystem::path& path,
                                                    PreadFunction read) {
  uint64_t size = 0;
  auto file = platform::open_for_reading(path, &size);
  if (!file) return std::move(file).error();
  return std::unique_ptr<Storage>(new PreadStorage(std::move(*file), size, std::move(read)));
}

std::unique_ptr<Storage> memory_storage(std::span<const std::byte> bytes) {
  return std::make_unique<MemoryStorage>(bytes);
}

}  // namespace drydb
