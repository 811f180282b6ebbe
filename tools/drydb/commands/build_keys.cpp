#include "commands/build_keys.h"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

#include "drydb/key_encoding.h"
#include "io/text.h"

namespace drydb::cli {

namespace {

std::string quoted(std::string_view s) {
  return "'" + escape_display(s.substr(0, 80)) + (s.size() > 80 ? "...'" : "'");
}

}  // namespace

bool scalar_text(const Scalar& s, std::string* buf, std::string_view* out) {
  switch (s.kind) {
    case Scalar::string:
      *out = s.s;
      return true;
    case Scalar::integer:
    case Scalar::unsigned_integer:
    case Scalar::floating:
      // A number's text as the input wrote it, when it kept that; else written here.
      if (!s.s.empty()) {
        *out = s.s;
        return true;
      }
      if (s.kind == Scalar::integer)
        *buf = std::to_string(s.i);
      else if (s.kind == Scalar::unsigned_integer)
        *buf = std::to_string(s.u);
      else
        *buf = fmt::format("{}", s.d);
      *out = *buf;
      return true;
    case Scalar::boolean:
      *out = s.b ? "true" : "false";
      return true;
    default:
      return false;
  }
}

const char* kind_name(const Scalar& s) {
  switch (s.kind) {
    case Scalar::missing:
      return "missing";
    case Scalar::null:
      return "null";
    case Scalar::boolean:
      return "a boolean";
    case Scalar::floating:
      return "a fractional number";
    case Scalar::unsigned_integer:
      return "an integer over the int64 range";
    case Scalar::other:
      return "an array or object";
    default:
      return "a value";
  }
}

bool encode_key(const Scalar& s, KeyEncoding enc, int radix, std::string* out, std::string* error) {
  std::string buf;
  std::string_view text;
  if (enc == KeyEncoding::int64()) {
    int64_t v;
    if (s.kind == Scalar::integer) {
      v = s.i;
    } else if (s.kind == Scalar::string) {
      std::string_view t = s.s;
      if (radix == 16 && (t.rfind("0x", 0) == 0 || t.rfind("0X", 0) == 0)) t.remove_prefix(2);
      auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v, radix);
      if (ec != std::errc() || p != t.data() + t.size() || t.empty()) {
        *error = fmt::format("{} is not a{} integer for an int64 key", quoted(s.s),
                             radix == 16 ? " hex" : "n");
        return false;
      }
    } else {
      *error = fmt::format("{} cannot be an int64 key", kind_name(s));
      return false;
    }
    out->resize(8);
    encode_int64_key(v, reinterpret_cast<std::byte*>(out->data()));
    return true;
  }
  if (s.kind == Scalar::missing || s.kind == Scalar::null || !scalar_text(s, &buf, &text)) {
    *error = fmt::format("{} cannot be a key", kind_name(s));
    return false;
  }
  if (enc.kind() == KeyKind::bytes) {
    out->assign(text);
    return true;
  }
  auto parsed = enc.parse(text);
  if (!parsed) {
    *error = parsed.error().message;
    return false;
  }
  *out = std::move(*parsed);
  return true;
}

bool index_key_of(const IndexRuntime& ix, KeyEncoding table_encoding, std::string_view key,
                  std::string_view value, std::optional<std::string>* out, std::string* error) {
  out->reset();
  if (ix.source == IndexSource::dump) {
    auto it = ix.dump_entries.find(std::string(key));
    if (it != ix.dump_entries.end()) *out = it->second.index_key;
    return true;
  }
  Scalar s;
  std::string key_text;
  switch (ix.source) {
    case IndexSource::record:
      s = msgpack_field(value, ix.spec.column);
      break;
    case IndexSource::row:
      s = msgpack_row_field(value, static_cast<uint32_t>(ix.column.position));
      break;
    case IndexSource::raw_value:
      s.kind = Scalar::string, s.s = value;
      break;
    case IndexSource::key:
      if (table_encoding == KeyEncoding::int64()) {
        s.kind = Scalar::integer;
        s.i = decode_int64_key(reinterpret_cast<const std::byte*>(key.data()));
      } else if (table_encoding.kind() == KeyKind::bytes) {
        s.kind = Scalar::string, s.s = key;
      } else {
        key_text = table_encoding.format(as_bytes(key));
        s.kind = Scalar::string, s.s = key_text;
      }
      break;
    case IndexSource::dump:
      break;
  }
  return index_key_of_field(ix, s, out, error);
}

bool index_key_of_field(const IndexRuntime& ix, const Scalar& s, std::optional<std::string>* out,
                        std::string* error) {
  out->reset();
  if (s.kind == Scalar::missing || s.kind == Scalar::null) return true;
  std::string buf;
  std::string_view text;
  if (!scalar_text(s, &buf, &text)) {
    *error =
        fmt::format("index '{}': column '{}' is {}", ix.spec.name, ix.spec.column, kind_name(s));
    return false;
  }
  if (ix.spec.skip && glob_match(*ix.spec.skip, text)) return true;
  std::string encoded;
  if (ix.spec.encoding.kind() == KeyKind::bytes) {
    if (text.empty()) return true;  // empty values are left out, like missing ones
    encoded.assign(text);
  } else if (std::string err; !encode_key(s, ix.spec.encoding, ix.spec.radix, &encoded, &err)) {
    *error = fmt::format("index '{}': {}", ix.spec.name, err);
    return false;
  }
  // The tree key's length: the key, or for a non-unique index of variable
  // keys its escaped group (a byte more per 00 byte, a 2-byte terminator) and
  // the 8-byte rank; fixed-width keys take 8 more.
  uint64_t len = encoded.size();
  if (!ix.spec.unique)
    len += ix.spec.encoding.fixed_width() == 0
               ? static_cast<uint64_t>(std::count(encoded.begin(), encoded.end(), '\0')) + 10
               : 8;
  if (len > ix.max_key) {
    *error = fmt::format(
        "index '{}': key {} is too long ({} bytes in the index tree, the limit "
        "is {}; a larger --page-size allows more)",
        ix.spec.name, quoted(text), len, ix.max_key);
    return false;
  }
  *out = std::move(encoded);
  return true;
}

}  // namespace drydb::cli
