// The in-page searches of the read path (detail/prefix_search.h, detail/node.h) against the
// standard library: compare_bytes orders as memcmp then length (bytes above 0x7f included), and
// unique_prefix_find, unique_prefix_lower_bound and prefix_lower_bound give std::lower_bound's
// answer on dense, gapped, evenly spaced, uniformly random and clustered prefix arrays, for keys
// below, inside and above them; prefix_run_end finds the end of every run of equal prefixes (runs
// of every length, the largest prefix included) as std::upper_bound does, and stays in bounds on
// unordered bytes.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "drydb/detail/coding.h"
#include "drydb/detail/node.h"
#include "support/random.h"

namespace {

using drydb_test::Rng;

TEST(SearchPrimitives, CompareBytesOrdersAsMemcmpThenLength) {
  Rng rng(3);
  const unsigned char alphabet[] = {0x00, 0x01, 0x7f, 0x80, 0xff};
  auto random_bytes = [&] {
    std::string s(rng.between(0, 24), '\0');
    for (auto& c : s)
      c = static_cast<char>(alphabet[rng.between(0, 4)]);
    return s;
  };
  for (int i = 0; i < 20000; ++i) {
    std::string a = random_bytes(),
                b = i % 3 == 0 ? a.substr(0, rng.between(0, a.size())) : random_bytes();
    if (i % 5 == 0 && !b.empty()) b = a + b;  // long shared runs
    const auto view = [](const std::string& s) {
      return std::as_bytes(std::span(s.data(), s.size()));
    };
    const int want = a.compare(b), got = drydb::detail::compare_bytes(view(a), view(b));
    ASSERT_EQ((got > 0) - (got < 0), (want > 0) - (want < 0)) << i;
  }
}

TEST(SearchPrimitives, UniquePrefixSearchesMatchLowerBound) {
  Rng rng(4);
  // Shapes: dense, small gaps, evenly spaced, evenly spaced at the top of the range, uniform
  // over the whole range (interpolation's guess near but rarely right), bursts separated by gaps
  // of very different lengths (the guess far off).
  for (int shape = 0; shape < 6; ++shape) {
    for (uint32_t n : {1u, 2u, 3u, 9u, 40u, 255u, 500u}) {
      std::vector<uint64_t> values;
      uint64_t v = shape == 3 ? ~uint64_t{0} - 10 * n : rng.between(0, 1000);
      for (uint32_t i = 0; i < n; ++i) {
        values.push_back(shape == 4 ? rng.next() : v);
        if (shape == 5 && rng.between(0, 9) == 0)
          v += uint64_t{1} << rng.between(10, 40);  // a gap
        else
          v += shape == 0 ? 1 : shape == 1 || shape == 5 ? 1 + rng.between(0, 50) : 7;
      }
      std::sort(values.begin(), values.end());
      values.erase(std::unique(values.begin(), values.end()), values.end());
      n = static_cast<uint32_t>(values.size());
      std::vector<std::byte> bytes(8 * n);
      for (uint32_t i = 0; i < n; ++i)
        drydb::detail::store_be64(bytes.data() + 8 * i, values[i]);
      std::vector<uint64_t> probes = {0, ~uint64_t{0}, values.front() - 1, values.back() + 1};
      for (uint64_t x : values)
        for (uint64_t d : {uint64_t{0}, uint64_t{1}, ~uint64_t{0}})
          probes.push_back(x + d);
      for (uint64_t x : probes) {
        const auto want = static_cast<uint32_t>(std::lower_bound(values.begin(), values.end(), x) -
                                                values.begin());
        bool found;
        EXPECT_EQ(drydb::detail::unique_prefix_find(bytes.data(), n, x, &found), want)
            << shape << " " << n << " " << x;
        EXPECT_EQ(found, want < n && values[want] == x);
        EXPECT_EQ(drydb::detail::unique_prefix_lower_bound(bytes.data(), n, x), want);
        EXPECT_EQ(drydb::detail::prefix_lower_bound(bytes.data(), n, x), want);
      }
    }
  }
}

TEST(SearchPrimitives, LockstepBoundsMatchEachSearchAlone) {
  Rng rng(6);
  constexpr uint32_t kBatch = 8;
  for (int trial = 0; trial < 3000; ++trial) {
    // A batch of up to 8 searches over arrays of 0 .. 300 prefixes, with runs of equal
    // prefixes (the heads of text keys), each probed at, between and beyond its prefixes. In
    // every other trial the arrays have lengths unlike each other (the searches then take
    // different numbers of steps); in the others one length (pages filled alike, whose
    // searches share their window's length), 0 and 1 among them.
    const auto m = static_cast<uint32_t>(rng.between(0, kBatch));
    const bool same_length = trial % 2 == 1;
    const uint64_t shared_len = rng.between(0, 3) == 0 ? rng.between(0, 3) : rng.between(0, 300);
    std::vector<uint64_t> values[kBatch];
    std::vector<std::byte> bytes[kBatch];
    const std::byte* arrays[kBatch];
    uint32_t n[kBatch];
    uint64_t x[kBatch];
    for (uint32_t j = 0; j < m; ++j) {
      const uint64_t len = same_length              ? shared_len
                           : rng.between(0, 3) == 0 ? rng.between(0, 3)
                                                    : rng.between(0, 300);
      uint64_t v = rng.between(0, 1000);
      for (uint64_t i = 0; i < len; ++i) {
        values[j].push_back(v);
        v += rng.between(0, 4) == 0 ? 0 : rng.between(1, 1000);
      }
      // 8 bytes even for an empty array: the contract lets a search read them.
      bytes[j].resize(8 * std::max<size_t>(1, values[j].size()));
      for (size_t i = 0; i < values[j].size(); ++i)
        drydb::detail::store_be64(bytes[j].data() + 8 * i, values[j][i]);
      arrays[j] = bytes[j].data();
      n[j] = static_cast<uint32_t>(values[j].size());
      const uint64_t near = values[j].empty() ? rng.next() : values[j][rng.below(values[j].size())];
      x[j] = rng.between(0, 5) == 0 ? rng.next() : near + rng.between(0, 2) - 1;
    }
    uint32_t lower[kBatch], upper[kBatch];
    drydb::detail::prefix_bound_lockstep<false, kBatch>(arrays, n, x, m, lower);
    drydb::detail::prefix_bound_lockstep<true, kBatch>(arrays, n, x, m, upper);
    for (uint32_t j = 0; j < m; ++j) {
      const auto& vs = values[j];
      ASSERT_EQ(lower[j], std::lower_bound(vs.begin(), vs.end(), x[j]) - vs.begin())
          << "trial " << trial << ", search " << j << " of " << m << ", n " << n[j];
      ASSERT_EQ(upper[j], std::upper_bound(vs.begin(), vs.end(), x[j]) - vs.begin())
          << "trial " << trial << ", search " << j << " of " << m << ", n " << n[j];
      // The search alone (its 8-way rounds over windows of more than 16 prefixes, then halving).
      ASSERT_EQ(drydb::detail::prefix_lower_bound(arrays[j], n[j], x[j]), lower[j])
          << "trial " << trial << ", search " << j << " of " << m << ", n " << n[j];
    }
  }
}

TEST(SearchPrimitives, PrefixRunEndMatchesUpperBound) {
  Rng rng(5);
  for (int trial = 0; trial < 400; ++trial) {
    // Runs of 1 .. 70 equal prefixes (heads of keys sharing their first bytes), the last run
    // sometimes at the largest prefix.
    std::vector<uint64_t> values;
    uint64_t v = rng.between(0, 1000);
    const uint32_t runs = static_cast<uint32_t>(rng.between(1, 12));
    for (uint32_t r = 0; r < runs; ++r) {
      const uint64_t length = rng.between(0, 3) == 0 ? rng.between(1, 70) : rng.between(1, 4);
      if (r + 1 == runs && trial % 4 == 0) v = ~uint64_t{0};
      for (uint64_t j = 0; j < length; ++j)
        values.push_back(v);
      v += 1 + rng.between(0, 5);
    }
    const auto n = static_cast<uint32_t>(values.size());
    std::vector<std::byte> bytes(8 * n);
    for (uint32_t i = 0; i < n; ++i)
      drydb::detail::store_be64(bytes.data() + 8 * i, values[i]);
    for (uint32_t i = 0; i < n; ++i) {  // from every entry of a run, not only its first
      const auto want = static_cast<uint32_t>(
          std::upper_bound(values.begin(), values.end(), values[i]) - values.begin());
      ASSERT_EQ(drydb::detail::prefix_run_end(bytes.data(), n, i, values[i]), want)
          << "trial " << trial << ", entry " << i << " of " << n;
    }
  }
  // Unordered bytes (a corrupt page): any answer, but in [i + 1, n].
  for (int trial = 0; trial < 2000; ++trial) {
    const auto n = static_cast<uint32_t>(rng.between(1, 80));
    std::vector<std::byte> bytes(8 * n);
    for (uint32_t i = 0; i < n; ++i)
      drydb::detail::store_be64(bytes.data() + 8 * i, rng.between(0, 3));
    const auto i = static_cast<uint32_t>(rng.below(n));
    const uint32_t end = drydb::detail::prefix_run_end(
        bytes.data(), n, i, drydb::detail::load_be64(bytes.data() + 8 * size_t{i}));
    ASSERT_GT(end, i);
    ASSERT_LE(end, n);
  }
}

}  // namespace
