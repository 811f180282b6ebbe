#include "io/keys.h"

#include <charconv>

#include <fmt/format.h>

#include "common.h"
#include "io/json.h"
#include "io/text.h"

namespace drydb::cli {

namespace {

// An int64 in hex: an optional sign, an optional 0x, hex digits.
bool parse_hex_int64(std::string_view text, int64_t* v) {
  bool negative = false;
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) {
    negative = text[0] == '-';
    text.remove_prefix(1);
  }
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X'))
    text.remove_prefix(2);
  uint64_t magnitude = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), magnitude, 16);
  if (ec != std::errc() || p != text.data() + text.size() || text.empty()) return false;
  if (negative ? magnitude > uint64_t{1} << 63 : magnitude > uint64_t{INT64_MAX}) return false;
  *v = negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
  return true;
}

bool has_hex_prefix(std::string_view t) {
  if (!t.empty() && (t[0] == '-' || t[0] == '+')) t.remove_prefix(1);
  return t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X');
}

}  // namespace

std::string parse_key_text(KeyEncoding encoding, std::string_view text, bool hex) {
  if (encoding == KeyEncoding::int64() && (hex || has_hex_prefix(text))) {
    int64_t v;
    if (!parse_hex_int64(text, &v))
      fail(fmt::format("'{}' is not an int64 key in hex", escape_display(text)));
    std::string out(8, '\0');
    encode_int64_key(v, reinterpret_cast<std::byte*>(out.data()));
    return out;
  }
  if (hex) {
    auto bytes = from_hex(text);
    if (!bytes) fail(fmt::format("'{}' is not hex digits (two per byte)", escape_display(text)));
    const uint32_t width = encoding.fixed_width();
    if (width != 0 && bytes->size() != width)
      fail(fmt::format("an {} key is {} bytes ({} hex digits), not {}", encoding.id(), width,
                       2 * width, bytes->size()));
    return *std::move(bytes);
  }
  auto parsed = encoding.parse(text);
  if (!parsed) {
    if (encoding == KeyEncoding::int64())
      fail(fmt::format("'{}' is not an int64 key (a decimal integer, or hex with 0x)",
                       escape_display(text)));
    fail(fmt::format("bad {} key: {}", encoding.id(), parsed.error().message));
  }
  return *std::move(parsed);
}

Key make_key(KeyKind kind, std::string_view encoded) {
  return Key::from_encoded(kind, std::as_bytes(std::span(encoded.data(), encoded.size())));
}

IndexKey make_index_key(KeyKind kind, std::string_view encoded) {
  return IndexKey::from_encoded(kind, std::as_bytes(std::span(encoded.data(), encoded.size())));
}

std::string display_key(KeyEncoding encoding, std::span<const std::byte> key, bool hex) {
  if (hex && encoding == KeyEncoding::int64() && key.size() == 8) {
    const int64_t v = decode_int64_key(key.data());
    const uint64_t magnitude = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
    return fmt::format("{}{:x}", v < 0 ? "-" : "", magnitude);
  }
  if (hex) return to_hex(as_text(key));
  if (encoding.kind() == KeyKind::bytes && encoding == KeyEncoding::bytes())
    return escape_display(as_text(key));
  return encoding.format(key);
}

void append_json_key(std::string& out, KeyEncoding encoding, std::span<const std::byte> key) {
  const std::string_view text = as_text(key);
  if (encoding == KeyEncoding::int64() && key.size() == 8) {
    out += encoding.format(key);
  } else if (encoding.kind() != KeyKind::bytes) {
    append_json_string(out, encoding.format(key));
  } else {
    append_json_text_or_base64(out, text);
  }
}

}  // namespace drydb::cli
