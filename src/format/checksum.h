// XXH3-64, the checksum of every page, of the header and of the catalog.
#pragma once

#include <cstdint>
#include <span>

#include <xxhash.h>

namespace drydb::detail {

inline uint64_t checksum(std::span<const std::byte> bytes) noexcept {
  return XXH3_64bits(bytes.data(), bytes.size());
}

// Incremental form, for overflow runs written from more than one buffer.
class Checksummer {
 public:
  Checksummer() : state_(XXH3_createState()) { XXH3_64bits_reset(state_); }
  ~Checksummer() { XXH3_freeState(state_); }
  Checksummer(const Checksummer&) = delete;
  Checksummer& operator=(const Checksummer&) = delete;
  void update(std::span<const std::byte> bytes) noexcept {
    XXH3_64bits_update(state_, bytes.data(), bytes.size());
  }
  uint64_t digest() const noexcept { return XXH3_64bits_digest(state_); }

 private:
  XXH3_state_t* state_;
};

}  // namespace drydb::detail
