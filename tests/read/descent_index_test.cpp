// The descent index (detail/descent_index.h): a table of keys of a fixed width up to 8 bytes
// (int64, a custom 4-byte encoding) with three levels or more gets it once it has served 64 gets
// per internal page, not before (TableInfo::descent_index_bytes), and answers every get as a
// model does before and after: dense, uniformly random (both signs, the extremes included) and
// clustered keys, values of one length and of many (uniform leaves and not), tiny pages (deep
// trees) and 4 KiB ones, in memory, mapped, and through a page cache smaller than the file, where
// the index finds leaves that are not resident. Threads racing to build it each get the right
// answers; get_many's batches count toward it and go through it. A table of one level, of two
// (whose root hint serves its one internal page) or of byte keys never gets one, through get or
// get_many; a corrupt internal page leaves its table without one, and the gets that cross that
// page report it as before.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "drydb/detail/format.h"
#include "drydb/drydb.h"
#include "support/suite.h"
#include "support/test_util.h"

namespace drydb_test {
namespace {

enum class Shape { dense, random, clustered };

struct Case {
  const char* name;
  Shape shape;
  Enc enc;  // int64 or fixed4
  uint32_t page_size;
  size_t rows;
  bool uniform_values;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.name;
}

// A 4-byte key of `v`, big-endian: its order is v's.
std::string fixed4_key(uint32_t v) {
  std::string k(4, '\0');
  for (int i = 0; i < 4; ++i)
    k[i] = static_cast<char>(v >> (24 - 8 * i));
  return k;
}

TableModel make_model(const Case& c) {
  TableModel m = make_table("t", c.enc);
  Rng rng(c.rows + static_cast<size_t>(c.shape));
  uint64_t next = 0;
  auto key_for = [&](uint64_t v) {
    return c.enc == Enc::int64 ? int64_key(static_cast<int64_t>(v))
                               : fixed4_key(static_cast<uint32_t>(v));
  };
  if (c.shape == Shape::random) {  // the extremes of the key space, then anything
    const bool wide = c.enc == Enc::int64;
    for (uint64_t v : {wide ? uint64_t{1} << 63 : 0, wide ? (uint64_t{1} << 63) - 1 : 0xFFFF'FFFF})
      m.rows[key_for(v)] = "";
  }
  while (m.rows.size() < c.rows) {
    const uint64_t r = rng();
    switch (c.shape) {
      case Shape::dense:
        ++next;
        break;
      case Shape::random:
        next = r;
        break;
      case Shape::clustered:  // bursts of close keys, gaps of very different lengths
        next += r % 16 == 0 ? uint64_t{1} << (r % 24) : 1 + r % 3;
        break;
    }
    const std::string k = key_for(next);
    m.rows[k] = std::string(c.uniform_values ? 13 : r % 40, static_cast<char>('a' + r % 26)) + k;
  }
  return m;
}

// Every key of the model and the absent key after each, shuffled; each get's answer checked.
void check_gets(const drydb::ReadOnlyTable& t, const TableModel& m) {
  std::vector<std::string> keys;
  for (const auto& [k, v] : m.rows) {
    keys.push_back(k);
    std::string after = k;
    for (size_t i = after.size(); i-- > 0;)  // the next key of the width, if any
      if (++after[i] != '\0') break;
    if (after > k) keys.push_back(after);
  }
  std::shuffle(keys.begin(), keys.end(), Rng(keys.size()));
  for (const std::string& k : keys) {
    auto v = t.get(key_of(m, k));
    ASSERT_TRUE(v) << v.error().to_string();
    const auto it = m.rows.find(k);
    ASSERT_EQ(v->has_value(), it != m.rows.end()) << show_key(m, k);
    if (it != m.rows.end()) {
      ASSERT_EQ(v->str(), it->second) << show_key(m, k);
    }
  }
}

class DescentIndex : public ::testing::TestWithParam<Case> {};

TEST_P(DescentIndex, IsBuiltAfterEnoughGetsAndAnswersAsTheModel) {
  const Case c = GetParam();
  const TableModel m = make_model(c);
  const auto file = build_memory({.page_size = c.page_size, .tables = {m}});
  ASSERT_FALSE(file.empty());
  check_in_memory_and_files(file, file.size() / 8, [&](const drydb::ReadOnlyDatabase& db) {
    const drydb::ReadOnlyTable t = *db.table("t");
    const drydb::TableInfo info = t.info();
    ASSERT_GE(info.depth, 3u);
    EXPECT_EQ(info.descent_index_bytes, 0u);
    // Fewer gets than the index waits for: none yet.
    const uint64_t wanted = 64 * info.internal_pages;
    ASSERT_GT(m.rows.size(), wanted);
    auto it = m.rows.begin();
    for (uint64_t g = 0; g + 1 < wanted; ++g, ++it)
      ASSERT_TRUE(t.get(key_of(m, it->first)));
    EXPECT_EQ(t.info().descent_index_bytes, 0u);
    check_gets(t, m);
    EXPECT_EQ(t.info().descent_index_bytes,
              sizeof(drydb::detail::DescentIndex) + 16 * info.internal_pages + 8 * info.leaf_pages);
    check_gets(t, m);  // every get through the index
  });
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, DescentIndex,
    ::testing::Values(
        Case{"dense_512", Shape::dense, Enc::int64, 512, 20'000, true},
        Case{"random_512", Shape::random, Enc::int64, 512, 20'000, true},
        Case{"clustered_512", Shape::clustered, Enc::int64, 512, 20'000, true},
        Case{"clustered_512_varied", Shape::clustered, Enc::int64, 512, 20'000, false},
        Case{"random_4096", Shape::random, Enc::int64, 4096, 150'000, true},
        Case{"clustered_4096_varied", Shape::clustered, Enc::int64, 4096, 100'000, false},
        Case{"fixed4_random_512", Shape::random, Enc::fixed4, 512, 20'000, true},
        Case{"fixed4_dense_512", Shape::dense, Enc::fixed4, 512, 20'000, false}),
    [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.name); });

TEST(DescentIndexRace, ThreadsBuildingItAtOnceEachGetTheRightAnswers) {
  const TableModel m = make_model({"", Shape::random, Enc::int64, 512, 20'000, true});
  const auto file = build_memory({.page_size = 512, .tables = {m}});
  ASSERT_FALSE(file.empty());
  check_in_memory_and_files(file, file.size() / 8, [&](const drydb::ReadOnlyDatabase& db) {
    const drydb::ReadOnlyTable t = *db.table("t");
    std::vector<std::string> keys;
    for (const auto& [k, v] : m.rows)
      keys.push_back(k);
    std::atomic<int> wrong{0};
    std::vector<std::thread> threads;
    for (int i = 0; i < 4; ++i) {
      threads.emplace_back([&, i] {
        for (size_t j = 0; j < keys.size(); ++j) {
          const std::string& k = keys[(j * 7919 + i * 1000) % keys.size()];
          auto v = t.get(key_of(m, k));
          if (!v || !v->has_value() || v->str() != m.rows.at(k)) ++wrong;
        }
      });
    }
    for (auto& th : threads)
      th.join();
    EXPECT_EQ(wrong.load(), 0);
    EXPECT_GT(t.info().descent_index_bytes, 0u);
  });
}

TEST(DescentIndexGetMany, BatchesCountTowardItAndGoThroughIt) {
  const TableModel m = make_model({"", Shape::clustered, Enc::int64, 512, 20'000, true});
  const auto file = build_memory({.page_size = 512, .tables = {m}});
  ASSERT_FALSE(file.empty());
  check_in_memory_and_files(file, file.size() / 8, [&](const drydb::ReadOnlyDatabase& db) {
    const drydb::ReadOnlyTable t = *db.table("t");
    // Every key and the absent one after it, in batches of 64; twice: the first pass builds
    // the index, the second goes through it.
    std::vector<std::string> keys;
    for (const auto& [k, v] : m.rows) {
      keys.push_back(k);
      keys.push_back(int64_key(int64_of(k) + 1));
    }
    std::shuffle(keys.begin(), keys.end(), Rng(5));
    std::vector<drydb::Key> batch;
    std::vector<drydb::Value> values(64);
    for (int pass = 0; pass < 2; ++pass) {
      for (size_t at = 0; at < keys.size(); at += 64) {
        batch.clear();
        for (size_t j = at; j < keys.size() && j < at + 64; ++j)
          batch.push_back(key_of(m, keys[j]));
        auto st = t.get_many(batch, std::span(values).first(batch.size()));
        ASSERT_TRUE(st) << st.error().to_string();
        for (size_t j = 0; j < batch.size(); ++j) {
          const auto it = m.rows.find(keys[at + j]);
          ASSERT_EQ(values[j].has_value(), it != m.rows.end()) << show_key(m, keys[at + j]);
          if (it != m.rows.end()) {
            ASSERT_EQ(values[j].str(), it->second) << show_key(m, keys[at + j]);
          }
        }
      }
      if (pass == 0) {
        EXPECT_GT(t.info().descent_index_bytes, 0u);
      }
    }
  });
}

// Gets enough to build an index, twice over, on table `name` of model `m`: every key by get,
// then every key again by get_many.
void get_every_key_twice(const drydb::ReadOnlyTable& t, const TableModel& m) {
  std::vector<drydb::Key> keys;
  std::vector<std::string> want;
  for (const auto& [k, v] : m.rows) {
    auto got = t.get(key_of(m, k));
    ASSERT_TRUE(got) << got.error().to_string();
    ASSERT_EQ(got->str(), v);
    keys.push_back(key_of(m, k));
    want.push_back(v);
  }
  std::vector<drydb::Value> values(keys.size());
  ASSERT_TRUE(t.get_many(keys, values));
  for (size_t i = 0; i < keys.size(); ++i)
    ASSERT_EQ(values[i].str(), want[i]);
}

TEST(DescentIndexNone, ForATreeOfOneOrTwoLevelsOrOfByteKeys) {
  TableModel small = make_table("small", Enc::int64);
  for (int64_t v = 0; v < 10; ++v)
    small.rows[int64_key(v)] = "x";
  TableModel two = make_table("two", Enc::int64);
  for (int64_t v = 0; v < 300; ++v)
    two.rows[int64_key(v)] = "x";
  TableModel text = make_table("text", Enc::bytes);
  for (int v = 0; v < 5'000; ++v)
    text.rows["key" + std::to_string(v)] = "x";
  const auto file = build_memory({.page_size = 512, .tables = {small, two, text}});
  ASSERT_FALSE(file.empty());
  auto db = drydb::ReadOnlyDatabase::open_memory(file);
  ASSERT_TRUE(db) << db.error().to_string();
  for (const TableModel* m : {&small, &two, &text}) {
    const drydb::ReadOnlyTable t = *db->table(m->name);
    get_every_key_twice(t, *m);
    EXPECT_EQ(t.info().descent_index_bytes, 0u) << m->name;
  }
  EXPECT_EQ(db->table("small")->info().depth, 1u);
  EXPECT_EQ(db->table("two")->info().depth, 2u);
  EXPECT_GE(db->table("text")->info().depth, 2u);
}

TEST(DescentIndexNone, WhenAnInternalPageIsCorrupt) {
  const TableModel m = make_model({"", Shape::dense, Enc::int64, 512, 20'000, true});
  auto file = build_memory({.page_size = 512, .tables = {m}});
  ASSERT_FALSE(file.empty());
  // A byte of the separators of the last internal page over leaves: its checksum fails.
  namespace format = drydb::detail;
  size_t bad = 0;
  for (size_t at = 512; at + 512 <= file.size(); at += 512)
    if (static_cast<format::PageType>(file[at + format::page::kTypeOff]) ==
            format::PageType::internal &&
        format::load_u16(
            reinterpret_cast<const std::byte*>(&file[at + format::internal::kLevelOff])) == 1)
      bad = at;
  ASSERT_NE(bad, 0u);
  file[bad + 511] ^= std::byte{1};
  check_in_memory_and_files(file, file.size() / 8, [&](const drydb::ReadOnlyDatabase& db) {
    const drydb::ReadOnlyTable t = *db.table("t");
    size_t failed = 0, answered = 0;
    for (int pass = 0; pass < 2; ++pass)
      for (const auto& [k, v] : m.rows) {
        auto got = t.get(key_of(m, k));
        if (!got) {
          EXPECT_EQ(got.error().code, drydb::make_error_code(drydb::errc::corruption))
              << got.error().to_string();
          ++failed;
          continue;
        }
        ASSERT_EQ(got->str(), v) << show_key(m, k);
        ++answered;
      }
    EXPECT_GT(failed, 0u);
    EXPECT_GT(answered, 0u);
    EXPECT_EQ(t.info().descent_index_bytes, 0u);
  });
}

}  // namespace
}  // namespace drydb_test
