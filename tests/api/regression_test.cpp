// One named test per fault of the C# DryDB (reference/drydb-behaviour.md §4.5 quirks Q1-Q3 and
// the §9 weaknesses W1-W28) that applies to drydb, so none of them comes back. Each test says
// what the original did wrong and asserts the right behaviour. Faults about features drydb does
// not have yet (secondary indexes: W4; filter chains: W10; the CLI: W26), about allocation per
// query (W15, measured by the benchmarks) or about the C# runtime only (W9, W21, W24, W27, W28)
// have no test here. W8 (checksums, lengths, versions) is corruption_test.cpp's subject. Two
// tests at the end guard faults drydb itself had (a fixed-width key of another length matching
// a stored key; a moved-from Value still viewing its page), fixed in d0ff493.
#include <gtest/gtest.h>

#include <cstdio>
#include <functional>
#include <thread>

#include "support/fault_util.h"

namespace drydb_test {
namespace {

using drydb::DatabaseBuilder;
using drydb::OpenOptions;
using drydb::RangeOptions;
using drydb::ReadOnlyDatabase;
using drydb::ReadOnlyTable;
using drydb::SortOrder;
namespace fmt = drydb::detail;

constexpr auto kAsc = SortOrder::ascending;
constexpr auto kDesc = SortOrder::descending;

// Opens the model's bytes both in place (open_memory) and through the page cache with a tiny
// budget (a non-mapped storage), and runs `fn(db)` on each.
template <class Fn>
void for_each_storage(std::span<const std::byte> bytes, Fn fn) {
  {
    SCOPED_TRACE("open_memory");
    auto db = ReadOnlyDatabase::open_memory(bytes);
    ASSERT_TRUE(db) << db.error().to_string();
    fn(*db);
  }
  {
    SCOPED_TRACE("page cache of 2 pages");
    auto db = open_cached(bytes, 1024);
    ASSERT_TRUE(db) << db.error().to_string();
    fn(*db);
  }
}

// The keys of a Range, in the order it yields them (as text).
std::vector<std::string> keys_of(drydb::result<drydb::Range> r) {
  std::vector<std::string> out;
  if (!r) {
    out.push_back("<error: " + r.error().to_string() + ">");
    return out;
  }
  for (auto e : *r)
    out.emplace_back(e.key_str());
  if (!r->status()) out.push_back("<error: " + r->status().error().to_string() + ">");
  return out;
}

using Keys = std::vector<std::string>;

// Entry count of page `page` of a file (a leaf or internal page).
uint16_t entries_on_page(std::span<const std::byte> f, uint32_t page_size, uint64_t page) {
  return fmt::load_u16(f.data() + page * page_size + fmt::page::kCountOff);
}
uint8_t type_of_page(std::span<const std::byte> f, uint32_t page_size, uint64_t page) {
  return static_cast<uint8_t>(f[page * page_size + fmt::page::kTypeOff]);
}

// A database of the one table `t` in 512-byte pages, built in memory, and its model.
struct OneTableFile {
  DbModel model;
  std::vector<std::byte> file;
  explicit OneTableFile(TableModel t) {
    model.page_size = 512;
    model.tables = {std::move(t)};
    model.finish();
    file = build_memory(model);
  }
};

// ---- §4.5: the worked tree -------------------------------------------------------------------

// The §4.5 tree: keys key01,02,03,05,07 | key08,09,10,11 in two leaves (the original used
// 128-byte pages; at our minimum of 512 the 70-byte values give the same shape: 34 + 87n
// bytes hold at most 5 entries per leaf).
TableModel example_tree() {
  TableModel t = make_table("t", drydb::KeyEncoding::bytes());
  for (const char* k :
       {"key01", "key02", "key03", "key05", "key07", "key08", "key09", "key10", "key11"})
    t.rows.emplace(k, std::string(70, k[4]));
  return t;
}

TEST(Regression, Section4_5_ExampleTreeShape) {
  const OneTableFile ex(example_tree());
  auto db = ReadOnlyDatabase::open_memory(ex.file);
  ASSERT_TRUE(db);
  auto info = db->table("t")->info();
  EXPECT_EQ(info.depth, 2u);
  EXPECT_EQ(info.leaf_pages, 2u);
  EXPECT_EQ(info.internal_pages, 1u);
  // The builder writes the leaves first (pages 1 and 2), then the root.
  ASSERT_EQ(type_of_page(ex.file, 512, 1), uint8_t(fmt::PageType::leaf));
  ASSERT_EQ(type_of_page(ex.file, 512, 2), uint8_t(fmt::PageType::leaf));
  EXPECT_EQ(entries_on_page(ex.file, 512, 1), 5u);  // key01 .. key07
  EXPECT_EQ(entries_on_page(ex.file, 512, 2), 4u);  // key08 .. key11
}

TEST(Regression, Section4_5_ExampleTreeQueries) {
  const OneTableFile ex(example_tree());
  for_each_storage(ex.file, [&](const ReadOnlyDatabase& db) {
    auto t = *db.table("t");
    // Q1: start in the gap after the first leaf's last key: the original returned 0 rows.
    EXPECT_EQ(keys_of(t.get_range("key075", "key11")), (Keys{"key08", "key09", "key10", "key11"}));
    EXPECT_EQ(t.count_range("key075", "key11").value_or(99), 4u);
    // Q1: exclusive start equal to the first leaf's last key: the original returned 0 rows.
    EXPECT_EQ(keys_of(t.get_range("key07", "key11", {.start_exclusive = true})),
              (Keys{"key08", "key09", "key10", "key11"}));
    EXPECT_EQ(t.count_range("key07", "key11", {.start_exclusive = true}).value_or(99), 4u);
    // Q2: descending with the end at a leaf's last key: the original started from key11.
    EXPECT_EQ(keys_of(t.get_range("key03", "key07", {.order = kDesc})),
              (Keys{"key07", "key05", "key03"}));
    // Q2: descending with the end in the gap, and exclusive at the next leaf's first key.
    EXPECT_EQ(keys_of(t.get_range("key03", "key075", {.order = kDesc})),
              (Keys{"key07", "key05", "key03"}));
    EXPECT_EQ(keys_of(t.get_range("key03", "key08", {.end_exclusive = true, .order = kDesc})),
              (Keys{"key07", "key05", "key03"}));
    EXPECT_EQ(keys_of(t.get_range(drydb::unbounded, "key07", {.order = kDesc})),
              (Keys{"key07", "key05", "key03", "key02", "key01"}));
    // Across the boundary in both directions, and a prefix spanning both leaves.
    EXPECT_EQ(keys_of(t.get_range("key06", "key09")), (Keys{"key07", "key08", "key09"}));
    EXPECT_EQ(keys_of(t.get_range("key06", "key09", {.order = kDesc})),
              (Keys{"key09", "key08", "key07"}));
    EXPECT_EQ(keys_of(t.prefix("key0")),
              (Keys{"key01", "key02", "key03", "key05", "key07", "key08", "key09"}));
    EXPECT_EQ(keys_of(t.prefix("key1", kDesc)), (Keys{"key11", "key10"}));
    // A cursor seek into the gap lands on the next leaf's first row and steps back across.
    auto c = t.cursor();
    ASSERT_TRUE(c.seek("key075"));
    EXPECT_EQ(to_view(c.key()), "key08");
    ASSERT_TRUE(c.prev());
    EXPECT_EQ(to_view(c.key()), "key07");
    EXPECT_EQ(to_view(c.value()), std::string(70, '7'));
    EXPECT_FALSE(c.seek_exact("key075"));
    EXPECT_EQ(to_view(c.key()), "key08");
    Outcome out;
    check_table(t, ex.model.tables[0], out);
    expect_all_correct(out, 100);
  });
}

// ---- Q1 / Q2 / W1 / W2 over many leaf boundaries ---------------------------------------------

// Tables of many leaves with gaps between keys: int64 keys 0, 10, 20, ...; bytes keys
// "k00000", "k00010", ...; value lengths vary so leaf boundaries fall irregularly. The tests
// below try every key and every gap, so every leaf boundary is hit whatever the layout.
struct GapTables {
  DbModel model;
  std::vector<std::byte> file;
  static constexpr int kRows = 1500;
  GapTables() {
    model.page_size = 512;
    TableModel nums = make_table("nums", drydb::KeyEncoding::int64());
    TableModel text = make_table("text", drydb::KeyEncoding::bytes());
    for (int i = 0; i < kRows; ++i) {
      nums.rows.emplace(int64_key(int64_t{i} * 10), make_value(i, (i * 7) % 40));
      char buf[16];
      std::snprintf(buf, sizeof buf, "k%05d", i * 10);
      text.rows.emplace(buf, make_value(i, (i * 11) % 50));
    }
    model.tables = {nums, text};
    model.finish();
    file = build_memory(model);
  }
  // A key strictly between key i-1 and key i (i may be 0: below the first key).
  static std::string gap_before(const TableModel& t, size_t i) {
    if (t.is_int64()) return int64_key(int64_of(t.sorted[i].first) - 5);
    return i == 0 ? std::string("j") : t.sorted[i - 1].first + "5";
  }
  // A key strictly between key i and key i+1 (or above the last key).
  static std::string gap_after(const TableModel& t, size_t i) {
    if (t.is_int64()) return int64_key(int64_of(t.sorted[i].first) + 5);
    return t.sorted[i].first + "5";
  }
};

const GapTables& gap_tables() {
  static const GapTables g;
  return g;
}

// Runs `per_row(table, t, i, out)` for every row i of every gap table, through every storage, and
// expects every answer right, at least `min_correct_per_row` of them per row.
template <class PerRow>
void for_each_gap_row(uint64_t min_correct_per_row, PerRow per_row) {
  const auto& g = gap_tables();
  for_each_storage(g.file, [&](const ReadOnlyDatabase& db) {
    for (const auto& t : g.model.tables) {
      auto table = *db.table(t.name);
      Outcome out;
      for (size_t i = 0; i < t.size(); ++i)
        per_row(table, t, i, out);
      SCOPED_TRACE(t.name);
      expect_all_correct(out, min_correct_per_row * t.size());
    }
  });
}

TEST(Regression, GapTablesHaveManyLeaves) {
  auto db = ReadOnlyDatabase::open_memory(gap_tables().file);
  ASSERT_TRUE(db);
  for (auto t : db->tables()) {
    EXPECT_GE(t.info().leaf_pages, 30u) << t.name();
    EXPECT_GE(t.info().depth, 3u) << t.name();
  }
}

// Q1 / W1: an ascending range or count whose start falls after the last key of the leaf the
// descent lands in (a start in the gap between two leaves) returned nothing in the original.
TEST(Regression, Q1_RangeStartInGapBetweenLeaves) {
  for_each_gap_row(5, [](const ReadOnlyTable& table, const TableModel& t, size_t i, Outcome& out) {
    const Bound gap = Bound::at(GapTables::gap_before(t, i));
    const Bound end = Bound::at(t.sorted[std::min(i + 3, t.size() - 1)].first);
    for (bool excl : {false, true}) {
      check_range(table, t, gap, end, {.start_exclusive = excl}, out);
      check_count(table, t, gap, end, {.start_exclusive = excl}, out);
      check_count(table, t, gap, Bound::none(), {.start_exclusive = excl}, out);
    }
    // A cursor seek into the gap.
    check_seek(table, t, gap.key, out);
  });
}

// Q1 / W1: an exclusive start equal to a leaf's last key (here: every key, so every leaf's last
// key among them) returned nothing in the original.
TEST(Regression, Q1_ExclusiveStartAtLeafLastKey) {
  for_each_gap_row(5, [](const ReadOnlyTable& table, const TableModel& t, size_t i, Outcome& out) {
    const Bound start = Bound::at(t.sorted[i].first);
    const Bound end = Bound::at(t.sorted[std::min(i + 4, t.size() - 1)].first);
    for (bool end_excl : {false, true}) {
      check_range(table, t, start, end, {.start_exclusive = true, .end_exclusive = end_excl}, out);
      check_count(table, t, start, end, {.start_exclusive = true, .end_exclusive = end_excl}, out);
    }
    check_count(table, t, start, Bound::none(), {.start_exclusive = true}, out);
  });
}

// Q2 / W2: a descending range whose end is a leaf's last key or in a gap started from the
// table's global maximum in the original.
TEST(Regression, Q2_DescendingEndAtLeafLastKeyOrInGap) {
  for_each_gap_row(7, [](const ReadOnlyTable& table, const TableModel& t, size_t i, Outcome& out) {
    const Bound start = Bound::at(t.sorted[i >= 3 ? i - 3 : 0].first);
    const Bound at = Bound::at(t.sorted[i].first);
    const Bound gap = Bound::at(GapTables::gap_after(t, i));
    for (bool start_excl : {false, true}) {
      const RangeOptions incl{.start_exclusive = start_excl, .order = kDesc};
      const RangeOptions excl{.start_exclusive = start_excl, .end_exclusive = true, .order = kDesc};
      check_range(table, t, start, at, incl, out);
      check_range(table, t, start, gap, incl, out);
      check_range(table, t, start, gap, excl, out);
      if (i + 1 < t.size())
        check_range(table, t, start, Bound::at(t.sorted[i + 1].first), excl, out);
    }
    // Unbounded start, descending: the first row must be key i (walk a few rows only).
    auto r = table.get_range(drydb::unbounded, key_of(t, t.sorted[i].first), {.order = kDesc});
    if (!r) return out.error(r.error());
    size_t n = 0;
    for (auto e : *r) {
      if (!same(e.key, t.sorted[i - n].first))
        out.mismatch(t.name + ": desc from key " + std::to_string(i));
      if (++n == 3) break;
    }
    if (r->size() != i + 1) out.mismatch(t.name + ": desc size");
    ++out.correct;
  });
}

// ---- Q3 / W3 ---------------------------------------------------------------------------------

// Q3 / W3: with an unbounded start, the original began at the first key's overflow page
// instead of its leaf, returning nothing when the first value was an overflow value.
TEST(Regression, Q3_UnboundedStartWhenFirstValueOverflows) {
  DbModel m;
  m.page_size = 512;
  TableModel first = make_table("first_overflows", drydb::KeyEncoding::bytes());
  TableModel all = make_table("all_overflow", drydb::KeyEncoding::int64());
  for (int i = 0; i < 200; ++i) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "r%04d", i);
    // The first and the last rows, and a few others, hold overflow values.
    size_t len = (i == 0 || i == 199 || i % 23 == 0) ? 600 + static_cast<size_t>(i) : 20;
    first.rows.emplace(buf, make_value(i, len));
    if (i < 40) all.rows.emplace(int64_key(i - 20), make_value(1000 + i, 129 + i * 30));
  }
  TableModel one = make_table("one_overflow", drydb::KeyEncoding::bytes());
  one.rows.emplace("only", make_value(5, 5000));
  m.tables = {first, all, one};
  m.finish();
  auto file = build_memory(m);
  for_each_storage(file, [&](const ReadOnlyDatabase& db) {
    for (const auto& t : m.tables) {
      auto table = *db.table(t.name);
      Outcome out;
      const size_t n = t.size();
      for (auto order : {kAsc, kDesc}) {
        check_range(table, t, Bound::none(), Bound::none(), {.order = order}, out);
        check_range(table, t, Bound::none(), Bound::at(t.sorted[n / 2].first), {.order = order},
                    out);
        check_range(table, t, Bound::none(), Bound::at(t.sorted[0].first), {.order = order}, out);
        check_range(table, t, Bound::at(t.sorted[n - 1].first), Bound::none(), {.order = order},
                    out);
      }
      check_count(table, t, Bound::none(), Bound::none(), {}, out);
      check_count(table, t, Bound::none(), Bound::at(t.sorted[n / 2].first), {}, out);
      check_count(table, t, Bound::none(), Bound::at(t.sorted[0].first), {}, out);
      if (!t.is_int64()) check_prefix(table, t, "", kAsc, out);
      check_walk(table, t, true, out);
      check_walk(table, t, false, out);
      auto c = table.cursor();
      ASSERT_TRUE(c.first());
      EXPECT_TRUE(same(c.value(), t.sorted[0].second)) << t.name;
      EXPECT_EQ(table.count_range(drydb::unbounded, drydb::unbounded).value_or(0), n);
      SCOPED_TRACE(t.name);
      expect_all_correct(out, t.is_int64() ? 13 : 14);
    }
    EXPECT_GT(db.table("first_overflows")->info().overflow_pages, 0u);
  });
}

