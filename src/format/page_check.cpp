#include "format/page_check.h"

#include <algorithm>
#include <string>

#include "drydb/detail/catalog.h"
#include "drydb/detail/coding.h"
#include "drydb/detail/format.h"
#include "drydb/detail/index_coding.h"
#include "drydb/detail/node.h"
#include "format/checksum.h"

namespace drydb::detail {
namespace {

bool bad(const TreeRef& tree, uint64_t page, const std::string& why, ErrorOut* err) {
  *err = Error(errc::corruption, tree.label + ", page " + std::to_string(page) + ": " + why);
  return false;
}

bool in_tree(const TreeRef& tree, uint64_t page) {
  return page >= tree.desc->first_page && page < tree.desc->end_page;
}

// A key stored as its prefix only (fixed width <= 8) must have zero padding.
bool prefix_padding_ok(const KeyLayout& layout, const std::byte* prefix) {
  for (uint32_t b = layout.width; b < 8; ++b)
    if (prefix[b] != std::byte{0}) return false;
  return true;
}

bool check_leaf(const TreeRef& tree, uint64_t page, const std::byte* p, uint32_t page_size,
                ErrorOut* err) {
  const KeyLayout layout = tree.layout;
  const uint32_t n = load_u16(p + page::kCountOff);
  const uint8_t flags = static_cast<uint8_t>(p[page::kFlagsOff]);
  if (n == 0) return bad(tree, page, "leaf with no entries", err);
  if (flags & ~leaf::kKnownFlags) return bad(tree, page, "unknown leaf flags", err);
  const bool uniform = flags & leaf::kUniformValues;
  if (uniform && ((flags & leaf::kHasOverflow) || layout.width == 0))
    return bad(tree, page, "uniform-value flag on a leaf that cannot have it", err);
  if (!uniform && load_u16(p + leaf::kUniformLenOff) != 0)
    return bad(tree, page, "value length set on a non-uniform leaf", err);
  const bool prefixed = flags & leaf::kPrefixedKeys;
  if (prefixed && layout.width != 0)
    return bad(tree, page, "prefixed-keys flag on a leaf of fixed-width keys", err);
  // With kPrefixedKeys, the shared prefix's length; else reserved, zero.
  const uint32_t shared = load_u16(p + leaf::kPrefixLenOff);
  if (!prefixed && shared != 0) return bad(tree, page, "reserved bytes are not zero", err);
  if (shared > kMaxPrefixedKeyLength)
    return bad(tree, page, "shared key prefix longer than the limit", err);
  for (size_t off : {leaf::kPrevOff, leaf::kNextOff}) {
    uint64_t sibling = load_u64(p + off);
    if (sibling != 0 && !in_tree(tree, sibling))
      return bad(tree, page, "sibling outside its tree", err);
  }
  const size_t records = leaf::records_off(n, flags);
  if (records > page_size) return bad(tree, page, "entry count too large for the page", err);
  const uint32_t max_key = max_key_length(page_size);
  const uint32_t inline_limit = inline_value_limit(page_size);
  if (uniform) {
    const uint32_t value_len = load_u16(p + leaf::kUniformLenOff);
    const uint64_t record = uint64_t{layout.part_size(nullptr)} + value_len;
    if (value_len > inline_limit || records + record * n > page_size)
      return bad(tree, page, "uniform records overrun the page", err);
  } else {
    const std::byte* offsets = p + leaf::offsets_off(n);
    if (load_u16(offsets) != shared)  // the shared prefix comes first
      return bad(tree, page, "first record offset is not the shared prefix's length", err);
    const uint32_t end = load_u16(offsets + 2 * n);
    if (records + end > page_size) return bad(tree, page, "records overrun the page", err);
    const std::byte* area = p + records;
    for (uint32_t i = 0; i < n; ++i) {
      // Offsets that rise but pass the last one would let a record start past the page.
      const uint32_t a = load_u16(offsets + 2 * i), b = load_u16(offsets + 2 * (i + 1));
      if (b < a || b > end) return bad(tree, page, "record offsets out of order", err);
      const uint32_t len = b - a;
      uint32_t part;
      if (layout.width == 0) {
        if (len < 2) return bad(tree, page, "record too short for its key length", err);
        const uint32_t m = load_u16(area + a);
        if (prefixed) {
          if (shared + m > kMaxPrefixedKeyLength)
            return bad(tree, page, "prefixed key longer than the limit", err);
          part = 2 + leaf::tail_size(m);
        } else {
          part = 2 + m;
        }
        if (shared + m > max_key) return bad(tree, page, "key longer than the limit", err);
      } else {
        part = layout.part_size(nullptr);
      }
      if (part > len) return bad(tree, page, "key overruns its record", err);
      const bool overflow =
          (flags & leaf::kHasOverflow) &&
          ((static_cast<uint8_t>(p[leaf::bitmap_off(n, flags) + i / 8]) >> (i % 8)) & 1);
      const uint32_t value_len = len - part;
      if (overflow) {
        if (value_len != leaf::kOverflowRefSize)
          return bad(tree, page, "overflow reference of the wrong size", err);
        if (!in_tree(tree, load_u64(area + a + part)))
          return bad(tree, page, "overflow reference outside its tree", err);
        if (load_u32(area + a + part + 8) <= inline_limit)
          return bad(tree, page, "overflow reference to a value that fits inline", err);
      } else if (value_len > inline_limit) {
        return bad(tree, page, "inline value over the inline limit", err);
      }
    }
  }
  // Keys: prefixes agree with the key bytes, and keys strictly increase.
  LeafView view(p, layout);
  if (layout.prefix_is_key()) {
    // The key is the prefix's first `width` bytes: its other bytes must be
    // zero, and then prefixes order as the keys do.
    const uint64_t padding = layout.width >= 8 ? 0 : ~uint64_t{0} >> (8 * layout.width);
    uint64_t previous = 0;
    for (uint32_t i = 0; i < n; ++i) {
      const uint64_t prefix = load_be64(p + leaf::kHeaderSize + 8 * size_t{i});
      if (prefix & padding) return bad(tree, page, "key prefix padding is not zero", err);
      if (i > 0 && prefix <= previous) return bad(tree, page, "keys out of order", err);
      previous = prefix;
    }
  }
  // On a prefixed page the 8-byte prefixes are of the keys past the shared
  // prefix (whose padding a rebuilt key reveals).
  KeyBuffer bufs[2];
  for (uint32_t i = 0; i < n && !layout.prefix_is_key(); ++i) {
    ByteView key = view.key(i, bufs[i % 2]);
    if (view.prefix(i) != key_prefix(key.data() + shared, key.size() - shared))
      return bad(tree, page, "key prefix does not match its key", err);
    if (i > 0 && compare_bytes(view.key(i - 1, bufs[(i - 1) % 2]), key) >= 0)
      return bad(tree, page, "keys out of order", err);
  }
  // An index entry's value is a row reference into its table's primary tree.
  if (tree.primary != nullptr) {
    if (flags & leaf::kHasOverflow)
      return bad(tree, page, "index entry with an overflow value", err);
    for (uint32_t i = 0; i < n; ++i) {
      ByteView ref = view.value_field(i);
      if (ref.size() != kRowRefSize) return bad(tree, page, "index entry of the wrong size", err);
      if (!in_tree(*tree.primary, load_u64(ref.data())))
        return bad(tree, page, "index entry refers outside its table", err);
    }
  }
  return true;
}

bool check_internal(const TreeRef& tree, uint64_t page, const std::byte* p, uint32_t page_size,
                    ErrorOut* err) {
  const KeyLayout layout = tree.layout;
  const uint32_t n = load_u16(p + page::kCountOff);
  const uint32_t level = load_u16(p + internal::kLevelOff);
  if (n == 0) return bad(tree, page, "internal page with no children", err);
  const auto flags = static_cast<uint8_t>(p[page::kFlagsOff]);
  const bool prefixed = flags == internal::kPrefixedKeys;
  if ((flags != 0 && !prefixed) || (prefixed && layout.width != 0))
    return bad(tree, page, "unknown flags set", err);
  // With kPrefixedKeys, the shared prefix's length; else reserved, zero.
  const uint32_t shared = load_u16(p + internal::kPrefixLenOff);
  if (!prefixed && shared != 0) return bad(tree, page, "reserved bytes are not zero", err);
  if (prefixed && shared == 0) return bad(tree, page, "prefixed separators share no prefix", err);
  if (shared > kMaxPrefixedKeyLength)
    return bad(tree, page, "shared separator prefix longer than the limit", err);
  if (level == 0 || level >= tree.desc->depth) return bad(tree, page, "level out of range", err);
  size_t end = internal::keys_off(n);
  if (layout.width == 0)
    end += 2 * size_t{n};
  else if (layout.width > 8)
    end += size_t{n - 1} * layout.width;
  if (end > page_size) return bad(tree, page, "child count too large for the page", err);
  uint64_t previous = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const uint64_t child = load_u64(p + internal::children_off() + 8 * i);
    if (!in_tree(tree, child) || child == page)
      return bad(tree, page, "child outside its tree", err);
    const uint64_t cumulative = load_u64(p + internal::counts_off(n) + 8 * i);
    if (cumulative <= previous) return bad(tree, page, "row counts do not increase", err);
    previous = cumulative;
  }
  if (previous > tree.desc->rows) return bad(tree, page, "more rows than the tree has", err);
  if (layout.width == 0) {
    const std::byte* keys = p + internal::keys_off(n);
    if (load_u16(keys) != shared)  // the shared prefix comes first
      return bad(tree, page, "first separator offset is not the shared prefix's length", err);
    const uint32_t limit = prefixed ? std::min(kMaxPrefixedKeyLength, max_key_length(page_size))
                                    : max_key_length(page_size);
    for (uint32_t s = 0; s + 1 < n; ++s) {
      const uint32_t a = load_u16(keys + 2 * s), b = load_u16(keys + 2 * (s + 1));
      if (b < a || shared + (b - a) > limit) return bad(tree, page, "bad separator length", err);
    }
    if (end + load_u16(keys + 2 * (n - 1)) > page_size)
      return bad(tree, page, "separators overrun the page", err);
  }
  InternalView view(p, layout);
  KeyBuffer bufs[2];
  for (uint32_t s = 0; s + 1 < n; ++s) {
    ByteView sep = view.separator(s, bufs[s % 2]);
    const std::byte* prefix = p + internal::prefixes_off(n) + 8 * s;
    if (layout.prefix_is_key()) {
      if (!prefix_padding_ok(layout, prefix))
        return bad(tree, page, "separator prefix padding is not zero", err);
    } else if (load_be64(prefix) != key_prefix(sep.data() + shared, sep.size() - shared)) {
      return bad(tree, page, "separator prefix does not match its key", err);
    }
    if (s > 0 && compare_bytes(view.separator(s - 1, bufs[(s - 1) % 2]), sep) >= 0)
      return bad(tree, page, "separators out of order", err);
  }
  return true;
}

}  // namespace

