// The catalog: filters, tables and their trees, as stored after the last page
// (layout in docs/format.md, "Catalog"). Decoding validates every field
// against the header, so the reader can trust page ranges and depths.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "drydb/result.h"

namespace drydb::detail {

enum class TreeKind : uint8_t { primary = 0, unique_index = 1, multi_index = 2 };

struct TreeDesc {
  std::string encoding_id;
  TreeKind kind = TreeKind::primary;
  uint16_t key_width = 0;       // 0 = variable-length keys
  uint32_t depth = 0;           // 0 = empty tree, 1 = the root is a leaf
  uint32_t max_key_length = 0;  // longest key in the tree
  uint64_t root = 0;            // 0 = empty tree
  uint64_t rows = 0;
  uint64_t first_page = 0;  // the tree's pages are [first_page, end_page)
  uint64_t end_page = 0;
  uint64_t leaf_pages = 0;
  uint64_t internal_pages = 0;
  uint64_t overflow_pages = 0;  // pages of all overflow runs
};

struct IndexDesc {
  std::string name;
  TreeDesc tree;
};

// A table's miss filter (format 2.1, miss_filter.h): the full pages
// [first_page, first_page + pages). No filter: bits_per_key 0.
struct MissFilterDesc {
  uint32_t bits_per_key = 0;  // as asked at build time, 1 .. 32
  uint32_t probes = 0;        // bits tested per key, 1 .. 16
  uint64_t first_page = 0;
  uint64_t pages = 0;  // < 2^32
  bool present() const noexcept { return bits_per_key != 0; }
};
inline constexpr size_t kMissFilterDescSize = 24;
inline constexpr uint32_t kMaxMissFilterBitsPerKey = 32;

// A table's column list (format 2.3, TableBuilder::set_columns): its values
// are MessagePack arrays of these columns. No list: `names` empty.
struct ColumnList {
  std::vector<std::string> names;  // 1 .. 255 bytes each, unique
  // The key's position among the columns, or kNoKeyColumn.
  uint32_t key_column = 0xFFFF;
  bool present() const noexcept { return !names.empty(); }
};
inline constexpr uint32_t kNoKeyColumn = 0xFFFF;
inline constexpr uint32_t kMaxColumns = 0xFFFF;

struct TableDesc {
  std::string name;
  TreeDesc primary;
  std::vector<IndexDesc> indexes;
  MissFilterDesc miss_filter;
  ColumnList columns;
};

struct FilterDesc {
  std::string id;
  std::string params;
};

// Where a filtered file stores one page: `stored` bytes at `offset` that
// decode to the page's first `decoded` bytes (the rest of the page is zero).
struct PageLocation {
  uint64_t offset = 0;
  uint32_t stored = 0;
  uint32_t decoded = 0;
};
inline constexpr size_t kPageLocationSize = 16;

struct Catalog {
  std::vector<FilterDesc> filters;
  std::vector<TableDesc> tables;
  // With filters: pages 1 .. page_count-1, in order (entry i is page i+1).
  std::vector<PageLocation> pages;
  // Whether any table has a miss filter: the file then has required feature
  // kFeatureMissFilters and the catalog ends with a descriptor per table.
  bool has_miss_filters() const noexcept;
  // Whether any table has a column list: the file then has required feature
  // kFeatureColumnLists and the catalog ends with a column list per table.
  bool has_column_lists() const noexcept;
  // The required-feature bits the catalog's content calls for (filtered
  // pages, miss filters, column lists; not prefixed keys, a page property).
  uint32_t required_features() const noexcept;
};

std::vector<std::byte> encode_catalog(const Catalog& catalog);

// Parses and validates: lengths, unique names, kinds, depths, page ranges
// inside [1, page_count) and disjoint, page counts adding up, a root inside its
// tree's range exactly when the tree has rows; for a filtered file, a page
// directory whose pages lie in [data_begin, data_end) and decode to at most a
// page; with the header's kFeatureMissFilters in `features`, a miss filter
// descriptor per table, its pages in the file and disjoint from every other
// tree's and filter's; with kFeatureColumnLists, a column list per table (names
// not empty, at most 255 bytes, unique; the key column among them). Errors are
// errc::corruption.
result<Catalog> decode_catalog(std::span<const std::byte> bytes, uint32_t page_size,
                               uint64_t page_count, uint64_t data_begin, uint64_t data_end,
                               uint32_t features);

}  // namespace drydb::detail
