// Helpers of the fault suites (corruption, concurrency, regression, async, stress): a value
// generator for their models, storage over real files, counted page memory, a map of which file
// bytes the format uses and checksum fix-ups. The model and the checker they run their
// queries through are the one of every suite (support/model.h, support/checker.h).
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "checksums.h"
#include "drydb/detail/coding.h"
#include "drydb/detail/format.h"
#include "drydb/drydb.h"
#include "names.h"
#include "suite.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define DRYDB_TEST_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define DRYDB_TEST_SANITIZED 1
#endif
#ifndef DRYDB_TEST_SANITIZED
#define DRYDB_TEST_SANITIZED 0
#endif
// ThreadSanitizer slows single-threaded sweeps most and finds nothing in them: they thin out.
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define DRYDB_TEST_TSAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define DRYDB_TEST_TSAN 1
#endif
#ifndef DRYDB_TEST_TSAN
#define DRYDB_TEST_TSAN 0
#endif

namespace drydb_test {

using drydb::errc;

// ---- small utilities ---------------------------------------------------------------------------

// Deterministic value bytes of `len` for row `seed` (so a wrong value is seen, not just a
// wrong length).
inline std::string make_value(uint64_t seed, size_t len) {
  std::string v(len, '\0');
  Rng r(seed * 0x9E37 + len);
  for (size_t i = 0; i < len; i += 8) {
    uint64_t x = r.next();
    for (size_t b = 0; b < 8 && i + b < len; ++b)
      v[i + b] = static_cast<char>((x >> (8 * b)) & 0xFF);
  }
  return v;
}

// The tables the async and concurrency suites query: "items", `rows` byte keys "user/NNNNNN"
// (every third number) with values of 0..89 bytes and every 17th an overflow value of up to
// 2.6 KB; "nums", `rows` int64 keys first_num, first_num + 5, ... with 8-byte values, every 50th
// of 300 bytes. Page size 512; not finished, so callers may add indexes first.
inline DbModel users_and_numbers(uint32_t rows, int64_t first_num) {
  DbModel m;
  m.page_size = 512;
  TableModel items = make_table("items", drydb::KeyEncoding::bytes());
  for (uint32_t i = 0; i < rows; ++i) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "user/%06u", i * 3);
    size_t len = (i * 37) % 90;
    if (i % 17 == 5) len = 129 + (i * 131) % 2500;
    items.rows.emplace(buf, make_value(i, len));
  }
  TableModel nums = make_table("nums", drydb::KeyEncoding::int64());
  for (int64_t i = 0; i < rows; ++i)
    nums.rows.emplace(int64_key(i * 5 + first_num),
                      make_value(50000 + static_cast<uint64_t>(i), i % 50 == 7 ? 300 : 8));
  m.tables = {std::move(items), std::move(nums)};
  return m;
}

// ---- storage over real files (pread_storage_test, loaded_storage_test) -------------------------

// The default read as a PreadFunction (storage.h), for read functions that wrap it.
inline int64_t real_pread(drydb::NativeFile fd, std::span<std::byte> dst, uint64_t offset) {
  return drydb::read_file_at(fd, dst, offset);
}

// Builds `m` into dir/db.drydb and returns its path.
inline std::filesystem::path write_model_file(const TempDir& dir, const DbModel& m) {
  auto bytes = build_database(m);
  EXPECT_TRUE(bytes) << bytes.error().to_string();
  const auto path = dir / "db.drydb";
  EXPECT_TRUE(write_file(path, *bytes));
  return path;
}

// Every query of check_database over the model (a slice of the bound pairs), expecting only
// right answers, and more than 1,000 of them.
inline void expect_all_right(const drydb::ReadOnlyDatabase& db, const DbModel& m) {
  Outcome out;
  check_database(db, m, out, 5);
  EXPECT_TRUE(out.clean()) << out.errors << " errors (" << out.first_error << "), "
                           << out.wrong.size() << " wrong"
                           << (out.wrong.empty() ? "" : ": " + out.wrong[0]);
  EXPECT_GT(out.correct, 1000u);
}

// ---- page memory -------------------------------------------------------------------------------

// Opens a database with open(&alloc) (a CountingAllocator for its page memory) and runs
// body(db, alloc); then, with the database gone, expects every block of page memory returned
// exactly once, as it was allocated.
template <class Open, class Body>
void with_counted_pages(Open open, Body body) {
  CountingAllocator alloc;
  {
    auto db = open(&alloc);
    ASSERT_TRUE(db) << db.error().to_string();
    body(*db, alloc);
  }
  EXPECT_EQ(alloc.live_blocks(), 0u) << "page memory leaked";
  EXPECT_EQ(alloc.bad_frees(), 0u) << "page memory freed twice or never allocated";
  EXPECT_EQ(alloc.size_mismatches(), 0u);
}

