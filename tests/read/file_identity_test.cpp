// What ties the pages a reader reads to the file it opened (docs/format.md, "File identity" and
// "Checking"): the identity of format 2.4, derived from the rows and options and seeding every
// checksum but the header's, and the fences a descent checks a page it loads against. A page of
// another file fails its checksum; a page of this file in another page's place fails its fences;
// an overflow run in another run's place fails its checksum, seeded with its first page too
// (format 2.5); none gives an answer.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "support/fault_util.h"

namespace drydb_test {
namespace {

namespace fmt = drydb::detail;
using drydb::ReadOnlyDatabase;
using drydb::StorageKind;

uint64_t header_identity(std::span<const std::byte> f) {
  return fmt::load_u64(f.data() + fmt::header::kIdentityOff);
}

// "nums": 3,000 int64 keys 0, 7, 14, ... with 20-byte values, page size 512: leaves under two
// internal levels.
DbModel numbers() {
  DbModel m;
  m.page_size = 512;
  TableModel nums = make_table("nums", drydb::KeyEncoding::int64());
  for (int64_t i = 0; i < 3000; ++i)
    nums.rows.emplace(int64_key(i * 7), make_value(static_cast<uint64_t>(i), 20));
  m.tables = {std::move(nums)};
  m.finish();
  return m;
}

TEST(FileIdentity, DerivedFromRowsAndOptionsNotAppendOrder) {
  const DbModel m = numbers();
  const auto file = build_database(m);
  ASSERT_TRUE(file) << file.error().to_string();
  const uint32_t features = fmt::load_u32(file->data() + fmt::header::kRequiredFeaturesOff);
  EXPECT_TRUE(features & fmt::kFeatureFileIdentity);
  EXPECT_EQ(fmt::load_u16(file->data() + fmt::header::kMinorOff), fmt::kFormatMinor);
  const uint64_t identity = header_identity(*file);
  EXPECT_NE(identity, 0u);
  auto db = ReadOnlyDatabase::open_memory(*file);
  ASSERT_TRUE(db);
  EXPECT_EQ(db->identity(), identity);

  // The same rows appended in reverse: the same bytes.
  drydb::DatabaseBuilder reversed({.page_size = 512});
  auto& t = reversed.create_table("nums", drydb::KeyEncoding::int64());
  const TableModel& want = *m.find("nums");
  for (auto it = want.sorted.rbegin(); it != want.sorted.rend(); ++it)
    t.append(key_of(want, it->first), std::as_bytes(std::span(it->second)));
  auto again = reversed.build_to_memory();
  ASSERT_TRUE(again);
  EXPECT_TRUE(*again == *file);

  // One value changed (same length), one option changed: another identity.
  DbModel changed = m;
  changed.tables[0].rows.begin()->second[0] ^= 1;
  changed.finish();
  auto other = build_database(changed);
  ASSERT_TRUE(other);
  EXPECT_EQ(other->size(), file->size());
  EXPECT_NE(header_identity(*other), identity);
  drydb::BuildOptions options;
  options.page_size = 512;
  options.prefixed_keys = false;
  auto no_prefixes = build_database(m, options);
  ASSERT_TRUE(no_prefixes);
  EXPECT_NE(header_identity(*no_prefixes), identity);

  // Without the identity: checksums as format 2.3 wrote them, for older readers.
  options = {};
  options.file_identity = false;
  auto plain = build_database(m, options);
  ASSERT_TRUE(plain);
  EXPECT_FALSE(fmt::load_u32(plain->data() + fmt::header::kRequiredFeaturesOff) &
               fmt::kFeatureFileIdentity);
  EXPECT_EQ(header_identity(*plain), 0u);
  const uint64_t leaf_at = uint64_t{m.page_size} * 1;
  EXPECT_EQ(fmt::load_u64(plain->data() + leaf_at),
            drydb_test::xxh3(plain->data() + leaf_at + 8, m.page_size - 8));
  auto plain_db = ReadOnlyDatabase::open_memory(*plain);
  ASSERT_TRUE(plain_db);
  EXPECT_EQ(plain_db->identity(), 0u);
  expect_all_right(*plain_db, m);
}

TEST(FileIdentity, APageOfAnotherFileFailsItsChecksum) {
  const DbModel m = numbers();
  DbModel changed = m;
  changed.tables[0].rows.begin()->second[0] ^= 1;  // the first leaf differs, nothing else
  changed.finish();
  auto file = build_database(m);
  auto other = build_database(changed);
  ASSERT_TRUE(file && other);
  const FileMap map = map_file(*file);
  // Every leaf but the first is byte for byte the same in both files but for its checksum.
  uint64_t leaf = 0;
  for (uint64_t p = map.page_count - 1; p > 0 && leaf == 0; --p)
    if (map.page_type[p] == static_cast<uint8_t>(fmt::PageType::leaf)) leaf = p;
  ASSERT_NE(leaf, 0u);
  const size_t at = leaf * map.page_size;
  EXPECT_TRUE(std::equal(file->begin() + at + 8, file->begin() + at + map.page_size,
                         other->begin() + at + 8));
  EXPECT_NE(fmt::load_u64(file->data() + at), fmt::load_u64(other->data() + at));
  std::vector<std::byte> mixed = *file;
  std::copy(other->begin() + at, other->begin() + at + map.page_size, mixed.begin() + at);
  auto db = ReadOnlyDatabase::open_memory(mixed);
  ASSERT_TRUE(db);
  Outcome out;
  check_database(*db, m, out, 5);
  EXPECT_TRUE(out.wrong.empty()) << out.wrong[0];
  EXPECT_GT(out.errors, 0u);
  EXPECT_NE(out.first_error.find("page " + std::to_string(leaf) + ": checksum mismatch"),
            std::string::npos)
      << out.first_error;
}

// Pages 1 .. of `file` rewritten as a file of format 2.3 would have them: no identity, every
// checksum seeded with 0 (what a file built before 2.4 is).
std::vector<std::byte> without_identity(std::vector<std::byte> file) {
  const uint32_t features = fmt::load_u32(file.data() + fmt::header::kRequiredFeaturesOff);
  fmt::store_u32(file.data() + fmt::header::kRequiredFeaturesOff,
                 features & ~fmt::kFeatureFileIdentity);
  fmt::store_u64(file.data() + fmt::header::kIdentityOff, 0);
  fmt::store_u16(file.data() + fmt::header::kMinorOff, 3);
  drydb_test::fix_all_checksums(file);
  return file;
}

// Two leaves of one file swapped: both keep valid checksums (same file, same seed), but each
// holds keys outside the fences its parent gives it, in a file with an identity and in one of
// an earlier format, through every storage.
TEST(FileIdentity, ALeafInAnotherLeafsPlaceFailsItsFences) {
  const DbModel m = numbers();
  auto built = build_database(m);
  ASSERT_TRUE(built);
  for (const bool identity : {true, false}) {
    SCOPED_TRACE(identity ? "format 2.4" : "no identity");
    std::vector<std::byte> file = identity ? *built : without_identity(*built);
    ASSERT_TRUE(ReadOnlyDatabase::open_memory(file)->verify());
    const FileMap map = map_file(file);
    std::vector<uint64_t> leaves;
    for (uint64_t p = 1; p < map.page_count; ++p)
      if (map.page_type[p] == static_cast<uint8_t>(fmt::PageType::leaf)) leaves.push_back(p);
    ASSERT_GT(leaves.size(), 20u);
    const uint64_t a = leaves[3], b = leaves[leaves.size() - 4];
    std::swap_ranges(file.begin() + static_cast<ptrdiff_t>(a * map.page_size),
                     file.begin() + static_cast<ptrdiff_t>((a + 1) * map.page_size),
                     file.begin() + static_cast<ptrdiff_t>(b * map.page_size));
    TempDir dir;
    ASSERT_TRUE(write_file(dir / "swapped.drydb", file));
    for (const StorageKind kind : {StorageKind::mmap, StorageKind::pread, StorageKind::memory}) {
      SCOPED_TRACE(static_cast<int>(kind));
      auto db = ReadOnlyDatabase::open(dir / "swapped.drydb",
                                       {.storage = kind, .page_cache_bytes = 8 * 512});
      ASSERT_TRUE(db);
      Outcome out;
      check_database(*db, m, out, 5);
      EXPECT_TRUE(out.wrong.empty()) << out.wrong[0];
      EXPECT_GT(out.errors, 0u);
      EXPECT_EQ(out.codes, std::set<int>{static_cast<int>(drydb::errc::corruption)});
      EXPECT_NE(out.first_error.find("separator"), std::string::npos) << out.first_error;
      EXPECT_EQ(db->verify().code(), drydb::errc::corruption);
    }
  }
}

// "docs": 300 int64 keys 0, 3, 6, ..., every 12th row's value 600 bytes (an overflow run of two
// pages at page size 512, 25 runs of one length), the others 20 bytes.
DbModel documents() {
  DbModel m;
  m.page_size = 512;
  TableModel docs = make_table("docs", drydb::KeyEncoding::int64());
  for (int64_t i = 0; i < 300; ++i)
    docs.rows.emplace(int64_key(i * 3),
                      make_value(static_cast<uint64_t>(i), i % 12 == 5 ? 600 : 20));
  m.tables = {std::move(docs)};
  m.finish();
  return m;
}

// The first pages of `file`'s overflow runs, in page order.
std::vector<uint64_t> run_starts(const FileMap& map) {
  std::vector<uint64_t> runs;
  for (uint64_t p = 1; p < map.page_count; ++p)
    if (map.page_type[p] == static_cast<uint8_t>(fmt::PageType::overflow) && map.run_start[p] == p)
      runs.push_back(p);
  return runs;
}

// `file` with the pages of its overflow runs starting at `a` and `b` (runs of one length, two
// pages each) swapped byte for byte: each run keeps its own checksum, valid where it was.
std::vector<std::byte> with_runs_swapped(std::vector<std::byte> file, uint32_t page_size,
                                         uint64_t a, uint64_t b) {
  const auto at = [&](uint64_t page) {
    return file.begin() + static_cast<ptrdiff_t>(page * page_size);
  };
  std::swap_ranges(at(a), at(a + 2), at(b));
  return file;
}

// Two overflow runs of one length swapped within a file: before format 2.5 a run was bound to
// nothing but the file (its checksum seeded with the identity), so each served as the other's
// value and verify() found nothing wrong. A run's checksum is now seeded with its first page
// too: a get, a range, a cursor and verify() reading a run out of its place fail as corruption
// naming the page, through every storage, and never answer with the other row's value.
TEST(FileIdentity, AnOverflowRunInAnotherRunsPlaceFailsItsChecksum) {
  const DbModel m = documents();
  auto built = build_database(m);
  ASSERT_TRUE(built) << built.error().to_string();
  const FileMap map = map_file(*built);
  const std::vector<uint64_t> runs = run_starts(map);
  ASSERT_EQ(runs.size(), 25u);
  const uint64_t a = runs[1], b = runs[runs.size() - 2];
  ASSERT_EQ(fmt::load_u32(built->data() + a * map.page_size + fmt::overflow::kLengthOff),
            fmt::load_u32(built->data() + b * map.page_size + fmt::overflow::kLengthOff));
  const std::vector<std::byte> file = with_runs_swapped(*built, map.page_size, a, b);
  // The rows whose values the two runs hold: the 2nd and the 24th of the long values.
  const std::string key_a = int64_key((5 + 12 * 1) * 3), key_b = int64_key((5 + 12 * 23) * 3);

  TempDir dir;
  ASSERT_TRUE(write_file(dir / "swapped.drydb", file));
  struct Way {
    const char* name;
    drydb::OpenOptions options;
  };
  for (const Way& way : {Way{"mmap", {.storage = StorageKind::mmap}},
                         Way{"pread", {.storage = StorageKind::pread, .page_cache_bytes = 8 * 512}},
                         Way{"memory", {.storage = StorageKind::memory}}}) {
    SCOPED_TRACE(way.name);
    auto db = ReadOnlyDatabase::open(dir / "swapped.drydb", way.options);
    ASSERT_TRUE(db) << db.error().to_string();
    auto t = db->table("docs");
    ASSERT_TRUE(t);
    for (const std::string& key : {key_a, key_b}) {
      auto got = t->get(int64_of(key));
      EXPECT_EQ(got.code(), drydb::errc::corruption) << "the value of row " << int64_of(key);
      // A range and a cursor over the row: the row's value is read, and fails.
      auto range = t->get_range(int64_of(key), int64_of(key) + 1);
      ASSERT_TRUE(range) << range.error().to_string();
      size_t rows = 0;
      for (auto [k, v] : *range) {
        (void)k;
        (void)v;
        ++rows;
      }
      EXPECT_EQ(range->status().code(), drydb::errc::corruption);
      EXPECT_EQ(rows, 0u);
      drydb::Cursor c = t->cursor();
      ASSERT_TRUE(c.seek(int64_of(key)));  // the key is in its leaf; the value is read on demand
      EXPECT_TRUE(c.value().empty());
      EXPECT_EQ(c.status().code(), drydb::errc::corruption);
    }
    Outcome out;
    check_database(*db, m, out, 5);
    EXPECT_TRUE(out.wrong.empty()) << out.wrong[0];
    EXPECT_GT(out.errors, 0u);
    EXPECT_EQ(out.codes, std::set<int>{static_cast<int>(drydb::errc::corruption)});
    EXPECT_NE(out.first_error.find("overflow run checksum mismatch"), std::string::npos)
        << out.first_error;
    const auto verified = db->verify();
    EXPECT_EQ(verified.code(), drydb::errc::corruption);
    if (!verified) {
      EXPECT_NE(verified.error().message.find("page " + std::to_string(a) +
                                              ": overflow run checksum mismatch"),
                std::string::npos)
          << verified.error().message;
    }
  }
  auto in_place = ReadOnlyDatabase::open_memory(file);
  ASSERT_TRUE(in_place);
  EXPECT_EQ(in_place->table("docs")->get(int64_of(key_a)).code(), drydb::errc::corruption);
  EXPECT_EQ(in_place->verify().code(), drydb::errc::corruption);
}

// Every query of check_database over `m` through `db` answers right.
void expect_every_answer_right(const ReadOnlyDatabase& db, const DbModel& m) {
  Outcome out;
  check_database(db, m, out);
  EXPECT_TRUE(out.clean()) << out.errors << " errors (" << out.first_error << "), "
                           << out.wrong.size() << " wrong";
  EXPECT_GT(out.correct, 0u);
}

uint32_t features_of(std::span<const std::byte> file) {
  return fmt::load_u32(file.data() + fmt::header::kRequiredFeaturesOff);
}

// Required feature bit 5 (placed overflow runs) is set exactly when the file has an identity and
// an overflow run, so a file without runs stays readable by a 2.4 reader, and one without the
// identity by a 2.3 reader (its runs seeded with 0). A file of format 2.4 (no bit 5: runs seeded
// with the identity alone) reads as before: there two runs of one length swapped are still
// each other's values, undetected, as docs/format.md says of files before 2.5.
TEST(FileIdentity, PlacedRunsOnlyWithAnIdentityAndRunsAndFilesOf2_4ReadAsBefore) {
  const DbModel m = documents();
  auto built = build_database(m);
  ASSERT_TRUE(built);
  EXPECT_EQ(features_of(*built) & (fmt::kFeatureFileIdentity | fmt::kFeaturePlacedRuns),
            fmt::kFeatureFileIdentity | fmt::kFeaturePlacedRuns);
  auto no_runs = build_database(numbers());
  ASSERT_TRUE(no_runs);
  EXPECT_FALSE(features_of(*no_runs) & fmt::kFeaturePlacedRuns);
  drydb::BuildOptions options;
  options.page_size = 512;
  options.file_identity = false;
  auto plain = build_database(m, options);
  ASSERT_TRUE(plain);
  EXPECT_FALSE(features_of(*plain) & (fmt::kFeatureFileIdentity | fmt::kFeaturePlacedRuns));
  const FileMap plain_map = map_file(*plain);
  const uint64_t run = run_starts(plain_map).front();
  const std::byte* r = plain->data() + run * plain_map.page_size;
  EXPECT_EQ(fmt::load_u64(r), drydb_test::xxh3(r + 8, 8 + 600));  // seed 0, as format 2.3 wrote
  expect_every_answer_right(ReadOnlyDatabase::open_memory(*plain).value(), m);

  // The file as format 2.4 would have written it.
  std::vector<std::byte> v2_4 = *built;
  fmt::store_u32(v2_4.data() + fmt::header::kRequiredFeaturesOff,
                 features_of(v2_4) & ~fmt::kFeaturePlacedRuns);
  fmt::store_u16(v2_4.data() + fmt::header::kMinorOff, 4);
  drydb_test::fix_all_checksums(v2_4);
  {
    auto db = ReadOnlyDatabase::open_memory(v2_4);
    ASSERT_TRUE(db);
    EXPECT_TRUE(db->verify());
    expect_every_answer_right(*db, m);
  }
  const FileMap map = map_file(v2_4);
  const std::vector<uint64_t> runs = run_starts(map);
  const std::vector<std::byte> swapped =
      with_runs_swapped(v2_4, map.page_size, runs[1], runs[runs.size() - 2]);
  auto db = ReadOnlyDatabase::open_memory(swapped);
  ASSERT_TRUE(db);
  EXPECT_TRUE(db->verify()) << "a 2.4 file's runs are bound to nothing but their file";
  auto got = db->table("docs")->get(int64_t{(5 + 12 * 1) * 3});
  ASSERT_TRUE(got && got->has_value());
  const std::string& other = m.find("docs")->rows.at(int64_key((5 + 12 * 23) * 3));
  EXPECT_EQ(std::string(got->str()), other);
}

}  // namespace
}  // namespace drydb_test
