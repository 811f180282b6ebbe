// Read-only views of validated leaf and internal pages, and the in-page
// searches of the read path. Every page reaching these views has passed its
// checksum and the structural checks of page_check.cpp (offsets in bounds,
// keys strictly increasing, prefixes matching keys), so they index without
// further bounds checks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "drydb/detail/coding.h"
#include "drydb/detail/format.h"

namespace drydb::detail {

using ByteView = std::span<const std::byte>;

// First index i in [0, n) with prefixes[i] >= x (big-endian u64 array), or n.
// Branch-free halving: the loop runs log2(n) times whatever the data, and the
// compiler turns the select into a conditional move.
DRYDB_ALWAYS_INLINE uint32_t prefix_lower_bound(const std::byte* prefixes, uint32_t n,
                                                uint64_t x) noexcept {
  if (n == 0) return 0;
  // An index, not a pointer: (pointer difference) / 8 is a signed division,
  // which compilers may emit as an idiv on this path.
  uint32_t base = 0;
  uint32_t len = n;
  while (len > 1) {
    uint32_t half = len / 2;
    base = load_be64(prefixes + 8 * size_t{base + half}) < x ? base + half : base;
    len -= half;
  }
  return base + (load_be64(prefixes + 8 * size_t{base}) < x ? 1 : 0);
}

// prefix_lower_bound for prefixes that are distinct integers in increasing
// order (keys of a fixed width up to 8 bytes, whose prefix is the key). The
// answer j then lies in [n-1 - (last - x), x - first]: a window of one slot
// where keys are dense (consecutive ids). A wider window is entered where
// interpolation puts x; on evenly spaced keys (ids with gaps, the separators
// of an internal page) that guess is the answer, checked with two loads.
// Otherwise the binary search runs on the side of the guess that holds j.
// Always returns an index in [0, n], whatever the bytes hold.
DRYDB_ALWAYS_INLINE uint32_t unique_prefix_lower_bound(const std::byte* prefixes, uint32_t n,
                                                       uint64_t x) noexcept {
  if (n == 0) return 0;
  const uint64_t first = load_be64(prefixes);
  const uint64_t last = load_be64(prefixes + 8 * size_t{n - 1});
  if (x <= first) return 0;
  if (x > last) return n;
  const uint64_t above = last - x, below = x - first;
  uint32_t lo = above < n - 1 ? static_cast<uint32_t>(n - 1 - above) : 0;
  uint32_t hi = below < n - 1 ? static_cast<uint32_t>(below) : n - 1;
  if (hi < lo) return lo;  // only for corrupt (unordered) prefixes
  if (hi - lo >= 8) {
    // keys[0] < x <= keys[n-1], so j is in [1, n-1]: on evenly spaced keys
    // it is ceil((n-1) * (x - first) / (last - first)), computed in double.
    const double t =
        static_cast<double>(below) / static_cast<double>(last - first) * static_cast<double>(n - 1);
    uint32_t g = static_cast<uint32_t>(t);
    g += static_cast<double>(g) < t;
    g = g < lo ? lo : (g > hi ? hi : g);
    if (g > 0 && g > lo) {
      const bool at_or_after = load_be64(prefixes + 8 * size_t{g - 1}) < x;
      const bool at_or_before = load_be64(prefixes + 8 * size_t{g}) >= x;
      if (at_or_after && at_or_before) return g;
      // A near miss is the common case on keys that are merely random: step
      // away from the guess by 4, 8, 16, 32 slots (cache lines near it) until
      // j is bracketed; only a guess that is far off leaves the rest of that
      // side to the binary search.
      if (at_or_after) {  // keys[g-1] < keys[g] < x: j > g
        lo = g;
        for (uint32_t step = 2; step <= 64 && hi - lo > step; step *= 2) {
          if (load_be64(prefixes + 8 * size_t{lo + step}) >= x) {
            hi = lo + step;
            break;
          }
          lo += step;
        }
      } else {  // keys[g-1] >= x: j <= g-1
        hi = g - 1;
        for (uint32_t step = 2; step <= 64 && hi - lo > step; step *= 2) {
          if (load_be64(prefixes + 8 * size_t{hi - step - 1}) < x) {
            lo = hi - step;
            break;
          }
          hi -= step;
        }
      }
    }
  }
  return lo + prefix_lower_bound(prefixes + 8 * size_t{lo}, hi - lo + 1, x);
}

// The number of prefixes <= x (of distinct increasing ones): the child to
// follow in an internal page whose separators are these prefixes.
DRYDB_ALWAYS_INLINE uint32_t unique_prefix_upper_bound(const std::byte* prefixes, uint32_t n,
                                                       uint64_t x) noexcept {
  return x == ~uint64_t{0} ? n : unique_prefix_lower_bound(prefixes, n, x + 1);
}

// unique_prefix_lower_bound, and whether x is at the answer. Where the
// prefixes are dense up to x (consecutive ids), one load confirms slot
// x - first, before any search.
DRYDB_ALWAYS_INLINE uint32_t unique_prefix_find(const std::byte* prefixes, uint32_t n, uint64_t x,
                                                bool* found) noexcept {
  if (n == 0) {
    *found = false;
    return 0;
  }
  const uint64_t below = x - load_be64(prefixes);  // wraps when x < the first prefix
  if (below < n && load_be64(prefixes + 8 * below) == x) {
    *found = true;
    return static_cast<uint32_t>(below);
  }
  const uint32_t i = unique_prefix_lower_bound(prefixes, n, x);
  *found = i < n && load_be64(prefixes + 8 * size_t{i}) == x;
  return i;
}

// Byte-wise (memcmp) order, shorter first on a tie. Keys are short and often
// share leading bytes (the 8-byte prefixes a search has already matched), so
// whole 8-byte words are compared first, as big-endian numbers, without a
// library call; memcmp takes only a tail shorter than 8 bytes.
DRYDB_ALWAYS_INLINE int compare_bytes(ByteView a, ByteView b) noexcept {
  const std::byte* x = a.data();
  const std::byte* y = b.data();
  size_t n = a.size() < b.size() ? a.size() : b.size();
  for (; n >= 8; n -= 8, x += 8, y += 8) {
    const uint64_t u = load_be64(x), v = load_be64(y);
    if (u != v) return u < v ? -1 : 1;
  }
  const int c = n ? std::memcmp(x, y, n) : 0;
  if (c != 0) return c;
  return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
}

// How a tree stores keys besides their prefixes (see format.h).
struct KeyLayout {
  uint16_t width;  // 0 = variable
  // The prefix is the whole key (fixed width <= 8): equal prefixes mean equal keys.
  bool prefix_is_key() const noexcept { return width != 0 && width <= 8; }
  // Whether a key of `key_size` bytes is found by its prefix alone: a key of
  // a prefix-key tree's own width. The one rule that picks a query's in-page
  // search (with_key_search in descent.h).
  bool prefix_search(size_t key_size) const noexcept {
    return prefix_is_key() && key_size == width;
  }
  // The key part of a record of fixed-width keys: nothing when the prefix is
  // the key, else the key (variable-length keys: 0 here, a u16 length there).
  uint32_t fixed_part() const noexcept { return width <= 8 ? 0u : width; }
  uint32_t part_size(const std::byte* part) const noexcept {
    if (width == 0) return 2u + load_u16(part);
    return width <= 8 ? 0u : width;
  }
};

// Leaf fields, located from the leaf's count n and flags (format.h). Every
// reader of a leaf goes through these: LeafView with the fields it keeps, the
// point lookup (descent.h) with the ones it has just loaded. `fixed_part` is
// the key part's size for fixed-width keys (0 when the prefix is the key) and
// `variable` says the keys are variable-length (a u16 length starts each
// record); callers that know the layout pass constants, so an accessor
// compiles to the loads it needs and nothing else.
namespace leaf {
DRYDB_ALWAYS_INLINE uint32_t count(const std::byte* page) noexcept {
  return load_u16(page + page::kCountOff);
}
DRYDB_ALWAYS_INLINE uint8_t flags(const std::byte* page) noexcept {
  return static_cast<uint8_t>(page[page::kFlagsOff]);
}
DRYDB_ALWAYS_INLINE const std::byte* records(const std::byte* page, uint32_t n,
                                             uint8_t flags) noexcept {
  return page + records_off(n, flags);
}
// Whether entry i holds a 12-byte overflow reference instead of its value.
DRYDB_ALWAYS_INLINE bool is_overflow(const std::byte* page, uint32_t n, uint8_t flags,
                                     uint32_t i) noexcept {
  return (flags & kHasOverflow) &&
         (static_cast<uint8_t>(page[bitmap_off(n, flags) + i / 8]) >> (i % 8)) & 1;
}
// Entry i's value field: the inline value, or the overflow reference.
// `records` is records(page, n, flags).
DRYDB_ALWAYS_INLINE std::span<const std::byte> value_field(const std::byte* page,
                                                           const std::byte* records, uint32_t n,
                                                           uint8_t flags, uint32_t fixed_part,
                                                           bool variable, uint32_t i) noexcept {
  if (flags & kUniformValues) {  // fixed-width keys only
    const uint32_t len = load_u16(page + kUniformLenOff);
    return {records + size_t{fixed_part + len} * i + fixed_part, len};
  }
  const std::byte* offsets = page + offsets_off(n);
  const std::byte* rec = records + load_u16(offsets + 2 * size_t{i});
  const std::byte* end = records + load_u16(offsets + 2 * size_t{i} + 2);
  const uint32_t part = variable ? 2u + load_u16(rec) : fixed_part;
  return {rec + part, static_cast<size_t>(end - rec - part)};
}
}  // namespace leaf

class LeafView {
 public:
  LeafView() noexcept = default;
  LeafView(const std::byte* page, KeyLayout layout) noexcept
      : page_(page),
        n_(leaf::count(page)),
        flags_(leaf::flags(page)),
        layout_(layout),
        records_(leaf::records(page, n_, flags_)),
        fixed_part_(layout.fixed_part()) {
    if (flags_ & leaf::kUniformValues)
      record_size_ = fixed_part_ + load_u16(page + leaf::kUniformLenOff);
    // Where key i is when it sits at a fixed stride: in the prefix array
    // (fixed width <= 8), or in uniform records (wider fixed keys).
    if (layout.prefix_is_key()) {
      key_base_ = page + leaf::kHeaderSize;
      key_stride_ = 8;
    } else if (layout.width != 0 && (flags_ & leaf::kUniformValues)) {
      key_base_ = records_;
      key_stride_ = record_size_;
    }
  }

