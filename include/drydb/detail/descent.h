// The tree descents of the read path: one by key, one by rank. Every query
// reaches its leaf through them (get, cursors and so ranges, prefixes and
// index queries, for every key layout), but for three walks of their own:
// probe_batch, get_many's descent of several keys at once with the same
// searches; rank_pair_in, a count's two bounds descended side by side; and a
// cursor's step along the tree's edge to a neighbouring leaf
// (Cursor::descend).
//
// A descent has two parameters:
//   - Pages, how pages are read: ResidentPages (pages already resident and
//     verified, no error object: the point-lookup hot path, which repeats the
//     query with CheckedPages on a nullptr) or CheckedPages (loads missing
//     pages, verifies first-touched ones, explains every failure);
//   - Search, the in-page search for the key's layout, chosen once per query
//     by with_key_search(): PrefixKeySearch where a key is its own 8-byte
//     prefix (int64 and every fixed width up to 8), BytesSearch otherwise.
// Both are inlined into the descent, so each pair compiles to its own loop
// with nothing decided per page that was known before it.
#pragma once

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <string>
#include <type_traits>

#include "drydb/detail/coding.h"
#include "drydb/detail/db_state.h"
#include "drydb/detail/miss_filter.h"
#include "drydb/detail/node.h"
#include "drydb/key.h"

namespace drydb::detail {

// ---- key checks ---------------------------------------------------------------

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

// ---- page access ----------------------------------------------------------------

// Pages already resident and verified, read with no error object and no
// lock. A nullptr page (a miss, a first touch, a bad page) sends the caller
// to the same query with CheckedPages, which loads, checks and explains.
struct ResidentPages {
  const DatabaseState& db;
  DRYDB_ALWAYS_INLINE const std::byte* page(const TreeRef&, uint64_t page, PageType type,
                                            uint32_t level, PageSlot** pin) const noexcept {
    return db.try_fetch(page, type, level, pin);
  }
  // page(), for child `child` of internal page `parent` (nullptr: the root): resident pages
  // were checked when they entered memory, so the parent is not needed (and a descent's
  // bookkeeping of it is dead code here).
  DRYDB_ALWAYS_INLINE const std::byte* child(const TreeRef& tree, const std::byte*, uint32_t,
                                             uint64_t page, PageType type, uint32_t level,
                                             PageSlot** pin) const noexcept {
    return this->page(tree, page, type, level, pin);
  }
  void corrupt(const TreeRef&, uint64_t, const char*) const noexcept {}
};

// Pages through DatabaseState::fetch(): loaded when missing, verified on
// their first touch; a nullptr page comes with its error in *err.
struct CheckedPages {
  const DatabaseState& db;
  ErrorOut* err;
  DRYDB_ALWAYS_INLINE const std::byte* page(const TreeRef& tree, uint64_t page, PageType type,
                                            uint32_t level, PageSlot** pin) const {
    return db.fetch(tree, page, type, level, pin, err);
  }
  // page(), for child `child` of internal page `parent` (nullptr: the root): a page loaded
  // here is also checked against the separators `parent` gives it (check_child_fences).
  DRYDB_ALWAYS_INLINE const std::byte* child(const TreeRef& tree, const std::byte* parent,
                                             uint32_t child, uint64_t page, PageType type,
                                             uint32_t level, PageSlot** pin) const {
    return db.fetch(tree, page, type, level, pin, err, ParentRef{parent, child});
  }
  [[gnu::cold]] void corrupt(const TreeRef& tree, uint64_t page, const char* what) const {
    *err = corruption_at(tree, page, what);
  }
};

// ---- in-page searches -------------------------------------------------------------

// Lookups per batch of probe_batch: enough independent misses in flight to
// fill the memory pipeline, few enough that a batch's pages stay in L1.
inline constexpr uint32_t kProbeBatch = 8;

// The child of a prefix-key root holding x, through its hint: the
// interpolation's guess (the answer on evenly spaced separators) checked
// with two loads, else the search.
DRYDB_ALWAYS_INLINE uint32_t prefix_key_child(const RootHint& h, uint64_t x) noexcept {
  if (x == ~uint64_t{0}) return h.separators;
  const uint64_t y = x + 1;  // the answer: the number of separators < y
  if (y <= h.first) return 0;
  if (y > h.last) return h.separators;
  // first < y <= last, so the answer is in [1, separators - 1].
  const double t = static_cast<double>(static_cast<int64_t>((y - h.first) >> h.shift)) * h.scale;
  uint32_t g = static_cast<uint32_t>(t);
  g += static_cast<double>(g) < t;
  g = g < 1 ? 1 : (g > h.separators - 1 ? h.separators - 1 : g);
  if (load_be64(h.prefixes + 8 * size_t{g - 1}) < y && load_be64(h.prefixes + 8 * size_t{g}) >= y)
    return g;
  return unique_prefix_lower_bound(h.prefixes, h.separators, y);
}

// A key of a prefix-key tree's own width, as its prefix x: equal prefixes
// are equal keys, so no page needs a full-key comparison, and the root's
// child comes from its hint.
struct PrefixKeySearch {
  uint64_t x;
  static constexpr bool kUsesRootHint = true;
  // prefetch_child places the guessed slot's record by a record size.
  static constexpr bool kUsesRecordSize = true;
  // The key part of a record: nothing (the prefix is the key).
  static constexpr uint32_t kFixedPart = 0;
  static constexpr bool kVariable = false;

