// Secondary indexes (TableBuilder::add_secondary_index, index.h, row.h):
// differential tests against a sorted (index key, primary key) model with tiny
// pages, every bound combination in both orders, cursors, prefixes, sparse and
// empty indexes, build errors, and the C# original's index faults (W4).

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "support/suite.h"

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
using drydb_support::as_bytes;
using drydb_support::built_bytes;
using drydb_support::Bytes;
using drydb_support::describe;
using drydb_support::int64_key;
using drydb_support::to_string;

using Fn = std::function<std::optional<std::string>(const std::string& pk, const std::string& v)>;

// One index of the model: its declaration and a function from a row to its
// encoded index key (or none), written once for the builder and the model.
struct IndexSpec {
  std::string name;
  bool unique;
  KeyEncoding encoding;
  Fn key_of;
};

// Entries (encoded index key, primary key), sorted as the index answers.
using Entries = std::vector<std::pair<std::string, std::string>>;

struct Model {
  std::map<std::string, std::string> rows;  // primary key -> value
  std::vector<IndexSpec> indexes;

  Entries entries(const IndexSpec& ix) const {
    Entries out;
    for (const auto& [pk, v] : rows)
      if (auto k = ix.key_of(pk, v)) out.emplace_back(*k, pk);
    std::sort(out.begin(), out.end());
    return out;
  }
};

drydb::IndexKeyFunction builder_fn(const IndexSpec& ix) {
  return [ix](Bytes pk, Bytes v) -> std::optional<IndexKey> {
    auto k = ix.key_of(to_string(pk), to_string(v));
    if (!k) return std::nullopt;
    if (ix.encoding.kind() == drydb::KeyKind::int64) return IndexKey(drydb_support::int64_of(*k));
    return IndexKey(std::string(*k));
  };
}

std::vector<std::byte> build(const Model& m, uint32_t page_size) {
  drydb::DatabaseBuilder b({.page_size = page_size});
  auto& t = b.create_table("items", KeyEncoding::bytes());
  for (const auto& [pk, v] : m.rows)
    t.append(pk, v);
  for (const auto& ix : m.indexes)
    t.add_secondary_index(ix.name, ix.unique, ix.encoding, builder_fn(ix));
  return built_bytes(b.build_to_memory());
}

// The query key for an encoded index key.
Key query_key(const IndexSpec& ix, const std::string& k) {
  if (ix.encoding.kind() == drydb::KeyKind::int64) return Key(drydb_support::int64_of(k));
  return Key(std::string_view(k));
}

// A probe: an index key to query with, or none for unbounded.
using Probe = std::optional<std::string>;

bool in_bounds(const std::string& k, const Probe& s, const Probe& e, const RangeOptions& o) {
  if (s && (o.start_exclusive ? k <= *s : k < *s)) return false;
  if (e && (o.end_exclusive ? k >= *e : k > *e)) return false;
  return true;
}

KeyBound bound_of(const IndexSpec& ix, const Probe& p) {
  if (!p) return unbounded;
  return query_key(ix, *p);
}

// The rows an IndexRange yields, as (primary key, value), checked against the index keys too.
template <class R>
std::vector<std::pair<std::string, std::string>> rows_of(R& range) {
  std::vector<std::pair<std::string, std::string>> out;
  for (auto [k, v] : range)
    out.emplace_back(to_string(k), to_string(v));
  EXPECT_TRUE(range.status()) << describe(range.status().error());
  return out;
}

class IndexDifferential : public ::testing::TestWithParam<std::tuple<uint32_t, bool>> {};

// Rows with a mix of value sizes (empty, inline, overflow) and indexes of
// every kind: non-unique bytes (with 0x00 bytes and empty keys, sparse),
// non-unique int64 (negative keys), unique bytes, unique int64 (sparse).
Model make_model(int rows) {
  Model m;
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
      {"category", false, KeyEncoding::bytes(),
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
       }});
  m.indexes.push_back(
      {"bucket", false, KeyEncoding::int64(),
       [num](const std::string& pk, const std::string&) -> std::optional<std::string> {
         return int64_key(num(pk) % 13 - 6);
       }});
  m.indexes.push_back({"reversed", true, KeyEncoding::bytes(),
                       [](const std::string& pk, const std::string&) -> std::optional<std::string> {
                         return std::string(pk.rbegin(), pk.rend());
                       }});
  m.indexes.push_back(
      {"negated", true, KeyEncoding::int64(),
       [num](const std::string& pk, const std::string&) -> std::optional<std::string> {
         int n = num(pk);
         if (n % 3 == 0) return std::nullopt;
         return int64_key(-3 * int64_t{n});
       }});
  return m;
}

