// Reader queries (table.h, cursor.h, range.h, value.h, database.h, storage.h):
// differential tests against a std::map model for every key encoding and two
// page sizes, edge cases, cursors, and every storage back end.

#include <gtest/gtest.h>
#if !defined(_WIN32)
#include <sys/stat.h>  // mkfifo
#endif

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "support/test_util.h"

namespace drydb_test {
namespace {

using drydb::errc;
using drydb::Key;
using drydb::ReadOnlyDatabase;
using drydb::SortOrder;
using drydb::unbounded;

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

// Opens bytes in memory; the bytes must outlive the database.
drydb::result<ReadOnlyDatabase> open_mem(const std::vector<std::byte>& bytes) {
  return ReadOnlyDatabase::open_memory(bytes);
}

std::string big_value(size_t n, uint64_t seed) {
  Rng rng(seed);
  std::string v(n, '\0');
  for (size_t i = 0; i < n; i += 8) {
    const uint64_t x = rng();
    std::memcpy(v.data() + i, &x, std::min<size_t>(8, n - i));
  }
  return v;
}

// ---------------------------------------------------------------------------
// 1. Differential tests against std::map: every encoding, page sizes 512 and
// 4096, depth >= 4 at 512.

class DifferentialTest : public ::testing::TestWithParam<std::tuple<Enc, uint32_t>> {};

// Rows, and value lengths, per encoding: enough that 512-byte pages give a
// tree of depth 4 or more. int64 and uuid use one value length for every row
// (the uniform-leaf layout); the others vary it (offset-table layout).
struct Shape {
  size_t rows, min_value, max_value;
};
Shape shape_for(Enc e) {
  switch (e) {
    case Enc::int64:
      return {9000, 24, 24};
    case Enc::uuid:
      return {3000, 20, 20};
    case Enc::fixed4:
      return {7000, 0, 48};
    default:
      return {5000, 0, 40};
  }
}

TEST_P(DifferentialTest, EveryQueryMatchesStdMap) {
  // Not a structured binding: clang 14 cannot capture one in a lambda.
  const Enc enc = std::get<0>(GetParam());
  const uint32_t page_size = std::get<1>(GetParam());
  const uint64_t seed = 7919 * (static_cast<uint64_t>(enc) + 1) + page_size;
  const Shape s = shape_for(enc);
  // Depth 4 is asked of 512-byte pages; 4096-byte pages get half the rows.
  const size_t rows = page_size == 512 ? s.rows : s.rows / 2;
  TableModel model = random_table("t", enc, rows, seed, s.min_value, s.max_value,
                                  drydb::detail::max_key_length(page_size));
  if (enc == Enc::int64) {
    Rng rng(seed);
    for (int64_t v : {kMin, kMin + 1, int64_t{-1}, int64_t{0}, int64_t{1}, kMax - 1, kMax})
      model.rows[int64_key(v)] = value_for(int64_key(v), rng, 24, 24);
  }
  const auto bytes = build_one(model, page_size);
  ASSERT_FALSE(bytes.empty());
  auto db = open_mem(bytes);
  ASSERT_TRUE(db) << describe(db.error());
  auto table = db->table("t");
  ASSERT_TRUE(table) << describe(table.error());
  const auto verified = db->verify();
  EXPECT_TRUE(verified) << describe(verified.error());

  const drydb::TableInfo info = table->info();
  EXPECT_EQ(info.name, "t");
  EXPECT_EQ(info.encoding, encoding_of(enc));
  EXPECT_EQ(info.encoding.id(), encoding_of(enc).id());
  EXPECT_EQ(info.rows, model.rows.size());
  EXPECT_EQ(info.overflow_pages, 0u);
  if (page_size == 512) {
    ASSERT_GE(info.depth, 4u) << "too few rows for a deep tree";
  } else {
    ASSERT_GE(info.depth, 2u);
  }
  size_t longest = 0;
  for (const auto& row : model.rows)
    longest = std::max(longest, row.first.size());
  EXPECT_EQ(info.max_key_length, longest);

  const TreeShape shape = scan_tree(bytes, width_of(enc));
  EXPECT_EQ(shape.leaves, info.leaf_pages);
  EXPECT_EQ(shape.internals, info.internal_pages);

  DiffChecker c(*table, model);
  c.check_count();
  c.check_every_get();

  const std::vector<std::string> bounds = interesting_bounds(enc, model, shape, seed, 12);
  c.check_unbounded();
  for (const auto& b : bounds) {
    c.check_get(b);
    c.check_single(b);
    c.check_pair(b, b);  // start == end
    c.check_seek(b);
  }
  // Neighbouring and nearby bounds, in both argument orders (start > end fails).
  for (size_t i = 0; i + 1 < bounds.size(); ++i) {
    c.check_pair(bounds[i], bounds[i + 1]);
    c.check_pair(bounds[i + 1], bounds[i]);
    if (i + 7 < bounds.size()) c.check_pair(bounds[i], bounds[i + 7]);
  }
  // Random pairs of random and existing keys.
  Rng rng(seed + 1);
  for (int i = 0; i < 80; ++i) {
    auto pick = [&]() -> std::string {
      if (rng.between(0, 1)) return random_key(enc, rng);
      return c.row(rng.between(0, c.rows() - 1)).first;
    };
    const std::string a = pick(), b = pick();
    c.check_pair(a, b);
    c.check_get(a);
  }
  if (encoding_of(enc).kind() == drydb::KeyKind::bytes) {
    c.check_prefix("");
    for (size_t i = 0; i < bounds.size(); i += 3)
      for (size_t len : {size_t{1}, size_t{2}, size_t{5}, size_t{9}})
        if (bounds[i].size() >= len) c.check_prefix(bounds[i].substr(0, len));
  }
  c.check_cursor_walks();
  EXPECT_EQ(c.failures(), 0);
  EXPECT_GT(c.rows_compared(), model.rows.size() * 10);
}

INSTANTIATE_TEST_SUITE_P(AllEncodings, DifferentialTest,
                         ::testing::Combine(::testing::Values(Enc::bytes, Enc::int64, Enc::uuid,
                                                              Enc::ulid, Enc::fixed4, Enc::fixed12,
                                                              Enc::var),
                                            ::testing::Values(512u, 4096u)),
                         [](const auto& info) {
                           std::string name = enc_name(std::get<0>(info.param));
                           name += "_" + std::to_string(std::get<1>(info.param));
                           return name;
                         });

// int64 bounds outside the keys: INT64_MIN and INT64_MAX before the first and
// after the last row, negative keys, every combination of ends.
TEST(Int64Test, ExtremeBoundsAroundNegativeKeys) {
  TableModel model = make_table("t", Enc::int64);
  Rng rng(5);
  for (int64_t v = -3000; v <= 3000; v += 3)
    model.rows[int64_key(v)] = value_for(int64_key(v), rng, 0, 20);
  const auto bytes = build_one(model, 512);
  auto db = open_mem(bytes);
  ASSERT_TRUE(db) << describe(db.error());
  auto table = db->table("t");
  ASSERT_TRUE(table);
  ASSERT_GE(table->info().depth, 3u);
  DiffChecker c(*table, model);
  std::vector<std::string> bounds;
  for (int64_t v :
       {kMin, kMin + 1, int64_t{-3001}, int64_t{-3000}, int64_t{-2999}, int64_t{-1}, int64_t{0},
        int64_t{1}, int64_t{2999}, int64_t{3000}, int64_t{3001}, kMax - 1, kMax})
    bounds.push_back(int64_key(v));
  c.check_bounds(bounds);
  EXPECT_EQ(c.failures(), 0);

  // Spot checks written out, so a failure reads plainly.
  auto all = table->count_range(kMin, kMax);
  ASSERT_TRUE(all);
  EXPECT_EQ(*all, model.rows.size());
  auto negative = table->count_range(kMin, int64_t{0}, {.end_exclusive = true});
  ASSERT_TRUE(negative);
  EXPECT_EQ(*negative, 1000u);  // -3000, -2997, ..., -3
  auto r = table->get_range(int64_t{-9}, int64_t{9}, {.order = SortOrder::descending});
  ASSERT_TRUE(r);
  std::vector<int64_t> got;
  for (auto [key, value] : *r)
    got.push_back(int64_of(to_view(key)));
  EXPECT_EQ(got, (std::vector<int64_t>{9, 6, 3, 0, -3, -6, -9}));
  auto v = table->get(int64_t{-2997});
  ASSERT_TRUE(v);
  EXPECT_TRUE(v->has_value());
  EXPECT_FALSE(table->get(int64_t{-2998})->has_value());
  EXPECT_FALSE(table->get(kMin)->has_value());
}

// int64 gets and ranks take a dedicated path (descent.h and key_search.h: prefix-key descent, a
// remembered root, a dense leaf's one-load slot). Against the model, for trees of several shapes:
// dense keys (evenly spaced root separators), irregular gaps with values of mixed lengths (offset
// arrays), overflow values (the path hands those to the general one), INT64_MIN and INT64_MAX
// stored, a root that is a leaf and a root with one separator; through the page cache (tiny and
// whole) and in place. Every probe runs twice: the first pass meets pages not yet checked and roots
// not yet remembered, the second the remembered roots.
TEST(Int64Test, PrefixKeyPathMatchesTheModel) {
  struct Shape {
    const char* name;
    std::vector<int64_t> keys;
    bool overflow;
  };
  std::vector<Shape> shapes;
  {
    Shape dense{"dense", {}, false};
    for (int64_t k = 0; k < 6000; ++k)
      dense.keys.push_back(k);
    shapes.push_back(dense);
    Shape gaps{"gaps", {}, false};
    Rng rng(11);
    int64_t k = -50000;
    for (int i = 0; i < 5000; ++i)
      gaps.keys.push_back(k += 1 + static_cast<int64_t>(rng.between(0, i % 97 == 0 ? 5000 : 9)));
    shapes.push_back(gaps);
    Shape extremes{"extremes", {kMin, kMin + 1, -7, 0, 7, kMax - 1, kMax}, false};
    for (int64_t v = 100; v < 4000; v += 2)
      extremes.keys.push_back(v);
    std::sort(extremes.keys.begin(), extremes.keys.end());
    shapes.push_back(extremes);
    Shape overflow{"overflow", {}, true};
    for (int64_t v = 0; v < 3000; ++v)
      overflow.keys.push_back(v * 5);
    shapes.push_back(overflow);
    shapes.push_back(Shape{"one_leaf", {3, 4, 9}, false});
    Shape two_leaves{"two_leaves", {}, false};
    for (int64_t v = 0; v < 40; ++v)
      two_leaves.keys.push_back(v);
    shapes.push_back(two_leaves);
  }
  for (const Shape& shape : shapes) {
    for (uint32_t page_size : {512u, 4096u}) {
      TableModel model = make_table("t", Enc::int64);
      Rng rng(page_size);
      for (int64_t k : shape.keys) {
        const std::string key = int64_key(k);
        model.rows[key] = shape.overflow && k % 7 == 0
                              ? big_value(page_size + rng.between(0, 900), static_cast<uint64_t>(k))
                              : value_for(key, rng, 0, 24);
      }
      const auto bytes = build_one(model, page_size);
      std::vector<int64_t> probes = {kMin, kMin + 1, kMax - 1, kMax, -1, 0, 1};
      // Every key of a small tree; on large ones every 13th key and the first and last 100.
      const size_t n = shape.keys.size();
      for (size_t i = 0; i < n; ++i) {
        if (n > 1000 && i % 13 != 0 && i >= 100 && i + 100 < n) continue;
        const int64_t k = shape.keys[i];
        for (int64_t d : {int64_t{-1}, int64_t{0}, int64_t{1}})
          if (!((k == kMin && d < 0) || (k == kMax && d > 0))) probes.push_back(k + d);
      }
      for (int backend = 0; backend < 3; ++backend) {
        SCOPED_TRACE(std::string(shape.name) + ", page " + std::to_string(page_size) + ", " +
                     (backend == 0   ? "in place"
                      : backend == 1 ? "cache of 4 pages"
                                     : "whole"));
        auto db = backend == 0   ? open_mem(bytes)
                  : backend == 1 ? open_cached(bytes, 4 * page_size)
                                 : open_cached(bytes, bytes.size() * 2);
        ASSERT_TRUE(db) << describe(db.error());
        auto table = db->table("t").value();
        for (int pass = 0; pass < 2; ++pass) {
          int failures = 0;
          for (int64_t k : probes) {
            const std::string key = int64_key(k);
            auto v = table.get(k);
            ASSERT_TRUE(v) << describe(v.error());
            const auto it = model.rows.find(key);
            const bool ok =
                it == model.rows.end() ? !v->has_value() : v->has_value() && v->str() == it->second;
            auto below = table.count_range(kMin, k, {.end_exclusive = true});
            ASSERT_TRUE(below) << describe(below.error());
            const auto want = static_cast<uint64_t>(
                std::distance(model.rows.begin(), model.rows.lower_bound(key)));
            if ((!ok || *below != want) && ++failures <= 5)
              ADD_FAILURE() << "key " << k << " pass " << pass << ": get "
                            << (ok ? "right" : "wrong") << ", rank " << *below << " want " << want;
          }
          EXPECT_EQ(failures, 0);
        }
      }
    }
  }
}

// Threads racing to remember a root from a fresh open all get right answers (TSan checks the
// root hint's publication).
TEST(Int64Test, RacingFirstGetsRememberTheRootOnce) {
  TableModel model = make_table("t", Enc::int64);
  for (int64_t k = 0; k < 20000; ++k)
    model.rows[int64_key(k * 3)] = "v" + std::to_string(k);
  const auto bytes = build_one(model, 512);
  for (int round = 0; round < 4; ++round) {
    auto db = round % 2 == 0 ? open_mem(bytes) : open_cached(bytes, bytes.size() * 2);
    ASSERT_TRUE(db);
    auto table = db->table("t").value();
    std::atomic<int> wrong{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t)
      threads.emplace_back([&, t] {
        for (int64_t i = 0; i < 2000; ++i) {
          const int64_t k = (i * 7919 + t * 104729) % 60000;
          auto v = table.get(k);
          const bool present = k % 3 == 0;
          if (!v || v->has_value() != present ||
              (present && v->str() != "v" + std::to_string(k / 3)))
            ++wrong;
        }
      });
    for (auto& th : threads)
      th.join();
    EXPECT_EQ(wrong.load(), 0);
  }
}

// Every integer type a Key takes means the same int64 key.
TEST(Int64Test, IntegerTypesAndExtremes) {
  TableModel model = make_table("t", Enc::int64);
  for (int64_t v : {kMin, int64_t{-129}, int64_t{-1}, int64_t{0}, int64_t{255}, kMax})
    model.rows[int64_key(v)] = std::to_string(v);
  const auto bytes = build_one(model, 4096);
  auto db = open_mem(bytes);
  ASSERT_TRUE(db);
  auto t = db->table("t").value();
  EXPECT_EQ(t.get(int8_t{-1})->str(), "-1");
  EXPECT_EQ(t.get(uint8_t{255})->str(), "255");
  EXPECT_EQ(t.get(short{-129})->str(), "-129");
  EXPECT_EQ(t.get(0)->str(), "0");
  EXPECT_EQ(t.get(0L)->str(), "0");
  EXPECT_EQ(t.get(kMin)->str(), std::to_string(kMin));
  EXPECT_EQ(t.get(kMax)->str(), std::to_string(kMax));
  auto r = t.get_range(kMin, kMax);
  ASSERT_TRUE(r);
  std::vector<std::string> got;
  for (auto [key, value] : *r)
    got.push_back(std::string(to_view(value)));
  EXPECT_EQ(got, (std::vector<std::string>{std::to_string(kMin), "-129", "-1", "0", "255",
                                           std::to_string(kMax)}));
  EXPECT_EQ(*t.count_range(kMin, kMax, {.start_exclusive = true, .end_exclusive = true}), 4u);
}

// Key::from_encoded gives back the typed key a table stored: an int64 table answers it as it
// answers the integer, and refuses the same bytes as a bytes key; a bytes key refers to its
// source; IndexKey::from_encoded owns a copy of the same kind and bytes.
TEST(Int64Test, KeysFromTheirEncodedBytes) {
  TableModel model = make_table("t", Enc::int64);
  for (int64_t v : {kMin, int64_t{-1}, int64_t{0}, int64_t{4096}, kMax})
    model.rows[int64_key(v)] = std::to_string(v);
  const auto bytes = build_one(model, 4096);
  auto db = open_mem(bytes);
  ASSERT_TRUE(db);
  auto t = db->table("t").value();
  for (auto [key, value] : *t.get_range(unbounded, unbounded)) {
    const std::vector<std::byte> stored(key.begin(), key.end());  // outlives the row's view
    const Key k = Key::from_encoded(drydb::KeyKind::int64, stored);
    EXPECT_EQ(k.kind(), drydb::KeyKind::int64);
    EXPECT_TRUE(std::ranges::equal(k.bytes(), stored));
    EXPECT_NE(k.bytes().data(), stored.data());  // copied into the key
    EXPECT_EQ(t.get(k)->str(), to_view(value));
    const auto as_bytes = t.get(Key::from_encoded(drydb::KeyKind::bytes, stored));
    ASSERT_FALSE(as_bytes);
    EXPECT_EQ(as_bytes.error().code, errc::wrong_key_type);
    const drydb::IndexKey owned = drydb::IndexKey::from_encoded(drydb::KeyKind::int64, stored);
    EXPECT_EQ(owned.kind(), drydb::KeyKind::int64);
    EXPECT_TRUE(std::ranges::equal(owned.bytes(), stored));
  }
  const std::string text = "abc";
  const Key b = Key::from_encoded(drydb::KeyKind::bytes, std::as_bytes(std::span(text)));
  EXPECT_EQ(b.kind(), drydb::KeyKind::bytes);
  EXPECT_EQ(static_cast<const void*>(b.bytes().data()), static_cast<const void*>(text.data()));
  EXPECT_EQ(b.bytes().size(), 3u);
  for (const auto kind : {drydb::KeyKind::uuid, drydb::KeyKind::ulid}) {
    const drydb::Uuid u = drydb::Uuid::parse("0190163d-8694-739b-aea5-966c26f8ad91").value();
    const Key k = Key::from_encoded(kind, std::span<const std::byte>(u.bytes));
    EXPECT_EQ(k.kind(), kind);
    EXPECT_TRUE(std::ranges::equal(k.bytes(), u.bytes));
  }
}

// ---------------------------------------------------------------------------
// 2. Edge cases.

// Every query on an empty table answers empty, zero or not found.
void expect_empty_table(const drydb::ReadOnlyTable& t, Enc enc) {
  SCOPED_TRACE(enc_name(enc));
  Rng rng(3);
  EXPECT_EQ(t.count(), 0u);
  EXPECT_EQ(t.info().rows, 0u);
  EXPECT_EQ(t.info().depth, 0u);
  EXPECT_EQ(t.info().leaf_pages, 0u);
  EXPECT_EQ(t.info().internal_pages, 0u);
  TableModel empty = make_table("t", enc);
  DiffChecker c(t, empty);
  const std::vector<std::string> keys = {min_key(enc), max_key(enc), random_key(enc, rng)};
  for (const auto& k : keys) {
    auto v = t.get(key_for(enc, k));
    ASSERT_TRUE(v) << describe(v.error());
    EXPECT_FALSE(v->has_value());
    EXPECT_FALSE(static_cast<bool>(*v));
    EXPECT_EQ(v->size(), 0u);
    c.check_single(k);
    for (const auto& k2 : keys)
      c.check_pair(k, k2);
    c.check_seek(k);
  }
  c.check_whole_table();
  EXPECT_EQ(c.failures(), 0);
  drydb::Cursor cur = t.cursor();
  EXPECT_FALSE(cur.valid());
  EXPECT_FALSE(cur.first());
  EXPECT_FALSE(cur.last());
  EXPECT_FALSE(cur.seek_rank(0));
  EXPECT_FALSE(cur.next());
  EXPECT_FALSE(cur.prev());
  EXPECT_FALSE(cur.seek(key_for(enc, keys[0])));
  EXPECT_FALSE(cur.seek_exact(key_for(enc, keys[0])));
  EXPECT_TRUE(cur.status());
  EXPECT_EQ(count_rows(t.cursor()), 0u);
  if (encoding_of(enc).kind() == drydb::KeyKind::bytes) {
    for (std::string p : {"", "a", "\xff"}) {
      auto r = t.prefix(p);
      ASSERT_TRUE(r);
      EXPECT_EQ(r->size(), 0u);
      EXPECT_TRUE(r->begin() == r->end());
    }
  }
}

TEST(EdgeTest, EmptyTables) {
  for (Enc enc : {Enc::bytes, Enc::int64, Enc::uuid, Enc::ulid, Enc::fixed4, Enc::var}) {
    for (uint32_t page_size : {512u, 4096u}) {
      const auto bytes = build_one(make_table("t", enc), page_size);
      ASSERT_FALSE(bytes.empty());
      auto db = open_mem(bytes);
      ASSERT_TRUE(db) << describe(db.error());
      EXPECT_TRUE(db->verify());
      auto t = db->table("t");
      ASSERT_TRUE(t);
      expect_empty_table(*t, enc);
    }
  }
}

// A database with no tables at all opens and has nothing in it.
TEST(EdgeTest, NoTables) {
  drydb::DatabaseBuilder builder;
  auto bytes = builder.build_to_memory();
  ASSERT_TRUE(bytes) << describe(bytes.error());
  auto db = open_mem(*bytes);
  ASSERT_TRUE(db) << describe(db.error());
  EXPECT_TRUE(db->tables().empty());
  EXPECT_EQ(db->table("t").code(), errc::not_found);
}

TEST(EdgeTest, OneRow) {
  for (Enc enc : {Enc::bytes, Enc::int64, Enc::uuid, Enc::ulid, Enc::fixed12}) {
    SCOPED_TRACE(enc_name(enc));
    Rng rng(11);
    TableModel model = make_table("t", enc);
    std::string key = random_key(enc, rng);
    if (key == min_key(enc) || key == max_key(enc)) key = random_key(enc, rng);
    model.rows[key] = "the only value";
    const auto bytes = build_one(model, 512);
    auto db = open_mem(bytes);
    ASSERT_TRUE(db) << describe(db.error());
    auto t = db->table("t").value();
    EXPECT_EQ(t.count(), 1u);
    EXPECT_EQ(t.info().depth, 1u);
    EXPECT_EQ(t.info().leaf_pages, 1u);
    EXPECT_EQ(t.info().internal_pages, 0u);
    auto v = t.get(key_for(enc, key));
    ASSERT_TRUE(v);
    ASSERT_TRUE(v->has_value());
    EXPECT_EQ(v->str(), "the only value");
    DiffChecker c(t, model);
    std::vector<std::string> bounds = {min_key(enc), key, max_key(enc)};
    std::string k;
    if (successor(enc, key, &k)) bounds.push_back(k);
    if (predecessor(enc, key, &k)) bounds.push_back(k);
    c.check_bounds(bounds);
    c.check_cursor_walks();
    EXPECT_EQ(c.failures(), 0);
    drydb::Cursor cur = t.cursor();
    ASSERT_TRUE(cur.first());
    EXPECT_EQ(to_view(cur.key()), key);
    EXPECT_FALSE(cur.next());
    EXPECT_FALSE(cur.valid());
    ASSERT_TRUE(cur.last());
    EXPECT_EQ(cur.rank(), 0u);
    EXPECT_FALSE(cur.prev());
  }
}

// The empty byte string is a key like any other, and the smallest.
TEST(EdgeTest, EmptyKey) {
  const TableModel model =
      make_table("t", Enc::bytes, {{"", "empty key"}, {std::string("\0", 1), "nul"}, {"a", "a"}});
  const auto bytes = build_one(model, 512);
  auto db = open_mem(bytes);
  ASSERT_TRUE(db) << describe(db.error());
  auto t = db->table("t").value();
  auto v = t.get("");
  ASSERT_TRUE(v);
  ASSERT_TRUE(v->has_value());
  EXPECT_EQ(v->str(), "empty key");
  auto nul = t.get(std::string("\0", 1));
  ASSERT_TRUE(nul && nul->has_value());
  EXPECT_EQ(nul->str(), "nul");
  DiffChecker c(t, model);
  for (std::string a : {std::string(), std::string("\0", 1), std::string("\0\0", 2),
                        std::string("a"), std::string("b")}) {
    c.check_single(a);
    c.check_seek(a);
    for (std::string b : {std::string(), std::string("\0", 1), std::string("a")})
      c.check_pair(a, b);
  }
  c.check_prefix("");
  c.check_prefix(std::string("\0", 1));
  EXPECT_EQ(c.failures(), 0);
}

// Zero-length values are found (has_value() true) and are empty, in both leaf
// layouts: uniform (fixed-width keys, every value the same length) and not.
TEST(EdgeTest, EmptyValues) {
  for (Enc enc : {Enc::bytes, Enc::int64, Enc::uuid, Enc::fixed4}) {
    for (bool all_empty : {true, false}) {
      SCOPED_TRACE(std::string(enc_name(enc)) + (all_empty ? " all empty" : " mixed"));
      Rng rng(21);
      TableModel model = random_table("t", enc, 1500, 77, 0, 0);
      if (!all_empty) {
        size_t i = 0;
        for (auto& [k, v] : model.rows)
          if (i++ % 3 == 0) v = value_for(k, rng, 1, 30);
      }
      const auto bytes = build_one(model, 512);
      auto db = open_mem(bytes);
      ASSERT_TRUE(db) << describe(db.error());
      auto t = db->table("t").value();
      EXPECT_GE(t.info().depth, 2u);
      for (const auto& [k, want] : model.rows) {
        auto v = t.get(key_for(enc, k));
        ASSERT_TRUE(v);
        ASSERT_TRUE(v->has_value()) << show(enc, k);
        EXPECT_EQ(v->size(), want.size());
        EXPECT_EQ(v->str(), want);
        if (want.empty()) {
          EXPECT_TRUE(v->bytes().empty());
        }
      }
      DiffChecker c(t, model);
      c.check_whole_table();
      const std::vector<std::string> bounds =
          interesting_bounds(enc, model, scan_tree(bytes, width_of(enc)), 5, 6);
      for (size_t i = 0; i + 1 < bounds.size(); ++i)
        c.check_pair(bounds[i], bounds[i + 1]);
      EXPECT_EQ(c.failures(), 0);
    }
  }
}

// Values just under, at and over the inline limit, and at the boundaries of
// overflow page counts. Only values over the limit take overflow pages.
TEST(EdgeTest, ValuesAroundTheInlineLimit) {
  for (uint32_t page_size : {512u, 4096u}) {
    SCOPED_TRACE("page size " + std::to_string(page_size));
    const uint32_t limit = drydb::detail::inline_value_limit(page_size);
    const size_t lengths[] = {0,
                              1,
                              limit - 1,
                              limit,
                              limit + 1,
                              page_size - 17,
                              page_size - 16,  // exactly one overflow page
                              page_size - 15,  // two overflow pages
                              page_size,
                              3 * size_t{page_size} + 5};
    // Inline only: nothing overflows.
    {
      TableModel model = make_table("t", Enc::bytes);
      for (int i = 0; i < 40; ++i) {
        const size_t len = i % 2 ? limit : limit - 1;
        model.rows["k" + std::to_string(1000 + i)] = big_value(len, i);
      }
      const auto bytes = build_one(model, page_size);
      auto db = open_mem(bytes);
      ASSERT_TRUE(db) << describe(db.error());
      auto t = db->table("t").value();
      EXPECT_EQ(t.info().overflow_pages, 0u) << "a value at the inline limit spilled";
      DiffChecker c(t, model);
      c.check_every_get();
      c.check_whole_table();
      EXPECT_EQ(c.failures(), 0);
    }
    // Every length, several rows each, interleaved so leaves mix them.
    TableModel model = make_table("t", Enc::bytes);
    uint64_t expected_overflow = 0;
    for (int copy = 0; copy < 3; ++copy)
      for (size_t i = 0; i < std::size(lengths); ++i) {
        const std::string key = "key" + std::to_string(copy) + "-" + std::to_string(100 + i);
        model.rows[key] = big_value(lengths[i], copy * 100 + i);
        if (lengths[i] > limit)
          expected_overflow += drydb::detail::overflow::pages_for(lengths[i], page_size);
      }
    const auto bytes = build_one(model, page_size);
    auto db = open_mem(bytes);
    ASSERT_TRUE(db) << describe(db.error());
    EXPECT_TRUE(db->verify());
    auto t = db->table("t").value();
    EXPECT_EQ(t.info().overflow_pages, expected_overflow);
    DiffChecker c(t, model);
    c.check_every_get();
    c.check_whole_table();
    c.check_prefix("key1");
    c.check_pair("key0-105", "key2-101");
    EXPECT_EQ(c.failures(), 0);
  }
}

// 1 MiB values at both page sizes, among small rows.
TEST(EdgeTest, OneMebibyteValues) {
  for (uint32_t page_size : {512u, 4096u}) {
    SCOPED_TRACE("page size " + std::to_string(page_size));
    TableModel model = random_table("t", Enc::bytes, 300, 9, 0, 30);
    const std::string keys[] = {"big1", "big2", "big3"};
    for (size_t i = 0; i < 3; ++i)
      model.rows[keys[i]] = big_value((size_t{1} << 20) + i, 500 + i);
    const auto bytes = build_one(model, page_size);
    auto db = open_mem(bytes);
    ASSERT_TRUE(db) << describe(db.error());
    auto t = db->table("t").value();
    EXPECT_GE(t.info().overflow_pages, 3 * ((size_t{1} << 20) / page_size));
    for (const auto& k : keys) {
      auto v = t.get(k);
      ASSERT_TRUE(v && v->has_value());
      ASSERT_EQ(v->size(), model.rows[k].size());
      EXPECT_EQ(std::memcmp(v->bytes().data(), model.rows[k].data(), v->size()), 0);
    }
    DiffChecker c(t, model);
    c.check_whole_table();
    c.check_prefix("big");
    c.check_pair("big1", "big3");
    EXPECT_EQ(c.failures(), 0);
  }
}

// One 64 MiB value: read in place (memory) and through the page cache
// (custom storage with a cache far smaller than the value).
TEST(EdgeTest, SixtyFourMebibyteValue) {
  const size_t n = size_t{64} << 20;
  const std::string huge = big_value(n, 64);
  std::vector<std::byte> bytes;
  {
    drydb::DatabaseBuilder builder({.page_size = 4096});
    auto& t = builder.create_table("blobs");
    t.append("a", "before");
    t.append("huge", huge);
    t.append("z", "after");
    auto built = builder.build_to_memory();
    ASSERT_TRUE(built) << describe(built.error());
    bytes = std::move(*built);
  }
  EXPECT_GT(bytes.size(), n);
  auto check = [&](const ReadOnlyDatabase& db) {
    auto t = db.table("blobs").value();
    EXPECT_EQ(t.count(), 3u);
    {
      auto v = t.get("huge");
      ASSERT_TRUE(v && v->has_value());
      ASSERT_EQ(v->size(), n);
      EXPECT_EQ(std::memcmp(v->bytes().data(), huge.data(), n), 0);
    }
    {
      drydb::Cursor c = t.cursor();
      ASSERT_TRUE(c.seek("huge"));
      ASSERT_EQ(c.value().size(), n);
      EXPECT_EQ(std::memcmp(c.value().data(), huge.data(), n), 0);
      ASSERT_TRUE(c.next());
      EXPECT_EQ(c.entry().value_str(), "after");
    }
    auto r = t.get_range("a", "z", {.order = SortOrder::descending});
    ASSERT_TRUE(r);
    std::vector<size_t> sizes;
    for (auto [key, value] : *r)
      sizes.push_back(value.size());
    EXPECT_EQ(sizes, (std::vector<size_t>{5, n, 6}));
  };
  {
    auto db = open_mem(bytes);
    ASSERT_TRUE(db) << describe(db.error());
    check(*db);
  }
  CountingAllocator alloc;
  {
    auto db = open_cached(bytes, 64 << 10, &alloc);
    ASSERT_TRUE(db) << describe(db.error());
    check(*db);
  }
  EXPECT_EQ(alloc.live_blocks(), 0u);
  EXPECT_EQ(alloc.errors(), 0u);
}

// Several tables in one file answer independently, even for the same keys.
TEST(EdgeTest, SeveralTablesInOneFile) {
  const TableModel alpha = random_table("alpha", Enc::bytes, 2000, 1, 0, 30);
  TableModel gamma = make_table("gamma", Enc::bytes);  // alpha's keys with other values
  for (const auto& [k, v] : alpha.rows)
    gamma.rows[k] = "gamma:" + v;
  const DbModel m = {.page_size = 512,
                     .tables = {alpha, random_table("beta", Enc::int64, 2500, 2, 8, 8),
                                make_table("delta", Enc::bytes), gamma,
                                random_table("eps", Enc::uuid, 700, 3, 0, 50),
                                random_table("zeta", Enc::var, 900, 4, 0, 20)}};
  const Enc encs[] = {Enc::bytes, Enc::int64, Enc::bytes, Enc::bytes, Enc::uuid, Enc::var};
  const auto bytes = build_memory(m, {}, 1);
  ASSERT_FALSE(bytes.empty());
  auto db = open_mem(bytes);
  ASSERT_TRUE(db) << describe(db.error());
  EXPECT_TRUE(db->verify());
  const auto tables = db->tables();
  ASSERT_EQ(tables.size(), m.tables.size());
  for (size_t i = 0; i < m.tables.size(); ++i) {
    const TableModel& model = m.tables[i];
    SCOPED_TRACE(model.name);
    EXPECT_EQ(tables[i].name(), model.name);
    EXPECT_EQ(tables[i].encoding(), encoding_of(encs[i]));
    auto t = db->table(model.name);
    ASSERT_TRUE(t);
    DiffChecker c(*t, model);
    c.check_count();
    for (const auto& row : model.rows)
      c.check_get(row.first);
    Rng rng(i);
    for (int j = 0; j < 30; ++j) {
      const std::string a = random_key(encs[i], rng), b = random_key(encs[i], rng);
      c.check_pair(a, b);
      c.check_single(a);
    }
    c.check_whole_table();
    EXPECT_EQ(c.failures(), 0);
  }
  // Same key, different tables, different values.
  const std::string& k = alpha.rows.begin()->first;
  EXPECT_EQ(db->table("alpha")->get(k)->str(), alpha.rows.at(k));
  EXPECT_EQ(db->table("gamma")->get(k)->str(), gamma.rows.at(k));
  EXPECT_FALSE(db->table("delta")->get(k)->has_value());
}

// Many tables, empty ones between full ones: every table opens and answers.
TEST(EdgeTest, ManyTablesSomeEmpty) {
  DbModel m;
  m.page_size = 512;
  for (size_t i = 0; i < 40; ++i) {
    const std::string name = "table" + std::to_string(i);
    m.tables.push_back(i % 2 == 1 ? random_table(name, Enc::bytes, 50 + 10 * i, 100 + i, 0, 20)
                                  : make_table(name, Enc::bytes));
  }
  const auto bytes = build_memory(m, {}, 1);
  ASSERT_FALSE(bytes.empty());
  auto db = open_mem(bytes);
  ASSERT_TRUE(db) << describe(db.error());
  EXPECT_TRUE(db->verify());
  ASSERT_EQ(db->tables().size(), m.tables.size());
  for (const auto& model : m.tables) {
    auto t = db->table(model.name);
    ASSERT_TRUE(t) << model.name;
    DiffChecker c(*t, model);
    c.check_count();
    for (const auto& row : model.rows)
      c.check_get(row.first);
    c.check_unbounded();
    EXPECT_EQ(c.failures(), 0) << model.name;
  }
}

// prefix(): 0xFF edges (the successor bound drops trailing 0xFF bytes), the
// empty prefix (every row), prefixes longer than any key.
TEST(EdgeTest, PrefixAtFFEdges) {
  const std::vector<std::string> keys = {
      "",
      std::string("\0", 1),
      "a",
      "a\x01",
      "a\xfe",
      "a\xfe\xff",
      "a\xff",
      std::string("a\xff\x00", 3),
      "a\xff\xff",
      std::string("a\xff\xff\x00", 4),
      "a\xff\xff\x01",
      "a\xff\xff\xff",
      "a\xff\xff\xff\xff",
      "b",
      std::string("b\x00", 2),
      "ba",
      "\xfe",
      "\xfe\xff",
      "\xff",
      std::string("\xff\x00", 2),
      "\xff\x01",
      "\xff\xff",
      "\xff\xff\xff",
  };
  for (uint32_t page_size : {512u, 4096u}) {
    for (int filler : {0, 3000}) {  // a one-leaf table, and one with many levels
      SCOPED_TRACE("page " + std::to_string(page_size) + " filler " + std::to_string(filler));
      TableModel model = random_table("t", Enc::bytes, filler, 31, 0, 10);
      for (const auto& k : keys)
        model.rows[k] = "v" + hex_of(as_bytes(k));
      const auto bytes = build_one(model, page_size);
      auto db = open_mem(bytes);
      ASSERT_TRUE(db) << describe(db.error());
      auto t = db->table("t").value();
      DiffChecker c(t, model);
      for (const std::string& p :
           {std::string(), std::string("\xff"), std::string("\xff\xff"),
            std::string("\xff\xff\xff\xff"), std::string("a\xff"), std::string("a\xff\xff"),
            std::string("a\xff\xff\xff"), std::string("a\xfe"), std::string("a\xfe\xff"),
            std::string("a"), std::string("b"), std::string("\xfe"), std::string("\xfe\xff"),
            std::string("\0", 1), std::string("\0\0", 2), std::string("zz"), std::string(80, 'a'),
            std::string(80, '\xff')})
        c.check_prefix(p);
      EXPECT_EQ(c.failures(), 0);

      // The same answers written out for the 0xFF cases.
      auto ff = t.prefix("\xff");
      ASSERT_TRUE(ff);
      std::vector<std::string> got;
      for (auto [key, value] : *ff)
        got.push_back(std::string(to_view(key)));
      std::vector<std::string> want;
      for (const auto& [k, v] : model.rows)
        if (!k.empty() && k[0] == '\xff') want.push_back(k);
      EXPECT_EQ(got, want);
      auto aff = t.prefix("a\xff\xff", SortOrder::descending);
      ASSERT_TRUE(aff);
      got.clear();
      for (auto [key, value] : *aff)
        got.push_back(std::string(to_view(key)));
      want.clear();
      for (auto it = model.rows.rbegin(); it != model.rows.rend(); ++it)
        if (it->first.rfind("a\xff\xff", 0) == 0) want.push_back(it->first);
      EXPECT_EQ(got, want);
      if (filler == 0) {
        EXPECT_EQ(got,
                  (std::vector<std::string>{"a\xff\xff\xff\xff", "a\xff\xff\xff", "a\xff\xff\x01",
                                            std::string("a\xff\xff\x00", 4), "a\xff\xff"}));
      }
      auto all = t.prefix("");
      ASSERT_TRUE(all);
      EXPECT_EQ(all->size(), model.rows.size());
      // An empty span may hold a null pointer: still every row, in both orders.
      for (auto order : {SortOrder::ascending, SortOrder::descending}) {
        auto every = t.prefix(std::span<const std::byte>(), order);
        ASSERT_TRUE(every);
        EXPECT_EQ(every->size(), model.rows.size());
        EXPECT_EQ(count_rows(*every), model.rows.size());
      }
    }
  }
}

// prefix() is for byte keys; also works for custom (byte-keyed) encodings.
TEST(EdgeTest, PrefixNeedsByteKeys) {
  const TableModel custom = random_table("custom", Enc::var, 300, 3, 4, 4);
  const auto bytes =
      build_memory({.page_size = 512,
                    .tables = {random_table("ints", Enc::int64, 100, 1, 4, 4),
                               random_table("uuids", Enc::uuid, 100, 2, 4, 4), custom}},
                   {}, 1);
  auto db = open_mem(bytes);
  ASSERT_TRUE(db) << describe(db.error());
  auto r = db->table("ints")->prefix("a");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.code(), errc::wrong_key_type);
  EXPECT_NE(r.error().message.find("ints"), std::string::npos) << r.error().message;
  EXPECT_EQ(db->table("ints")->prefix("").code(), errc::wrong_key_type);
  EXPECT_EQ(db->table("uuids")->prefix("\x01").code(), errc::wrong_key_type);
  DiffChecker c(*db->table("custom"), custom);
  for (std::string p : {"", "a", "ab", "abcdefgh", "item:0", "\xff", "a\xff\xff"})
    c.check_prefix(p);
  EXPECT_EQ(c.failures(), 0);
}

// A key of the wrong kind is errc::wrong_key_type on every query.
TEST(EdgeTest, WrongKeyKinds) {
  const auto bytes = build_memory({.page_size = 4096,
                                   .tables = {random_table("ints", Enc::int64, 50, 1, 4, 4),
                                              random_table("text", Enc::bytes, 50, 2, 4, 4),
                                              random_table("uuids", Enc::uuid, 50, 3, 4, 4),
                                              random_table("ulids", Enc::ulid, 50, 4, 4, 4)}},
                                  {}, 1);
  auto db = open_mem(bytes);
  ASSERT_TRUE(db) << describe(db.error());
  struct Case {
    const char* table;
    Key wrong;
    Key right;
  };
  const Case cases[] = {
      {"ints", Key("42"), Key(int64_t{42})},
      {"ints", Key(kSampleUuid), Key(int64_t{1})},
      {"text", Key(int64_t{42}), Key("42")},
      {"text", Key(kSampleUlid), Key("x")},
      {"uuids", Key(kSampleUlid), Key(kSampleUuid)},
      {"uuids", Key("0123456789abcdef"), Key(kSampleUuid)},
      {"uuids", Key(7), Key(kSampleUuid)},
      {"ulids", Key(kSampleUuid), Key(kSampleUlid)},
      {"ulids", Key("0123456789abcdef"), Key(kSampleUlid)},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.table);
    auto t = db->table(tc.table).value();
    auto g = t.get(tc.wrong);
    ASSERT_FALSE(g);
    EXPECT_EQ(g.code(), errc::wrong_key_type);
    EXPECT_NE(g.error().message.find(tc.table), std::string::npos) << g.error().message;
    EXPECT_EQ(t.get_range(tc.wrong, unbounded).code(), errc::wrong_key_type);
    EXPECT_EQ(t.get_range(unbounded, tc.wrong).code(), errc::wrong_key_type);
    EXPECT_EQ(t.get_range(tc.right, tc.wrong).code(), errc::wrong_key_type);
    EXPECT_EQ(t.get_range(tc.wrong, tc.right).code(), errc::wrong_key_type);
    EXPECT_EQ(t.count_range(tc.wrong, unbounded).code(), errc::wrong_key_type);
    EXPECT_EQ(t.count_range(tc.right, tc.wrong).code(), errc::wrong_key_type);
    drydb::Cursor c = t.cursor();
    EXPECT_FALSE(c.seek(tc.wrong));
    EXPECT_FALSE(c.valid());
    EXPECT_EQ(c.status().code(), errc::wrong_key_type);
    drydb::Cursor c2 = t.cursor();
    EXPECT_FALSE(c2.seek_exact(tc.wrong));
    EXPECT_EQ(c2.status().code(), errc::wrong_key_type);
    // The right kind still works on the same handle.
    EXPECT_TRUE(t.get(tc.right));
    EXPECT_TRUE(t.count_range(tc.right, unbounded));
  }
}

