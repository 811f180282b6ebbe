#include "drydb/detail/miss_filter.h"

#include "format/checksum.h"

namespace drydb::detail {

uint64_t miss_filter_hash(const std::byte* key, size_t size) noexcept {
  return XXH3_64bits(key, size);
}

}  // namespace drydb::detail
