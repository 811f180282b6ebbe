// drydb::Uuid: a 128-bit UUID (RFC 9562) as 16 bytes in network byte order.
//
// Header-only; depends on the standard library and result.h. No call throws.
#pragma once

#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>

#include "drydb/detail/coding.h"
#include "drydb/escape.h"
#include "drydb/result.h"

namespace drydb {

// A UUID. `bytes` holds the 16 octets in RFC 9562 order (byte 0 is the most
// significant), so the defaulted comparisons, which compare the bytes as
// unsigned values from first to last, give the RFC 9562 order; for version-7
// UUIDs that order sorts by timestamp first. A value-initialized Uuid is the
// nil UUID (all zero).
struct Uuid {
  std::array<std::byte, 16> bytes{};

  // Parses text in one of these forms, hex digits in either case:
  //   xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx     (canonical, 36 characters)
  //   xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx         (32 hex digits, no hyphens)
  //   {xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx}   (canonical form in braces)
  // Any other text (other length, a non-hex digit, a misplaced or missing
  // hyphen, no surrounding whitespace allowed) fails with errc::invalid_argument
  // and a message that quotes the text. Version and variant bits are not checked.
  static result<Uuid> parse(std::string_view text);

  // The canonical form: 36 characters, lowercase hex, hyphens at 8, 13, 18, 23.
  std::string to_string() const;

  // The version: the high nibble of byte 6 (7 for a UUIDv7, 4 for a UUIDv4).
  int version() const noexcept { return std::to_integer<int>(bytes[6] >> 4); }

  // The UUID whose bytes, in RFC 9562 order, are `b`.
  static Uuid from_bytes(std::span<const std::byte, 16> b) noexcept {
    Uuid u;
    std::memcpy(u.bytes.data(), b.data(), 16);
    return u;
  }

  // The 16 bytes in RFC 9562 order; valid as long as this Uuid is.
  std::span<const std::byte, 16> as_bytes() const noexcept {
    return std::span<const std::byte, 16>(bytes);
  }

  // A version-7, variant-10 UUID: bytes 0-5 hold `unix_ms` big-endian (only its
  // low 48 bits are used; callers should pass a value below 2^48), the version
  // nibble is 7, the variant bits are 10, and the remaining 74 bits come from
  // `random`: the low nibble of random[0] (rand_a bits 11-8), random[1]
  // (rand_a bits 7-0), the low 6 bits of random[2] and random[3..9] (rand_b).
  // Deterministic: the caller supplies the randomness.
  static Uuid v7_from_parts(std::uint64_t unix_ms, std::span<const std::byte, 10> random) noexcept {
    Uuid u;
    detail::store_be48(u.bytes.data(), unix_ms);
    u.bytes[6] = std::byte{0x70} | (random[0] & std::byte{0x0f});
    u.bytes[7] = random[1];
    u.bytes[8] = std::byte{0x80} | (random[2] & std::byte{0x3f});
    for (std::size_t i = 3; i < 10; ++i)
      u.bytes[i + 6] = random[i];
    return u;
  }

  // The big-endian 48-bit number in bytes 0-5: the Unix time in milliseconds of
  // a version-7 UUID. Meaningless (but still returned) for other versions.
  std::uint64_t v7_timestamp_ms() const noexcept { return detail::load_be48(bytes.data()); }

  bool operator==(const Uuid&) const = default;
  std::strong_ordering operator<=>(const Uuid&) const = default;
};

inline result<Uuid> Uuid::parse(std::string_view text) {
  std::string_view body = text;
  if (body.size() == 38 && body.front() == '{' && body.back() == '}') {
    body = body.substr(1, 36);
  } else if (body.size() != 36 && body.size() != 32) {
    return unexpected(errc::invalid_argument,
                      "uuid: " + quote_for_message(text) + " has " + std::to_string(text.size()) +
                          " characters; expected 36 (8-4-4-4-12), 32 hex digits, or 38 in braces");
  }
  const bool hyphenated = body.size() == 36;
  const auto offset = static_cast<std::size_t>(body.data() - text.data());
  Uuid u;
  std::size_t nibble = 0;
  for (std::size_t i = 0; i < body.size(); ++i) {
    const char c = body[i];
    if (hyphenated && (i == 8 || i == 13 || i == 18 || i == 23)) {
      if (c != '-') {
        return unexpected(errc::invalid_argument,
                          "uuid: " + quote_for_message(text) + " needs a hyphen at offset " +
                              std::to_string(offset + i) + " (form 8-4-4-4-12)");
      }
      continue;
    }
    const int v = hex_value(c);
    if (v < 0) {
      return unexpected(errc::invalid_argument, "uuid: " + quote_for_message(text) +
                                                    " has a non-hex character at offset " +
                                                    std::to_string(offset + i));
    }
    std::byte& b = u.bytes[nibble / 2];
    b = (nibble % 2 == 0) ? static_cast<std::byte>(v << 4) : (b | static_cast<std::byte>(v));
    ++nibble;
  }
  return u;
}

inline std::string Uuid::to_string() const {
  std::string out;
  out.reserve(36);
  for (std::size_t i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    append_hex(out, std::to_integer<unsigned char>(bytes[i]));
  }
  return out;
}

}  // namespace drydb
