// Tree descents of the read path: to a key's leaf, and to a key's rank.
#pragma once

#include <cstdint>
#include <string>

#include "drydb/detail/coding.h"
#include "drydb/detail/db_state.h"
#include "drydb/detail/node.h"
#include "drydb/key.h"

namespace drydb::detail {

// Fills *err with errc::wrong_key_type for `key` and returns false.
bool wrong_key_kind(const TreeRef& tree, const Key& key, ErrorOut* err);

// Whether `key` may be used on this tree (its kind matches the encoding);
// fills *err if not. A bytes key of another length than a fixed-width
// encoding's is allowed: it simply matches no row, and bounds compare right.
inline bool check_key_kind(const TreeRef& tree, const Key& key, ErrorOut* err) {
  return key.kind() == tree.kind || wrong_key_kind(tree, key, err);
}

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

// Descends from the root to the leaf whose key range holds `key`, adding to
// *rank the rows of every subtree left of the path. Returns the leaf bytes
// (pinned into *pin), or nullptr with *err.
inline const std::byte* descend_to_leaf(const DatabaseState& db, const TreeRef& tree, ByteView key,
                                        uint64_t key_prefix, uint64_t* rank, PageSlot** pin,
                                        ErrorOut* err) {
  const TreeDesc& d = *tree.desc;
  uint64_t page = d.root;
  for (uint32_t level = d.depth - 1; level > 0; --level) {
    PageSlot* inner_pin;
    const std::byte* p = db.fetch(tree, page, PageType::internal, level, &inner_pin, err);
    if (p == nullptr) return nullptr;
    InternalView node(p, tree.layout);
    uint32_t c = node.child_for(key, key_prefix);
    *rank += node.rows_before(c);
    page = node.child(c);
    unpin(inner_pin);  // internal pages are permanent; this is a no-op but keeps the contract
  }
  return db.fetch(tree, page, PageType::leaf, 0, pin, err);
}

// descend_to_leaf over resident, verified pages only, without ranks or error
// reporting: nullptr when a page on the way is not resident yet (or is bad),
// and the caller repeats the descent with descend_to_leaf.
DRYDB_ALWAYS_INLINE const std::byte* try_descend_to_leaf(const DatabaseState& db,
                                                         const TreeRef& tree, ByteView key,
                                                         uint64_t key_prefix,
                                                         PageSlot** pin) noexcept {
  const TreeDesc& d = *tree.desc;
  uint64_t page = d.root;
  for (uint32_t level = d.depth - 1; level > 0; --level) {
    PageSlot* inner_pin;
    const std::byte* p = db.try_fetch(page, PageType::internal, level, &inner_pin);
    if (p == nullptr) return nullptr;
    InternalView node(p, tree.layout);
    page = node.child(node.child_for(key, key_prefix));
    unpin(inner_pin);  // internal pages are permanent; this is a no-op but keeps the contract
  }
  return db.try_fetch(page, PageType::leaf, 0, pin);
}

// The number of rows with a key < `key`, and whether `key` is present.
inline bool rank_of(const DatabaseState& db, const TreeRef& tree, ByteView key, uint64_t* rank,
                    bool* found, ErrorOut* err) {
  *rank = 0;
  *found = false;
  if (tree.desc->rows == 0) return true;
  const uint64_t kp = key_prefix(key.data(), key.size());
  PageSlot* pin;
  const std::byte* leaf = descend_to_leaf(db, tree, key, kp, rank, &pin, err);
  if (leaf == nullptr) return false;
  *rank += LeafView(leaf, tree.layout).lower_bound(key, kp, found);
  unpin(pin);
  return true;
}

}  // namespace drydb::detail
