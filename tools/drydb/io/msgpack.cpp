#include "io/msgpack.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <vector>

#include <fmt/format.h>
#include <msgpack.hpp>

#include "io/json.h"
#include "io/text.h"

namespace drydb::cli {

// ---- writing ------------------------------------------------------------------------------------

namespace {

using Packer = msgpack::packer<MsgpackWriter::Sink>;

}  // namespace

MsgpackWriter::MsgpackWriter(std::string* out) : sink_{out} {}

// Each call packs one item through a packer over sink_: a packer holds only a
// pointer to its sink, so making one costs nothing.
void MsgpackWriter::nil() {
  Packer(sink_).pack_nil();
}
void MsgpackWriter::boolean(bool v) {
  Packer p(sink_);
  v ? p.pack_true() : p.pack_false();
}
void MsgpackWriter::integer(int64_t v) {
  Packer(sink_).pack_int64(v);
}
void MsgpackWriter::uinteger(uint64_t v) {
  Packer(sink_).pack_uint64(v);
}
// Not pack_double: msgpack-cxx 4 packs a double with an integral value as an integer (and -0.0
// as 0), so 1.0 would come back as 1 and the record would not round-trip. A float 64 is the
// marker 0xcb and the value's bits, big-endian.
void MsgpackWriter::float64(double v) {
  char b[9];
  b[0] = static_cast<char>(0xcb);
  const auto bits = std::bit_cast<uint64_t>(v);
  for (int k = 0; k < 8; ++k)
    b[1 + k] = static_cast<char>(bits >> (56 - 8 * k));
  sink_.write(b, sizeof b);
}
void MsgpackWriter::str(std::string_view s) {
  Packer p(sink_);
  p.pack_str(static_cast<uint32_t>(s.size()));
  p.pack_str_body(s.data(), static_cast<uint32_t>(s.size()));
}
void MsgpackWriter::array_header(uint32_t n) {
  Packer(sink_).pack_array(n);
}
void MsgpackWriter::map_header(uint32_t n) {
  Packer(sink_).pack_map(n);
}

namespace {

// The path `rest` ("b[2]", "[2]" or empty) below `step` (a member's name or "[k]"): "a.b[2]",
// "a[2]", "[1].b".
std::string field_path(std::string step, std::string_view rest) {
  if (!rest.empty() && rest.front() != '[') step += '.';
  step += rest;
  return step;
}

// json_to_msgpack's walk: false at a number no MessagePack value holds, with *bad its node and
// *path the fields from `i` down to it, filled in as the walk unwinds.
bool append_msgpack(const JsonDocument& doc, uint32_t i, MsgpackWriter& w, uint32_t* bad,
                    std::string* path) {
  const JsonNode& n = doc.node(i);
  switch (n.type) {
    case JsonType::null:
      w.nil();
      return true;
    case JsonType::boolean:
      w.boolean(n.boolean);
      return true;
    case JsonType::string:
      w.str(n.text);
      return true;
    case JsonType::number: {
      const Scalar v = msgpack_number(n);
      if (v.kind == Scalar::integer) {
        w.integer(v.i);
      } else if (v.kind == Scalar::unsigned_integer) {
        w.uinteger(v.u);
      } else {
        if (!holds_number(n, v)) {
          *bad = i;
          return false;
        }
        w.float64(v.d);
      }
      return true;
    }
    case JsonType::array:
    case JsonType::object: {
      const bool object = n.type == JsonType::object;
      if (object)
        w.map_header(n.size);
      else
        w.array_header(n.size);
      for (uint32_t c = i + 1, k = 0; k < n.size; ++k) {
        std::string_view name;
        if (object) {
          name = doc.node(c).text;
          w.str(name);
          c = doc.node(c).next;
        }
        if (!append_msgpack(doc, c, w, bad, path)) {
          *path = field_path(object ? escape_display(name) : fmt::format("[{}]", k), *path);
          return false;
        }
        c = doc.node(c).next;
      }
      return true;
    }
  }
  return true;
}

}  // namespace

bool json_to_msgpack(const JsonDocument& doc, uint32_t i, MsgpackWriter& w, std::string* error,
                     std::string_view field) {
  uint32_t bad = 0;
  std::string path;
  if (append_msgpack(doc, i, w, &bad, &path)) return true;
  if (!field.empty()) path = field_path(escape_display(field), path);
  const JsonNode& n = doc.node(bad);
  *error = fmt::format("column {}{}: {}", doc.number_column(n),
                       path.empty() ? "" : fmt::format(", field {}", path),
                       number_loss(n, msgpack_number(n)));
  return false;
}

namespace {

// A number's text for a message: whole up to 40 characters, else its start and its length.
std::string shown_number(std::string_view text) {
  if (text.size() <= 40) return std::string(text);
  return fmt::format("{}... ({} characters)", text.substr(0, 24), text.size());
}

}  // namespace

std::string number_loss(const JsonNode& n, const Scalar& s) {
  if (s.kind != Scalar::floating) return {};
  const std::string shown = shown_number(n.text);
  if (n.integer) {
    // Outside both integer ranges (msgpack_number took any integer in them): the double must be
    // exactly the integer, which its digits in full (printf's %.0f) then are.
    if (!std::isfinite(s.d))
      return fmt::format(
          "the integer {} is outside the int64 and uint64 ranges and beyond the range of a "
          "double",
          shown);
    char digits[400];
    const auto r = std::to_chars(digits, digits + sizeof digits, s.d, std::chars_format::fixed, 0);
    const std::string_view exact(digits, static_cast<size_t>(r.ptr - digits));
    if (r.ec == std::errc() && exact == n.text) return {};
    return fmt::format(
        "the integer {} is outside the int64 and uint64 ranges, and no double is exactly it "
        "(the nearest is {})",
        shown, shown_number(exact));
  }
  if (!std::isfinite(s.d))
    return fmt::format("the number {} is beyond the range of a double", shown);
  if (s.d == 0) {
    // Zero however written (0.0, -0e5, 0e-500) is zero; any other digit before the exponent
    // made a number the double rounded away.
    const std::string_view mantissa = n.text.substr(0, n.text.find_first_of("eE"));
    if (mantissa.find_first_of("123456789") != std::string_view::npos)
      return fmt::format(
          "the number {} is not zero, but it rounds to 0 as a double (the smallest double is "
          "4.9e-324)",
          shown);
  }
  return {};
}

// ---- reading ------------------------------------------------------------------------------------

namespace {

constexpr size_t kMaxDepth = 128;

// Strings, bin and ext payloads stay in the caller's buffer (the unpacked
// objects refer to it); only arrays and maps take zone memory.
bool refer_to_buffer(msgpack::type::object_type, size_t, void*) {
  return true;
}

// Unpacks exactly one object filling `bytes`, into `zone`; false when the bytes are malformed,
// truncated, followed by more, or past the limits. Bytes come from database files, which are
// untrusted: no count or length may exceed the bytes there are (each array element or map
// entry takes at least one byte), so nothing is allocated for what is not there, and nesting is
// bounded so that walking the result cannot exhaust the stack.
bool unpack_one(std::string_view bytes, msgpack::zone& zone, msgpack::object* out) {
  const size_t n = bytes.size();
  const msgpack::unpack_limit limit(n, n, n, n, n, kMaxDepth);
  size_t off = 0;
  try {
    *out = msgpack::unpack(zone, bytes.data(), n, off, refer_to_buffer, nullptr, limit);
  } catch (const msgpack::unpack_error&) {  // also size_overflow, past a limit
    return false;
  }
  return off == n;
}

std::string_view str_of(const msgpack::object& o) {
  return {o.via.str.ptr, o.via.str.size};
}

void append_double(std::string& out, double d, bool single) {
  if (!std::isfinite(d)) {
    out += "null";
    return;
  }
  const size_t start = out.size();
  if (single)
    fmt::format_to(std::back_inserter(out), "{}", static_cast<float>(d));
  else
    fmt::format_to(std::back_inserter(out), "{}", d);
  // Keep floats recognisable as such: 1.0, not 1.
  if (out.find_first_of(".e", start) == std::string::npos) out += ".0";
}

// Depth is bounded by the unpack limit.
void to_json(const msgpack::object& o, std::string& out) {
  using msgpack::type::object_type;
  switch (o.type) {
    case object_type::NIL:
      out += "null";
      return;
    case object_type::BOOLEAN:
      out += o.via.boolean ? "true" : "false";
      return;
    case object_type::POSITIVE_INTEGER:
      fmt::format_to(std::back_inserter(out), "{}", o.via.u64);
      return;
    case object_type::NEGATIVE_INTEGER:
      fmt::format_to(std::back_inserter(out), "{}", o.via.i64);
      return;
    case object_type::FLOAT32:
    case object_type::FLOAT64:
      append_double(out, o.via.f64, o.type == object_type::FLOAT32);
      return;
    case object_type::STR:
      append_json_text_or_base64(out, str_of(o));
      return;
    case object_type::BIN:
      append_json_base64(out, {o.via.bin.ptr, o.via.bin.size});
      return;
    case object_type::EXT:
      fmt::format_to(std::back_inserter(out), "{{\"ext\":{},\"base64\":\"", o.via.ext.type());
      out += to_base64({o.via.ext.data(), o.via.ext.size});
      out += "\"}";
      return;
    case object_type::ARRAY:
      out += '[';
      for (uint32_t k = 0; k < o.via.array.size; ++k) {
        if (k > 0) out += ',';
        to_json(o.via.array.ptr[k], out);
      }
      out += ']';
      return;
    case object_type::MAP:
      out += '{';
      for (uint32_t k = 0; k < o.via.map.size; ++k) {
        if (k > 0) out += ',';
        const msgpack::object& key = o.via.map.ptr[k].key;
        if (key.type == object_type::STR && valid_utf8(str_of(key))) {
          append_json_string(out, str_of(key));
        } else {
          // JSON keys are strings: a key of another type, or a str that is not UTF-8 (its
          // {"base64":...} form), shows as its JSON text, quoted.
          std::string text;
          to_json(key, text);
          append_json_string(out, text);
        }
        out += ':';
        to_json(o.via.map.ptr[k].val, out);
      }
      out += '}';
      return;
  }
}

}  // namespace

bool msgpack_to_json(std::string_view bytes, std::string* out) {
  msgpack::zone zone;
  msgpack::object o;
  if (!unpack_one(bytes, zone, &o)) return false;
  if (o.type != msgpack::type::MAP && o.type != msgpack::type::ARRAY) return false;
  to_json(o, *out);
  return true;
}

bool msgpack_to_exact_json(std::string_view bytes, std::string* out) {
  const size_t start = out->size();
  if (!msgpack_to_json(bytes, out)) return false;
  JsonDocument doc;
  std::string again;
  MsgpackWriter w(&again);
  if (std::string err;
      doc.parse(std::string_view(*out).substr(start)) && json_to_msgpack(doc, 0, w, &err)) {
    if (again == bytes) return true;
  }
  out->resize(start);
  return false;
}

namespace {

// Finds member `name` of a top-level map as msgpack-cxx's visitor parser walks
// the bytes, building no objects (a build asks this of every row, for each
// index on a record field): each callback returns false to stop the walk, at
// the field once found, or at nesting past kMaxDepth. Lengths and counts need
// no limit here, since nothing is allocated for them: a count larger than the
// bytes there are ends in insufficient bytes.
struct FieldFinder : msgpack::null_visitor {
  std::string_view name;
  Scalar found;
  size_t depth = 0;    // containers open
  bool key = false;    // inside a key of the top-level map
  bool value = false;  // inside a value of the top-level map
  bool match = false;  // the key just read is `name`
  bool done = false;

