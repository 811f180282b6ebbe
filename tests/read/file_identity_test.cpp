// What ties the pages a reader reads to the file it opened (docs/format.md, "File identity" and
// "Checking"): the identity of format 2.4, derived from the rows and options and seeding every
// checksum but the header's, and the fences a descent checks a page it loads against. A page of
// another file fails its checksum; a page of this file in another page's place fails its fences;
// neither gives an answer.
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
  EXPECT_EQ(fmt::load_u16(file->data() + fmt::header::kMinorOff), 4u);
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

}  // namespace
}  // namespace drydb_test