// ---- W5 --------------------------------------------------------------------------------------

// W5: the original stored root -1 for an empty table, and every query then read at offset -1
// and threw. Every query on an empty table must answer "nothing".
TEST(Regression, W5_EmptyTableQueries) {
  DbModel m;
  m.page_size = 512;
  TableModel full = make_table("full", drydb::KeyEncoding::bytes());
  for (int i = 0; i < 50; ++i)
    full.rows.emplace("key" + std::to_string(i), make_value(i, 30));
  m.tables = {make_table("empty_bytes", drydb::KeyEncoding::bytes()), full,
              make_table("empty_int64", drydb::KeyEncoding::int64())};
  m.finish();
  auto file = build_memory(m);
  for_each_storage(file, [&](const ReadOnlyDatabase& db) {
    for (const char* name : {"empty_bytes", "empty_int64"}) {
      SCOPED_TRACE(name);
      auto t = *db.table(name);
      const bool ints = t.encoding() == drydb::KeyEncoding::int64();
      auto k = [&](int i) { return ints ? drydb::Key(int64_t{i}) : drydb::Key("k"); };
      EXPECT_EQ(t.count(), 0u);
      auto info = t.info();
      EXPECT_EQ(info.rows, 0u);
      EXPECT_EQ(info.depth, 0u);
      EXPECT_EQ(info.leaf_pages, 0u);
      auto v = t.get(k(1));
      ASSERT_TRUE(v) << v.error().to_string();
      EXPECT_FALSE(v->has_value());
      for (auto order : {kAsc, kDesc}) {
        for (bool se : {false, true})
          for (bool ee : {false, true}) {
            RangeOptions o{.start_exclusive = se, .end_exclusive = ee, .order = order};
            auto r = t.get_range(drydb::unbounded, drydb::unbounded, o);
            ASSERT_TRUE(r);
            EXPECT_EQ(r->size(), 0u);
            EXPECT_EQ(keys_of(std::move(r)), Keys{});
            EXPECT_EQ(keys_of(t.get_range(k(1), k(1), o)), Keys{});
            EXPECT_EQ(keys_of(t.get_range(k(1), drydb::unbounded, o)), Keys{});
            EXPECT_EQ(keys_of(t.get_range(drydb::unbounded, k(1), o)), Keys{});
            EXPECT_EQ(t.count_range(drydb::unbounded, drydb::unbounded, o).value_or(9), 0u);
            EXPECT_EQ(t.count_range(k(1), k(1), o).value_or(9), 0u);
          }
        if (!ints) {
          EXPECT_EQ(keys_of(t.prefix("", order)), Keys{});
          EXPECT_EQ(keys_of(t.prefix("k", order)), Keys{});
        }
      }
      auto c = t.cursor();
      EXPECT_FALSE(c.first());
      EXPECT_FALSE(c.last());
      EXPECT_FALSE(c.seek(k(1)));
      EXPECT_FALSE(c.seek_exact(k(1)));
      EXPECT_FALSE(c.seek_rank(0));
      EXPECT_FALSE(c.next());
      EXPECT_FALSE(c.prev());
      EXPECT_FALSE(c.valid());
      EXPECT_TRUE(c.status());
      EXPECT_EQ(count_rows(t.cursor()), 0u);
      // A start after the end is still an error on an empty table.
      if (!ints) {
        EXPECT_EQ(t.get_range("b", "a").code(), drydb::errc::invalid_argument);
      }
    }
    expect_database_correct(db, m, 100);
  });
  // A file with nothing but one empty table.
  DbModel only;
  only.tables = {make_table("nothing", drydb::KeyEncoding::bytes())};
  only.finish();
  auto bytes = build_memory(only);
  for_each_storage(bytes,
                   [&](const ReadOnlyDatabase& db) { expect_database_correct(db, only, 10); });
}

