// The searches of the read path over a page's sorted arrays, knowing
// nothing of pages: lower bounds over big-endian u64 prefixes (alone and in
// lockstep across a batch), the binary search of a run of equal prefixes,
// and byte-wise key comparison. node.h's page views and key_search.h's
// per-layout searches are built on them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>

#include "drydb/detail/coding.h"

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
  bool same_length = true;
  for (uint32_t j = 0; j < m; ++j) {
    base[j] = 0;
    len[j] = n[j] == 0 ? 1 : n[j];  // an empty array: steps reading arrays[j], answered below
    longest = len[j] > longest ? len[j] : longest;
    same_length = same_length && len[j] == len[0];
  }
  if (same_length) {
    // Arrays of one length (pages a builder filled alike): one window
    // length serves every search, which saves a load and a store per search
    // and step.
    for (; longest > 1; longest -= longest / 2) {
      const uint32_t half = longest / 2;
      for (uint32_t j = 0; j < m; ++j) {
        const uint64_t p = load_be64(arrays[j] + 8 * size_t{base[j] + half});
        base[j] = (kUpper ? p <= x[j] : p < x[j]) ? base[j] + half : base[j];
      }
    }
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

}  // namespace drydb::detail