  const std::byte* page() const noexcept { return page_; }
  uint32_t size() const noexcept { return n_; }
  uint64_t prefix(uint32_t i) const noexcept {
    return load_be64(page_ + leaf::kHeaderSize + 8 * i);
  }

  ByteView key(uint32_t i) const noexcept {
    if (key_base_ != nullptr) return {key_base_ + size_t{key_stride_} * i, layout_.width};
    const std::byte* rec = record(i);
    if (layout_.width == 0) return {rec + 2, load_u16(rec)};
    return {rec, layout_.width};
  }

  // Whether keys and values both sit at fixed strides (fixed-width keys,
  // uniform inline values): a walk then steps pointers (key_stride(),
  // record_size()) instead of decoding each entry.
  bool strided() const noexcept { return key_base_ != nullptr && (flags_ & leaf::kUniformValues); }
  uint32_t key_stride() const noexcept { return key_stride_; }
  uint32_t record_size() const noexcept { return record_size_; }

  bool is_overflow(uint32_t i) const noexcept { return leaf::is_overflow(page_, n_, flags_, i); }

  // The inline value bytes, or the 12-byte overflow reference.
  ByteView value_field(uint32_t i) const noexcept {
    return leaf::value_field(page_, records_, n_, flags_, fixed_part_, layout_.width == 0, i);
  }

