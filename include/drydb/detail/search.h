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
DRYDB_ALWAYS_INLINE uint32_t prefix_key_child(const std::byte* p, uint64_t x) noexcept {
  const uint32_t n = load_u16(p + page::kCountOff);
  return unique_prefix_upper_bound(p + internal::prefixes_off(n), n - 1, x);
}

// prefix_key_child of a root through its hint: the interpolation's guess
// (the answer on evenly spaced separators) checked with two loads, else the
// search.
DRYDB_ALWAYS_INLINE uint32_t prefix_key_child(const RootHint& h, uint64_t x) noexcept {
  if (x == ~uint64_t{0}) return h.separators;
  const uint64_t y = x + 1;  // the answer: the number of separators < y
  if (y <= h.first) return 0;
  if (y > h.last) return h.separators;
  // first < y <= last, so the answer is in [1, separators - 1].
  const double t = static_cast<double>(y - h.first) * h.scale;
  uint32_t g = static_cast<uint32_t>(t);
  g += static_cast<double>(g) < t;
  g = g < 1 ? 1 : (g > h.separators - 1 ? h.separators - 1 : g);
  if (load_be64(h.prefixes + 8 * size_t{g - 1}) < y && load_be64(h.prefixes + 8 * size_t{g}) >= y)
    return g;
  return unique_prefix_lower_bound(h.prefixes, h.separators, y);
}

// Fills the root hint of `tree` from its root page `p`, which is resident,
// verified and permanent. Cold: once per tree (of racing threads, the one
// that claims the hint fills it; the others go on without it).
[[gnu::cold, gnu::noinline]] inline void fill_root_hint(const TreeRef& tree,
                                                        const std::byte* p) noexcept {
  RootHint& h = *tree.root_hint;
  int expected = RootHint::kEmpty;
  if (!h.state.compare_exchange_strong(expected, RootHint::kFilling, std::memory_order_relaxed))
    return;
  const uint32_t n = load_u16(p + page::kCountOff);
  const uint32_t separators = n - 1;
  const std::byte* prefixes = p + internal::prefixes_off(n);
  const uint64_t first = separators ? load_be64(prefixes) : 0;
  const uint64_t last = separators ? load_be64(prefixes + 8 * size_t{separators - 1}) : 0;
  if (separators < 2 || last <= first) {
    h.state.store(RootHint::kUnused, std::memory_order_release);
    return;
  }
  h.prefixes = prefixes;
  h.children = p + internal::children_off();
  h.counts = p + internal::counts_off(n);
  h.first = first;
  h.last = last;
  h.separators = separators;
  h.scale = static_cast<double>(separators - 1) / static_cast<double>(last - first);
  h.state.store(RootHint::kReady, std::memory_order_release);
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
  uint32_t level = d.depth - 1;
  if (level > 0) {
    const RootHint& h = *tree.root_hint;
    const int state = h.state.load(std::memory_order_acquire);
    if (state == RootHint::kReady) {  // the root, without reading its header
      const uint32_t c = prefix_key_child(h, x);
      if (rank != nullptr && c > 0) *rank += load_u64(h.counts + 8 * size_t{c - 1});
      page = load_u64(h.children + 8 * size_t{c});
      --level;
    } else if (state == RootHint::kEmpty) [[unlikely]] {
      PageSlot* root_pin;
      const std::byte* p = db.try_fetch(page, PageType::internal, level, &root_pin);
      if (p == nullptr) return nullptr;
      if (root_pin == nullptr) fill_root_hint(tree, p);  // a permanent page
      unpin(root_pin);
    }
  }
  for (; level > 0; --level) {
    PageSlot* inner_pin;
    const std::byte* p = db.try_fetch(page, PageType::internal, level, &inner_pin);
    if (p == nullptr) return nullptr;
    const uint32_t c = prefix_key_child(p, x);
    if (rank != nullptr && c > 0)
      *rank +=
          load_u64(p + internal::counts_off(load_u16(p + page::kCountOff)) + 8 * size_t{c - 1});
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
// at these widths); a change to the leaf layout changes both. Not through a
// LeafView: its constructor's fields cost a get about 22 instructions more
// (callgrind, drydb_instr_count get_random: 206 against 184).
DRYDB_ALWAYS_INLINE Probe probe_prefix_key(const DatabaseState& db, const TreeRef& tree, uint64_t x,
                                           ByteView* value, PageSlot** pin) noexcept {
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