// with_counted_pages of `bytes` opened through a page cache of `cache_bytes` (open_cached).
template <class Body>
void with_counted_cache(std::span<const std::byte> bytes, size_t cache_bytes, Body body) {
  with_counted_pages(
      [&](drydb::PageAllocator* alloc) { return open_cached(bytes, cache_bytes, alloc); }, body);
}

// ---- the file's bytes --------------------------------------------------------------------------

// What a byte of a drydb file is, from the format (detail/format.h).
enum class ByteUse : uint8_t {
  header,            // page 0, bytes 0..63: checksummed header
  header_padding,    // page 0, bytes 64..page_size-1: zero, read by nothing
  tree_page,         // a leaf or internal page: all of it is under its checksum
  overflow,          // an overflow run's header and value: under the run's checksum
  overflow_padding,  // after an overflow run's value, to the end of its last page: unused
  catalog,           // the catalog: under the catalog checksum in the header
};

inline constexpr std::array<const char*, 6> kByteUseNames = {
    "header", "header padding", "tree page", "overflow run", "overflow padding", "catalog"};
static_assert(names_every_value(kByteUseNames, ByteUse::catalog));

inline const char* use_name(ByteUse u) {
  return name_in(kByteUseNames, u);
}

struct FileMap {
  uint32_t page_size = 0;
  uint64_t page_count = 0;
  uint64_t catalog_offset = 0;
  std::vector<ByteUse> use;         // per byte
  std::vector<uint64_t> run_start;  // per page: the first page of its overflow run, or the page
  std::vector<uint8_t> page_type;   // per page: format PageType of the run's first page
};

// Classifies every byte of a valid file by walking its pages in order (each page is a leaf or
// internal page or starts an overflow run, whose following pages hold its value).
inline FileMap map_file(std::span<const std::byte> f) {
  using namespace drydb::detail;
  FileMap m;
  m.page_size = load_u32(f.data() + header::kPageSizeOff);
  m.page_count = load_u64(f.data() + header::kPageCountOff);
  m.catalog_offset = m.page_count * m.page_size;
  m.use.assign(f.size(), ByteUse::catalog);
  m.run_start.assign(m.page_count, 0);
  m.page_type.assign(m.page_count, 0);
  std::fill(m.use.begin(), m.use.begin() + header::kSize, ByteUse::header);
  std::fill(m.use.begin() + header::kSize, m.use.begin() + m.page_size, ByteUse::header_padding);
  for (uint64_t p = 1; p < m.page_count;) {
    const std::byte* page = f.data() + p * m.page_size;
    const auto type = static_cast<uint8_t>(page[page::kTypeOff]);
    if (type == static_cast<uint8_t>(PageType::overflow)) {
      const uint64_t len = load_u32(page + overflow::kLengthOff);
      const uint64_t pages = overflow::pages_for(len, m.page_size);
      const uint64_t begin = p * m.page_size, used = begin + overflow::kHeaderSize + len;
      const uint64_t end = (p + pages) * m.page_size;
      std::fill(m.use.begin() + static_cast<long>(begin), m.use.begin() + static_cast<long>(used),
                ByteUse::overflow);
      std::fill(m.use.begin() + static_cast<long>(used), m.use.begin() + static_cast<long>(end),
                ByteUse::overflow_padding);
      for (uint64_t q = p; q < p + pages; ++q) {
        m.run_start[q] = p;
        m.page_type[q] = type;
      }
      p += pages;
    } else {
      std::fill(m.use.begin() + static_cast<long>(p * m.page_size),
                m.use.begin() + static_cast<long>((p + 1) * m.page_size), ByteUse::tree_page);
      m.run_start[p] = p;
      m.page_type[p] = type;
      ++p;
    }
  }
  return m;
}

// After bytes at `offset` were changed, recomputes the checksum that covers them (using the
// original file's map `m`), so the change reaches the structural checks behind the checksum.
inline void fix_checksum_at(std::span<std::byte> f, const FileMap& m, uint64_t offset) {
  using namespace drydb::detail;
  switch (m.use[offset]) {
    case ByteUse::header:
      if (offset < header::kHeaderChecksumOff) fix_header_checksum(f);
      return;
    case ByteUse::catalog:
      fix_catalog_checksum(f);
      return;
    case ByteUse::tree_page: {
      std::byte* p = f.data() + (offset / m.page_size) * m.page_size;
      if (offset % m.page_size >= 8) store_u64(p, xxh3(p + 8, m.page_size - 8, checksum_seed(f)));
      return;
    }
    case ByteUse::overflow: {
      const uint64_t start = m.run_start[offset / m.page_size] * m.page_size;
      if (offset - start < 8) return;
      std::byte* p = f.data() + start;
      const uint64_t len = load_u32(p + overflow::kLengthOff);  // possibly the changed length
      if (start + overflow::kHeaderSize + len > f.size()) return;
      store_u64(p, xxh3(p + 8, overflow::kHeaderSize - 8 + len,
                        run_checksum_seed(f, m.run_start[offset / m.page_size])));
      return;
    }
    default:
      return;
  }
}

}  // namespace drydb_test
