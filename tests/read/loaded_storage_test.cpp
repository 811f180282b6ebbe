// Memory storage (StorageKind::memory, open_loaded_storage in storage.h): the file read whole at
// open into anonymous memory. Its read loop, driven through the read function, retries EINTR and
// continues short counts; a failed or early-ended read is an error of the load, which leaves no
// memory mapped behind. The bytes it serves are the file's, in memory that is read-only, starts
// on a 2 MiB boundary once the file fills a huge page (advised to be backed by huge pages where
// the kernel has them), and is unmapped with the storage.
#include <gtest/gtest.h>
#if defined(_WIN32)
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <psapi.h>    // GetProcessMemoryInfo
#include <windows.h>  // VirtualQuery
#else
#include <sys/mman.h>
#include <unistd.h>
#endif

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "support/fault_util.h"

namespace drydb_test {
namespace {

using drydb::PreadFunction;
using drydb::ReadOnlyDatabase;

// The lines of /proc/self/maps.
[[maybe_unused]] std::vector<std::string> maps() {  // unused on Windows
  std::vector<std::string> lines;
  std::ifstream in("/proc/self/maps");
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

// Whether a /proc/self/maps (or smaps) line is a mapping's, and holds address p.
bool holds(const std::string& line, const void* p) {
  unsigned long from = 0, to = 0;
  char dash = 0;
  if (std::sscanf(line.c_str(), "%lx%c%lx", &from, &dash, &to) != 3 || dash != '-') return false;
  const auto at = static_cast<unsigned long>(reinterpret_cast<uintptr_t>(p));
  return from <= at && at < to;
}

// The /proc/self/maps line of the mapping that holds `p`, or "" if none does. On Windows, the
// region VirtualQuery finds there, in the same spelling: its allocation's base and " r--p " when
// it is read-only; "" when no memory is committed there.
std::string mapping_at(const void* p) {
#if defined(_WIN32)
  MEMORY_BASIC_INFORMATION info{};
  if (::VirtualQuery(p, &info, sizeof info) == 0 || info.State != MEM_COMMIT) return "";
  char line[64];
  std::snprintf(line, sizeof line, "%p %s", info.AllocationBase,
                info.Protect == PAGE_READONLY ? " r--p " : " (not read-only) ");
  return line;
#else
  for (const auto& line : maps())
    if (holds(line, p)) return line;
  return "";
#endif
}

// The VmFlags line of the /proc/self/smaps entry of the mapping that holds `p`.
std::string vm_flags_at(const void* p) {
  std::ifstream in("/proc/self/smaps");
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("VmFlags:", 0) == 0) {
      if (inside) return line;
    } else if (line.find(':') == std::string::npos || line.find(':') > line.find(' ')) {
      inside = holds(line, p);  // a mapping's first line (its fields have no key before ':')
    }
  }
  return "";
}

// Whether the kernel gives transparent huge pages to memory advised MADV_HUGEPAGE.
bool huge_pages_on_advice() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string modes;
  std::getline(in, modes);
  return !modes.empty() && modes.find("[never]") == std::string::npos;
}

// Whether madvise's advice reaches the kernel: a mapping of this test's own, advised
// MADV_HUGEPAGE, shows it in its VmFlags. qemu-user accepts the call and drops the advice.
bool advice_reaches_the_kernel() {
  const size_t size = size_t{4} << 20;
  void* region = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (region == MAP_FAILED) return false;
  const bool advised = ::madvise(region, size, MADV_HUGEPAGE) == 0 &&
                       vm_flags_at(region).find(" hg") != std::string::npos;
  ::munmap(region, size);
  return advised;
}

std::vector<std::byte> pattern(size_t n) {
  std::vector<std::byte> bytes(n);
  for (size_t i = 0; i < n; ++i)
    bytes[i] = static_cast<std::byte>((i * 131 + i / 4096) & 0xFF);
  return bytes;
}

// A file of 5 MiB and a few bytes: two whole huge pages and a part of a third. The storage holds
// its bytes, read-only, from a 2 MiB boundary, advised to be huge pages; gone with the storage.
TEST(LoadedStorage, ServesTheFileFromReadOnlyMemoryOnAHugePageBoundary) {
  TempDir dir;
  const auto path = dir / "five.bin";
  const auto bytes = pattern((size_t{5} << 20) + 123);
  ASSERT_TRUE(write_file(path, bytes));
  const void* at = nullptr;
  bool advice_unseen = false;
  {
    auto storage = drydb::open_loaded_storage(path);
    ASSERT_TRUE(storage) << storage.error().to_string();
    const auto mapped = (*storage)->mapped();
    ASSERT_EQ(mapped.size(), bytes.size());
    EXPECT_TRUE(std::equal(mapped.begin(), mapped.end(), bytes.begin()));
    at = mapped.data();
    EXPECT_EQ(reinterpret_cast<uintptr_t>(at) % (uintptr_t{2} << 20), 0u);
    const std::string line = mapping_at(at);
    ASSERT_FALSE(line.empty()) << "no mapping holds the bytes";
    EXPECT_NE(line.find(" r--p "), std::string::npos) << line;
    if (huge_pages_on_advice()) {
      // The advice covers the two huge pages the file fills; the partial third is a mapping
      // of its own, without it.
      if (advice_reaches_the_kernel())
        EXPECT_NE(vm_flags_at(at).find(" hg"), std::string::npos) << vm_flags_at(at);
      else
        advice_unseen = true;
    }
    std::vector<std::byte> tail(200);
    ASSERT_TRUE((*storage)->read_at(bytes.size() - 200, tail));
    EXPECT_TRUE(std::equal(tail.begin(), tail.end(), bytes.end() - 200));
    EXPECT_EQ((*storage)->read_at(bytes.size() - 10, tail).code(), drydb::errc::truncated);
  }
  EXPECT_EQ(mapping_at(at), "") << "the memory outlived its storage";
  EXPECT_EQ(mapping_at(static_cast<const std::byte*>(at) + bytes.size() - 1), "");
  if (advice_unseen)  // after every other check has run
    GTEST_SKIP() << "madvise's advice does not reach the kernel here (qemu-user drops it): "
                    "the huge page advice is unchecked";
}

