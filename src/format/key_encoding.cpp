#include "drydb/key_encoding.h"

#include <charconv>
#include <deque>
#include <mutex>

#include "drydb/detail/coding.h"
#include "drydb/escape.h"
#include "drydb/ulid.h"
#include "drydb/uuid.h"

namespace drydb {
namespace detail {

struct EncodingDef {
  std::string id;
  uint32_t fixed_width;
  KeyKind kind;
  std::function<std::string(std::span<const std::byte>)> format;
  std::function<result<std::string>(std::string_view)> parse;
};

}  // namespace detail

namespace {

// Text with \xNN escapes (and \\) back to bytes.
result<std::string> unescape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\') {
      out.push_back(text[i]);
      continue;
    }
    if (i + 1 < text.size() && text[i + 1] == '\\') {
      out.push_back('\\');
      ++i;
      continue;
    }
    if (i + 3 < text.size() && text[i + 1] == 'x' && hex_value(text[i + 2]) >= 0 &&
        hex_value(text[i + 3]) >= 0) {
      out.push_back(static_cast<char>(hex_value(text[i + 2]) * 16 + hex_value(text[i + 3])));
      i += 3;
      continue;
    }
    return Error(errc::invalid_argument,
                 "bad escape in key text '" + std::string(text) + "': use \\xNN or \\\\");
  }
  return out;
}

std::string format_int64(std::span<const std::byte> key) {
  if (key.size() != 8) return "<bad int64 key: " + escape_bytes(key) + ">";
  return std::to_string(ordered_to_int64(detail::load_be64(key.data())));
}

result<std::string> parse_int64(std::string_view text) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || p != text.data() + text.size() || text.empty())
    return Error(errc::invalid_argument, "'" + std::string(text) + "' is not a 64-bit integer");
  std::string out(8, '\0');
  detail::store_be64(reinterpret_cast<std::byte*>(out.data()), int64_to_ordered(v));
  return out;
}

// A UUID or ULID key is the id's 16 bytes; `what` names the kind in a bad key's text.
template <class Id>
std::string format_id(std::span<const std::byte> key, std::string_view what) {
  if (key.size() != 16) return "<bad " + std::string(what) + " key: " + escape_bytes(key) + ">";
  return Id::from_bytes(key.first<16>()).to_string();
}

template <class Id>
result<std::string> parse_id(std::string_view text) {
  auto id = Id::parse(text);
  if (!id) return std::move(id).error();
  return std::string(reinterpret_cast<const char*>(id->bytes.data()), 16);
}

std::string format_uuid(std::span<const std::byte> key) {
  return format_id<Uuid>(key, "uuid");
}
std::string format_ulid(std::span<const std::byte> key) {
  return format_id<Ulid>(key, "ulid");
}

const detail::EncodingDef kBytes{"bytes", 0, KeyKind::bytes, escape_bytes, unescape};
const detail::EncodingDef kInt64{"int64", 8, KeyKind::int64, format_int64, parse_int64};
const detail::EncodingDef kUuidV7{"uuid_v7", 16, KeyKind::uuid, format_uuid, parse_id<Uuid>};
const detail::EncodingDef kUlid{"ulid", 16, KeyKind::ulid, format_ulid, parse_id<Ulid>};

struct Registry {
  std::mutex mu;
  std::deque<detail::EncodingDef> custom;  // a deque never moves its elements
};

Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

std::string escape_bytes(std::span<const std::byte> bytes) {
  std::string out;
  out.reserve(bytes.size());
  for (std::byte b : bytes) {
    auto c = static_cast<unsigned char>(b);
    if (c == '\\') {
      out += "\\\\";
    } else if (c >= 0x20 && c < 0x7f) {
      out.push_back(static_cast<char>(c));
    } else {
      out += "\\x";
      append_hex(out, c);
    }
  }
  return out;
}

KeyEncoding KeyEncoding::bytes() noexcept {
  return KeyEncoding(&kBytes);
}
KeyEncoding KeyEncoding::int64() noexcept {
  return KeyEncoding(&kInt64);
}
KeyEncoding KeyEncoding::uuid_v7() noexcept {
  return KeyEncoding(&kUuidV7);
}
KeyEncoding KeyEncoding::ulid() noexcept {
  return KeyEncoding(&kUlid);
}

result<KeyEncoding> KeyEncoding::find(std::string_view id) {
  for (const auto* def : {&kBytes, &kInt64, &kUuidV7, &kUlid})
    if (def->id == id) return KeyEncoding(def);
  auto& reg = registry();
  std::lock_guard lock(reg.mu);
  for (const auto& def : reg.custom)
    if (def.id == id) return KeyEncoding(&def);
  return Error(errc::unknown_encoding,
               "key encoding '" + escape_bytes(std::as_bytes(std::span(id))) +
                   "' is not registered in this process (register_key_encoding)");
}

std::string_view KeyEncoding::id() const noexcept {
  return def_->id;
}
uint32_t KeyEncoding::fixed_width() const noexcept {
  return def_->fixed_width;
}
KeyKind KeyEncoding::kind() const noexcept {
  return def_->kind;
}

std::string KeyEncoding::format(std::span<const std::byte> key) const {
  return def_->format ? def_->format(key) : escape_bytes(key);
}

std::string KeyEncoding::column_text(std::span<const std::byte> key) const {
  if (def_ != &kBytes && def_->format) return def_->format(key);
  return std::string(reinterpret_cast<const char*>(key.data()), key.size());
}

result<std::string> KeyEncoding::parse(std::string_view text) const {
  if (!def_->parse) return unescape(text);
  auto parsed = def_->parse(text);
  if (!parsed) return parsed;
  if (def_->fixed_width != 0 && parsed->size() != def_->fixed_width)
    return Error(errc::invalid_argument, "key '" + std::string(text) + "' is not " +
                                             std::to_string(def_->fixed_width) + " bytes");
  return parsed;
}

result<KeyEncoding> register_key_encoding(CustomKeyEncoding encoding) {
  if (encoding.id.empty() || encoding.id.size() > 255)
    return Error(errc::invalid_argument, "a key encoding id must be 1 to 255 bytes");
  if (encoding.fixed_width > 64)
    return Error(errc::invalid_argument, "a fixed key width must be 0 (variable) to 64 bytes");
  for (const auto* def : {&kBytes, &kInt64, &kUuidV7, &kUlid})
    if (def->id == encoding.id)
      return Error(errc::duplicate_name, "'" + encoding.id + "' is a built-in key encoding");
  auto& reg = registry();
  std::lock_guard lock(reg.mu);
  for (const auto& def : reg.custom)
    if (def.id == encoding.id)
      return Error(errc::duplicate_name,
                   "key encoding '" + encoding.id + "' is already registered");
  reg.custom.push_back(detail::EncodingDef{std::move(encoding.id), encoding.fixed_width,
                                           KeyKind::bytes, std::move(encoding.format),
                                           std::move(encoding.parse)});
  return KeyEncoding(&reg.custom.back());
}

}  // namespace drydb
