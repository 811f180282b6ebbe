// The file is untrusted input (design.md §6): byte flips, truncation, bad headers, unknown
// versions and failing reads must give an error, never a crash, a hang, undefined behaviour or
// a silently wrong answer.
//
// The database under test (page size 512, so it has leaf, internal and overflow pages):
//   items  bytes keys, 240 rows, depth 3, values 0..60 bytes and every 11th an overflow value
//          (its pages store the prefix their keys share once)
//   nums   int64 keys, 160 rows, depth 2, 8-byte values (uniform leaves) and two overflow values
//   ids    uuid_v7 keys (16 bytes, stored whole), 50 rows
//   codes  a custom encoding of 3-byte keys (stored in the 8-byte prefix), 40 rows
//   empty  bytes keys, no rows
//   one    int64 keys, one row whose value is an overflow run
//
// What the byte-flip tests assert, exactly:
//   * No flip ever yields a wrong answer: every query either returns what the model holds or
//     returns an error (drydb::errc), and no walk runs longer than its table.
//   * Detection: every flip of a byte the format uses is reported as an error by open or by
//     some query of the full check (every page is checksummed and the full check reads every
//     page). The used bytes are the header (bytes 0..63), every byte of every leaf and internal
//     page, each overflow run's 16-byte header and value, and the catalog. The only bytes the
//     format leaves unused are page 0 after the 64-byte header and the zero padding after an
//     overflow value in its last page; queries may not notice flips there but, like every flip,
//     they must leave every answer correct or reported (verify() reports them:
//     VerifyReportsNonzeroUnusedBytes).
//   The detection rate per byte class is printed (and recorded as test properties); measured:
//   100% of used bytes, 0% of unused bytes (no query reads them).
// Every byte is flipped (xor 0xFF) through open_memory; single-bit flips, the page-cache path,
// real files (pread with a 3-page cache, and mmap) and flips behind recomputed checksums take
// every k-th byte to keep the run short (k doubles under sanitizers; under TSan, which checks
// nothing in these single-threaded sweeps, every sweep takes every 4th of its offsets).
#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <fstream>

#include "support/fault_util.h"

namespace drydb_test {
namespace {

using drydb::OpenOptions;
using drydb::ReadOnlyDatabase;
using drydb::StorageKind;
namespace fmt = drydb::detail;

DbModel make_model() {
  DbModel m;
  m.page_size = 512;
  TableModel items = make_table("items", drydb::KeyEncoding::bytes());
  for (uint32_t i = 0; i < 240; ++i) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "item/%05u", i * 7);
    std::string key = buf;
    if (i % 5 == 0) key += "/with-a-longer-suffix-" + std::to_string(i);
    size_t len = (i * 13) % 61;
    if (i % 11 == 3) len = 129 + (i * 97) % 500;  // overflow: inline limit is 128 at 512
    if (i == 25) len = 1400;                      // a run of 3 pages
    items.rows.emplace(key, make_value(i, len));
  }
  TableModel nums = make_table("nums", drydb::KeyEncoding::int64());
  for (int64_t i = 0; i < 160; ++i) {
    size_t len = 8;
    if (i == 100 || i == 159) len = 700;
    nums.rows.emplace(int64_key(i * 3 - 300), make_value(1000 + static_cast<uint64_t>(i), len));
  }
  TableModel ids = make_table("ids", drydb::KeyEncoding::uuid_v7());
  for (uint32_t i = 0; i < 50; ++i)
    ids.rows.emplace(make_value(5000 + i, 16), make_value(i, (i * 5) % 30));
  TableModel codes = make_table("codes", fixed_width_encoding(3));
  for (uint32_t i = 0; i < 40; ++i)
    codes.rows.emplace(std::string{char('A' + i / 26), char('a' + i % 26), char('0' + i % 10)},
                       make_value(i, i % 7));
  TableModel empty = make_table("empty", drydb::KeyEncoding::bytes());
  TableModel one = make_table("one", drydb::KeyEncoding::int64());
  one.rows.emplace(int64_key(42), make_value(7, 600));
  m.tables = {items, nums, ids, codes, empty, one};
  m.finish();
  return m;
}

struct Fixture {
  DbModel model;
  std::vector<std::byte> file;
  FileMap map;
};

const Fixture& fixture() {
  static const Fixture f = [] {
    Fixture x;
    x.model = make_model();
    x.file = build_memory(x.model);
    x.map = map_file(x.file);
    return x;
  }();
  return f;
}

// Counts per byte class.
struct ClassStats {
  uint64_t flips = 0, detected = 0;
};

struct SweepStats {
  std::array<ClassStats, 6> by_use{};
  std::vector<std::string> failures;
  uint64_t flips = 0, bad = 0;
  void fail(std::string s) {
    ++bad;
    if (failures.size() < 25) failures.push_back(std::move(s));
  }
  void report(const char* title) const {
    std::printf("[ %s ] %llu flips\n", title, static_cast<unsigned long long>(flips));
    for (size_t u = 0; u < by_use.size(); ++u) {
      const auto& s = by_use[u];
      if (s.flips == 0) continue;
      std::printf("    %-17s %7llu flips, %7llu detected (%.2f%%)\n",
                  use_name(static_cast<ByteUse>(u)), static_cast<unsigned long long>(s.flips),
                  static_cast<unsigned long long>(s.detected), 100.0 * s.detected / s.flips);
    }
  }
};

// Under TSan (which checks nothing in these single-threaded sweeps but slows them most) every
// sweep takes every 4th of its offsets.
constexpr uint64_t kThin = DRYDB_TEST_TSAN ? 4 : 1;

// A pseudo-random bit number for offset o, independent of the sweep's stride.
unsigned bit_of(uint64_t o) {
  return static_cast<unsigned>((o * 2654435761u) >> 11) % 8;
}

bool is_used(ByteUse u) {
  return u != ByteUse::header_padding && u != ByteUse::overflow_padding;
}

// The full check of an opened (possibly corrupted) database, or the error its open gave. The
// database is closed on return.
Outcome check_opened(drydb::result<ReadOnlyDatabase> db, const DbModel& model, uint64_t subset) {
  Outcome out;
  if (!db)
    out.error(db.error());
  else
    check_database(*db, model, out, subset);
  return out;
}

// Opens `bytes` (the caller's corrupted copy) and runs the full check.
Outcome check_bytes(std::span<const std::byte> bytes, const DbModel& model,
                    uint64_t subset = kEveryQuery) {
  return check_opened(ReadOnlyDatabase::open_memory(bytes), model, subset);
}

std::string where(uint64_t offset, uint8_t mask, const FileMap& m) {
  char buf[128];
  std::snprintf(buf, sizeof buf, "offset %llu (page %llu +%llu, %s) ^ 0x%02x",
                static_cast<unsigned long long>(offset),
                static_cast<unsigned long long>(offset / m.page_size),
                static_cast<unsigned long long>(offset % m.page_size), use_name(m.use[offset]),
                mask);
  return buf;
}