  DRYDB_ALWAYS_INLINE uint32_t child(const std::byte* internal_page) const noexcept {
    return InternalView::search_prefix_key(internal_page, x);
  }
  DRYDB_ALWAYS_INLINE uint32_t child(const RootHint& h) const noexcept {
    return prefix_key_child(h, x);
  }
  DRYDB_ALWAYS_INLINE uint32_t slot(const std::byte* leaf_page, bool* found) const noexcept {
    return LeafView::search_prefix_key(leaf_page, x, found);
  }
  DRYDB_ALWAYS_INLINE uint32_t slot(const LeafView& leaf, bool* found) const noexcept {
    return LeafView::search_prefix_key(leaf.page(), x, found);
  }

  // child() of a batch (probe_batch): searches[j] in internal pages[j],
  // j < m <= kProbeBatch, the binary searches run in lockstep
  // (prefix_bound_lockstep) so that the batch's cache misses overlap:
  // interpolation, which a single descent uses, is a chain of dependent loads
  // where separators are unevenly spaced (clustered keys). A batch's leaves
  // are searched one by one with slot(): their lines around the guessed slot
  // were prefetched (prefetch_child), so the guess costs fewer instructions
  // than a binary search and waits on no miss.
  DRYDB_ALWAYS_INLINE static void children(const PrefixKeySearch* searches,
                                           const std::byte* const* pages, uint32_t m,
                                           uint32_t* out) noexcept {
    const std::byte* arrays[kProbeBatch];
    uint32_t n[kProbeBatch];
    uint64_t x[kProbeBatch];
    for (uint32_t j = 0; j < m; ++j) {
      const uint32_t count = load_u16(pages[j] + page::kCountOff);
      arrays[j] = pages[j] + internal::prefixes_off(count);
      n[j] = count - 1;  // separators: the number <= x is the child
      x[j] = searches[j].x;
    }
    prefix_bound_lockstep</*kUpper=*/true, kProbeBatch>(arrays, n, x, m, out);
  }
  uint32_t fixed_part() const noexcept { return kFixedPart; }
  bool variable() const noexcept { return kVariable; }

  // Prefetches what children() will read first of internal page `page`
  // past its header: the lines of the first two steps of its binary search.
  // For a batch, whose searches then find those lines arriving together.
  DRYDB_ALWAYS_INLINE void prefetch_search(const std::byte* page) const noexcept {
    const uint32_t n = load_u16(page + page::kCountOff);
    if (n < 3) return;
    const std::byte* seps = page + internal::prefixes_off(n);
    // prefix_bound_lockstep's first probe is at k / 2, its second at half of either half.
    const size_t k = n - 1, half = k / 2, quarter = (k - half) / 2;
    __builtin_prefetch(seps + 8 * half);
    __builtin_prefetch(seps + 8 * quarter);
    __builtin_prefetch(seps + 8 * (half + quarter));
  }

