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
// A window of more than 16 prefixes is first cut to an eighth by 7 probes
// spread across it, in 7 different cache lines: their loads do not depend on
// each other, so their misses overlap, where a binary search waits for each
// of its first halvings in turn. A 4 KiB page's few hundred prefixes take two
// such rounds; the last 16 or fewer, in two or three lines, are halved
// branch-free (the compiler turns the select into a conditional move). The
// number of steps depends only on n, never on the data.
DRYDB_ALWAYS_INLINE uint32_t prefix_lower_bound(const std::byte* prefixes, uint32_t n,
                                                uint64_t x) noexcept {
  if (n == 0) return 0;
  // An index, not a pointer: (pointer difference) / 8 is a signed division,
  // which compilers may emit as an idiv on this path.
  uint32_t base = 0;
  uint32_t len = n;  // the answer is in [base, base + len]
  while (len > 16) {
    const uint32_t step = len / 8;
    // Probe i (1..7) is the last prefix of the window's i-th eighth; the
    // probes below x are a leading run of them, as the prefixes increase.
    uint32_t below = 0;
    for (uint32_t i = 1; i <= 7; ++i)
      below += load_be64(prefixes + 8 * size_t{base + i * step - 1}) < x ? 1u : 0u;
    base += below * step;
    len = below == 7 ? len - 7 * step : step - 1;
  }
  while (len > 1) {
    uint32_t half = len / 2;
    base = load_be64(prefixes + 8 * size_t{base + half}) < x ? base + half : base;
    len -= half;
  }
  return base + (load_be64(prefixes + 8 * size_t{base}) < x ? 1 : 0);
}

// prefix_lower_bound (kUpper false: the first prefix >= x[j]) or its upper
// bound (kUpper true: the first prefix > x[j]) of each of m searches, search
// j over the n[j] prefixes at arrays[j], into out[j]. The searches run in
// lockstep, a halving step of every search before the next step of any: the
// searches of a batch read different pages, so each step's loads are
// independent and their cache misses overlap, where one search alone waits
// for each of its loads in turn.
// Requires: m <= kMax, and 8 readable bytes at arrays[j] even when n[j] is 0.
template <bool kUpper, uint32_t kMax>
DRYDB_ALWAYS_INLINE void prefix_bound_lockstep(const std::byte* const* arrays, const uint32_t* n,
                                               const uint64_t* x, uint32_t m,
                                               uint32_t* out) noexcept {
  uint32_t base[kMax], len[kMax];
  uint32_t longest = 0;
  for (uint32_t j = 0; j < m; ++j) {
    base[j] = 0;
    len[j] = n[j] == 0 ? 1 : n[j];  // an empty array: steps reading arrays[j], answered below
    longest = len[j] > longest ? len[j] : longest;
  }
  // Every search takes as many steps as the longest needs: a search whose
  // window is down to one slot halves by 0, reloading the slot it holds
  // (a line in L1), which costs less than a branch per search and step.
  for (; longest > 1; longest -= longest / 2) {
    for (uint32_t j = 0; j < m; ++j) {
      const uint32_t half = len[j] / 2;
      const uint64_t p = load_be64(arrays[j] + 8 * size_t{base[j] + half});
      base[j] = (kUpper ? p <= x[j] : p < x[j]) ? base[j] + half : base[j];
      len[j] -= half;
    }
  }
  for (uint32_t j = 0; j < m; ++j) {
    if (n[j] == 0) {
      out[j] = 0;
      continue;
    }
    const uint64_t p = load_be64(arrays[j] + 8 * size_t{base[j]});
    out[j] = base[j] + ((kUpper ? p <= x[j] : p < x[j]) ? 1 : 0);
  }
}