// Probe keys: every few distinct index keys, their neighbours, and the extremes.
std::vector<Probe> probes(const IndexSpec& ix, const Entries& entries) {
  std::set<std::string> keys;
  for (size_t i = 0; i < entries.size(); i += std::max<size_t>(1, entries.size() / 4))
    keys.insert(entries[i].first);
  if (!entries.empty()) keys.insert(entries.back().first);
  std::vector<Probe> out = {std::nullopt};
  for (const auto& k : keys)
    out.push_back(k);
  if (ix.encoding.kind() == drydb::KeyKind::int64) {
    out.push_back(int64_key(std::numeric_limits<int64_t>::min()));
    out.push_back(int64_key(std::numeric_limits<int64_t>::max()));
    out.push_back(int64_key(0));
  } else {
    out.push_back(std::string());
    out.push_back(std::string("c\0\0", 3));  // between keys that share a 0x00 prefix
    out.push_back(std::string("\xff\xff", 2));
    out.push_back("d");
  }
  return out;
}

void check_index(const drydb::ReadOnlyTable& table, const Model& m, const IndexSpec& ix) {
  SCOPED_TRACE("index " + ix.name);
  auto index = table.index(ix.name);
  ASSERT_TRUE(index) << describe(index.error());
  EXPECT_EQ(index->name(), ix.name);
  EXPECT_EQ(index->unique(), ix.unique);
  const Entries entries = m.entries(ix);
  ASSERT_EQ(index->count(), entries.size());

  // get and get_all for every probe and every present key.
  std::vector<Probe> ps = probes(ix, entries);
  std::set<std::string> present;
  for (const auto& e : entries)
    present.insert(e.first);
  std::vector<std::string> keys(present.begin(), present.end());
  for (const auto& p : ps)
    if (p) keys.push_back(*p);
  for (const auto& k : keys) {
    auto first = std::lower_bound(entries.begin(), entries.end(), std::make_pair(k, std::string()));
    const bool has = first != entries.end() && first->first == k;
    auto row = index->get(query_key(ix, k));
    ASSERT_TRUE(row) << describe(row.error());
    ASSERT_EQ(row->has_value(), has) << drydb::escape_bytes(as_bytes(k));
    if (has) {
      EXPECT_EQ(to_string(row->key()), first->second);
      EXPECT_EQ(to_string(row->value()), m.rows.at(first->second));
    }
    auto all = index->get_all(query_key(ix, k));
    ASSERT_TRUE(all) << describe(all.error());
    std::vector<std::pair<std::string, std::string>> want;
    for (auto it = first; it != entries.end() && it->first == k; ++it)
      want.emplace_back(it->second, m.rows.at(it->second));
    EXPECT_EQ(all->size(), want.size());
    EXPECT_EQ(rows_of(*all), want);
  }

  // Every bound combination, both orders, with count_range.
  for (const auto& s : ps)
    for (const auto& e : ps)
      for (int flags = 0; flags < 4; ++flags)
        for (SortOrder order : {SortOrder::ascending, SortOrder::descending}) {
          RangeOptions o{.start_exclusive = (flags & 1) != 0,
                         .end_exclusive = (flags & 2) != 0,
                         .order = order};
          auto r = index->get_range(bound_of(ix, s), bound_of(ix, e), o);
          auto c = index->count_range(bound_of(ix, s), bound_of(ix, e), o);
          if (s && e && *s > *e) {
            ASSERT_FALSE(r);
            EXPECT_EQ(r.error().code, errc::invalid_argument);
            ASSERT_FALSE(c);
            continue;
          }
          ASSERT_TRUE(r) << describe(r.error());
          ASSERT_TRUE(c) << describe(c.error());
          std::vector<std::pair<std::string, std::string>> want;
          for (const auto& [k, pk] : entries)
            if (in_bounds(k, s, e, o)) want.emplace_back(pk, m.rows.at(pk));
          if (order == SortOrder::descending) std::reverse(want.begin(), want.end());
          EXPECT_EQ(*c, want.size());
          EXPECT_EQ(r->size(), want.size());
          EXPECT_EQ(rows_of(*r), want);
        }

  // Prefixes (byte-keyed indexes only).
  if (ix.encoding.kind() == drydb::KeyKind::bytes) {
    for (std::string p :
         {std::string(), std::string("c"), std::string("c\0", 2), std::string("c\0\0", 3),
          std::string("cat\xff", 4), std::string("d"), std::string("k"), std::string("\xff")}) {
      for (SortOrder order : {SortOrder::ascending, SortOrder::descending}) {
        auto r = index->prefix(as_bytes(p), order);
        ASSERT_TRUE(r) << describe(r.error());
        std::vector<std::pair<std::string, std::string>> want;
        for (const auto& [k, pk] : entries)
          if (k.compare(0, p.size(), p) == 0 && k.size() >= p.size())
            want.emplace_back(pk, m.rows.at(pk));
        if (order == SortOrder::descending) std::reverse(want.begin(), want.end());
        EXPECT_EQ(rows_of(*r), want) << drydb::escape_bytes(as_bytes(p));
      }
    }
  } else {
    auto r = index->prefix("x");
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, errc::wrong_key_type);
  }

  // Cursor walks both ways, with index keys and ranks.
  auto c = index->cursor();
  size_t i = 0;
  for (bool ok = c.first(); ok; ok = c.next(), ++i) {
    ASSERT_LT(i, entries.size());
    EXPECT_EQ(c.rank(), i);
    EXPECT_EQ(to_string(c.index_key()), entries[i].first);
    EXPECT_EQ(to_string(c.key()), entries[i].second);
    EXPECT_EQ(to_string(c.value()), m.rows.at(entries[i].second));
  }
  EXPECT_TRUE(c.status());
  EXPECT_EQ(i, entries.size());
  i = entries.size();
  for (bool ok = c.last(); ok; ok = c.prev()) {
    --i;
    EXPECT_EQ(to_string(c.key()), entries[i].second);
    EXPECT_EQ(to_string(c.index_key()), entries[i].first);
  }
  EXPECT_EQ(i, 0u);
  // seek / seek_exact land on the first entry of a key or past it.
  for (const auto& k : keys) {
    auto first = std::lower_bound(entries.begin(), entries.end(), std::make_pair(k, std::string()));
    const bool exact = c.seek_exact(query_key(ix, k));
    EXPECT_EQ(exact, first != entries.end() && first->first == k);
    ASSERT_EQ(c.valid(), first != entries.end());
    if (c.valid()) {
      EXPECT_EQ(c.rank(), static_cast<uint64_t>(first - entries.begin()));
      EXPECT_EQ(to_string(c.key()), first->second);
      // A Row taken from the cursor outlives its moves.
      drydb::Row row = c.row();
      c.next();
      EXPECT_EQ(to_string(row.key()), first->second);
      EXPECT_EQ(to_string(row.value()), m.rows.at(first->second));
    }
  }
}