bool check_tree_page(const TreeRef& tree, uint64_t page, const std::byte* p, uint32_t page_size,
                     ErrorOut* err) {
  if (load_u64(p + page::kChecksumOff) !=
      checksum(ByteView(p + 8, page_size - 8), tree.checksum_seed))
    return bad(tree, page, "checksum mismatch", err);
  switch (static_cast<PageType>(p[page::kTypeOff])) {
    case PageType::leaf:
      return check_leaf(tree, page, p, page_size, err);
    case PageType::internal:
      return check_internal(tree, page, p, page_size, err);
    default:
      return bad(tree, page, "not a leaf or internal page", err);
  }
}

bool check_child_fences(const TreeRef& tree, uint64_t page, const std::byte* child,
                        const ParentRef& parent, ErrorOut* err) {
  const InternalView up(parent.page, tree.layout);
  const uint32_t n = up.size();
  KeyBuffer low_buf, high_buf, first_buf, last_buf;
  const bool has_low = parent.child > 0, has_high = parent.child + 1 < n;
  const ByteView low = has_low ? up.separator(parent.child - 1, low_buf) : ByteView();
  const ByteView high = has_high ? up.separator(parent.child, high_buf) : ByteView();
  ByteView first, last;
  bool inclusive_low = true;
  if (static_cast<PageType>(child[page::kTypeOff]) == PageType::leaf) {
    const LeafView leaf(child, tree.layout);
    first = leaf.key(0, first_buf);
    last = leaf.key(leaf.size() - 1, last_buf);
  } else {
    const InternalView node(child, tree.layout);
    if (node.size() < 2) return true;  // no separator of its own to place
    first = node.separator(0, first_buf);
    last = node.separator(node.size() - 2, last_buf);
    inclusive_low = false;
  }
  if (has_low) {
    const int c = compare_bytes(first, low);
    if (c < 0 || (c == 0 && !inclusive_low))
      return bad(tree, page, "its keys begin below the separator its parent gives it", err);
  }
  if (has_high && compare_bytes(last, high) >= 0)
    return bad(tree, page, "its keys reach the separator after it in its parent", err);
  return true;
}

