#include "msgpack.h"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "text.h"

namespace drydb::cli {

// ---- writing ------------------------------------------------------------------------------------

void MsgpackWriter::be(uint64_t v, int bytes) {
  for (int k = bytes - 1; k >= 0; --k)
    byte(static_cast<uint8_t>(v >> (8 * k)));
}

void MsgpackWriter::uinteger(uint64_t v) {
  if (v < 0x80) {
    byte(static_cast<uint8_t>(v));
  } else if (v <= 0xff) {
    byte(0xcc), be(v, 1);
  } else if (v <= 0xffff) {
    byte(0xcd), be(v, 2);
  } else if (v <= 0xffffffff) {
    byte(0xce), be(v, 4);
  } else {
    byte(0xcf), be(v, 8);
  }
}

void MsgpackWriter::integer(int64_t v) {
  if (v >= 0) return uinteger(static_cast<uint64_t>(v));
  const auto u = static_cast<uint64_t>(v);
  if (v >= -32) {
    byte(static_cast<uint8_t>(v));
  } else if (v >= INT8_MIN) {
    byte(0xd0), be(u, 1);
  } else if (v >= INT16_MIN) {
    byte(0xd1), be(u, 2);
  } else if (v >= INT32_MIN) {
    byte(0xd2), be(u, 4);
  } else {
    byte(0xd3), be(u, 8);
  }
}

void MsgpackWriter::float64(double v) {
  byte(0xcb);
  be(std::bit_cast<uint64_t>(v), 8);
}

void MsgpackWriter::str(std::string_view s) {
  const uint64_t n = s.size();
  if (n < 32) {
    byte(static_cast<uint8_t>(0xa0 | n));
  } else if (n <= 0xff) {
    byte(0xd9), be(n, 1);
  } else if (n <= 0xffff) {
    byte(0xda), be(n, 2);
  } else {
    byte(0xdb), be(n, 4);
  }
  out_->append(s);
}

void MsgpackWriter::array_header(uint32_t n) {
  if (n < 16) {
    byte(static_cast<uint8_t>(0x90 | n));
  } else if (n <= 0xffff) {
    byte(0xdc), be(n, 2);
  } else {
    byte(0xdd), be(n, 4);
  }
}

void MsgpackWriter::map_header(uint32_t n) {
  if (n < 16) {
    byte(static_cast<uint8_t>(0x80 | n));
  } else if (n <= 0xffff) {
    byte(0xde), be(n, 2);
  } else {
    byte(0xdf), be(n, 4);
  }
}

void json_to_msgpack(const JsonDocument& doc, uint32_t i, MsgpackWriter& w) {
  const JsonNode& n = doc.node(i);
  switch (n.type) {
    case JsonType::null:
      w.nil();
      return;
    case JsonType::boolean:
      w.boolean(n.boolean);
      return;
    case JsonType::string:
      w.str(n.text);
      return;
    case JsonType::number: {
      const char* b = n.text.data();
      const char* e = b + n.text.size();
      if (n.integer) {
        int64_t v;
        if (auto r = std::from_chars(b, e, v); r.ec == std::errc() && r.ptr == e)
          return w.integer(v);
        uint64_t u;
        if (auto r = std::from_chars(b, e, u); r.ec == std::errc() && r.ptr == e)
          return w.uinteger(u);
      }
      double d = 0;
      // The grammar was checked, so only range errors are possible: those give ±inf or 0,
      // which is what strtod would give too.
      if (auto r = std::from_chars(b, e, d); r.ec == std::errc::result_out_of_range)
        d = n.text[0] == '-' ? -HUGE_VAL : HUGE_VAL;
      return w.float64(d);
    }
    case JsonType::array:
    case JsonType::object: {
      const bool object = n.type == JsonType::object;
      if (object)
        w.map_header(n.size);
      else
        w.array_header(n.size);
      for (uint32_t c = i + 1, k = 0; k < n.size; ++k) {
        if (object) {
          w.str(doc.node(c).text);
          c = doc.node(c).next;
        }
        json_to_msgpack(doc, c, w);
        c = doc.node(c).next;
      }
      return;
    }
  }
}

// ---- reading ------------------------------------------------------------------------------------

namespace {

constexpr int kMaxDepth = 128;

// A bounds-checked reader over one buffer. Every failure leaves ok = false.
struct Reader {
  const unsigned char* p;
  const unsigned char* end;

