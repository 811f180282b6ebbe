// Tests for drydb::Uuid (uuid.h) and drydb::Ulid (ulid.h).

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "drydb/ulid.h"
#include "drydb/uuid.h"
#include "support/random.h"

namespace drydb {
namespace {

// N bytes: the values of `v`, then zeros.
template <std::size_t N>
std::array<std::byte, N> byte_array(std::initializer_list<unsigned> v) {
  std::array<std::byte, N> out{};
  std::size_t i = 0;
  for (unsigned x : v)
    out.at(i++) = static_cast<std::byte>(x);
  return out;
}

std::array<std::byte, 16> bytes16(std::initializer_list<unsigned> v) {
  return byte_array<16>(v);
}

std::array<std::byte, 10> bytes10(std::initializer_list<unsigned> v) {
  return byte_array<10>(v);
}

// A deterministic stream of pseudo-random bytes: the low byte of each draw of the tests' one
// generator (support/random.h).
struct ByteStream {
  drydb_test::Rng rng;
  std::byte next() { return static_cast<std::byte>(rng.next() & 0xff); }
  template <std::size_t N>
  std::array<std::byte, N> fill() {
    std::array<std::byte, N> out{};
    for (auto& b : out)
      b = next();
    return out;
  }
};

// Ids (Uuid, Ulid) compare their bytes unsigned: one with 0x80 at byte `at` sorts after one with
// 0x7f there.
template <class Id>
void expect_unsigned_byte_order(std::size_t at) {
  Id a;
  Id b;
  a.bytes[at] = std::byte{0x7f};
  b.bytes[at] = std::byte{0x80};
  EXPECT_LT(a, b);
  EXPECT_NE(a, b);
  EXPECT_TRUE((a <=> b) == std::strong_ordering::less);
  EXPECT_TRUE((a <=> a) == std::strong_ordering::equal);
}

// Ids made by `make(stamp, random)` from consecutive `stamps` sort by timestamp whatever their
// random bits (all ones before all zeros), and so do their text forms.
template <class Make>
void expect_timestamp_order(std::initializer_list<std::uint64_t> stamps, Make make) {
  const auto ones = bytes10({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff});
  const std::array<std::byte, 10> zeros{};
  for (auto it = stamps.begin(); it + 1 != stamps.end(); ++it) {
    const auto early = make(it[0], ones);
    const auto late = make(it[1], zeros);
    EXPECT_LT(early, late) << it[0];
    EXPECT_LT(early.to_string(), late.to_string()) << it[0];
  }
}

// Asserts that `r` failed with errc::invalid_argument and that its message
// quotes `text` (checked verbatim when `text` needs no escaping).
template <class T>
void expect_rejected(const result<T>& r, std::string_view text) {
  ASSERT_FALSE(r.has_value()) << "accepted \"" << text << "\"";
  EXPECT_EQ(r.code(), errc::invalid_argument) << text;
  const bool plain = std::all_of(text.begin(), text.end(), [](char c) {
    return c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
  });
  if (plain) {
    EXPECT_NE(r.error().message.find("\"" + std::string(text) + "\""), std::string::npos)
        << r.error().message;
  } else {
    EXPECT_FALSE(r.error().message.empty());
  }
}

// ---------------------------------------------------------------------------
// Uuid

constexpr std::string_view kRfcV7 = "017F22E2-79B0-7CC3-98C4-DC0C0C07398F";
constexpr std::string_view kRfcV7Lower = "017f22e2-79b0-7cc3-98c4-dc0c0c07398f";

TEST(UuidTest, ParsesRfc9562V7Example) {
  auto r = Uuid::parse(kRfcV7);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(r->bytes, bytes16({0x01, 0x7f, 0x22, 0xe2, 0x79, 0xb0, 0x7c, 0xc3, 0x98, 0xc4, 0xdc,
                               0x0c, 0x0c, 0x07, 0x39, 0x8f}));
  EXPECT_EQ(r->version(), 7);
  EXPECT_EQ(r->v7_timestamp_ms(), 0x017F22E279B0ULL);
  EXPECT_EQ(r->v7_timestamp_ms(), 1645557742000ULL);
  EXPECT_EQ(r->to_string(), kRfcV7Lower);
}

TEST(UuidTest, HexIsCaseInsensitive) {
  auto upper = Uuid::parse(kRfcV7);
  auto lower = Uuid::parse(kRfcV7Lower);
  auto mixed = Uuid::parse("017f22E2-79b0-7Cc3-98C4-dC0c0C07398F");
  ASSERT_TRUE(upper && lower && mixed);
  EXPECT_EQ(*upper, *lower);
  EXPECT_EQ(*upper, *mixed);
  EXPECT_EQ(mixed->to_string(), kRfcV7Lower);
}

TEST(UuidTest, AcceptsUnhyphenatedAndBracedForms) {
  auto canonical = Uuid::parse(kRfcV7);
  auto plain = Uuid::parse("017F22E279B07CC398C4DC0C0C07398F");
  auto plain_lower = Uuid::parse("017f22e279b07cc398c4dc0c0c07398f");
  auto braced = Uuid::parse("{017F22E2-79B0-7CC3-98C4-DC0C0C07398F}");
  auto braced_lower = Uuid::parse("{017f22e2-79b0-7cc3-98c4-dc0c0c07398f}");
  ASSERT_TRUE(canonical && plain && plain_lower && braced && braced_lower);
  EXPECT_EQ(*plain, *canonical);
  EXPECT_EQ(*plain_lower, *canonical);
  EXPECT_EQ(*braced, *canonical);
  EXPECT_EQ(*braced_lower, *canonical);
  // Output is always the canonical lowercase hyphenated form.
  EXPECT_EQ(plain->to_string(), kRfcV7Lower);
  EXPECT_EQ(braced->to_string(), kRfcV7Lower);
}

TEST(UuidTest, NilAndMax) {
  auto nil = Uuid::parse("00000000-0000-0000-0000-000000000000");
  ASSERT_TRUE(nil.has_value());
  EXPECT_EQ(*nil, Uuid{});
  EXPECT_EQ(nil->version(), 0);
  EXPECT_EQ(Uuid{}.to_string(), "00000000-0000-0000-0000-000000000000");

  auto max = Uuid::parse("FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF");
  ASSERT_TRUE(max.has_value());
  for (std::byte b : max->bytes)
    EXPECT_EQ(b, std::byte{0xff});
  EXPECT_EQ(max->version(), 15);
  EXPECT_EQ(max->to_string(), "ffffffff-ffff-ffff-ffff-ffffffffffff");
}

TEST(UuidTest, VersionIsHighNibbleOfByte6) {
  auto v4 = Uuid::parse("f81d4fae-7dec-41d0-a765-00a0c91e6bf6");
  ASSERT_TRUE(v4.has_value());
  EXPECT_EQ(v4->version(), 4);
  auto v1 = Uuid::parse("C232AB00-9414-11EC-B3C8-9F6BDECED846");  // RFC 9562 v1 example
  ASSERT_TRUE(v1.has_value());
  EXPECT_EQ(v1->version(), 1);
}

TEST(UuidTest, ToStringParseRoundTrip) {
  ByteStream rng{drydb_test::Rng(42)};
  for (int i = 0; i < 1000; ++i) {
    const Uuid u{rng.fill<16>()};
    const std::string s = u.to_string();
    ASSERT_EQ(s.size(), 36u);
    EXPECT_EQ(s[8], '-');
    EXPECT_EQ(s[13], '-');
    EXPECT_EQ(s[18], '-');
    EXPECT_EQ(s[23], '-');
    EXPECT_TRUE(std::none_of(s.begin(), s.end(), [](char c) { return c >= 'A' && c <= 'Z'; })) << s;
    auto back = Uuid::parse(s);
    ASSERT_TRUE(back.has_value()) << s;
    EXPECT_EQ(*back, u);
    EXPECT_EQ(back->to_string(), s);
  }
  // parse -> to_string -> parse from an uppercase input.
  auto first = Uuid::parse("A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11");
  ASSERT_TRUE(first.has_value());
  auto second = Uuid::parse(first->to_string());
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(*first, *second);
  EXPECT_EQ(second->to_string(), "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11");
}

TEST(UuidTest, FromBytesAndAsBytes) {
  const auto raw = bytes16({0x01, 0x7f, 0x22, 0xe2, 0x79, 0xb0, 0x7c, 0xc3, 0x98, 0xc4, 0xdc, 0x0c,
                            0x0c, 0x07, 0x39, 0x8f});
  const Uuid u = Uuid::from_bytes(std::span<const std::byte, 16>(raw));
  EXPECT_EQ(u.bytes, raw);
  EXPECT_EQ(u.to_string(), kRfcV7Lower);
  const std::span<const std::byte, 16> view = u.as_bytes();
  EXPECT_EQ(view.data(), u.bytes.data());
  EXPECT_TRUE(std::equal(view.begin(), view.end(), raw.begin()));
}

TEST(UuidTest, RejectsWrongLengths) {
  for (std::string_view text : {
           std::string_view(""),
           std::string_view("0"),
           std::string_view("017F22E2-79B0-7CC3-98C4-DC0C0C07398"),     // 35
           std::string_view("017F22E2-79B0-7CC3-98C4-DC0C0C07398F0"),   // 37
           std::string_view("017F22E279B07CC398C4DC0C0C07398"),         // 31
           std::string_view("017F22E279B07CC398C4DC0C0C07398F0"),       // 33
           std::string_view("017F22E2-79B0-7CC3-98C4-DC0C0C07398F00"),  // 38, no braces
           std::string_view("{017F22E279B07CC398C4DC0C0C07398F}"),      // braced 32 digits
           std::string_view("{017F22E2-79B0-7CC3-98C4-DC0C0C07398F"),   // one brace
           std::string_view("017F22E2-79B0-7CC3-98C4-DC0C0C07398F}"),
           std::string_view(" 017F22E2-79B0-7CC3-98C4-DC0C0C07398F"),  // whitespace
           std::string_view("017F22E2-79B0-7CC3-98C4-DC0C0C07398F\n"),
           std::string_view("urn:uuid:017F22E2-79B0-7CC3-98C4-DC0C0C07398F"),
       }) {
    expect_rejected(Uuid::parse(text), text);
  }
}

TEST(UuidTest, RejectsBadCharacters) {
  // Every digit position of every accepted form, replaced by each bad character.
  const std::string forms[] = {std::string(kRfcV7), "017F22E279B07CC398C4DC0C0C07398F",
                               "{017F22E2-79B0-7CC3-98C4-DC0C0C07398F}"};
  for (const std::string& form : forms) {
    for (std::size_t i = 0; i < form.size(); ++i) {
      if (form[i] == '-' || form[i] == '{' || form[i] == '}') continue;
      for (char bad : {'g', 'G', 'z', ' ', '-', '{', 'x', '\0', '\xff'}) {
        std::string text = form;
        text[i] = bad;
        auto r = Uuid::parse(text);
        ASSERT_FALSE(r.has_value()) << "accepted " << text;
        EXPECT_EQ(r.code(), errc::invalid_argument);
        EXPECT_FALSE(r.error().message.empty());
      }
    }
  }
}

TEST(UuidTest, RejectsMisplacedHyphensAndBraces) {
  for (std::string_view text : {
           std::string_view("017F22E-279B0-7CC3-98C4-DC0C0C07398F"),  // 7-5-4-4-12
           std::string_view("017F22E27-9B0-7CC3-98C4-DC0C0C07398F"),  // 9-3-...
           std::string_view("017F22E2-79B07-CC3-98C4-DC0C0C07398F"),
           std::string_view("017F22E2-79B0-7CC39-8C4-DC0C0C07398F"),
           std::string_view("017F22E2-79B0-7CC3-98C4D-C0C0C07398F"),
           std::string_view("017F22E2079B0-7CC3-98C4-DC0C0C07398F"),  // hyphen replaced by digit
           std::string_view("017F22E2-79B0-7CC3-98C40DC0C0C07398F"),
           std::string_view("017F22E2-79B0-7CC3-98C4-DC0C0C0739-F"),  // extra hyphen
           std::string_view("-017F22E279B07CC398C4DC0C0C07398F---"),
           std::string_view("017F22E2-79B07CC3-98C4DC0C0C07398F"),  // 34, two hyphens only
           std::string_view("017F22E2_79B0_7CC3_98C4_DC0C0C07398F"),
           std::string_view("(017F22E2-79B0-7CC3-98C4-DC0C0C07398F)"),
           std::string_view("[017F22E2-79B0-7CC3-98C4-DC0C0C07398F]"),
           std::string_view("}017F22E2-79B0-7CC3-98C4-DC0C0C07398F{"),
           std::string_view("{017F22E2-79B07CC3-98C4-DC0C0C07398F0}"),
           std::string_view("{{17F22E2-79B0-7CC3-98C4-DC0C0C07398}}"),
       }) {
    expect_rejected(Uuid::parse(text), text);
  }
}

TEST(UuidTest, ErrorMessageQuotesAndEscapesText) {
  auto r = Uuid::parse("not-a-uuid");
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("\"not-a-uuid\""), std::string::npos) << r.error().message;