// Counts a flip of the byte at `offset` (xor `mask`) that the check answered with `out`, and
// fails it when an answer was wrong or a used byte's flip went unnoticed.
void record_flip(SweepStats& stats, uint64_t offset, uint8_t mask, const FileMap& m,
                 const Outcome& out) {
  const ByteUse use = m.use[offset];
  auto& cs = stats.by_use[static_cast<size_t>(use)];
  ++stats.flips;
  ++cs.flips;
  if (out.detected()) ++cs.detected;
  if (!out.wrong.empty())
    stats.fail(where(offset, mask, m) + ": wrong answer: " + out.wrong[0]);
  else if (is_used(use) && !out.detected())
    stats.fail(where(offset, mask, m) + ": flip of a used byte was not detected");
}

// Flips bytes of a copy of the file in place (xor `mask_of(offset)`), checks, restores.
template <class MaskOf, class Check>
SweepStats sweep(uint64_t stride, MaskOf mask_of, Check check) {
  const Fixture& f = fixture();
  std::vector<std::byte> copy = f.file;
  SweepStats stats;
  for (uint64_t o = 0; o < copy.size(); o += stride) {
    const uint8_t mask = mask_of(o);
    copy[o] ^= std::byte{mask};
    Outcome out = check(std::span<const std::byte>(copy), o / stride);
    copy[o] ^= std::byte{mask};
    record_flip(stats, o, mask, f.map, out);
  }
  return stats;
}

void expect_clean(const SweepStats& s, const char* title) {
  s.report(title);
  for (size_t u = 0; u < s.by_use.size(); ++u)
    if (s.by_use[u].flips)
      ::testing::Test::RecordProperty(
          std::string(title) + "." + use_name(static_cast<ByteUse>(u)),
          std::to_string(s.by_use[u].detected) + "/" + std::to_string(s.by_use[u].flips));
  EXPECT_EQ(s.bad, 0u) << "bad flips; the first ones:\n"
                       << [&] {
                            std::string all;
                            for (const auto& x : s.failures)
                              all += "  " + x + "\n";
                            return all;
                          }();
}

TEST(Corruption, FixtureHasEveryPageKind) {
  const Fixture& f = fixture();
  ASSERT_FALSE(f.file.empty());
  auto db = ReadOnlyDatabase::open_memory(f.file);
  ASSERT_TRUE(db) << db.error().to_string();
  auto items = db->table("items")->info();
  auto nums = db->table("nums")->info();
  EXPECT_EQ(items.depth, 3u);
  EXPECT_GT(items.internal_pages, 1u);
  EXPECT_GT(items.overflow_pages, 10u);
  EXPECT_GE(nums.depth, 2u);
  EXPECT_EQ(db->table("empty")->info().depth, 0u);
  EXPECT_EQ(db->table("one")->info().overflow_pages, 2u);
  // The file stays small enough to flip every byte.
  EXPECT_LT(f.file.size(), 64u * 1024);
  std::array<uint64_t, 6> uses{};
  for (ByteUse u : f.map.use)
    ++uses[static_cast<size_t>(u)];
  EXPECT_GT(uses[static_cast<size_t>(ByteUse::overflow_padding)], 0u);
  EXPECT_GT(uses[static_cast<size_t>(ByteUse::catalog)], 0u);
  // And the intact file passes the full check.
  Outcome out = check_bytes(f.file, f.model);
  EXPECT_TRUE(out.wrong.empty()) << out.wrong[0];
  EXPECT_EQ(out.errors, 0u);
  EXPECT_GT(out.correct, 500u);
}

