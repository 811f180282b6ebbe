// Files of every format version stay readable: the golden files in tests/data (format 2.0's in
// format2, each later version's in format2.N, each written once by its own version's builder; see
// tests/data/golden.h) are opened with every storage kind, verified, their headers checked for
// the version and required features they claim, and every row, index entry, bound and count,
// each table's miss filter and column list, checked against the model they were written from.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "data/format2.1/format2_1_files.h"
#include "data/format2.2/format2_2_files.h"
#include "data/format2.3/format2_3_files.h"
#include "data/format2.4/format2_4_files.h"
#include "data/format2.5/format2_5_files.h"
#include "data/format2/format2_files.h"

namespace drydb_golden {
namespace {

std::string to_string(std::span<const std::byte> b) {
  return {reinterpret_cast<const char*>(b.data()), b.size()};
}

// The folder of a version's golden files: tests/data/FOLDER.
std::filesystem::path data_dir(const std::string& folder) {
  const char* src = std::getenv("DRYDB_SOURCE_DIR");
  return std::filesystem::path(src ? src : ".") / "tests" / "data" / folder;
}

uint16_t load_u16(const std::vector<std::byte>& b, size_t at) {
  return static_cast<uint16_t>(static_cast<uint8_t>(b[at]) | static_cast<uint8_t>(b[at + 1]) << 8);
}
uint32_t load_u32(const std::vector<std::byte>& b, size_t at) {
  return uint32_t{load_u16(b, at)} | uint32_t{load_u16(b, at + 2)} << 16;
}

std::vector<std::byte> read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> out(chars.size());
  std::transform(chars.begin(), chars.end(), out.begin(), [](char c) { return std::byte(c); });
  return out;
}

// A key that no row has: one past a present key (the tree orders by bytes).
std::string absent_after(const TableSpec& t, size_t i) {
  const uint32_t width = t.encoding.fixed_width();
  std::string k = t.rows[i].key;
  if (width == 0) return k + '\x01';
  // Fixed width: the next value of the same width, if no row holds it.
  for (size_t j = k.size(); j-- > 0;) {
    if (static_cast<uint8_t>(k[j]) != 0xFF) {
      k[j] = static_cast<char>(static_cast<uint8_t>(k[j]) + 1);
      break;
    }
    k[j] = '\0';
  }
  return k;
}

// The prefixes a table's or index's prefix queries are checked with: the empty one, and of some
// keys, their first 6 bytes, their first half and all but their last 2 bytes (inside a long
// shared prefix, across its end, near the key's end).
std::vector<std::string> prefixes_of(const std::vector<std::string>& keys) {
  std::vector<std::string> out{""};
  for (size_t i = 0; i < keys.size(); i += 29) {
    const std::string& k = keys[i];
    for (size_t n : {size_t{6}, k.size() / 2, k.size() >= 2 ? k.size() - 2 : 0})
      if (n > 0 && n <= k.size()) out.push_back(k.substr(0, n));
  }
  return out;
}

void check_table(const drydb::ReadOnlyTable& table, const TableSpec& t, uint32_t page_size) {
  SCOPED_TRACE("table " + t.name);
  EXPECT_EQ(table.encoding().id(), t.encoding.id());
  ASSERT_EQ(table.count(), t.rows.size());
  // The miss filter (2.1) as docs/format.md sizes it: P = max(1, rows x bits / (512 B)) pages of
  // B blocks; an empty table has none.
  const drydb::TableInfo info = table.info();
  const uint32_t bits = t.rows.empty() ? 0 : t.miss_filter_bits;
  EXPECT_EQ(info.miss_filter_bits_per_key, bits);
  const uint64_t blocks = (page_size - 64) / 64;
  EXPECT_EQ(info.miss_filter_pages,
            bits == 0 ? 0 : std::max<uint64_t>(1, t.rows.size() * bits / (512 * blocks)));
  // The column list and key column (2.3).
  EXPECT_TRUE(std::ranges::equal(table.columns(), t.columns));
  EXPECT_EQ(table.key_column(), t.key_column);
  // Every row, in order, both ways.
  std::vector<Row> got;
  auto all = table.get_range(drydb::unbounded, drydb::unbounded);
  ASSERT_TRUE(all);
  for (auto e : *all)
    got.push_back({to_string(e.key), to_string(e.value)});
  ASSERT_TRUE(all->status());
  ASSERT_EQ(got.size(), t.rows.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].key, t.rows[i].key) << "row " << i;
    EXPECT_EQ(got[i].value, t.rows[i].value) << "row " << i;
  }
  auto back =
      table.get_range(drydb::unbounded, drydb::unbounded, {.order = drydb::SortOrder::descending});
  ASSERT_TRUE(back);
  size_t i = t.rows.size();
  for (auto e : *back) {
    ASSERT_GT(i, 0u);
    EXPECT_EQ(to_string(e.key), t.rows[--i].key);
  }
  EXPECT_EQ(i, 0u);
  // Point lookups of every key, and of an absent key beside each.
  for (size_t r = 0; r < t.rows.size(); ++r) {
    auto v = table.get(typed_key(t.encoding, t.rows[r].key));
    ASSERT_TRUE(v) << v.error().to_string();
    ASSERT_TRUE(v->has_value()) << "row " << r;
    EXPECT_EQ(to_string(v->bytes()), t.rows[r].value) << "row " << r;
    const std::string miss = absent_after(t, r);
    if (std::binary_search(t.rows.begin(), t.rows.end(), Row{miss, {}},
                           [](const Row& a, const Row& b) { return a.key < b.key; }))
      continue;
    auto m = table.get(typed_key(t.encoding, miss));
    ASSERT_TRUE(m);
    EXPECT_FALSE(m->has_value()) << "absent key after row " << r;
  }
  // Counts between pairs of rows, and a cursor's ranks.
  for (size_t a = 0; a < t.rows.size(); a += 37)
    for (size_t b = a; b < t.rows.size(); b += 53) {
      auto n = table.count_range(typed_key(t.encoding, t.rows[a].key),
                                 typed_key(t.encoding, t.rows[b].key));
      ASSERT_TRUE(n);
      EXPECT_EQ(*n, b - a + 1);
    }
  auto c = table.cursor();
  for (size_t r = 0; r < t.rows.size(); r += 11) {
    ASSERT_TRUE(c.seek_rank(r));
    EXPECT_EQ(to_string(c.key()), t.rows[r].key);
  }
  // Every key again through get_many, each beside an absent key (which a miss filter answers).
  std::vector<drydb::Key> keys;
  std::vector<bool> present;
  std::vector<std::string> misses;  // the bytes the absent keys view
  misses.reserve(t.rows.size());
  for (size_t r = 0; r < t.rows.size(); ++r) {
    keys.push_back(typed_key(t.encoding, t.rows[r].key));
    present.push_back(true);
    const std::string& miss = misses.emplace_back(absent_after(t, r));
    if (std::binary_search(t.rows.begin(), t.rows.end(), Row{miss, {}},
                           [](const Row& a, const Row& b) { return a.key < b.key; }))
      continue;
    keys.push_back(typed_key(t.encoding, miss));
    present.push_back(false);
  }
  std::vector<drydb::Value> values(keys.size());
  auto st = table.get_many(keys, values);
  ASSERT_TRUE(st) << st.error().to_string();
  for (size_t k = 0, r = 0; k < keys.size(); ++k) {
    if (!present[k]) {
      EXPECT_FALSE(values[k].has_value()) << "absent key after row " << r - 1;
      continue;
    }
    EXPECT_EQ(values[k].str(), t.rows[r].value) << "row " << r;
    ++r;
  }
  // Prefixes of byte-keyed tables.
  if (t.encoding.kind() == drydb::KeyKind::bytes && t.encoding.fixed_width() == 0) {
    std::vector<std::string> row_keys;
    for (const Row& row : t.rows)
      row_keys.push_back(row.key);
    for (const std::string& p : prefixes_of(row_keys)) {
      size_t want = 0;
      for (const Row& row : t.rows)
        want += row.key.compare(0, p.size(), p) == 0;
      auto range = table.prefix(p);
      ASSERT_TRUE(range);
      EXPECT_EQ(range->size(), want) << "prefix '" << p << "'";
    }
  }
}