TEST_P(IndexDifferential, MatchesModel) {
  const auto [page_size, cached] = GetParam();
  const Model m = make_model(1200);
  const auto bytes = build(m, page_size);
  ASSERT_FALSE(bytes.empty());
  auto db = cached ? drydb_support::open_cached(bytes, 8 * page_size)
                   : ReadOnlyDatabase::open_memory(bytes);
  ASSERT_TRUE(db) << describe(db.error());
  auto st = db->verify();
  ASSERT_TRUE(st) << describe(st.error());
  auto table = db->table("items").value();
  ASSERT_EQ(table.indexes().size(), m.indexes.size());
  for (const auto& ix : m.indexes)
    check_index(table, m, ix);
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
                          return IndexKey(drydb_support::int64_of(to_string(key)) % 10);
                        });
  auto bytes = built_bytes(b.build_to_memory());
  const std::string marker = "value-00500|";
  const std::string_view all(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  const size_t at = all.find(marker);
  ASSERT_NE(at, std::string_view::npos);
  bytes[at] ^= std::byte{0x20};  // the leaf holding row 500 no longer matches its checksum
  auto db = ReadOnlyDatabase::open_memory(bytes).value();
  auto ix = db.table("t")->index("by_tens").value();
  auto range = ix.get_range(0, 0).value();  // rows 0, 10, ..., 990
  ASSERT_EQ(range.size(), 100u);
  std::vector<int64_t> got;
  for (auto [k, v] : range)
    got.push_back(drydb_support::int64_of(to_string(k)));
  ASSERT_FALSE(range.status());
  EXPECT_EQ(range.status().code(), drydb::errc::corruption) << describe(range.status().error());
  ASSERT_FALSE(got.empty());
  EXPECT_LT(got.back(), 500);
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
    auto db =
        cached ? drydb_support::open_cached(bytes, 4096) : ReadOnlyDatabase::open_memory(bytes);
    ASSERT_TRUE(db);
    auto ix = db->table("t")->index("len").value();
    auto row = ix.get(int64_t{3 << 20}).value();
    ASSERT_TRUE(row.has_value());
    EXPECT_EQ(row.value_str(), huge);
    EXPECT_EQ(drydb_support::int64_of(row.key_str()), 7);
    auto r = ix.get_range(unbounded, unbounded, {.order = SortOrder::descending}).value();
    std::vector<size_t> sizes;
    for (auto [k, v] : r)
      sizes.push_back(v.size());
    EXPECT_EQ(sizes, (std::vector<size_t>{huge.size(), 5}));
  }
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
    names.emplace_back(drydb_support::to_view(k));
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

