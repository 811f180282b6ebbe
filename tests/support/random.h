// The one random generator of the tests and fuzz targets (free of GoogleTest): splitmix64, so
// a seed gives the same numbers on every platform and standard library (std::mt19937_64 would,
// but the std distributions do not). Usable with std::shuffle, whose algorithm is each standard
// library's own: an order shuffled so may differ between them.
#pragma once

#include <cstdint>
#include <limits>

namespace drydb_test {

class Rng {
 public:
  using result_type = uint64_t;

  explicit Rng(uint64_t seed = 0) : state_(seed) {}

  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  uint64_t operator()() { return next(); }
  static constexpr uint64_t min() { return 0; }
  static constexpr uint64_t max() { return std::numeric_limits<uint64_t>::max(); }

  // Uniform in [0, n); 0 when n is 0. (The modulo's bias, below 2^-40 for the n tests use,
  // does not matter here.)
  uint64_t below(uint64_t n) { return n == 0 ? 0 : next() % n; }
  // Uniform in [lo, hi], both inclusive. Requires: lo <= hi.
  uint64_t between(uint64_t lo, uint64_t hi) {
    return hi - lo == max() ? next() : lo + below(hi - lo + 1);
  }
  // True one time in `one_in`.
  bool chance(uint64_t one_in) { return below(one_in) == 0; }

 private:
  uint64_t state_;
};

}  // namespace drydb_test
