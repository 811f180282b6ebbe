// The in-page searches of a descent, its Search parameter, one per key
// layout, with their prefetch rules: PrefixKeySearch where a key is its own
// 8-byte prefix (int64 and every fixed width up to 8), BytesSearch
// otherwise. with_key_search() picks one per query.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "drydb/detail/coding.h"
#include "drydb/detail/db_state.h"
#include "drydb/detail/node.h"
#include "drydb/detail/prefix_search.h"

namespace drydb::detail {

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
  // read first: its header line and, for a leaf, the lines prefetch_leaf
  // picks from the separators around c (the child's entry count is its row
  // count there).
  DRYDB_ALWAYS_INLINE void prefetch_child(const DatabaseState& db, const std::byte* parent,
                                          uint32_t c, uint64_t child, bool child_is_leaf,
                                          uint32_t record_size) const noexcept {
    const std::byte* p = db.prefetch_address(child);
    db.prefetch_line(p, 0);
    if (!child_is_leaf || p == nullptr) return;
    const uint32_t n = load_u16(parent + page::kCountOff);
    if (c == 0 || c + 1 >= n) return;  // a bound of the child's keys is not in this page
    const std::byte* seps = parent + internal::prefixes_off(n);
    const std::byte* counts = parent + internal::counts_off(n);
    prefetch_leaf(db, p, load_be64(seps + 8 * size_t{c - 1}), load_be64(seps + 8 * size_t{c}),
                  load_u64(counts + 8 * size_t{c}) - load_u64(counts + 8 * size_t{c - 1}),
                  record_size);
  }

  // Prefetches the lines of leaf `p` (its header line aside) that a search
  // for x reads first, the leaf's keys being in [lo, hi) and its rows about
  // `rows`: the prefix-array line where interpolation puts x, with a line on
  // either side (a guess on merely random keys is a few slots off), the
  // array's last line, and, when the leaf's records are `record_size` bytes
  // each (a guess: 0 for none), the lines around that slot's record, whose
  // value a get reads next. The bounds and rows come from what points to the
  // leaf and are trusted only this far: bounded by what a leaf can hold, the
  // guess and every offset stay small whatever they say.
  DRYDB_ALWAYS_INLINE void prefetch_leaf(const DatabaseState& db, const std::byte* p, uint64_t lo,
                                         uint64_t hi, uint64_t rows,
                                         uint32_t record_size) const noexcept {
    rows = std::min<uint64_t>(rows, db.page_size() / 8);
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

}  // namespace drydb::detail
