// drydb/stats.h: read_file_info and tree_stats, checked against what the
// layout in docs/format.md implies for tables of known shape on tiny pages.
#include "drydb/stats.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <string>
#include <vector>

#include "drydb/drydb.h"

namespace {

using drydb::KeyEncoding;
using drydb::ReadOnlyDatabase;

constexpr uint32_t kPage = 512;
constexpr uint64_t kRows = 5000;
constexpr size_t kValue = 40;  // every value of "uniform" this long: leaves of uniform values
constexpr uint64_t kLong = 3;  // rows of "long" with values too long for a leaf
constexpr size_t kLongValue = 2000;

// `size` bytes, unique per row (its number comes first), compressible.
std::string value_of(uint64_t i, size_t size) {
  std::string v = std::to_string(i);
  v.resize(size, 'a');
  return v;
}

std::filesystem::path build(const std::string& name,
                            std::vector<std::shared_ptr<drydb::PageFilter>> f) {
  drydb::DatabaseBuilder b({.page_size = kPage, .filters = std::move(f)});
  auto& uniform = b.create_table("uniform", KeyEncoding::int64());
  uniform.add_secondary_index("by_value", /*unique=*/true, KeyEncoding::bytes(),
                              [](auto, auto value) -> std::optional<drydb::IndexKey> {
                                return drydb::IndexKey(std::string_view(
                                    reinterpret_cast<const char*>(value.data()), value.size()));
                              });
  for (uint64_t i = 0; i < kRows; ++i)
    uniform.append(static_cast<int64_t>(i), value_of(i, kValue));
  auto& long_values = b.create_table("long", KeyEncoding::bytes());
  for (uint64_t i = 0; i < kLong; ++i)
    long_values.append("k" + std::to_string(i), value_of(i, kLongValue));
  long_values.append("short", "s");
  b.create_table("empty");
  const auto path = std::filesystem::temp_directory_path() /
                    ("drydb_stats_test_" + std::to_string(getpid()) + "_" + name + ".drydb");
  const auto st = b.build_to_file(path);
  EXPECT_TRUE(st) << path << ": " << (st ? "" : st.error().message);
  return path;
}

uint64_t sum(const std::vector<uint64_t>& v, size_t from = 0) {
  return std::accumulate(v.begin() + static_cast<std::ptrdiff_t>(from), v.end(), uint64_t{0});
}

TEST(Stats, PagesPerLevelFillAndOverflowFollowTheLayout) {
  const auto path = build("plain", {});
  auto db = ReadOnlyDatabase::open(path).value();
  const auto info = db.table("uniform").value().info();

  auto st = drydb::tree_stats(db, "uniform").value();
  EXPECT_EQ(st.rows, kRows);
  EXPECT_EQ(st.max_key_length, 8u);
  EXPECT_EQ(st.depth, info.depth);
  ASSERT_EQ(st.pages_per_level.size(), info.depth);
  EXPECT_GE(st.depth, 3u);  // tiny pages: a real tree
  EXPECT_EQ(st.pages_per_level[0], info.leaf_pages);
  EXPECT_EQ(sum(st.pages_per_level, 1), info.internal_pages);
  EXPECT_EQ(st.pages_per_level.back(), 1u);  // one root
  for (size_t level = 1; level < st.pages_per_level.size(); ++level)
    EXPECT_LT(st.pages_per_level[level], st.pages_per_level[level - 1]);
  // A leaf of uniform values: a 32-byte header, an 8-byte prefix per key (the
  // whole int64 key), then the values back to back.
  EXPECT_EQ(st.leaf_bytes_used, 32 * info.leaf_pages + kRows * (8 + kValue));
  EXPECT_GT(st.internal_bytes_used, 0u);
  EXPECT_LE(st.internal_bytes_used, info.internal_pages * kPage);
  EXPECT_EQ(st.overflow_runs, 0u);
  EXPECT_EQ(st.unpacked_bytes, (info.leaf_pages + info.internal_pages) * kPage);
  EXPECT_EQ(st.stored_bytes, st.unpacked_bytes);  // unfiltered

  // Each long value takes a run of ceil((16-byte header + length) / page) pages.
  const auto long_info = db.table("long").value().info();
  st = drydb::tree_stats(db, "long").value();
  const uint64_t run = (16 + kLongValue + kPage - 1) / kPage;
  EXPECT_EQ(st.overflow_runs, kLong);
  EXPECT_EQ(st.overflow_pages, kLong * run);
  EXPECT_EQ(st.overflow_pages, long_info.overflow_pages);
  EXPECT_EQ(sum(st.pages_per_level), long_info.leaf_pages + long_info.internal_pages);

  // A unique index has an entry per row.
  st = drydb::tree_stats(db, "uniform", "by_value").value();
  EXPECT_EQ(st.rows, kRows);
  EXPECT_EQ(st.max_key_length, kValue);
  EXPECT_GE(st.depth, 2u);
  EXPECT_EQ(st.pages_per_level.back(), 1u);
  EXPECT_EQ(sum(st.pages_per_level), st.leaf_pages + st.internal_pages);
  EXPECT_GT(st.leaf_bytes_used, kRows * kValue);  // every value is a key

  st = drydb::tree_stats(db, "empty").value();
  EXPECT_EQ(st.rows, 0u);
  EXPECT_EQ(st.depth, 0u);
  EXPECT_TRUE(st.pages_per_level.empty());
  EXPECT_EQ(st.stored_bytes, 0u);

  EXPECT_EQ(drydb::tree_stats(db, "nope").error().code, drydb::errc::not_found);
  EXPECT_EQ(drydb::tree_stats(db, "uniform", "nope").error().code, drydb::errc::not_found);

  const auto file = drydb::read_file_info(path).value();
  EXPECT_EQ(file.page_size, kPage);
  EXPECT_EQ(file.file_bytes, std::filesystem::file_size(path));
  // Unfiltered: the pages, then the catalog, which ends the file.
  EXPECT_EQ(file.pages * kPage + file.catalog_bytes, file.file_bytes);
  EXPECT_TRUE(file.filters.empty());
  EXPECT_EQ(file.tables, 3u);
  EXPECT_EQ(file.format_major, 2u);
  std::filesystem::remove(path);
}

TEST(Stats, FilteredFilesStoreLessThanTheyUnpack) {
  const auto path = build("zstd", {drydb::filters::zstd({.level = 5})});
  auto db = ReadOnlyDatabase::open(path).value();
  const auto info = db.table("uniform").value().info();
  const auto st = drydb::tree_stats(db, "uniform").value();
  EXPECT_EQ(st.unpacked_bytes, (info.leaf_pages + info.internal_pages) * kPage);
  EXPECT_LT(st.stored_bytes, st.unpacked_bytes / 2);  // repetitive values compress well
  EXPECT_EQ(st.leaf_bytes_used, 32 * info.leaf_pages + kRows * (8 + kValue));  // decoded pages

  const auto file = drydb::read_file_info(path).value();
  ASSERT_EQ(file.filters.size(), 1u);
  EXPECT_EQ(file.filters[0].id, "zstd");
  const auto options = drydb::filters::zstd_options(file.filters[0].params);
  ASSERT_TRUE(options);
  EXPECT_EQ(options->level, 5);
  EXPECT_EQ(options->dictionary_bytes, 0u);
  EXPECT_FALSE(drydb::filters::zstd_options({}));
  std::filesystem::remove(path);
}

TEST(Stats, ReadFileInfoRefusesWhatOpenRefuses) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("drydb_stats_test_" + std::to_string(getpid()) + "_bad.drydb");
  {
    std::ofstream(path, std::ios::binary)
        << "not a database at all, but long enough to hold a header of 64 bytes......";
  }
  EXPECT_EQ(drydb::read_file_info(path).error().code, drydb::errc::bad_magic);
  std::filesystem::remove(path);
  EXPECT_FALSE(drydb::read_file_info(path));
}

}  // namespace