// A file smaller than a huge page is served the same way from its own pages.
TEST(LoadedStorage, ASmallFileIsServedFromReadOnlyMemory) {
  TempDir dir;
  const auto path = dir / "small.bin";
  const auto bytes = pattern(10'000);
  ASSERT_TRUE(write_file(path, bytes));
  auto storage = drydb::open_loaded_storage(path);
  ASSERT_TRUE(storage) << storage.error().to_string();
  const auto mapped = (*storage)->mapped();
  ASSERT_EQ(mapped.size(), bytes.size());
  EXPECT_TRUE(std::equal(mapped.begin(), mapped.end(), bytes.begin()));
  const std::string line = mapping_at(mapped.data());
  ASSERT_FALSE(line.empty());
  EXPECT_NE(line.find(" r--p "), std::string::npos) << line;
  EXPECT_EQ(line, mapping_at(mapped.data() + mapped.size() - 1)) << "one mapping holds it all";
}

drydb::result<ReadOnlyDatabase> open_through(const std::filesystem::path& path,
                                             PreadFunction read) {
  auto storage = drydb::open_loaded_storage(path, std::move(read));
  if (!storage) return std::move(storage).error();
  return ReadOnlyDatabase::open_storage(std::move(*storage));
}

// Reads of 1 to 97 bytes, every other one interrupted first: the load retries and continues,
// and the database answers right; the file is read once, at open.
TEST(LoadedStorage, RetriesInterruptedReadsAndContinuesShortOnes) {
  TempDir dir;
  DbModel m = users_and_numbers(600, 1);  // byte and int64 keys, overflow values, 512-byte pages
  m.finish();
  const auto path = write_model_file(dir, m);
  auto calls = std::make_shared<std::atomic<uint64_t>>(0);
  auto interrupted = std::make_shared<std::atomic<uint64_t>>(0);
  auto db = open_through(
      path, [=](drydb::NativeFile fd, std::span<std::byte> dst, uint64_t offset) -> int64_t {
        const uint64_t call = calls->fetch_add(1);
        if (call % 2 == 0) {
          interrupted->fetch_add(1);
          errno = EINTR;
          return -1;
        }
        return real_pread(fd, dst.first(std::min<size_t>(dst.size(), 1 + call % 97)), offset);
      });
  ASSERT_TRUE(db) << db.error().to_string();
  const uint64_t calls_at_open = calls->load();
  EXPECT_GT(interrupted->load(), 100u);
  expect_all_right(*db, m);
  EXPECT_TRUE(db->verify());
  EXPECT_EQ(calls->load(), calls_at_open) << "a query read the file";
}

// The process's address space in bytes (VmSize; on Windows, the memory it has committed).
uint64_t address_space() {
#if defined(_WIN32)
  PROCESS_MEMORY_COUNTERS counters{};
  counters.cb = sizeof counters;
  if (!::GetProcessMemoryInfo(::GetCurrentProcess(), &counters, sizeof counters)) return 0;
  return counters.PagefileUsage;
#else
  std::ifstream in("/proc/self/statm");
  uint64_t pages = 0;
  in >> pages;
  return pages * static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
#endif
}

// A read that fails (EIO) or finds the file ended early fails the load with io_error or
// truncated, naming the file, and gives back the memory reserved for it: loads of an 8 MiB file
// failing again and again leave the address space as it was.
TEST(LoadedStorage, AFailedLoadIsAnErrorAndLeavesNoMemory) {
  TempDir dir;
  const auto path = dir / "eight.bin";
  ASSERT_TRUE(write_file(path, pattern(size_t{8} << 20)));
  auto failing = [](drydb::NativeFile fd, std::span<std::byte> dst, uint64_t offset) -> int64_t {
    if (offset >= 4096) {
      errno = EIO;
      return -1;
    }
    return real_pread(fd, dst.first(std::min<size_t>(dst.size(), 4096 - offset)), offset);
  };
  auto ending = [](drydb::NativeFile, std::span<std::byte>, uint64_t) -> int64_t { return 0; };
  ASSERT_FALSE(drydb::open_loaded_storage(path, failing));  // whatever a first load sets up, once
  const uint64_t before = address_space();
  for (int i = 0; i < 8; ++i) {
    auto failed = drydb::open_loaded_storage(path, failing);
    ASSERT_FALSE(failed);
    EXPECT_EQ(failed.code(), drydb::errc::io_error);
    EXPECT_NE(failed.error().message.find("cannot load '" + path.string() + "'"), std::string::npos)
        << failed.error().message;
    auto ended = drydb::open_loaded_storage(path, ending);
    ASSERT_FALSE(ended);
    EXPECT_EQ(ended.code(), drydb::errc::truncated) << ended.error().to_string();
  }
  EXPECT_LT(address_space(), before + (uint64_t{8} << 20)) << "failed loads kept their memory";
}

}  // namespace
}  // namespace drydb_test