  auto ctl = Uuid::parse(std::string_view("a\"b\x01", 4));
  ASSERT_FALSE(ctl.has_value());
  EXPECT_NE(ctl.error().message.find(R"("a\"b\x01")"), std::string::npos) << ctl.error().message;

  const std::string long_text(1000, 'a');
  auto big = Uuid::parse(long_text);
  ASSERT_FALSE(big.has_value());
  EXPECT_LT(big.error().message.size(), 300u);
  EXPECT_NE(big.error().message.find("..."), std::string::npos);
}

TEST(UuidTest, V7FromPartsRebuildsRfcExample) {
  // The RFC 9562 example: unix_ts_ms 0x017F22E279B0, rand_a 0xCC3, rand_b 0x18C4DC0C0C07398F.
  const auto random = bytes10({0x0c, 0xc3, 0x18, 0xc4, 0xdc, 0x0c, 0x0c, 0x07, 0x39, 0x8f});
  const Uuid u = Uuid::v7_from_parts(0x017F22E279B0ULL, random);
  auto expected = Uuid::parse(kRfcV7);
  ASSERT_TRUE(expected.has_value());
  EXPECT_EQ(u, *expected);
  EXPECT_EQ(u.to_string(), kRfcV7Lower);
}

TEST(UuidTest, V7FromPartsSetsVersionAndVariant) {
  const auto ones = bytes10({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff});
  const Uuid hi = Uuid::v7_from_parts(0, ones);
  EXPECT_EQ(hi.version(), 7);
  EXPECT_EQ(hi.bytes[6], std::byte{0x7f});
  EXPECT_EQ(hi.bytes[8], std::byte{0xbf});  // variant bits 10
  EXPECT_EQ(hi.v7_timestamp_ms(), 0u);
  EXPECT_EQ(hi.to_string(), "00000000-0000-7fff-bfff-ffffffffffff");

  const Uuid lo = Uuid::v7_from_parts(0, std::array<std::byte, 10>{});
  EXPECT_EQ(lo.version(), 7);
  EXPECT_EQ(lo.to_string(), "00000000-0000-7000-8000-000000000000");
}

TEST(UuidTest, V7TimestampRoundTripsAndIsMaskedTo48Bits) {
  const std::array<std::byte, 10> random{};
  for (std::uint64_t ms : {0ULL, 1ULL, 0xffULL, 0x100ULL, 1645557742000ULL, 0xFFFFFFFFFFFFULL}) {
    const Uuid u = Uuid::v7_from_parts(ms, random);
    EXPECT_EQ(u.v7_timestamp_ms(), ms);
    EXPECT_EQ(u.version(), 7);
  }
  // Bits above 48 are discarded.
  EXPECT_EQ(Uuid::v7_from_parts((1ULL << 48) | 5, random).v7_timestamp_ms(), 5u);
  EXPECT_EQ(Uuid::v7_from_parts(~0ULL, random).v7_timestamp_ms(), 0xFFFFFFFFFFFFULL);
}

TEST(UuidTest, OrderIsUnsignedByteOrderAndFollowsV7Timestamp) {
  expect_unsigned_byte_order<Uuid>(0);
  // The first differing byte decides.
  Uuid c;
  Uuid d;
  c.bytes[0] = std::byte{0x01};
  c.bytes[15] = std::byte{0xff};
  d.bytes[0] = std::byte{0x02};
  EXPECT_LT(c, d);
  EXPECT_EQ(Uuid{}, Uuid{});
  EXPECT_TRUE((Uuid{} <=> Uuid{}) == std::strong_ordering::equal);

  expect_timestamp_order({0, 1, 0xff, 0x100, 0xffff, 0x10000, 1645557742000ULL, 0xFFFFFFFFFFFFULL},
                         &Uuid::v7_from_parts);
  ByteStream rng{drydb_test::Rng(7)};
  std::vector<Uuid> ids;
  for (std::uint64_t ms = 1000; ms < 1100; ++ms) {
    const auto r = rng.fill<10>();
    ids.push_back(Uuid::v7_from_parts(ms * 7919, r));
  }
  EXPECT_TRUE(std::is_sorted(ids.begin(), ids.end()));
}

// ---------------------------------------------------------------------------
// Ulid

// The ULID spec's example. Its first 10 characters decode to 1469922850259.
constexpr std::string_view kSpecUlid = "01ARZ3NDEKTSV4RRFFQ69G5FAV";
// The ulid/javascript README's ulid(1469918176385) with the same random part.
constexpr std::string_view kJsUlid = "01ARYZ6S41TSV4RRFFQ69G5FAV";

// An independent bit-by-bit reference encoder: 128 bits, two zero bits on top,
// read in groups of five.
std::string reference_encode(const std::array<std::byte, 16>& bytes) {
  constexpr char kAlphabet[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
  std::vector<int> bits = {0, 0};
  for (std::byte b : bytes) {
    for (int k = 7; k >= 0; --k)
      bits.push_back((std::to_integer<int>(b) >> k) & 1);
  }
  std::string out;
  for (std::size_t i = 0; i < bits.size(); i += 5) {
    int v = 0;
    for (std::size_t j = 0; j < 5; ++j)
      v = v * 2 + bits[i + j];
    out += kAlphabet[v];
  }
  return out;
}

TEST(UlidTest, ParsesSpecExample) {
  auto r = Ulid::parse(kSpecUlid);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(r->bytes, bytes16({0x01, 0x56, 0x3e, 0x3a, 0xb5, 0xd3, 0xd6, 0x76, 0x4c, 0x61, 0xef,
                               0xb9, 0x93, 0x02, 0xbd, 0x5b}));
  EXPECT_EQ(r->timestamp_ms(), 1469922850259ULL);
  EXPECT_EQ(r->to_string(), kSpecUlid);
}

TEST(UlidTest, ParsesJavascriptReadmeExampleWithTimestamp1469918176385) {
  auto r = Ulid::parse(kJsUlid);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(r->timestamp_ms(), 1469918176385ULL);
  EXPECT_EQ(r->bytes, bytes16({0x01, 0x56, 0x3d, 0xf3, 0x64, 0x81, 0xd6, 0x76, 0x4c, 0x61, 0xef,
                               0xb9, 0x93, 0x02, 0xbd, 0x5b}));
  EXPECT_EQ(r->to_string(), kJsUlid);
  // Same random part as the spec example.
  auto spec = Ulid::parse(kSpecUlid);
  ASSERT_TRUE(spec.has_value());
  EXPECT_TRUE(std::equal(r->bytes.begin() + 6, r->bytes.end(), spec->bytes.begin() + 6));
  // Built from its parts it is the same ULID.
  std::array<std::byte, 10> random{};
  std::copy(r->bytes.begin() + 6, r->bytes.end(), random.begin());
  EXPECT_EQ(Ulid::from_parts(1469918176385ULL, random), *r);
}

TEST(UlidTest, MinAndMax) {
  auto zero = Ulid::parse("00000000000000000000000000");
  ASSERT_TRUE(zero.has_value());
  EXPECT_EQ(*zero, Ulid{});
  EXPECT_EQ(Ulid{}.to_string(), "00000000000000000000000000");
  EXPECT_EQ(zero->timestamp_ms(), 0u);

  auto max = Ulid::parse("7ZZZZZZZZZZZZZZZZZZZZZZZZZ");
  ASSERT_TRUE(max.has_value());
  for (std::byte b : max->bytes)
    EXPECT_EQ(b, std::byte{0xff});
  EXPECT_EQ(max->timestamp_ms(), 0xFFFFFFFFFFFFULL);
  EXPECT_EQ(max->to_string(), "7ZZZZZZZZZZZZZZZZZZZZZZZZZ");
}

TEST(UlidTest, AcceptsLowercaseAndMixedCase) {
  auto upper = Ulid::parse(kSpecUlid);
  auto lower = Ulid::parse("01arz3ndektsv4rrffq69g5fav");
  auto mixed = Ulid::parse("01aRz3NdEkTsV4rRfFq69G5fAv");
  ASSERT_TRUE(upper && lower && mixed);
  EXPECT_EQ(*lower, *upper);
  EXPECT_EQ(*mixed, *upper);
  EXPECT_EQ(lower->to_string(), kSpecUlid);  // output is uppercase
}

TEST(UlidTest, AcceptsCrockfordAliases) {
  // I, i, L, l read as 1; O, o read as 0.
  auto canonical = Ulid::parse("01ARZ3NDEKTSV4RRFFQ69G5FAV");
  ASSERT_TRUE(canonical.has_value());
  for (std::string_view alias :
       {"0IARZ3NDEKTSV4RRFFQ69G5FAV", "0iARZ3NDEKTSV4RRFFQ69G5FAV", "0LARZ3NDEKTSV4RRFFQ69G5FAV",
        "0lARZ3NDEKTSV4RRFFQ69G5FAV", "O1ARZ3NDEKTSV4RRFFQ69G5FAV", "o1ARZ3NDEKTSV4RRFFQ69G5FAV",
        "oIARZ3NDEKTSV4RRFFQ69G5FAV"}) {
    auto r = Ulid::parse(alias);
    ASSERT_TRUE(r.has_value()) << alias;
    EXPECT_EQ(*r, *canonical) << alias;
    EXPECT_EQ(r->to_string(), "01ARZ3NDEKTSV4RRFFQ69G5FAV");
  }
  auto all = Ulid::parse("OOOOOOOOOOOOOOOOOOOOOOOOOO");
  ASSERT_TRUE(all.has_value());
  EXPECT_EQ(*all, Ulid{});
  auto ones = Ulid::parse("ILILILILILILILILILILILILIL");
  auto ones_digits = Ulid::parse("11111111111111111111111111");
  ASSERT_TRUE(ones && ones_digits);
  EXPECT_EQ(*ones, *ones_digits);
}

TEST(UlidTest, EveryDigitDecodesToItsValue) {
  constexpr std::string_view kAlphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
  for (std::size_t v = 0; v < 32; ++v) {
    // As the last character the digit is the low 5 bits of byte 15.
    std::string text(25, '0');
    text += kAlphabet[v];
    auto r = Ulid::parse(text);
    ASSERT_TRUE(r.has_value()) << text;
    EXPECT_EQ(std::to_integer<std::size_t>(r->bytes[15]), v) << text;
    EXPECT_EQ(r->to_string(), text);
  }
}

TEST(UlidTest, EncodingMatchesBitwiseReference) {
  // Each single bit, then pseudo-random values; catches errors at the 64-bit seam.
  for (std::size_t bit = 0; bit < 128; ++bit) {
    Ulid u;
    u.bytes[bit / 8] = static_cast<std::byte>(0x80 >> (bit % 8));
    const std::string s = u.to_string();
    EXPECT_EQ(s, reference_encode(u.bytes)) << bit;
    auto back = Ulid::parse(s);
    ASSERT_TRUE(back.has_value()) << s;
    EXPECT_EQ(*back, u) << bit;
  }
  ByteStream rng{drydb_test::Rng(1)};
  for (int i = 0; i < 1000; ++i) {
    const Ulid u{rng.fill<16>()};
    const std::string s = u.to_string();
    ASSERT_EQ(s.size(), 26u);
    EXPECT_EQ(s, reference_encode(u.bytes));
    auto back = Ulid::parse(s);
    ASSERT_TRUE(back.has_value()) << s;
    EXPECT_EQ(*back, u);
    EXPECT_EQ(back->to_string(), s);
  }
}

TEST(UlidTest, FromPartsTimestampAndRandom) {
  ByteStream rng{drydb_test::Rng(3)};
  const auto random = rng.fill<10>();
  const Ulid u = Ulid::from_parts(1469918176385ULL, random);
  EXPECT_EQ(u.timestamp_ms(), 1469918176385ULL);
  EXPECT_TRUE(std::equal(random.begin(), random.end(), u.bytes.begin() + 6));
  EXPECT_EQ(u.to_string().substr(0, 10), "01ARYZ6S41");

  for (std::uint64_t ms : {0ULL, 1ULL, 0xffULL, 0x100ULL, 0xFFFFFFFFFFFFULL}) {
    EXPECT_EQ(Ulid::from_parts(ms, random).timestamp_ms(), ms);
  }
  // Bits above 48 are discarded.
  EXPECT_EQ(Ulid::from_parts((1ULL << 48) | 9, random).timestamp_ms(), 9u);
  EXPECT_EQ(Ulid::from_parts(~0ULL, random).timestamp_ms(), 0xFFFFFFFFFFFFULL);
}

TEST(UlidTest, FromBytesAndAsBytes) {
  ByteStream rng{drydb_test::Rng(5)};
  const auto raw = rng.fill<16>();
  const Ulid u = Ulid::from_bytes(std::span<const std::byte, 16>(raw));
  EXPECT_EQ(u.bytes, raw);
  const std::span<const std::byte, 16> view = u.as_bytes();
  EXPECT_EQ(view.data(), u.bytes.data());
  EXPECT_TRUE(std::equal(view.begin(), view.end(), raw.begin()));
}

TEST(UlidTest, RejectsWrongLengths) {
  for (std::string_view text : {
           std::string_view(""), std::string_view("0"),
           std::string_view("01ARZ3NDEKTSV4RRFFQ69G5FA"),    // 25
           std::string_view("01ARZ3NDEKTSV4RRFFQ69G5FAV0"),  // 27
           std::string_view(" 01ARZ3NDEKTSV4RRFFQ69G5FAV"),
           std::string_view("01ARZ3NDEKTSV4RRFFQ69G5FAV\n"),
           std::string_view("01ARZ3NDEK-TSV4RRFFQ69G5FAV"),  // Crockford hyphen: not in ULIDs
       }) {
    auto r = Ulid::parse(text);
    expect_rejected(r, text);
    EXPECT_NE(r.error().message.find("26"), std::string::npos) << r.error().message;
  }
}

TEST(UlidTest, RejectsBadCharacters) {
  const std::string good(kSpecUlid);
  for (std::size_t i = 0; i < good.size(); ++i) {
    for (char bad : {'U', 'u', '-', ' ', '!', '*', '~', '$', '=', '\0', '\x80', '\xff'}) {
      std::string text = good;
      text[i] = bad;
      auto r = Ulid::parse(text);
      ASSERT_FALSE(r.has_value()) << "accepted " << text;
      EXPECT_EQ(r.code(), errc::invalid_argument);
      EXPECT_NE(r.error().message.find("offset " + std::to_string(i)), std::string::npos)
          << r.error().message;
    }
  }
  expect_rejected(Ulid::parse("01ARZ3NDEKTSV4RRFFQ69G5FAU"), "01ARZ3NDEKTSV4RRFFQ69G5FAU");
}

TEST(UlidTest, RejectsOverflowingFirstCharacter) {
  for (std::string_view text :
       {"8ZZZZZZZZZZZZZZZZZZZZZZZZZ", "80000000000000000000000000", "9ZZZZZZZZZZZZZZZZZZZZZZZZZ",
        "ZZZZZZZZZZZZZZZZZZZZZZZZZZ", "zzzzzzzzzzzzzzzzzzzzzzzzzz", "A0000000000000000000000000"}) {
    auto r = Ulid::parse(text);
    expect_rejected(r, text);
    EXPECT_NE(r.error().message.find("overflow"), std::string::npos) << r.error().message;
  }
  // The largest legal first character is 7.
  EXPECT_TRUE(Ulid::parse("70000000000000000000000000").has_value());
}

TEST(UlidTest, OrderIsByteOrderAndFollowsTimestamp) {
  expect_unsigned_byte_order<Ulid>(5);

  expect_timestamp_order(
      {0, 1, 0xff, 0x100, 0xffff, 0x10000, 1469918176385ULL, 1469922850259ULL, 0xFFFFFFFFFFFFULL},
      &Ulid::from_parts);
  auto js = Ulid::parse(kJsUlid);
  auto spec = Ulid::parse(kSpecUlid);
  ASSERT_TRUE(js && spec);
  EXPECT_LT(*js, *spec);

  // Sorting by bytes and sorting by text agree.
  ByteStream rng{drydb_test::Rng(11)};
  std::vector<Ulid> ids;
  for (int i = 0; i < 200; ++i)
    ids.push_back(Ulid{rng.fill<16>()});
  std::sort(ids.begin(), ids.end());
  for (std::size_t i = 0; i + 1 < ids.size(); ++i) {
    EXPECT_LE(ids[i].to_string(), ids[i + 1].to_string());
  }
}

}  // namespace
}  // namespace drydb
