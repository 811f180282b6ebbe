// Files of format 2.0 stay readable: the golden files in tests/data/format2 (written by the
// format-2.0 builder, see format2_files.h) are opened with every storage, verified, and every
// row, index entry, bound and count is checked against the model they were written from.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "data/format2/format2_files.h"

namespace drydb_format2 {
namespace {

std::string to_string(std::span<const std::byte> b) {
  return {reinterpret_cast<const char*>(b.data()), b.size()};
}

std::filesystem::path data_dir() {
  const char* src = std::getenv("DRYDB_SOURCE_DIR");
  return std::filesystem::path(src ? src : ".") / "tests" / "data" / "format2";
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

void check_table(const drydb::ReadOnlyTable& table, const TableSpec& t) {
  SCOPED_TRACE("table " + t.name);
  EXPECT_EQ(table.encoding().id(), t.encoding.id());
  ASSERT_EQ(table.count(), t.rows.size());
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
  // Every key again through get_many.
  std::vector<drydb::Key> keys;
  for (const Row& row : t.rows)
    keys.push_back(typed_key(t.encoding, row.key));
  std::vector<drydb::Value> values(keys.size());
  auto st = table.get_many(keys, values);
  ASSERT_TRUE(st) << st.error().to_string();
  for (size_t r = 0; r < t.rows.size(); ++r)
    EXPECT_EQ(values[r].str(), t.rows[r].value) << "row " << r;
  // Prefixes of byte-keyed tables: each row's first 6 bytes.
  if (t.encoding.kind() == drydb::KeyKind::bytes && t.encoding.fixed_width() == 0) {
    for (size_t r = 0; r < t.rows.size(); r += 29) {
      const std::string p = t.rows[r].key.substr(0, 6);
      size_t want = 0;
      for (const Row& row : t.rows)
        want += row.key.compare(0, p.size(), p) == 0;
      auto range = table.prefix(p);
      ASSERT_TRUE(range);
      EXPECT_EQ(range->size(), want) << "prefix of row " << r;
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
    for (const std::string& p : {std::string("user1"), std::string("team\0", 5), std::string("")}) {
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
    check_table(*table, t);
    for (const IndexSpec& ix : t.indexes)
      check_index(*table, t, ix);
  }
}

TEST(Format2Compat, GoldenFilesReadAsWritten) {
  ASSERT_EQ(files().size(), 4u);
  for (const FileSpec& f : files()) {
    SCOPED_TRACE(f.name);
    const auto path = data_dir() / f.name;
    const std::vector<std::byte> bytes = read_file(path);
    ASSERT_GE(bytes.size(), 64u) << path;
    // The header says format 2.0: magic "DRY\0", major 2, minor 0 (little-endian u16s).
    EXPECT_EQ(to_string(std::span(bytes).first(4)), std::string("DRY\0", 4));
    EXPECT_EQ(static_cast<uint8_t>(bytes[4]) | static_cast<uint8_t>(bytes[5]) << 8, 2);
    EXPECT_EQ(static_cast<uint8_t>(bytes[6]) | static_cast<uint8_t>(bytes[7]) << 8, 0);
    for (const auto storage : {drydb::StorageKind::mmap, drydb::StorageKind::pread}) {
      SCOPED_TRACE(storage == drydb::StorageKind::mmap ? "mmap" : "pread");
      auto db = drydb::ReadOnlyDatabase::open(path, {.storage = storage});
      ASSERT_TRUE(db) << db.error().to_string();
      check_database(*db, f);
    }
    SCOPED_TRACE("memory");
    auto mem = drydb::ReadOnlyDatabase::open_memory(bytes);
    ASSERT_TRUE(mem) << mem.error().to_string();
    check_database(*mem, f);
  }
}

}  // namespace
}  // namespace drydb_format2
