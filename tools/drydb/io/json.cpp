#include "io/json.h"

#include <algorithm>

#include <fmt/format.h>
#include <simdjson.h>

#include "io/text.h"

namespace drydb::cli {

namespace sj = simdjson;
namespace od = simdjson::ondemand;

struct JsonDocument::Parser {
  od::parser parser;
};

namespace {

// What a simdjson error means to someone who wrote the line.
const char* explain(sj::error_code e) {
  switch (e) {
    case sj::TAPE_ERROR:
    case sj::INCOMPLETE_ARRAY_OR_OBJECT:
      return "expected a value, ',', ':' or a closing bracket";
    case sj::DEPTH_ERROR:
      return "nested too deeply";
    case sj::STRING_ERROR:
      return "bad escape in a string (or a lone surrogate)";
    case sj::UNCLOSED_STRING:
      return "unterminated string";
    case sj::UNESCAPED_CHARS:
      return "control character in a string (escape it)";
    case sj::NUMBER_ERROR:
    case sj::NUMBER_OUT_OF_RANGE:
      return "bad number (or out of the range of a double)";
    case sj::T_ATOM_ERROR:
    case sj::F_ATOM_ERROR:
    case sj::N_ATOM_ERROR:
    case sj::INCORRECT_TYPE:
      return "expected a value";
    case sj::EMPTY:
      return "expected a value, found the end of the line";
    case sj::TRAILING_CONTENT:
      return "unexpected text after the JSON value";
    default:
      return sj::error_message(e);
  }
}

// An integer too long for 64 bits, which simdjson refuses and JSON allows: -?(0|[1-9][0-9]*).
bool is_integer_text(std::string_view t) {
  if (!t.empty() && t[0] == '-') t.remove_prefix(1);
  if (t.empty() || (t[0] == '0' && t.size() > 1)) return false;
  return std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string_view trim_right(std::string_view t) {
  while (!t.empty() &&
         (t.back() == ' ' || t.back() == '\t' || t.back() == '\n' || t.back() == '\r'))
    t.remove_suffix(1);
  return t;
}

// A scalar's text as written (and the spaces after it), from a value or a scalar document.
sj::error_code raw_token(od::value& v, std::string_view* out) {
  *out = v.raw_json_token();
  return sj::SUCCESS;
}
sj::error_code raw_token(od::document& d, std::string_view* out) {
  return d.raw_json_token().get(*out);
}

}  // namespace

// Walks a simdjson document once, in order, appending a node per value. Each
// step checks simdjson's error; `at_` is the start of the value being read,
// the column of an error simdjson cannot place.
class JsonDocument::Walker {
 public:
  // Returned for a duplicate member name, whose message check_duplicates wrote.
  static constexpr sj::error_code kDuplicate = sj::UNINITIALIZED;

  Walker(JsonDocument& doc, od::document& d) : doc_(doc), d_(d), base_(doc.padded_.data()) {
    at_ = base_;
  }

  sj::error_code run() {
    od::json_type type;
    if (auto e = d_.type().get(type)) return e;
    if (type == od::json_type::object || type == od::json_type::array) {
      od::value v;
      if (auto e = d_.get_value().get(v)) return e;
      if (auto e = value(v, 0)) return e;
      // Past the root's closing bracket there must be nothing but spaces.
      const char* rest;
      if (d_.current_location().get(rest) == sj::SUCCESS) {
        at_ = rest;
        return sj::TRAILING_CONTENT;
      }
      return sj::SUCCESS;
    }
    if (auto e = scalar(d_, type)) return e;
    // A scalar's token runs to the next structural character: anything there is trailing text.
    if (raw_end_ != base_ + doc_.padded_.size()) {
      at_ = raw_end_;
      return sj::TRAILING_CONTENT;
    }
    return sj::SUCCESS;
  }