  // Prefetches what the search of child c of internal page `parent` will
  // read first: its header line and, for a leaf, the prefix-array line where
  // interpolation between the separators around c puts x (the child's entry
  // count is its row count there) with a line on either side (a guess on
  // merely random keys is a few slots off), the array's last line, and, when
  // the leaf's records are `record_size` bytes each (a guess: 0 for none),
  // the lines around that slot's record, whose value a get reads next.
  DRYDB_ALWAYS_INLINE void prefetch_child(const DatabaseState& db, const std::byte* parent,
                                          uint32_t c, uint64_t child, bool child_is_leaf,
                                          uint32_t record_size) const noexcept {
    const std::byte* p = db.prefetch_address(child);
    db.prefetch_line(p, 0);
    if (!child_is_leaf || p == nullptr) return;
    const uint32_t n = load_u16(parent + page::kCountOff);
    if (c == 0 || c + 1 >= n) return;  // a bound of the child's keys is not in this page
    const std::byte* seps = parent + internal::prefixes_off(n);
    const uint64_t lo = load_be64(seps + 8 * size_t{c - 1}), hi = load_be64(seps + 8 * size_t{c});
    const std::byte* counts = parent + internal::counts_off(n);
    // The counts of a verified page increase; bounded by what a leaf can hold, the guess and
    // every offset below stay small whatever they say.
    const uint64_t rows =
        std::min<uint64_t>(load_u64(counts + 8 * size_t{c}) - load_u64(counts + 8 * size_t{c - 1}),
                           db.page_size() / 8);
    if (hi <= lo || rows == 0) return;
    const uint32_t slots = static_cast<uint32_t>(rows);
    const uint32_t guess =
        std::min(static_cast<uint32_t>(fraction_of(x - lo, hi - lo) * slots), slots - 1);
    const uint64_t at = leaf::kHeaderSize + 8 * guess;
    db.prefetch_line(p, at - 64);  // at >= 32: a wrapped offset is past the page
    db.prefetch_line(p, at);
    db.prefetch_line(p, at + 64);
    db.prefetch_line(p, leaf::kHeaderSize + 8 * (rows - 1));
    if (record_size != 0) {
      const uint64_t rec = leaf::kHeaderSize + 8 * rows + guess * record_size;
      db.prefetch_line(p, rec - 64);
      db.prefetch_line(p, rec);
      db.prefetch_line(p, rec + 64);
    }
  }
};

// Any other key: prefixes first, then full comparisons among the entries
// that share the key's prefix.
struct BytesSearch {
  ByteView key;
  uint64_t prefix;
  KeyLayout layout;
  static constexpr bool kUsesRootHint = false;
  static constexpr bool kUsesRecordSize = false;

  DRYDB_ALWAYS_INLINE uint32_t child(const std::byte* internal_page) const noexcept {
    return InternalView(internal_page, layout).search_bytes(key, prefix);
  }
  uint32_t child(const RootHint&) const noexcept = delete;
  DRYDB_ALWAYS_INLINE uint32_t slot(const std::byte* leaf_page, bool* found) const noexcept {
    return LeafView(leaf_page, layout).search_bytes(key, prefix, found);
  }
  DRYDB_ALWAYS_INLINE uint32_t slot(const LeafView& leaf, bool* found) const noexcept {
    return leaf.search_bytes(key, prefix, found);
  }

  // child() of a batch, as PrefixKeySearch has it: the searches of the
  // prefixes in lockstep, each key's placement against its page's shared
  // prefix before and its full comparisons after (InternalView::place,
  // settle).
  DRYDB_ALWAYS_INLINE static void children(const BytesSearch* searches,
                                           const std::byte* const* pages, uint32_t m,
                                           uint32_t* out) noexcept {
    constexpr uint32_t kPending = ~uint32_t{0};
    const std::byte* arrays[kProbeBatch];
    uint32_t n[kProbeBatch];
    uint64_t heads[kProbeBatch];
    ByteView rests[kProbeBatch];
    for (uint32_t j = 0; j < m; ++j) {
      const InternalView node(pages[j], searches[j].layout);
      rests[j] = searches[j].key;
      heads[j] = searches[j].prefix;
      arrays[j] = node.prefixes();
      n[j] = 0;
      if (node.place(&rests[j], &heads[j], &out[j])) continue;
      n[j] = node.separators();
      out[j] = kPending;
    }
    uint32_t lo[kProbeBatch];
    prefix_bound_lockstep</*kUpper=*/false, kProbeBatch>(arrays, n, heads, m, lo);
    for (uint32_t j = 0; j < m; ++j)
      if (out[j] == kPending)
        out[j] = InternalView(pages[j], searches[j].layout).settle(lo[j], rests[j], heads[j]);
  }
  uint32_t fixed_part() const noexcept { return layout.fixed_part(); }
  bool variable() const noexcept { return layout.width == 0; }

