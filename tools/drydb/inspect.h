// What `info` and `stats` show beyond the public API: the file header, the
// filter chain, and per-tree page statistics (pages per level, fill,
// compression), read from the file as docs/format.md lays it out.
//
// The library's TableInfo gives rows, depth and page counts per kind; pages
// per level, fill and the stored size of each tree need the pages themselves,
// which this reads (decoding zstd and lz4 pages itself). It is only used on a
// file the library has already opened, so the header and catalog are known to
// be valid; page contents are still bounds-checked before use.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "drydb/detail/catalog.h"

namespace drydb::cli {

struct FileLayout {
  std::string path;
  uint16_t major = 0, minor = 0;
  uint32_t features = 0;
  uint32_t page_size = 0;
  uint64_t file_length = 0;
  uint64_t page_count = 0;
  uint64_t catalog_length = 0;
  detail::Catalog catalog;
};

// Reads the header and catalog; a CliError when they do not decode.
FileLayout read_layout(const std::string& path);

// "zstd (level 3, dictionary 12,345 bytes)", "lz4", or the id.
std::string describe_filter(const detail::FilterDesc& filter);

struct TreeStats {
  std::vector<uint64_t> pages_per_level;  // [0] = leaves, [depth-1] = the root
  uint64_t overflow_pages = 0;
  uint64_t overflow_runs = 0;
  uint64_t leaf_bytes_used = 0;  // header, prefixes, offsets, records
  uint64_t internal_bytes_used = 0;
  uint64_t stored_bytes = 0;  // bytes in the file for the tree's pages
  bool pages_read = false;    // false: the filter chain is not one this tool decodes
};

// Walks the pages of `tree`.
TreeStats tree_stats(const FileLayout& layout, const detail::TreeDesc& tree);

}  // namespace drydb::cli