// ---- W6 --------------------------------------------------------------------------------------

// W6: the original stored value lengths in 16 bits with 0xFFFF as the overflow sentinel:
// values of exactly 65,535 bytes were forced to overflow and longer values that fit a page
// got a truncated length. Values of every size around those limits (and around our own
// inline limit, page_size/4) must round-trip, at page sizes 512, 4096 and 65536.
TEST(Regression, W6_ValuesOf65535BytesAndMore) {
  const size_t sizes[] = {0,     1,     127,   128,   129,   1023,  1024,   1025,  16383,
                          16384, 16385, 65534, 65535, 65536, 65537, 131071, 200000};
  for (uint32_t page_size : {512u, 4096u, 65536u}) {
    SCOPED_TRACE("page size " + std::to_string(page_size));
    DbModel m;
    m.page_size = page_size;
    TableModel text = make_table("text", drydb::KeyEncoding::bytes());
    TableModel nums = make_table("nums", drydb::KeyEncoding::int64());
    for (size_t i = 0; i < std::size(sizes); ++i) {
      char buf[16];
      std::snprintf(buf, sizeof buf, "v%02zu", i);
      text.rows.emplace(buf, make_value(i, sizes[i]));
      nums.rows.emplace(int64_key(static_cast<int64_t>(sizes[i])), make_value(100 + i, sizes[i]));
    }
    m.tables = {text, nums};
    m.finish();
    auto file = build_memory(m);
    for_each_storage(file, [&](const ReadOnlyDatabase& db) {
      expect_database_correct(db, m, 100);
      // Exactly the values over the inline limit went to overflow pages.
      uint64_t over = 0;
      for (size_t s : sizes)
        if (s > page_size / 4) over += fmt::overflow::pages_for(s, page_size);
      EXPECT_EQ(db.table("text")->info().overflow_pages, over);
      EXPECT_EQ(db.table("nums")->info().overflow_pages, over);
    });
  }
}

