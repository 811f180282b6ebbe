// What test_util.h (builder and table suites) and fault_util.h (corruption, concurrency and
// regression suites) share: byte views of strings, encoded int64 keys and typed keys for encoded
// bytes, the next key of a key space, failure messages of errors, a checked build, a per-test
// temp folder, whole-file reads and writes, a Storage over memory that goes through the page cache
// and can fail reads (and open_cached, which opens bytes through it), and a PageAllocator that
// checks and counts what passes through it and can fail allocations.
#pragma once

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <mutex>
#include <new>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <utility>
#include <vector>

#include "drydb/detail/coding.h"
#include "drydb/drydb.h"
#include "key_space.h"

namespace drydb_support {

using Bytes = std::span<const std::byte>;

// ---- bytes and keys ----------------------------------------------------------------------------

inline Bytes as_bytes(std::string_view s) {
  return std::as_bytes(std::span(s.data(), s.size()));
}
inline std::string to_string(Bytes b) {
  return std::string(reinterpret_cast<const char*>(b.data()), b.size());
}
inline std::string_view to_view(Bytes b) {
  return {reinterpret_cast<const char*>(b.data()), b.size()};
}

// The encoded form of an int64 key (8 big-endian bytes with the sign bit flipped, so memcmp
// order is numeric order), and back.
inline std::string int64_key(int64_t v) {
  std::string s(8, '\0');
  drydb::detail::store_be64(reinterpret_cast<std::byte*>(s.data()), drydb::int64_to_ordered(v));
  return s;
}
inline int64_t int64_of(std::string_view k) {
  return drydb::ordered_to_int64(
      drydb::detail::load_be64(reinterpret_cast<const std::byte*>(k.data())));
}

// The typed Key a user would pass for encoded key `k` of a table of keys of `kind`: an int64_t, a
// Uuid, a Ulid (of k's first 16 bytes, zero-padded), or (bytes and custom encodings) the bytes,
// which the Key borrows from `k`.
inline drydb::Key typed_key(drydb::KeyKind kind, std::string_view k) {
  switch (kind) {
    case drydb::KeyKind::int64:
      return drydb::Key(int64_of(k));
    case drydb::KeyKind::uuid: {
      drydb::Uuid u{};
      std::memcpy(u.bytes.data(), k.data(), std::min<size_t>(16, k.size()));
      return drydb::Key(u);
    }
    case drydb::KeyKind::ulid: {
      drydb::Ulid u{};
      std::memcpy(u.bytes.data(), k.data(), std::min<size_t>(16, k.size()));
      return drydb::Key(u);
    }
    default:
      return drydb::Key(k);
  }
}

// ---- errors and builds -------------------------------------------------------------------------

// An Error for a failure message. Deliberately not Error::to_string() or
// operator<< on the code: those call the code's category, and when a code is
// not in drydb's category (std::generic_category() lives in the uninstrumented
// libstdc++) UBSan's vptr check aborts the whole test binary.
inline std::string describe(const drydb::Error& e) {
  const bool ours = &e.code.category() == &drydb::error_category();
  return e.message + " (" + (ours ? "drydb:" : "NOT drydb category:") +
         std::to_string(e.code.value()) + ")";
}

// The bytes of a build; when the build failed, a test failure and no bytes.
inline std::vector<std::byte> built_bytes(drydb::result<std::vector<std::byte>> bytes) {
  if (!bytes) {
    ADD_FAILURE() << "build failed: " << describe(bytes.error());
    return {};
  }
  return std::move(*bytes);
}

// ---- files -------------------------------------------------------------------------------------

// A fresh, empty folder for one test (named after it, the process and a serial number, so no two
// folders alive at once share a name), removed when the object dies.
class TempDir {
 public:
  TempDir() {
    static std::atomic<uint64_t> serial{0};
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = std::string("drydb-") + (info ? info->test_suite_name() : "x") + "-" +
                       (info ? info->name() : "x") + "-" + std::to_string(::getpid()) + "-" +
                       std::to_string(serial.fetch_add(1));
    for (auto& c : name)
      if (c == '/') c = '_';
    path_ = std::filesystem::temp_directory_path() / name;
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
    std::filesystem::create_directories(path_, ec);
    EXPECT_FALSE(ec) << "cannot create " << path_ << ": " << ec.message();
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(std::string_view name) const { return path_ / name; }

  // Names of the entries in the folder, sorted.
  std::vector<std::string> entries() const {
    std::vector<std::string> out;
    std::error_code ec;
    for (auto it = std::filesystem::directory_iterator(path_, ec);
         !ec && it != std::filesystem::directory_iterator(); it.increment(ec))
      out.push_back(it->path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }

 private:
  std::filesystem::path path_;
};

inline bool write_file(const std::filesystem::path& path, Bytes bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  out.close();
  return static_cast<bool>(out);
}

inline std::vector<std::byte> read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> out(chars.size());
  if (!chars.empty()) std::memcpy(out.data(), chars.data(), chars.size());
  return out;
}

// ---- storage and allocator seams ---------------------------------------------------------------

// A Storage over bytes the caller keeps alive, read through read_at only (mapped() is empty), so
// every page goes through the page cache as with pread. Counts reads and can fail them: every
// n-th read, or every read that touches a chosen page.
class MemoryStorage : public drydb::Storage {
 public:
  explicit MemoryStorage(Bytes bytes, uint32_t page_size = 512)
      : bytes_(bytes), page_size_(page_size) {}
  uint64_t size() const override { return bytes_.size(); }
  drydb::status read_at(uint64_t offset, std::span<std::byte> dst) const override {
    const uint64_t n = reads.fetch_add(1, std::memory_order_relaxed) + 1;
    const uint64_t every = fail_every.load(std::memory_order_relaxed);
    if (every != 0 && n % every == 0)
      return drydb::Error(drydb::errc::io_error,
                          "injected read failure number " + std::to_string(n));
    const uint64_t fail = fail_page.load(std::memory_order_relaxed);
    if (fail != 0 && !dst.empty()) {
      const uint64_t first = offset / page_size_, last = (offset + dst.size() - 1) / page_size_;
      if (fail >= first && fail <= last)
        return drydb::Error(drydb::errc::io_error,
                            "injected read failure at page " + std::to_string(fail));
    }
    if (offset > bytes_.size() || dst.size() > bytes_.size() - offset)
      return drydb::Error(drydb::errc::truncated, "MemoryStorage: read past the end");
    if (!dst.empty()) std::memcpy(dst.data(), bytes_.data() + offset, dst.size());
    return {};
  }