// A custom fixed-width table: a key of another width is not one of its keys.
// (A 2-byte key must not find the row whose 4-byte key starts with it and is
// zero-padded.)
TEST(EdgeTest, FixedWidthCustomKeyOfWrongWidth) {
  TableModel model = make_table("t", Enc::fixed4);
  model.rows[std::string("ab\0\0", 4)] = "padded";
  model.rows["abcd"] = "abcd";
  model.rows["zzzz"] = "zzzz";
  const auto bytes = build_one(model, 512);
  auto db = open_mem(bytes);
  ASSERT_TRUE(db) << describe(db.error());
  auto t = db->table("t").value();
  auto exact = t.get(std::string("ab\0\0", 4));
  ASSERT_TRUE(exact && exact->has_value());
  EXPECT_EQ(exact->str(), "padded");
  auto shorter = t.get("ab");
  EXPECT_TRUE(!shorter || !shorter->has_value())
      << "get(\"ab\") on a 4-byte-key table returned the value of \"ab\\0\\0\": "
      << (shorter ? std::string(shorter->str()) : "");
  auto longer = t.get(std::string("abcd\0", 5));
  EXPECT_TRUE(!longer || !longer->has_value())
      << "get(\"abcd\\0\") on a 4-byte-key table returned the value of \"abcd\"";
  // A bound of another width is either refused (wrong_key_type) or ordered
  // as bytes: "ab" < "ab\0\0" < "abcd" < "abcd\0" < "zzzz".
  auto count_after = [&](const std::string& bound, bool exclusive) -> int64_t {
    auto n = t.count_range(bound, drydb::unbounded, {.start_exclusive = exclusive});
    if (!n) {
      EXPECT_EQ(n.code(), errc::wrong_key_type) << describe(n.error());
      return -1;
    }
    return static_cast<int64_t>(*n);
  };
  for (bool exclusive : {false, true}) {
    const int64_t ab = count_after("ab", exclusive);
    if (ab >= 0) {
      EXPECT_EQ(ab, 3) << "rows after \"ab\", exclusive=" << exclusive;
    }
    const int64_t abcd0 = count_after(std::string("abcd\0", 5), exclusive);
    if (abcd0 >= 0) {
      EXPECT_EQ(abcd0, 1) << "rows after \"abcd\\0\", exclusive=" << exclusive;
    }
  }
  // prefix() takes prefixes shorter than the width.
  auto p = t.prefix("ab");
  ASSERT_TRUE(p) << describe(p.error());
  EXPECT_EQ(p->size(), 2u);
}

