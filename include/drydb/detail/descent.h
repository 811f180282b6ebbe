// The tree descents of the read path: one by key, one by rank, and the root
// hint they keep. Every query reaches its leaf through them (get, cursors and
// so ranges, prefixes and index queries, for every key layout), but for three
// walks of their own: probe_batch, get_many's descent of several keys at once
// with the same searches, and rank_pair_in, a count's two bounds descended
// side by side (both in lookup.h); and a cursor's step along the tree's edge
// to a neighbouring leaf (Cursor::descend).
//
// A descent has two parameters:
//   - Pages, how pages are read (page_access.h): ResidentPages or CheckedPages;
//   - Search, the in-page search for the key's layout (key_search.h), chosen
//     once per query by with_key_search(): PrefixKeySearch or BytesSearch.
// Both are inlined into the descent, so each pair compiles to its own loop
// with nothing decided per page that was known before it.
#pragma once

#include <atomic>
#include <cstdint>

#include "drydb/detail/coding.h"
#include "drydb/detail/node.h"
#include "drydb/detail/page_cache.h"
#include "drydb/detail/tree_ref.h"

namespace drydb::detail {

// The record size a descent of `tree` with `Search` guesses for the leaf it
// reaches (RootHint::leaf_record_size; 0: no guess, or none needed).
template <class Search>
DRYDB_ALWAYS_INLINE uint32_t leaf_record_size_hint(const TreeRef& tree) noexcept {
  if constexpr (!Search::kUsesRecordSize) return 0;
  return tree.root_hint->leaf_record_size.load(std::memory_order_relaxed);
}

// Keeps the record size of `leaf_page`, where a lookup found its key, as the
// guess for the next descent of `tree`, when its records are uniform. A leaf
// of values of varied lengths leaves the guess as it was: threads reading a
// table of mixed leaves then do not take the line from one another. Only
// for trees whose descents prefetch, with a search that uses the guess.
template <class Search>
DRYDB_ALWAYS_INLINE void note_leaf_record_size(const TreeRef& tree, const std::byte* leaf_page,
                                               uint8_t flags, uint32_t fixed_part) noexcept {
  if constexpr (!Search::kUsesRecordSize) return;
  if (!tree.prefetch_leaves || !(flags & leaf::kUniformValues)) return;
  const uint32_t size = fixed_part + load_u16(leaf_page + leaf::kUniformLenOff);
  std::atomic<uint32_t>& hint = tree.root_hint->leaf_record_size;
  if (hint.load(std::memory_order_relaxed) != size) hint.store(size, std::memory_order_relaxed);
}

// One internal level of a descent's path: the page, the child taken, and the
// page's child count. Internal pages are permanent, so a path holds no pins.
struct PathFrame {
  const std::byte* page;
  uint32_t index;
  uint32_t size;
};

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
  h.page = p;
  h.prefixes = prefixes;
  h.children = p + internal::children_off();
  h.counts = p + internal::counts_off(n);
  h.first = first;
  h.last = last;
  h.separators = separators;
  // (y - first) >> shift fits an int64, whose conversion is one instruction.
  h.shift = (last - first) >> 63;
  h.scale = static_cast<double>(separators - 1) / static_cast<double>(last - first) *
            (h.shift ? 2.0 : 1.0);
  h.state.store(RootHint::kReady, std::memory_order_release);
}

// Fills the root hint of `tree` (depth 2 or more) from its root page when
// that page is permanent (fill_root_hint). false when the root cannot be
// read: with CheckedPages, *err says why.
template <class Pages>
[[gnu::cold]] bool load_root_hint(const Pages& pages, const TreeRef& tree) {
  PageSlot* root_pin;
  const std::byte* p =
      pages.page(tree, tree.desc->root, PageType::internal, tree.desc->depth - 1, &root_pin);
  if (p == nullptr) return false;
  if (root_pin == nullptr) fill_root_hint(tree, p);  // a permanent page
  unpin(root_pin);
  return true;
}

