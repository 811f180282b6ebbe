// Builds a table's miss filter (detail/miss_filter.h) from its keys as the
// builder writes them, then writes its pages after the table's trees.
#pragma once

#include <cstdint>
#include <vector>

#include "drydb/detail/catalog.h"
#include "drydb/result.h"
#include "write/sink.h"
#include "write/sorter.h"

namespace drydb::detail {

class MissFilterBuilder {
 public:
  // A filter of at most `bits_per_key` bits per key (whole pages, at least
  // one) over `rows` keys; with bits_per_key 0 or no rows, no filter, and
  // add() and write() do nothing. Holds the filter's pages in memory until
  // write(): about bits_per_key / 8 bytes per row.
  MissFilterBuilder(uint32_t bits_per_key, uint64_t rows, uint32_t page_size);

  void add(Bytes key) noexcept;

  // Writes the pages from `next_page` on (advancing it), their checksums
  // seeded with `checksum_seed` (the file's identity), and describes them in
  // *desc; nothing for no filter.
  status write(Sink& sink, uint64_t checksum_seed, uint64_t& next_page, MissFilterDesc* desc);

 private:
  uint32_t bits_per_key_ = 0;
  uint32_t probes_ = 0;
  uint32_t page_size_;
  uint64_t pages_ = 0;
  std::vector<std::byte> bytes_;  // pages_ whole pages
};

}  // namespace drydb::detail
