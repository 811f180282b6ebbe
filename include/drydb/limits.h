// drydb's limits for page sizes, keys and values (docs/format.md): what a
// caller can check before building, to report a bad input in its own words;
// and the file format's version.
#pragma once

#include <cstdint>

#include "drydb/detail/format.h"

namespace drydb {

// Page sizes are powers of two from kMinPageSize to kMaxPageSize bytes.
inline constexpr uint32_t kMinPageSize = detail::kMinPageSize;
inline constexpr uint32_t kMaxPageSize = detail::kMaxPageSize;
constexpr bool valid_page_size(uint64_t page_size) noexcept {
  return detail::valid_page_size(page_size);
}

// The longest key (encoded, in bytes) a file of this page size holds; a key
// of a non-unique secondary index spends 8 more on the row's rank.
// Requires: valid_page_size(page_size).
constexpr uint32_t max_key_length(uint32_t page_size) noexcept {
  return detail::max_key_length(page_size);
}

// The longest value, in bytes (lengths are 32-bit in the file).
inline constexpr uint64_t kMaxValueLength = detail::kMaxValueLength;

// The format version this library writes (docs/format.md, "File header"): it
// reads every file of this major version whose required features it knows (a
// later minor version reads too unless it requires something new).
inline constexpr uint16_t kFormatMajor = detail::kFormatMajor;
inline constexpr uint16_t kFormatMinor = detail::kFormatMinor;

}  // namespace drydb
