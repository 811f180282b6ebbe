// ReadOnlyTable::get_many: batched lookups give what get() gives, key by key, on every key
// layout (int64 and fixed widths up to 8 through the prefix search, variable and wider keys
// through the byte search), every storage (mmap, pread through a tiny cache that evicts on
// every batch, caller memory), trees several levels deep, overflow values (the slow path),
// absent and repeated keys, batches of every length; and its errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "drydb/detail/coding.h"
#include "drydb/drydb.h"
#include "support/suite.h"

namespace {

using namespace drydb_test;
using drydb::Key;
using drydb::KeyEncoding;
using drydb::Value;

std::string be64(uint64_t v) {
  std::string out(8, '\0');
  drydb::detail::store_be64(reinterpret_cast<std::byte*>(out.data()), v);
  return out;
}

KeyEncoding fixed12() {
  return fixed_width_encoding(12);
}

// The keys of a model: mixed (sparse and dense ids; short text of shared
// beginnings) or clustered (ids in bursts separated by gaps of very different
// lengths, where interpolation guesses badly; URL-like text, a long shared
// prefix then hex digits, whose pages store the keys after it).
enum class KeyShape { mixed, clustered };

TableModel make_model(KeyEncoding enc, size_t rows, uint64_t seed,
                      KeyShape shape = KeyShape::mixed) {
  TableModel m = make_table("t", enc);
  Rng rng(seed);
  uint64_t burst = rng() >> 8;
  while (m.rows.size() < rows) {
    const uint64_t r = rng();
    std::string k;
    if (shape == KeyShape::clustered && enc.kind() == drydb::KeyKind::int64) {
      burst += r % 50 == 0 ? uint64_t{1} << (10 + r % 30) : 1 + r % 7;
      k = be64(burst);
    } else if (shape == KeyShape::clustered) {
      char hex[17];
      std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(r >> 20));
      k = std::string("https://example.com/catalog/items/") + hex;
    } else if (enc.kind() == drydb::KeyKind::int64)
      k = be64(r % 3 ? r : m.rows.size());  // sparse and dense ids
    else if (enc.fixed_width() == 12)
      k = be64(r) + std::string(4, static_cast<char>(r));
    else
      k = "k/" + std::to_string(r % 100000) + std::string(r % 5, 'x');
    const size_t len = r % 23 == 0 ? 300 + r % 900 : r % 40;  // some overflow values
    m.rows[k] = std::string(len, static_cast<char>('a' + r % 26));
  }
  return m;
}

std::vector<std::byte> build(const TableModel& m, uint32_t page_size) {
  return build_memory({.page_size = page_size, .tables = {m}});
}

// Present keys shuffled, with absent keys and repeats mixed in.
std::vector<std::string> queries(const TableModel& m, uint64_t seed) {
  std::vector<std::string> q;
  for (const auto& [k, v] : m.rows) {
    q.push_back(k);
    std::string absent = k;
    absent.back() = static_cast<char>(absent.back() ^ 0x55);
    if (!m.rows.count(absent)) q.push_back(absent);
  }
  Rng rng(seed);
  for (size_t i = 0; i < 50; ++i)
    q.push_back(q[rng() % q.size()]);
  std::shuffle(q.begin(), q.end(), rng);
  return q;
}

void check_all(const drydb::ReadOnlyTable& table, const TableModel& m,
               const std::vector<std::string>& q) {
  std::vector<Key> keys;
  for (const auto& k : q)
    keys.push_back(key_of(m, k));
  // Batches of every length around the internal batch size, and the whole list at once.
  for (size_t batch : {size_t{1}, size_t{7}, size_t{8}, size_t{9}, size_t{100}, keys.size()}) {
    SCOPED_TRACE("batch " + std::to_string(batch));
    size_t found = 0;
    for (size_t at = 0; at < keys.size(); at += batch) {
      const size_t n = std::min(batch, keys.size() - at);
      std::vector<Value> values(n);
      auto st = table.get_many(std::span(keys).subspan(at, n), values);
      ASSERT_TRUE(st) << st.error().to_string();
      for (size_t j = 0; j < n; ++j) {
        const auto it = m.rows.find(q[at + j]);
        ASSERT_EQ(values[j].has_value(), it != m.rows.end()) << "query " << at + j;
        auto single = table.get(keys[at + j]);
        ASSERT_TRUE(single);
        ASSERT_EQ(single->has_value(), values[j].has_value());
        if (it == m.rows.end()) continue;
        EXPECT_EQ(values[j].str(), it->second) << "query " << at + j;
        ++found;
      }
    }
    EXPECT_EQ(found, q.size() - std::count_if(q.begin(), q.end(), [&](const std::string& k) {
                       return !m.rows.count(k);
                     }));
  }
}

