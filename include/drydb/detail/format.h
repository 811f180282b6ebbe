// The constants and layout arithmetic of drydb file format 2 (2.2).
//
// docs/format.md specifies every byte; this header is its code twin. A change
// to one is a change to the other (tests/format/format_doc_test.cpp rebuilds the
// worked example of docs/format.md and compares bytes).
//
//   page 0                 pages 1 .. page_count-1                  catalog
//  +-------------------+  +------+------+------+-- ... --+------+  +-----------------+
//  | file header, zero |  | tree pages: leaf, internal, overflow |  | filters, tables,|
//  | padded to a page  |  | runs; each tree's pages contiguous   |  | index trees     |
//  +-------------------+  +------+------+------+-- ... --+------+  +-----------------+
//  offset 0               offset = page_number * page_size         offset = page_count * page_size
//
// Page number 0 is the header, so 0 also means "no page" in every reference.
//
// A file with page filters (required feature kFeatureFilteredPages) stores
// its pages encoded and packed instead: the 64-byte header, then every page
// 1 .. page_count-1 as its filters encoded it, in page order, then the
// catalog, whose page directory gives each page's offset, stored length and
// decoded length. Page numbers, and so every reference, are unchanged.
#pragma once

#include <cstddef>
#include <cstdint>

namespace drydb::detail {

inline constexpr std::byte kMagic[4] = {std::byte{'D'}, std::byte{'R'}, std::byte{'Y'},
                                        std::byte{0}};
inline constexpr uint16_t kFormatMajor = 2;
inline constexpr uint16_t kFormatMinor = 5;
// Required-feature bits a reader must understand.
inline constexpr uint32_t kFeatureFilteredPages = 1;  // pages encoded by a filter chain, packed
inline constexpr uint32_t kFeatureMissFilters = 2;    // (2.1) tables with miss filters
inline constexpr uint32_t kFeaturePrefixedKeys =
    4;  // (2.2) pages storing keys after a shared prefix
inline constexpr uint32_t kFeatureColumnLists = 8;  // (2.3) tables of rows as column arrays
// (2.4) the header holds the file's identity, which seeds every page, overflow run and catalog
// checksum: a page of another file fails its checksum here.
inline constexpr uint32_t kFeatureFileIdentity = 16;
// (2.5) every overflow run's checksum is seeded with the file's identity XOR the run's first page
// (overflow::run_seed): a run moved to another place fails its checksum there.
inline constexpr uint32_t kFeaturePlacedRuns = 32;
inline constexpr uint32_t kKnownRequiredFeatures = kFeatureFilteredPages | kFeatureMissFilters |
                                                   kFeaturePrefixedKeys | kFeatureColumnLists |
                                                   kFeatureFileIdentity | kFeaturePlacedRuns;

inline constexpr uint32_t kMinPageSize = 512;
inline constexpr uint32_t kMaxPageSize = 65536;
inline constexpr uint32_t kDefaultPageSize = 4096;

// A tree deeper than this is corrupt: with at least 4 children per internal
// page (guaranteed by max_key_length) 2^64 rows need fewer than 33 levels.
inline constexpr uint32_t kMaxDepth = 32;

// Largest value: lengths are 32-bit.
inline constexpr uint64_t kMaxValueLength = 0xFFFF'FFFFull;

// Longest key for a page size. Chosen so an internal page always holds at
// least 4 separators (fan-out >= 4) and a leaf at least 2 entries.
constexpr uint32_t max_key_length(uint32_t page_size) {
  return page_size / 4 - 64;
}

// Longest key of a page that stores its keys after their shared prefix
// (flag kPrefixedKeys, variable-length keys only): a reader rebuilds such a
// key in a buffer of this size (KeyBuffer, node.h), so a page holding a longer
// key stores its keys whole.
inline constexpr uint32_t kMaxPrefixedKeyLength = 256;

// Room for a key of a prefixed page rebuilt whole, with 8 bytes of slack: the
// key's head is copied as one 8-byte word even where the key ends inside it.
struct KeyBuffer {
  std::byte bytes[kMaxPrefixedKeyLength + 8];
};

// Values longer than this go to an overflow run; every shorter value is stored
// in its leaf. The rule depends on the value's length only, so no small value
// ever spills (a leaf is closed instead).
constexpr uint32_t inline_value_limit(uint32_t page_size) {
  return page_size / 4;
}

constexpr bool valid_page_size(uint64_t p) {
  return p >= kMinPageSize && p <= kMaxPageSize && (p & (p - 1)) == 0;
}

// ---- file header (page 0) ----------------------------------------------------
namespace header {
inline constexpr size_t kMagicOff = 0;             // 4 bytes "DRY\0"
inline constexpr size_t kMajorOff = 4;             // u16
inline constexpr size_t kMinorOff = 6;             // u16
inline constexpr size_t kRequiredFeaturesOff = 8;  // u32
inline constexpr size_t kPageSizeOff = 12;         // u32
inline constexpr size_t kFileLengthOff = 16;       // u64
inline constexpr size_t kPageCountOff = 24;        // u64: pages before the catalog, header included
inline constexpr size_t kCatalogLengthOff = 32;    // u64: the catalog ends the file
inline constexpr size_t kCatalogChecksumOff = 40;  // u64: XXH3-64 of the catalog bytes
// u64: with kFeatureFileIdentity the file's identity (not 0), the seed of every checksum but
// the header's; else zero.
inline constexpr size_t kIdentityOff = 48;
inline constexpr size_t kHeaderChecksumOff = 56;  // u64: XXH3-64 of bytes 0..55
inline constexpr size_t kSize = 64;               // the rest of page 0 is zero
}  // namespace header

// ---- tree pages --------------------------------------------------------------
// Every leaf and internal page starts with:
//   0  u64 checksum: XXH3-64 of bytes 8 .. page_size-1
//   8  u8  page type
//   9  u8  flags
//   10 u16 entry count n
enum class PageType : uint8_t { leaf = 1, internal = 2, overflow = 3, miss_filter = 4 };

namespace page {
inline constexpr size_t kChecksumOff = 0;
inline constexpr size_t kTypeOff = 8;
inline constexpr size_t kFlagsOff = 9;
inline constexpr size_t kCountOff = 10;
}  // namespace page

// Leaf page:
//   12 u16 uniform value length (flag kUniformValues), else 0
//   14 u16 with kPrefixedKeys: the length L of the keys' shared prefix; else 0
//   16 u64 previous leaf of the tree (0 = none)
//   24 u64 next leaf of the tree (0 = none)
//   32 n x 8-byte big-endian key prefixes (first 8 key bytes, zero-padded)
//      unless kUniformValues: (n+1) x u16 record offsets, relative to the records area
//      if kHasOverflow: ceil(n/8) bytes, bit i%8 of byte i/8 set = entry i is an overflow ref
//      records area: record i = key part, then the value or a 12-byte overflow ref
//        key part: key width 8 -> nothing (the prefix is the key); 16 -> the 16 key bytes;
//                  variable -> u16 key length + key bytes
//        overflow ref: u64 first page of the run, u32 value length
//
// With kPrefixedKeys (2.2; variable-length keys, none longer than
// kMaxPrefixedKeyLength) every key is P + head + tail: P, the L bytes all keys
// of the page share, is stored once, as the first L bytes of the records area
// (so record 0 starts at offset L); the 8-byte prefixes are the heads, key
// bytes L .. L+7; a record's key part is u16 m = key length - L, then the
// tail, key bytes L+8 .. L+m-1 (none when m <= 8).
namespace leaf {
inline constexpr size_t kUniformLenOff = 12;
inline constexpr size_t kPrevOff = 16;
inline constexpr size_t kNextOff = 24;
inline constexpr size_t kHeaderSize = 32;
inline constexpr uint8_t kUniformValues = 1;  // every value inline and of one length
inline constexpr uint8_t kHasOverflow = 2;    // an overflow bitmap follows the offsets
inline constexpr uint8_t kPrefixedKeys = 4;   // (2.2) keys stored after their shared prefix
inline constexpr uint8_t kKnownFlags = kUniformValues | kHasOverflow | kPrefixedKeys;
inline constexpr size_t kPrefixLenOff = 14;
inline constexpr size_t kOverflowRefSize = 12;

// With kPrefixedKeys: the key bytes a record holds for a key of m bytes
// after the page's shared prefix (the first 8 are its head, in the prefix array).
constexpr uint32_t tail_size(uint32_t m) {
  return m > 8 ? m - 8 : 0;
}
constexpr size_t offsets_off(size_t n) {
  return kHeaderSize + 8 * n;
}
constexpr size_t bitmap_off(size_t n, uint8_t flags) {
  return offsets_off(n) + ((flags & kUniformValues) ? 0 : 2 * (n + 1));
}
constexpr size_t records_off(size_t n, uint8_t flags) {
  return bitmap_off(n, flags) + ((flags & kHasOverflow) ? (n + 7) / 8 : 0);
}
}  // namespace leaf

// Internal page:
//   12 u16 level: 1 when the children are leaves, depth-1 at the root
//   14 u16 with kPrefixedKeys: the length L of the separators' shared prefix; else 0
//   16 n x u64 child page numbers
//      n x u64 cumulative row counts: entry i = rows in children 0..i
//      (n-1) x 8-byte big-endian separator prefixes
//      separator key parts: width 8 -> nothing; 16 -> (n-1) x 16 bytes;
//      variable -> n x u16 offsets relative to the separator heap (separator i spans
//      off[i]..off[i+1]), then the heap
//   Separator i is > every key of child i and <= every key of child i+1.
//
// With kPrefixedKeys (2.2; variable-length separators, none longer than
// kMaxPrefixedKeyLength) the heap starts with P, the L bytes every separator
// of the page shares (so off[0] = L); separator i is P + heap[off[i]..off[i+1]),
// and its 8-byte prefix is that stored part's first 8 bytes.
namespace internal {
inline constexpr size_t kLevelOff = 12;
inline constexpr size_t kPrefixLenOff = 14;
inline constexpr uint8_t kPrefixedKeys = 1;  // (2.2) separators stored after their shared prefix
inline constexpr size_t kHeaderSize = 16;
constexpr size_t children_off() {
  return kHeaderSize;
}
constexpr size_t counts_off(size_t n) {
  return kHeaderSize + 8 * n;
}
constexpr size_t prefixes_off(size_t n) {
  return kHeaderSize + 16 * n;
}
constexpr size_t keys_off(size_t n) {
  return kHeaderSize + 16 * n + 8 * (n - 1);
}
}  // namespace internal

// Overflow run: ceil((16 + length) / page_size) consecutive pages
//   0  u64 checksum: XXH3-64 of bytes 8 .. 16+length-1, seeded with run_seed()
//   8  u8  type 3, 9 u8 flags 0, 10 u16 zero
//   12 u32 value length
//   16 the value; zero padding to the end of the last page
namespace overflow {
inline constexpr size_t kLengthOff = 12;
inline constexpr size_t kHeaderSize = 16;
constexpr uint64_t pages_for(uint64_t length, uint32_t page_size) {
  return (kHeaderSize + length + page_size - 1) / page_size;
}
// The seed of the checksum of the run starting at `first_page`: the file's seed (its identity, or
// 0), XOR the first page in a file with kFeaturePlacedRuns (format 2.5), which binds the run to
// its place as fences bind a leaf.
constexpr uint64_t run_seed(uint64_t file_seed, uint64_t first_page, bool placed) {
  return placed ? file_seed ^ first_page : file_seed;
}
}  // namespace overflow

// Miss filter page (format 2.1): part of a table's miss filter, a blocked
// Bloom filter of 64-byte blocks (the math in miss_filter.h). Every page of a
// filter is full.
//   0  u64 checksum: XXH3-64 of bytes 8 .. page_size-1
//   8  u8  type 4, then 55 zero bytes
//   64 blocks_per_page blocks of 64 bytes, aligned to cache lines
namespace miss_filter {
inline constexpr size_t kHeaderSize = 64;
inline constexpr size_t kBlockSize = 64;
constexpr uint32_t blocks_per_page(uint32_t page_size) {
  return static_cast<uint32_t>((page_size - kHeaderSize) / kBlockSize);
}
}  // namespace miss_filter

}  // namespace drydb::detail