  // Where to report an error.
  const char* where(sj::error_code e) {
    const char* loc;
    if (e != sj::TRAILING_CONTENT && d_.current_location().get(loc) == sj::SUCCESS && loc >= at_)
      return loc;
    return at_;
  }
  const char* at_ = nullptr;

 private:
  uint32_t add(JsonType type) {
    doc_.nodes_.emplace_back();
    doc_.nodes_.back().type = type;
    return static_cast<uint32_t>(doc_.nodes_.size() - 1);
  }
  void close(uint32_t self) { doc_.nodes_[self].next = static_cast<uint32_t>(doc_.nodes_.size()); }

  template <class V>
  sj::error_code scalar(V& v, od::json_type type) {
    std::string_view raw;
    if (auto e = raw_token(v, &raw)) return e;
    at_ = raw.data();
    raw_end_ = raw.data() + raw.size();
    switch (type) {
      case od::json_type::string: {
        std::string_view s;
        if (auto e = v.get_string().get(s)) return e;
        const uint32_t self = add(JsonType::string);
        doc_.nodes_[self].text = s;
        close(self);
        return sj::SUCCESS;
      }
      case od::json_type::number: {
        raw = trim_right(raw);
        od::number n;
        if (auto e = v.get_number().get(n); e && !is_integer_text(raw)) return e;
        const uint32_t self = add(JsonType::number);
        doc_.nodes_[self].integer = raw.find_first_of(".eE") == std::string_view::npos;
        doc_.nodes_[self].text = raw;
        close(self);
        return sj::SUCCESS;
      }
      case od::json_type::boolean: {
        bool b;
        if (auto e = v.get_bool().get(b)) return e;
        const uint32_t self = add(JsonType::boolean);
        doc_.nodes_[self].boolean = b;
        close(self);
        return sj::SUCCESS;
      }
      case od::json_type::null: {
        bool null;
        if (auto e = v.is_null().get(null)) return e;
        if (!null) return sj::N_ATOM_ERROR;
        close(add(JsonType::null));
        return sj::SUCCESS;
      }
      default:
        return sj::INCORRECT_TYPE;
    }
  }

  sj::error_code value(od::value& v, uint32_t depth) {
    od::json_type type;
    if (auto e = v.type().get(type)) return e;
    if (type == od::json_type::object) {
      if (depth >= kMaxDepth) return sj::DEPTH_ERROR;
      od::object o;
      if (auto e = v.get_object().get(o)) return e;
      const uint32_t self = add(JsonType::object);
      uint32_t count = 0;
      for (auto field : o) {
        od::field f;
        if (auto e = std::move(field).get(f)) return e;
        std::string_view name;
        if (auto e = f.unescaped_key().get(name)) return e;
        const uint32_t key = add(JsonType::string);
        doc_.nodes_[key].text = name;
        close(key);
        if (auto e = value(f.value(), depth + 1)) return e;
        ++count;
      }
      doc_.nodes_[self].size = count;
      close(self);
      // Reported at the object's end (just past its closing brace, if simdjson can say).
      const char* end;
      if (d_.current_location().get(end) != sj::SUCCESS) end = base_ + doc_.padded_.size();
      if (!doc_.check_duplicates(self, static_cast<size_t>(end - base_) - 1)) return kDuplicate;
      return sj::SUCCESS;
    }
    if (type == od::json_type::array) {
      if (depth >= kMaxDepth) return sj::DEPTH_ERROR;
      od::array a;
      if (auto e = v.get_array().get(a)) return e;
      const uint32_t self = add(JsonType::array);
      uint32_t count = 0;
      for (auto element : a) {
        od::value ev;
        if (auto e = std::move(element).get(ev)) return e;
        if (auto e = value(ev, depth + 1)) return e;
        ++count;
      }
      doc_.nodes_[self].size = count;
      close(self);
      return sj::SUCCESS;
    }
    return scalar(v, type);
  }

