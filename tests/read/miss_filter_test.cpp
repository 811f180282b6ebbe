// Miss filters (TableBuilder::add_miss_filter, format 2.1): the filter's math keeps every added
// key and lets about 1% of absent keys through at 10 bits per key; tables built with a filter
// answer get and get_many exactly as without one (present, absent and repeated keys, every key
// layout, mapped and through a tiny page cache); the file announces the filter (required
// feature bit 1, the table's info; with page filters too) and verify() checks it; bad sizes are
// refused; a flipped bit in a filter page is detected, never a wrong answer; a filter that leaves
// out a key (with a valid checksum) fails verify(); bad descriptors fail open.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "drydb/detail/catalog.h"
#include "drydb/detail/format.h"
#include "drydb/detail/miss_filter.h"
#include "support/fault_util.h"
#include "support/random.h"
#include "support/storage.h"

namespace {

namespace fmt = drydb::detail;
using drydb::Key;
using drydb::KeyEncoding;
using drydb::ReadOnlyDatabase;
using drydb::Value;
using drydb_test::Rng;
using drydb_test::TableModel;

std::string random_key(Rng& rng, KeyEncoding enc) {
  if (enc == KeyEncoding::int64()) return drydb_test::int64_key(static_cast<int64_t>(rng.next()));
  const size_t width = enc.fixed_width();
  std::string k(width ? width : rng.between(0, 40), '\0');
  for (auto& c : k)
    c = static_cast<char>(rng.between(0, 3) == 0 ? 0 : rng.next());
  return k;
}

// Table `t` with a miss filter of `bits` per key. With `packed`, the pages are lz4-compressed
// (filtered pages, whose page directory the miss filter descriptors follow in the catalog).
std::vector<std::byte> build(TableModel t, uint32_t page_size, uint32_t bits, bool packed = false) {
  t.miss_filter_bits = bits;
  drydb::BuildOptions options;
  if (packed) options.filters = {drydb::filters::lz4()};
  return drydb_test::build_memory({.page_size = page_size, .tables = {std::move(t)}},
                                  std::move(options));
}

// The header's required features but the file identity, which every file of this builder has.
uint32_t required_features(std::span<const std::byte> file) {
  return fmt::load_u32(file.data() + fmt::header::kRequiredFeaturesOff) &
         ~fmt::kFeatureFileIdentity;
}

TEST(MissFilter, KeepsEveryKeyAndPassesAboutOnePercentAtTenBitsPerKey) {
  constexpr uint32_t kPageSize = 4096, kBits = 10;
  constexpr uint64_t kRows = 100'000;
  const uint64_t pages = fmt::miss_filter_pages(kRows, kBits, kPageSize);
  const uint32_t per_page = fmt::miss_filter::blocks_per_page(kPageSize);
  const uint32_t probes = fmt::miss_filter_probes(kBits);
  EXPECT_EQ(probes, 6u);
  // At most the bits asked for (whole pages, rounded down).
  EXPECT_LE(pages * per_page * 512, kRows * kBits);
  EXPECT_GT(pages * per_page * 512, kRows * kBits - per_page * 512);
  std::vector<std::byte> filter(pages * kPageSize);
  auto block = [&](uint64_t h) {
    const auto at = fmt::miss_filter_block(h, pages, per_page);
    EXPECT_LT(at.page, pages);
    EXPECT_GE(at.offset, fmt::miss_filter::kHeaderSize);
    EXPECT_LE(at.offset + 64, kPageSize);
    return filter.data() + at.page * kPageSize + at.offset;
  };
  Rng rng(11);
  std::vector<uint64_t> keys(kRows);
  for (auto& k : keys) {
    k = rng.next();
    const uint64_t h = fmt::miss_filter_hash(reinterpret_cast<const std::byte*>(&k), 8);
    fmt::miss_filter_add(block(h), h, probes);
  }
  for (uint64_t k : keys) {
    const uint64_t h = fmt::miss_filter_hash(reinterpret_cast<const std::byte*>(&k), 8);
    ASSERT_TRUE(fmt::miss_filter_may_contain(block(h), h, probes));
  }
  uint64_t passed = 0;
  constexpr uint64_t kAbsent = 200'000;
  for (uint64_t i = 0; i < kAbsent; ++i) {
    const uint64_t k = rng.next() | 1;  // odd: distinct from the even keys below
    const uint64_t h = fmt::miss_filter_hash(reinterpret_cast<const std::byte*>(&k), 8);
    passed += fmt::miss_filter_may_contain(block(h), h, probes);
  }
  const double rate = static_cast<double>(passed) / kAbsent;
  RecordProperty("false_positive_rate_ppm", static_cast<int>(rate * 1e6));
  EXPECT_GT(rate, 0.003);
  EXPECT_LT(rate, 0.015) << passed << " of " << kAbsent;
}

TEST(MissFilter, TablesAnswerAsWithoutOne) {
  const KeyEncoding fixed12 = drydb_test::fixed_width_encoding(12);
  for (KeyEncoding enc : {KeyEncoding::int64(), KeyEncoding::bytes(), fixed12}) {
    for (uint32_t page_size : {512u, 4096u}) {
      for (uint32_t bits : {1u, 10u, 32u}) {
        SCOPED_TRACE(std::string(enc.id()) + " page " + std::to_string(page_size) + " bits " +
                     std::to_string(bits));
        Rng rng(page_size + bits);
        TableModel t = drydb_test::make_table("t", enc);
        for (int i = 0; i < 3000; ++i)
          t.rows[random_key(rng, enc)] = std::string(rng.between(0, 20), 'v') + std::to_string(i);
        std::vector<std::string> probes;
        for (const auto& [k, v] : t.rows)
          probes.push_back(k);
        for (int i = 0; i < 3000; ++i)
          probes.push_back(random_key(rng, enc));
        const bool packed = bits == 32;
        const auto file = build(t, page_size, bits, packed);
        // Random text keys share few bytes, but their pages store them after
        // their heads, which are in the prefix array: prefixed pages.
        const bool text = enc.fixed_width() == 0;
        EXPECT_EQ(required_features(file), fmt::kFeatureMissFilters |
                                               (packed ? fmt::kFeatureFilteredPages : 0) |
                                               (text ? fmt::kFeaturePrefixedKeys : 0));
        EXPECT_EQ(fmt::load_u16(file.data() + fmt::header::kMinorOff), fmt::kFormatMinor);

        auto mapped = ReadOnlyDatabase::open_memory(file);
        ASSERT_TRUE(mapped) << mapped.error().to_string();
        auto cached = drydb_test::open_cached(file, 3 * page_size);
        ASSERT_TRUE(cached) << cached.error().to_string();
        for (ReadOnlyDatabase* db : {&*mapped, &*cached}) {
          auto table = db->table("t");
          ASSERT_TRUE(table);
          const auto info = table->info();
          EXPECT_EQ(info.miss_filter_bits_per_key, bits);
          EXPECT_EQ(info.miss_filter_pages, fmt::miss_filter_pages(t.rows.size(), bits, page_size));
          std::vector<Key> keys;
          for (const auto& k : probes) {
            keys.push_back(key_of(t, k));
            auto v = table->get(keys.back());
            ASSERT_TRUE(v) << v.error().to_string();
            auto it = t.rows.find(k);
            ASSERT_EQ(v->has_value(), it != t.rows.end());
            if (it != t.rows.end()) {
              ASSERT_EQ(v->str(), it->second);
            }
          }
          std::vector<Value> values(keys.size());
          ASSERT_TRUE(table->get_many(keys, values));
          for (size_t i = 0; i < keys.size(); ++i) {
            auto it = t.rows.find(probes[i]);
            ASSERT_EQ(values[i].has_value(), it != t.rows.end()) << i;
            if (it != t.rows.end()) {
              ASSERT_EQ(values[i].str(), it->second);
            }
          }
          EXPECT_TRUE(db->verify());
        }
      }
    }
  }
}

TEST(MissFilter, BadSizesAreRefusedAndEmptyTablesHaveNone) {
  for (uint32_t bits : {0u, 33u, 1000u}) {
    drydb::DatabaseBuilder b;
    b.create_table("t").append("k", "v").add_miss_filter(bits);
    auto bytes = b.build_to_memory();
    ASSERT_FALSE(bytes);
    EXPECT_EQ(bytes.code(), drydb::errc::invalid_argument) << bytes.error().to_string();
  }
  // An empty table with a filter asked for, beside a table without: no filter, no feature bit.
  drydb::DatabaseBuilder b;
  b.create_table("empty").add_miss_filter(10);
  b.create_table("plain").append("k", "v");
  auto bytes = b.build_to_memory();
  ASSERT_TRUE(bytes);
  EXPECT_EQ(required_features(*bytes), 0u);
  auto db = ReadOnlyDatabase::open_memory(*bytes);
  ASSERT_TRUE(db);
  EXPECT_EQ(db->table("empty")->info().miss_filter_bits_per_key, 0u);
  EXPECT_EQ(db->table("empty")->info().miss_filter_pages, 0u);
  EXPECT_FALSE(db->table("empty")->get("k")->has_value());
  EXPECT_TRUE(db->table("plain")->get("k")->has_value());
}

// A table of int64 keys 0, 2, 4 ... with a filter, at page size 512 (filter pages of 7 blocks).
struct Filtered {
  TableModel table = drydb_test::make_table("t", KeyEncoding::int64());
  std::vector<std::byte> file;
  fmt::MissFilterDesc filter;
  Filtered() {
    for (int64_t i = 0; i < 2000; ++i)
      table.rows[drydb_test::int64_key(2 * i)] = "value" + std::to_string(i);
    file = build(table, 512, 10);
    const uint64_t page_count = fmt::load_u64(file.data() + fmt::header::kPageCountOff);
    const auto catalog =
        fmt::decode_catalog(std::span(file).subspan(page_count * 512), 512, page_count,
                            fmt::header::kSize, page_count * 512, fmt::kFeatureMissFilters);
    EXPECT_TRUE(catalog);
    filter = catalog->tables.at(0).miss_filter;
  }
};

TEST(MissFilter, EveryFlippedBitOfAFilterPageIsDetected) {
  const Filtered f;
  ASSERT_GE(f.filter.pages, 2u);
  const uint64_t page = f.filter.first_page + 1;
  // Under sanitizers a sample of the bits (every 7th), else all of them.
  constexpr uint32_t kStride = DRYDB_TEST_SANITIZED ? 7 : 1;
  for (uint32_t bit = 0; bit < 512 * 8; bit += kStride) {
    std::vector<std::byte> copy = f.file;
    copy[page * 512 + bit / 8] ^= std::byte{static_cast<uint8_t>(1u << (bit % 8))};
    auto db = ReadOnlyDatabase::open_memory(copy);
    ASSERT_TRUE(db) << bit;
    auto table = db->table("t");
    // Gets that touch the page report it; no get answers wrongly.
    for (const auto& [k, v] : f.table.rows) {
      auto got = table->get(key_of(f.table, k));
      if (!got) {
        ASSERT_EQ(got.code(), drydb::errc::corruption) << bit;
        continue;
      }
      ASSERT_TRUE(got->has_value()) << bit;
      ASSERT_EQ(got->str(), v);
    }
    auto st = db->verify();
    ASSERT_FALSE(st) << bit;
    EXPECT_EQ(st.code(), drydb::errc::corruption) << st.error().to_string();
  }
}

TEST(MissFilter, AFilterThatLeavesOutAKeyFailsVerify) {
  const Filtered f;
  // Clear one bit a present key needs, and give the page a valid checksum.
  const std::string key = f.table.rows.begin()->first;
  const uint64_t h = fmt::miss_filter_hash(reinterpret_cast<const std::byte*>(key.data()), 8);
  const auto at = fmt::miss_filter_block(h, f.filter.pages, fmt::miss_filter::blocks_per_page(512));
  std::vector<std::byte> copy = f.file;
  const uint64_t page = f.filter.first_page + at.page;
  uint32_t first_bit = 0;
  fmt::for_each_miss_filter_bit(h, f.filter.probes, [&](uint32_t b) { first_bit = b; });
  copy[page * 512 + at.offset + first_bit / 8] &=
      ~std::byte{static_cast<uint8_t>(1u << (first_bit % 8))};
  fmt::store_u64(copy.data() + page * 512, drydb_test::xxh3(copy.data() + page * 512 + 8, 512 - 8,
                                                            drydb_test::checksum_seed(copy)));
  auto db = ReadOnlyDatabase::open_memory(copy);
  ASSERT_TRUE(db);
  // The filter now rules the key out: a get cannot tell, verify() does.
  EXPECT_FALSE(db->table("t")->get(key_of(f.table, key))->has_value());
  auto st = db->verify();
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("does not pass the table's miss filter"), std::string::npos)
      << st.error().to_string();
}

