// XXH3-64, the checksum of every page, of the header and of the catalog (docs/format.md).
#pragma once

#include <cstdint>
#include <span>

#include <xxhash.h>

namespace drydb::detail {

// `seed` is the file's identity (format 2.4) for pages, runs and the catalog, 0 for the header
// and for files of earlier formats (XXH3-64 with seed 0 is plain XXH3-64).
inline uint64_t checksum(std::span<const std::byte> bytes, uint64_t seed = 0) noexcept {
  return XXH3_64bits_withSeed(bytes.data(), bytes.size(), seed);
}

// Incremental form, for overflow runs written from more than one buffer.
class Checksummer {
 public:
  explicit Checksummer(uint64_t seed = 0) : state_(XXH3_createState()) {
    XXH3_64bits_reset_withSeed(state_, seed);
  }
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