TEST(EdgeTest, UnknownTable) {
  const auto bytes = build_memory({.page_size = 4096,
                                   .tables = {make_table("items", Enc::bytes, {{"k", "v"}}),
                                              make_table("quests", Enc::bytes, {{"k", "v"}})}},
                                  {}, 1);
  auto db = open_mem(bytes);
  ASSERT_TRUE(db) << describe(db.error());
  for (std::string_view name : {"nope", "", "item", "items ", "ITEMS"}) {
    auto t = db->table(name);
    ASSERT_FALSE(t) << name;
    EXPECT_EQ(t.code(), errc::not_found);
    EXPECT_NE(t.error().message.find(std::string(name)), std::string::npos);
    // It names the tables there are.
    EXPECT_NE(t.error().message.find("items"), std::string::npos) << t.error().message;
    EXPECT_NE(t.error().message.find("quests"), std::string::npos) << t.error().message;
  }
  EXPECT_TRUE(db->table("items"));
}

// start == end and start > end, written out.
TEST(EdgeTest, EqualAndReversedBounds) {
  TableModel model = make_table("t", Enc::bytes);
  for (int i = 0; i < 100; ++i)
    model.rows["k" + std::to_string(100 + i)] = std::to_string(i);
  const auto bytes = build_one(model, 512);
  auto db = open_mem(bytes);
  auto t = db->table("t").value();
  for (auto order : {SortOrder::ascending, SortOrder::descending}) {
    auto same = t.get_range("k150", "k150", {.order = order});
    ASSERT_TRUE(same);
    ASSERT_EQ(same->size(), 1u);
    for (auto [key, value] : *same) {
      EXPECT_EQ(to_view(key), "k150");
      EXPECT_EQ(to_view(value), "50");
    }
    for (auto [se, ee] : {std::pair{true, false}, std::pair{false, true}, std::pair{true, true}}) {
      const drydb::RangeOptions o{.start_exclusive = se, .end_exclusive = ee, .order = order};
      auto r = t.get_range("k150", "k150", o);
      ASSERT_TRUE(r);
      EXPECT_EQ(r->size(), 0u);
      EXPECT_EQ(r->first_rank(), 0u);
      EXPECT_EQ(r->order(), order);  // an empty range keeps the order it was asked for
      EXPECT_TRUE(r->begin() == r->end());
      EXPECT_EQ(*t.count_range("k150", "k150", o), 0u);
    }
    // Equal bounds that are not a key: empty.
    EXPECT_EQ(t.get_range("k1505", "k1505", {.order = order})->size(), 0u);
    auto reversed = t.get_range("k151", "k150", {.order = order});
    ASSERT_FALSE(reversed);
    EXPECT_EQ(reversed.code(), errc::invalid_argument);
    EXPECT_NE(reversed.error().message.find("k151"), std::string::npos) << reversed.error().message;
    EXPECT_EQ(t.count_range("k151", "k150").code(), errc::invalid_argument);
    // Reversed bounds that are not keys are reversed all the same.
    EXPECT_EQ(t.get_range("zz", "a", {.order = order}).code(), errc::invalid_argument);
  }
}