bool overflow_run_pages(const TreeRef& tree, uint64_t page, const std::byte* p, uint32_t page_size,
                        uint64_t* pages, ErrorOut* err) {
  if (static_cast<PageType>(p[page::kTypeOff]) != PageType::overflow)
    return bad(tree, page, "an overflow reference points at another page kind", err);
  if (p[page::kFlagsOff] != std::byte{0} || load_u16(p + page::kCountOff) != 0)
    return bad(tree, page, "overflow header has unknown bits set", err);
  const uint64_t length = load_u32(p + overflow::kLengthOff);
  *pages = overflow::pages_for(length, page_size);
  if (page + *pages > tree.desc->end_page)
    return bad(tree, page, "overflow run runs past its tree", err);
  return true;
}

bool check_overflow_run(const TreeRef& tree, uint64_t page, const std::byte* p, ErrorOut* err) {
  const uint64_t length = load_u32(p + overflow::kLengthOff);
  if (load_u64(p + page::kChecksumOff) !=
      checksum(ByteView(p + 8, overflow::kHeaderSize - 8 + length),
               overflow::run_seed(tree.checksum_seed, page, tree.placed_runs)))
    return bad(tree, page, "overflow run checksum mismatch", err);
  return true;
}

bool check_miss_filter_page(const TreeRef& tree, uint64_t page, const std::byte* p,
                            uint32_t page_size, ErrorOut* err) {
  const MissFilterDesc* f = tree.miss_filter;
  if (f == nullptr || page < f->first_page || page - f->first_page >= f->pages)
    return bad(tree, page, "a miss filter page outside the table's filter", err);
  if (load_u64(p + page::kChecksumOff) !=
      checksum(ByteView(p + 8, page_size - 8), tree.checksum_seed))
    return bad(tree, page, "checksum mismatch", err);
  if (static_cast<PageType>(p[page::kTypeOff]) != PageType::miss_filter)
    return bad(tree, page, "not a miss filter page", err);
  for (size_t i = page::kFlagsOff; i < miss_filter::kHeaderSize; ++i)
    if (p[i] != std::byte{0})
      return bad(tree, page, "miss filter page with nonzero reserved bytes", err);
  return true;
}

}  // namespace drydb::detail
