// The checks a query makes of its keys before it reads a page: their kind
// against the tree's key encoding, and a range's bounds in order.
#pragma once

#include <cstddef>

#include "drydb/detail/prefix_search.h"
#include "drydb/detail/tree_ref.h"
#include "drydb/key.h"
#include "drydb/result.h"

namespace drydb::detail {

// Fills *err with errc::wrong_key_type for `key` and returns false.
bool wrong_key_kind(const TreeRef& tree, const Key& key, ErrorOut* err);

// Whether `key` may be used on this tree (its kind matches the encoding);
// fills *err if not. A bytes key of another length than a fixed-width
// encoding's is allowed: it simply matches no row, and bounds compare right.
inline bool check_key_kind(const TreeRef& tree, const Key& key, ErrorOut* err) {
  return key.kind() == tree.kind || wrong_key_kind(tree, key, err);
}

// errc::invalid_argument: get_many's key and value counts differ.
Error get_many_sizes_differ(size_t keys, size_t values);

// errc::invalid_argument naming both bounds. Out of line: a cold path.
Error range_bounds_out_of_order(const TreeRef& tree, const KeyBound& start, const KeyBound& end);

// Whether a range's bounds may be used on this tree: their key kinds match
// and start <= end when both are bounded. Fills *err if not.
inline bool check_range_bounds(const TreeRef& tree, const KeyBound& start, const KeyBound& end,
                               ErrorOut* err) {
  if ((start.bounded() && !check_key_kind(tree, start.key(), err)) ||
      (end.bounded() && !check_key_kind(tree, end.key(), err)))
    return false;
  if (start.bounded() && end.bounded() &&
      compare_bytes(start.key().bytes(), end.key().bytes()) > 0) {
    *err = range_bounds_out_of_order(tree, start, end);
    return false;
  }
  return true;
}

}  // namespace drydb::detail
