// Byte and text helpers of the drydb tool: UTF-8 checks, the escaped display
// form of keys and values, hex, base64, hex dumps and number formatting.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "drydb/escape.h"

namespace drydb::cli {

inline std::span<const std::byte> as_bytes(std::string_view s) noexcept {
  return std::as_bytes(std::span(s.data(), s.size()));
}
inline std::string_view as_text(std::span<const std::byte> b) noexcept {
  return {reinterpret_cast<const char*>(b.data()), b.size()};
}

// Whether `s` is well-formed UTF-8 (no overlong forms, no surrogates, at most U+10FFFF).
bool valid_utf8(std::string_view s) noexcept;
// The offset of the first byte that is not part of well-formed UTF-8, or npos.
size_t invalid_utf8_offset(std::string_view s) noexcept;

// Valid UTF-8 with no control characters other than tab, newline and carriage
// return (and no C1 controls): what prints as text.
bool printable_text(std::string_view s) noexcept;

// The display form of bytes: printable UTF-8 as it is, a backslash as \\, and
// every other byte (controls, invalid UTF-8) as \xNN. Typing this form back as
// a bytes key gives the same bytes (KeyEncoding::bytes().parse undoes it).
std::string escape_display(std::string_view s);

// `s` cut to at most `max_chars` code points, ending in "..." when cut.
std::string truncate_display(std::string_view s, size_t max_chars);

// Hex digits (either case, an optional 0x prefix) to bytes; nullopt if not hex.
std::optional<std::string> from_hex(std::string_view hex);

// RFC 4648 base64 with padding.
std::string to_base64(std::string_view s);
// Strict: the alphabet, padding only at the end, length a multiple of 4.
std::optional<std::string> from_base64(std::string_view s);

// hexdump -C style lines, at most `max_bytes` bytes (0 = all), then
// "... (N more bytes)" when cut. Each line ends in '\n'.
std::string hex_dump(std::string_view s, size_t max_bytes);

// 1234567 -> "1,234,567".
std::string group_digits(uint64_t n);
// Bytes as "12.3 MB" (decimal units).
std::string human_bytes(uint64_t n);
// Seconds as "1:02:03" or "2:03" or "7s".
std::string human_duration(double seconds);

// Shell-style glob match (fnmatch(3) without flags): *, ?, [...].
bool glob_match(std::string_view pattern, std::string_view text);

}  // namespace drydb::cli