  Bytes bytes() const { return bytes_; }

  mutable std::atomic<uint64_t> reads{0};  // read_at calls, failed ones included
  std::atomic<uint64_t> fail_page{0};      // 0 = no failure (page 0 is read at open only)
  std::atomic<uint64_t> fail_every{0};     // fail every n-th read; 0 = never

 private:
  Bytes bytes_;
  uint32_t page_size_;
};

// Opens `bytes` through a MemoryStorage, so through the page cache, with a cache of `cache_bytes`
// and page memory from `allocator` (nullptr: operator new).
inline drydb::result<drydb::ReadOnlyDatabase> open_cached(
    Bytes bytes, size_t cache_bytes, drydb::PageAllocator* allocator = nullptr) {
  return drydb::ReadOnlyDatabase::open_storage(
      std::make_unique<MemoryStorage>(bytes),
      {.page_cache_bytes = cache_bytes, .allocator = allocator});
}

// A PageAllocator that checks and counts what passes through it: every deallocate must match a
// live allocate of the same pointer, size and alignment (a mismatch is counted and the block
// leaked rather than the heap corrupted), and every block must come back aligned. Can fail every
// n-th allocation.
class CountingAllocator final : public drydb::PageAllocator {
 public:
  std::byte* allocate(size_t size, size_t alignment) override {
    const uint64_t every = fail_every.load(std::memory_order_relaxed);
    if (every != 0 && attempts_.fetch_add(1, std::memory_order_relaxed) % every == every - 1)
      return nullptr;  // an injected allocation failure
    auto* p =
        static_cast<std::byte*>(::operator new (size, std::align_val_t{alignment}, std::nothrow));
    if (p == nullptr) return nullptr;
    std::lock_guard lock(mu_);
    ++allocations_;
    live_bytes_ += size;
    peak_bytes_ = std::max(peak_bytes_.load(), live_bytes_.load());
    if (reinterpret_cast<uintptr_t>(p) % alignment != 0) ++misaligned_;
    live_[p] = {size, alignment};
    return p;
  }
  void deallocate(std::byte* p, size_t size, size_t alignment) override {
    {
      std::lock_guard lock(mu_);
      ++deallocations_;
      auto it = live_.find(p);
      if (it == live_.end()) {
        ++bad_frees_;  // a double free or a foreign pointer: do not touch it
        return;
      }
      if (it->second.first != size || it->second.second != alignment) {
        ++size_mismatches_;  // leak it rather than free it with the wrong size or alignment
        return;
      }
      live_.erase(it);
      live_bytes_ -= size;
    }
    ::operator delete (p, std::align_val_t{alignment});
  }

  uint64_t allocations() const { return allocations_; }
  uint64_t deallocations() const { return deallocations_; }
  size_t live_bytes() const { return live_bytes_; }
  size_t peak_bytes() const { return peak_bytes_; }
  uint64_t bad_frees() const { return bad_frees_; }
  uint64_t size_mismatches() const { return size_mismatches_; }
  // Misaligned blocks, frees of unknown blocks and mismatched frees.
  uint64_t errors() const { return misaligned_ + bad_frees_ + size_mismatches_; }
  size_t live_blocks() const {
    std::lock_guard lock(mu_);
    return live_.size();
  }

  // Fail every n-th allocation (return nullptr); 0 = never.
  std::atomic<uint64_t> fail_every{0};

 private:
  mutable std::mutex mu_;  // guards live_; the counters change under it too
  std::unordered_map<std::byte*, std::pair<size_t, size_t>> live_;  // size, alignment
  std::atomic<uint64_t> attempts_{0};
  std::atomic<uint64_t> allocations_{0}, deallocations_{0}, misaligned_{0}, bad_frees_{0},
      size_mismatches_{0};
  std::atomic<size_t> live_bytes_{0}, peak_bytes_{0};
};

}  // namespace drydb_support