struct Case {
  const char* name;
  KeyEncoding (*enc)();
  uint32_t page_size;
  size_t rows;
  KeyShape shape = KeyShape::mixed;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.name;
}

class GetMany : public ::testing::TestWithParam<Case> {};

TEST_P(GetMany, MatchesGetOnEveryStorage) {
  const Case c = GetParam();
  const TableModel m = make_model(c.enc(), c.rows, c.rows + c.page_size, c.shape);
  const auto file = build(m, c.page_size);
  ASSERT_FALSE(file.empty());
  const auto q = queries(m, 7);
  // A cache of four pages: through pread every batch misses and evicts (the slow path, key by
  // key).
  check_in_memory_and_files(file, size_t{4} * c.page_size, [&](const drydb::ReadOnlyDatabase& db) {
    check_all(*db.table("t"), m, q);
  });
}

INSTANTIATE_TEST_SUITE_P(
    Layouts, GetMany,
    ::testing::Values(Case{"int64_512", &KeyEncoding::int64, 512, 3000},
                      Case{"int64_4096", &KeyEncoding::int64, 4096, 20000},
                      Case{"bytes_512", &KeyEncoding::bytes, 512, 3000},
                      Case{"fixed12_512", &fixed12, 512, 2000},
                      Case{"int64_bursts_512", &KeyEncoding::int64, 512, 6000, KeyShape::clustered},
                      Case{"url_512", &KeyEncoding::bytes, 512, 3000, KeyShape::clustered}),
    [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.name); });

TEST(GetManyErrors, SizesMustMatch) {
  const TableModel m = make_model(KeyEncoding::int64(), 10, 1);
  const auto file = build(m, 512);  // open_memory reads it in place: it outlives db
  auto db = drydb::ReadOnlyDatabase::open_memory(file);
  ASSERT_TRUE(db);
  std::vector<Key> keys{Key(int64_t{1}), Key(int64_t{2})};
  std::vector<Value> values(1);
  auto st = db->table("t")->get_many(keys, values);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, drydb::errc::invalid_argument);
}

TEST(GetManyErrors, AWrongKeyTypeFailsTheCallAndResetsEveryValue) {
  const TableModel m = make_model(KeyEncoding::int64(), 100, 2);
  const auto file = build(m, 512);  // open_memory reads it in place: it outlives db
  auto db = drydb::ReadOnlyDatabase::open_memory(file);
  ASSERT_TRUE(db);
  std::vector<Key> keys;
  for (const auto& [k, v] : m.rows)
    keys.push_back(key_of(m, k));
  keys.insert(keys.begin() + 20, Key("text"));  // in the third batch
  std::vector<Value> values(keys.size());
  auto st = db->table("t")->get_many(keys, values);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, drydb::errc::wrong_key_type);
  for (const Value& v : values)
    EXPECT_FALSE(v.has_value());
}

TEST(GetManyErrors, EmptyTablesAndEmptyCalls) {
  drydb::DatabaseBuilder b({.page_size = 512});
  b.create_table("empty", KeyEncoding::bytes());
  auto file = b.build_to_memory();
  ASSERT_TRUE(file);
  auto db = drydb::ReadOnlyDatabase::open_memory(*file);
  ASSERT_TRUE(db);
  auto t = *db->table("empty");
  std::vector<Key> keys{Key("a"), Key("")};
  std::vector<Value> values(2);
  ASSERT_TRUE(t.get_many(keys, values));
  EXPECT_FALSE(values[0].has_value());
  EXPECT_FALSE(values[1].has_value());
  EXPECT_TRUE(t.get_many({}, {}));
}