  JsonDocument& doc_;
  od::document& d_;
  const char* base_;
  const char* raw_end_ = nullptr;  // the end of the last scalar's token
};

JsonDocument::JsonDocument() : parser_(std::make_unique<Parser>()) {}
JsonDocument::~JsonDocument() = default;
JsonDocument::JsonDocument(JsonDocument&&) noexcept = default;
JsonDocument& JsonDocument::operator=(JsonDocument&&) noexcept = default;

bool JsonDocument::fail(size_t at, std::string_view what) {
  error_ = fmt::format("column {}: {}", at + 1, what);
  return false;
}

bool JsonDocument::parse(std::string_view text) {
  nodes_.clear();
  error_.clear();
  if (padded_.capacity() < text.size() + sj::SIMDJSON_PADDING)
    padded_.reserve(text.size() + sj::SIMDJSON_PADDING);
  padded_.assign(text);
  const auto column = [&](const char* p) {
    return p == nullptr ? 0 : static_cast<size_t>(p - padded_.data());
  };
  od::document d;
  sj::error_code e =
      parser_->parser.iterate(padded_.data(), padded_.size(), padded_.capacity()).get(d);
  if (e == sj::SUCCESS) {
    Walker w(*this, d);
    e = w.run();
    if (e == sj::SUCCESS) return true;
    if (e == Walker::kDuplicate) return false;
    return fail(column(w.where(e)), explain(e));
  }
  // Errors of the first pass over the whole text, which has no position for them.
  if (e == sj::UTF8_ERROR) return fail(invalid_utf8_offset(text), "invalid UTF-8");
  if (e == sj::EMPTY) return fail(text.size(), explain(e));
  return fail(0, explain(e));
}

bool JsonDocument::check_duplicates(uint32_t object, size_t at) {
  const uint32_t members = nodes_[object].size;
  if (members < 2) return true;
  names_.clear();
  for (uint32_t i = object + 1, k = 0; k < members; ++k) {
    names_.push_back(nodes_[i].text);
    i = nodes_[nodes_[i].next].next;  // past the name, then past the value
  }
  std::sort(names_.begin(), names_.end());
  const auto dup = std::adjacent_find(names_.begin(), names_.end());
  if (dup == names_.end()) return true;
  return fail(at, fmt::format("duplicate member name \"{}\"", escape_display(*dup)));
}

std::optional<uint32_t> JsonDocument::member(uint32_t object, std::string_view name) const {
  const JsonNode& o = nodes_[object];
  if (o.type != JsonType::object) return std::nullopt;
  for (uint32_t i = object + 1, k = 0; k < o.size; ++k) {
    const uint32_t value = nodes_[i].next;
    if (nodes_[i].text == name) return value;
    i = nodes_[value].next;
  }
  return std::nullopt;
}

void append_json_base64(std::string& out, std::string_view bytes) {
  out += "{\"base64\":\"";
  out += to_base64(bytes);
  out += "\"}";
}

void append_json_text_or_base64(std::string& out, std::string_view s) {
  if (valid_utf8(s))
    append_json_string(out, s);
  else
    append_json_base64(out, s);
}

void append_json(std::string& out, const JsonDocument& doc, uint32_t i) {
  const JsonNode& n = doc.node(i);
  switch (n.type) {
    case JsonType::null:
      out += "null";
      return;
    case JsonType::boolean:
      out += n.boolean ? "true" : "false";
      return;
    case JsonType::number:
      out += n.text;
      return;
    case JsonType::string:
      append_json_string(out, n.text);
      return;
    case JsonType::array:
    case JsonType::object: {
      const bool object = n.type == JsonType::object;
      out += object ? '{' : '[';
      for (uint32_t c = i + 1, k = 0; k < n.size; ++k) {
        if (k > 0) out += ',';
        if (object) {
          append_json_string(out, doc.node(c).text);
          out += ':';
          c = doc.node(c).next;
        }
        append_json(out, doc, c);
        c = doc.node(c).next;
      }
      out += object ? '}' : ']';
      return;
    }
  }
}

}  // namespace drydb::cli