// ---------------------------------------------------------------------------
// 3. Cursors.

class CursorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    model_ = random_table("t", Enc::bytes, 4000, 99, 0, 40);
    bytes_ = build_one(model_, 512);
    ASSERT_FALSE(bytes_.empty());
    auto db = open_mem(bytes_);
    ASSERT_TRUE(db) << describe(db.error());
    db_ = std::make_unique<ReadOnlyDatabase>(std::move(*db));
    table_ = std::make_unique<drydb::ReadOnlyTable>(db_->table("t").value());
    ASSERT_GE(table_->info().depth, 3u);
    rows_.assign(model_.rows.begin(), model_.rows.end());
    shape_ = scan_tree(bytes_, 0);
  }
  void TearDown() override {
    table_.reset();
    db_.reset();
  }

  TableModel model_;
  std::vector<std::byte> bytes_;
  std::unique_ptr<ReadOnlyDatabase> db_;
  std::unique_ptr<drydb::ReadOnlyTable> table_;
  std::vector<std::pair<std::string, std::string>> rows_;
  TreeShape shape_;
};

TEST_F(CursorTest, WalksBothWaysAcrossEveryLeaf) {
  DiffChecker c(*table_, model_);
  c.check_cursor_walks();
  EXPECT_EQ(c.failures(), 0);
  ASSERT_GT(shape_.leaves, 100u);
}

