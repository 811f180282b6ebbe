#include "drydb/detail/catalog.h"

#include <algorithm>
#include <set>

#include "drydb/detail/format.h"
#include "format/byte_io.h"

namespace drydb::detail {
namespace {

// Bounds that keep a hostile catalog from asking for absurd allocations.
constexpr uint32_t kMaxFilters = 64;
constexpr uint32_t kMaxTables = 1u << 20;
constexpr uint32_t kMaxIndexesPerTable = 1024;

void encode_tree(ByteWriter& w, const TreeDesc& t) {
  w.u16(static_cast<uint16_t>(t.encoding_id.size()));
  w.bytes(t.encoding_id);
  w.u8(static_cast<uint8_t>(t.kind));
  w.u8(0);
  w.u16(t.key_width);
  w.u32(t.depth);
  w.u32(t.max_key_length);
  w.u64(t.root);
  w.u64(t.rows);
  w.u64(t.first_page);
  w.u64(t.end_page);
  w.u64(t.leaf_pages);
  w.u64(t.internal_pages);
  w.u64(t.overflow_pages);
}

Error bad(const std::string& what) {
  return Error(errc::corruption, "catalog: " + what);
}

result<TreeDesc> decode_tree(ByteReader& r, const std::string& where, uint32_t page_size,
                             uint64_t page_count) {
  TreeDesc t;
  t.encoding_id = r.bytes(r.u16());
  uint8_t kind = r.u8();
  uint8_t reserved = r.u8();
  t.key_width = r.u16();
  t.depth = r.u32();
  t.max_key_length = r.u32();
  t.root = r.u64();
  t.rows = r.u64();
  t.first_page = r.u64();
  t.end_page = r.u64();
  t.leaf_pages = r.u64();
  t.internal_pages = r.u64();
  t.overflow_pages = r.u64();
  if (!r.ok()) return bad(where + " is cut short");
  if (kind > 2 || reserved != 0) return bad(where + " has an unknown tree kind");
  t.kind = static_cast<TreeKind>(kind);
  if (t.encoding_id.empty()) return bad(where + " has an empty key encoding id");
  // Non-unique index trees append an 8-byte rank to keys of up to 64 bytes.
  if (t.key_width > (t.kind == TreeKind::multi_index ? 72 : 64))
    return bad(where + " has a key width over the maximum");
  if (t.max_key_length > max_key_length(page_size))
    return bad(where + " claims keys longer than the page size allows");
  if (t.depth > kMaxDepth) return bad(where + " is deeper than " + std::to_string(kMaxDepth));
  if (t.first_page < 1 || t.first_page > t.end_page || t.end_page > page_count)
    return bad(where + " has pages outside the file");
  uint64_t span = t.end_page - t.first_page;
  if (t.leaf_pages > span || t.internal_pages > span - t.leaf_pages ||
      t.overflow_pages != span - t.leaf_pages - t.internal_pages)
    return bad(where + " has page counts that do not add up");
  bool empty = t.rows == 0;
  if (empty != (t.root == 0) || empty != (t.depth == 0) || empty != (t.leaf_pages == 0))
    return bad(where + " is inconsistent about being empty");
  if (!empty && (t.root < t.first_page || t.root >= t.end_page))
    return bad(where + " has its root outside its pages");
  if (!empty && t.depth == 1 && t.leaf_pages != 1) return bad(where + " has a bad depth");
  if (t.rows < t.leaf_pages) return bad(where + " has fewer rows than leaves");
  return t;
}

// The 24-byte descriptor: u8 kind (0 none, 1 blocked Bloom), u8 probes, u16
// zero, u32 bits per key, u64 first page, u64 pages.
void encode_miss_filter(ByteWriter& w, const MissFilterDesc& f) {
  w.u8(f.present() ? 1 : 0);
  w.u8(static_cast<uint8_t>(f.probes));
  w.u16(0);
  w.u32(f.bits_per_key);
  w.u64(f.first_page);
  w.u64(f.pages);
}

result<MissFilterDesc> decode_miss_filter(ByteReader& r, const std::string& table,
                                          uint64_t page_count) {
  MissFilterDesc f;
  const uint8_t kind = r.u8();
  f.probes = r.u8();
  const uint16_t zero = r.u16();
  f.bits_per_key = r.u32();
  f.first_page = r.u64();
  f.pages = r.u64();
  const std::string where = "the miss filter of '" + table + "'";
  if (!r.ok()) return bad(where + " is cut short");
  if (kind > 1 || zero != 0) return bad(where + " has an unknown kind");
  if (kind == 0) {
    if (f.probes != 0 || f.bits_per_key != 0 || f.first_page != 0 || f.pages != 0)
      return bad(where + " is absent but not zero");
    return f;
  }
  if (f.bits_per_key < 1 || f.bits_per_key > kMaxMissFilterBitsPerKey || f.probes < 1 ||
      f.probes > 16)
    return bad(where + " has a bad size or probe count");
  if (f.pages == 0 || f.pages >= (uint64_t{1} << 32) || f.first_page < 1 ||
      f.first_page > page_count || f.pages > page_count - f.first_page)
    return bad(where + " has pages outside the file");
  return f;
}

// u16 column count C (0: no list); with C > 0, u16 key column (< C, or
// 0xFFFF), then C names of u16 length and bytes.
void encode_columns(ByteWriter& w, const ColumnList& c) {
  w.u16(static_cast<uint16_t>(c.names.size()));
  if (!c.present()) return;
  w.u16(static_cast<uint16_t>(c.key_column));
  for (const auto& name : c.names) {
    w.u16(static_cast<uint16_t>(name.size()));
    w.bytes(name);
  }
}

result<ColumnList> decode_columns(ByteReader& r, const std::string& table) {
  ColumnList c;
  const uint32_t count = r.u16();
  const std::string where = "the column list of '" + table + "'";
  if (!r.ok()) return bad(where + " is cut short");
  if (count == 0) return c;
  if (count >= kMaxColumns) return bad(where + " has 65,535 columns (65,534 at most)");
  c.key_column = r.u16();
  // Each name takes at least 3 bytes, which bounds a hostile count.
  if (!r.ok() || count > r.remaining() / 3) return bad(where + " is cut short");
  if (c.key_column >= count && c.key_column != kNoKeyColumn)
    return bad(where + " has its key column outside the list");
  std::set<std::string> seen;
  c.names.reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    std::string name = r.bytes(r.u16());
    if (!r.ok()) return bad(where + " is cut short");
    if (name.empty() || name.size() > 255)
      return bad(where + " has a column with no name or one over 255 bytes");
    if (!seen.insert(name).second) return bad(where + " names column '" + name + "' twice");
    c.names.push_back(std::move(name));
  }
  return c;
}

}  // namespace

