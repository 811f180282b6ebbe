// Validation of a page when it first enters memory: checksum, then every
// offset, length, count and reference it holds, so the read path can index
// it without bounds checks (see include/drydb/detail/node.h).
#pragma once

#include <cstdint>

#include "drydb/detail/tree_ref.h"

namespace drydb::detail {

// A leaf or internal page of `tree` (page_size bytes at p).
bool check_tree_page(const TreeRef& tree, uint64_t page, const std::byte* p, uint32_t page_size,
                     ErrorOut* err);

// The length of the overflow run starting at p, after checking its header
// fits the tree's pages. Returns false with *err if it does not.
bool overflow_run_pages(const TreeRef& tree, uint64_t page, const std::byte* p, uint32_t page_size,
                        uint64_t* pages, ErrorOut* err);

// An overflow run: `bytes` holds all its pages.
bool check_overflow_run(const TreeRef& tree, uint64_t page, const std::byte* p, ErrorOut* err);

// Whether the leaf or internal page `child` (page `page` of `tree`, checked by check_tree_page)
// holds keys within the fences its parent gives it as child `parent.child` of internal page
// `parent.page`: its first key at or above the separator before it, its last key below the
// separator after it (an internal page's separators strictly between them). A page of another
// file, or from elsewhere in this one, is refused though its checksum holds.
bool check_child_fences(const TreeRef& tree, uint64_t page, const std::byte* child,
                        const ParentRef& parent, ErrorOut* err);

// A page of the miss filter of `tree` (a primary tree with one).
bool check_miss_filter_page(const TreeRef& tree, uint64_t page, const std::byte* p,
                            uint32_t page_size, ErrorOut* err);

}  // namespace drydb::detail
