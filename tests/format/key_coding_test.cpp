// The public int64 key coding (key_encoding.h) and format limits (limits.h): the coding round
// trips and sorts as the numbers do; the limits are the ones the builder enforces.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>

#include "drydb/drydb.h"
#include "drydb/limits.h"

namespace {

TEST(Int64KeyCoding, RoundTripsAndSortsAsNumbers) {
  std::mt19937_64 rng(11);
  std::vector<int64_t> values{INT64_MIN, INT64_MIN + 1, -1, 0, 1, INT64_MAX - 1, INT64_MAX};
  for (int i = 0; i < 1000; ++i)
    values.push_back(static_cast<int64_t>(rng()));
  for (int64_t a : values) {
    std::byte ea[8];
    drydb::encode_int64_key(a, ea);
    EXPECT_EQ(drydb::decode_int64_key(ea), a);
    // The same bytes as the Key an int64 table is given.
    const drydb::Key key(a);
    ASSERT_EQ(key.bytes().size(), 8u);
    EXPECT_EQ(std::memcmp(key.bytes().data(), ea, 8), 0);
    for (int64_t b : {values[0], values[3], values[values.size() / 2]}) {
      std::byte eb[8];
      drydb::encode_int64_key(b, eb);
      const int c = std::memcmp(ea, eb, 8);
      EXPECT_EQ(c < 0, a < b) << a << " vs " << b;
      EXPECT_EQ(c == 0, a == b) << a << " vs " << b;
    }
  }
}

TEST(FormatLimits, AreWhatTheBuilderEnforces) {
  EXPECT_FALSE(drydb::valid_page_size(drydb::kMinPageSize / 2));
  EXPECT_FALSE(drydb::valid_page_size(drydb::kMaxPageSize * 2));
  EXPECT_FALSE(drydb::valid_page_size(3000));
  for (uint32_t page = drydb::kMinPageSize; page <= drydb::kMaxPageSize; page *= 2) {
    ASSERT_TRUE(drydb::valid_page_size(page));
    const uint32_t longest = drydb::max_key_length(page);
    for (const uint32_t len : {longest, longest + 1}) {
      drydb::DatabaseBuilder b({.page_size = page});
      b.create_table("t").append(std::string(len, 'k'), "v");
      auto built = b.build_to_memory();
      if (len == longest) {
        EXPECT_TRUE(built) << page << ": " << built.error().to_string();
      } else {
        ASSERT_FALSE(built) << page;
        EXPECT_EQ(built.error().code, drydb::errc::key_too_long) << page;
      }
    }
  }
  EXPECT_EQ(drydb::kMaxValueLength, 0xFFFF'FFFFull);
}

}  // namespace
