#include "io/text.h"

#include <fnmatch.h>

#include <fmt/format.h>
#include <simdjson.h>

namespace drydb::cli {

namespace {

// Length of the UTF-8 sequence at s[i] and its code point, or 0 if malformed. For what needs
// each code point (controls to escape, the offset of a bad byte); whether text is UTF-8 at all
// is simdjson's check (valid_utf8).
size_t utf8_sequence(std::string_view s, size_t i, uint32_t* cp) noexcept {
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) {
    *cp = b0;
    return 1;
  }
  size_t len;
  uint32_t c;
  uint32_t min;
  if (b0 >= 0xc2 && b0 <= 0xdf) {
    len = 2, c = b0 & 0x1f, min = 0x80;
  } else if (b0 >= 0xe0 && b0 <= 0xef) {
    len = 3, c = b0 & 0x0f, min = 0x800;
  } else if (b0 >= 0xf0 && b0 <= 0xf4) {
    len = 4, c = b0 & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  for (size_t k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xc0) != 0x80) return 0;
    c = (c << 6) | (b & 0x3f);
  }
  if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff)) return 0;
  *cp = c;
  return len;
}

bool is_control(uint32_t cp) noexcept {
  return cp < 0x20 || (cp >= 0x7f && cp < 0xa0);
}

}  // namespace

size_t invalid_utf8_offset(std::string_view s) noexcept {
  if (valid_utf8(s)) return std::string_view::npos;
  uint32_t cp;
  for (size_t i = 0; i < s.size();) {
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    const size_t n = utf8_sequence(s, i, &cp);
    if (n == 0) return i;
    i += n;
  }
  return std::string_view::npos;
}

bool valid_utf8(std::string_view s) noexcept {
  // The same rules as utf8_sequence (no overlong forms, no surrogates, at most U+10FFFF), checked
  // many bytes at a time.
  return simdjson::validate_utf8(s.data(), s.size());
}

bool printable_text(std::string_view s) noexcept {
  uint32_t cp;
  for (size_t i = 0; i < s.size();) {
    const size_t n = utf8_sequence(s, i, &cp);
    if (n == 0) return false;
    if (is_control(cp) && cp != '\t' && cp != '\n' && cp != '\r') return false;
    i += n;
  }
  return true;
}

std::string escape_display(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  uint32_t cp;
  for (size_t i = 0; i < s.size();) {
    const size_t n = utf8_sequence(s, i, &cp);
    if (n == 0 || is_control(cp)) {
      const auto b = static_cast<unsigned char>(s[i]);
      out += "\\x";
      append_hex(out, b);
      ++i;
      continue;
    }
    if (cp == '\\')
      out += "\\\\";
    else
      out.append(s.substr(i, n));
    i += n;
  }
  return out;
}

std::string truncate_display(std::string_view s, size_t max_chars) {
  // Count code points (bytes that are not UTF-8 continuation bytes).
  size_t chars = 0;
  for (char c : s)
    chars += (static_cast<unsigned char>(c) & 0xc0) != 0x80;
  if (chars <= max_chars) return std::string(s);
  const size_t keep = max_chars > 3 ? max_chars - 3 : 0;
  size_t i = 0;
  for (size_t kept = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xc0) != 0x80) {
      if (kept == keep) break;
      ++kept;
    }
  }
  return std::string(s.substr(0, i)) + "...";
}