// Descends from the root to the leaf whose key range holds the search's key.
// Adds to *rank the rows of every subtree left of the path and records the
// internal levels in path[0 .. depth-2] (root first), each when given.
// Returns the leaf (pinned into *pin), or nullptr: with CheckedPages *err
// then says why. The lines the leaf's search reads first are prefetched from
// what its parent knows (Search::prefetch_child) in a tree too large for the
// caches to keep (TreeRef::prefetch_leaves), so that their cache misses
// overlap instead of following one another; with `reads_value` (the caller
// goes on to the value of the key's slot, as a get or a seek does, not a
// count) the lines of its guessed record too. Requires: the tree is not empty.
template <class Pages, class Search>
DRYDB_ALWAYS_INLINE const std::byte* descend(const Pages& pages, const TreeRef& tree,
                                             const Search& search, uint64_t* rank, PathFrame* path,
                                             PageSlot** pin, bool reads_value = true) {
  const TreeDesc& d = *tree.desc;
  uint64_t page = d.root;
  uint32_t level = d.depth - 1;
  // The internal page `page` was reached from (nullptr at the root), and as which child.
  const std::byte* parent = nullptr;
  uint32_t parent_child = 0;
  if constexpr (Search::kUsesRootHint) {
    if (level > 0) {
      const RootHint& h = *tree.root_hint;
      const int state = h.state.load(std::memory_order_acquire);
      if (state == RootHint::kReady) {  // the root, without reading its header (but for
                                        // a leaf's prefetch below, in a tree of depth 2)
        const uint32_t c = search.child(h);
        if (rank != nullptr && c > 0) *rank += load_u64(h.counts + 8 * size_t{c - 1});
        if (path != nullptr) *path++ = PathFrame{h.page, c, h.separators + 1};
        page = load_u64(h.children + 8 * size_t{c});
        parent = h.page;
        parent_child = c;
        --level;
        if (level == 0 && tree.prefetch_leaves)
          search.prefetch_child(pages.db, h.page, c, page, true,
                                reads_value ? leaf_record_size_hint<Search>(tree) : 0);
      } else if (state == RootHint::kEmpty) [[unlikely]] {
        if (!load_root_hint(pages, tree)) return nullptr;
      }
    }
  }
  for (; level > 0; --level) {
    PageSlot* inner_pin;
    const std::byte* p =
        pages.child(tree, parent, parent_child, page, PageType::internal, level, &inner_pin);
    if (p == nullptr) return nullptr;
    const uint32_t c = search.child(p);
    const uint32_t n = load_u16(p + page::kCountOff);
    if (rank != nullptr && c > 0)
      *rank += load_u64(p + internal::counts_off(n) + 8 * size_t{c - 1});
    if (path != nullptr) *path++ = PathFrame{p, c, n};
    page = load_u64(p + internal::children_off() + 8 * size_t{c});
    if (level == 1 && tree.prefetch_leaves)
      search.prefetch_child(pages.db, p, c, page, true,
                            reads_value ? leaf_record_size_hint<Search>(tree) : 0);
    parent = p;  // internal pages are permanent: it stays readable after the unpin
    parent_child = c;
    unpin(inner_pin);  // internal pages are permanent; a no-op that keeps the contract
  }
  return pages.child(tree, parent, parent_child, page, PageType::leaf, 0, pin);
}

// Descends from the root to the leaf holding the row of rank *rank, leaving
// in *rank that row's slot in the leaf, and the internal levels in path as
// descend() does. nullptr when a page fails or the subtree counts disagree
// with the pages (corruption, in *err with CheckedPages).
// Requires: *rank < the tree's rows.
template <class Pages>
DRYDB_ALWAYS_INLINE const std::byte* descend_to_rank(const Pages& pages, const TreeRef& tree,
                                                     uint64_t* rank, PathFrame* path,
                                                     PageSlot** pin) {
  const TreeDesc& d = *tree.desc;
  uint64_t page = d.root;
  uint64_t local = *rank;
  const std::byte* parent = nullptr;  // as in descend()
  uint32_t parent_child = 0;
  for (uint32_t level = d.depth - 1; level > 0; --level) {
    PageSlot* inner_pin;
    const std::byte* p =
        pages.child(tree, parent, parent_child, page, PageType::internal, level, &inner_pin);
    if (p == nullptr) return nullptr;
    const InternalView node(p, tree.layout);
    if (local >= node.cumulative(node.size() - 1)) {
      pages.corrupt(tree, page, "row counts disagree");
      return nullptr;
    }
    const uint32_t c = node.child_for_rank(local);
    local -= node.rows_before(c);
    if (path != nullptr) *path++ = PathFrame{p, c, node.size()};
    page = node.child(c);
    parent = p;
    parent_child = c;
    unpin(inner_pin);
  }
  const std::byte* p = pages.child(tree, parent, parent_child, page, PageType::leaf, 0, pin);
  if (p == nullptr) return nullptr;
  if (local >= leaf::count(p)) {
    unpin(*pin);
    *pin = nullptr;
    pages.corrupt(tree, page, "row counts disagree");
    return nullptr;
  }
  *rank = local;
  return p;
}

}  // namespace drydb::detail
