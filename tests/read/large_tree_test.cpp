// Trees larger than kPrefetchTreeBytes, whose descents prefetch a leaf's lines from what its
// parent knows (TreeRef::prefetch_leaves, Search::prefetch_child): gets, get_many, misses,
// counts and seeks answer as a model does, on int64 keys with one value length (uniform
// leaves, where the record-size guess holds) and with varied lengths (where it does not), and
// on URL-like byte keys (prefixed leaves); through the mapping, caller memory and a page cache
// too small for the tree, where a child may not be resident when its parent prefetches it; and a
// tree of depth 2, whose leaves the root hint reaches.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "drydb/detail/db_state.h"
#include "drydb/drydb.h"
#include "support/suite.h"

namespace {

using namespace drydb_test;
using drydb::Key;
using drydb::KeyEncoding;

// A value of `len` bytes that names its row: `id` repeated (cut at len), so that a lookup or
// seek that lands on a neighbouring row reads another value.
std::string value_for(const std::string& id, size_t len) {
  std::string v;
  while (v.size() < len)
    v += id + '|';
  v.resize(len);
  return v;
}

// n rows: random int64 keys (dense runs and gaps) or URL-like keys, values of one length or not.
TableModel make_model(bool ints, bool uniform_values, size_t n, uint64_t seed) {
  TableModel m = make_table("t", ints ? KeyEncoding::int64() : KeyEncoding::bytes());
  Rng rng(seed);
  int64_t next = -1'000'000;
  while (m.rows.size() < n) {
    const uint64_t r = rng();
    const size_t len = uniform_values ? 13 : 8 + r % 40;
    if (ints) {
      next += r % 4 == 0 ? static_cast<int64_t>(r % 100'000) : 1 + static_cast<int64_t>(r % 3);
      m.rows[int64_key(next)] = value_for(std::to_string(next), len);
    } else {
      char hex[17];
      std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(r));
      m.rows["https://example.com/items/" + std::string(hex)] = value_for(hex, len);
    }
  }
  return m;
}

// Every key of the model and an absent key after each, in a shuffled order; counts between
// present keys and seeks from any of them.
void check_table(const drydb::ReadOnlyTable& t, const TableModel& m) {
  // In key order: the key as text (for messages), its value or null when absent.
  std::vector<std::pair<std::string, const std::string*>> keys;
  std::vector<Key> lookups;
  std::vector<std::string> absent;  // keeps the bytes the Keys of absent byte keys view
  absent.reserve(m.rows.size());
  for (const auto& [k, v] : m.rows) {
    lookups.push_back(key_of(m, k));
    keys.push_back({show_key(m.kind(), k), &v});
    // An int64 key's successor, when absent; a byte key's: longer than every key (all are of
    // one length), and before the next.
    const std::string after = m.is_int64() ? int64_key(int64_of(k) + 1) : k + '-';
    if (m.rows.count(after)) continue;
    absent.push_back(after);
    lookups.push_back(key_of(m, absent.back()));
    keys.push_back({show_key(m.kind(), after), nullptr});
  }
  std::vector<size_t> order(lookups.size());
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::shuffle(order.begin(), order.end(), Rng(order.size()));

  size_t found = 0;
  for (size_t i : order) {
    auto v = t.get(lookups[i]);
    ASSERT_TRUE(v) << v.error().to_string();
    ASSERT_EQ(v->has_value(), keys[i].second != nullptr) << keys[i].first;
    if (keys[i].second == nullptr) continue;
    ASSERT_EQ(v->str(), *keys[i].second) << keys[i].first;
    ++found;
  }
  EXPECT_EQ(found, m.rows.size());

  // get_many over the same shuffled lookups, in calls of 64.
  std::vector<Key> batch;
  std::vector<drydb::Value> values(64);
  for (size_t at = 0; at < order.size(); at += 64) {
    batch.clear();
    for (size_t j = at; j < order.size() && j < at + 64; ++j)
      batch.push_back(lookups[order[j]]);
    auto st = t.get_many(batch, std::span(values).first(batch.size()));
    ASSERT_TRUE(st) << st.error().to_string();
    for (size_t j = 0; j < batch.size(); ++j) {
      const auto& want = keys[order[at + j]];
      ASSERT_EQ(values[j].has_value(), want.second != nullptr) << want.first;
      if (want.second != nullptr) {
        ASSERT_EQ(values[j].str(), *want.second) << want.first;
      }
    }
  }

  // Counts between present keys and seeks, at scattered places.
  Rng rng(7);
  for (int q = 0; q < 300; ++q) {
    const size_t a0 = rng() % lookups.size();
    size_t a = a0, b = std::min(lookups.size() - 1, a0 + rng() % 20'000);
    while (a < lookups.size() && keys[a].second == nullptr)
      ++a;
    while (b > a && keys[b].second == nullptr)
      --b;
    if (a >= b) continue;
    size_t want = 0;
    for (size_t i = a; i <= b; ++i)
      want += keys[i].second != nullptr;
    auto n = t.count_range(lookups[a], lookups[b]);
    ASSERT_TRUE(n) << n.error().to_string();
    EXPECT_EQ(*n, want) << keys[a].first << " .. " << keys[b].first;

    const size_t from = rng() % lookups.size();
    auto range = t.get_range(lookups[from], drydb::unbounded);
    ASSERT_TRUE(range) << range.error().to_string();
    size_t i = from;
    int rows = 0;
    for (auto e : *range) {
      while (i < keys.size() && keys[i].second == nullptr)
        ++i;
      ASSERT_LT(i, keys.size()) << "seek from " << keys[from].first << ": rows past the end";
      ASSERT_EQ(std::string(reinterpret_cast<const char*>(e.value.data()), e.value.size()),
                *keys[i].second)
          << "seek from " << keys[from].first << ", row " << rows;
      ++i;
      if (++rows == 5) break;
    }
  }
}

struct Case {
  const char* name;
  bool ints;
  bool uniform_values;
  uint32_t page_size;
  size_t rows;
  uint32_t depth;  // the tree's, as built
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.name;
}

class LargeTree : public ::testing::TestWithParam<Case> {};

TEST_P(LargeTree, AnswersAsTheModelOnEveryStorage) {
  const Case c = GetParam();
  const TableModel m = make_model(c.ints, c.uniform_values, c.rows, c.rows);
  const auto file = build_memory({.page_size = c.page_size, .tables = {m}});
  ASSERT_FALSE(file.empty());
  // The tree is over the threshold (the catalog and header are a few hundred bytes of the
  // file): its descents prefetch.
  ASSERT_GT(file.size(), drydb::detail::kPrefetchTreeBytes * 5 / 4);
  // Through pread, a cache of 1/8 the file.
  check_in_memory_and_files(file, file.size() / 8, [&](const drydb::ReadOnlyDatabase& db) {
    ASSERT_EQ(db.table("t")->info().depth, c.depth);
    check_table(*db.table("t"), m);
  });
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, LargeTree,
    ::testing::Values(Case{"int64_uniform_4096", true, true, 4096, 130'000, 3},
                      Case{"int64_varied_4096", true, false, 4096, 100'000, 3},
                      Case{"int64_uniform_512", true, true, 512, 130'000, 4},
                      // A root over the leaves: the descent through the root hint prefetches.
                      Case{"int64_uniform_16384_depth2", true, true, 16384, 130'000, 2},
                      Case{"url_4096", false, false, 4096, 80'000, 3}),
    [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.name); });

}  // namespace
