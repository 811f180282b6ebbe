// Fuzz targets "page" and "page_index": one page of a valid database replaced by fuzz input.
//
// "page" builds a fixed database once per process (page size 512, 69 pages; tables of bytes,
// int64, uuid_v7, ulid and custom fixed and variable keys, 300 rows at most; leaves, uniform
// leaves, internal pages at two levels, overflow runs of one and several pages, an empty table,
// a miss filter on the int64 table); "page_index" another (page size 512, 95 pages; two tables
// of 150 rows with unique and non-unique secondary indexes of bytes and int64 keys, whose trees
// have leaves and internal pages at two levels: long keys and values make the depth), so that
// replaced pages land in index trees, where a file that still verifies must tie every entry to
// one row. Input:
//   byte 0   which page to replace: page 1 + byte % (pages - 1) ... or, for the last choice,
//            the catalog
//   byte 1   bit 0: keep the input's checksum (else every checksum is recomputed, so the
//            structure checks, not the checksum, see the change); bit 1: read through a page
//            cache (else in place, as mmap does) of 16 pages, or of 2 pages with bit 2 too
//            (every page a query touches is then a load and a check of the page)
//   rest     the new bytes, written from the start of the chosen page (a short input changes
//            the start of the page only; a long one runs on into the following pages) or, for
//            the catalog, the whole new catalog (the header's lengths follow it)
// The result is opened and every query kind run on the tables whose pages (of the table's tree,
// its indexes' trees or its miss filter) the input changed, and every table for a new catalog
// (exercise_database, bounded by kPageLimits): a leaf, internal or overflow page decoded from
// the input must be refused or, if the whole file then verifies, answer consistently (index
// entries against the table's rows, counts against walks, gets against scans). An execution
// costs a copy of the base (36 or 48 KiB), its checksums, one verify() of the file, unchecked
// walks and sampled queries of a table of up to 300 rows and its indexes, and, when the file
// verifies, checked forward walks (every index entry must name a row); the query batteries
// against those walks (check_sampled, check_index_sampled) run for one input in four (one_in;
// for every committed input in fuzz_regression_test). A few hundred to a few thousand page
// reads (fuzz_regression_test's WorkPerInput bounds them with every check and two pages of
// cache). scripts/fuzz.sh caps inputs at two pages and two bytes.
#pragma once

#include "fuzz_support.h"