  bool scalar(const Scalar& s) {
    if (depth != 1 || !value || !match) return true;
    found = s;
    done = true;
    return false;
  }
  template <class T>
  bool scalar(Scalar::Kind kind, T Scalar::*field, T v) {
    Scalar s;
    s.kind = kind;
    s.*field = v;
    return scalar(s);
  }
  bool kind_only(Scalar::Kind kind) {
    Scalar s;
    s.kind = kind;
    return scalar(s);
  }
  bool open(bool map) {
    if (depth == 0 && !map) return false;  // not a map
    if (depth == 1 && value && match) return kind_only(Scalar::other);
    return ++depth <= kMaxDepth;
  }

  bool visit_nil() { return kind_only(Scalar::null); }
  bool visit_boolean(bool v) { return scalar(Scalar::boolean, &Scalar::b, v); }
  bool visit_positive_integer(uint64_t v) {
    if (v > static_cast<uint64_t>(INT64_MAX))
      return scalar(Scalar::unsigned_integer, &Scalar::u, v);
    return scalar(Scalar::integer, &Scalar::i, static_cast<int64_t>(v));
  }
  bool visit_negative_integer(int64_t v) { return scalar(Scalar::integer, &Scalar::i, v); }
  bool visit_float32(float v) { return scalar(Scalar::floating, &Scalar::d, double{v}); }
  bool visit_float64(double v) { return scalar(Scalar::floating, &Scalar::d, v); }
  bool visit_str(const char* p, uint32_t n) {
    const std::string_view s(p, n);
    if (depth == 1 && key) match = s == name;
    return scalar(Scalar::string, &Scalar::s, s);
  }
  bool visit_bin(const char*, uint32_t) { return kind_only(Scalar::other); }
  bool visit_ext(const char*, uint32_t) { return kind_only(Scalar::other); }
  bool start_array(uint32_t) { return open(false); }
  bool start_map(uint32_t) { return open(true); }
  bool end_array() { return --depth, true; }
  bool end_map() { return --depth, true; }
  bool start_map_key() {
    if (depth == 1) key = true, match = false;
    return true;
  }
  bool end_map_key() {
    if (depth == 1) key = false;
    return true;
  }
  bool start_map_value() {
    if (depth == 1) value = true;
    return true;
  }
  bool end_map_value() {
    if (depth == 1) value = false;
    return true;
  }
};

}  // namespace

Scalar msgpack_field(std::string_view bytes, std::string_view name) {
  FieldFinder finder;
  finder.name = name;
  size_t off = 0;
  try {
    (void)msgpack::parse(bytes.data(), bytes.size(), off, finder);
  } catch (const msgpack::unpack_error&) {
    return {};
  }
  return finder.done ? finder.found : Scalar{};
}

}  // namespace drydb::cli