TEST(IndexBuild, IndexSortersSpillWithinTheBudget) {
  // A budget far below the index entries' size forces index runs to spill.
  drydb::DatabaseBuilder b({.page_size = 1024, .memory_budget = 64 << 10});
  auto& t = b.create_table("t", KeyEncoding::int64());
  const int n = 20000;
  for (int i = 0; i < n; ++i)
    t.append((i * 7919) % n, "v" + std::to_string(i % 100));
  t.add_secondary_index("v", false, KeyEncoding::bytes(), value_as_key());
  const auto bytes = built_bytes(b.build_to_memory());
  auto db = ReadOnlyDatabase::open_memory(bytes).value();
  ASSERT_TRUE(db.verify());
  auto ix = db.table("t")->index("v").value();
  EXPECT_EQ(ix.count(), static_cast<uint64_t>(n));
  int64_t previous = std::numeric_limits<int64_t>::min();
  uint64_t rows = 0;
  for (auto [k, v] : *ix.get_all("v42")) {
    int64_t pk = drydb_support::int64_of(drydb_support::to_view(k));
    EXPECT_GT(pk, previous);  // primary-key order within the group
    previous = pk;
    ++rows;
  }
  EXPECT_EQ(rows, static_cast<uint64_t>(n / 100));
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
          return IndexKey("g" +
                          std::to_string(drydb_support::int64_of(drydb_support::to_view(pk)) % 5));
        });
    t.add_secondary_index(
        "number", false, KeyEncoding::int64(), [](Bytes pk, Bytes) -> std::optional<IndexKey> {
          return IndexKey(drydb_support::int64_of(drydb_support::to_view(pk)) % 5);
        });
    bytes_ = built_bytes(b.build_to_memory());
    db_.emplace(ReadOnlyDatabase::open_memory(bytes_).value());
  }
  SecondaryIndex index(const char* name) { return db_->table("t")->index(name).value(); }
  static std::vector<int64_t> pks(drydb::IndexRange& r) {
    std::vector<int64_t> out;
    for (auto [k, v] : r)
      out.push_back(drydb_support::int64_of(drydb_support::to_view(k)));
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
  EXPECT_EQ(drydb_support::int64_of(row.key_str()), 3);
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
