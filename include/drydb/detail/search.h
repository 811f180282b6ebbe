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

// Searches within pages of trees whose keys are their own 8-byte prefixes
// (fixed widths up to 8, such as int64), for a key `x` of the tree's width
// given as that prefix: no full-key comparisons.

// The child of internal page `p` whose subtree holds x: the number of
// separators <= x.
DRYDB_ALWAYS_INLINE uint32_t prefix_key_child(const std::byte* p, uint64_t x,
                                              double inv_span = 0) noexcept {
  const uint32_t n = load_u16(p + page::kCountOff);
  return x == ~uint64_t{0}
             ? n - 1
             : unique_prefix_lower_bound(p + internal::prefixes_off(n), n - 1, x + 1, inv_span);
}

// Stores the root's inv_span hint (see TreeRef::root_inv_span). Cold: once
// per tree, or a few times when threads race (they store the same value).
[[gnu::cold, gnu::noinline]] inline void set_root_hint(const TreeRef& tree,
                                                       const std::byte* root) noexcept {
  const uint32_t n = load_u16(root + page::kCountOff);
  tree.root_inv_span->store(unique_prefix_inv_span(root + internal::prefixes_off(n), n - 1),
                            std::memory_order_relaxed);
}

// The first slot of leaf `p` whose key is >= x, and whether it is x.
DRYDB_ALWAYS_INLINE uint32_t prefix_key_slot(const std::byte* p, uint64_t x, bool* found) noexcept {
  return unique_prefix_find(p + leaf::kHeaderSize, load_u16(p + page::kCountOff), x, found);
}

// Descends over resident, verified pages to the leaf of prefix-key x,
// adding to *rank the rows left of the path when `rank` is given. nullptr
// when a page on the way is not resident or verified yet (or is bad): the
// caller then takes the general path, which loads, checks and explains.
DRYDB_ALWAYS_INLINE const std::byte* try_descend_prefix_key(const DatabaseState& db,
                                                            const TreeRef& tree, uint64_t x,
                                                            uint64_t* rank,
                                                            PageSlot** pin) noexcept {
  const TreeDesc& d = *tree.desc;
  uint64_t page = d.root;
  for (uint32_t level = d.depth - 1; level > 0; --level) {
    PageSlot* inner_pin;
    const std::byte* p = db.try_fetch(page, PageType::internal, level, &inner_pin);
    if (p == nullptr) return nullptr;
    double inv_span = 0;
    if (level == d.depth - 1) {  // the root
      inv_span = tree.root_inv_span->load(std::memory_order_relaxed);
      if (inv_span == 0) [[unlikely]]
        set_root_hint(tree, p);
    }
    const uint32_t c = prefix_key_child(p, x, inv_span);
    if (rank != nullptr && c > 0)
      *rank += load_u64(p + internal::counts_off(load_u16(p + page::kCountOff)) + 8 * size_t{c - 1});
    page = load_u64(p + internal::children_off() + 8 * size_t{c});
    unpin(inner_pin);  // internal pages are permanent; a no-op that keeps the contract
  }
  return db.try_fetch(page, PageType::leaf, 0, pin);
}

// What a point lookup over resident pages found.
enum class Probe : uint8_t {
  found,   // *value is the inline value, its leaf pinned into *pin
  absent,  // no such key (nothing pinned)
  slow,    // a page on the way is not resident or verified yet, is bad, or
           // the value is an overflow run: repeat the lookup through fetch()
};

// get()'s hot path for prefix-key trees (see above). It decodes the leaf as
// LeafView::is_overflow and LeafView::value_field do (the key part is empty
// at these widths); a change to the leaf layout changes both.
DRYDB_ALWAYS_INLINE Probe probe_prefix_key(const DatabaseState& db, const TreeRef& tree,
                                           uint64_t x, ByteView* value, PageSlot** pin) noexcept {
  const std::byte* p = try_descend_prefix_key(db, tree, x, nullptr, pin);
  if (p == nullptr) return Probe::slow;
  bool found;
  const uint32_t i = prefix_key_slot(p, x, &found);
  if (!found) {
    unpin(*pin);
    *pin = nullptr;
    return Probe::absent;
  }
  const uint32_t n = load_u16(p + page::kCountOff);
  const auto flags = static_cast<uint8_t>(p[page::kFlagsOff]);
  if (flags & leaf::kHasOverflow) [[unlikely]] {
    if ((static_cast<uint8_t>(p[leaf::bitmap_off(n, flags) + i / 8]) >> (i % 8)) & 1) {
      unpin(*pin);
      *pin = nullptr;
      return Probe::slow;
    }
  }
  const std::byte* records = p + leaf::records_off(n, flags);
  if (flags & leaf::kUniformValues) {  // the key part of such trees is empty
    const uint32_t len = load_u16(p + leaf::kUniformLenOff);
    *value = ByteView(records + size_t{len} * i, len);
  } else {
    const std::byte* offsets = p + leaf::offsets_off(n);
    const uint32_t begin = load_u16(offsets + 2 * size_t{i});
    *value = ByteView(records + begin, load_u16(offsets + 2 * size_t{i} + 2) - begin);
  }
  return Probe::found;
}

// The number of rows with a key < `key`, and whether `key` is present.
inline bool rank_of(const DatabaseState& db, const TreeRef& tree, ByteView key, uint64_t* rank,
                    bool* found, ErrorOut* err) {
  *rank = 0;
  *found = false;
  if (tree.desc->rows == 0) return true;
  const uint64_t kp = key_prefix(key.data(), key.size());
  PageSlot* pin;
  if (tree.layout.prefix_is_key() && key.size() == tree.layout.width) {
    const std::byte* p = try_descend_prefix_key(db, tree, kp, rank, &pin);
    if (p != nullptr) {
      *rank += prefix_key_slot(p, kp, found);
      unpin(pin);
      return true;
    }
    *rank = 0;  // a page not resident yet: the general path below
  }
  const std::byte* leaf = descend_to_leaf(db, tree, key, kp, rank, &pin, err);
  if (leaf == nullptr) return false;
  *rank += LeafView(leaf, tree.layout).lower_bound(key, kp, found);
  unpin(pin);
  return true;
}

}  // namespace drydb::detail
