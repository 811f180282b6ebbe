// How secondary-index keys are laid out in their trees (docs/format.md,
// "Secondary index trees").
//
// A unique index's tree is keyed by the index key itself. A non-unique index
// must still have distinct tree keys, so each entry's tree key is
//     group(index key) ++ primary rank (u64 big-endian)
// where group() is an order-preserving, prefix-free form of the index key:
//   fixed-width encodings: the key bytes as they are (all keys have one width);
//   variable-length encodings: every 0x00 byte written as 00 FF, then the
//   terminator 00 01.
// So entries sort by index key, then by primary key (ranks follow primary-key
// order), and the entries of one index key are exactly the tree keys that
// start with group(key): a prefix range. The builder also sorts unique
// indexes by these tree keys, so duplicates meet as neighbours.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>

#include "drydb/detail/coding.h"

namespace drydb::detail {

inline constexpr size_t kRankSuffixSize = 8;
// An index entry's value: the primary row's leaf page (u64) and its slot (u16).
inline constexpr size_t kRowRefSize = 10;

// Bytes of group(key).
inline size_t index_group_size(std::span<const std::byte> key, uint32_t fixed_width) noexcept {
  if (fixed_width != 0) return key.size();
  size_t n = key.size() + 2;
  for (std::byte b : key)
    n += b == std::byte{0};
  return n;
}

// Writes group(key) at out (index_group_size bytes); returns the end.
inline std::byte* put_index_group(std::byte* out, std::span<const std::byte> key,
                                  uint32_t fixed_width) noexcept {
  if (fixed_width != 0) {
    if (!key.empty()) std::memcpy(out, key.data(), key.size());
    return out + key.size();
  }
  for (std::byte b : key) {
    *out++ = b;
    if (b == std::byte{0}) *out++ = std::byte{0xFF};
  }
  *out++ = std::byte{0};
  *out++ = std::byte{1};
  return out;
}

// Undoes the escaping of a variable-length group (without its terminator).
// Returns the bytes written to out (at most group.size()).
inline size_t unescape_index_group(std::span<const std::byte> escaped, std::byte* out) noexcept {
  size_t n = 0;
  for (size_t i = 0; i < escaped.size(); ++i) {
    out[n++] = escaped[i];
    if (escaped[i] == std::byte{0}) ++i;  // skip the FF that follows an escaped zero
  }
  return n;
}

// Whether `group` is a variable-length group as put_index_group writes it:
// each 0x00 byte before the terminator followed by 0xFF, then 00 01.
// unescape_index_group reads any 00 xx pair as a zero, and a tree key whose
// pair is not 00 FF sorts apart from the group it decodes to, so that a
// search for its index key misses it (verify() rejects such a key).
inline bool is_index_group(std::span<const std::byte> group) noexcept {
  const size_t n = group.size();
  if (n < 2 || group[n - 2] != std::byte{0} || group[n - 1] != std::byte{1}) return false;
  for (size_t i = 0; i < n - 2; ++i)
    if (group[i] == std::byte{0} && (i + 1 == n - 2 || group[++i] != std::byte{0xFF})) return false;
  return true;
}

// The smallest byte string greater than every string starting with s[0, n):
// trailing FF bytes dropped, the last remaining byte incremented. Returns the
// new length, 0 when none exists (s was all FF or empty).
inline size_t prefix_successor(std::byte* s, size_t n) noexcept {
  while (n > 0 && s[n - 1] == std::byte{0xFF})
    --n;
  if (n > 0) s[n - 1] = std::byte{static_cast<uint8_t>(static_cast<uint8_t>(s[n - 1]) + 1)};
  return n;
}

// A query key rewritten into a tree's key space, kept on the stack unless
// long, so that queries allocate nothing for keys of ordinary length.
class TreeKeyBuffer {
 public:
  std::byte* reserve(size_t n) {
    if (n <= sizeof small_) return small_;
    large_.reset(new std::byte[n]);
    return large_.get();
  }
  std::byte* data() noexcept { return large_ ? large_.get() : small_; }

 private:
  std::byte small_[192];
  std::unique_ptr<std::byte[]> large_;
};

}  // namespace drydb::detail