  size_t left() const { return static_cast<size_t>(end - p); }
  bool take(size_t n, const unsigned char** at) {
    if (left() < n) return false;
    *at = p;
    p += n;
    return true;
  }
  bool be(int bytes, uint64_t* v) {
    const unsigned char* at;
    if (!take(static_cast<size_t>(bytes), &at)) return false;
    *v = 0;
    for (int k = 0; k < bytes; ++k)
      *v = (*v << 8) | at[k];
    return true;
  }
};

// What one header byte (and its length fields) announces.
struct Head {
  enum Kind { nil, boolean, uint, sint, f32, f64, str, bin, ext, array, map } kind;
  uint64_t n = 0;  // int value, length, or element count
  bool b = false;
  int8_t ext_type = 0;
};

bool read_head(Reader& r, Head* h) {
  const unsigned char* at;
  if (!r.take(1, &at)) return false;
  const unsigned c = *at;
  auto sized = [&](Head::Kind kind, int bytes) {
    h->kind = kind;
    return r.be(bytes, &h->n);
  };
  if (c <= 0x7f) return h->kind = Head::uint, h->n = c, true;
  if (c >= 0xe0)
    return h->kind = Head::sint, h->n = static_cast<uint64_t>(int64_t{static_cast<int8_t>(c)}),
           true;
  if ((c & 0xf0) == 0x80) return h->kind = Head::map, h->n = c & 0x0f, true;
  if ((c & 0xf0) == 0x90) return h->kind = Head::array, h->n = c & 0x0f, true;
  if ((c & 0xe0) == 0xa0) return h->kind = Head::str, h->n = c & 0x1f, true;
  switch (c) {
    case 0xc0:
      return h->kind = Head::nil, true;
    case 0xc2:
      return h->kind = Head::boolean, h->b = false, true;
    case 0xc3:
      return h->kind = Head::boolean, h->b = true, true;
    case 0xc4:
      return sized(Head::bin, 1);
    case 0xc5:
      return sized(Head::bin, 2);
    case 0xc6:
      return sized(Head::bin, 4);
    case 0xc7:
    case 0xc8:
    case 0xc9: {
      if (!sized(Head::ext, c == 0xc7 ? 1 : c == 0xc8 ? 2 : 4)) return false;
      uint64_t t;
      if (!r.be(1, &t)) return false;
      h->ext_type = static_cast<int8_t>(t);
      return true;
    }
    case 0xca:
      return sized(Head::f32, 4);
    case 0xcb:
      return sized(Head::f64, 8);
    case 0xcc:
      return sized(Head::uint, 1);
    case 0xcd:
      return sized(Head::uint, 2);
    case 0xce:
      return sized(Head::uint, 4);
    case 0xcf:
      return sized(Head::uint, 8);
    case 0xd0:
    case 0xd1:
    case 0xd2:
    case 0xd3: {
      const int bytes = 1 << (c - 0xd0);
      if (!sized(Head::sint, bytes)) return false;
      if (bytes < 8 && (h->n >> (8 * bytes - 1)) != 0) h->n |= ~uint64_t{0} << (8 * bytes);
      return true;
    }
    case 0xd4:
    case 0xd5:
    case 0xd6:
    case 0xd7:
    case 0xd8: {
      h->kind = Head::ext;
      h->n = uint64_t{1} << (c - 0xd4);
      uint64_t t;
      if (!r.be(1, &t)) return false;
      h->ext_type = static_cast<int8_t>(t);
      return true;
    }
    case 0xd9:
      return sized(Head::str, 1);
    case 0xda:
      return sized(Head::str, 2);
    case 0xdb:
      return sized(Head::str, 4);
    case 0xdc:
      return sized(Head::array, 2);
    case 0xdd:
      return sized(Head::array, 4);
    case 0xde:
      return sized(Head::map, 2);
    case 0xdf:
      return sized(Head::map, 4);
    default:
      return false;  // 0xc1 is never used
  }
}

double head_double(const Head& h) {
  if (h.kind == Head::f32) return std::bit_cast<float>(static_cast<uint32_t>(h.n));
  return std::bit_cast<double>(h.n);
}

bool skip(Reader& r, int depth) {
  Head h;
  if (!read_head(r, &h)) return false;
  const unsigned char* at;
  switch (h.kind) {
    case Head::str:
    case Head::bin:
    case Head::ext:
      return r.take(h.n, &at);
    case Head::array:
    case Head::map: {
      if (depth >= kMaxDepth) return false;
      const uint64_t items = h.kind == Head::map ? 2 * h.n : h.n;
      if (items > r.left()) return false;  // each item takes at least a byte
      for (uint64_t k = 0; k < items; ++k)
        if (!skip(r, depth + 1)) return false;
      return true;
    }
    default:
      return true;
  }
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

bool to_json(Reader& r, int depth, std::string& out);

bool string_to_json(std::string_view s, std::string& out) {
  if (valid_utf8(s)) {
    append_json_string(out, s);
  } else {
    out += "{\"base64\":\"";
    out += to_base64(s);
    out += "\"}";
  }
  return true;
}

bool to_json(Reader& r, int depth, std::string& out) {
  Head h;
  if (!read_head(r, &h)) return false;
  const unsigned char* at;
  switch (h.kind) {
    case Head::nil:
      out += "null";
      return true;
    case Head::boolean:
      out += h.b ? "true" : "false";
      return true;
    case Head::uint:
      fmt::format_to(std::back_inserter(out), "{}", h.n);
      return true;
    case Head::sint:
      fmt::format_to(std::back_inserter(out), "{}", static_cast<int64_t>(h.n));
      return true;
    case Head::f32:
    case Head::f64:
      append_double(out, head_double(h), h.kind == Head::f32);
      return true;
    case Head::str:
      if (!r.take(h.n, &at)) return false;
      return string_to_json({reinterpret_cast<const char*>(at), h.n}, out);
    case Head::bin:
    case Head::ext:
      if (!r.take(h.n, &at)) return false;
      out += '{';
      if (h.kind == Head::ext) fmt::format_to(std::back_inserter(out), "\"ext\":{},", h.ext_type);
      out += "\"base64\":\"";
      out += to_base64({reinterpret_cast<const char*>(at), h.n});
      out += "\"}";
      return true;
    case Head::array:
    case Head::map: {
      if (depth >= kMaxDepth) return false;
      const bool map = h.kind == Head::map;
      if ((map ? 2 * h.n : h.n) > r.left()) return false;
      out += map ? '{' : '[';
      for (uint64_t k = 0; k < h.n; ++k) {
        if (k > 0) out += ',';
        if (map) {
          // JSON keys are strings: a key of another type shows as its JSON text, quoted.
          const Reader before = r;
          Head kh;
          if (!read_head(r, &kh)) return false;
          if (kh.kind == Head::str) {
            if (!r.take(kh.n, &at)) return false;
            string_to_json({reinterpret_cast<const char*>(at), kh.n}, out);
          } else {
            r = before;
            std::string key;
            if (!to_json(r, depth + 1, key)) return false;
            append_json_string(out, key);
          }
          out += ':';
        }
        if (!to_json(r, depth + 1, out)) return false;
      }
      out += map ? '}' : ']';
      return true;
    }
  }
  return false;
}

Reader reader_of(std::string_view bytes) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  return Reader{p, p + bytes.size()};
}

}  // namespace

bool msgpack_to_json(std::string_view bytes, std::string* out) {
  if (bytes.empty()) return false;
  const unsigned c = static_cast<unsigned char>(bytes[0]);
  const bool container = (c & 0xe0) == 0x80 || (c >= 0xdc && c <= 0xdf);
  if (!container) return false;
  Reader r = reader_of(bytes);
  const size_t start = out->size();
  if (!to_json(r, 0, *out) || r.left() != 0) {
    out->resize(start);
    return false;
  }
  return true;
}

bool msgpack_to_exact_json(std::string_view bytes, std::string* out) {
  const size_t start = out->size();
  if (!msgpack_to_json(bytes, out)) return false;
  JsonDocument doc;
  std::string again;
  MsgpackWriter w(&again);
  if (doc.parse(std::string_view(*out).substr(start))) {
    json_to_msgpack(doc, 0, w);
    if (again == bytes) return true;
  }
  out->resize(start);
  return false;
}

Scalar msgpack_field(std::string_view bytes, std::string_view name) {
  Reader r = reader_of(bytes);
  Head h;
  if (!read_head(r, &h) || h.kind != Head::map || 2 * h.n > r.left()) return {};
  for (uint64_t k = 0; k < h.n; ++k) {
    Head kh;
    const unsigned char* at;
    const Reader key_start = r;
    if (!read_head(r, &kh)) return {};
    bool match = false;
    if (kh.kind == Head::str) {
      if (!r.take(kh.n, &at)) return {};
      match = std::string_view(reinterpret_cast<const char*>(at), kh.n) == name;
    } else {
      r = key_start;  // a key of another type never matches: skip it whole
      if (!skip(r, 1)) return {};
    }
    if (!match) {
      if (!skip(r, 1)) return {};
      continue;
    }
    Head vh;
    if (!read_head(r, &vh)) return {};
    Scalar s;
    switch (vh.kind) {
      case Head::nil:
        s.kind = Scalar::null;
        break;
      case Head::boolean:
        s.kind = Scalar::boolean, s.b = vh.b;
        break;
      case Head::uint:
        if (vh.n > static_cast<uint64_t>(INT64_MAX))
          s.kind = Scalar::unsigned_integer, s.u = vh.n;
        else
          s.kind = Scalar::integer, s.i = static_cast<int64_t>(vh.n);
        break;
      case Head::sint:
        s.kind = Scalar::integer, s.i = static_cast<int64_t>(vh.n);
        break;
      case Head::f32:
      case Head::f64:
        s.kind = Scalar::floating, s.d = head_double(vh);
        break;
      case Head::str:
        if (!r.take(vh.n, &at)) return {};
        s.kind = Scalar::string;
        s.s = std::string_view(reinterpret_cast<const char*>(at), vh.n);
        break;
      default:
        s.kind = Scalar::other;
        break;
    }
    return s;
  }
  return {};
}

}  // namespace drydb::cli