  // Nothing: a search of byte keys reads an internal page's prefix array
  // where binary search takes it, which no guess places.
  void prefetch_search(const std::byte*) const noexcept {}

  // Lines of a leaf's prefix array prefetched at most: a binary search over
  // up to this many lines then waits for about one miss instead of one per
  // step, at the cost of reading lines it does not need. 32 lines hold the
  // 250 prefixes of a 4 KiB leaf of short keys; a leaf of URL-like keys
  // (about 130 rows) needs 17.
  static constexpr uint64_t kPrefetchLines = 32;

  // Prefetches the child's header line; for a leaf (whose entry count is its
  // row count in the parent) also its prefix array, which the binary search
  // reads at scattered places (the middle first; all of it up to
  // kPrefetchLines lines), and for variable-length keys about the start of
  // its records area (exactly, when the leaf has no overflow bitmap), where a
  // prefixed page keeps its shared prefix.
  DRYDB_ALWAYS_INLINE void prefetch_child(const DatabaseState& db, const std::byte* parent,
                                          uint32_t c, uint64_t child, bool child_is_leaf,
                                          uint32_t /*record_size*/) const noexcept {
    const std::byte* p = db.prefetch_address(child);
    db.prefetch_line(p, 0);
    if (!child_is_leaf || p == nullptr) return;
    const InternalView node(parent, layout);
    const uint64_t rows =
        std::min<uint64_t>(node.cumulative(c) - node.rows_before(c), db.page_size() / 8);
    const uint64_t end = leaf::kHeaderSize + 8 * rows;
    if (end <= kPrefetchLines * 64) {
      for (uint64_t at = 64; at < end; at += 64)
        db.prefetch_line(p, at);
    } else {
      db.prefetch_line(p, leaf::kHeaderSize + 8 * (rows / 2));
    }
    if (layout.width == 0) db.prefetch_line(p, end + 2 * (rows + 1));
  }
};

// Calls f with the search for `key` on `tree`: the one place the choice is made.
template <class F>
DRYDB_ALWAYS_INLINE decltype(auto) with_key_search(const TreeRef& tree, ByteView key, F&& f) {
  const uint64_t prefix = key_prefix(key.data(), key.size());
  if (tree.layout.prefix_search(key.size())) return f(PrefixKeySearch{prefix});
  return f(BytesSearch{key, prefix, tree.layout});
}

// ---- descents ------------------------------------------------------------------------

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

// get()'s hot path: the key's value over resident pages, read through the
// shared leaf accessors with the search's key layout (constants for
// prefix-key trees, so nothing is decoded that the layout rules out).
// Requires: the tree is not empty.
template <class Search>
DRYDB_ALWAYS_INLINE Probe probe(const DatabaseState& db, const TreeRef& tree, const Search& search,
                                ByteView* value, PageSlot** pin) noexcept {
  const std::byte* p = descend(ResidentPages{db}, tree, search, nullptr, nullptr, pin);
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

// probe() of n <= kProbeBatch keys at once (the root hint is used once
// filled; probe() and the checked path fill it): the descents advance level by
// level across the batch, and each key's next page (its header; in a tree
// whose descents prefetch, TreeRef::prefetch_leaves, the lines a leaf's
// search reads first, then its value) is prefetched before the other keys are
// searched, so their cache misses overlap instead of following each other.
// probes[j], values[j] and pins[j] are probe()'s answers for searches[j].
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

// The search `with_key_search` would pick for `key`, when it picks Search.
// Requires: it does (KeyLayout::prefix_search says so).
template <class Search>
DRYDB_ALWAYS_INLINE Search key_search_of(const TreeRef& tree, ByteView key) noexcept {
  const uint64_t prefix = key_prefix(key.data(), key.size());
  if constexpr (std::is_same_v<Search, PrefixKeySearch>)
    return PrefixKeySearch{prefix};
  else
    return BytesSearch{key, prefix, tree.layout};
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