bool Catalog::has_miss_filters() const noexcept {
  return std::any_of(tables.begin(), tables.end(),
                     [](const TableDesc& t) { return t.miss_filter.present(); });
}

bool Catalog::has_column_lists() const noexcept {
  return std::any_of(tables.begin(), tables.end(),
                     [](const TableDesc& t) { return t.columns.present(); });
}

uint32_t Catalog::required_features() const noexcept {
  return (filters.empty() ? 0 : kFeatureFilteredPages) |
         (has_miss_filters() ? kFeatureMissFilters : 0) |
         (has_column_lists() ? kFeatureColumnLists : 0);
}

std::vector<std::byte> encode_catalog(const Catalog& c) {
  ByteWriter w;
  w.u32(static_cast<uint32_t>(c.filters.size()));
  for (const auto& f : c.filters) {
    w.u16(static_cast<uint16_t>(f.id.size()));
    w.bytes(f.id);
    w.u32(static_cast<uint32_t>(f.params.size()));
    w.bytes(f.params);
  }
  w.u32(static_cast<uint32_t>(c.tables.size()));
  for (const auto& t : c.tables) {
    w.u16(static_cast<uint16_t>(t.name.size()));
    w.bytes(t.name);
    encode_tree(w, t.primary);
    w.u16(static_cast<uint16_t>(t.indexes.size()));
    for (const auto& ix : t.indexes) {
      w.u16(static_cast<uint16_t>(ix.name.size()));
      w.bytes(ix.name);
      encode_tree(w, ix.tree);
    }
  }
  if (!c.filters.empty()) {
    for (const auto& p : c.pages) {
      w.u64(p.offset);
      w.u32(p.stored);
      w.u32(p.decoded);
    }
  }
  if (c.has_miss_filters())
    for (const auto& t : c.tables)
      encode_miss_filter(w, t.miss_filter);
  if (c.has_column_lists())
    for (const auto& t : c.tables)
      encode_columns(w, t.columns);
  return std::move(w.out());
}

