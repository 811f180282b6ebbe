// drydb/stats.h: what a file is made of, for tools (`drydb info`, `drydb
// stats`) and for anyone sizing pages or filters: the header's facts, the
// filter chain, and per tree how its pages are used.
//
//   auto info = drydb::read_file_info("items.drydb").value();
//   auto st = drydb::tree_stats(db, "items").value();   // every page of the table read
//
// Nothing here is needed to query a database.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "drydb/page_filter.h"
#include "drydb/result.h"

namespace drydb {

class ReadOnlyDatabase;

// One filter of the file's chain, as recorded (docs/format.md, "Filter table");
// filters::zstd_options decodes a zstd filter's params.
struct FilterInfo {
  std::string id;
  std::vector<std::byte> params;
};

struct FileInfo {
  uint16_t format_major = 0;
  uint16_t format_minor = 0;
  uint32_t required_features = 0;
  uint32_t page_size = 0;
  uint64_t file_bytes = 0;          // the file's length
  uint64_t pages = 0;               // pages before the catalog, the header page 0 included
  uint64_t catalog_bytes = 0;       // the catalog, which ends the file
  uint64_t identity = 0;            // ReadOnlyDatabase::identity(); 0 before format 2.4
  std::vector<FilterInfo> filters;  // in chain order; empty for an unfiltered file
  size_t tables = 0;
};

// Reads the header and catalog of the file at `path` and checks them (and
// every table's tree descriptor) as ReadOnlyDatabase::open does, with the
// same errors. Reads no tree page.
result<FileInfo> read_file_info(const std::filesystem::path& path);

// How one tree (a table's rows, or a secondary index's entries) uses its pages.
struct TreeStats {
  uint64_t rows = 0;                      // a table's rows, an index's entries
  uint32_t max_key_length = 0;            // the longest key
  uint32_t depth = 0;                     // 0 for an empty tree, 1 when the root is a leaf
  std::vector<uint64_t> pages_per_level;  // depth entries: [0] the leaves, [depth-1] the root
  uint64_t leaf_pages = 0;
  uint64_t internal_pages = 0;
  uint64_t overflow_pages = 0;  // pages of values too long for a leaf
  uint64_t overflow_runs = 0;   // such values: each takes a run of consecutive pages
  // Bytes of the leaves and internal pages in use (headers, key prefixes,
  // offsets, records); the fill of the leaves is leaf_bytes_used /
  // (leaf_pages * page size).
  uint64_t leaf_bytes_used = 0;
  uint64_t internal_bytes_used = 0;
  uint64_t unpacked_bytes = 0;  // the tree's pages decoded: pages x page size
  uint64_t stored_bytes = 0;    // what the file spends on them (less when filtered)
};

// Reads every page of the tree of table `table` (with `index` empty) or of
// its secondary index `index`, through the database's page cache: each page
// is checked (checksum, structure) as a query would check it. Errors:
// errc::not_found naming the table or index; errc::corruption from a page
// that fails its checks; storage errors.
result<TreeStats> tree_stats(const ReadOnlyDatabase& db, std::string_view table,
                             std::string_view index = {});

}  // namespace drydb