TEST_F(CursorTest, SeeksAtEveryLeafBoundary) {
  DiffChecker c(*table_, model_);
  for (size_t i = 0; i + 1 < shape_.leaves; ++i) {
    c.check_seek(shape_.leaf_last[i], 2);
    c.check_seek(shape_.leaf_first[i + 1], 2);
    c.check_seek(shape_.leaf_last[i] + '\0', 2);  // between the two leaves
  }
  for (const auto& sep : shape_.separators)
    c.check_seek(sep, 1);
  EXPECT_EQ(c.failures(), 0);

  // Explicitly: last row of a leaf -> next -> first row of the next leaf -> prev.
  drydb::Cursor cur = table_->cursor();
  for (size_t i = 0; i + 1 < shape_.leaves; i += 7) {
    ASSERT_TRUE(cur.seek_exact(shape_.leaf_last[i]));
    ASSERT_TRUE(cur.next());
    EXPECT_EQ(to_view(cur.key()), shape_.leaf_first[i + 1]);
    ASSERT_TRUE(cur.prev());
    EXPECT_EQ(to_view(cur.key()), shape_.leaf_last[i]);
  }
}

TEST_F(CursorTest, FirstLastSeekAndRank) {
  drydb::Cursor c = table_->cursor();
  EXPECT_FALSE(c.valid());
  EXPECT_FALSE(c.next());  // an unpositioned cursor does not move
  EXPECT_FALSE(c.prev());
  ASSERT_TRUE(c.first());
  EXPECT_EQ(c.rank(), 0u);
  EXPECT_EQ(to_view(c.key()), rows_.front().first);
  EXPECT_FALSE(c.prev());
  EXPECT_FALSE(c.valid());
  EXPECT_FALSE(c.prev());  // stays invalid
  EXPECT_FALSE(c.next());
  ASSERT_TRUE(c.last());
  EXPECT_EQ(c.rank(), rows_.size() - 1);
  EXPECT_EQ(to_view(c.key()), rows_.back().first);
  EXPECT_EQ(to_view(c.value()), rows_.back().second);
  EXPECT_FALSE(c.next());
  EXPECT_FALSE(c.valid());

  // seek is a lower bound; past the last key it is invalid.
  ASSERT_TRUE(c.seek(""));
  EXPECT_EQ(c.rank(), 0u);
  EXPECT_FALSE(c.seek(rows_.back().first + '\0'));
  EXPECT_FALSE(c.valid());
  EXPECT_FALSE(c.seek(std::string(70, '\xff')));
  EXPECT_TRUE(c.status());
  ASSERT_TRUE(c.seek(rows_.back().first));
  EXPECT_EQ(c.rank(), rows_.size() - 1);

  // seek_exact: found or not, positioned as seek.
  const std::string& mid = rows_[1234].first;
  EXPECT_TRUE(c.seek_exact(mid));
  EXPECT_EQ(c.rank(), 1234u);
  EXPECT_FALSE(c.seek_exact(mid + '\0'));
  if (rows_[1235].first != mid + '\0') {
    ASSERT_TRUE(c.valid());
    EXPECT_EQ(c.rank(), 1235u);
    EXPECT_EQ(to_view(c.key()), rows_[1235].first);
  }

  // seek_rank reaches every rank and nothing past the end.
  for (size_t r = 0; r < rows_.size(); r += 37) {
    ASSERT_TRUE(c.seek_rank(r));
    EXPECT_EQ(c.rank(), r);
    EXPECT_EQ(to_view(c.key()), rows_[r].first);
    EXPECT_EQ(to_view(c.value()), rows_[r].second);
  }
  EXPECT_TRUE(c.seek_rank(rows_.size() - 1));
  EXPECT_FALSE(c.seek_rank(rows_.size()));
  EXPECT_FALSE(c.valid());
  EXPECT_FALSE(c.seek_rank(~uint64_t{0}));
}

