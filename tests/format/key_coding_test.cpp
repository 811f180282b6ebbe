// The public int64 key coding (key_encoding.h) and format limits (limits.h): the coding round
// trips and sorts as the numbers do; the limits are the ones the builder enforces. And the
// group of a non-unique index's variable-length key (index_coding.h): what put_index_group
// writes is the one form is_index_group accepts.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "drydb/detail/index_coding.h"
#include "drydb/drydb.h"
#include "drydb/limits.h"
#include "support/random.h"

namespace {

TEST(Int64KeyCoding, RoundTripsAndSortsAsNumbers) {
  drydb_test::Rng rng(11);
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

// Keys of 00, 01, FE and FF bytes, every one up to 6 bytes long: each one's group is accepted
// and reads back as the key. Each group with one byte changed is accepted exactly when it is
// the group of the key it reads back as (the written form of some key); a 00 before anything
// but FF or the terminator's place, or a missing terminator, is not.
TEST(IndexGroupCoding, OnlyTheWrittenFormIsAGroup) {
  namespace fmt = drydb::detail;
  const std::byte alphabet[] = {std::byte{0x00}, std::byte{0x01}, std::byte{0xFE}, std::byte{0xFF}};
  std::vector<std::vector<std::byte>> keys{{}};
  for (size_t at = 0; at < keys.size() && keys[at].size() < 6; ++at)
    for (std::byte b : alphabet) {
      auto k = keys[at];
      k.push_back(b);
      keys.push_back(k);
    }
  size_t refused = 0;
  for (const auto& key : keys) {
    std::vector<std::byte> group(fmt::index_group_size(key, 0));
    ASSERT_EQ(fmt::put_index_group(group.data(), key, 0), group.data() + group.size());
    ASSERT_TRUE(fmt::is_index_group(group));
    std::vector<std::byte> back(group.size());
    const size_t n =
        fmt::unescape_index_group(std::span(group).first(group.size() - 2), back.data());
    EXPECT_EQ(std::vector<std::byte>(back.begin(), back.begin() + static_cast<std::ptrdiff_t>(n)),
              key);
    for (size_t i = 0; i < group.size(); ++i)
      for (std::byte b : alphabet) {
        if (b == group[i]) continue;
        auto changed = group;
        changed[i] = b;
        bool valid = false;
        if (changed[changed.size() - 2] == std::byte{0} && changed.back() == std::byte{1}) {
          std::vector<std::byte> read(changed.size());
          read.resize(
              fmt::unescape_index_group(std::span(changed).first(changed.size() - 2), read.data()));
          std::vector<std::byte> rewritten(fmt::index_group_size(read, 0));
          fmt::put_index_group(rewritten.data(), read, 0);
          valid = rewritten == changed;
        }
        EXPECT_EQ(fmt::is_index_group(changed), valid)
            << "key of " << key.size() << " bytes, byte " << i;
        refused += !valid;
      }
  }
  EXPECT_GT(refused, keys.size());
  EXPECT_FALSE(fmt::is_index_group({}));
  const std::byte lone_terminator_byte[] = {std::byte{1}};
  EXPECT_FALSE(fmt::is_index_group(lone_terminator_byte));
}

}  // namespace
