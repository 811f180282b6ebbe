// A prefix-key tree's internal pages as a get descends them, held in memory
// (DescentIndex): each internal page's separators, read where the verified
// page holds them, their count, and its children by position, down to the
// leaves' page numbers. A get over resident pages descends it without
// reading an internal page's header, child array or verified flag: lines
// that cost a cache miss per level once the internal pages outgrow the
// caches (bench/key_shape_notes.md).
//
// Made once per tree by build_descent_index() (src/read/descent_index.cpp)
// from pages that are verified and permanent, after the tree has served
// kIndexDescentsPerPage descents per internal page without it, so that a
// tree read a few times never pays for it and the first read after open
// stays a plain descent; the get that makes it reads every internal page
// once. Its memory: 8 bytes per leaf and 16 per internal page, about 0.2% of
// the tree with 4 KiB pages.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "drydb/detail/config.h"
#include "drydb/detail/prefix_search.h"

namespace drydb::detail {

// Descents per internal page a tree serves before its index is built. The
// build reads each internal page once, so a tree builds it only after its
// gets have read its internal pages many times over. A chosen ratio, not a
// measured one.
inline constexpr uint64_t kIndexDescentsPerPage = 64;

// The least depth of a tree that gets an index. In a tree of two levels the
// root hint (tree_ref.h) already holds the one internal page, and its search
// is cheaper: with the index, a get on 10,000 int64 keys took 235
// instructions against 190 (bench/key_shape_notes.md).
inline constexpr uint32_t kIndexMinDepth = 3;

class DescentIndex {
 public:
  // An internal page.
  struct Node {
    const std::byte* separators;  // big-endian prefixes, ascending, in the page
    uint32_t separator_count;     // children - 1
    uint32_t first_child;  // its first child's position: a node of the level below, or a leaf
  };
  // The leaf a key's descent reaches, and where its parent holds it.
  struct Leaf {
    uint64_t page;
    const Node* parent;
    uint32_t child;  // in parent
  };

  // `nodes` internal pages, level by level from the root, each level in key
  // order; `leaves` leaf page numbers in key order.
  DescentIndex(std::unique_ptr<Node[]> nodes, uint32_t node_count,
               std::unique_ptr<uint64_t[]> leaf_pages, uint32_t leaf_count,
               uint32_t internal_levels, uint32_t rows_per_leaf) noexcept
      : nodes_(std::move(nodes)),
        leaf_pages_(std::move(leaf_pages)),
        node_count_(node_count),
        leaf_count_(leaf_count),
        internal_levels_(internal_levels),
        rows_per_leaf_(rows_per_leaf) {}

  // The leaf whose key range holds prefix x: at each level the child
  // unique_prefix_upper_bound picks, as a descent through the pages does.
  DRYDB_ALWAYS_INLINE Leaf find(uint64_t x) const noexcept {
    const Node* node = nodes_.get();  // the root
    for (uint32_t level = internal_levels_;; --level) {
      const uint32_t c = unique_prefix_upper_bound(node->separators, node->separator_count, x);
      const uint32_t next = node->first_child + c;
      if (level == 1) return {leaf_pages_[next], node, c};
      node = nodes_.get() + next;
    }
  }

  // find() of xs[0 .. n), n <= kMax, into out: a level of every search
  // before the next level of any, their in-page searches in lockstep
  // (prefix_bound_lockstep), so that the cache misses of the batch overlap.
  template <uint32_t kMax>
  DRYDB_ALWAYS_INLINE void find_batch(const uint64_t* xs, uint32_t n, Leaf* out) const noexcept {
    const Node* node[kMax];
    const std::byte* arrays[kMax];
    uint32_t counts[kMax], child[kMax];
    for (uint32_t j = 0; j < n; ++j)
      node[j] = nodes_.get();
    for (uint32_t level = internal_levels_;; --level) {
      for (uint32_t j = 0; j < n; ++j) {
        arrays[j] = node[j]->separators;
        counts[j] = node[j]->separator_count;
      }
      prefix_bound_lockstep</*kUpper=*/true, kMax>(arrays, counts, xs, n, child);
      for (uint32_t j = 0; j < n; ++j) {
        const uint32_t next = node[j]->first_child + child[j];
        if (level == 1)
          out[j] = {leaf_pages_[next], node[j], child[j]};
        else
          node[j] = nodes_.get() + next;
      }
      if (level == 1) return;
    }
  }

  // The leaves' mean row count: a prefetch's guess of a leaf's rows, exact
  // for every leaf a builder filled but the last.
  uint32_t rows_per_leaf() const noexcept { return rows_per_leaf_; }
  // The memory it holds.
  uint64_t bytes() const noexcept {
    return sizeof(*this) + uint64_t{node_count_} * sizeof(Node) + uint64_t{leaf_count_} * 8;
  }

 private:
  std::unique_ptr<Node[]> nodes_;
  std::unique_ptr<uint64_t[]> leaf_pages_;
  uint32_t node_count_, leaf_count_;
  uint32_t internal_levels_;  // the tree's depth - 1, at least kIndexMinDepth - 1
  uint32_t rows_per_leaf_;
};

class DatabaseState;
struct TreeRef;

// Builds and publishes the DescentIndex of `tree` (RootHint::index), unless
// another descent has claimed the build: reads every internal page of the
// tree through DatabaseState::fetch, checked as a descent checks them; any
// page that fails, or is not permanent, leaves the tree without an index
// for good. Cold: once per tree.
[[gnu::cold, gnu::noinline]] void build_descent_index(const DatabaseState& db,
                                                      const TreeRef& tree) noexcept;

}  // namespace drydb::detail
