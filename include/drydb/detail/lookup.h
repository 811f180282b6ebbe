// The queries built on the descents: the miss filter's test, the point
// lookups over resident pages (probe, and probe_batch, get_many's descent of
// several keys at once), and ranks (rank_of, and rank_pair, a count's two
// bounds descended side by side).
#pragma once

#include <cassert>
#include <cstdint>
#include <type_traits>

#include "drydb/detail/descent.h"
#include "drydb/detail/key_search.h"
#include "drydb/detail/miss_filter.h"
#include "drydb/detail/page_access.h"

namespace drydb::detail {

// ---- the miss filter -----------------------------------------------------------------

// What a table's miss filter says of a key.
enum class FilterSays : uint8_t {
  absent,  // surely not in the tree
  maybe,   // possibly in the tree: descend
  unread,  // the filter's page is not to be had through these Pages: with
           // ResidentPages, not resident or verified yet (repeat with
           // CheckedPages); with CheckedPages, an error, in *err
};

// Tests `key` against the miss filter of `tree`. Requires: tree.miss_filter.
template <class Pages>
DRYDB_ALWAYS_INLINE FilterSays test_miss_filter(const Pages& pages, const TreeRef& tree,
                                                ByteView key) {
  const MissFilterDesc& f = *tree.miss_filter;
  const uint64_t h = miss_filter_hash(key.data(), key.size());
  const MissFilterBlock at =
      miss_filter_block(h, f.pages, miss_filter::blocks_per_page(pages.db.page_size()));
  PageSlot* pin;
  const std::byte* p = pages.page(tree, f.first_page + at.page, PageType::miss_filter, 0, &pin);
  if (p == nullptr) return FilterSays::unread;
  const bool maybe = miss_filter_may_contain(p + at.offset, h, f.probes);
  unpin(pin);
  return maybe ? FilterSays::maybe : FilterSays::absent;
}

// ---- queries built on the descents ------------------------------------------------

// What a point lookup over resident pages found.
enum class Probe : uint8_t {
  found,   // *value is the inline value, its leaf pinned into *pin
  absent,  // no such key (nothing pinned)
  slow,    // a page on the way is not resident or verified yet, is bad, or
           // the value is an overflow run: repeat the lookup through fetch()
};

// The page of `leaf`, which the tree's descent index found for the search's
// key, with the lines a descent would prefetch from the leaf's parent
// (TreeRef::prefetch_leaves; `record_size` as prefetch_child takes it).
template <class Search>
DRYDB_ALWAYS_INLINE uint64_t prefetched_leaf(const DatabaseState& db, const TreeRef& tree,
                                             const DescentIndex& index, const Search& search,
                                             const DescentIndex::Leaf& leaf,
                                             uint32_t record_size) noexcept {
  if (tree.prefetch_leaves) {
    const std::byte* p = db.prefetch_address(leaf.page);
    db.prefetch_line(p, 0);
    const DescentIndex::Node& parent = *leaf.parent;
    if (p != nullptr && leaf.child > 0 && leaf.child < parent.separator_count)
      search.prefetch_leaf(db, p, load_be64(parent.separators + 8 * size_t{leaf.child - 1}),
                           load_be64(parent.separators + 8 * size_t{leaf.child}),
                           index.rows_per_leaf(), record_size);
  }
  return leaf.page;
}

// Counts `n` descents of an indexable tree (TreeRef::indexable: prefix keys,
// kIndexMinDepth levels or more) made without its descent index; the one
// that brings RootHint::index_countdown to zero builds the index.
DRYDB_ALWAYS_INLINE void count_descents_without_index(const DatabaseState& db, const TreeRef& tree,
                                                      uint64_t n) noexcept {
  std::atomic<uint64_t>& countdown = tree.root_hint->index_countdown;
  const uint64_t left = countdown.load(std::memory_order_relaxed);
  if (left > n)
    countdown.store(left - n, std::memory_order_relaxed);
  else if (left != 0) [[unlikely]]
    build_descent_index(db, tree);
}

// descend() over resident pages to the leaf of the search's key, neither
// rank nor path kept: through the tree's descent index once it is built (an
// indexable tree: prefix keys, kIndexMinDepth levels or more), counting the
// descents until it is.
template <class Search>
DRYDB_ALWAYS_INLINE const std::byte* descend_resident(const DatabaseState& db, const TreeRef& tree,
                                                      const Search& search,
                                                      PageSlot** pin) noexcept {
  if constexpr (Search::kUsesRootHint) {
    if (tree.indexable) {
      if (const DescentIndex* index = tree.root_hint->index.load(std::memory_order_acquire))
        return db.try_fetch(prefetched_leaf(db, tree, *index, search, index->find(search.x),
                                            leaf_record_size_hint<Search>(tree)),
                            PageType::leaf, 0, pin);
      count_descents_without_index(db, tree, 1);
    }
  }
  return descend(ResidentPages{db}, tree, search, nullptr, nullptr, pin);
}

// get()'s hot path: the key's value over resident pages, read through the
// shared leaf accessors with the search's key layout (constants for
// prefix-key trees, so nothing is decoded that the layout rules out).
// Requires: the tree is not empty.
template <class Search>
DRYDB_ALWAYS_INLINE Probe probe(const DatabaseState& db, const TreeRef& tree, const Search& search,
                                ByteView* value, PageSlot** pin) noexcept {
  const std::byte* p = descend_resident(db, tree, search, pin);
  if (p == nullptr) return Probe::slow;
  bool found;
  const uint32_t i = search.slot(p, &found);
  if (!found) {
    unpin(*pin);
    *pin = nullptr;
    return Probe::absent;
  }
  const uint32_t n = leaf::count(p);
  const uint8_t flags = leaf::flags(p);
  note_leaf_record_size<Search>(tree, p, flags, search.fixed_part());
  if (leaf::is_overflow(p, n, flags, i)) [[unlikely]] {
    unpin(*pin);
    *pin = nullptr;
    return Probe::slow;
  }
  *value = leaf::value_field(p, leaf::records(p, n, flags), n, flags, search.fixed_part(),
                             search.variable(), i);
  return Probe::found;
}

// probe() of n <= kProbeBatch keys at once (the descent index or the root
// hint is used once made; probe() and the checked path fill the hint, and in
// an indexable tree these descents count toward the index): the descents
// advance level by level across the batch, and each key's next page (its
// header; in a tree whose descents prefetch, TreeRef::prefetch_leaves, the
// lines a leaf's search reads first, then its value) is prefetched before the
// other keys are searched, so their cache misses overlap instead of
// following each other. probes[j], values[j] and pins[j] are probe()'s
// answers for searches[j].
// Requires: the tree is not empty.
template <class Search>
DRYDB_ALWAYS_INLINE void probe_batch(const DatabaseState& db, const TreeRef& tree,
                                     const Search* searches, uint32_t n, Probe* probes,
                                     ByteView* values, PageSlot** pins) noexcept {
  assert(n <= kProbeBatch);
  const TreeDesc& d = *tree.desc;
  const uint32_t record_size = leaf_record_size_hint<Search>(tree);
  uint64_t page[kProbeBatch];
  uint32_t level = d.depth - 1;
  for (uint32_t j = 0; j < n; ++j) {
    page[j] = d.root;
    probes[j] = Probe::found;  // "still descending" until the leaf says otherwise
    pins[j] = nullptr;
  }
  if constexpr (Search::kUsesRootHint) {
    const RootHint& h = *tree.root_hint;
    const DescentIndex* index = tree.indexable ? h.index.load(std::memory_order_acquire) : nullptr;
    if (index != nullptr) {
      uint64_t xs[kProbeBatch];
      DescentIndex::Leaf leaves[kProbeBatch];
      for (uint32_t j = 0; j < n; ++j)
        xs[j] = searches[j].x;
      index->find_batch<kProbeBatch>(xs, n, leaves);
      for (uint32_t j = 0; j < n; ++j)
        page[j] = prefetched_leaf(db, tree, *index, searches[j], leaves[j], record_size);
      level = 0;
    } else if (tree.indexable) {
      count_descents_without_index(db, tree, n);
    }
    if (level > 0 && h.state.load(std::memory_order_acquire) == RootHint::kReady) {
      for (uint32_t j = 0; j < n; ++j) {
        const uint32_t c = searches[j].child(h);
        page[j] = load_u64(h.children + 8 * size_t{c});
        searches[j].prefetch_child(db, h.page, c, page[j], level == 1 && tree.prefetch_leaves,
                                   record_size);
      }
      --level;
    }
  }
  for (; level > 0; --level) {
    // Two passes: every key's page is fetched and the lines its search will
    // read are prefetched, then every key is searched, so the searches' cache
    // misses overlap across the batch instead of following each other.
    const std::byte* inner[kProbeBatch];
    PageSlot* inner_pins[kProbeBatch];
    uint32_t active[kProbeBatch];  // the keys still descending, and their pages and searches
    const std::byte* pages_of[kProbeBatch];
    Search searches_of[kProbeBatch];
    uint32_t m = 0;
    for (uint32_t j = 0; j < n; ++j) {
      if (probes[j] != Probe::found) continue;
      inner[j] = db.try_fetch(page[j], PageType::internal, level, &inner_pins[j]);
      if (inner[j] == nullptr) {
        probes[j] = Probe::slow;
        continue;
      }
      if (tree.prefetch_leaves) searches[j].prefetch_search(inner[j]);
      active[m] = j;
      pages_of[m] = inner[j];
      searches_of[m++] = searches[j];
    }
    uint32_t child[kProbeBatch];
    Search::children(searches_of, pages_of, m, child);
    for (uint32_t k = 0; k < m; ++k) {
      const uint32_t j = active[k], c = child[k];
      page[j] = load_u64(inner[j] + internal::children_off() + 8 * size_t{c});
      searches[j].prefetch_child(db, inner[j], c, page[j], level == 1 && tree.prefetch_leaves,
                                 record_size);
      unpin(inner_pins[j]);  // internal pages are permanent; a no-op that keeps the contract
    }
  }
  for (uint32_t j = 0; j < n; ++j) {
    if (probes[j] != Probe::found) continue;
    const std::byte* p = db.try_fetch(page[j], PageType::leaf, 0, &pins[j]);
    if (p == nullptr) {
      probes[j] = Probe::slow;
      continue;
    }
    bool found;
    const uint32_t i = searches[j].slot(p, &found);
    const uint32_t count = leaf::count(p);
    const uint8_t flags = leaf::flags(p);
    if (found && j == 0) note_leaf_record_size<Search>(tree, p, flags, searches[j].fixed_part());
    if (!found || leaf::is_overflow(p, count, flags, i)) {
      unpin(pins[j]);
      pins[j] = nullptr;
      probes[j] = found ? Probe::slow : Probe::absent;
      continue;
    }
    values[j] = leaf::value_field(p, leaf::records(p, count, flags), count, flags,
                                  searches[j].fixed_part(), searches[j].variable(), i);
    __builtin_prefetch(values[j].data());
  }
}

// The number of rows with a key < `key`, and whether `key` is present.
inline bool rank_of(const DatabaseState& db, const TreeRef& tree, ByteView key, uint64_t* rank,
                    bool* found, ErrorOut* err) {
  *rank = 0;
  *found = false;
  if (tree.desc->rows == 0) return true;
  return with_key_search(tree, key, [&](const auto& search) DRYDB_ALWAYS_INLINE_LAMBDA {
    PageSlot* pin;
    const std::byte* p = descend(CheckedPages{db, err}, tree, search, rank, nullptr, &pin,
                                 /*reads_value=*/false);
    if (p == nullptr) return false;
    *rank += search.slot(p, found);
    unpin(pin);
    return true;
  });
}

// rank_of() for two keys at once, their descents run side by side: a level
// of both per step, so the cache misses of the two paths overlap instead of
// following one another, and a page both paths cross is fetched once. Adds
// to rank[k] the rows below key k and sets found[k]. In a tree whose
// descents prefetch (TreeRef::prefetch_leaves), each child's first lines are
// prefetched as soon as its page number is known, a leaf's as descend()
// prefetches them. Requires: the tree is not empty.
template <class Pages, class Search>
DRYDB_ALWAYS_INLINE bool rank_pair_in(const Pages& pages, const TreeRef& tree,
                                      const Search (&search)[2], uint64_t rank[2], bool found[2]) {
  const TreeDesc& d = *tree.desc;
  uint64_t page[2] = {d.root, d.root};
  uint32_t level = d.depth - 1;
  // The internal page each path's next page was reached from (nullptr at the root), as which
  // child: a page loaded through it is checked against its fences.
  const std::byte* parent[2] = {nullptr, nullptr};
  uint32_t parent_child[2] = {0, 0};
  if constexpr (Search::kUsesRootHint) {
    const RootHint& h = *tree.root_hint;
    int state = h.state.load(std::memory_order_acquire);
    if (level > 0 && state == RootHint::kEmpty) [[unlikely]] {
      if (!load_root_hint(pages, tree)) return false;
      state = h.state.load(std::memory_order_acquire);
    }
    if (level > 0 && state == RootHint::kReady) {
      for (int k = 0; k < 2; ++k) {
        const uint32_t c = search[k].child(h);
        if (c > 0) rank[k] += load_u64(h.counts + 8 * size_t{c - 1});
        page[k] = load_u64(h.children + 8 * size_t{c});
        parent[k] = h.page;
        parent_child[k] = c;
        if (tree.prefetch_leaves)
          search[k].prefetch_child(pages.db, h.page, c, page[k], level == 1, 0);
      }
      --level;
    }
  }
  for (; level > 0; --level) {
    const std::byte* p[2];
    PageSlot* pin[2] = {nullptr, nullptr};
    for (int k = 0; k < 2; ++k) {
      p[k] = k == 1 && page[1] == page[0] ? p[0]
                                          : pages.child(tree, parent[k], parent_child[k], page[k],
                                                        PageType::internal, level, &pin[k]);
      if (p[k] == nullptr) {
        unpin(pin[0]);  // internal pages are permanent; no-ops that keep the contract
        return false;
      }
    }
    for (int k = 0; k < 2; ++k) {
      const uint32_t c = search[k].child(p[k]);
      const uint32_t n = load_u16(p[k] + page::kCountOff);
      if (c > 0) rank[k] += load_u64(p[k] + internal::counts_off(n) + 8 * size_t{c - 1});
      page[k] = load_u64(p[k] + internal::children_off() + 8 * size_t{c});
      if (tree.prefetch_leaves) search[k].prefetch_child(pages.db, p[k], c, page[k], level == 1, 0);
      parent[k] = p[k];
      parent_child[k] = c;
    }
    unpin(pin[0]);
    unpin(pin[1]);
  }
  PageSlot* pin[2] = {nullptr, nullptr};
  const std::byte* p[2];
  for (int k = 0; k < 2; ++k) {
    p[k] = k == 1 && page[1] == page[0]
               ? p[0]
               : pages.child(tree, parent[k], parent_child[k], page[k], PageType::leaf, 0, &pin[k]);
    if (p[k] == nullptr) {
      unpin(pin[0]);
      return false;
    }
  }
  for (int k = 0; k < 2; ++k)
    rank[k] += search[k].slot(p[k], &found[k]);
  unpin(pin[0]);
  unpin(pin[1]);
  return true;
}

// rank_of(a) and rank_of(b) (a count's bounds), into rank[0], found[0] and
// rank[1], found[1], the two descents side by side (rank_pair_in).
inline bool rank_pair(const DatabaseState& db, const TreeRef& tree, ByteView a, ByteView b,
                      uint64_t rank[2], bool found[2], ErrorOut* err) {
  rank[0] = rank[1] = 0;
  found[0] = found[1] = false;
  if (tree.desc->rows == 0) return true;
  if (tree.layout.prefix_search(a.size()) != tree.layout.prefix_search(b.size()))
    return rank_of(db, tree, a, &rank[0], &found[0], err) &&
           rank_of(db, tree, b, &rank[1], &found[1], err);
  return with_key_search(tree, a, [&](const auto& first) DRYDB_ALWAYS_INLINE_LAMBDA {
    using Search = std::decay_t<decltype(first)>;
    const Search searches[2] = {first, key_search_of<Search>(tree, b)};
    return rank_pair_in(CheckedPages{db, err}, tree, searches, rank, found);
  });
}

}  // namespace drydb::detail