TEST_F(CursorTest, RangeFor) {
  size_t i = 0;
  for (auto [key, value] : table_->cursor()) {
    ASSERT_LT(i, rows_.size());
    EXPECT_EQ(to_view(key), rows_[i].first);
    EXPECT_EQ(to_view(value), rows_[i].second);
    ++i;
  }
  EXPECT_EQ(i, rows_.size());

  // From a positioned cursor the loop starts at its row.
  drydb::Cursor c = table_->cursor();
  ASSERT_TRUE(c.seek_rank(rows_.size() - 50));
  i = rows_.size() - 50;
  for (drydb::Entry e : c) {
    EXPECT_EQ(e.key_str(), rows_[i].first);
    EXPECT_EQ(e.value_str(), rows_[i].second);
    ++i;
  }
  EXPECT_EQ(i, rows_.size());
  EXPECT_FALSE(c.valid());
}

TEST_F(CursorTest, CopyAndMoveKeepWorking) {
  drydb::Cursor a = table_->cursor();
  ASSERT_TRUE(a.seek_rank(1000));
  (void)a.value();
  drydb::Cursor b = a;  // copy
  for (int i = 1; i <= 300; ++i) {
    ASSERT_TRUE(a.next());
    ASSERT_TRUE(b.prev());
    EXPECT_EQ(to_view(a.key()), rows_[1000 + i].first);
    EXPECT_EQ(to_view(a.value()), rows_[1000 + i].second);
    EXPECT_EQ(to_view(b.key()), rows_[1000 - i].first);
    EXPECT_EQ(to_view(b.value()), rows_[1000 - i].second);
  }
  // Copy assignment over a positioned cursor.
  b = a;
  EXPECT_EQ(b.rank(), 1300u);
  EXPECT_EQ(to_view(b.key()), rows_[1300].first);
  // The copy outlives its source.
  drydb::Cursor survivor;
  {
    drydb::Cursor source = table_->cursor();
    ASSERT_TRUE(source.seek_rank(2000));
    survivor = source;
  }
  EXPECT_EQ(to_view(survivor.value()), rows_[2000].second);
  ASSERT_TRUE(survivor.next());
  EXPECT_EQ(to_view(survivor.key()), rows_[2001].first);

  // Move construction and assignment.
  drydb::Cursor m = std::move(a);
  EXPECT_FALSE(a.valid());  // NOLINT: a moved-from cursor is documented invalid-or-usable
  ASSERT_TRUE(m.valid());
  EXPECT_EQ(m.rank(), 1300u);
  ASSERT_TRUE(m.next());
  EXPECT_EQ(to_view(m.key()), rows_[1301].first);
  drydb::Cursor n = table_->cursor();
  ASSERT_TRUE(n.first());
  n = std::move(m);
  EXPECT_EQ(n.rank(), 1301u);
  ASSERT_TRUE(n.prev());
  EXPECT_EQ(to_view(n.key()), rows_[1300].first);
  // A moved-from cursor can be positioned again.
  ASSERT_TRUE(a.first());  // NOLINT
  EXPECT_EQ(to_view(a.key()), rows_[0].first);
  // Self-assignment leaves it as it was.
  drydb::Cursor& alias = n;
  n = alias;
  EXPECT_EQ(n.rank(), 1300u);
  EXPECT_EQ(to_view(n.value()), rows_[1300].second);
}

