// What `info` and `stats` show beyond the tables' own facts: the file header,
// the filter chain and per-tree page statistics, from drydb/stats.h.
#pragma once

#include <string>

#include "drydb/stats.h"

namespace drydb::cli {

// read_file_info, or a CliError naming the file.
FileInfo read_layout(const std::string& path);

// "zstd (level 3, dictionary 12,345 bytes)", "lz4", or the id.
std::string describe_filter(const FilterInfo& filter);

}  // namespace drydb::cli
