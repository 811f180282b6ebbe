#include "write/miss_filter_writer.h"

#include "drydb/detail/coding.h"
#include "drydb/detail/format.h"
#include "drydb/detail/miss_filter.h"
#include "format/checksum.h"

namespace drydb::detail {

MissFilterBuilder::MissFilterBuilder(uint32_t bits_per_key, uint64_t rows, uint32_t page_size)
    : page_size_(page_size) {
  if (bits_per_key == 0 || rows == 0) return;
  bits_per_key_ = bits_per_key;
  probes_ = miss_filter_probes(bits_per_key);
  pages_ = miss_filter_pages(rows, bits_per_key, page_size);
  bytes_.assign(static_cast<size_t>(pages_ * page_size), std::byte{0});
}

void MissFilterBuilder::add(Bytes key) noexcept {
  if (pages_ == 0) return;
  const uint64_t h = miss_filter_hash(key.data(), key.size());
  const MissFilterBlock at = miss_filter_block(h, pages_, miss_filter::blocks_per_page(page_size_));
  miss_filter_add(bytes_.data() + at.page * page_size_ + at.offset, h, probes_);
}

status MissFilterBuilder::write(Sink& sink, uint64_t checksum_seed, uint64_t& next_page,
                                MissFilterDesc* desc) {
  *desc = MissFilterDesc{};
  if (pages_ == 0) return {};
  for (uint64_t i = 0; i < pages_; ++i) {
    std::byte* p = bytes_.data() + i * page_size_;
    p[page::kTypeOff] = std::byte{static_cast<uint8_t>(PageType::miss_filter)};
    store_u64(p + page::kChecksumOff, checksum(Bytes(p + 8, page_size_ - 8), checksum_seed));
  }
  DRYDB_TRY(sink.write_at(next_page * page_size_, bytes_));
  *desc = MissFilterDesc{bits_per_key_, probes_, next_page, pages_};
  next_page += pages_;
  std::vector<std::byte>().swap(bytes_);
  return {};
}

}  // namespace drydb::detail