namespace drydb::cli {

// ---- rows of a column list ----------------------------------------------------------------------

bool row_to_map(std::string_view row, const RowColumns& c, std::span<const std::byte> key,
                std::string* map) {
  msgpack::zone zone;
  msgpack::object o;
  if (!unpack_one(row, zone, &o) || o.type != msgpack::type::ARRAY ||
      o.via.array.size > c.names.size())
    return false;
  map->clear();
  MsgpackWriter::Sink sink{map};
  drydb::pack_object_exact(sink, drydb::column_row_map(o, c, key, zone));
  return true;
}

bool map_to_row(std::string_view map, const RowColumns& c, std::span<const std::byte> key,
                std::string* row, std::string* err) {
  msgpack::zone zone;
  msgpack::object o;
  if (!unpack_one(map, zone, &o) || o.type != msgpack::type::MAP)
    return *err = "the value is not a MessagePack map", false;
  std::string packed;
  MsgpackWriter::Sink sink{&packed};
  if (!drydb::pack_map_as_row(o, c, key, sink, err)) {
    *err = "the map has a " + *err;
    return false;
  }
  *row = std::move(packed);
  return true;
}

Scalar msgpack_row_field(std::string_view row, uint32_t position) {
  msgpack::zone zone;
  msgpack::object o;
  if (!unpack_one(row, zone, &o) || o.type != msgpack::type::ARRAY ||
      position >= o.via.array.size || o.via.array.ptr[position].type == msgpack::type::NIL)
    return {};
  Scalar s;
  const msgpack::object& f = o.via.array.ptr[position];
  switch (f.type) {
    case msgpack::type::BOOLEAN:
      s.kind = Scalar::boolean, s.b = f.via.boolean;
      break;
    case msgpack::type::POSITIVE_INTEGER:
      if (f.via.u64 > static_cast<uint64_t>(INT64_MAX))
        s.kind = Scalar::unsigned_integer, s.u = f.via.u64;
      else
        s.kind = Scalar::integer, s.i = static_cast<int64_t>(f.via.u64);
      break;
    case msgpack::type::NEGATIVE_INTEGER:
      s.kind = Scalar::integer, s.i = f.via.i64;
      break;
    case msgpack::type::FLOAT32:
    case msgpack::type::FLOAT64:
      s.kind = Scalar::floating, s.d = f.via.f64;
      break;
    case msgpack::type::STR:
      s.kind = Scalar::string, s.s = str_of(f);  // points into `row`
      break;
    default:
      s.kind = Scalar::other;
      break;
  }
  return s;
}

}  // namespace drydb::cli