result<Catalog> decode_catalog(std::span<const std::byte> bytes, uint32_t page_size,
                               uint64_t page_count, uint64_t data_begin, uint64_t data_end,
                               uint32_t features) {
  const bool miss_filters = (features & kFeatureMissFilters) != 0;
  ByteReader r(bytes);
  Catalog c;
  uint32_t filters = r.u32();
  if (!r.ok() || filters > kMaxFilters) return bad("bad filter count");
  for (uint32_t i = 0; i < filters; ++i) {
    FilterDesc f;
    f.id = r.bytes(r.u16());
    f.params = r.bytes(r.u32());
    if (!r.ok() || f.id.empty()) return bad("filter " + std::to_string(i) + " is malformed");
    c.filters.push_back(std::move(f));
  }
  uint32_t tables = r.u32();
  // Each table takes at least 76 bytes (one-byte name and encoding id), which
  // bounds a hostile count.
  if (!r.ok() || tables > kMaxTables || tables > r.remaining() / 76) return bad("bad table count");
  std::set<std::string> names;
  c.tables.reserve(tables);
  for (uint32_t i = 0; i < tables; ++i) {
    TableDesc t;
    t.name = r.bytes(r.u16());
    if (!r.ok() || t.name.empty() || t.name.size() > 255)
      return bad("table " + std::to_string(i) + " has no name or one over 255 bytes");
    if (!names.insert(t.name).second) return bad("two tables are named '" + t.name + "'");
    auto primary = decode_tree(r, "table '" + t.name + "'", page_size, page_count);
    if (!primary) return std::move(primary).error();
    if (primary->kind != TreeKind::primary)
      return bad("table '" + t.name + "' has a primary tree of an index kind");
    t.primary = std::move(*primary);
    uint16_t indexes = r.u16();
    if (!r.ok() || indexes > kMaxIndexesPerTable)
      return bad("table '" + t.name + "' has a bad index count");
    std::set<std::string> index_names;
    for (uint16_t k = 0; k < indexes; ++k) {
      IndexDesc ix;
      ix.name = r.bytes(r.u16());
      if (!r.ok() || ix.name.empty() || ix.name.size() > 255)
        return bad("an index of '" + t.name + "' has no name or one over 255 bytes");
      if (!index_names.insert(ix.name).second)
        return bad("table '" + t.name + "' has two indexes named '" + ix.name + "'");
      auto tree =
          decode_tree(r, "index '" + ix.name + "' of '" + t.name + "'", page_size, page_count);
      if (!tree) return std::move(tree).error();
      if (tree->kind == TreeKind::primary)
        return bad("index '" + ix.name + "' has the primary tree kind");
      if (tree->rows > t.primary.rows)
        return bad("index '" + ix.name + "' of '" + t.name + "' has more entries than rows");
      ix.tree = std::move(*tree);
      t.indexes.push_back(std::move(ix));
    }
    c.tables.push_back(std::move(t));
  }
  // The miss filter descriptors and the column lists, when there are any,
  // follow the page directory, whose size the page count gives.
  const uint64_t descriptors = miss_filters ? uint64_t{kMissFilterDescSize} * c.tables.size() : 0;
  if (!c.filters.empty()) {
    // Compared by division: the page count is the header's, and its directory's size in bytes
    // could wrap (a wrapped size once passed, and the resize below threw length_error).
    if (page_count == 0 || r.remaining() < descriptors ||
        page_count - 1 > (r.remaining() - descriptors) / kPageLocationSize)
      return bad("page directory does not match the page count");
    c.pages.resize(page_count - 1);
    for (auto& p : c.pages) {
      p.offset = r.u64();
      p.stored = r.u32();
      p.decoded = r.u32();
      if (p.offset < data_begin || p.offset > data_end || p.stored > data_end - p.offset ||
          p.decoded > page_size)
        return bad("page directory entry " + std::to_string(&p - c.pages.data() + 1) +
                   " lies outside the file's pages");
    }
  }
  if (miss_filters) {
    if (r.remaining() < descriptors)
      return bad("the miss filter descriptors do not match the table count");
    for (auto& t : c.tables) {
      auto f = decode_miss_filter(r, t.name, page_count);
      if (!f) return std::move(f).error();
      if (f->present() && t.primary.rows == 0)
        return bad("the miss filter of '" + t.name + "' belongs to an empty table");
      t.miss_filter = *f;
    }
    if (!c.has_miss_filters()) return bad("announces miss filters but has none");
  }
  if (features & kFeatureColumnLists) {
    for (auto& t : c.tables) {
      auto columns = decode_columns(r, t.name);
      if (!columns) return std::move(columns).error();
      t.columns = std::move(*columns);
    }
    if (!c.has_column_lists()) return bad("announces column lists but has none");
  }
  if (r.remaining() != 0) return bad("has trailing bytes");
  // Page ranges [first, end) must be disjoint, so each page belongs to at
  // most one tree or filter. Empty trees own no pages and take no part.
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  for (const auto& t : c.tables) {
    if (t.primary.first_page != t.primary.end_page)
      ranges.emplace_back(t.primary.first_page, t.primary.end_page);
    for (const auto& ix : t.indexes)
      if (ix.tree.first_page != ix.tree.end_page)
        ranges.emplace_back(ix.tree.first_page, ix.tree.end_page);
    if (t.miss_filter.present())
      ranges.emplace_back(t.miss_filter.first_page, t.miss_filter.first_page + t.miss_filter.pages);
  }
  std::sort(ranges.begin(), ranges.end());
  for (size_t i = 1; i < ranges.size(); ++i)
    if (ranges[i].first < ranges[i - 1].second) return bad("two trees or filters share pages");
  return c;
}

}  // namespace drydb::detail