void check_index(const drydb::ReadOnlyTable& table, const TableSpec& t, const IndexSpec& ix) {
  SCOPED_TRACE("index " + ix.name);
  auto index = table.index(ix.name);
  ASSERT_TRUE(index) << index.error().to_string();
  EXPECT_EQ(index->unique(), ix.unique);
  // The model's entries: (index key, row), by index key then primary key.
  std::vector<std::pair<std::string, size_t>> entries;
  for (size_t r = 0; r < t.rows.size(); ++r)
    if (auto k = ix.key_of(t.rows[r])) entries.emplace_back(*k, r);
  std::sort(entries.begin(), entries.end());
  ASSERT_EQ(index->count(), entries.size());
  // A walk of the whole index, then get_all of every index key.
  size_t at = 0;
  auto all = index->get_range(drydb::unbounded, drydb::unbounded);
  ASSERT_TRUE(all);
  for (auto e : *all) {
    ASSERT_LT(at, entries.size());
    EXPECT_EQ(to_string(e.key), t.rows[entries[at].second].key) << "entry " << at;
    EXPECT_EQ(to_string(e.value), t.rows[entries[at].second].value) << "entry " << at;
    ++at;
  }
  EXPECT_EQ(at, entries.size());
  for (size_t lo = 0; lo < entries.size();) {
    size_t hi = lo;
    while (hi < entries.size() && entries[hi].first == entries[lo].first)
      ++hi;
    const drydb::Key key = typed_key(ix.encoding, entries[lo].first);
    auto rows = index->get_all(key);
    ASSERT_TRUE(rows);
    EXPECT_EQ(rows->size(), hi - lo);
    size_t j = lo;
    for (auto e : *rows)
      EXPECT_EQ(to_string(e.key), t.rows[entries[j++].second].key);
    auto first = index->get(key);
    ASSERT_TRUE(first);
    ASSERT_TRUE(first->has_value());
    EXPECT_EQ(to_string(first->key()), t.rows[entries[lo].second].key);
    lo = hi;
  }
  // Counts between pairs of index keys, and prefixes of byte-keyed indexes.
  for (size_t a = 0; a < entries.size(); a += 41)
    for (size_t b = a; b < entries.size(); b += 67) {
      auto n = index->count_range(typed_key(ix.encoding, entries[a].first),
                                  typed_key(ix.encoding, entries[b].first));
      ASSERT_TRUE(n);
      const auto upper =
          std::upper_bound(entries.begin(), entries.end(), entries[b].first,
                           [](const std::string& k, const auto& e) { return k < e.first; });
      const auto lower =
          std::lower_bound(entries.begin(), entries.end(), entries[a].first,
                           [](const auto& e, const std::string& k) { return e.first < k; });
      EXPECT_EQ(*n, static_cast<uint64_t>(upper - lower));
    }
  if (ix.encoding.kind() == drydb::KeyKind::bytes) {
    std::vector<std::string> index_keys;
    for (const auto& e : entries)
      index_keys.push_back(e.first);
    std::vector<std::string> prefixes = prefixes_of(index_keys);
    prefixes.push_back("user1");
    prefixes.push_back(std::string("team\0", 5));
    for (const std::string& p : prefixes) {
      size_t want = 0;
      for (const auto& e : entries)
        want += e.first.compare(0, p.size(), p) == 0;
      auto range = index->prefix(p);
      ASSERT_TRUE(range);
      EXPECT_EQ(range->size(), want) << "prefix '" << p << "'";
    }
  }
}

