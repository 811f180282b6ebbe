// shard_of and check_partitioning (dataset.h; docs/sharding.md, "Partition functions").
#include <algorithm>
#include <string_view>

#include "drydb/dataset.h"
#include "format/checksum.h"

namespace drydb {

uint32_t shard_of(const Partitioning& p, uint32_t shards, std::span<const std::byte> key) noexcept {
  if (p.function == kHashPartitioning) return static_cast<uint32_t>(detail::checksum(key) % shards);
  // range-v1: the number of split keys <= key, the position of the first split above it.
  // (std::string_view compares its characters as unsigned char: memcmp order, the shorter key
  // first on a tie, as drydb orders encoded keys.)
  const std::string_view k(reinterpret_cast<const char*>(key.data()), key.size());
  const auto above = std::upper_bound(p.splits.begin(), p.splits.end(), k,
                                      [](std::string_view a, std::string_view split) { return a < split; });
  return static_cast<uint32_t>(above - p.splits.begin());
}

status check_partitioning(const Partitioning& p, uint32_t shards) {
  if (shards == 0 || shards > kMaxShards)
    return Error(errc::invalid_argument, "a dataset has 1 to " + std::to_string(kMaxShards) +
                                             " shards, not " + std::to_string(shards));
  if (p.function == kHashPartitioning) {
    if (!p.splits.empty())
      return Error(errc::invalid_argument, std::string(kHashPartitioning) + " takes no split keys");
    return {};
  }
  if (p.function != kRangePartitioning)
    return Error(errc::unsupported_version, "unknown partition function '" + p.function + "'");
  if (p.splits.size() != shards - 1)
    return Error(errc::invalid_argument, std::to_string(shards) + " shards take " +
                                             std::to_string(shards - 1) + " split keys, not " +
                                             std::to_string(p.splits.size()));
  for (size_t i = 0; i < p.splits.size(); ++i) {
    if (p.splits[i].empty())
      return Error(errc::invalid_argument, "split key " + std::to_string(i) + " is empty");
    if (i > 0 && !(p.splits[i - 1] < p.splits[i]))
      return Error(errc::invalid_argument,
                   "split key " + std::to_string(i) + " is not after the one before it");
  }
  return {};
}

}  // namespace drydb