// offset / span as a double, for offset <= span and span > 0: the share of
// a key range below a key, which interpolation multiplies by a slot count.
// Both are converted as signed integers (one instruction each, where an
// unsigned 64-bit conversion takes a branch and several), halved first only
// when span needs all 64 bits, which moves the ratio by less than any guess
// made from it can tell.
DRYDB_ALWAYS_INLINE double fraction_of(uint64_t offset, uint64_t span) noexcept {
  if (span >> 63) {
    offset >>= 1;
    span >>= 1;
  }
  return static_cast<double>(static_cast<int64_t>(offset)) /
         static_cast<double>(static_cast<int64_t>(span));
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
    const double t = fraction_of(below, last - first) * static_cast<double>(n - 1);
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

// The end of the run of prefixes equal to x that starts at i, where
// prefixes[i] == x: the first index after i whose prefix is greater, or n.
// Galloping from i (windows of 1, 2, 4, ... entries, then a binary search in
// the last), so a run of r entries costs about 2 log2(r) loads, and the
// usual run of one entry a single load. Always returns an index in
// [i + 1, n], whatever the bytes hold. Requires: i < n.
DRYDB_ALWAYS_INLINE uint32_t prefix_run_end(const std::byte* prefixes, uint32_t n, uint32_t i,
                                            uint64_t x) noexcept {
  if (x == ~uint64_t{0}) return n;  // nothing sorts above it
  uint32_t done = i + 1;            // prefixes[i .. done) are x
  for (uint32_t step = 1; done < n; step *= 2) {
    const uint32_t last = step <= n - done ? done + step - 1 : n - 1;  // of this window
    if (load_be64(prefixes + 8 * size_t{last}) != x)
      return done + prefix_lower_bound(prefixes + 8 * size_t{done}, last - done + 1, x + 1);
    done = last + 1;
  }
  return n;
}

// The slot of a key among a leaf's entries [lo, hi), which share its prefix,
// by a binary search with compare(i) (entry i against the key: < 0, 0, > 0):
// the equal entry, with *found set, else where the key would go. A leaf's
// keys are distinct, so the first equal entry is the answer.
template <class Compare>
DRYDB_ALWAYS_INLINE uint32_t search_run(uint32_t lo, uint32_t hi, Compare compare,
                                        bool* found) noexcept {
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo) / 2;
    const int c = compare(mid);
    if (c == 0) {
      *found = true;
      return mid;
    }
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
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
// whole 8-byte words are compared first, as big-endian numbers, then a
// 4-byte word and single bytes: no library call for the short tails of
// prefixed keys.
DRYDB_ALWAYS_INLINE int compare_bytes(ByteView a, ByteView b) noexcept {
  const std::byte* x = a.data();
  const std::byte* y = b.data();
  size_t n = a.size() < b.size() ? a.size() : b.size();
  for (; n >= 8; n -= 8, x += 8, y += 8) {
    const uint64_t u = load_be64(x), v = load_be64(y);
    if (u != v) return u < v ? -1 : 1;
  }
  if (n >= 4) {
    const uint32_t u = load_be32(x), v = load_be32(y);
    if (u != v) return u < v ? -1 : 1;
    n -= 4, x += 4, y += 4;
  }
  for (; n > 0; --n, ++x, ++y)
    if (*x != *y) return *x < *y ? -1 : 1;
  return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
}

// Where `key` falls against `shared`, the `len` bytes every key (or
// separator) of a prefixed page starts with: -1 below all of them, 1 above
// all of them, 0 when it starts with those bytes too.
DRYDB_ALWAYS_INLINE int compare_to_shared_prefix(ByteView key, const std::byte* shared,
                                                 size_t len) noexcept {
  const size_t common = key.size() < len ? key.size() : len;
  const int c = common ? std::memcmp(key.data(), shared, common) : 0;
  if (c != 0) return c < 0 ? -1 : 1;
  return key.size() < len ? -1 : 0;
}

// memcpy for the few bytes of a key's parts (at most kMaxPrefixedKeyLength
// where a rebuilt key's parts are copied), without a library call: a call
// makes its callers keep their values in saved registers, which a walk along
// a page of text keys paid for on every row.
DRYDB_ALWAYS_INLINE void copy_key_bytes(std::byte* dst, const std::byte* src, size_t n) noexcept {
  if (n > 16) {  // 16-byte copies, the last overlapping the one before
    struct Chunk {
      std::byte b[16];
    };
    for (size_t done = 0; done + 16 < n; done += 16) {
      Chunk c;
      std::memcpy(&c, src + done, 16);
      std::memcpy(dst + done, &c, 16);
    }
    Chunk last;
    std::memcpy(&last, src + n - 16, 16);
    std::memcpy(dst + n - 16, &last, 16);
  } else if (n >= 8) {  // two 8-byte copies that overlap
    uint64_t a, b;
    std::memcpy(&a, src, 8);
    std::memcpy(&b, src + n - 8, 8);
    std::memcpy(dst, &a, 8);
    std::memcpy(dst + n - 8, &b, 8);
  } else if (n >= 4) {
    uint32_t a, b;
    std::memcpy(&a, src, 4);
    std::memcpy(&b, src + n - 4, 4);
    std::memcpy(dst, &a, 4);
    std::memcpy(dst + n - 4, &b, 4);
  } else {
    for (size_t i = 0; i < n; ++i)
      dst[i] = src[i];
  }
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
  uint32_t part = fixed_part;
  if (variable) {
    const uint32_t m = load_u16(rec);
    part = 2u + ((flags & kPrefixedKeys) ? tail_size(m) : m);
  }
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
        fixed_part_(layout.fixed_part()),
        shared_len_(load_u16(page + leaf::kPrefixLenOff)) {  // 0 unless prefixed (checked)
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

  // Whether the page stores its keys after their shared prefix (format.h):
  // key() then rebuilds each key in the caller's buffer.
  bool prefixed() const noexcept { return flags_ & leaf::kPrefixedKeys; }
  // The bytes every key of a prefixed page starts with (empty otherwise).
  ByteView shared_prefix() const noexcept { return {records_, shared_len_}; }

  // Key i: a view of the page, or, on a prefixed page, of `buf`, where the
  // key is rebuilt (valid until buf is reused). `buf_has_shared`: buf holds
  // this page's shared prefix already (from an earlier call), which a walk
  // along the page then does not copy again.
  DRYDB_ALWAYS_INLINE ByteView key(uint32_t i, KeyBuffer& buf,
                                   bool buf_has_shared = false) const noexcept {
    if (key_base_ != nullptr) return strided_key(i);
    if (!prefixed()) return whole_key(i);
    return rebuilt_key(i, buf, buf_has_shared);
  }

  // Key i of a prefixed page (rebuilt as key() does) and its value field,
  // from one reading of its record.
  DRYDB_ALWAYS_INLINE ByteView prefixed_entry(uint32_t i, KeyBuffer& buf, bool buf_has_shared,
                                              ByteView* value_field) const noexcept {
    const std::byte* offsets = page_ + leaf::offsets_off(n_);
    const std::byte* rec = records_ + load_u16(offsets + 2 * size_t{i});
    const std::byte* end = records_ + load_u16(offsets + 2 * size_t{i} + 2);
    const uint32_t part = 2 + leaf::tail_size(load_u16(rec));
    *value_field = {rec + part, static_cast<size_t>(end - rec - part)};
    return rebuild_key(i, rec, buf, buf_has_shared);
  }

  // Whether no value of the page is an overflow run: every entry() is then
  // read from the page alone.
  bool all_inline() const noexcept { return !(flags_ & leaf::kHasOverflow); }

  // Key i and its value field from the page, for a page that is all_inline()
  // (a walk along it). On a prefixed page the key is rebuilt in buf, which
  // must hold the page's shared prefix already (buf_has_shared, as key()
  // leaves it).
  DRYDB_ALWAYS_INLINE ByteView inline_entry(uint32_t i, KeyBuffer& buf,
                                            ByteView* value_field) const noexcept {
    if (prefixed()) return prefixed_entry(i, buf, true, value_field);
    *value_field = this->value_field(i);
    return whole_key(i);
  }

  // Whether keys and values both sit at fixed strides (fixed-width keys,
  // uniform inline values): a walk then steps pointers (key_stride(),
  // record_size()) instead of decoding each entry.
  bool strided() const noexcept { return key_base_ != nullptr && (flags_ & leaf::kUniformValues); }
  uint32_t key_stride() const noexcept { return key_stride_; }
  // Key i of a strided leaf (in the page, at key_base + i * key_stride).
  ByteView strided_key(uint32_t i) const noexcept {
    return {key_base_ + size_t{key_stride_} * i, layout_.width};
  }
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
    if (prefixed()) return search_prefixed(key, found);
    const std::byte* prefixes = page_ + leaf::kHeaderSize;
    const uint32_t i = prefix_lower_bound(prefixes, n_, key_prefix);
    *found = false;
    if (i == n_ || prefix(i) != key_prefix) return i;
    return search_run(
        i, prefix_run_end(prefixes, n_, i, key_prefix),
        [&](uint32_t j) DRYDB_ALWAYS_INLINE_LAMBDA { return compare_bytes(whole_key(j), key); },
        found);
  }

 private:
  DRYDB_ALWAYS_INLINE const std::byte* record(uint32_t i) const noexcept {
    if (flags_ & leaf::kUniformValues) return records_ + size_t{record_size_} * i;
    return records_ + load_u16(page_ + leaf::offsets_off(n_) + 2 * i);
  }
  // Key i of a page that is not prefixed.
  ByteView whole_key(uint32_t i) const noexcept {
    if (key_base_ != nullptr) return strided_key(i);
    const std::byte* rec = record(i);
    if (layout_.width != 0) return {rec, layout_.width};
    return {rec + 2, load_u16(rec)};
  }

  // key() on a prefixed page, apart: its copies stay out of the callers of
  // the other layouts.
  ByteView rebuilt_key(uint32_t i, KeyBuffer& buf, bool buf_has_shared) const noexcept {
    return rebuild_key(i, record(i), buf, buf_has_shared);
  }
  // Key i of a prefixed page, whose record is `rec`, rebuilt in buf.
  DRYDB_ALWAYS_INLINE ByteView rebuild_key(uint32_t i, const std::byte* rec, KeyBuffer& buf,
                                           bool buf_has_shared) const noexcept {
    // Every field is read before the first store: a byte store may alias
    // this view, after which the compiler reads its fields again.
    const uint32_t m = load_u16(rec);
    const uint64_t head_bytes = prefix(i);
    const std::byte* const records = records_;
    const uint32_t shared = shared_len_;
    const std::byte* records_end = records + load_u16(page_ + leaf::offsets_off(n_) + 2 * n_);
    if (!buf_has_shared) copy_key_bytes(buf.bytes, records, shared);
    std::byte* head = buf.bytes + shared;
    store_be64(head, head_bytes);
    // The tail, rec[2 .. m-6): text keys' lengths vary from row to row, so a
    // walk along a page branched unpredictably on each one's copy. Where 32
    // bytes can be read from the record (the records area goes on that far)
    // and written after the head, they are copied whatever the tail's length.
    const size_t tail = leaf::tail_size(m);
    if (tail <= kFixedTailCopy && rec + 2 + kFixedTailCopy <= records_end &&
        shared + 8 + kFixedTailCopy <= sizeof(buf.bytes)) {
      std::byte chunk[kFixedTailCopy];
      std::memcpy(chunk, rec + 2, kFixedTailCopy);
      std::memcpy(head + 8, chunk, kFixedTailCopy);
    } else {
      copy_key_bytes(head + 8, rec + 2, tail);
    }
    return {buf.bytes, size_t{shared} + m};
  }
  static constexpr size_t kFixedTailCopy = 32;

  // search_bytes on a prefixed page: past the shared prefix, the heads in
  // the prefix array discriminate; entries of equal heads are ordered by
  // their tails, then (the heads being zero-padded) their lengths.
  DRYDB_ALWAYS_INLINE uint32_t search_prefixed(ByteView key, bool* found) const noexcept {
    *found = false;
    const int side = compare_to_shared_prefix(key, records_, shared_len_);
    if (side != 0) return side < 0 ? 0 : n_;
    const std::byte* rest = key.data() + shared_len_;
    const uint32_t m = static_cast<uint32_t>(key.size() - shared_len_);
    const uint64_t head = key_prefix(rest, m);
    const std::byte* heads = page_ + leaf::kHeaderSize;
    const uint32_t i = prefix_lower_bound(heads, n_, head);
    if (i == n_ || prefix(i) != head) return i;
    const ByteView tail = m > 8 ? ByteView(rest + 8, m - 8) : ByteView();
    return search_run(
        i, prefix_run_end(heads, n_, i, head),
        [&](uint32_t j) DRYDB_ALWAYS_INLINE_LAMBDA { return compare_tail(j, tail, m); }, found);
  }
  // Entry i of a prefixed page against a key of the same head whose length
  // past the shared prefix is m and whose tail is `tail`.
  DRYDB_ALWAYS_INLINE int compare_tail(uint32_t i, ByteView tail, uint32_t m) const noexcept {
    const std::byte* rec = record(i);
    const uint32_t mi = load_u16(rec);
    const int c = compare_bytes(ByteView(rec + 2, leaf::tail_size(mi)), tail);
    if (c != 0) return c;
    return mi < m ? -1 : (mi > m ? 1 : 0);
  }

  const std::byte* page_ = nullptr;
  uint32_t n_ = 0;
  uint8_t flags_ = 0;
  KeyLayout layout_{0};
  const std::byte* records_ = nullptr;
  uint32_t fixed_part_ = 0;              // key part bytes of fixed-width keys (0 when variable)
  uint32_t record_size_ = 0;             // with kUniformValues
  uint32_t shared_len_ = 0;              // with kPrefixedKeys: the shared prefix's length
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

  // Whether the page stores its separators after their shared prefix.
  bool prefixed() const noexcept {
    return static_cast<uint8_t>(page_[page::kFlagsOff]) & internal::kPrefixedKeys;
  }
  // The bytes every separator of a prefixed page starts with (empty otherwise).
  ByteView shared_prefix() const noexcept { return {heap(), shared_len()}; }

  // Separator s: a view of the page, or, on a prefixed page, of `buf`,
  // where it is rebuilt.
  ByteView separator(uint32_t s, KeyBuffer& buf) const noexcept {
    const ByteView part = stored_separator(s);
    if (!prefixed()) return part;
    const uint32_t shared = shared_len();
    std::memcpy(buf.bytes, heap(), shared);
    if (!part.empty()) std::memcpy(buf.bytes + shared, part.data(), part.size());
    return {buf.bytes, shared + part.size()};
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
  // of the separators sharing the prefix. On a prefixed page, past the
  // shared prefix, both are of the key's rest and the separators' stored parts.
  DRYDB_ALWAYS_INLINE uint32_t search_bytes(ByteView key, uint64_t key_prefix) const noexcept {
    uint32_t child;
    if (place(&key, &key_prefix, &child)) return child;
    return settle(prefix_lower_bound(prefixes(), separators(), key_prefix), key, key_prefix);
  }

  // search_bytes() in three steps, for a batch that runs the middle one in
  // lockstep: place(), then the first of the separators() prefixes at
  // prefixes() >= the head it leaves in *key_prefix, then settle().
  //
  // Places *key against the shared prefix of a prefixed page: true with the
  // answer in *child when it sorts below or above every separator; else
  // false, with *key and *key_prefix made the key's rest past the shared
  // prefix and its prefix (unchanged on a page that is not prefixed).
  DRYDB_ALWAYS_INLINE bool place(ByteView* key, uint64_t* key_prefix,
                                 uint32_t* child) const noexcept {
    if (!prefixed()) return false;
    const uint32_t shared = shared_len();
    const int side = compare_to_shared_prefix(*key, heap(), shared);
    if (side != 0) {
      *child = side < 0 ? 0 : separators();
      return true;
    }
    *key = key->subspan(shared);
    *key_prefix = detail::key_prefix(key->data(), key->size());
    return false;
  }
  const std::byte* prefixes() const noexcept { return page_ + internal::prefixes_off(n_); }
  uint32_t separators() const noexcept { return n_ - 1; }
  // The child, from lo, the first separator whose prefix is >= the key's:
  // among the separators sharing the key's prefix, the first one > key.
  DRYDB_ALWAYS_INLINE uint32_t settle(uint32_t lo, ByteView key,
                                      uint64_t key_prefix) const noexcept {
    const uint32_t seps = separators();
    const std::byte* heads = prefixes();
    if (lo < seps && load_be64(heads + 8 * size_t{lo}) == key_prefix) {
      uint32_t hi = prefix_run_end(heads, seps, lo, key_prefix);
      while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        const int c = compare_bytes(stored_separator(mid), key);
        if (c == 0) return mid + 1;  // separators are distinct
        if (c < 0)
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
  uint32_t shared_len() const noexcept {
    return prefixed() ? load_u16(page_ + internal::kPrefixLenOff) : 0;
  }
  // The separator heap of variable-length separators.
  const std::byte* heap() const noexcept { return page_ + internal::keys_off(n_) + 2 * n_; }
  // Separator s as the page stores it: whole, or after the shared prefix.
  ByteView stored_separator(uint32_t s) const noexcept {
    if (layout_.prefix_is_key()) return {page_ + internal::prefixes_off(n_) + 8 * s, layout_.width};
    const std::byte* keys = page_ + internal::keys_off(n_);
    if (layout_.width != 0) return {keys + size_t{layout_.width} * s, layout_.width};
    uint16_t a = load_u16(keys + 2 * s), b = load_u16(keys + 2 * (s + 1));
    return {heap() + a, static_cast<size_t>(b - a)};
  }

  const std::byte* page_;
  uint32_t n_;
  KeyLayout layout_;
};

}  // namespace drydb::detail
