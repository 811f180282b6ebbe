// A table's miss filter (format 2.1): a blocked Bloom filter over the
// table's primary keys, so that most gets of an absent key read one cache
// line instead of descending the tree. The builder sets and the reader tests
// bits through these same functions; docs/format.md, "Miss filters",
// specifies them.
//
// A key's 64-bit hash (XXH3-64 of its bytes) picks one page of the filter and
// one 64-byte block of that page with its high 32 bits, and `probes` bits of
// the block with its low 32: a key was added only if all its bits are set.
// One block per key keeps a test to one cache line; at 10 bits per key about
// 1% of absent keys pass.
#pragma once

#include <cstddef>
#include <cstdint>

#include "drydb/detail/config.h"
#include "drydb/detail/format.h"

namespace drydb::detail {

// XXH3-64 (seed 0) of the key bytes. Out of line: the library's headers do
// not include xxhash.h.
uint64_t miss_filter_hash(const std::byte* key, size_t size) noexcept;

// Where a hash's block is in a filter of `pages` (< 2^32) pages of
// `per_page` blocks: g = (hash >> 32) * pages; the page is g >> 32 (counted
// from the filter's first page), the block of that page (g mod 2^32) *
// per_page >> 32. Two multiplications, no division, every block equally
// likely.
struct MissFilterBlock {
  uint64_t page;  // from the filter's first page
  size_t offset;  // in the page
};
DRYDB_ALWAYS_INLINE MissFilterBlock miss_filter_block(uint64_t hash, uint64_t pages,
                                                      uint32_t per_page) noexcept {
  const uint64_t g = (hash >> 32) * pages;
  const uint64_t block = ((g & 0xFFFF'FFFFu) * per_page) >> 32;
  return {g >> 32, miss_filter::kHeaderSize + miss_filter::kBlockSize * static_cast<size_t>(block)};
}

// Calls bit(b) for each of the hash's `probes` bit numbers b in [0, 512): the
// top 9 bits of a = the low 32 bits of the hash, then of a * 0x9E3779B9
// (mod 2^32), and so on.
template <class Bit>
DRYDB_ALWAYS_INLINE void for_each_miss_filter_bit(uint64_t hash, uint32_t probes, Bit bit) {
  uint32_t a = static_cast<uint32_t>(hash);
  for (uint32_t i = 0; i < probes; ++i) {
    bit(a >> 23);
    a *= 0x9E3779B9u;
  }
}

// Whether every bit of the hash is set in `block` (64 bytes; bit b is bit
// b % 8 of byte b / 8).
DRYDB_ALWAYS_INLINE bool miss_filter_may_contain(const std::byte* block, uint64_t hash,
                                                 uint32_t probes) noexcept {
  bool all = true;
  for_each_miss_filter_bit(hash, probes, [&](uint32_t b) DRYDB_ALWAYS_INLINE_LAMBDA {
    all &= ((static_cast<uint8_t>(block[b / 8]) >> (b % 8)) & 1) != 0;
  });
  return all;
}

inline void miss_filter_add(std::byte* block, uint64_t hash, uint32_t probes) noexcept {
  for_each_miss_filter_bit(hash, probes, [&](uint32_t b) {
    block[b / 8] |= std::byte{static_cast<uint8_t>(1u << (b % 8))};
  });
}

// Bits tested per key for a filter of `bits_per_key`: about 0.6 of it, the
// count that gives 512-bit blocks their fewest false positives.
constexpr uint32_t miss_filter_probes(uint32_t bits_per_key) {
  const uint32_t k = (bits_per_key * 6 + 5) / 10;
  return k < 1 ? 1 : (k > 16 ? 16 : k);
}

// Pages of a filter of at most `bits_per_key` over `rows` keys: whole pages,
// rounded down, and at least one.
constexpr uint64_t miss_filter_pages(uint64_t rows, uint32_t bits_per_key, uint32_t page_size) {
  const uint64_t bits_per_page = uint64_t{miss_filter::blocks_per_page(page_size)} * 512;
  const uint64_t pages = rows * bits_per_key / bits_per_page;
  return pages == 0 ? 1 : pages;
}

}  // namespace drydb::detail