TEST_F(CursorTest, RangeIteratedTwiceGivesTheSameRows) {
  for (auto order : {SortOrder::ascending, SortOrder::descending}) {
    auto r = table_->get_range(rows_[100].first, rows_[1100].first,
                               {.start_exclusive = true, .order = order});
    ASSERT_TRUE(r);
    ASSERT_EQ(r->size(), 1000u);
    std::vector<std::string> first_pass, second_pass, partial;
    for (auto [key, value] : *r)
      first_pass.push_back(std::string(to_view(key)) + "=" + std::string(to_view(value)));
    for (auto [key, value] : *r)
      second_pass.push_back(std::string(to_view(key)) + "=" + std::string(to_view(value)));
    EXPECT_EQ(first_pass, second_pass);
    // Stopping early and starting over also starts at the first row.
    for (auto [key, value] : *r) {
      partial.push_back(std::string(to_view(key)) + "=" + std::string(to_view(value)));
      if (partial.size() == 10) break;
    }
    partial.clear();
    for (auto [key, value] : *r)
      partial.push_back(std::string(to_view(key)) + "=" + std::string(to_view(value)));
    EXPECT_EQ(partial, first_pass);
    ASSERT_EQ(first_pass.size(), 1000u);
    const size_t front = order == SortOrder::ascending ? 101 : 1100;  // (100, 1100]
    EXPECT_EQ(first_pass.front(), rows_[front].first + "=" + rows_[front].second);
    // A copy of the range iterates the same rows.
    drydb::Range copy = *r;
    std::vector<std::string> copied;
    for (auto [key, value] : copy)
      copied.push_back(std::string(to_view(key)) + "=" + std::string(to_view(value)));
    EXPECT_EQ(copied, first_pass);
  }
}

// Ranges over leaves whose rows sit at fixed strides (int64 keys, one value length per leaf) are
// walked by pointer within a leaf; leaves of mixed value lengths are walked by the cursor. Rows,
// order, early stops and restarts must not depend on which.
TEST(StridedRangeTest, RunsAcrossUniformAndMixedLeaves) {
  TableModel model = make_table("t", Enc::int64);
  for (int64_t k = 0; k < 3000; ++k) {
    // Mostly 10-byte values; every 700 keys a stretch of varied lengths makes mixed leaves.
    const size_t len = (k / 100) % 7 == 3 ? static_cast<size_t>(k % 13) : 10;
    model.rows.emplace(int64_key(k * 3 - 4000), std::string(len, static_cast<char>('a' + k % 26)));
  }
  const auto bytes = build_one(model, 512);
  auto db = open_mem(bytes).value();
  auto table = db.table("t").value();
  std::vector<std::pair<std::string, std::string>> rows(model.rows.begin(), model.rows.end());
  for (auto order : {SortOrder::ascending, SortOrder::descending}) {
    for (auto [lo, hi] :
         {std::pair{0, 2999}, std::pair{17, 2011}, std::pair{1200, 1201}, std::pair{905, 1390}}) {
      auto r = table.get_range(Key(int64_of(rows[lo].first)), Key(int64_of(rows[hi].first)),
                               {.order = order});
      ASSERT_TRUE(r);
      std::vector<std::pair<std::string, std::string>> want(rows.begin() + lo,
                                                            rows.begin() + hi + 1);
      if (order == SortOrder::descending) std::reverse(want.begin(), want.end());
      auto walk = [&](size_t stop) {
        std::vector<std::pair<std::string, std::string>> got;
        for (auto [key, value] : *r) {
          got.emplace_back(to_string(key), to_string(value));
          if (got.size() == stop) break;
        }
        return got;
      };
      // Stop at 1, inside a leaf, at about a leaf's length, then walk everything: each walk
      // starts over at the first row.
      for (size_t stop : {size_t{1}, size_t{7}, size_t{40}, size_t{41}, want.size()}) {
        auto got = walk(stop);
        ASSERT_EQ(got.size(), std::min(stop, want.size()));
        EXPECT_TRUE(std::equal(got.begin(), got.end(), want.begin())) << lo << ".." << hi;
      }
      EXPECT_TRUE(r->status());
    }
  }
}