// Every byte, xor 0xFF, through open_memory (the in-place read path mmap also uses).
TEST(Corruption, EveryByteFlippedInMemory) {
  const Fixture& f = fixture();
  auto t0 = std::chrono::steady_clock::now();
  SweepStats s = sweep(
      kThin, [](uint64_t) { return uint8_t{0xFF}; },
      [&](std::span<const std::byte> b, uint64_t subset) {
        return check_bytes(b, f.model, subset);
      });
  std::printf("    %.2f s\n",
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  expect_clean(s, "xor 0xFF, open_memory");
}

// Single-bit flips: every 4th byte (8th under sanitizers), a pseudo-random bit of each.
TEST(Corruption, SingleBitFlipsInMemory) {
  const Fixture& f = fixture();
  SweepStats s = sweep((4 + 4 * DRYDB_TEST_THINNED) * kThin,
                       [](uint64_t o) { return static_cast<uint8_t>(1u << bit_of(o)); },
                       [&](std::span<const std::byte> b, uint64_t subset) {
                         return check_bytes(b, f.model, subset);
                       });
  expect_clean(s, "single bit, open_memory");
}

// The same flips through the page cache: open_storage over a non-mapped storage with a cache
// of two pages, so pages are loaded, checked, evicted and reloaded during the check.
TEST(Corruption, ByteFlipsThroughPageCache) {
  const Fixture& f = fixture();
  SweepStats s = sweep((3 + 4 * DRYDB_TEST_THINNED) * kThin,
                       [](uint64_t o) { return bit_of(o) % 4 ? uint8_t{0xFF} : uint8_t{0x10}; },
                       [&](std::span<const std::byte> b, uint64_t subset) {
                         return check_opened(open_cached(b, 2 * 512), f.model, subset);
                       });
  expect_clean(s, "page cache (2 pages)");
}

// A subset through real files: open() with StorageKind::pread and a tiny cache, with mmap, and
// with the file read whole at open (StorageKind::memory).
TEST(Corruption, ByteFlipsThroughFiles) {
  const Fixture& f = fixture();
  TempDir dir;
  const auto path = dir / "db.drydb";
  ASSERT_TRUE(write_file(path, f.file));
  // Written in place byte by byte (std::fstream, on every platform), flushed before each open.
  std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
  ASSERT_TRUE(file.is_open());
  auto write_byte = [&](uint64_t offset, const std::byte& b) {
    file.seekp(static_cast<std::streamoff>(offset));
    file.write(reinterpret_cast<const char*>(&b), 1);
    file.flush();
    return file.good();
  };
  for (StorageKind kind : {StorageKind::pread, StorageKind::mmap, StorageKind::memory}) {
    SweepStats s;
    const uint64_t stride =
        (kind == StorageKind::pread ? 11 : 37) * (1 + DRYDB_TEST_THINNED) * kThin;
    for (uint64_t o = 0; o < f.file.size(); o += stride) {
      const uint8_t mask = static_cast<uint8_t>(o % 3 == 0 ? 0xFF : 1u << bit_of(o));
      std::byte b = f.file[o] ^ std::byte{mask};
      ASSERT_TRUE(write_byte(o, b));
      const Outcome out =
          check_opened(ReadOnlyDatabase::open(path, {.storage = kind, .page_cache_bytes = 3 * 512}),
                       f.model, o / stride);
      ASSERT_TRUE(write_byte(o, f.file[o]));
      record_flip(s, o, mask, f.map, out);
    }
    expect_clean(s, kind == StorageKind::pread  ? "file, pread, 3-page cache"
                    : kind == StorageKind::mmap ? "file, mmap"
                                                : "file, read whole at open");
  }
}

// The model of what `db` holds, read by a forward walk of each table; false (and `why`) if a
// walk fails or finds keys out of order.
bool model_of_scan(const ReadOnlyDatabase& db, DbModel* out, std::string* why) {
  out->tables.clear();
  for (const auto& table : db.tables()) {
    TableModel t = make_table(std::string(table.name()), table.encoding());
    drydb::Cursor c = table.cursor();
    std::string previous;
    for (bool on = c.first(); on; on = c.next()) {
      std::string key = to_string(c.key());
      if (!t.rows.empty() && key <= previous) {
        *why = "table " + t.name + ": keys out of order in a walk";
        return false;
      }
      previous = key;
      t.rows.emplace(std::move(key), to_string(c.value()));
    }
    if (!c.status()) {
      *why = "table " + t.name + ": " + describe(c.status().error());
      return false;
    }
    out->tables.push_back(std::move(t));
  }
  out->finish();
  return true;
}

// Flips whose checksum is then recomputed, so the change gets past the checksum and reaches
// the structural checks (offsets, lengths, counts, child references, key order). Answers may
// legitimately differ from the model here: a value byte changed under a valid checksum is a
// different, valid file. So what is asserted is that the file is either refused (by open, a
// query or verify()) or, when verify() passes, consistent with itself: every query answers as
// the model read from a full walk of the same file does (gets, seeks, ranges and counts agree
// with the scan). Nothing may crash, hang or trip a sanitizer. How the answers differ from the
// original model is printed.
TEST(Corruption, FlipsBehindRecomputedChecksums) {
  const Fixture& f = fixture();
  std::vector<std::byte> copy = f.file;
  uint64_t flips = 0, detected = 0, silent_changes = 0, harmless = 0, self_consistent = 0;
  std::vector<std::string> inconsistent;
  std::map<std::string, uint64_t> kinds;  // what the silently changed answers were
  auto kind_of = [](const std::string& w) -> std::string {
    for (const char* k :
         {"wrong value", "more rows", "with no error", "size ", "missed", "absent key",
          "count_range", "count()", "rank", "validity", "wrong row", "disagrees", "is "})
      if (w.find(k) != std::string::npos) return k;
    return "other";
  };
  // Every other used byte; every fourth under sanitizers.
  for (uint64_t o = 0; o < copy.size(); o += (2 + 2 * DRYDB_TEST_THINNED) * kThin) {
    const ByteUse use = f.map.use[o];
    if (!is_used(use)) continue;
    // xor 0xFF at two offsets of three, a single bit at the third.
    const uint8_t mask = o % 3 ? uint8_t{0xFF} : static_cast<uint8_t>(1u << bit_of(o));
    // (A flip of a checksum field is undone by the recomputation: it counts as harmless.)
    copy[o] ^= std::byte{mask};
    fix_checksum_at(copy, f.map, o);
    ++flips;
    auto db = ReadOnlyDatabase::open_memory(copy);
    Outcome out;
    if (!db)
      out.error(db.error());
    else
      check_database(*db, f.model, out, o);
    const bool verified = db && db->verify();
    if (out.detected() || !verified) {
      ++detected;
    } else {
      // A file verify() accepts: its answers must agree with its own scan.
      DbModel own;
      std::string why;
      Outcome self;
      if (!model_of_scan(*db, &own, &why)) {
        inconsistent.push_back(where(o, mask, f.map) + ": verify() passed but " + why);
      } else {
        check_database(*db, own, self, o);
        if (!self.clean())
          inconsistent.push_back(where(o, mask, f.map) + ": " +
                                 (self.wrong.empty() ? self.first_error : self.wrong[0]));
        else
          ++self_consistent;
      }
      if (!out.wrong.empty()) {
        ++silent_changes;
        ++kinds[use_name(use) + std::string(": ") + kind_of(out.wrong[0])];
      } else {
        ++harmless;
      }
    }
    std::memcpy(copy.data(), f.file.data(), copy.size());
  }
  std::printf(
      "[ checksum fixed up ] %llu flips: %llu refused (an error from open, a query or "
      "verify), %llu verified and changed answers (valid but different files), %llu verified "
      "and changed nothing\n",
      static_cast<unsigned long long>(flips), static_cast<unsigned long long>(detected),
      static_cast<unsigned long long>(silent_changes), static_cast<unsigned long long>(harmless));
  RecordProperty("fixup_detected", std::to_string(detected) + "/" + std::to_string(flips));
  for (const auto& [k, n] : kinds)
    std::printf("    verified, changed: %-40s %6llu\n", k.c_str(),
                static_cast<unsigned long long>(n));
  EXPECT_GT(flips, 5000u / (1 + DRYDB_TEST_THINNED) / kThin);
  EXPECT_GT(detected, flips / 10) << "the structural checks behind the checksums were reached";
  EXPECT_EQ(self_consistent, silent_changes + harmless);
  EXPECT_TRUE(inconsistent.empty())
      << inconsistent.size()
      << " verified files answer unlike their own scan; the first: " << inconsistent[0];
}

// Structural damage crafted behind valid checksums: the first or last child reference of every
// internal page pointed at every other page. Never a loop or a wrong answer from a query, and:
//   * a page no descent may reach there (the page itself: a cycle; an internal page of another
//     level, the root of its tree included; a leaf under a level-2 page; an overflow page;
//     page 0; past the end) is reported by the queries themselves, as corruption;
//   * a page of the right level (a leaf under a level-1 page, an internal page of the level
//     below, in this tree or another) makes a tree each page of which passes its own checks:
//     verify() must report it (a page reached twice, another never, fences, counts, siblings).
TEST(Corruption, CyclicAndMisdirectedChildReferences) {
  const Fixture& f = fixture();
  // Tree pages of the file, with their levels (leaves are level 0).
  std::vector<std::pair<uint64_t, uint16_t>> internals, tree_pages;
  for (uint64_t p = 1; p < f.map.page_count; ++p) {
    if (f.map.run_start[p] != p) continue;
    if (f.map.page_type[p] == uint8_t(fmt::PageType::internal)) {
      const uint16_t level =
          fmt::load_u16(f.file.data() + p * f.map.page_size + fmt::internal::kLevelOff);
      internals.emplace_back(p, level);
      tree_pages.emplace_back(p, level);
    } else if (f.map.page_type[p] == uint8_t(fmt::PageType::leaf)) {
      tree_pages.emplace_back(p, 0);
    }
  }
  ASSERT_GE(internals.size(), 3u);
  ASSERT_TRUE(std::any_of(internals.begin(), internals.end(), [](auto i) { return i.second == 2; }))
      << "the fixture has a tree of depth 3";
  uint64_t overflow_page = 0;
  for (uint64_t p = 1; p < f.map.page_count; ++p)
    if (f.map.page_type[p] == uint8_t(fmt::PageType::overflow)) {
      overflow_page = p;
      break;
    }
  ASSERT_NE(overflow_page, 0u);
  int by_queries = 0, by_verify = 0;
  std::vector<std::string> missed;
  for (auto [page, level] : internals) {
    const std::byte* original = f.file.data() + page * f.map.page_size;
    const uint16_t n = fmt::load_u16(original + fmt::page::kCountOff);
    // Targets: every tree page, an overflow page, page 0, past the end.
    std::vector<std::pair<uint64_t, int>> targets{
        {overflow_page, -1}, {0, -1}, {f.map.page_count, -1}, {~uint64_t{0}, -1}};
    for (auto [other, l] : tree_pages)
      targets.emplace_back(other, l);
    for (auto [target, target_level] : targets)
      for (uint16_t child : {uint16_t{0}, static_cast<uint16_t>(n - 1)}) {
        const size_t at = fmt::internal::children_off() + 8 * child;
        if (fmt::load_u64(original + at) == target) continue;  // its own child: no damage
        std::vector<std::byte> copy = f.file;
        fmt::store_u64(copy.data() + page * f.map.page_size + at, target);
        fix_checksum_at(copy, f.map, page * f.map.page_size + 16);
        const std::string what = "page " + std::to_string(page) + " (level " +
                                 std::to_string(level) + ") child " + std::to_string(child) +
                                 " -> page " + std::to_string(target) + " (level " +
                                 std::to_string(target_level) + ")";
        auto db = ReadOnlyDatabase::open_memory(copy);
        Outcome out;
        if (!db)
          out.error(db.error());
        else
          check_database(*db, f.model, out, static_cast<uint64_t>(by_queries + by_verify));
        const bool right_level = target_level == level - 1;
        if (!right_level) {
          ++by_queries;
          if (!out.detected()) missed.push_back(what + ": no query reported it");
          EXPECT_EQ(out.codes, std::set<int>{int(errc::corruption)}) << what;
          EXPECT_TRUE(out.wrong.empty()) << what << ": " << out.wrong[0];
          continue;
        }
        ++by_verify;
        ASSERT_TRUE(db) << what;
        const auto st = db->verify();
        if (st)
          missed.push_back(what + ": verify() passed");
        else
          EXPECT_EQ(st.code(), errc::corruption) << what << ": " << describe(st.error());
      }
  }
  std::printf("    %d misdirections the queries must see, %d only verify() can\n", by_queries,
              by_verify);
  EXPECT_GT(by_queries, 100);
  EXPECT_GT(by_verify, 100);
  EXPECT_TRUE(missed.empty()) << missed.size() << " went unreported; the first: " << missed[0];
}

// The bytes the format says are zero and no checksum covers (page 0 after the header, the
// padding after an overflow run's value): a nonzero one leaves every query's answer right
// (nothing reads it) and fails verify(), which names it.
TEST(Corruption, VerifyReportsNonzeroUnusedBytes) {
  const Fixture& f = fixture();
  std::vector<uint64_t> offsets = {fmt::header::kSize, f.map.page_size - 1};
  for (uint64_t p = 1; p < f.map.page_count; ++p) {
    if (f.map.run_start[p] != p || f.map.page_type[p] != uint8_t(fmt::PageType::overflow)) continue;
    const uint64_t at = p * f.map.page_size;
    const uint32_t length = fmt::load_u32(f.file.data() + at + fmt::overflow::kLengthOff);
    const uint64_t end = at + fmt::overflow::pages_for(length, f.map.page_size) * f.map.page_size;
    if (at + fmt::overflow::kHeaderSize + length < end) {
      offsets.push_back(at + fmt::overflow::kHeaderSize + length);
      offsets.push_back(end - 1);
    }
  }
  ASSERT_GT(offsets.size(), 6u) << "the fixture has overflow runs with padding";
  for (const uint64_t o : offsets) {
    SCOPED_TRACE(where(o, 0x01, f.map));
    std::vector<std::byte> copy = f.file;
    copy[o] ^= std::byte{0x01};
    auto db = ReadOnlyDatabase::open_memory(copy);
    ASSERT_TRUE(db) << describe(db.error());
    auto st = db->verify();
    ASSERT_FALSE(st);
    EXPECT_EQ(st.code(), errc::corruption);
    EXPECT_NE(st.error().message.find("padding is not zero"), std::string::npos)
        << st.error().message;
    Outcome out = check_bytes(copy, f.model);
    EXPECT_TRUE(out.wrong.empty()) << out.wrong[0];
    EXPECT_EQ(out.errors, 0u) << out.first_error;
  }
  auto db = ReadOnlyDatabase::open_memory(f.file);
  ASSERT_TRUE(db);
  EXPECT_TRUE(db->verify()) << "the file as built verifies";
}

// ---- verify()'s cross-page checks -------------------------------------------------------------

// Files whose every page passes its own checks (its checksum recomputed after the change) but
// that break an invariant spanning pages: separator fences, subtree row counts, sibling links,
// every page reached once. Each must open (pages are checked when read) and fail verify() with
// corruption and a message naming the broken invariant, never a page's own check.

// The pages [first, end) of each table's tree, from the tables' page counts: trees are written
// in table order, contiguously, from page 1 (the fixture has no miss filters or indexes).
std::map<std::string, std::pair<uint64_t, uint64_t>> tree_ranges(std::span<const std::byte> file) {
  std::map<std::string, std::pair<uint64_t, uint64_t>> out;
  auto db = ReadOnlyDatabase::open_memory(file);
  uint64_t first = 1;
  for (const auto& t : db->tables()) {
    const auto info = t.info();
    const uint64_t end = first + info.leaf_pages + info.internal_pages + info.overflow_pages;
    out[std::string(t.name())] = {first, end};
    first = end;
  }
  return out;
}

// The pages of `type` (and `level`, for internal pages) in [range.first, range.second).
std::vector<uint64_t> pages_of(const FileMap& m, std::span<const std::byte> file,
                               std::pair<uint64_t, uint64_t> range, fmt::PageType type,
                               uint16_t level = 0) {
  std::vector<uint64_t> out;
  for (uint64_t p = range.first; p < range.second; ++p)
    if (m.run_start[p] == p && m.page_type[p] == uint8_t(type) &&
        (type != fmt::PageType::internal ||
         fmt::load_u16(file.data() + p * m.page_size + fmt::internal::kLevelOff) == level))
      out.push_back(p);
  return out;
}

void expect_verify_reports(std::vector<std::byte>& copy, const FileMap& m,
                           const std::vector<uint64_t>& changed, const std::string& invariant) {
  for (uint64_t page : changed)
    fix_checksum_at(copy, m, page * m.page_size + 16);
  auto db = ReadOnlyDatabase::open_memory(copy);
  ASSERT_TRUE(db) << describe(db.error());
  const auto st = db->verify();
  ASSERT_FALSE(st) << "verify() passed a file that breaks: " << invariant;
  EXPECT_EQ(st.code(), errc::corruption) << describe(st.error());
  EXPECT_NE(st.error().message.find(invariant), std::string::npos) << st.error().message;
  EXPECT_EQ(st.error().message.find("checksum"), std::string::npos) << st.error().message;
}
void expect_verify_reports(std::vector<std::byte>& copy, const std::vector<uint64_t>& changed,
                           const std::string& invariant) {
  expect_verify_reports(copy, fixture().map, changed, invariant);
}

// An int64 tree of depth 3 (2,000 rows of 8-byte values, page size 512): its separators are
// their 8-byte big-endian prefixes alone, so a fence moves by rewriting one.
struct DeepTree {
  std::vector<std::byte> file;
  FileMap map;
  uint64_t root = 0;
};
const DeepTree& deep_tree() {
  static const DeepTree d = [] {
    DbModel m;
    m.page_size = 512;
    TableModel t = make_table("deep", drydb::KeyEncoding::int64());
    for (int64_t i = 0; i < 2000; ++i)
      t.rows.emplace(int64_key(i * 10), make_value(static_cast<uint64_t>(i), 8));
    m.tables = {t};
    m.finish();
    DeepTree x;
    x.file = build_memory(m);
    x.map = map_file(x.file);
    for (uint64_t p = 1; p < x.map.page_count; ++p)
      if (x.map.page_type[p] == uint8_t(fmt::PageType::internal) &&
          fmt::load_u16(x.file.data() + p * 512 + fmt::internal::kLevelOff) == 2)
        x.root = p;
    return x;
  }();
  return d;
}

uint16_t children_of(std::span<const std::byte> page) {
  return fmt::load_u16(page.data() + fmt::page::kCountOff);
}
uint64_t child_of(std::span<const std::byte> page, uint32_t i) {
  return fmt::load_u64(page.data() + fmt::internal::children_off() + 8 * size_t{i});
}
std::byte* separator_of(std::span<std::byte> page, uint32_t s) {
  return page.data() + fmt::internal::prefixes_off(children_of(page)) + 8 * size_t{s};
}

TEST(VerifyCrossPage, SeparatorFences) {
  const DeepTree& d = deep_tree();
  ASSERT_NE(d.root, 0u) << "the tree has depth 3";
  auto page = [&](std::vector<std::byte>& f, uint64_t p) {
    return std::span<std::byte>(f.data() + p * 512, 512);
  };
  auto leaf_key = [&](uint64_t leaf, bool last) {
    fmt::LeafView v(d.file.data() + leaf * 512, fmt::KeyLayout{8});
    fmt::KeyBuffer buf;
    return fmt::load_be64(v.key(last ? v.size() - 1 : 0, buf).data());
  };
  std::vector<std::byte> original = d.file;
  const uint64_t mid = child_of(page(original, d.root), 1);  // a level-1 page with a low fence
  const uint64_t root_sep = fmt::load_be64(separator_of(page(original, d.root), 0));
  const uint64_t leaf0 = child_of(page(original, mid), 0), leaf1 = child_of(page(original, mid), 1);
  struct Case {
    const char* what;
    uint64_t separator;  // the new separator 0 of `mid`, still between its neighbours
    const char* invariant;
  };
  const Case cases[] = {
      {"below its first child's last key", leaf_key(leaf0, true),
       "a key is not below the next separator"},
      {"above its second child's first key", leaf_key(leaf1, false) + 1,
       "a key is below its separator"},
      {"at the parent's separator before it", root_sep, "a separator is not above its lower fence"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    std::vector<std::byte> copy = d.file;
    fmt::store_be64(separator_of(page(copy, mid), 0), c.separator);
    expect_verify_reports(copy, d.map, {mid}, c.invariant);
  }
  // Byte keys stored after a shared prefix: two children of a level-1 page swapped (each leaf
  // still reached once), so the first holds keys at or above the separator after it.
  const Fixture& f = fixture();
  const auto items = tree_ranges(f.file).at("items");
  const auto pages = pages_of(f.map, f.file, items, fmt::PageType::internal, 1);
  ASSERT_FALSE(pages.empty());
  std::vector<std::byte> copy = f.file;
  std::byte* p = copy.data() + pages[0] * f.map.page_size + fmt::internal::children_off();
  const uint64_t a = fmt::load_u64(p), b = fmt::load_u64(p + 8);
  fmt::store_u64(p, b);
  fmt::store_u64(p + 8, a);
  expect_verify_reports(copy, {pages[0]}, "a key is not below the next separator");
}

TEST(VerifyCrossPage, SubtreeRowCounts) {
  const Fixture& f = fixture();
  const auto nums = tree_ranges(f.file).at("nums");
  const auto pages = pages_of(f.map, f.file, nums, fmt::PageType::internal, 1);
  ASSERT_FALSE(pages.empty());
  // One row moved from child 1's count to child 0's: the counts still rise strictly and end at
  // the tree's total, but child 0 holds one row fewer than its parent records.
  std::vector<std::byte> copy = f.file;
  std::byte* page = copy.data() + pages[0] * f.map.page_size;
  const uint16_t n = fmt::load_u16(page + fmt::page::kCountOff);
  ASSERT_GE(n, 3);
  std::byte* cumulative = page + fmt::internal::children_off() + 8 * size_t{n};
  const uint64_t c0 = fmt::load_u64(cumulative), c1 = fmt::load_u64(cumulative + 8);
  ASSERT_LT(c0 + 1, c1);
  fmt::store_u64(cumulative, c0 + 1);
  expect_verify_reports(
      copy, {pages[0]},
      "child 0 holds " + std::to_string(c0) + " rows; the page records " + std::to_string(c0 + 1));
}

TEST(VerifyCrossPage, SiblingLinks) {
  const Fixture& f = fixture();
  const auto nums = tree_ranges(f.file).at("nums");
  const auto leaves = pages_of(f.map, f.file, nums, fmt::PageType::leaf);
  ASSERT_GE(leaves.size(), 3u);
  struct Case {
    const char* what;
    uint64_t page;
    size_t field;
    uint64_t to;
    const char* invariant;
  };
  const Case cases[] = {
      {"next skips a leaf", leaves[0], fmt::leaf::kNextOff, leaves[2],
       "its next-sibling link is wrong"},
      {"prev of the second leaf is 0", leaves[1], fmt::leaf::kPrevOff, 0,
       "its previous-sibling link is wrong"},
      {"prev points at itself", leaves[1], fmt::leaf::kPrevOff, leaves[1],
       "its previous-sibling link is wrong"},
      {"the last leaf has a next", leaves.back(), fmt::leaf::kNextOff, leaves[0],
       "the last leaf has a next sibling"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    std::vector<std::byte> copy = f.file;
    fmt::store_u64(copy.data() + c.page * f.map.page_size + c.field, c.to);
    expect_verify_reports(copy, {c.page}, c.invariant);
  }
}

TEST(VerifyCrossPage, EveryPageReachedOnce) {
  const Fixture& f = fixture();
  const auto items = tree_ranges(f.file).at("items");
  // Two overflow references of the items tree, in different leaves.
  std::vector<std::pair<uint64_t, size_t>> refs;  // leaf page, offset of the value field
  for (uint64_t leaf : pages_of(f.map, f.file, items, fmt::PageType::leaf)) {
    const std::byte* p = f.file.data() + leaf * f.map.page_size;
    fmt::LeafView view(p, fmt::KeyLayout{0});
    for (uint32_t i = 0; i < view.size(); ++i)
      if (view.is_overflow(i)) {
        if (refs.empty() || refs.back().first != leaf)
          refs.emplace_back(leaf, static_cast<size_t>(view.value_field(i).data() - p));
        break;
      }
    if (refs.size() == 2) break;
  }
  ASSERT_EQ(refs.size(), 2u);
  // The first reference made a copy of the second (page and length): that run is reached
  // twice, the first one never.
  std::vector<std::byte> copy = f.file;
  std::byte* first = copy.data() + refs[0].first * f.map.page_size + refs[0].second;
  const std::byte* second = f.file.data() + refs[1].first * f.map.page_size + refs[1].second;
  std::memcpy(first, second, 12);
  expect_verify_reports(copy, {refs[0].first}, "reached twice");
}

// Truncation at every length: open fails with errc::truncated (the header records the file's
// length; shorter than a header is truncated too), never a crash.
TEST(Corruption, TruncatedAtEveryLength) {
  const Fixture& f = fixture();
  std::map<int, uint64_t> codes;
  for (size_t len = 0; len < f.file.size(); ++len) {
    auto db = ReadOnlyDatabase::open_memory(std::span<const std::byte>(f.file.data(), len));
    ASSERT_FALSE(db) << "a file cut to " << len << " bytes opened";
    const auto c = db.code();
    ASSERT_TRUE(c == errc::truncated || c == errc::corruption || c == errc::bad_magic)
        << len << ": " << db.error().to_string();
    ++codes[c.value()];
    EXPECT_EQ(c, errc::truncated) << "cut to " << len << ": " << db.error().to_string();
  }
  EXPECT_EQ(codes.size(), 1u);
}

TEST(Corruption, TruncatedFilesOnDisk) {
  const Fixture& f = fixture();
  TempDir dir;
  const auto path = dir / "db.drydb";
  for (size_t len :
       {size_t{0}, size_t{1}, size_t{3}, size_t{4}, size_t{63}, size_t{64}, size_t{511},
        size_t{512}, size_t{513}, f.file.size() / 2, f.map.catalog_offset, f.file.size() - 1}) {
    ASSERT_TRUE(write_file(path, std::span<const std::byte>(f.file.data(), len)));
    for (StorageKind kind : {StorageKind::mmap, StorageKind::pread, StorageKind::memory}) {
      auto db = ReadOnlyDatabase::open(path, {.storage = kind});
      ASSERT_FALSE(db) << len;
      EXPECT_EQ(db.code(), errc::truncated) << len << ": " << db.error().to_string();
    }
  }
}

// A file longer than its header says is not truncated but still not the file that was built.
TEST(Corruption, TrailingBytesAreCorruption) {
  std::vector<std::byte> copy = fixture().file;
  copy.push_back(std::byte{0});
  auto db = ReadOnlyDatabase::open_memory(copy);
  ASSERT_FALSE(db);
  EXPECT_EQ(db.code(), errc::corruption) << db.error().to_string();
}

// ---- header fields ------------------------------------------------------------------------------

drydb::result<ReadOnlyDatabase> open_with_header(std::vector<std::byte>& copy) {
  fix_header_checksum(copy);
  return ReadOnlyDatabase::open_memory(copy);
}

// A file cut at the end of its pages, with a header claiming an empty catalog: a clear error,
// through every storage path (an empty read once reached memcpy with a null pointer).
TEST(FileHeader, EmptyCatalogIsCorruption) {
  std::vector<std::byte> copy = fixture().file;
  const uint64_t pages = fmt::load_u64(copy.data() + fmt::header::kPageCountOff);
  const uint64_t page_size = fmt::load_u32(copy.data() + fmt::header::kPageSizeOff);
  copy.resize(pages * page_size);
  fmt::store_u64(copy.data() + fmt::header::kFileLengthOff, copy.size());
  fmt::store_u64(copy.data() + fmt::header::kCatalogLengthOff, 0);
  fix_header_checksum(copy);
  for (bool cached : {false, true}) {
    auto db = cached ? open_cached(copy, 1 << 20) : ReadOnlyDatabase::open_memory(copy);
    ASSERT_FALSE(db);
    EXPECT_EQ(db.code(), errc::corruption) << db.error().to_string();
  }
}

TEST(FileHeader, WrongMagicIsBadMagic) {
  for (size_t i = 0; i < 4; ++i) {
    std::vector<std::byte> copy = fixture().file;
    copy[i] ^= std::byte{0x20};
    auto db = open_with_header(copy);
    ASSERT_FALSE(db);
    EXPECT_EQ(db.code(), errc::bad_magic) << i << ": " << db.error().to_string();
  }
  // Not a drydb file at all: zeros, text, and the C# DryDB 1.0 header (DRY\0 1.0 is caught by
  // the version instead: see MajorVersions).
  std::vector<std::byte> zeros(4096);
  EXPECT_EQ(ReadOnlyDatabase::open_memory(zeros).code(), errc::bad_magic);
  std::string text = "SQLite format 3\0 and then some more bytes to pass the header size......";
  EXPECT_EQ(ReadOnlyDatabase::open_memory(as_bytes(text)).code(), errc::bad_magic);
  EXPECT_EQ(ReadOnlyDatabase::open_memory(as_bytes("DRX")).code(), errc::truncated);
  EXPECT_EQ(ReadOnlyDatabase::open_memory(as_bytes("XYZW")).code(), errc::bad_magic);
}

TEST(FileHeader, MajorVersions) {
  for (uint16_t major : {uint16_t{0}, uint16_t{1}, uint16_t{3}, uint16_t{0xFFFF}}) {
    std::vector<std::byte> copy = fixture().file;
    fmt::store_u16(copy.data() + fmt::header::kMajorOff, major);
    auto db = open_with_header(copy);
    ASSERT_FALSE(db) << major;
    EXPECT_EQ(db.code(), errc::unsupported_version) << major << ": " << db.error().to_string();
    EXPECT_NE(db.error().message.find(std::to_string(major)), std::string::npos)
        << db.error().message;
  }
}

// The minor version only adds what old readers may skip: a higher minor opens and reads.
TEST(FileHeader, HigherMinorVersionOpens) {
  std::vector<std::byte> copy = fixture().file;
  fmt::store_u16(copy.data() + fmt::header::kMinorOff, 9);
  auto db = open_with_header(copy);
  ASSERT_TRUE(db) << db.error().to_string();
  Outcome out;
  check_database(*db, fixture().model, out);
  EXPECT_TRUE(out.wrong.empty()) << out.wrong[0];
  EXPECT_EQ(out.errors, 0u);
}

TEST(FileHeader, UnknownRequiredFeatureIsUnsupportedVersion) {
  // Bits 0 (filtered pages), 1 (miss filters) and 3 (column lists) are known:
  // on a file without filters or column lists they are corrupt (and, without
  // bit 4, its identity field must be zero). Bit 2 (prefixed keys) is known
  // too; it only says which readers may read the file (PrefixedKeys tests
  // cover it), and bits 4 (file identity) and 5 (placed overflow runs) the
  // FileIdentity tests.
  for (uint32_t bit :
       {fmt::kFeatureFilteredPages, fmt::kFeatureMissFilters, fmt::kFeatureColumnLists}) {
    std::vector<std::byte> copy = fixture().file;
    fmt::store_u32(copy.data() + fmt::header::kRequiredFeaturesOff, bit);
    auto db = open_with_header(copy);
    ASSERT_FALSE(db);
    EXPECT_EQ(db.code(), errc::corruption) << db.error().to_string();
  }
  for (int bit : {6, 7, 16, 31}) {
    std::vector<std::byte> copy = fixture().file;
    fmt::store_u32(copy.data() + fmt::header::kRequiredFeaturesOff, uint32_t{1} << bit);
    auto db = open_with_header(copy);
    ASSERT_FALSE(db) << bit;
    EXPECT_EQ(db.code(), errc::unsupported_version) << bit << ": " << db.error().to_string();
  }
}

TEST(FileHeader, InconsistentFieldsAreErrors) {
  const auto& file = fixture().file;
  struct Case {
    const char* what;
    size_t off;
    int width;
    uint64_t value;
    errc want;
  };
  const uint64_t size = file.size();
  const Case cases[] = {
      {"page size 256", fmt::header::kPageSizeOff, 4, 256, errc::corruption},
      {"page size 1000", fmt::header::kPageSizeOff, 4, 1000, errc::corruption},
      {"page size 128 KiB", fmt::header::kPageSizeOff, 4, 131072, errc::corruption},
      {"page size 0", fmt::header::kPageSizeOff, 4, 0, errc::corruption},
      {"page size 1024", fmt::header::kPageSizeOff, 4, 1024, errc::corruption},
      {"longer file", fmt::header::kFileLengthOff, 8, size + 1, errc::truncated},
      {"huge file", fmt::header::kFileLengthOff, 8, ~uint64_t{0}, errc::truncated},
      {"shorter file", fmt::header::kFileLengthOff, 8, size - 1, errc::corruption},
      {"no pages", fmt::header::kPageCountOff, 8, 0, errc::corruption},
      {"too many pages", fmt::header::kPageCountOff, 8, size / 512 + 1, errc::corruption},
      {"huge page count", fmt::header::kPageCountOff, 8, ~uint64_t{0} / 512, errc::corruption},
      {"catalog length", fmt::header::kCatalogLengthOff, 8, 3, errc::corruption},
      {"catalog checksum", fmt::header::kCatalogChecksumOff, 8, 12345, errc::corruption},
      // The identity seeds the catalog's and every page's checksum: another one fails them.
      {"another identity", fmt::header::kIdentityOff, 8, 1, errc::corruption},
      {"identity 0", fmt::header::kIdentityOff, 8, 0, errc::corruption},
  };
  for (const Case& c : cases) {
    std::vector<std::byte> copy = file;
    if (c.width == 4)
      fmt::store_u32(copy.data() + c.off, static_cast<uint32_t>(c.value));
    else
      fmt::store_u64(copy.data() + c.off, c.value);
    auto db = open_with_header(copy);
    Outcome out;
    if (db) {
      check_database(*db, fixture().model, out);
      EXPECT_TRUE(out.wrong.empty()) << c.what << ": " << out.wrong[0];
      EXPECT_TRUE(out.detected()) << c.what << ": opened and answered without an error";
    } else {
      EXPECT_EQ(db.code(), c.want) << c.what << ": " << db.error().to_string();
    }
  }
}

// ---- read failures
// --------------------------------------------------------------------------------

// A storage whose reads of one page fail: every query touching that page returns the error,
// nothing else is wrong, and the failure is not remembered: once reads work again, so does
// every query (a failed load must not poison the cache).
TEST(Corruption, ReadFailuresOfEachPage) {
  const Fixture& f = fixture();
  for (uint64_t page = 1; page < f.map.page_count; ++page) {
    auto storage = std::make_unique<MemoryStorage>(f.file);
    MemoryStorage* raw = storage.get();
    auto db = ReadOnlyDatabase::open_storage(std::move(storage), {.page_cache_bytes = 2 * 512});
    ASSERT_TRUE(db) << db.error().to_string();
    raw->fail_page = page;
    Outcome out;
    check_database(*db, f.model, out, page);
    EXPECT_TRUE(out.wrong.empty()) << "page " << page << ": " << out.wrong[0];
    EXPECT_TRUE(out.codes.count(int(errc::io_error))) << "page " << page << " was never read";
    raw->fail_page = 0;
    Outcome again;
    check_database(*db, f.model, again, page + 1);
    EXPECT_TRUE(again.wrong.empty()) << "page " << page << ": " << again.wrong[0];
    EXPECT_EQ(again.errors, 0u) << "page " << page << ": a failed read was remembered";
  }
  // A failing catalog read fails the open with the storage's error.
  auto storage = std::make_unique<MemoryStorage>(f.file);
  storage->fail_page = f.map.page_count;
  auto db = ReadOnlyDatabase::open_storage(std::move(storage));
  ASSERT_FALSE(db);
  EXPECT_EQ(db.code(), errc::io_error);
}

// 64 KiB pages, where 16-bit offsets and lengths approach their limits: full leaves of the
// largest inline values, keys of the maximum length (16,320 bytes), a leaf of thousands of
// small records, and an overflow run. Plain flips every 997th byte must all be detected;
// flips behind recomputed checksums of each page's first 96 bytes (headers, prefixes,
// offsets, counts, children), 32 pseudo-random bytes of each page and every catalog byte must
// never crash. (Every check re-verifies 64 KiB pages, so the check is
// lighter than elsewhere: a forward walk of every table, which reads every page, plus gets of
// every 50th key and a few counts.)
TEST(Corruption, LargePagesFlipsAndFixups) {
  DbModel m;
  m.page_size = 65536;
  TableModel small = make_table("small", drydb::KeyEncoding::bytes());
  for (int i = 0; i < 3000; ++i)
    small.rows.emplace(std::to_string(1000000 + i * 3), make_value(i, i % 9));
  TableModel wide = make_table("wide", drydb::KeyEncoding::int64());
  for (int i = 0; i < 8; ++i)
    wide.rows.emplace(int64_key(i), make_value(100 + i, 16384));
  TableModel big_keys = make_table("big_keys", drydb::KeyEncoding::bytes());
  for (int i = 0; i < 4; ++i)
    big_keys.rows.emplace(std::string(16319, 'K') + char('a' + i), make_value(200 + i, 16000));
  TableModel blob = make_table("blob", drydb::KeyEncoding::bytes());
  blob.rows.emplace("blob", make_value(7, 70000));
  m.tables = {small, wide, big_keys, blob};
  m.finish();
  const std::vector<std::byte> file = build_memory(m);
  const FileMap map = map_file(file);
  ASSERT_GE(map.page_count, 10u);
  std::vector<std::byte> copy = file;
  uint64_t plain = 0, fixups = 0, fixup_detected = 0;
  std::vector<std::string> bad;
  const uint64_t thin = (1 + DRYDB_TEST_THINNED) * kThin;
  auto light_check = [&](std::span<const std::byte> bytes, uint64_t subset) {
    Outcome out;
    auto db = ReadOnlyDatabase::open_memory(bytes);
    if (!db) {
      out.error(db.error());
      return out;
    }
    for (const auto& t : m.tables) {
      auto table = db->table(t.name);
      if (!table) {
        out.mismatch("missing table " + t.name);
        continue;
      }
      check_walk(*table, t, true, out);
      for (size_t i = subset % 50; i < t.size(); i += 50)
        check_get(*table, t, t.sorted[i].first, out);
      const size_t a = subset % (t.size() + 1), b = (subset / 7) % (t.size() + 1);
      check_count(*table, t, a < t.size() ? Bound::at(t.sorted[a].first) : Bound::none(),
                  b < t.size() ? Bound::at(t.sorted[b].first) : Bound::none(), {}, out);
    }
    return out;
  };
  for (uint64_t o = 0; o < copy.size(); o += 997 * thin) {
    copy[o] ^= std::byte{0xFF};
    Outcome out = light_check(copy, o);
    copy[o] ^= std::byte{0xFF};
    ++plain;
    if (!out.wrong.empty())
      bad.push_back(where(o, 0xFF, map) + ": " + out.wrong[0]);
    else if (is_used(map.use[o]) && !out.detected())
      bad.push_back(where(o, 0xFF, map) + ": not detected");
  }
  std::vector<uint64_t> targets;
  for (uint64_t p = 1; p < map.page_count; ++p) {
    if (map.run_start[p] != p) continue;
    for (uint64_t b = 8; b < 96; b += thin)
      targets.push_back(p * 65536 + b);
    for (uint64_t k = 0; k < 32 / thin; ++k)
      targets.push_back(p * 65536 + 8 + (k * 2654435761u + p) % (65536 - 8));
  }
  for (uint64_t o = map.catalog_offset; o < copy.size(); o += thin)
    targets.push_back(o);
  for (uint64_t o : targets) {
    if (!is_used(map.use[o])) continue;
    const uint8_t mask = o % 3 ? uint8_t{0xFF} : static_cast<uint8_t>(1u << bit_of(o));
    copy[o] ^= std::byte{mask};
    fix_checksum_at(copy, map, o);
    Outcome out = light_check(copy, o);
    ++fixups;
    if (out.detected()) ++fixup_detected;
    std::memcpy(copy.data(), file.data(), copy.size());
  }
  std::printf(
      "[ 64 KiB pages ] %llu plain flips, %llu flips behind fixed checksums (%llu "
      "reported as errors)\n",
      static_cast<unsigned long long>(plain), static_cast<unsigned long long>(fixups),
      static_cast<unsigned long long>(fixup_detected));
  EXPECT_TRUE(bad.empty()) << bad.size() << " bad flips; first: " << bad[0];
  EXPECT_GT(fixups, 300u / thin);
}

// A PageAllocator that fails: queries needing the page give errc::out_of_memory (never a
// crash or a wrong answer), nothing leaks, and once memory is available again every query
// answers. Also storage whose reads fail at random (every n-th read).
TEST(Corruption, AllocationAndReadFailuresUnderAPageCache) {
  const Fixture& f = fixture();
  for (uint64_t every : {2u, 3u, 7u, 19u}) {
    SCOPED_TRACE("every " + std::to_string(every));
    CountingAllocator alloc;
    {
      auto storage = std::make_unique<MemoryStorage>(f.file);
      MemoryStorage* raw = storage.get();
      auto db = ReadOnlyDatabase::open_storage(std::move(storage),
                                               {.page_cache_bytes = 4 * 512, .allocator = &alloc});
      ASSERT_TRUE(db);
      alloc.fail_every = every;
      Outcome out;
      check_database(*db, f.model, out, every);
      EXPECT_TRUE(out.wrong.empty()) << out.wrong[0];
      EXPECT_TRUE(out.detected());
      for (int code : out.codes)
        EXPECT_EQ(code, int(errc::out_of_memory)) << out.first_error;
      alloc.fail_every = 0;
      raw->fail_every = every + 1;
      Outcome reads;
      check_database(*db, f.model, reads, every + 1);
      EXPECT_TRUE(reads.wrong.empty()) << reads.wrong[0];
      EXPECT_TRUE(reads.detected());
      for (int code : reads.codes)
        EXPECT_EQ(code, int(errc::io_error)) << reads.first_error;
      raw->fail_every = 0;
      Outcome again;
      check_database(*db, f.model, again, every + 2);
      EXPECT_TRUE(again.wrong.empty()) << again.wrong[0];
      EXPECT_EQ(again.errors, 0u) << again.first_error;
    }
    EXPECT_EQ(alloc.live_blocks(), 0u);
    EXPECT_EQ(alloc.bad_frees(), 0u);
  }
}

}  // namespace
}  // namespace drydb_test