// W6 at 64 KiB pages: leaves full of the largest inline values (16,384 bytes; an int64 table
// whose leaves use the uniform-length form, whose 16-bit length must hold it) and a bytes table
// whose record offsets approach 65,535.
TEST(Regression, W6_FullLeavesOfMaxInlineValuesAt64KPages) {
  DbModel m;
  m.page_size = 65536;
  TableModel uniform = make_table("uniform", drydb::KeyEncoding::int64());
  TableModel text = make_table("text", drydb::KeyEncoding::bytes());
  TableModel small = make_table("small", drydb::KeyEncoding::bytes());
  for (int i = 0; i < 24; ++i) {
    uniform.rows.emplace(int64_key(i), make_value(i, 16384));
    text.rows.emplace("t" + std::to_string(100 + i), make_value(50 + i, 16384 - (i % 3) * 1000));
  }
  // Many tiny rows: thousands of entries and offsets in one 64 KiB leaf.
  for (int i = 0; i < 12000; ++i)
    small.rows.emplace(std::to_string(1000000 + i), make_value(i, i % 5));
  // Keys of the maximum length (16,320 bytes at 64 KiB) with maximum inline values.
  TableModel big_keys = make_table("big_keys", drydb::KeyEncoding::bytes());
  for (int i = 0; i < 6; ++i)
    big_keys.rows.emplace(std::string(16319, 'K') + char('a' + i), make_value(i, 16384));
  m.tables = {uniform, text, small, big_keys};
  m.finish();
  auto file = build_memory(m);
  for_each_storage(file, [&](const ReadOnlyDatabase& db) {
    expect_database_correct(db, m, 100);
    EXPECT_EQ(db.table("uniform")->info().overflow_pages, 0u);
    EXPECT_EQ(db.table("text")->info().overflow_pages, 0u);
    EXPECT_EQ(db.table("big_keys")->info().overflow_pages, 0u);
    EXPECT_EQ(db.table("big_keys")->info().max_key_length, 16320u);
  });
}

// ---- W7 --------------------------------------------------------------------------------------

// W7: the original never checked that a key fits a page and overran the node buffer. A key
// over max_key_length (page_size/4 - 64) is a returned error naming the table and key; a key
// of exactly the limit works, also when many of them share long prefixes (long separators).
TEST(Regression, W7_KeyTooLongIsAReturnedError) {
  for (uint32_t page_size : {512u, 4096u, 65536u}) {
    SCOPED_TRACE("page size " + std::to_string(page_size));
    const size_t limit = page_size / 4 - 64;
    {
      DatabaseBuilder b({.page_size = page_size});
      auto& t = b.create_table("things");
      t.append("fine", "1");
      t.append(std::string(limit + 1, 'x'), "2");
      EXPECT_EQ(t.status().code(), drydb::errc::key_too_long);
      t.append("later", "3");  // ignored after the sticky error
      auto bytes = b.build_to_memory();
      ASSERT_FALSE(bytes);
      EXPECT_EQ(bytes.code(), drydb::errc::key_too_long);
      EXPECT_NE(bytes.error().message.find("things"), std::string::npos) << bytes.error().message;
      EXPECT_NE(bytes.error().message.find("xxxx"), std::string::npos) << bytes.error().message;
    }
    {
      DatabaseBuilder b({.page_size = page_size});
      b.create_table("t").append(std::string(1 << 20, 'y'), "huge key");
      EXPECT_EQ(b.build_to_memory().code(), drydb::errc::key_too_long);
    }
    // Keys of exactly the limit, sharing all but their last bytes, with the largest inline
    // values: leaves of two entries and internal pages of long separators.
    DbModel m;
    m.page_size = page_size;
    TableModel t = make_table("max_keys", drydb::KeyEncoding::bytes());
    const int rows = page_size == 65536 ? 40 : 300;
    for (int i = 0; i < rows; ++i) {
      char tail[16];
      std::snprintf(tail, sizeof tail, "%04d", i);
      t.rows.emplace(std::string(limit - 4, 'p') + tail, make_value(i, page_size / 4));
    }
    m.tables = {t};
    m.finish();
    auto file = build_memory(m);
    for_each_storage(file, [&](const ReadOnlyDatabase& db) {
      auto table = *db.table("max_keys");
      EXPECT_EQ(table.info().max_key_length, limit);
      if (page_size == 512) {
        EXPECT_GE(table.info().depth, 3u);
      }
      Outcome out;
      check_table(table, m.tables[0], out);
      // Query keys longer than any stored key are fine to ask for: absent, not an error.
      check_get(table, m.tables[0], std::string(limit + 1, 'p'), out);
      check_get(table, m.tables[0], std::string(100000, 'p'), out);
      check_count(table, m.tables[0], Bound::at(std::string(100000, 'p')), Bound::none(), {}, out);
      check_prefix(table, m.tables[0], std::string(100000, 'p'), kAsc, out);
      check_prefix(table, m.tables[0], std::string(limit - 4, 'p'), kDesc, out);
      expect_all_correct(out, 100);
    });
  }
}

// The wrong kind of key is a clear error, at build and at query time.
TEST(Regression, W7_WrongKeyKindIsAnError) {
  DatabaseBuilder b({.page_size = 512});
  b.create_table("ints", drydb::KeyEncoding::int64()).append("text", "v");
  auto bytes = b.build_to_memory();
  ASSERT_FALSE(bytes);
  EXPECT_EQ(bytes.code(), drydb::errc::wrong_key_type);

  DatabaseBuilder b2({.page_size = 512});
  b2.create_table("ints", drydb::KeyEncoding::int64()).append(int64_t{1}, "v");
  b2.create_table("text").append("a", "v");
  auto file = b2.build_to_memory();
  ASSERT_TRUE(file);
  auto db = ReadOnlyDatabase::open_memory(*file);
  ASSERT_TRUE(db);
  auto ints = *db->table("ints");
  auto text = *db->table("text");
  EXPECT_EQ(ints.get("1").code(), drydb::errc::wrong_key_type);
  EXPECT_EQ(text.get(int64_t{1}).code(), drydb::errc::wrong_key_type);
  EXPECT_EQ(ints.get_range("a", drydb::unbounded).code(), drydb::errc::wrong_key_type);
  EXPECT_EQ(ints.count_range(drydb::unbounded, "z").code(), drydb::errc::wrong_key_type);
  EXPECT_EQ(ints.prefix("1").code(), drydb::errc::wrong_key_type);
  auto c = ints.cursor();
  EXPECT_FALSE(c.seek("1"));
  EXPECT_EQ(c.status().code(), drydb::errc::wrong_key_type);
}

// ---- W14 -------------------------------------------------------------------------------------

// 20000 rows of even int64 keys from -20000.
TableModel big_table() {
  TableModel t = make_table("big", drydb::KeyEncoding::int64());
  for (int64_t i = 0; i < 20000; ++i)
    t.rows.emplace(int64_key(i * 2 - 20000), make_value(static_cast<uint64_t>(i), 8));
  return t;
}

// W14: the original counted by walking every row (O(rows)) and leaked a page reference per
// cache miss. Counts come from subtree counts: exact on every range, and a count touches only
// the two leaves at its ends, whatever the range's size.
TEST(Regression, W14_CountRangeIsExactOnManyRanges) {
  const OneTableFile big(big_table());
  const TableModel& t = big.model.tables[0];
  for_each_storage(big.file, [&](const ReadOnlyDatabase& db) {
    auto table = *db.table("big");
    EXPECT_GE(table.info().depth, 4u);
    EXPECT_EQ(table.count(), 20000u);
    EXPECT_EQ(table.count_range(drydb::unbounded, drydb::unbounded).value_or(0), 20000u);
    EXPECT_EQ(table.count_range(int64_t{-20000}, int64_t{19998}).value_or(0), 20000u);
    EXPECT_EQ(table.count_range(INT64_MIN, INT64_MAX).value_or(0), 20000u);
    Outcome out;
    Rng r(14);
    for (int q = 0; q < 4000; ++q) {
      auto bound = [&] {
        if (r.chance(10)) return Bound::none();
        return Bound::at(int64_key(static_cast<int64_t>(r.below(44000)) - 22000));
      };
      Bound s = bound(), e = bound();
      if (s.bounded && e.bounded && s.key > e.key) std::swap(s, e);
      check_count(table, t, s, e, {.start_exclusive = r.chance(2), .end_exclusive = r.chance(2)},
                  out);
    }
    expect_all_correct(out, 4000);
  });
}