  // The in-page searches: the first index whose key is >= the key (n if
  // none), and whether it is the key. descent.h picks one per query.

  // In leaf `page` of a prefix-key tree, for a key of the tree's width given
  // as its prefix x: equal prefixes are equal keys.
  DRYDB_ALWAYS_INLINE static uint32_t search_prefix_key(const std::byte* page, uint64_t x,
                                                        bool* found) noexcept {
    return unique_prefix_find(page + leaf::kHeaderSize, leaf::count(page), x, found);
  }

  // For any key: the prefix search, then a binary search by full comparison
  // of the keys sharing the prefix.
  DRYDB_ALWAYS_INLINE uint32_t search_bytes(ByteView key, uint64_t key_prefix,
                                            bool* found) const noexcept {
    uint32_t i = prefix_lower_bound(page_ + leaf::kHeaderSize, n_, key_prefix);
    uint32_t hi = n_;
    if (i < n_ && prefix(i) == key_prefix) {
      hi = key_prefix == ~uint64_t{0}
               ? n_
               : prefix_lower_bound(page_ + leaf::kHeaderSize, n_, key_prefix + 1);
      uint32_t lo = i;
      while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (compare_bytes(this->key(mid), key) < 0)
          lo = mid + 1;
        else
          hi = mid;
      }
      i = lo;
    }
    *found = i < n_ && compare_bytes(this->key(i), key) == 0;
    return i;
  }