TEST(MissFilter, BadDescriptorsFailOpen) {
  const Filtered f;
  const uint64_t page_count = fmt::load_u64(f.file.data() + fmt::header::kPageCountOff);
  const uint64_t desc = f.file.size() - fmt::kMissFilterDescSize;  // the only table's
  struct Case {
    const char* what;
    size_t offset;  // in the descriptor
    uint64_t value;
    int width;
  };
  const Case cases[] = {
      {"unknown kind", 0, 2, 1},
      {"no probes", 1, 0, 1},
      {"17 probes", 1, 17, 1},
      {"reserved bits", 2, 1, 2},
      {"0 bits per key", 4, 0, 4},
      {"33 bits per key", 4, 33, 4},
      {"first page 0", 8, 0, 8},
      {"over a tree", 8, 1, 8},
      {"past the file", 8, page_count - 1, 8},
      {"no pages", 16, 0, 8},
      {"2^32 pages", 16, uint64_t{1} << 32, 8},
  };
  for (const Case& c : cases) {
    std::vector<std::byte> copy = f.file;
    std::byte* p = copy.data() + desc + c.offset;
    if (c.width == 1) p[0] = std::byte{static_cast<uint8_t>(c.value)};
    if (c.width == 2) fmt::store_u16(p, static_cast<uint16_t>(c.value));
    if (c.width == 4) fmt::store_u32(p, static_cast<uint32_t>(c.value));
    if (c.width == 8) fmt::store_u64(p, c.value);
    drydb_test::fix_catalog_checksum(copy);
    auto db = ReadOnlyDatabase::open_memory(copy);
    ASSERT_FALSE(db) << c.what;
    EXPECT_EQ(db.code(), drydb::errc::corruption) << c.what << ": " << db.error().to_string();
  }
  // The feature bit without descriptors, and descriptors without the bit.
  {
    std::vector<std::byte> copy = f.file;
    fmt::store_u32(copy.data() + fmt::header::kRequiredFeaturesOff, 0);
    drydb_test::fix_header_checksum(copy);
    auto db = ReadOnlyDatabase::open_memory(copy);
    ASSERT_FALSE(db);
    EXPECT_EQ(db.code(), drydb::errc::corruption) << db.error().to_string();
  }
}

}  // namespace
