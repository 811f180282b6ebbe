// Resolving the filters a file names when it is opened.
#pragma once

#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "drydb/page_filter.h"

namespace drydb::detail {

// The options a built-in filter was made with, checked for a build (a zstd dictionary over
// filters::kMaxZstdDictionaryBytes: errc::invalid_argument); ok for any other filter.
status check_filter_options(const PageFilter& filter);

// The filter of `id` made from its stored parameters: from `local` (the
// database's OpenOptions::filters) first, then the built-ins, then the
// process registry. errc::unknown_filter names an id none of them knows.
result<std::shared_ptr<const PageFilter>> make_page_filter(
    std::string_view id, std::span<const std::byte> params,
    const std::vector<PageFilterRegistration>& local);

}  // namespace drydb::detail