 private:
  const std::byte* record(uint32_t i) const noexcept {
    if (flags_ & leaf::kUniformValues) return records_ + size_t{record_size_} * i;
    return records_ + load_u16(page_ + leaf::offsets_off(n_) + 2 * i);
  }

  const std::byte* page_ = nullptr;
  uint32_t n_ = 0;
  uint8_t flags_ = 0;
  KeyLayout layout_{0};
  const std::byte* records_ = nullptr;
  uint32_t fixed_part_ = 0;              // key part bytes of fixed-width keys (0 when variable)
  uint32_t record_size_ = 0;             // with kUniformValues
  const std::byte* key_base_ = nullptr;  // keys at a fixed stride from here, or nullptr
  uint32_t key_stride_ = 0;
};

class InternalView {
 public:
  InternalView(const std::byte* page, KeyLayout layout) noexcept
      : page_(page), n_(load_u16(page + page::kCountOff)), layout_(layout) {}

  uint32_t size() const noexcept { return n_; }
  uint32_t level() const noexcept { return load_u16(page_ + internal::kLevelOff); }
  uint64_t child(uint32_t i) const noexcept {
    return load_u64(page_ + internal::children_off() + 8 * i);
  }
  // Rows in children 0..i.
  uint64_t cumulative(uint32_t i) const noexcept {
    return load_u64(page_ + internal::counts_off(n_) + 8 * i);
  }
  // Rows in children before i.
  uint64_t rows_before(uint32_t i) const noexcept { return i == 0 ? 0 : cumulative(i - 1); }

  ByteView separator(uint32_t s) const noexcept {
    if (layout_.prefix_is_key()) return {page_ + internal::prefixes_off(n_) + 8 * s, layout_.width};
    const std::byte* keys = page_ + internal::keys_off(n_);
    if (layout_.width != 0) return {keys + size_t{layout_.width} * s, layout_.width};
    const std::byte* heap = keys + 2 * n_;
    uint16_t a = load_u16(keys + 2 * s), b = load_u16(keys + 2 * (s + 1));
    return {heap + a, static_cast<size_t>(b - a)};
  }

  // The in-page searches: the child whose subtree holds the key, the number
  // of separators <= key. descent.h picks one per query.

  // In internal page `page` of a prefix-key tree, for a key of the tree's
  // width given as its prefix x.
  DRYDB_ALWAYS_INLINE static uint32_t search_prefix_key(const std::byte* page,
                                                        uint64_t x) noexcept {
    const uint32_t n = load_u16(page + page::kCountOff);
    return unique_prefix_upper_bound(page + internal::prefixes_off(n), n - 1, x);
  }

  // For any key: the prefix search, then a binary search by full comparison
  // of the separators sharing the prefix.
  DRYDB_ALWAYS_INLINE uint32_t search_bytes(ByteView key, uint64_t key_prefix) const noexcept {
    const std::byte* prefixes = page_ + internal::prefixes_off(n_);
    const uint32_t seps = n_ - 1;
    uint32_t lo = prefix_lower_bound(prefixes, seps, key_prefix);
    uint32_t hi = seps;
    if (lo < seps && load_be64(prefixes + 8 * lo) == key_prefix) {
      if (key_prefix != ~uint64_t{0}) hi = prefix_lower_bound(prefixes, seps, key_prefix + 1);
      while (lo < hi) {  // first separator > key among those sharing the prefix
        uint32_t mid = lo + (hi - lo) / 2;
        if (compare_bytes(separator(mid), key) <= 0)
          lo = mid + 1;
        else
          hi = mid;
      }
    }
    return lo;
  }

  // The child holding the row of rank r (0-based within this subtree) and
  // the rows before it. Requires: r < cumulative(n-1).
  uint32_t child_for_rank(uint64_t r) const noexcept {
    uint32_t lo = 0, hi = n_ - 1;
    while (lo < hi) {
      uint32_t mid = lo + (hi - lo) / 2;
      if (cumulative(mid) > r)
        hi = mid;
      else
        lo = mid + 1;
    }
    return lo;
  }

 private:
  const std::byte* page_;
  uint32_t n_;
  KeyLayout layout_;
};

}  // namespace drydb::detail
