// Pages of text keys that store their keys after a shared prefix (format 2.2, flag
// kPrefixedKeys): every query answers as the model does, on files built with and without the
// layout (BuildOptions::prefixed_keys), for keys that share long prefixes (URL-like, names, over
// 224 bytes), keys that are prefixes of one another, keys with zero bytes, keys whose part past
// the shared prefix is shorter or longer than its 8-byte head, keys too long to prefix beside
// short ones, and the index trees of text indexes; the file announces the layout (required
// feature bit 2) only when a page uses it; a key view of a cursor lives until it moves, a Row's
// key as long as the Row, moved or assigned over; structural damage to a prefixed page behind a
// valid checksum is reported, never a wrong answer or a crash.
#include <gtest/gtest.h>

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "drydb/detail/coding.h"
#include "drydb/detail/format.h"
#include "support/checksums.h"
#include "support/suite.h"

namespace {

namespace fmt = drydb::detail;
using drydb::KeyEncoding;
using drydb::ReadOnlyDatabase;
using drydb_test::DbModel;
using drydb_test::make_index;
using drydb_test::make_table;
using drydb_test::Rng;
using drydb_test::TableModel;

std::string hex16(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

// URL-like keys: one long shared prefix, then 16 hex digits of a random id. A text index on a
// part of the value (shared words, many rows per key) and a unique one on the id reversed.
TableModel urls(Rng& rng, int rows) {
  TableModel t = make_table("urls", KeyEncoding::bytes());
  for (int i = 0; i < rows; ++i)
    t.rows.emplace("https://example.com/items/" + hex16(rng.next()),
                   "category/" + std::to_string(rng.below(40)) + "/" + std::to_string(i));
  t.indexes.push_back(
      make_index("category", false, KeyEncoding::bytes(),
                 [](const std::string&, const std::string& v) -> std::optional<std::string> {
                   return v.substr(0, v.rfind('/'));
                 }));
  t.indexes.push_back(
      make_index("reversed", true, KeyEncoding::bytes(),
                 [](const std::string& k, const std::string&) -> std::optional<std::string> {
                   return std::string(k.rbegin(), k.rend());
                 }));
  return t;
}

// Names of shared words, as in a catalogue of characters.
TableModel names(Rng& rng, int rows) {
  static const char* const kWords[] = {"LATIN", "CAPITAL", "SMALL", "LETTER", "WITH",
                                       "ACUTE", "GRAVE",   "DOT",   "BELOW",  "ABOVE",
                                       "A",     "B",       "SIGN"};
  TableModel t = make_table("names", KeyEncoding::bytes());
  while (static_cast<int>(t.rows.size()) < rows) {
    std::string name = kWords[rng.below(3)];
    for (uint64_t w = 0, n = 1 + rng.below(6); w < n; ++w)
      name += std::string(" ") + kWords[rng.below(std::size(kWords))];
    t.rows.emplace(name, std::string(rng.between(0, 20), 'v'));
  }
  return t;
}

// The edge cases of a key's part past its page's shared prefix: every string of 0..5 bytes
// over {0x00, 'a', 0xff} after a few stems (so keys are prefixes of one another, differ only in
// trailing zero bytes, and end inside or past the 8-byte head), and 9- to 12-byte tails.
TableModel edges() {
  TableModel t = make_table("edges", KeyEncoding::bytes());
  const char alphabet[] = {'\0', 'a', '\xff'};
  for (const std::string& stem :
       std::vector<std::string>{"", "s", "stem/", std::string("st\0m/", 5)}) {
    std::vector<std::string> level = {""};
    for (int len = 0; len <= 5; ++len) {
      std::vector<std::string> next;
      for (const auto& s : level) {
        t.rows.emplace(stem + s, s);
        if (len < 5)
          for (char c : alphabet)
            next.push_back(s + c);
      }
      level = std::move(next);
    }
    for (int len = 9; len <= 12; ++len)
      for (char c : alphabet)
        t.rows.emplace(stem + std::string(len, c), "long");
  }
  return t;
}

// Keys just under and over the prefixed-key limit beside short ones: pages that hold a key
// over 256 bytes store their keys whole.
TableModel long_keys(Rng& rng, uint32_t page_size) {
  TableModel t = make_table("long_keys", KeyEncoding::bytes());
  const size_t max_key = fmt::max_key_length(page_size);
  for (int i = 0; i < 300; ++i) {
    std::string k = "long/" + hex16(static_cast<uint64_t>(i) * 7919);
    if (i >= 100 && i < 140) {  // rows 100..139, in key order
      const size_t len = std::min<size_t>(max_key, 250 + rng.below(20));
      k.resize(std::max(len, k.size()), static_cast<char>('a' + i % 26));
    }
    t.rows.emplace(k, std::to_string(i));
  }
  return t;
}

// Keys of 242 bytes sharing their first 226 (on 4 KiB pages): a page's shared prefix leaves
// less room after it in a rebuilt key's buffer than a walk's fixed 32-byte copy of a tail needs,
// so those tails are copied by their length.
TableModel deep_prefix(Rng& rng) {
  TableModel t = make_table("deep_prefix", KeyEncoding::bytes());
  for (int i = 0; i < 400; ++i)
    t.rows.emplace(std::string(226, 'p') + hex16(rng.next()), std::to_string(i));
  return t;
}

DbModel model(uint32_t page_size, uint64_t seed) {
  Rng rng(seed);
  DbModel m;
  m.page_size = page_size;
  m.tables = {urls(rng, page_size == 512 ? 600 : 3000), names(rng, 800), edges(),
              long_keys(rng, page_size)};
  if (fmt::max_key_length(page_size) >= 242) m.tables.push_back(deep_prefix(rng));
  TableModel ints = make_table("ints", KeyEncoding::int64());  // no prefixed pages
  for (int64_t i = 0; i < 200; ++i)
    ints.rows.emplace(drydb_test::int64_key(i * 5), std::to_string(i));
  m.tables.push_back(std::move(ints));
  m.finish();
  return m;
}

// The header's required features but the file identity, which every file of this builder has.
uint32_t required_features(std::span<const std::byte> file) {
  return fmt::load_u32(file.data() + fmt::header::kRequiredFeaturesOff) &
         ~fmt::kFeatureFileIdentity;
}

// Leaf and internal pages of an unfiltered file with kPrefixedKeys set.
struct PrefixedPages {
  std::vector<uint64_t> leaves, internals;
};
PrefixedPages prefixed_pages(std::span<const std::byte> file) {
  const uint32_t ps = fmt::load_u32(file.data() + fmt::header::kPageSizeOff);
  const uint64_t pages = fmt::load_u64(file.data() + fmt::header::kPageCountOff);
  PrefixedPages out;
  for (uint64_t p = 1; p < pages;) {
    const std::byte* b = file.data() + p * ps;
    const auto flags = static_cast<uint8_t>(b[fmt::page::kFlagsOff]);
    switch (static_cast<fmt::PageType>(b[fmt::page::kTypeOff])) {
      case fmt::PageType::leaf:
        if (flags & fmt::leaf::kPrefixedKeys) out.leaves.push_back(p);
        break;
      case fmt::PageType::internal:
        if (flags & fmt::internal::kPrefixedKeys) out.internals.push_back(p);
        break;
      case fmt::PageType::overflow:
        p += fmt::overflow::pages_for(fmt::load_u32(b + fmt::overflow::kLengthOff), ps);
        continue;
      default:
        break;
    }
    ++p;
  }
  return out;
}

std::vector<std::byte> build(const DbModel& m, bool prefixed) {
  drydb::BuildOptions o;
  o.prefixed_keys = prefixed;
  return drydb_test::built_bytes(drydb_test::build_database(m, o));
}

TEST(PrefixedKeys, AnswerAsTheModelWithAndWithoutTheLayout) {
  for (uint32_t page_size : {512u, 4096u}) {
    SCOPED_TRACE("page " + std::to_string(page_size));
    const DbModel m = model(page_size, page_size);
    const auto with = build(m, true);
    const auto without = build(m, false);
    ASSERT_FALSE(with.empty());
    ASSERT_FALSE(without.empty());
    EXPECT_EQ(required_features(with), fmt::kFeaturePrefixedKeys);
    EXPECT_EQ(required_features(without), 0u);
    const PrefixedPages pages = prefixed_pages(with);
    EXPECT_GT(pages.leaves.size(), 10u);
    EXPECT_GT(pages.internals.size(), 0u);
    EXPECT_TRUE(prefixed_pages(without).leaves.empty());
    EXPECT_TRUE(prefixed_pages(without).internals.empty());
    EXPECT_LT(with.size() * 10, without.size() * 9) << "the layout saves less than 10%";
    for (const auto* file : {&with, &without}) {
      auto mapped = ReadOnlyDatabase::open_memory(*file);
      ASSERT_TRUE(mapped) << mapped.error().to_string();
      EXPECT_TRUE(mapped->verify()) << mapped->verify().error().to_string();
      drydb_test::expect_database_correct(*mapped, m, 1000);
      auto cached = drydb_test::open_cached(*file, 3 * page_size);
      ASSERT_TRUE(cached) << cached.error().to_string();
      drydb_test::expect_database_correct(*cached, m, 1000, 5);
    }
  }
}

// The long keys' table: the pages holding a key over the limit store their keys whole, the
// others are prefixed.
TEST(PrefixedKeys, PagesWithKeysOverTheLimitStoreThemWhole) {
  DbModel m;
  m.page_size = 4096;
  Rng rng(3);
  m.tables = {long_keys(rng, m.page_size)};
  m.finish();
  const auto file = build(m, true);
  ASSERT_FALSE(file.empty());
  const uint32_t ps = m.page_size;
  size_t whole_with_long = 0, prefixed = 0;
  for (uint64_t p = 1; p < file.size() / ps; ++p) {
    const std::byte* b = file.data() + p * ps;
    if (static_cast<fmt::PageType>(b[fmt::page::kTypeOff]) != fmt::PageType::leaf) continue;
    fmt::LeafView leaf(b, fmt::KeyLayout{0});
    fmt::KeyBuffer buf;
    size_t longest = 0;
    for (uint32_t i = 0; i < leaf.size(); ++i)
      longest = std::max(longest, leaf.key(i, buf).size());
    if (leaf.prefixed()) {
      ++prefixed;
      EXPECT_LE(longest, fmt::kMaxPrefixedKeyLength) << "page " << p;
    } else if (longest > fmt::kMaxPrefixedKeyLength) {
      ++whole_with_long;
    }
  }
  EXPECT_GT(prefixed, 0u);
  EXPECT_GT(whole_with_long, 0u);
  auto db = ReadOnlyDatabase::open_memory(file);
  ASSERT_TRUE(db);
  drydb_test::expect_database_correct(*db, m, 300);
}

TEST(PrefixedKeys, KeyViewsLiveUntilTheCursorMovesAndRowsKeepTheirKeys) {
  const DbModel m = model(512, 9);
  const auto file = build(m, true);
  auto db = ReadOnlyDatabase::open_memory(file);
  ASSERT_TRUE(db);
  const TableModel& t = *m.find("urls");
  auto table = db->table("urls");
  ASSERT_TRUE(table);
  // Two cursors on different rows of one prefixed leaf: each key is its own.
  auto a = table->cursor(), b = table->cursor();
  ASSERT_TRUE(a.seek_rank(10));
  ASSERT_TRUE(b.seek_rank(11));
  EXPECT_EQ(drydb_test::to_string(a.key()), t.key(10));
  EXPECT_EQ(drydb_test::to_string(b.key()), t.key(11));
  // A copy rebuilds its keys in its own buffer.
  drydb::Cursor c = a;
  ASSERT_TRUE(c.next());
  EXPECT_EQ(drydb_test::to_string(a.key()), t.key(10));
  EXPECT_EQ(drydb_test::to_string(c.key()), t.key(11));

  // Rows from an index: the primary key is copied into the Row and survives moves.
  auto index = table->index("reversed");
  ASSERT_TRUE(index);
  const std::string pk = t.key(123);
  const std::string ik(pk.rbegin(), pk.rend());
  auto row = index->get(drydb::Key(ik));
  ASSERT_TRUE(row);
  ASSERT_TRUE(row->has_value());
  EXPECT_EQ(row->key_str(), pk);
  std::vector<drydb::Row> held;
  held.push_back(std::move(*row));
  EXPECT_FALSE(row->has_value());
  EXPECT_TRUE(row->key().empty());
  for (int i = 0; i < 20; ++i)
    held.emplace_back();  // reallocations move the first Row
  EXPECT_EQ(held[0].key_str(), pk);
  EXPECT_EQ(held[0].value_str(), *t.find(pk));
}

// Rows assigned over one another, whose keys come from prefixed pages (copied into the Row) and
// from pages of whole keys (views of the page, up to 960 bytes): each keeps its own key.
TEST(PrefixedKeys, RowsAssignedOverOneAnotherKeepTheirKeys) {
  DbModel m;
  m.page_size = 4096;
  Rng rng(5);
  TableModel t = long_keys(rng, m.page_size);
  t.indexes.push_back(make_index(
      "by_value", true, KeyEncoding::bytes(),
      [](const std::string&, const std::string& v) -> std::optional<std::string> { return v; }));
  m.tables = {t};
  m.finish();
  const TableModel& model = m.tables[0];
  const auto file = build(m, true);
  auto db = ReadOnlyDatabase::open_memory(file);
  ASSERT_TRUE(db);
  auto index = db->table("long_keys")->index("by_value");
  ASSERT_TRUE(index);
  auto row_of = [&](size_t i) {
    auto r = index->get(drydb::Key(*model.find(model.key(i))));
    EXPECT_TRUE(r && r->has_value());
    return std::move(*r);
  };
  // Row 0 is on a prefixed page, row 120 (over 256 bytes) on a page of whole keys.
  ASSERT_LE(model.key(0).size(), fmt::kMaxPrefixedKeyLength);
  ASSERT_GT(model.key(120).size(), fmt::kMaxPrefixedKeyLength);
  drydb::Row r = row_of(0);
  EXPECT_EQ(r.key_str(), model.key(0));
  r = row_of(120);
  EXPECT_EQ(r.key_str(), model.key(120));
  drydb::Row s = std::move(r);
  EXPECT_EQ(s.key_str(), model.key(120));
  s = row_of(1);
  r = std::move(s);
  EXPECT_EQ(r.key_str(), model.key(1));
  std::vector<drydb::Row> rows;
  for (size_t i : {0u, 120u, 1u, 130u, 299u})
    rows.push_back(row_of(i));
  rows.erase(rows.begin());  // move-assigns each later Row over the one before it
  EXPECT_EQ(rows[0].key_str(), model.key(120));
  EXPECT_EQ(rows[1].key_str(), model.key(1));
  EXPECT_EQ(rows[2].key_str(), model.key(130));
  EXPECT_EQ(rows[3].key_str(), model.key(299));
}

// Damage to a prefixed page behind a recomputed checksum: open, verify() or the query that
// reads the page reports corruption; no answer is wrong.
TEST(PrefixedKeys, DamagedPrefixedPagesAreReported) {
  const DbModel m = model(512, 11);
  const auto file = build(m, true);
  const PrefixedPages pages = prefixed_pages(file);
  const uint32_t ps = m.page_size;
  // Leaves with a shared prefix of at least a byte, and one of the edges table (whose rows
  // every query reads) with an entry whose part past it is shorter than its head (so the head
  // has padding).
  std::vector<uint64_t> leaves;
  uint64_t short_head_page = 0;
  uint32_t short_head_entry = 0;
  const TableModel& edges = *m.find("edges");
  for (uint64_t page : pages.leaves) {
    const std::byte* p = file.data() + page * ps;
    if (fmt::load_u16(p + fmt::leaf::kPrefixLenOff) > 0) leaves.push_back(page);
    const fmt::LeafView leaf(p, fmt::KeyLayout{0});
    fmt::KeyBuffer buf;
    if (short_head_page != 0 || edges.find(drydb_test::to_string(leaf.key(0, buf))) == nullptr)
      continue;
    for (uint32_t i = 0; i < leaf.size() && short_head_page == 0; ++i) {
      if (leaf.key(i, buf).size() - leaf.shared_prefix().size() < 8) {
        short_head_page = page;
        short_head_entry = i;
      }
    }
  }
  ASSERT_GE(leaves.size(), 2u);
  ASSERT_NE(short_head_page, 0u);
  ASSERT_FALSE(pages.internals.empty());
  struct Damage {
    const char* what;
    bool leaf;
    std::function<void(std::byte*)> apply;
  };
  auto u16 = [](std::byte* p, size_t off, uint16_t v) { fmt::store_u16(p + off, v); };
  const std::vector<Damage> damages = {
      {"shared prefix over the limit", true,
       [&](std::byte* p) { u16(p, fmt::leaf::kPrefixLenOff, 300); }},
      {"shared prefix length off by one", true,
       [&](std::byte* p) {
         u16(p, fmt::leaf::kPrefixLenOff, fmt::load_u16(p + fmt::leaf::kPrefixLenOff) + 1);
       }},
      {"a key's length past the prefix too large", true,
       [&](std::byte* p) {
         const uint32_t n = fmt::load_u16(p + fmt::page::kCountOff);
         const uint8_t flags = static_cast<uint8_t>(p[fmt::page::kFlagsOff]);
         const std::byte* offsets = p + fmt::leaf::offsets_off(n);
         std::byte* rec = p + fmt::leaf::records_off(n, flags) + fmt::load_u16(offsets + 2);
         u16(rec, 0, 250);
       }},
      {"the flag cleared", true,
       [&](std::byte* p) { p[fmt::page::kFlagsOff] &= ~std::byte{fmt::leaf::kPrefixedKeys}; }},
      {"separators' shared prefix length off by one", false,
       [&](std::byte* p) {
         u16(p, fmt::internal::kPrefixLenOff, fmt::load_u16(p + fmt::internal::kPrefixLenOff) - 1);
       }},
      {"an unknown internal flag", false,
       [&](std::byte* p) { p[fmt::page::kFlagsOff] = std::byte{3}; }},
      {"the internal flag cleared", false,
       [&](std::byte* p) { p[fmt::page::kFlagsOff] = std::byte{0}; }},
  };
  // Applies a damage to a copy of the file (checksums fixed) and expects it reported.
  auto expect_reported = [&](uint64_t page, const std::function<void(std::byte*)>& apply) {
    std::vector<std::byte> copy = file;
    apply(copy.data() + page * ps);
    drydb_test::fix_all_checksums(copy);
    auto db = ReadOnlyDatabase::open_memory(copy);
    if (!db) {
      EXPECT_EQ(db.code(), drydb::errc::corruption) << db.error().to_string();
      return;
    }
    auto verified = db->verify();
    ASSERT_FALSE(verified) << "verify() missed it";
    EXPECT_EQ(verified.code(), drydb::errc::corruption) << verified.error().to_string();
    drydb_test::Outcome out;
    drydb_test::check_database(*db, m, out);
    EXPECT_TRUE(out.wrong.empty()) << out.wrong.front();
    EXPECT_GT(out.errors, 0u);
  };
  for (const Damage& d : damages) {
    const std::vector<uint64_t>& of_kind = d.leaf ? leaves : pages.internals;
    for (uint64_t page : {of_kind.front(), of_kind.back()}) {
      SCOPED_TRACE(std::string(d.what) + ", page " + std::to_string(page));
      expect_reported(page, d.apply);
    }
  }
  SCOPED_TRACE("nonzero padding in a short head");
  expect_reported(short_head_page, [&](std::byte* p) {
    p[fmt::leaf::kHeaderSize + 8 * size_t{short_head_entry} + 7] ^= std::byte{1};
  });
}

}  // namespace