namespace drydb_fuzz {

// The page targets' bounds: kFuzzLimits with fewer extra probes and rows compared at the start
// of each range, as an input that changes a page of a tree gets the whole table of 150 to 300
// rows checked, with its indexes.
inline constexpr Limits kPageLimits{.walk_rows = kFuzzLimits.walk_rows,
                                    .range_rows = 4,
                                    .gets = kFuzzLimits.gets,
                                    .probes = 4,
                                    .pairs = kFuzzLimits.pairs};

struct PageBase {
  // One tree's pages: a table's primary tree with its miss filter ("t"), or one of its
  // secondary indexes ("t/ix"), as exercise_database's focus names them.
  struct Tree {
    std::string name;
    uint64_t first_page, end_page;
  };
  std::vector<std::byte> file;
  std::vector<Tree> trees;  // every tree's pages, in file order
  uint32_t page_size = 0;
  uint64_t page_count = 0;
  uint64_t catalog_offset = 0;
};

// Fills the file fields of a base from its built bytes.
inline PageBase page_base_of(drydb::result<std::vector<std::byte>> built, const char* target) {
  if (!built)
    abort_with(std::string(target) +
               " target: the base database does not build: " + built.error().message);
  PageBase p;
  p.file = std::move(*built);
  p.page_size = fmt::load_u32(p.file.data() + fmt::header::kPageSizeOff);
  p.page_count = fmt::load_u64(p.file.data() + fmt::header::kPageCountOff);
  p.catalog_offset = p.page_count * p.page_size;
  if (p.page_count > 256)
    abort_with(std::string(target) + " target: the base needs more than a byte per page");
  return p;
}

// Fills a base's trees from their page counts. A table's primary tree, then its secondary
// index trees, then its miss filter are contiguous, in table order (docs/format.md, "Page
// order"); the miss filter counts as the primary tree's.
inline PageBase with_trees(PageBase p, const char* target) {
  auto db = drydb::ReadOnlyDatabase::open_memory(p.file);
  if (!db) abort_with(std::string(target) + " target: the base database does not open");
  uint64_t first = 1;
  for (const auto& t : db->tables()) {
    const std::string table(t.name());
    const auto info = t.info();
    const uint64_t primary = info.leaf_pages + info.internal_pages + info.overflow_pages;
    p.trees.push_back({table, first, first + primary});
    first += primary;
    for (const auto& ix : t.indexes()) {
      auto st = drydb::tree_stats(*db, t.name(), ix.name());
      if (!st) abort_with(std::string(target) + " target: no stats of an index of the base");
      const uint64_t pages = st->leaf_pages + st->internal_pages + st->overflow_pages;
      p.trees.push_back({table + "/" + std::string(ix.name()), first, first + pages});
      first += pages;
    }
    p.trees.push_back({table, first, first + info.miss_filter_pages});
    first += info.miss_filter_pages;
  }
  if (first != p.page_count)
    abort_with(std::string(target) + " target: the base's trees do not cover its pages");
  return p;
}

// The "page" target's base. Page filters are not in it: filtered pages are reached by the
// open corpus (files with zstd and lz4 pages) and the build target.
inline const PageBase& page_base() {
  static const PageBase base = [] {
    register_encodings();
    drydb::DatabaseBuilder b({.page_size = 512});
    Rng rng{42};
    auto value = [&](size_t len) {
      std::string v(len, '\0');
      for (auto& c : v)
        c = static_cast<char>(rng.next());
      return v;
    };
    auto& bytes = b.create_table("b", drydb::KeyEncoding::bytes());
    // Values of 40 to 89 bytes, so that few rows fit a leaf: internal pages at two levels
    // from 120 rows.
    for (int i = 0; i < 120; ++i) {
      char k[40];
      std::snprintf(k, sizeof k, i % 7 == 0 ? "key/%05d/with-a-longer-tail" : "key/%05d", i * 3);
      size_t len = 40 + (static_cast<size_t>(i) * 7) % 50;
      if (i % 13 == 5) len = 200 + (static_cast<size_t>(i) * 37) % 1100;
      bytes.append(k, value(len));
    }
    auto& ints = b.create_table("i", drydb::KeyEncoding::int64());
    for (int64_t i = 0; i < 300; ++i)
      ints.append(i * 5 - 700, value(8));
    ints.add_miss_filter(10);
    auto& uuids = b.create_table("u", drydb::KeyEncoding::uuid_v7());
    for (int i = 0; i < 60; ++i) {
      drydb::Uuid u{};
      for (auto& x : u.bytes)
        x = static_cast<std::byte>(rng.next());
      uuids.append(u, value(5));
    }
    auto& f3 = b.create_table("c", encoding_number(4));
    for (int i = 0; i < 40; ++i) {
      const char k[3] = {char('A' + i / 26), char('a' + i % 26), char('0' + i % 10)};
      f3.append(std::string_view(k, 3), value(static_cast<size_t>(i) % 7));
    }
    auto& f12 = b.create_table("w", encoding_number(5));
    for (int i = 0; i < 30; ++i) {
      char k[13];
      std::snprintf(k, sizeof k, "wide-key%04d", i * 11);
      f12.append(std::string_view(k, 12), value(static_cast<size_t>(i) % 20));
    }
    auto& var = b.create_table("v", encoding_number(6));
    for (int i = 0; i < 30; ++i)
      var.append(std::string(static_cast<size_t>(i % 12), 'x') + char('a' + i), value(3));
    b.create_table("e", drydb::KeyEncoding::bytes());
    auto& one = b.create_table("o", drydb::KeyEncoding::ulid());
    drydb::Ulid u{};
    u.bytes[15] = std::byte{1};
    one.append(u, value(600));
    return with_trees(page_base_of(b.build_to_memory(), "page"), "page");
  }();
  return base;
}

// An int64 primary key's value, from its encoded bytes.
inline int64_t int64_of(std::span<const std::byte> key) {
  return drydb::ordered_to_int64(fmt::load_be64(key.data()));
}

// The "page_index" target's base: a table of text keys with a unique index of names and a
// non-unique one of categories, and a table of int64 keys with a unique index of the negated
// key and a non-unique one of the key mod 13.

inline const PageBase& page_index_base() {
  static const PageBase base = [] {
    drydb::DatabaseBuilder b({.page_size = 512});
    auto& items = b.create_table("p", drydb::KeyEncoding::bytes());
    // Long keys and index keys (40 bytes of name, 24 of category), so that few fit a page:
    // internal pages at two levels from 150 rows.
    for (int i = 0; i < 150; ++i) {
      char k[40], v[80];
      std::snprintf(k, sizeof k, "item/%05d/of-the-long-inventory", i * 7);
      std::snprintf(v, sizeof v, "name-%05d/%-30s|cat-%02d/%-17s", (i * 389) % 1000, "given-name",
                    i % 17, "grouped");
      items.append(std::string_view(k), std::string_view(v));
    }
    items.add_secondary_index(
        "by_name", true, drydb::KeyEncoding::bytes(),
        [](std::span<const std::byte>,
           std::span<const std::byte> v) -> std::optional<drydb::IndexKey> {
          return drydb::IndexKey(std::string_view(reinterpret_cast<const char*>(v.data()), 40));
        });
    items.add_secondary_index("by_cat", false, drydb::KeyEncoding::bytes(),
                              [](std::span<const std::byte>,
                                 std::span<const std::byte> v) -> std::optional<drydb::IndexKey> {
                                return drydb::IndexKey(std::string_view(
                                    reinterpret_cast<const char*>(v.data()) + 41, v.size() - 41));
                              });
    auto& numbers = b.create_table("n", drydb::KeyEncoding::int64());
    for (int64_t i = 0; i < 150; ++i)
      numbers.append(i * 3 - 500, std::string_view("12345678"));
    numbers.add_secondary_index("by_neg", true, drydb::KeyEncoding::int64(),
                                [](std::span<const std::byte> k,
                                   std::span<const std::byte>) -> std::optional<drydb::IndexKey> {
                                  return drydb::IndexKey(-int64_of(k));
                                });
    numbers.add_secondary_index("by_mod", false, drydb::KeyEncoding::int64(),
                                [](std::span<const std::byte> k,
                                   std::span<const std::byte>) -> std::optional<drydb::IndexKey> {
                                  return drydb::IndexKey(int64_of(k) % 13);
                                });
    return with_trees(page_base_of(b.build_to_memory(), "page_index"), "page_index");
  }();
  return base;
}

// The file for one input: the base with the chosen page (or the catalog) replaced.
// `cached` and `cache_bytes` get how to read it; `focus` the trees whose pages the input
// overwrote (every table for the catalog).
inline std::vector<std::byte> page_file(const PageBase& base, const uint8_t* data, size_t size,
                                        bool* cached, size_t* cache_bytes,
                                        std::vector<std::string>* focus) {
  Input in(data, size);
  const uint8_t which = in.u8();
  const uint8_t flags = in.u8();
  const std::string content = in.rest();
  *cached = (flags & 2) != 0;
  *cache_bytes = (flags & 4 ? 2 : 16) * size_t{base.page_size};
  std::vector<std::byte> f = base.file;
  const uint64_t choices = base.page_count;  // pages 1 .. page_count-1, then the catalog
  const uint64_t pick = which % choices;
  if (pick + 1 < choices) {
    const uint64_t off = (pick + 1) * base.page_size;
    const size_t n = std::min<size_t>(content.size(), base.catalog_offset - off);
    std::memcpy(f.data() + off, content.data(), n);
    const uint64_t last = (off + std::max<size_t>(n, 1) - 1) / base.page_size;
    for (const auto& t : base.trees)
      if (t.first_page <= last && pick + 1 < t.end_page) focus->push_back(t.name);
  } else {
    for (const auto& t : base.trees)
      focus->push_back(t.name);
    f.resize(base.catalog_offset);
    for (char c : content)
      f.push_back(static_cast<std::byte>(c));
    fmt::store_u64(f.data() + fmt::header::kCatalogLengthOff, content.size());
    fmt::store_u64(f.data() + fmt::header::kFileLengthOff, f.size());
  }
  if (!(flags & 1))
    fix_all_checksums(f);
  else if (pick + 1 == choices) {  // the catalog: keep the input's bytes, fix the header only
    fix_header_checksum(f);
  }
  return f;
}

inline void run_page(const uint8_t* data, size_t size) {
  bool cached = false;
  size_t cache_bytes = 0;
  std::vector<std::string> focus;
  const std::vector<std::byte> f =
      page_file(page_base(), data, size, &cached, &cache_bytes, &focus);
  const std::vector<std::string> keys{std::string("key/00300"), std::string("key/"),
                                      std::string(8, '\x80'), std::string(16, '\x01')};
  auto db = open_bytes(f, cached, cache_bytes);
  if (!db) return note_refused(db.error());
  note_opened(*db);
  exercise_database(*db, keys, cached ? "page: page cache" : "page: in place", size, kPageLimits,
                    &focus, one_in(4, data, size));
}

inline void run_page_index(const uint8_t* data, size_t size) {
  bool cached = false;
  size_t cache_bytes = 0;
  std::vector<std::string> focus;
  const std::vector<std::byte> f =
      page_file(page_index_base(), data, size, &cached, &cache_bytes, &focus);
  const std::vector<std::string> keys{std::string("item/00700"), std::string("name-00389"),
                                      std::string("cat-05"), std::string(8, '\x80')};
  auto db = open_bytes(f, cached, cache_bytes);
  if (!db) return note_refused(db.error());
  note_opened(*db);
  exercise_database(*db, keys, cached ? "page_index: page cache" : "page_index: in place", size,
                    kPageLimits, &focus, one_in(4, data, size));
}

}  // namespace drydb_fuzz