// An overflow value a range cannot read (its run is damaged) ends the iteration at that row, and
// status() says why; the rows before it come out whole.
TEST(StridedRangeTest, AnUnreadableValueEndsTheRangeWithItsError) {
  TableModel model = make_table("t", Enc::int64);
  for (int64_t k = 0; k < 400; ++k)
    model.rows[int64_key(k)] = k % 50 == 25
                                   ? "big-" + std::to_string(k) + "|" + std::string(700, 'x')
                                   : std::string(12, static_cast<char>('a' + k % 26));
  auto bytes = build_one(model, 512);
  const std::string marker = "big-225|";
  const std::string_view all(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  const size_t at = all.find(marker);
  ASSERT_NE(at, std::string_view::npos);
  bytes[at] ^= std::byte{0x20};  // the run holding row 225's value fails its checksum
  auto db = open_mem(bytes);
  ASSERT_TRUE(db);
  auto table = db->table("t").value();
  for (auto order : {SortOrder::ascending, SortOrder::descending}) {
    auto r = table.get_range(int64_t{0}, int64_t{399}, {.order = order});
    ASSERT_TRUE(r);
    std::vector<int64_t> got;
    for (auto [key, value] : *r) {
      const int64_t k = int64_of(to_view(key));
      EXPECT_EQ(to_view(value), model.rows[int64_key(k)]) << k;
      got.push_back(k);
    }
    ASSERT_FALSE(r->status());
    EXPECT_EQ(r->status().code(), drydb::errc::corruption);
    ASSERT_FALSE(got.empty());
    if (order == SortOrder::ascending) {
      EXPECT_EQ(got.back(), 224);
      EXPECT_EQ(got.size(), 225u);
    } else {
      EXPECT_EQ(got.back(), 226);
      EXPECT_EQ(got.size(), 174u);
    }
  }
}

// Overflow values through a cursor: whole, stable across calls, in copies.
TEST(CursorOverflowTest, OverflowValuesThroughCursor) {
  TableModel model = random_table("t", Enc::bytes, 600, 5, 0, 30);
  std::vector<std::string> big_keys;
  Rng rng(8);
  for (int i = 0; i < 40; ++i) {
    const std::string k = "big" + std::to_string(i);
    model.rows[k] = big_value(129 + rng.between(0, 5000), i);
    big_keys.push_back(k);
  }
  const auto bytes = build_one(model, 512);
  CountingAllocator alloc;
  for (int backend = 0; backend < 2; ++backend) {
    SCOPED_TRACE(backend == 0 ? "memory" : "cached, 8 pages");
    auto db = backend == 0 ? open_mem(bytes) : open_cached(bytes, 8 * 512, &alloc);
    ASSERT_TRUE(db) << describe(db.error());
    auto t = db->table("t").value();
    EXPECT_GT(t.info().overflow_pages, 40u);
    DiffChecker c(t, model);
    c.check_cursor_walks();
    c.check_prefix("big");
    EXPECT_EQ(c.failures(), 0);
    drydb::Cursor cur = t.cursor();
    for (const auto& k : big_keys) {
      ASSERT_TRUE(cur.seek_exact(k));
      auto v1 = cur.value();
      auto v2 = cur.value();
      EXPECT_EQ(v1.data(), v2.data());
      EXPECT_EQ(to_view(v1), model.rows[k]);
      drydb::Cursor copy = cur;
      ASSERT_TRUE(cur.next());  // the source moves on; the copy's value stays right
      EXPECT_EQ(to_view(copy.value()), model.rows[k]);
      EXPECT_EQ(copy.entry().value_str(), model.rows[k]);
    }
  }
  EXPECT_EQ(alloc.live_blocks(), 0u);
  EXPECT_EQ(alloc.errors(), 0u);
}

// ---------------------------------------------------------------------------
// 4. Storage back ends: the same checks through every way of reading a file.

class BackendTest : public ::testing::TestWithParam<Backend> {
 protected:
  static constexpr uint32_t kPageSize = 512;

  void SetUp() override {
    text_ = random_table("text", Enc::bytes, 3000, 42, 0, 60);
    Rng rng(43);
    for (int i = 0; i < 12; ++i)
      text_.rows["overflow" + std::to_string(i)] = big_value(129 + rng.between(0, 3000), i);
    text_.rows["overflow_big"] = big_value(size_t{1} << 20, 99);
    ints_ = random_table("ints", Enc::int64, 2500, 44, 0, 12);
    uuids_ = random_table("uuids", Enc::uuid, 800, 45, 16, 16);
    bytes_ = build_memory({.page_size = kPageSize, .tables = {text_, ints_, uuids_}}, {}, 1);
    ASSERT_FALSE(bytes_.empty());
    path_ = dir_ / "db.drydb";
    ASSERT_TRUE(write_file(path_, bytes_));
  }

  // The file through this test's backend; a custom one's storage in storage_ and its page memory
  // from alloc_.
  drydb::result<ReadOnlyDatabase> open() {
    return open_backend(GetParam(), {path_, bytes_},
                        {.small_cache = 8 * kPageSize,
                         .allocator = custom() ? &alloc_ : nullptr,
                         .storage = &storage_});
  }

  bool custom() const {
    return GetParam() == Backend::custom_small || GetParam() == Backend::custom_large;
  }

  TempDir dir_;
  std::filesystem::path path_;
  TableModel text_, ints_, uuids_;
  std::vector<std::byte> bytes_;
  CountingAllocator alloc_;
  MemoryStorage* storage_ = nullptr;  // of the custom backends' open database
};

TEST_P(BackendTest, AnswersMatchTheModel) {
  {
    auto db = open();
    ASSERT_TRUE(db) << describe(db.error());
    EXPECT_EQ(db->page_size(), kPageSize);
    const auto verified = db->verify();
    EXPECT_TRUE(verified) << describe(verified.error());
    struct One {
      const char* name;
      Enc enc;
      const TableModel* model;
    };
    for (const One& one : {One{"text", Enc::bytes, &text_}, One{"ints", Enc::int64, &ints_},
                           One{"uuids", Enc::uuid, &uuids_}}) {
      SCOPED_TRACE(one.name);
      auto t = db->table(one.name);
      ASSERT_TRUE(t);
      DiffChecker c(*t, *one.model);
      c.check_count();
      c.check_every_get();
      const auto bounds = interesting_bounds(one.enc, *one.model, {}, 7, 12);
      c.check_unbounded();
      for (size_t i = 0; i < bounds.size(); ++i) {
        c.check_get(bounds[i]);
        c.check_single(bounds[i]);
        c.check_seek(bounds[i]);
        if (i + 1 < bounds.size()) c.check_pair(bounds[i], bounds[i + 1]);
        if (i + 5 < bounds.size()) c.check_pair(bounds[i], bounds[i + 5]);
      }
      if (one.enc == Enc::bytes)
        for (std::string p : {"", "a", "ab", "abcdefgh", "item:", "over", "\xff", "a\xff\xff"})
          c.check_prefix(p);
      c.check_cursor_walks();
      EXPECT_EQ(c.failures(), 0);
    }
    if (custom()) {
      EXPECT_GT(storage_->reads.load(), 0u) << "the custom storage was not read";
    }
  }
  if (custom()) {
    EXPECT_GT(alloc_.allocations(), 0u) << "the custom allocator was not used";
    EXPECT_EQ(alloc_.allocations(), alloc_.deallocations());
    EXPECT_EQ(alloc_.live_blocks(), 0u) << "page memory not returned after the database died";
    EXPECT_EQ(alloc_.live_bytes(), 0u);
    EXPECT_EQ(alloc_.errors(), 0u) << "bad alignment or mismatched deallocate";
  }
}

// Values and cursors keep their pages while other queries churn the cache.
TEST_P(BackendTest, HeldValuesAndCursorsSurviveEviction) {
  {
    auto db = open();
    ASSERT_TRUE(db) << describe(db.error());
    auto text = db->table("text").value();
    auto ints = db->table("ints").value();
    std::vector<std::pair<const std::string*, drydb::Value>> held;
    size_t i = 0;
    for (const auto& [k, v] : text_.rows) {
      if (i++ % 50 != 0 && k.rfind("overflow", 0) != 0) continue;
      auto r = text.get(k);
      ASSERT_TRUE(r && r->has_value());
      held.emplace_back(&v, std::move(*r));
    }
    drydb::Cursor cursor = text.cursor();
    ASSERT_TRUE(cursor.seek_exact("overflow_big"));
    const auto cursor_key = cursor.key();
    const auto cursor_value = cursor.value();
    auto range = text.get_range(unbounded, unbounded);
    ASSERT_TRUE(range);
    auto it = range->begin();
    const drydb::Entry range_row = *it;
    // Churn: walk both tables several times.
    for (int pass = 0; pass < 2; ++pass) {
      for (auto [key, value] : ints.cursor())
        (void)key;
      DiffChecker c(ints, ints_);
      c.check_cursor_walks();
      EXPECT_EQ(c.failures(), 0);
    }
    for (const auto& [want, value] : held)
      ASSERT_EQ(value.str(), *want);
    EXPECT_EQ(to_view(cursor_key), "overflow_big");
    EXPECT_EQ(to_view(cursor_value), text_.rows["overflow_big"]);
    EXPECT_EQ(range_row.key_str(), text_.rows.begin()->first);
    EXPECT_EQ(range_row.value_str(), text_.rows.begin()->second);
    if (GetParam() == Backend::custom_small) {
      EXPECT_GT(alloc_.deallocations(), 0u) << "a cache of 8 pages never evicted";
    }
    held.clear();
  }
  if (custom()) {
    EXPECT_EQ(alloc_.live_blocks(), 0u);
    EXPECT_EQ(alloc_.errors(), 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(AllBackends, BackendTest,
                         ::testing::Values(Backend::mmap, Backend::pread_small,
                                           Backend::pread_large, Backend::memory, Backend::loaded,
                                           Backend::custom_small, Backend::custom_large),
                         [](const auto& info) { return std::string(backend_name(info.param)); });

// A custom Storage that exposes its bytes through mapped() is read in place:
// no page memory is allocated.
class MappedMemoryStorage final : public MemoryStorage {
 public:
  using MemoryStorage::MemoryStorage;
  std::span<const std::byte> mapped() const override { return bytes(); }
};

TEST(StorageTest, CustomMappedStorageReadsInPlace) {
  const TableModel model = random_table("t", Enc::bytes, 1000, 12, 0, 300);
  auto bytes = build_one(model, 512);
  CountingAllocator alloc;
  {
    auto db = ReadOnlyDatabase::open_storage(std::make_unique<MappedMemoryStorage>(bytes),
                                             {.allocator = &alloc});
    ASSERT_TRUE(db) << describe(db.error());
    DiffChecker c(db->table("t").value(), model);
    c.check_every_get();
    c.check_cursor_walks();
    EXPECT_EQ(c.failures(), 0);
  }
  EXPECT_EQ(alloc.allocations(), 0u);
}

// The page cache's budget: a cache at least as large as the file reads each
// page once and keeps it; a small one stays near its budget once nothing is
// held (internal pages are pinned for the database's life and not counted).
TEST(StorageTest, CacheBudget) {
  TableModel model = random_table("t", Enc::bytes, 3000, 71, 0, 60);
  model.rows["overflow"] = big_value(5000, 1);
  const auto bytes = build_one(model, 512);
  for (bool large : {true, false}) {
    SCOPED_TRACE(large ? "cache larger than the file" : "cache of 8 pages");
    CountingAllocator alloc;
    {
      auto storage = std::make_unique<MemoryStorage>(bytes);
      const std::atomic<uint64_t>& reads = storage->reads;
      auto db = ReadOnlyDatabase::open_storage(
          std::move(storage),
          {.page_cache_bytes = large ? bytes.size() : 8 * 512, .allocator = &alloc});
      ASSERT_TRUE(db) << describe(db.error());
      auto t = db->table("t").value();
      DiffChecker c(t, model);
      c.check_cursor_walks();
      const uint64_t reads_after_first_walk = reads.load();
      EXPECT_GT(reads_after_first_walk, 0u);
      c.check_cursor_walks();
      c.check_every_get();
      EXPECT_EQ(c.failures(), 0);
      if (large) {
        EXPECT_EQ(reads.load(), reads_after_first_walk)
            << "a cache larger than the file re-read pages";
      } else {
        EXPECT_GT(reads.load(), reads_after_first_walk) << "a cache of 8 pages held the whole file";
        const uint64_t internal_bytes = t.info().internal_pages * 512;
        EXPECT_LE(alloc.live_bytes(), 8 * 512 + internal_bytes + 5016 + 2 * 512);
      }
      EXPECT_LE(alloc.live_bytes(), bytes.size());
    }
    EXPECT_GT(alloc.allocations(), 0u);
    EXPECT_EQ(alloc.live_blocks(), 0u);
    EXPECT_EQ(alloc.errors(), 0u);
  }
}

TEST(StorageTest, OpenStorageRejectsNull) {
  auto db = ReadOnlyDatabase::open_storage(nullptr);
  ASSERT_FALSE(db);
  EXPECT_EQ(db.code(), errc::invalid_argument);
}

TEST(StorageTest, OpenMissingFileFails) {
  TempDir dir;
  for (auto kind :
       {drydb::StorageKind::mmap, drydb::StorageKind::pread, drydb::StorageKind::memory}) {
    auto db = ReadOnlyDatabase::open(dir / "missing.drydb", {.storage = kind});
    ASSERT_FALSE(db);
    EXPECT_NE(db.error().message.find("missing.drydb"), std::string::npos) << db.error().message;
  }
}

// A FIFO (or a device) is refused at once, before any read: opening a FIFO waits for a writer
// unless told not to, and a test that hangs here fails by its timeout.
TEST(StorageTest, OpenRefusesAFifoWithoutWaiting) {
#if defined(_WIN32)
  GTEST_SKIP() << "POSIX only: Windows has no FIFO in its file system (mkfifo) and no /dev/null";
#else
  TempDir dir;
  const auto fifo = dir / "db.drydb";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (auto kind :
       {drydb::StorageKind::mmap, drydb::StorageKind::pread, drydb::StorageKind::memory}) {
    auto db = ReadOnlyDatabase::open(fifo, {.storage = kind});
    ASSERT_FALSE(db);
    EXPECT_EQ(db.code(), errc::invalid_argument);
    EXPECT_NE(db.error().message.find("not a regular file"), std::string::npos)
        << db.error().message;
  }
  auto null = ReadOnlyDatabase::open("/dev/null");
  ASSERT_FALSE(null);
  EXPECT_EQ(null.code(), errc::invalid_argument);
#endif
}

}  // namespace
}  // namespace drydb_test
