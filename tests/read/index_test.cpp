// Secondary indexes (TableBuilder::add_secondary_index, index.h, row.h):
// differential tests against a sorted (index key, primary key) model with tiny
// pages, every bound combination in both orders, cursors, prefixes, sparse and
// empty indexes, build errors, and the C# original's index faults (W4).

#include <gtest/gtest.h>
#if !defined(_WIN32)
#include <malloc.h>
#endif

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "drydb/detail/coding.h"
#include "drydb/detail/format.h"
#include "drydb/detail/index_coding.h"
#include "drydb/detail/node.h"
#include "support/checksums.h"
#include "support/suite.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define DRYDB_INDEX_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define DRYDB_INDEX_TEST_SANITIZED 1
#endif
#endif
#if DRYDB_INDEX_TEST_SANITIZED
#include <sanitizer/allocator_interface.h>
#endif

namespace {

using drydb::errc;
using drydb::IndexKey;
using drydb::Key;
using drydb::KeyBound;
using drydb::KeyEncoding;
using drydb::RangeOptions;
using drydb::ReadOnlyDatabase;
using drydb::SecondaryIndex;
using drydb::SortOrder;
using drydb::unbounded;
// The one model and checker (support/).
using namespace drydb_test;

class IndexDifferential : public ::testing::TestWithParam<std::tuple<uint32_t, bool>> {};

// Rows with a mix of value sizes (empty, inline, overflow) and indexes of
// every kind: non-unique bytes (with 0x00 bytes and empty keys, sparse),
// non-unique int64 (negative keys), unique bytes, unique int64 (sparse).
TableModel make_model(int rows) {
  TableModel m = make_table("items", KeyEncoding::bytes());
  for (int i = 0; i < rows; ++i) {
    char pk[16];
    std::snprintf(pk, sizeof pk, "k%05d", (i * 7919) % rows);
    std::string v;
    if (i % 50 == 0)
      v = std::string(300 + i % 7, static_cast<char>('a' + i % 26));  // overflow at 512-byte pages
    else if (i % 17 != 0)
      v = "value-" + std::to_string(i);
    m.rows.emplace(pk, v);
  }
  auto num = [](const std::string& pk) { return std::stoi(pk.substr(1)); };
  m.indexes.push_back(
      make_index("category", false, KeyEncoding::bytes(),
                 [num](const std::string& pk, const std::string&) -> std::optional<std::string> {
                   int n = num(pk);
                   if (n % 11 == 0) return std::nullopt;
                   switch (n % 6) {
                     case 0:
                       return std::string();
                     case 1:
                       return std::string("c\0", 2);
                     case 2:
                       return std::string("c\0\0x", 4);
                     case 3:
                       return std::string("c");
                     case 4:
                       return std::string("cat\xff", 4);
                     default:
                       return "d" + std::to_string(n % 9);
                   }
                 }));
  m.indexes.push_back(
      make_index("bucket", false, KeyEncoding::int64(),
                 [num](const std::string& pk, const std::string&) -> std::optional<std::string> {
                   return int64_key(num(pk) % 13 - 6);
                 }));
  m.indexes.push_back(
      make_index("reversed", true, KeyEncoding::bytes(),
                 [](const std::string& pk, const std::string&) -> std::optional<std::string> {
                   return std::string(pk.rbegin(), pk.rend());
                 }));
  m.indexes.push_back(
      make_index("negated", true, KeyEncoding::int64(),
                 [num](const std::string& pk, const std::string&) -> std::optional<std::string> {
                   int n = num(pk);
                   if (n % 3 == 0) return std::nullopt;
                   return int64_key(-3 * int64_t{n});
                 }));
  m.finish();
  return m;
}

// Probe keys: every few distinct index keys, their neighbours, and the extremes.
std::vector<Bound> probes(const IndexModel& ix) {
  const auto& entries = ix.entries;
  std::set<std::string> keys;
  for (size_t i = 0; i < entries.size(); i += std::max<size_t>(1, entries.size() / 4))
    keys.insert(entries[i].first);
  if (!entries.empty()) keys.insert(entries.back().first);
  std::vector<Bound> out = {Bound::none()};
  for (const auto& k : keys)
    out.push_back(Bound::at(k));
  if (ix.is_int64()) {
    out.push_back(Bound::at(int64_key(std::numeric_limits<int64_t>::min())));
    out.push_back(Bound::at(int64_key(std::numeric_limits<int64_t>::max())));
    out.push_back(Bound::at(int64_key(0)));
  } else {
    out.push_back(Bound::at(std::string()));
    out.push_back(Bound::at(std::string("c\0\0", 3)));  // between keys that share a 0x00 prefix
    out.push_back(Bound::at(std::string("\xff\xff", 2)));
    out.push_back(Bound::at("d"));
  }
  return out;
}

// Every query kind of one index against the model, through the one checker.
void check_index(const drydb::ReadOnlyTable& table, const TableModel& t, const IndexModel& ix) {
  SCOPED_TRACE("index " + ix.name);
  auto index = table.index(ix.name);
  ASSERT_TRUE(index) << describe(index.error());
  EXPECT_EQ(index->name(), ix.name);
  EXPECT_EQ(index->unique(), ix.unique);
  Outcome out;
  report_failures(out, t.name + "." + ix.name);
  check_index_count_all(*index, t, ix, out);

  // get, get_all and seeks for every present key and every probe.
  const std::vector<Bound> ps = probes(ix);
  std::set<std::string> keys;
  for (const auto& e : ix.entries)
    keys.insert(e.first);
  for (const auto& p : ps)
    if (p.bounded) keys.insert(p.key);
  for (const auto& k : keys) {
    check_index_get(*index, t, ix, k, out);
    check_index_get_all(*index, t, ix, k, out);
    check_index_seek(*index, t, ix, k, out);
  }

  // Every bound combination, both orders, with count_range.
  for (const auto& s : ps)
    for (const auto& e : ps)
      for (int flags = 0; flags < 4; ++flags)
        for (SortOrder order : kBothOrders) {
          const RangeOptions o{.start_exclusive = (flags & 1) != 0,
                               .end_exclusive = (flags & 2) != 0,
                               .order = order};
          check_index_range(*index, t, ix, s, e, o, out);
          check_index_count(*index, t, ix, s, e, o, out);
        }

  // Prefixes (refused by int64 indexes).
  for (std::string p : {std::string(), std::string("c"), std::string("c\0", 2),
                        std::string("c\0\0", 3), std::string("cat\xff", 4), std::string("d"),
                        std::string("k"), std::string("\xff"), std::string("x")})
    for (SortOrder order : kBothOrders)
      check_index_prefix(*index, t, ix, p, order, out);

  // Cursor walks both ways, with index keys, ranks and rows.
  check_index_walk(*index, t, ix, true, out);
  check_index_walk(*index, t, ix, false, out);
  EXPECT_TRUE(out.clean());
  EXPECT_GT(out.rows, ix.size());
}

TEST_P(IndexDifferential, MatchesModel) {
  const auto [page_size, cached] = GetParam();
  DbModel m{.page_size = page_size, .tables = {make_model(1200)}};
  const auto bytes = build_memory(m);
  ASSERT_FALSE(bytes.empty());
  auto db = cached ? open_cached(bytes, 8 * page_size) : ReadOnlyDatabase::open_memory(bytes);
  ASSERT_TRUE(db) << describe(db.error());
  auto st = db->verify();
  ASSERT_TRUE(st) << describe(st.error());
  auto table = db->table("items").value();
  const TableModel& items = m.tables[0];
  ASSERT_EQ(table.indexes().size(), items.indexes.size());
  for (const auto& ix : items.indexes)
    check_index(table, items, ix);
  // Deep trees: the tiny pages give the indexes several levels.
  if (page_size == 512) {
    EXPECT_GE(table.index("bucket")->depth(), 3u);
  }
}

INSTANTIATE_TEST_SUITE_P(PageSizes, IndexDifferential,
                         ::testing::Combine(::testing::Values(512u, 4096u), ::testing::Bool()));

// ---- edges -----------------------------------------------------------------------------------

drydb::IndexKeyFunction value_as_key() {
  return [](Bytes, Bytes v) -> std::optional<IndexKey> { return IndexKey(v); };
}

TEST(Index, EmptyTableAndEmptyIndex) {
  drydb::DatabaseBuilder b({.page_size = 512});
  auto& empty = b.create_table("empty");
  empty.add_secondary_index("by_value", false, KeyEncoding::bytes(), value_as_key());
  auto& none = b.create_table("none");
  none.append("a", "1");
  none.add_secondary_index("skip_all", true, KeyEncoding::int64(),
                           [](Bytes, Bytes) -> std::optional<IndexKey> { return std::nullopt; });
  const auto bytes = built_bytes(b.build_to_memory());
  auto db = ReadOnlyDatabase::open_memory(bytes).value();
  ASSERT_TRUE(db.verify());
  for (auto [table, name] : {std::pair{"empty", "by_value"}, std::pair{"none", "skip_all"}}) {
    auto ix = db.table(table)->index(name).value();
    EXPECT_EQ(ix.count(), 0u);
    Key k = ix.encoding().kind() == drydb::KeyKind::int64 ? Key(1) : Key("a");
    EXPECT_FALSE(ix.get(k)->has_value());
    EXPECT_EQ(ix.get_all(k)->size(), 0u);
    EXPECT_EQ(ix.get_range(unbounded, unbounded)->size(), 0u);
    EXPECT_EQ(*ix.count_range(unbounded, unbounded), 0u);
    EXPECT_FALSE(ix.cursor().first());
    // An empty range keeps the order it was asked for.
    const drydb::RangeOptions descending{.order = drydb::SortOrder::descending};
    EXPECT_EQ(ix.get_range(unbounded, unbounded, descending)->order(),
              drydb::SortOrder::descending);
    if (ix.encoding().kind() == drydb::KeyKind::bytes) {
      EXPECT_EQ(ix.prefix("a", drydb::SortOrder::descending)->order(),
                drydb::SortOrder::descending);
    }
  }
}

// A row an index range cannot read (its table leaf is damaged) ends the iteration there, and
// status() says why: the rows before it come out, none after, and no error is lost by stepping
// on.
TEST(Index, ARowThatFailsToReadEndsTheRangeWithItsError) {
  drydb::DatabaseBuilder b({.page_size = 512});
  auto& t = b.create_table("t", KeyEncoding::int64());
  char value[32];
  for (int64_t k = 0; k < 1000; ++k) {
    std::snprintf(value, sizeof value, "value-%05lld|", static_cast<long long>(k));
    t.append(k, value);
  }
  t.add_secondary_index("by_tens", false, KeyEncoding::int64(),
                        [](Bytes key, Bytes) -> std::optional<IndexKey> {
                          return IndexKey(drydb_test::int64_of(to_string(key)) % 10);
                        });
  auto bytes = built_bytes(b.build_to_memory());
  const std::string marker = "value-00500|";
  const std::string_view all(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  const size_t at = all.find(marker);
  ASSERT_NE(at, std::string_view::npos);
  // The iteration must end at the first row of that leaf, which may come before row 500.
  namespace d = drydb::detail;
  d::KeyBuffer buf;
  const d::LeafView leaf(bytes.data() + at / 512 * 512, d::KeyLayout{8});
  const int64_t first_damaged = drydb_test::int64_of(to_string(leaf.key(0, buf)));
  ASSERT_GT(first_damaged, 10);
  ASSERT_LE(first_damaged, 500);
  bytes[at] ^= std::byte{0x20};  // the leaf holding row 500 no longer matches its checksum
  auto db = ReadOnlyDatabase::open_memory(bytes).value();
  auto ix = db.table("t")->index("by_tens").value();
  auto range = ix.get_range(0, 0).value();  // rows 0, 10, ..., 990
  ASSERT_EQ(range.size(), 100u);
  std::vector<int64_t> got;
  for (auto [k, v] : range)
    got.push_back(drydb_test::int64_of(to_string(k)));
  ASSERT_FALSE(range.status());
  EXPECT_EQ(range.status().code(), drydb::errc::corruption) << describe(range.status().error());
  // Every multiple of 10 before that row, and no other.
  EXPECT_EQ(got.size(), static_cast<size_t>((first_damaged + 9) / 10));
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_EQ(got[i], static_cast<int64_t>(i) * 10);
}

TEST(Index, OneRowEmptyValueAndEmptyIndexKey) {
  drydb::DatabaseBuilder b({.page_size = 512});
  auto& t = b.create_table("t");
  t.append("only", "");
  t.add_secondary_index("v", true, KeyEncoding::bytes(), value_as_key());
  const auto bytes = built_bytes(b.build_to_memory());
  auto db = ReadOnlyDatabase::open_memory(bytes).value();
  auto ix = db.table("t")->index("v").value();
  auto row = ix.get("").value();
  ASSERT_TRUE(row.has_value());
  EXPECT_EQ(row.key_str(), "only");
  EXPECT_EQ(row.value_str(), "");
  EXPECT_FALSE(ix.get("x")->has_value());
}

TEST(Index, HugeValueThroughAnIndex) {
  drydb::DatabaseBuilder b({.page_size = 512});
  auto& t = b.create_table("t", KeyEncoding::int64());
  const std::string huge(3 << 20, 'h');
  t.append(7, huge);
  t.append(8, "small");
  t.add_secondary_index("len", false, KeyEncoding::int64(),
                        [](Bytes, Bytes v) -> std::optional<IndexKey> {
                          return IndexKey(static_cast<int64_t>(v.size()));
                        });
  const auto bytes = built_bytes(b.build_to_memory());
  for (bool cached : {false, true}) {
    auto db = cached ? drydb_test::open_cached(bytes, 4096) : ReadOnlyDatabase::open_memory(bytes);
    ASSERT_TRUE(db);
    auto ix = db->table("t")->index("len").value();
    auto row = ix.get(int64_t{3 << 20}).value();
    ASSERT_TRUE(row.has_value());
    EXPECT_EQ(row.value_str(), huge);
    EXPECT_EQ(drydb_test::int64_of(row.key_str()), 7);
    auto r = ix.get_range(unbounded, unbounded, {.order = SortOrder::descending}).value();
    std::vector<size_t> sizes;
    for (auto [k, v] : r)
      sizes.push_back(v.size());
    EXPECT_EQ(sizes, (std::vector<size_t>{huge.size(), 5}));
  }
}

// ---- entries that refer to the wrong row, behind valid checksums -----------------------------

// A table "t" of int64 keys 0..kRedirectRows-1 (values "row-K", of mixed lengths) with one
// int64 index "n" over every row, index key index_of(K); pages of 4096 bytes, so each tree is
// one leaf.
constexpr int64_t kRedirectRows = 30;

std::vector<std::byte> table_with_index(bool unique, int64_t (*index_of)(int64_t)) {
  drydb::DatabaseBuilder b({.page_size = 4096});
  auto& t = b.create_table("t", KeyEncoding::int64());
  for (int64_t k = 0; k < kRedirectRows; ++k)
    t.append(k, "row-" + std::to_string(k));
  t.add_secondary_index("n", unique, KeyEncoding::int64(),
                        [index_of](Bytes key, Bytes) -> std::optional<IndexKey> {
                          return IndexKey(index_of(drydb_test::int64_of(to_string(key))));
                        });
  return built_bytes(b.build_to_memory());
}

// The index's leaf: the one leaf whose values are all 10-byte row references (the table's
// values are not all of one length), and where its records start.
struct IndexLeaf {
  std::byte* page = nullptr;
  uint16_t entries = 0;
  size_t records = 0;
};

IndexLeaf find_index_leaf(std::vector<std::byte>& bytes) {
  namespace fmt = drydb::detail;
  constexpr size_t kPage = 4096;
  IndexLeaf found;
  for (size_t at = kPage; at + kPage <= bytes.size(); at += kPage) {
    std::byte* p = bytes.data() + at;
    if (p[fmt::page::kTypeOff] != std::byte{uint8_t(fmt::PageType::leaf)} ||
        p[fmt::page::kFlagsOff] != std::byte{fmt::leaf::kUniformValues} ||
        fmt::load_u16(p + fmt::leaf::kUniformLenOff) != fmt::kRowRefSize)
      continue;
    EXPECT_EQ(found.page, nullptr) << "two index leaves";
    found.page = p;
    found.entries = fmt::load_u16(p + fmt::page::kCountOff);
    found.records = fmt::leaf::records_off(found.entries, fmt::leaf::kUniformValues);
  }
  EXPECT_NE(found.page, nullptr);
  EXPECT_EQ(found.entries, kRedirectRows);
  return found;
}

// Page `page` of `file` (4 KiB pages) gets its checksum back, seeded as the file's are.
void fix_page_checksum(std::span<const std::byte> file, std::byte* page) {
  drydb::detail::store_u64(page,
                           drydb_test::xxh3(page + 8, 4096 - 8, drydb_test::checksum_seed(file)));
}

// verify() fails with errc::corruption naming index "n" and the table's row `rank`.
void expect_verify_names_row(const ReadOnlyDatabase& db, int rank) {
  const drydb::status st = db.verify();
  ASSERT_FALSE(st);
  EXPECT_EQ(st.code(), errc::corruption);
  const std::string message = describe(st.error());
  EXPECT_NE(message.find("index 'n' of table 't'"), std::string::npos) << message;
  EXPECT_NE(message.find("row " + std::to_string(rank) + " "), std::string::npos) << message;
}

// Issue 13: an entry of a unique index pointed at the next row, its page's checksum
// recomputed. Each row's key gives a different index key, so two entries referring to one row
// cannot both be right: verify() reports it, naming the index.
TEST(IndexVerify, AUniqueEntryReferringToAnotherIndexedRowIsCorruption) {
  auto bytes = table_with_index(true, [](int64_t k) { return k + 100; });
  ASSERT_TRUE(ReadOnlyDatabase::open_memory(bytes)->verify());
  const IndexLeaf leaf = find_index_leaf(bytes);
  ASSERT_NE(leaf.page, nullptr);
  // Index keys sort as the rows do: entry 5 (index key 105) refers to slot 5 of the table's leaf.
  std::byte* slot = leaf.page + leaf.records + 5 * drydb::detail::kRowRefSize + 8;
  ASSERT_EQ(drydb::detail::load_u16(slot), 5u);
  drydb::detail::store_u16(slot, 6);
  fix_page_checksum(bytes, leaf.page);

  auto db = ReadOnlyDatabase::open_memory(bytes).value();
  // What the fault does to a query: index key 105 now answers row 6.
  auto row = db.table("t")->index("n")->get(int64_t{105}).value();
  ASSERT_TRUE(row.has_value());
  EXPECT_EQ(row.value_str(), "row-6");
  expect_verify_names_row(db, 6);
}

// The same fault in a non-unique index, with the entry's rank suffix changed to the new row's
// too (so the rank check alone passes it), and the tree's key order kept: entry (group 0,
// rank 3) becomes (group 0, rank 4), while row 4 also has its own entry in group 1.
TEST(IndexVerify, ANonUniqueEntryReferringToAnotherIndexedRowIsCorruption) {
  auto group_of = [](int64_t k) { return k % 3; };
  auto bytes = table_with_index(false, group_of);
  ASSERT_TRUE(ReadOnlyDatabase::open_memory(bytes)->verify());
  const IndexLeaf leaf = find_index_leaf(bytes);
  ASSERT_NE(leaf.page, nullptr);
  // The entries in tree order: by group, then by row.
  std::vector<std::pair<int64_t, int64_t>> entries;
  for (int64_t k = 0; k < kRedirectRows; ++k)
    entries.emplace_back(group_of(k), k);
  std::sort(entries.begin(), entries.end());
  const auto at = std::find(entries.begin(), entries.end(), std::pair<int64_t, int64_t>{0, 3});
  ASSERT_NE(at, entries.end());
  ASSERT_NE(group_of(4), group_of(3));
  // Record: the 16-byte tree key (8-byte group, 8-byte big-endian rank), then the reference.
  constexpr size_t kRecord = 16 + drydb::detail::kRowRefSize;
  std::byte* record =
      leaf.page + leaf.records + static_cast<size_t>(at - entries.begin()) * kRecord;
  ASSERT_EQ(drydb::detail::load_be64(record + 8), 3u);
  ASSERT_EQ(drydb::detail::load_u16(record + 16 + 8), 3u);
  drydb::detail::store_be64(record + 8, 4);
  drydb::detail::store_u16(record + 16 + 8, 4);
  fix_page_checksum(bytes, leaf.page);

  auto db = ReadOnlyDatabase::open_memory(bytes).value();
  std::vector<std::string> group0;
  for (auto [k, v] : db.table("t")->index("n")->get_all(int64_t{0}).value())
    group0.emplace_back(to_string(v));
  EXPECT_EQ(std::count(group0.begin(), group0.end(), "row-4"), 1) << "the fault shows in queries";
  expect_verify_names_row(db, 4);
}

// ---- build errors ----------------------------------------------------------------------------

TEST(IndexBuild, UniqueDuplicateNamesBothRows) {
  drydb::DatabaseBuilder b;
  auto& t = b.create_table("people");
  t.append("alice", "team-a");
  t.append("bob", "team-b");
  t.append("carol", "team-a");
  t.add_secondary_index("team", true, KeyEncoding::bytes(), value_as_key());
  auto r = b.build_to_memory();
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, errc::duplicate_key);
  EXPECT_NE(r.error().message.find("'team-a'"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("'alice'"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("'carol'"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("index 'team'"), std::string::npos) << r.error().message;
}

TEST(IndexBuild, NonUniqueAcceptsRepeats) {
  drydb::DatabaseBuilder b;
  auto& t = b.create_table("people");
  t.append("alice", "team-a").append("bob", "team-b").append("carol", "team-a");
  t.add_secondary_index("team", false, KeyEncoding::bytes(), value_as_key());
  const auto bytes = built_bytes(b.build_to_memory());
  auto db = ReadOnlyDatabase::open_memory(bytes).value();
  auto ix = db.table("people")->index("team").value();
  auto all = ix.get_all("team-a").value();
  std::vector<std::string> names;
  for (auto [k, v] : all)
    names.emplace_back(drydb_test::to_view(k));
  EXPECT_EQ(names, (std::vector<std::string>{"alice", "carol"}));
}

TEST(IndexBuild, DeclarationErrors) {
  {
    drydb::DatabaseBuilder b;
    auto& t = b.create_table("t");
    t.add_secondary_index("x", false, KeyEncoding::bytes(), value_as_key());
    t.add_secondary_index("x", true, KeyEncoding::bytes(), value_as_key());
    EXPECT_EQ(b.status().error().code, errc::duplicate_name);
  }
  {
    drydb::DatabaseBuilder b;
    b.create_table("t").add_secondary_index("", false, KeyEncoding::bytes(), value_as_key());
    EXPECT_EQ(b.status().error().code, errc::invalid_argument);
  }
  {
    drydb::DatabaseBuilder b;
    b.create_table("t").add_secondary_index("x", false, KeyEncoding::bytes(), nullptr);
    EXPECT_EQ(b.status().error().code, errc::invalid_argument);
  }
  {
    drydb::DatabaseBuilder b;
    auto& t = b.create_table("t");
    t.append("a", "1");
    ASSERT_TRUE(b.build_to_memory());
    t.add_secondary_index("late", false, KeyEncoding::bytes(), value_as_key());
    EXPECT_EQ(b.status().error().code, errc::invalid_state);
  }
}

TEST(IndexBuild, FunctionResultsAreChecked) {
  struct Case {
    KeyEncoding encoding;
    drydb::IndexKeyFunction fn;
    errc code;
  };
  std::vector<Case> cases = {
      {KeyEncoding::int64(), value_as_key(), errc::wrong_key_type},
      {KeyEncoding::bytes(), [](Bytes, Bytes) -> std::optional<IndexKey> { return IndexKey(5); },
       errc::wrong_key_type},
      {KeyEncoding::uuid_v7(),
       [](Bytes, Bytes) -> std::optional<IndexKey> { return IndexKey(drydb::Ulid{}); },
       errc::wrong_key_type},
      {KeyEncoding::bytes(),
       [](Bytes, Bytes) -> std::optional<IndexKey> { return IndexKey(std::string(2000, 'k')); },
       errc::key_too_long},
  };
  for (auto& c : cases) {
    drydb::DatabaseBuilder b({.page_size = 4096});
    auto& t = b.create_table("t");
    t.append("row1", "v");
    t.add_secondary_index("ix", false, c.encoding, c.fn);
    auto r = b.build_to_memory();
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, c.code) << r.error().message;
    EXPECT_NE(r.error().message.find("'row1'"), std::string::npos) << r.error().message;
  }
  // A non-unique key pays 8 bytes for the rank, and 0x00 bytes double: the
  // limit is on what the key takes in the tree.
  drydb::DatabaseBuilder b({.page_size = 512});  // max key 64
  auto& t = b.create_table("t");
  t.append("a", std::string(54, 'x'));  // 54 + terminator 2 + rank 8 = 64
  t.append("b", std::string(55, 'x'));
  t.add_secondary_index("ix", false, KeyEncoding::bytes(), value_as_key());
  auto r = b.build_to_memory();
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, errc::key_too_long);
  EXPECT_NE(r.error().message.find("'b'"), std::string::npos) << r.error().message;
}

#if !defined(_WIN32)
// Spill files open in `dir`: the sorters' runs are unnamed (O_TMPFILE), so they are seen
// through this process's descriptors, not in the folder.
size_t files_open_in(const std::filesystem::path& dir) {
  size_t n = 0;
  std::error_code ec;
  const std::string prefix = std::filesystem::canonical(dir, ec).string() + "/";
  for (auto it = std::filesystem::directory_iterator("/proc/self/fd", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    std::error_code rec;
    if (std::filesystem::read_symlink(it->path(), rec).string().starts_with(prefix)) ++n;
  }
  return n;
}

// Bytes of heap in use now (the sanitizers' allocator when there is one).
size_t heap_in_use() {
#if DRYDB_INDEX_TEST_SANITIZED
  return __sanitizer_get_current_allocated_bytes();
#else
  return ::mallinfo2().uordblks + ::mallinfo2().hblkhd;
#endif
}

// Index entries 7 times the memory budget (the table's rows fit it): while the index function
// runs, the index's runs are open in temp_dir (it spilled, the table did not), and the heap
// never grows by more than twice the budget over what it held at the first call (so the entries
// were not all kept); the index then reads back whole and in order, and no file is left.
#endif  // !defined(_WIN32)

TEST(IndexBuild, IndexSortersSpillWithinTheBudget) {
#if defined(_WIN32)
  GTEST_SKIP() << "Linux only: spill files counted in /proc/self/fd, the heap by mallinfo2";
#else
  TempDir dir;
  const auto spill = dir / "spill";  // apart from the target's temp file
  std::filesystem::create_directory(spill);
  const size_t budget = 256 << 10;
  drydb::DatabaseBuilder b({.page_size = 4096, .memory_budget = budget, .temp_dir = spill});
  auto& t = b.create_table("t", KeyEncoding::int64());
  const int n = 4000;
  const std::string pad(400, '.');
  for (int i = 0; i < n; ++i)
    t.append((i * 7919) % n, "v" + std::to_string(i % 100));
  size_t calls = 0, most_files = 0, heap_first = 0, heap_most = 0;
  t.add_secondary_index("v", false, KeyEncoding::bytes(),
                        [&](Bytes, Bytes v) -> std::optional<IndexKey> {
                          const size_t heap = heap_in_use();
                          if (calls++ == 0) heap_first = heap;
                          heap_most = std::max(heap_most, heap);
                          if (calls % 50 == 0)
                            most_files = std::max(most_files, files_open_in(spill));
                          return IndexKey(to_string(v) + pad);
                        });
  ASSERT_GT(n * (pad.size() + 8), 6 * budget) << "the entries are far over the budget";
  EXPECT_EQ(files_open_in(spill), 0u) << "the table's rows spilled: they should fit";
  ASSERT_TRUE(b.build_to_file(dir / "db.drydb"));
  EXPECT_EQ(calls, static_cast<size_t>(n));
  EXPECT_GT(most_files, 0u) << "the index's entries never spilled";
  EXPECT_LT(heap_most - heap_first, 2 * budget) << "the index's entries were held in memory";
  EXPECT_EQ(files_open_in(spill), 0u);
  EXPECT_TRUE(std::filesystem::is_empty(spill));

  auto db = ReadOnlyDatabase::open(dir / "db.drydb").value();
  ASSERT_TRUE(db.verify());
  auto ix = db.table("t")->index("v").value();
  EXPECT_EQ(ix.count(), static_cast<uint64_t>(n));
  int64_t previous = std::numeric_limits<int64_t>::min();
  uint64_t rows = 0;
  for (auto [k, v] : *ix.get_all("v42" + pad)) {
    int64_t pk = drydb_test::int64_of(drydb_test::to_view(k));
    EXPECT_GT(pk, previous);  // primary-key order within the group
    EXPECT_EQ(to_string(v), "v42");
    previous = pk;
    ++rows;
  }
  EXPECT_EQ(rows, static_cast<uint64_t>(n / 100));
#endif
}

// ---- read errors -----------------------------------------------------------------------------

TEST(Index, UnknownIndexAndWrongKeys) {
  drydb::DatabaseBuilder b;
  auto& t = b.create_table("t");
  t.append("a", "1");
  t.add_secondary_index("by_number", false, KeyEncoding::int64(),
                        [](Bytes, Bytes) -> std::optional<IndexKey> { return IndexKey(1); });
  const auto bytes = built_bytes(b.build_to_memory());
  auto db = ReadOnlyDatabase::open_memory(bytes).value();
  auto table = db.table("t").value();
  auto missing = table.index("nope");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, errc::not_found);
  EXPECT_NE(missing.error().message.find("by_number"), std::string::npos);
  auto ix = table.index("by_number").value();
  EXPECT_EQ(ix.get("text").error().code, errc::wrong_key_type);
  EXPECT_EQ(ix.get_range("a", unbounded).error().code, errc::wrong_key_type);
  EXPECT_EQ(ix.count_range(unbounded, "a").error().code, errc::wrong_key_type);
  auto c = ix.cursor();
  EXPECT_FALSE(c.seek("a"));
  EXPECT_EQ(c.status().error().code, errc::wrong_key_type);
  EXPECT_EQ(ix.get_range(5, 4).error().code, errc::invalid_argument);
}

// ---- the C# original's non-unique index faults (reference W4) --------------------------------

class NonUniqueIndexW4 : public ::testing::Test {
 protected:
  void SetUp() override {
    drydb::DatabaseBuilder b({.page_size = 512});
    auto& t = b.create_table("t", KeyEncoding::int64());
    for (int64_t pk = 0; pk < 300; ++pk)
      t.append(pk, "row" + std::to_string(pk));
    // Group g = pk % 5, as text and as int64.
    t.add_secondary_index(
        "text", false, KeyEncoding::bytes(), [](Bytes pk, Bytes) -> std::optional<IndexKey> {
          return IndexKey("g" + std::to_string(drydb_test::int64_of(drydb_test::to_view(pk)) % 5));
        });
    t.add_secondary_index("number", false, KeyEncoding::int64(),
                          [](Bytes pk, Bytes) -> std::optional<IndexKey> {
                            return IndexKey(drydb_test::int64_of(drydb_test::to_view(pk)) % 5);
                          });
    bytes_ = built_bytes(b.build_to_memory());
    db_.emplace(ReadOnlyDatabase::open_memory(bytes_).value());
  }
  SecondaryIndex index(const char* name) { return db_->table("t")->index(name).value(); }
  static std::vector<int64_t> pks(drydb::IndexRange& r) {
    std::vector<int64_t> out;
    for (auto [k, v] : r)
      out.push_back(drydb_test::int64_of(drydb_test::to_view(k)));
    return out;
  }
  static std::vector<int64_t> group(int64_t g) {
    std::vector<int64_t> out;
    for (int64_t pk = g; pk < 300; pk += 5)
      out.push_back(pk);
    return out;
  }
  std::vector<std::byte> bytes_;
  std::optional<ReadOnlyDatabase> db_;
};

// W4: Get returned the raw 16-byte PageRef of the first duplicate, not the row.
TEST_F(NonUniqueIndexW4, GetReturnsTheFirstRowNotAReference) {
  auto row = index("text").get("g3").value();
  ASSERT_TRUE(row.has_value());
  EXPECT_EQ(row.value_str(), "row3");
  EXPECT_EQ(drydb_test::int64_of(row.key_str()), 3);
  auto n = index("number").get(int64_t{4}).value();
  ASSERT_TRUE(n.has_value());
  EXPECT_EQ(n.value_str(), "row4");
}

// W4: an unbounded end sorted below everything, so GetRange(k, Unbound) threw.
TEST_F(NonUniqueIndexW4, UnboundedEndReachesTheLastGroup) {
  auto r = index("text").get_range("g3", unbounded).value();
  std::vector<int64_t> want = group(3), g4 = group(4);
  want.insert(want.end(), g4.begin(), g4.end());
  EXPECT_EQ(pks(r), want);
  auto d = index("number").get_range(3, unbounded, {.order = SortOrder::descending}).value();
  std::reverse(want.begin(), want.end());
  EXPECT_EQ(pks(d), want);
}

// W4: exclusive bounds excluded only the first duplicate (start) or nothing (end).
TEST_F(NonUniqueIndexW4, ExclusiveBoundsExcludeWholeGroups) {
  for (const char* name : {"text", "number"}) {
    auto ix = index(name);
    auto key = [&](int64_t g) {
      return std::string(name) == "text" ? KeyBound(std::string_view(g == 1 ? "g1" : "g3"))
                                         : KeyBound(g);
    };
    auto r = ix.get_range(key(1), key(3), {.start_exclusive = true, .end_exclusive = true}).value();
    EXPECT_EQ(pks(r), group(2)) << name;
    EXPECT_EQ(*ix.count_range(key(1), key(3), {.start_exclusive = true, .end_exclusive = true}),
              group(2).size());
    auto s = ix.get_range(key(3), key(3), {.start_exclusive = true}).value();
    EXPECT_EQ(s.size(), 0u) << name;
  }
}

// W4: an unbounded start used an uninitialised buffer (async) or read out of
// bounds (int64 index).
TEST_F(NonUniqueIndexW4, UnboundedStartBeginsAtTheFirstGroup) {
  for (const char* name : {"text", "number"}) {
    auto ix = index(name);
    KeyBound end = std::string(name) == "text" ? KeyBound(std::string_view("g1")) : KeyBound(1);
    auto r = ix.get_range(unbounded, end).value();
    std::vector<int64_t> want = group(0), g1 = group(1);
    want.insert(want.end(), g1.begin(), g1.end());
    EXPECT_EQ(pks(r), want) << name;
    EXPECT_EQ(*ix.count_range(unbounded, end), want.size());
  }
}

TEST_F(NonUniqueIndexW4, GetAllIsPrimaryKeyOrder) {
  for (int64_t g = 0; g < 5; ++g) {
    auto r = index("number").get_all(g).value();
    EXPECT_EQ(pks(r), group(g));
  }
}

}  // namespace
