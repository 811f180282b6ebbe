#include "io/records.h"

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

bool CsvRecord::to_msgpack(MsgpackWriter& w, bool omit_empty, std::string*) const {
  uint32_t n = 0;
  for (auto f : text_fields)
    n += !(omit_empty && f.empty());
  w.map_header(n);
  for (size_t i = 0; i < text_fields.size(); ++i) {
    if (omit_empty && text_fields[i].empty()) continue;
    w.str((*header)[i]);
    w.str(text_fields[i]);
  }
  return true;
}

void CsvRecord::to_row(MsgpackWriter& w, bool omit_empty, size_t key_position,
                       std::string_view key_text) const {
  size_t n = text_fields.size();
  while (n > 0 && omit_empty && text_fields[n - 1].empty() && n - 1 != key_position)
    --n;
  w.array_header(static_cast<uint32_t>(n));
  for (size_t i = 0; i < n; ++i) {
    if (i == key_position ? text_fields[i] == key_text : omit_empty && text_fields[i].empty())
      w.nil();
    else
      w.str(text_fields[i]);
  }
}

Scalar CsvRecord::stored_field(const Column& c, bool omit_empty) const {
  if (c.position >= text_fields.size() || (omit_empty && text_fields[c.position].empty()))
    return {};
  Scalar s;
  s.kind = Scalar::string;
  s.s = text_fields[c.position];
  return s;
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
    case JsonType::number:
      s = msgpack_number(n);
      s.s = n.text;  // the number as written
      break;
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

namespace {

// What --omit-empty leaves out of a JSON record: null and empty string members.
bool empty_member(const JsonNode& n) {
  return n.type == JsonType::null || (n.type == JsonType::string && n.text.empty());
}

}  // namespace

bool JsonRecord::to_msgpack(MsgpackWriter& w, bool omit_empty, std::string* error) const {
  if (!omit_empty) return json_to_msgpack(doc, 0, w, error);
  const JsonNode& root = doc.root();
  auto empty = [&](uint32_t v) { return empty_member(doc.node(v)); };
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
      if (!json_to_msgpack(doc, v, w, error, doc.node(c).text)) return false;
    }
    c = doc.node(v).next;
  }
  return true;
}

Scalar JsonRecord::stored_field(const Column& c, bool omit_empty) const {
  const auto m = doc.member(0, c.name);
  if (!m) return {};
  const JsonNode& n = doc.node(*m);
  if (omit_empty && empty_member(n)) return {};
  // A number as json_to_msgpack writes it, without its text; any other value as it is.
  return n.type == JsonType::number ? msgpack_number(n) : scalar_of(n);
}

}  // namespace drydb::cli
