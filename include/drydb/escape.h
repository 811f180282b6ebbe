// Bytes as hex digits and text escaped for messages and JSON: one spelling
// for drydb's error messages, its key forms, a dataset's manifest and the
// drydb tool's output.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace drydb {

// The value of hex digit c (either case), or -1 if c is not a hex digit.
constexpr int hex_value(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Appends byte b as two lowercase hex digits.
inline void append_hex(std::string& out, unsigned char b) {
  constexpr char kDigits[] = "0123456789abcdef";
  out += kDigits[b >> 4];
  out += kDigits[b & 15];
}

// Lowercase hex digits of `bytes`, two per byte.
inline std::string to_hex(std::string_view bytes) {
  std::string out;
  out.reserve(2 * bytes.size());
  for (char c : bytes)
    append_hex(out, static_cast<unsigned char>(c));
  return out;
}

// `text` in double quotes for an error message: quotes, backslashes and
// bytes outside printable ASCII escaped (\xNN), and cut to its first 64
// bytes plus "...".
inline std::string quote_for_message(std::string_view text) {
  constexpr std::size_t kMax = 64;
  std::string out = "\"";
  for (std::size_t i = 0; i < text.size() && i < kMax; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c >= 0x7f) {
      out += "\\x";
      append_hex(out, c);
    } else {
      out += static_cast<char>(c);
    }
  }
  if (text.size() > kMax) out += "...";
  out += '"';
  return out;
}

// Appends `text` as a JSON string: in quotes, with quotes, backslashes and
// control characters escaped (\n, \r, \t, \b, \f, else \u00NN). Bytes from
// 0x80 are copied as they are: the caller has checked the text is UTF-8.
inline void append_json_string(std::string& out, std::string_view text) {
  out += '"';
  std::size_t run = 0;  // start of the current run of bytes copied as they are
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(text.substr(run, i - run));
    run = i + 1;
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        out += "\\u00";
        append_hex(out, c);
    }
  }
  out.append(text.substr(run));
  out += '"';
}

}  // namespace drydb
