// drydb::Ulid: a ULID (https://github.com/ulid/spec) as 16 bytes: a 48-bit
// big-endian Unix time in milliseconds, then 80 random bits.
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

namespace detail {

// Crockford base32 digits in value order (no I, L, O, U).
inline constexpr char kUlidAlphabet[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

// The value of Crockford base32 digit c, either case, with I and L read as 1
// and O as 0; -1 for any other character (including U).
constexpr int ulid_digit_value(char c) noexcept {
  if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  switch (c) {
    case 'I':
    case 'L':
      return 1;
    case 'O':
      return 0;
    default:
      break;
  }
  for (int v = 0; v < 32; ++v) {
    if (kUlidAlphabet[v] == c) return v;
  }
  return -1;
}

}  // namespace detail

// A ULID. bytes[0..5] hold the timestamp big-endian and bytes[6..15] the
// random part, so the defaulted comparisons, which compare the bytes as
// unsigned values from first to last, sort by timestamp first and agree with
// the order of the text forms. A value-initialized Ulid is all zero.
struct Ulid {
  std::array<std::byte, 16> bytes{};

  // Parses exactly 26 Crockford base32 characters, either case, reading I and L
  // as 1 and O as 0 (U and all other characters are rejected; no hyphens or
  // whitespace). The first character carries the top 3 bits of 128 and must be
  // 0-7; a larger one would overflow 128 bits. Every failure is
  // errc::invalid_argument with a message that quotes the text.
  static result<Ulid> parse(std::string_view text);

  // The canonical text: 26 uppercase Crockford base32 characters.
  std::string to_string() const;

  // The ULID with timestamp `unix_ms` and the 80 random bits `random`. Only the
  // low 48 bits of unix_ms are used; callers should pass a value below 2^48
  // (the ULID range ends in the year 10889). Deterministic: the caller supplies
  // the randomness.
  static Ulid from_parts(std::uint64_t unix_ms, std::span<const std::byte, 10> random) noexcept {
    Ulid u;
    detail::store_be48(u.bytes.data(), unix_ms);
    std::memcpy(u.bytes.data() + 6, random.data(), 10);
    return u;
  }

  // The Unix time in milliseconds: the big-endian 48-bit number in bytes 0-5.
  std::uint64_t timestamp_ms() const noexcept { return detail::load_be48(bytes.data()); }

  // The ULID whose 16 bytes are `b`.
  static Ulid from_bytes(std::span<const std::byte, 16> b) noexcept {
    Ulid u;
    std::memcpy(u.bytes.data(), b.data(), 16);
    return u;
  }

  // The 16 bytes; valid as long as this Ulid is.
  std::span<const std::byte, 16> as_bytes() const noexcept {
    return std::span<const std::byte, 16>(bytes);
  }

  bool operator==(const Ulid&) const = default;
  std::strong_ordering operator<=>(const Ulid&) const = default;
};

inline result<Ulid> Ulid::parse(std::string_view text) {
  if (text.size() != 26) {
    return unexpected(errc::invalid_argument, "ulid: " + quote_for_message(text) + " has " +
                                                  std::to_string(text.size()) +
                                                  " characters; expected 26 Crockford base32");
  }
  // The 128-bit value as two halves, filled 5 bits at a time from the top.
  std::uint64_t hi = 0;
  std::uint64_t lo = 0;
  for (std::size_t i = 0; i < 26; ++i) {
    const int v = detail::ulid_digit_value(text[i]);
    if (v < 0) {
      return unexpected(errc::invalid_argument,
                        "ulid: " + quote_for_message(text) +
                            " has a character that is not Crockford base32 at offset " +
                            std::to_string(i));
    }
    if (i == 0 && v > 7) {
      return unexpected(errc::invalid_argument,
                        "ulid: " + quote_for_message(text) +
                            " overflows 128 bits (the first character must be 0-7)");
    }
    hi = (hi << 5) | (lo >> 59);
    lo = (lo << 5) | static_cast<std::uint64_t>(v);
  }
  Ulid u;
  for (std::size_t i = 0; i < 8; ++i) {
    u.bytes[i] = static_cast<std::byte>((hi >> (56 - 8 * i)) & 0xff);
    u.bytes[i + 8] = static_cast<std::byte>((lo >> (56 - 8 * i)) & 0xff);
  }
  return u;
}

inline std::string Ulid::to_string() const {
  std::uint64_t hi = 0;
  std::uint64_t lo = 0;
  for (std::size_t i = 0; i < 8; ++i) {
    hi = (hi << 8) | std::to_integer<std::uint64_t>(bytes[i]);
    lo = (lo << 8) | std::to_integer<std::uint64_t>(bytes[i + 8]);
  }
  std::string out(26, '0');
  for (std::size_t k = 0; k < 26; ++k) {
    // Character k holds bits [shift, shift + 5) of the 130-bit number whose top
    // two bits are zero.
    const std::size_t shift = 125 - 5 * k;
    std::uint64_t v;
    if (shift >= 64) {
      v = hi >> (shift - 64);
    } else if (shift + 5 <= 64) {
      v = lo >> shift;
    } else {
      v = (lo >> shift) | (hi << (64 - shift));
    }
    out[k] = detail::kUlidAlphabet[v & 31];
  }
  return out;
}

}  // namespace drydb