// Keys of another width than a fixed-width tree's match nothing; on a prefix-key tree (width 8)
// they take the byte search, so a batch mixing them with keys of the tree's width probes every
// key that way, and answers each as get() does.
TEST(GetManyErrors, MixedWidthsOnAPrefixKeyTree) {
  TableModel m = make_table("t", fixed_width_encoding(8));
  for (uint64_t i = 0; i < 2000; ++i)
    m.rows[be64(i * 0x9E3779B97F4A7C15ull)] = std::string(i % 30, 'v');
  const auto file = build(m, 512);  // open_memory reads it in place: it outlives db
  auto db = drydb::ReadOnlyDatabase::open_memory(file);
  ASSERT_TRUE(db);
  auto t = *db->table("t");
  std::vector<std::string> q;
  for (const auto& [k, v] : m.rows) {
    q.push_back(k);
    q.push_back(k.substr(0, 5));  // shorter: sorts before the keys it starts
    q.push_back(k + "x");         // longer: after them
  }
  std::vector<Key> keys;
  for (const auto& k : q)
    keys.push_back(key_of(m, k));
  std::vector<Value> values(keys.size());
  auto st = t.get_many(keys, values);
  ASSERT_TRUE(st) << st.error().to_string();
  size_t found = 0;
  for (size_t i = 0; i < q.size(); ++i) {
    const auto it = m.rows.find(q[i]);
    ASSERT_EQ(values[i].has_value(), it != m.rows.end()) << i;
    if (it == m.rows.end()) continue;
    EXPECT_EQ(values[i].str(), it->second) << i;
    ++found;
  }
  EXPECT_EQ(found, m.rows.size());
}

// A page that fails its checks in the middle of a batch: the call returns the corruption, every
// value is reset, and the database goes on answering the keys of sound pages.
TEST(GetManyErrors, ACorruptPageFailsTheCallAndResetsEveryValue) {
  const TableModel m = make_model(KeyEncoding::int64(), 3000, 4);
  auto file = build(m, 512);
  ASSERT_GT(file.size(), 512u * 40);
  // Page 20 is a leaf or internal page of the table's tree; flip a byte of its body.
  file[512 * 20 + 100] ^= std::byte{0x40};
  TempDir dir;
  const auto path = dir / "t.drydb";
  ASSERT_TRUE(write_file(path, file)) << path;
  for (const auto storage : {drydb::StorageKind::mmap, drydb::StorageKind::pread}) {
    auto db =
        drydb::ReadOnlyDatabase::open(path, {.storage = storage, .page_cache_bytes = 8 * 512});
    ASSERT_TRUE(db) << db.error().to_string();
    auto t = *db->table("t");
    std::vector<Key> keys;
    for (const auto& [k, v] : m.rows)
      keys.push_back(key_of(m, k));
    std::vector<Value> values(keys.size());
    auto st = t.get_many(keys, values);
    ASSERT_FALSE(st);
    EXPECT_EQ(st.error().code, drydb::errc::corruption) << st.error().to_string();
    for (const Value& v : values)
      EXPECT_FALSE(v.has_value());
    // Keys on sound pages still read, in batches and singly.
    size_t sound = 0;
    for (size_t i = 0; i < keys.size(); ++i) {
      auto one = t.get(keys[i]);
      if (!one) continue;
      ASSERT_TRUE(one->has_value());
      Value batch[1];
      ASSERT_TRUE(t.get_many(std::span(keys).subspan(i, 1), batch));
      EXPECT_EQ(batch[0].str(), one->str());
      ++sound;
    }
    EXPECT_GT(sound, keys.size() / 2);
    EXPECT_LT(sound, keys.size());
  }
}

}  // namespace
