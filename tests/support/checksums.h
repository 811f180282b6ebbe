// Recomputing a file's checksums after a test or fuzz target changed its bytes on purpose, so
// that the change reaches the structural checks behind the checksums (free of GoogleTest).
// Page sizes and lengths are taken from the header as they are: a nonsense header fixes
// nothing but itself.
#pragma once

#include <xxhash.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>

#include "drydb/detail/coding.h"
#include "drydb/detail/format.h"

namespace drydb_test {

inline uint64_t xxh3(const std::byte* p, size_t n, uint64_t seed = 0) {
  return XXH3_64bits_withSeed(p, n, seed);
}

// The seed of every checksum but the header's: the file's identity when the header says it has
// one (format 2.4), else 0.
inline uint64_t checksum_seed(std::span<const std::byte> f) {
  namespace fmt = drydb::detail;
  if (f.size() < fmt::header::kSize) return 0;
  const uint32_t features = fmt::load_u32(f.data() + fmt::header::kRequiredFeaturesOff);
  return features & fmt::kFeatureFileIdentity ? fmt::load_u64(f.data() + fmt::header::kIdentityOff)
                                              : 0;
}

// The seed of the checksum of the overflow run starting at page `first_page`: checksum_seed(f),
// XOR the first page where the header says runs are bound to their place (format 2.5).
inline uint64_t run_checksum_seed(std::span<const std::byte> f, uint64_t first_page) {
  namespace fmt = drydb::detail;
  if (f.size() < fmt::header::kSize) return 0;
  const uint32_t features = fmt::load_u32(f.data() + fmt::header::kRequiredFeaturesOff);
  return fmt::overflow::run_seed(checksum_seed(f), first_page, features & fmt::kFeaturePlacedRuns);
}

inline void fix_header_checksum(std::span<std::byte> f) {
  namespace fmt = drydb::detail;
  if (f.size() < fmt::header::kSize) return;
  fmt::store_u64(f.data() + fmt::header::kHeaderChecksumOff,
                 xxh3(f.data(), fmt::header::kHeaderChecksumOff));
}

// The catalog's checksum (where the header says the catalog is, if it lies in the file), then
// the header's.
inline void fix_catalog_checksum(std::span<std::byte> f) {
  namespace fmt = drydb::detail;
  if (f.size() < fmt::header::kSize) return;
  const uint64_t ps = fmt::load_u32(f.data() + fmt::header::kPageSizeOff);
  const uint64_t pages = fmt::load_u64(f.data() + fmt::header::kPageCountOff);
  const uint64_t off = pages * ps;
  const uint64_t len = fmt::load_u64(f.data() + fmt::header::kCatalogLengthOff);
  if (ps != 0 && off / ps == pages && off <= f.size() && len <= f.size() - off)
    fmt::store_u64(f.data() + fmt::header::kCatalogChecksumOff,
                   xxh3(f.data() + off, len, checksum_seed(f)));
  fix_header_checksum(f);
}

// Every checksum, as the builder would have written them: each page that starts an overflow
// run gets its run checksum (over what of it the file holds), every other page (leaf,
// internal, miss filter) its page checksum; then the catalog's and the header's.
inline void fix_all_checksums(std::span<std::byte> f) {
  namespace fmt = drydb::detail;
  if (f.size() < fmt::header::kSize) return;
  const uint64_t ps = fmt::load_u32(f.data() + fmt::header::kPageSizeOff);
  if (!fmt::valid_page_size(ps)) return fix_header_checksum(f);
  uint64_t pages = fmt::load_u64(f.data() + fmt::header::kPageCountOff);
  pages = std::min<uint64_t>(pages, f.size() / ps);
  const uint64_t seed = checksum_seed(f);
  for (uint64_t p = 1; p < pages;) {
    std::byte* page = f.data() + p * ps;
    const auto type = static_cast<fmt::PageType>(page[fmt::page::kTypeOff]);
    if (type == fmt::PageType::overflow) {
      const uint64_t len = fmt::load_u32(page + fmt::overflow::kLengthOff);
      const uint64_t avail = f.size() - p * ps - 8;
      fmt::store_u64(page,
                     xxh3(page + 8, std::min<uint64_t>(8 + len, avail), run_checksum_seed(f, p)));
      p += std::max<uint64_t>(1, fmt::overflow::pages_for(len, static_cast<uint32_t>(ps)));
    } else {
      fmt::store_u64(page, xxh3(page + 8, ps - 8, seed));
      ++p;
    }
  }
  fix_catalog_checksum(f);
}

}  // namespace drydb_test