TEST(Regression, W14_CountReadsOnlyTheEndLeaves) {
  const OneTableFile big(big_table());
  CountingAllocator alloc;
  auto storage = std::make_unique<MemoryStorage>(big.file);
  MemoryStorage* raw = storage.get();
  {
    auto db = ReadOnlyDatabase::open_storage(std::move(storage),
                                             {.page_cache_bytes = 0, .allocator = &alloc});
    ASSERT_TRUE(db);
    auto table = *db->table("big");
    const auto info = table.info();
    // Load the internal pages (pinned for the database's life) with one walk.
    ASSERT_EQ(count_rows(table.cursor()), 20000u);
    const uint64_t walk_reads = raw->reads.load();
    EXPECT_GE(walk_reads, info.leaf_pages);
    // Now every count reads at most the two leaves holding its ends.
    for (int64_t span : {int64_t{10}, int64_t{1000}, int64_t{39000}}) {
      raw->reads = 0;
      auto c = table.count_range(int64_t{-19500}, int64_t{-19500} + span);
      ASSERT_TRUE(c);
      EXPECT_EQ(*c, static_cast<uint64_t>(span / 2 + 1));
      EXPECT_LE(raw->reads.load(), 2u) << "count over " << span / 2 << " rows";
    }
    // And releases what it reads: after thousands of counts with a zero budget, only the
    // pinned internal pages and the last loaded leaf or two remain.
    Rng r(5);
    for (int q = 0; q < 3000; ++q) {
      int64_t a = static_cast<int64_t>(r.below(40000)) - 20000;
      (void)table.count_range(a, a + static_cast<int64_t>(r.below(30000)));
    }
    EXPECT_LE(alloc.live_bytes(), (info.internal_pages + 2) * 512)
        << "count_range keeps pages referenced";
  }
  EXPECT_EQ(alloc.live_blocks(), 0u);
  EXPECT_EQ(alloc.bad_frees(), 0u);
}

// ---- W16 -------------------------------------------------------------------------------------

// W16: the original's eviction could spin when its queues were empty while over capacity. A
// cache with a zero budget still answers everything, and many handles held at once (keeping
// the cache over budget) neither hang nor lose their pages.
TEST(Regression, W16_ZeroBudgetCacheStillAnswers) {
  const auto& g = gap_tables();
  with_counted_cache(g.file, 0, [&](const ReadOnlyDatabase& db, CountingAllocator&) {
    expect_database_correct(db, g.model, 1000, 3);
    const TableModel& t = g.model.tables[1];
    auto table = *db.table(t.name);
    std::vector<std::pair<drydb::Value, size_t>> held;
    for (size_t i = 0; i < t.size(); i += 7) {
      auto v = table.get(key_of(t, t.sorted[i].first));
      ASSERT_TRUE(v && v->has_value());
      held.emplace_back(std::move(*v), i);
    }
    for (const auto& [v, i] : held)
      EXPECT_TRUE(same(v.bytes(), t.sorted[i].second)) << i;
  });
}

// ---- W17 -------------------------------------------------------------------------------------

// W17: the original's value results double-released when copied and disposed twice, range
// results went back to a pool twice, and iterator values died when the page changed. Here:
// a moved-from Value releases nothing, a Range can be iterated twice, a Cursor's views stay
// valid until it moves and a copied Cursor holds its own page. A CountingAllocator sees every
// page buffer: a double release would free a page early (caught as a changed view, or by ASan)
// or leak it (caught at the end).
TEST(Regression, W17_ValueHandlesReleaseOnce) {
  const auto& g = gap_tables();
  const TableModel& t = g.model.tables[1];
  with_counted_cache(g.file, 1024, [&](const ReadOnlyDatabase& db, CountingAllocator&) {
    auto table = *db.table(t.name);
    auto churn = [&](uint64_t seed) {
      Rng r(seed);
      for (int k = 0; k < 50; ++k)
        (void)table.get(key_of(t, t.sorted[r.below(t.size())].first));
    };
    auto get = [&](size_t i) {
      auto v = table.get(key_of(t, t.sorted[i].first));
      EXPECT_TRUE(v && v->has_value());
      return std::move(*v);
    };
    for (int round = 0; round < 20; ++round) {
      const size_t a = static_cast<size_t>(round) * 61 % t.size();
      const size_t b = (a + 700) % t.size();
      drydb::Value v1 = get(a);
      drydb::Value v2 = std::move(v1);  // v1 now holds no page
      {
        drydb::Value v3 = get(b);
        v3 = std::move(v2);  // releases b's page, takes a's
        v2 = get(b);
        drydb::Value& self = v2;
        v2 = std::move(self);  // self-move keeps the page
        churn(static_cast<uint64_t>(round));
        EXPECT_TRUE(same(v3.bytes(), t.sorted[a].second));
        EXPECT_TRUE(same(v2.bytes(), t.sorted[b].second));
      }
      churn(static_cast<uint64_t>(round) + 100);
      EXPECT_TRUE(same(v2.bytes(), t.sorted[b].second));
    }
  });
}

// A moved-from Value no longer holds its page, so it must not still hand out a view into it
// (design.md §4: "nothing returns a bare view into a page the cache may evict"): like a
// moved-from Cursor (valid() is false), a moved-from Value is empty.
TEST(Regression, W17_MovedFromValueIsEmpty) {
  const auto& g = gap_tables();
  const TableModel& t = g.model.tables[1];
  auto db = open_cached(g.file, 1024);
  ASSERT_TRUE(db);
  auto table = *db->table(t.name);
  auto v1 = table.get(key_of(t, t.sorted[10].first));
  ASSERT_TRUE(v1 && v1->has_value());
  drydb::Value v2 = std::move(*v1);
  EXPECT_TRUE(same(v2.bytes(), t.sorted[10].second));
  EXPECT_FALSE(v1->has_value()) << "a moved-from Value still claims a value";
  EXPECT_TRUE(v1->bytes().empty()) << "a moved-from Value still views a page it does not hold";
  drydb::Value v3;
  v3 = std::move(v2);
  EXPECT_FALSE(v2.has_value());
  EXPECT_TRUE(v2.bytes().empty());
  EXPECT_TRUE(same(v3.bytes(), t.sorted[10].second));
  // The Cursor counterpart.
  auto c = table.cursor();
  ASSERT_TRUE(c.first());
  drydb::Cursor moved = std::move(c);
  EXPECT_FALSE(c.valid());
  EXPECT_TRUE(moved.valid());
}

// A database moved to another variable keeps serving the tables and handles taken before.
TEST(Regression, W17_HandlesSurviveAMoveOfTheDatabase) {
  const auto& g = gap_tables();
  const TableModel& t = g.model.tables[0];
  auto opened = ReadOnlyDatabase::open_memory(g.file);
  ASSERT_TRUE(opened);
  auto table = *opened->table(t.name);
  auto v = table.get(key_of(t, t.sorted[3].first));
  ReadOnlyDatabase db = std::move(*opened);
  ASSERT_TRUE(v && v->has_value());
  EXPECT_TRUE(same(v->bytes(), t.sorted[3].second));
  Outcome out;
  check_table(table, t, out, 1);
  expect_all_correct(out, 100);
}

