// Read-only views of validated leaf and internal pages, searched with
// prefix_search.h's searches over their arrays. Every page reaching these views has passed its
// checksum and the structural checks of page_check.cpp (offsets in bounds,
// keys strictly increasing, prefixes matching keys), so they index without
// further bounds checks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "drydb/detail/coding.h"
#include "drydb/detail/format.h"
#include "drydb/detail/prefix_search.h"

namespace drydb::detail {

// How a tree stores keys besides their prefixes (see format.h).
struct KeyLayout {
  uint16_t width;  // 0 = variable
  // The prefix is the whole key (fixed width <= 8): equal prefixes mean equal keys.
  bool prefix_is_key() const noexcept { return width != 0 && width <= 8; }
  // Whether a key of `key_size` bytes is found by its prefix alone: a key of
  // a prefix-key tree's own width. The one rule that picks a query's in-page
  // search (with_key_search in key_search.h).
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
// point lookup (lookup.h) with the ones it has just loaded. `fixed_part` is
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
  // none), and whether it is the key. key_search.h picks one per query.

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
  // of separators <= key. key_search.h picks one per query.

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