std::optional<std::string> from_hex(std::string_view hex) {
  if (hex.size() >= 2 && hex[0] == '0' && (hex[1] == 'x' || hex[1] == 'X')) hex.remove_prefix(2);
  if (hex.size() % 2 != 0) return std::nullopt;
  std::string out;
  out.reserve(hex.size() / 2);
  for (size_t i = 0; i < hex.size(); i += 2) {
    const int hi = hex_value(hex[i]), lo = hex_value(hex[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out += static_cast<char>(hi * 16 + lo);
  }
  return out;
}

namespace {
constexpr char kBase64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
int base64_value(char c) noexcept {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}
}  // namespace

std::string to_base64(std::string_view s) {
  std::string out;
  out.reserve((s.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= s.size(); i += 3) {
    const uint32_t v = (static_cast<unsigned char>(s[i]) << 16) |
                       (static_cast<unsigned char>(s[i + 1]) << 8) |
                       static_cast<unsigned char>(s[i + 2]);
    out += kBase64[v >> 18];
    out += kBase64[(v >> 12) & 63];
    out += kBase64[(v >> 6) & 63];
    out += kBase64[v & 63];
  }
  if (i + 1 == s.size()) {
    const uint32_t v = static_cast<unsigned char>(s[i]) << 16;
    out += kBase64[v >> 18];
    out += kBase64[(v >> 12) & 63];
    out += "==";
  } else if (i + 2 == s.size()) {
    const uint32_t v =
        (static_cast<unsigned char>(s[i]) << 16) | (static_cast<unsigned char>(s[i + 1]) << 8);
    out += kBase64[v >> 18];
    out += kBase64[(v >> 12) & 63];
    out += kBase64[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

std::optional<std::string> from_base64(std::string_view s) {
  if (s.size() % 4 != 0) return std::nullopt;
  std::string out;
  out.reserve(s.size() / 4 * 3);
  for (size_t i = 0; i < s.size(); i += 4) {
    const bool last = i + 4 == s.size();
    int v[4];
    int pad = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = s[i + k];
      if (c == '=' && last && k >= 2) {
        v[k] = 0;
        ++pad;
        continue;
      }
      if (pad > 0) return std::nullopt;  // data after padding
      v[k] = base64_value(c);
      if (v[k] < 0) return std::nullopt;
    }
    const uint32_t n = (v[0] << 18) | (v[1] << 12) | (v[2] << 6) | v[3];
    out += static_cast<char>(n >> 16);
    if (pad < 2) out += static_cast<char>((n >> 8) & 0xff);
    if (pad < 1) out += static_cast<char>(n & 0xff);
    // Canonical form only: the bits the padding drops must be zero.
    if ((pad == 1 && (n & 0xff) != 0) || (pad == 2 && (n & 0xffff) != 0)) return std::nullopt;
  }
  return out;
}

std::string hex_dump(std::string_view s, size_t max_bytes) {
  std::string out;
  const size_t shown = max_bytes == 0 || s.size() <= max_bytes ? s.size() : max_bytes;
  for (size_t off = 0; off < shown; off += 16) {
    const size_t n = std::min<size_t>(16, shown - off);
    out += fmt::format("{:08x} ", off);
    for (size_t k = 0; k < 16; ++k) {
      if (k == 8) out += ' ';
      if (k < n) {
        const auto b = static_cast<unsigned char>(s[off + k]);
        out += ' ';
        append_hex(out, b);
      } else {
        out += "   ";
      }
    }
    out += "  |";
    for (size_t k = 0; k < n; ++k) {
      const auto b = static_cast<unsigned char>(s[off + k]);
      out += b >= 0x20 && b < 0x7f ? static_cast<char>(b) : '.';
    }
    out += "|\n";
  }
  if (shown < s.size()) out += fmt::format("... ({} more bytes)\n", group_digits(s.size() - shown));
  return out;
}

std::string group_digits(uint64_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  out.reserve(digits.size() + digits.size() / 3);
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string human_bytes(uint64_t n) {
  if (n < 1000) return fmt::format("{} B", n);
  if (n < 1000 * 1000) return fmt::format("{:.1f} kB", static_cast<double>(n) / 1e3);
  if (n < uint64_t{1000} * 1000 * 1000)
    return fmt::format("{:.1f} MB", static_cast<double>(n) / 1e6);
  return fmt::format("{:.2f} GB", static_cast<double>(n) / 1e9);
}

std::string human_duration(double seconds) {
  if (!(seconds >= 0)) seconds = 0;
  const auto s = static_cast<uint64_t>(seconds + 0.5);
  if (s < 60) return fmt::format("{}s", s);
  if (s < 3600) return fmt::format("{}:{:02}", s / 60, s % 60);
  return fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
}

bool glob_match(std::string_view pattern, std::string_view text) {
  // fnmatch takes NUL-terminated strings: text holding a NUL byte never matches.
  const std::string p(pattern), t(text);
  return fnmatch(p.c_str(), t.c_str(), 0) == 0 && t.find('\0') == std::string::npos;
}

}  // namespace drydb::cli
