#include "records.h"

#include <charconv>

namespace drydb::cli {

// ---- CSV/TSV ------------------------------------------------------------------------------------

Scalar CsvRecord::field(const Column& c) const {
  Scalar s;
  s.kind = Scalar::string;
  s.s = fields[c.position];
  return s;
}

bool CsvRecord::raw(const Column& c, std::string* out) const {
  out->assign(fields[c.position]);
  return true;
}

void CsvRecord::to_msgpack(MsgpackWriter& w, bool omit_empty) const {
  uint32_t n = 0;
  for (auto f : fields)
    n += !(omit_empty && f.empty());
  w.map_header(n);
  for (size_t i = 0; i < fields.size(); ++i) {
    if (omit_empty && fields[i].empty()) continue;
    w.str((*header)[i]);
    w.str(fields[i]);
  }
}

// ---- JSON ---------------------------------------------------------------------------------------

Scalar scalar_of(const JsonNode& n) {
  Scalar s;
  switch (n.type) {
    case JsonType::null:
      s.kind = Scalar::null;
      break;
    case JsonType::boolean:
      s.kind = Scalar::boolean, s.b = n.boolean;
      break;
    case JsonType::string:
      s.kind = Scalar::string, s.s = n.text;
      break;
    case JsonType::number: {
      s.s = n.text;  // the number as written
      const char* b = n.text.data();
      const char* e = b + n.text.size();
      if (n.integer) {
        if (auto r = std::from_chars(b, e, s.i); r.ec == std::errc() && r.ptr == e) {
          s.kind = Scalar::integer;
          break;
        }
        if (auto r = std::from_chars(b, e, s.u); r.ec == std::errc() && r.ptr == e) {
          s.kind = Scalar::unsigned_integer;
          break;
        }
      }
      s.kind = Scalar::floating;
      std::from_chars(b, e, s.d);
      break;
    }
    default:
      s.kind = Scalar::other;
      break;
  }
  return s;
}

Scalar JsonRecord::field(const Column& c) const {
  const auto m = doc.member(0, c.name);
  if (!m) return {};
  return scalar_of(doc.node(*m));
}

bool JsonRecord::raw(const Column& c, std::string* out) const {
  const auto m = doc.member(0, c.name);
  if (!m) return false;
  const JsonNode& n = doc.node(*m);
  out->clear();
  switch (n.type) {
    case JsonType::null:
      break;
    case JsonType::string:
    case JsonType::number:
      out->assign(n.text);
      break;
    case JsonType::boolean:
      out->assign(n.boolean ? "true" : "false");
      break;
    default:
      append_json(*out, doc, *m);
      break;
  }
  return true;
}

void JsonRecord::to_msgpack(MsgpackWriter& w, bool omit_empty) const {
  if (!omit_empty) return json_to_msgpack(doc, 0, w);
  const JsonNode& root = doc.root();
  auto empty = [&](uint32_t v) {
    const JsonNode& n = doc.node(v);
    return n.type == JsonType::null || (n.type == JsonType::string && n.text.empty());
  };
  uint32_t count = 0;
  for (uint32_t c = 1, k = 0; k < root.size; ++k) {
    const uint32_t v = doc.node(c).next;
    count += !empty(v);
    c = doc.node(v).next;
  }
  w.map_header(count);
  for (uint32_t c = 1, k = 0; k < root.size; ++k) {
    const uint32_t v = doc.node(c).next;
    if (!empty(v)) {
      w.str(doc.node(c).text);
      json_to_msgpack(doc, v, w);
    }
    c = doc.node(v).next;
  }
}

}  // namespace drydb::cli