TEST(Regression, W17_RangeIteratedTwiceAndCursorViews) {
  const auto& g = gap_tables();
  const TableModel& t = g.model.tables[1];
  with_counted_cache(g.file, 1024, [&](const ReadOnlyDatabase& db, CountingAllocator&) {
    auto table = *db.table(t.name);
    for (auto order : {kAsc, kDesc}) {
      auto r = table.get_range(key_of(t, t.sorted[100].first), key_of(t, t.sorted[400].first),
                               {.order = order});
      ASSERT_TRUE(r);
      Keys first_pass = keys_of(*r);
      ASSERT_EQ(first_pass.size(), 301u);
      // Twice more, the second time stopping half way and restarting.
      EXPECT_EQ(keys_of(*r), first_pass);
      int n = 0;
      for (auto e : *r) {
        (void)e;
        if (++n == 150) break;
      }
      Keys again;
      for (auto e : *r)
        again.emplace_back(e.key_str());
      EXPECT_EQ(again, first_pass);
      // A copy iterates on its own.
      drydb::Range copy = *r;
      EXPECT_EQ(keys_of(copy), first_pass);
      EXPECT_EQ(keys_of(*r), first_pass);
    }
    // Cursor views stay valid until the cursor moves, whatever other queries evict.
    Rng r(17);
    for (int round = 0; round < 30; ++round) {
      const size_t at = r.below(t.size());
      auto c = table.cursor();
      ASSERT_TRUE(c.seek(key_of(t, t.sorted[at].first)));
      auto key = c.key();
      auto value = c.value();
      drydb::Cursor copy = c;
      auto copy_key = copy.key();
      for (int k = 0; k < 30; ++k)
        (void)table.get(key_of(t, t.sorted[r.below(t.size())].first));
      EXPECT_TRUE(same(key, t.sorted[at].first));
      EXPECT_TRUE(same(value, t.sorted[at].second));
      c = drydb::Cursor();  // the copy keeps its own reference on the page
      for (int k = 0; k < 30; ++k)
        (void)table.get(key_of(t, t.sorted[r.below(t.size())].first));
      EXPECT_TRUE(same(copy_key, t.sorted[at].first));
      EXPECT_TRUE(same(copy.value(), t.sorted[at].second));
      // Moving on re-reads the next row correctly.
      if (at + 1 < t.size()) {
        ASSERT_TRUE(copy.next());
        EXPECT_TRUE(same(copy.key(), t.sorted[at + 1].first));
      }
    }
  });
}

// ---- W19 -------------------------------------------------------------------------------------

// W19: the original's BuildToFileAsync did not truncate, so building over a longer file left
// its tail behind. The file afterwards is exactly the new database.
TEST(Regression, W19_BuildToFileOverALongerFileTruncates) {
  TempDir dir;
  const auto path = dir / "db.drydb";
  {
    std::vector<std::byte> junk(1 << 20, std::byte{0xAB});
    ASSERT_TRUE(write_file(path, junk));
  }
  auto make = [] {
    DatabaseBuilder b({.page_size = 512});
    auto& t = b.create_table("t");
    for (int i = 0; i < 100; ++i)
      t.append("key" + std::to_string(i), "value" + std::to_string(i));
    return b;
  };
  DatabaseBuilder to_file = make();
  ASSERT_TRUE(to_file.build_to_file(path));
  DatabaseBuilder to_memory = make();
  auto expected = to_memory.build_to_memory();
  ASSERT_TRUE(expected);
  auto actual = read_file(path);
  EXPECT_EQ(actual.size(), expected->size());
  EXPECT_TRUE(actual == *expected) << "the file is not exactly the new database";
  auto db = ReadOnlyDatabase::open(path);
  ASSERT_TRUE(db) << db.error().to_string();
  EXPECT_EQ(db->table("t")->count(), 100u);
  // Only the database is left in the folder: no temp files.
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"db.drydb"});
}

// A failed build leaves the old file exactly as it was and no temp file beside it.
TEST(Regression, W19_FailedBuildLeavesTheTargetUntouched) {
  TempDir dir;
  const auto path = dir / "db.drydb";
  std::vector<std::byte> old(5000, std::byte{0x5A});
  ASSERT_TRUE(write_file(path, old));
  DatabaseBuilder b({.page_size = 512});
  auto& t = b.create_table("t");
  t.append("a", "1");
  t.append("b", "2");
  t.append("a", "3");  // a duplicate: found when the rows are sorted, during the build
  auto st = b.build_to_file(path);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.code(), drydb::errc::duplicate_key);
  EXPECT_NE(st.error().message.find("'t'"), std::string::npos) << st.error().message;
  EXPECT_TRUE(read_file(path) == old);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"db.drydb"});
}

// ---- W20 / W22 / W23 ---------------------------------------------------------------------------

// W22: the original accepted duplicate table names at build and failed at open or lookup.
TEST(Regression, W22_DuplicateTableNamesRejectedAtBuild) {
  TempDir dir;
  const auto path = dir / "db.drydb";
  DatabaseBuilder b({.page_size = 512});
  b.create_table("items").append("a", "1");
  b.create_table("other").append("b", "2");
  b.create_table("items").append("c", "3");
  EXPECT_EQ(b.status().code(), drydb::errc::duplicate_name);
  auto st = b.build_to_file(path);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.code(), drydb::errc::duplicate_name);
  EXPECT_NE(st.error().message.find("items"), std::string::npos) << st.error().message;
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_EQ(b.build_to_memory().code(), drydb::errc::duplicate_name);

  DatabaseBuilder b2({.page_size = 512});
  b2.create_table("x", drydb::KeyEncoding::bytes());
  b2.create_table("x", drydb::KeyEncoding::int64());  // another encoding: still a duplicate
  EXPECT_EQ(b2.build_to_memory().code(), drydb::errc::duplicate_name);
}

// W20: the original held appended rows by reference, so mutating the caller's buffer after
// append changed the file. append copies.
TEST(Regression, W20_AppendCopiesItsInput) {
  DatabaseBuilder b({.page_size = 512});
  auto& t = b.create_table("t");
  std::string key = "key-1", value = "value-1";
  t.append(key, value);
  key[4] = '2';
  value.assign(300, 'z');
  t.append(key, value);
  key[4] = '3';
  value = "overwritten";
  auto file = b.build_to_memory();
  ASSERT_TRUE(file);
  auto db = ReadOnlyDatabase::open_memory(*file);
  auto table = *db->table("t");
  EXPECT_EQ(table.get("key-1")->str(), "value-1");
  EXPECT_EQ(table.get("key-2")->str(), std::string(300, 'z'));
  EXPECT_FALSE(table.get("key-3")->has_value());
}

// W23: the original spilled small values near the end of a leaf to overflow pages. Only values
// over the inline limit (page_size/4) ever go to overflow pages.
TEST(Regression, W23_SmallValuesNeverSpill) {
  for (uint32_t page_size : {512u, 4096u}) {
    DbModel m;
    m.page_size = page_size;
    TableModel t = make_table("t", drydb::KeyEncoding::bytes());
    for (int i = 0; i < 2000; ++i)
      t.rows.emplace("k" + std::to_string(i), make_value(i, (i * 37) % (page_size / 4 + 1)));
    TableModel one_big = t;
    one_big.name = "one_big";
    one_big.rows.begin()->second = make_value(1, page_size / 4 + 1);
    m.tables = {t, one_big};
    m.finish();
    auto file = build_memory(m);
    auto db = ReadOnlyDatabase::open_memory(file);
    ASSERT_TRUE(db);
    EXPECT_EQ(db->table("t")->info().overflow_pages, 0u) << page_size;
    EXPECT_EQ(db->table("one_big")->info().overflow_pages, 1u) << page_size;
    expect_database_correct(*db, m, 100, 1);
  }
}