void check_database(const drydb::ReadOnlyDatabase& db, const FileSpec& f) {
  auto st = db.verify();
  EXPECT_TRUE(st) << st.error().to_string();
  EXPECT_EQ(db.page_size(), f.page_size);
  ASSERT_EQ(db.tables().size(), f.tables.size());
  for (const TableSpec& t : f.tables) {
    auto table = db.table(t.name);
    ASSERT_TRUE(table) << table.error().to_string();
    check_table(*table, t, f.page_size);
    for (const IndexSpec& ix : t.indexes)
      check_index(*table, t, ix);
  }
}

// Every golden file of format 2.`minor` in tests/data/`folder`: its header (version and required
// features, read from the bytes and by read_file_info), then the whole model, through every
// storage kind, a small page cache and the caller's memory.
void check_golden_files(const std::string& folder, uint16_t minor,
                        const std::vector<FileSpec>& files) {
  ASSERT_FALSE(files.empty());
  for (const FileSpec& f : files) {
    SCOPED_TRACE(folder + "/" + f.name);
    const auto path = data_dir(folder) / f.name;
    const std::vector<std::byte> bytes = read_file(path);
    ASSERT_GE(bytes.size(), 64u) << path;
    // Magic "DRY\0", major 2, minor `minor`, the features the model uses (little-endian).
    EXPECT_EQ(to_string(std::span(bytes).first(4)), std::string("DRY\0", 4));
    EXPECT_EQ(load_u16(bytes, 4), 2);
    EXPECT_EQ(load_u16(bytes, 6), minor);
    EXPECT_EQ(load_u32(bytes, 8), required_features(f));
    auto info = drydb::read_file_info(path);
    ASSERT_TRUE(info) << info.error().to_string();
    EXPECT_EQ(info->format_major, 2);
    EXPECT_EQ(info->format_minor, minor);
    EXPECT_EQ(info->required_features, required_features(f));
    EXPECT_EQ(info->identity != 0, f.file_identity);
    struct Way {
      const char* name;
      drydb::OpenOptions options;
    };
    for (const Way& way :
         {Way{"mmap", {.storage = drydb::StorageKind::mmap}},
          Way{"pread", {.storage = drydb::StorageKind::pread}},
          Way{"pread, 4 pages of cache",
              {.storage = drydb::StorageKind::pread, .page_cache_bytes = 4 * size_t{f.page_size}}},
          Way{"memory", {.storage = drydb::StorageKind::memory}}}) {
      SCOPED_TRACE(way.name);
      auto db = drydb::ReadOnlyDatabase::open(path, way.options);
      ASSERT_TRUE(db) << db.error().to_string();
      check_database(*db, f);
    }
    SCOPED_TRACE("open_memory");
    auto mem = drydb::ReadOnlyDatabase::open_memory(bytes);
    ASSERT_TRUE(mem) << mem.error().to_string();
    check_database(*mem, f);
  }
}

TEST(Format2Compat, Format2_0FilesReadAsWritten) {
  ASSERT_EQ(drydb_format2::files().size(), 4u);
  check_golden_files("format2", 0, drydb_format2::files());
}

// Miss filters.
TEST(Format2Compat, Format2_1FilesReadAsWritten) {
  check_golden_files("format2.1", 1, drydb_format2_1::files());
}

// Pages of text keys storing the prefix they share.
TEST(Format2Compat, Format2_2FilesReadAsWritten) {
  check_golden_files("format2.2", 2, drydb_format2_2::files());
}

// Column lists.
TEST(Format2Compat, Format2_3FilesReadAsWritten) {
  check_golden_files("format2.3", 3, drydb_format2_3::files());
}

// The file identity, seeding every checksum but the header's.
TEST(Format2Compat, Format2_4FilesReadAsWritten) {
  check_golden_files("format2.4", 4, drydb_format2_4::files());
}

// Overflow runs bound to their place, and the identity covering each index's entries.
TEST(Format2Compat, Format2_5FilesReadAsWritten) {
  check_golden_files("format2.5", 5, drydb_format2_5::files());
}

}  // namespace
}  // namespace drydb_golden