// ---- W11 / W12 / W13 / W18 / W25 ---------------------------------------------------------------

// Rewrites a file's catalog through `edit` and fixes the lengths and checksums that cover it.
std::vector<std::byte> with_catalog(std::vector<std::byte> f,
                                    const std::function<void(std::vector<std::byte>&)>& edit) {
  const uint64_t off = fmt::load_u64(f.data() + fmt::header::kPageCountOff) *
                       fmt::load_u32(f.data() + fmt::header::kPageSizeOff);
  std::vector<std::byte> cat(f.begin() + static_cast<long>(off), f.end());
  edit(cat);
  f.resize(off);
  f.insert(f.end(), cat.begin(), cat.end());
  fmt::store_u64(f.data() + fmt::header::kCatalogLengthOff, cat.size());
  fmt::store_u64(f.data() + fmt::header::kFileLengthOff, f.size());
  fix_catalog_checksum(f);
  return f;
}

// W11: the original registered filters and the ulid encoding in static constructors, so a file
// using them failed to open in a process that had not touched those types. drydb's built-in
// encodings are always known, and an unknown encoding or filter id is a clear error.
TEST(Regression, W11_UnknownEncodingOrFilterIsAClearError) {
  DatabaseBuilder b({.page_size = 512});
  b.create_table("u", drydb::KeyEncoding::ulid())
      .append(*drydb::Ulid::parse("01ARZ3NDEKTSV4RRFFQ69G5FAV"), "v");
  b.create_table("i", drydb::KeyEncoding::int64()).append(7, "seven");
  auto file = b.build_to_memory();
  ASSERT_TRUE(file);
  {
    auto db = ReadOnlyDatabase::open_memory(*file);
    ASSERT_TRUE(db) << db.error().to_string();
    EXPECT_EQ(db->table("u")->get(*drydb::Ulid::parse("01ARZ3NDEKTSV4RRFFQ69G5FAV"))->str(), "v");
  }
  auto renamed = with_catalog(*file, [](std::vector<std::byte>& cat) {
    std::string_view s(reinterpret_cast<const char*>(cat.data()), cat.size());
    size_t at = s.find("int64");
    ASSERT_NE(at, std::string_view::npos);
    cat[at + 4] = std::byte{'5'};  // "int65"
  });
  auto db = ReadOnlyDatabase::open_memory(renamed);
  ASSERT_FALSE(db);
  EXPECT_EQ(db.code(), drydb::errc::unknown_encoding) << db.error().to_string();
  EXPECT_NE(db.error().message.find("int65"), std::string::npos) << db.error().message;

  // Filters: the built-ins are found by id in any process, a custom one not
  // registered is named in the error, and one given to open() is used.
  class Rot13 final : public drydb::PageFilter {
   public:
    std::string_view id() const noexcept override { return "rot13-w11"; }
    size_t max_encoded_size(size_t n) const noexcept override { return n; }
    drydb::result<size_t> encode(std::span<const std::byte> in,
                                 std::span<std::byte> out) const override {
      for (size_t i = 0; i < in.size(); ++i)
        out[i] = std::byte{static_cast<uint8_t>(static_cast<uint8_t>(in[i]) + 13)};
      return in.size();
    }
    drydb::result<size_t> decode(std::span<const std::byte> in,
                                 std::span<std::byte> out) const override {
      if (in.size() > out.size()) return drydb::Error(drydb::errc::corruption, "too long");
      for (size_t i = 0; i < in.size(); ++i)
        out[i] = std::byte{static_cast<uint8_t>(static_cast<uint8_t>(in[i]) - 13)};
      return in.size();
    }
  };
  for (auto filter : {drydb::filters::zstd(), drydb::filters::lz4(),
                      std::shared_ptr<drydb::PageFilter>(std::make_shared<Rot13>())}) {
    DatabaseBuilder fb({.page_size = 512, .filters = {filter}});
    fb.create_table("i", drydb::KeyEncoding::int64()).append(7, "seven");
    auto bytes = fb.build_to_memory();
    ASSERT_TRUE(bytes) << bytes.error().to_string();
    db = ReadOnlyDatabase::open_memory(*bytes);
    if (filter->id() != "rot13-w11") {
      ASSERT_TRUE(db) << db.error().to_string();
      EXPECT_EQ(db->table("i")->get(7)->str(), "seven");
      continue;
    }
    ASSERT_FALSE(db);
    EXPECT_EQ(db.code(), drydb::errc::unknown_filter) << db.error().to_string();
    EXPECT_NE(db.error().message.find("rot13-w11"), std::string::npos) << db.error().message;
    drydb::OpenOptions options;
    options.filters.push_back(
        {"rot13-w11",
         [](std::span<const std::byte>) -> drydb::result<std::shared_ptr<const drydb::PageFilter>> {
           return std::shared_ptr<const drydb::PageFilter>(std::make_shared<Rot13>());
         }});
    db = ReadOnlyDatabase::open_memory(*bytes, options);
    ASSERT_TRUE(db) << db.error().to_string();
    EXPECT_EQ(db->table("i")->get(7)->str(), "seven");
  }
}

// W12: the original's int64 encoding could not parse text keys (the CLI's get/prefix failed).
TEST(Regression, W12_Int64KeysParseFromText) {
  const auto enc = drydb::KeyEncoding::int64();
  for (int64_t v : {int64_t{0}, int64_t{-1}, int64_t{42}, INT64_MIN, INT64_MAX}) {
    auto parsed = enc.parse(std::to_string(v));
    ASSERT_TRUE(parsed) << v;
    EXPECT_EQ(*parsed, int64_key(v));
    EXPECT_EQ(enc.format(as_bytes(*parsed)), std::to_string(v));
  }
  EXPECT_FALSE(enc.parse("forty-two"));
  EXPECT_FALSE(enc.parse("99999999999999999999"));
}

// W13: the original's ascii encoding was lossy ('?' for non-ASCII). Keys are bytes: NUL, high
// bytes and 0xFF round-trip and order by memcmp, also as prefixes at the 0xFF edge.
TEST(Regression, W13_BinaryKeysRoundTripInMemcmpOrder) {
  DbModel m;
  m.page_size = 512;
  TableModel t = make_table("bin", drydb::KeyEncoding::bytes());
  Rng r(13);
  for (int i = 0; i < 600; ++i) {
    std::string k(1 + r.below(12), '\0');
    for (auto& ch : k) {
      uint64_t x = r.below(6);
      ch = static_cast<char>(x == 0 ? 0x00 : x == 1 ? 0xFF : x == 2 ? 0x80 : r.below(256));
    }
    t.rows.emplace(k, make_value(i, r.below(40)));
  }
  t.rows.emplace(std::string("\xFF\xFF", 2), "ff-ff");
  t.rows.emplace(std::string("\xFF", 1), "ff");
  t.rows.emplace(std::string("\x00", 1), "nul");
  t.rows.emplace(std::string(), "empty key");
  m.tables = {t};
  m.finish();
  auto file = build_memory(m);
  for_each_storage(file, [&](const ReadOnlyDatabase& db) {
    auto table = *db.table("bin");
    Outcome out;
    check_table(table, m.tables[0], out);
    for (const char* p : {"\xFF", "\xFF\xFF", "\x80", "\x7F\xFF"})
      for (auto order : {kAsc, kDesc})
        check_prefix(table, m.tables[0], p, order, out);
    check_prefix(table, m.tables[0], std::string(1, '\0'), kAsc, out);
    expect_all_correct(out, 600);
  });
}

// The original treated an empty key span as "unbounded" (§4.5), so the empty key could never
// be a bound. In drydb the empty key is a key like any other; unbounded is drydb::unbounded.
TEST(Regression, EmptyKeyIsABoundNotUnbounded) {
  DatabaseBuilder b({.page_size = 512});
  auto& t = b.create_table("t");
  t.append("", "empty");
  t.append("a", "A");
  t.append("b", "B");
  auto file = b.build_to_memory();
  ASSERT_TRUE(file) << file.error().to_string();
  auto db = ReadOnlyDatabase::open_memory(*file);
  auto table = *db->table("t");
  EXPECT_EQ(table.get("")->str(), "empty");
  EXPECT_EQ(table.count_range("", "").value_or(9), 1u);
  EXPECT_EQ(table.count_range("", "", {.end_exclusive = true}).value_or(9), 0u);
  EXPECT_EQ(keys_of(table.get_range("", "a", {.end_exclusive = true})), (Keys{""}));
  EXPECT_EQ(keys_of(table.get_range("", "a", {.start_exclusive = true})), (Keys{"a"}));
  // "a" > "": a start after the end, not "a to unbounded".
  EXPECT_EQ(table.get_range("a", "").code(), drydb::errc::invalid_argument);
  EXPECT_EQ(table.count_range("a", "").code(), drydb::errc::invalid_argument);
  EXPECT_EQ(keys_of(table.get_range("a", drydb::unbounded)), (Keys{"a", "b"}));
}

// W18: the original's pread loader computed a wrong slice on short reads and did not check EOF.
// A storage that fails a read makes the query that needs it fail with the storage's error and
// the page named; nothing is cached from the failed read.
TEST(Regression, W18_FailedReadsAreErrorsNotGarbage) {
  const auto& g = gap_tables();
  const TableModel& t = g.model.tables[0];
  // For each page in turn, a fresh database whose storage fails reads of that page: the get
  // of the 500th key fails exactly when the page is on its path (root, inner pages, leaf),
  // with io_error naming the page; once reads work again the same database answers.
  const std::string& k = t.sorted[500].first;
  int failing = 0;
  for (uint64_t p = 1; p < g.file.size() / 512; ++p) {
    auto storage = std::make_unique<MemoryStorage>(g.file);
    MemoryStorage* raw = storage.get();
    auto db = ReadOnlyDatabase::open_storage(std::move(storage), {.page_cache_bytes = 0});
    ASSERT_TRUE(db);
    auto table = *db->table(t.name);
    raw->fail_page = p;
    auto v = table.get(key_of(t, k));
    if (!v) {
      EXPECT_EQ(v.code(), drydb::errc::io_error);
      EXPECT_NE(v.error().message.find("page " + std::to_string(p)), std::string::npos)
          << v.error().message;
      ++failing;
    } else {
      EXPECT_TRUE(v->has_value() && same(v->bytes(), t.sorted[500].second));
    }
    raw->fail_page = 0;
    auto again = table.get(key_of(t, k));
    ASSERT_TRUE(again) << again.error().to_string();
    EXPECT_TRUE(same(again->bytes(), t.sorted[500].second));
  }
  // One page per level of the tree is on the path.
  EXPECT_EQ(failing,
            static_cast<int>(ReadOnlyDatabase::open_memory(g.file)->table(t.name)->info().depth));
  // A storage shorter than its header says is found at open.
  auto short_db = ReadOnlyDatabase::open_storage(std::make_unique<MemoryStorage>(
      std::span<const std::byte>(g.file.data(), g.file.size() - 1)));
  EXPECT_EQ(short_db.code(), drydb::errc::truncated);
}

// W25: the original's Unity loader read exactly PageSize bytes, breaking overflow runs longer
// than a page. A custom (non-mapped) storage serves runs of many pages whole.
TEST(Regression, W25_CustomStorageReadsMultiPageOverflowRuns) {
  DbModel m;
  m.page_size = 512;
  TableModel t = make_table("blobs", drydb::KeyEncoding::bytes());
  for (int i = 0; i < 30; ++i)
    t.rows.emplace("blob" + std::to_string(i), make_value(i, 129 + static_cast<size_t>(i) * 997));
  m.tables = {t};
  m.finish();
  auto file = build_memory(m);
  with_counted_cache(file, 4096, [&](const ReadOnlyDatabase& db, CountingAllocator&) {
    expect_database_correct(db, m, 100);
  });
}

}  // namespace
}  // namespace drydb_test

namespace drydb_test {
namespace {

// Not a fault of the original but one of drydb's own (fixed in d0ff493): a table of a custom
// fixed-width encoding accepts query keys of any length (they are bytes), and a key of another
// length compared by its zero-padded 8-byte prefix alone matched a stored key ("aaa\0" found
// "aaa"; a 9-byte key found the 8-byte key it starts with). A key of another length must never
// match a stored key: get returns "absent" (or wrong_key_type), and ranges and counts follow
// the memcmp order of the bytes given.
TEST(Regression, FixedWidthKeyOfAnotherLengthNeverMatches) {
  for (uint32_t width : {3u, 8u, 12u}) {
    SCOPED_TRACE("width " + std::to_string(width));
    DbModel m;
    m.page_size = 512;
    TableModel t = make_table("codes", fixed_width_encoding(width));
    Rng r(width);
    for (int i = 0; i < 400; ++i) {
      std::string k(width, '\0');
      for (auto& ch : k)
        ch = static_cast<char>('a' + r.below(3));
      t.rows.emplace(k, make_value(i, 10));
    }
    m.tables = {t};
    m.finish();
    auto file = build_memory(m);
    for_each_storage(file, [&](const ReadOnlyDatabase& db) {
      auto table = *db.table("codes");
      const TableModel& mt = m.tables[0];
      Outcome out;
      check_table(table, mt, out);
      expect_all_correct(out, 100);
      // Keys one byte longer (a NUL or a letter appended) and one byte shorter than stored
      // keys, as gets, seeks, counts and range bounds.
      int wrong_gets = 0, wrong_counts = 0;
      std::string example;
      for (size_t i = 0; i < mt.size(); i += 5) {
        const std::string& stored = mt.sorted[i].first;
        for (const std::string& probe :
             {stored + '\0', stored + 'a', stored.substr(0, width - 1)}) {
          auto v = table.get(as_bytes(probe));
          if (v && v->has_value()) {
            ++wrong_gets;
            if (example.empty()) example = show(probe) + " matched stored key " + show(stored);
          }
          for (bool excl : {false, true}) {
            Outcome o;
            check_count(table, mt, Bound::at(probe), Bound::none(), {.start_exclusive = excl}, o);
            check_count(table, mt, Bound::none(), Bound::at(probe), {.end_exclusive = excl}, o);
            if (!o.wrong.empty()) ++wrong_counts;
          }
        }
      }
      EXPECT_EQ(wrong_gets, 0) << "a key of another length found a stored key's value, e.g. "
                               << example;
      EXPECT_EQ(wrong_counts, 0) << "counts with bounds of another length are off";
    });
  }
}

}  // namespace
}  // namespace drydb_test
