#include "json.h"

#include <algorithm>

#include <fmt/format.h>

#include "text.h"

namespace drydb::cli {

namespace {

int hex_digit(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xc0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xe0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else {
    out += static_cast<char>(0xf0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  }
}

bool is_digit(char c) noexcept {
  return c >= '0' && c <= '9';
}

}  // namespace

bool JsonDocument::fail(size_t at, std::string_view what) {
  error_ = fmt::format("column {}: {}", at + 1, what);
  return false;
}

void JsonDocument::skip_space() {
  while (pos_ < in_.size() &&
         (in_[pos_] == ' ' || in_[pos_] == '\t' || in_[pos_] == '\n' || in_[pos_] == '\r'))
    ++pos_;
}

bool JsonDocument::parse(std::string_view text) {
  in_ = text;
  pos_ = 0;
  nodes_.clear();
  strings_.clear();
  // Decoded strings are never longer than their source: reserving the text's
  // length keeps every view into strings_ valid while it grows.
  if (strings_.capacity() < text.size()) strings_.reserve(text.size());
  error_.clear();
  if (const size_t bad = invalid_utf8_offset(text); bad != std::string_view::npos)
    return fail(bad, "invalid UTF-8");
  skip_space();
  if (!parse_value(0)) return false;
  skip_space();
  if (pos_ != in_.size()) return fail(pos_, "unexpected text after the JSON value");
  return true;
}

bool JsonDocument::parse_value(uint32_t depth) {
  if (pos_ >= in_.size()) return fail(pos_, "expected a value, found the end of the line");
  const uint32_t self = static_cast<uint32_t>(nodes_.size());
  nodes_.emplace_back();
  const char c = in_[pos_];
  auto literal = [&](std::string_view word, JsonType type, bool value) {
    if (in_.substr(pos_, word.size()) != word) return fail(pos_, "expected a value");
    pos_ += word.size();
    nodes_[self].type = type;
    nodes_[self].boolean = value;
    return true;
  };
  bool ok;
  switch (c) {
    case 'n':
      ok = literal("null", JsonType::null, false);
      break;
    case 't':
      ok = literal("true", JsonType::boolean, true);
      break;
    case 'f':
      ok = literal("false", JsonType::boolean, false);
      break;
    case '"': {
      std::string_view s;
      ok = parse_string(&s);
      nodes_[self].type = JsonType::string;
      nodes_[self].text = s;
      break;
    }
    case '[':
    case '{': {
      if (depth >= kMaxDepth) return fail(pos_, "nested too deeply");
      const bool object = c == '{';
      const char close = object ? '}' : ']';
      ++pos_;
      uint32_t count = 0;
      skip_space();
      if (pos_ < in_.size() && in_[pos_] == close) {
        ++pos_;
      } else {
        for (;;) {
          if (object) {
            skip_space();
            if (pos_ >= in_.size() || in_[pos_] != '"')
              return fail(pos_, "expected a member name in double quotes");
            const uint32_t name = static_cast<uint32_t>(nodes_.size());
            nodes_.emplace_back();
            std::string_view s;
            if (!parse_string(&s)) return false;
            nodes_[name].type = JsonType::string;
            nodes_[name].text = s;
            nodes_[name].next = static_cast<uint32_t>(nodes_.size());
            skip_space();
            if (pos_ >= in_.size() || in_[pos_] != ':') return fail(pos_, "expected ':'");
            ++pos_;
          }
          skip_space();
          if (!parse_value(depth + 1)) return false;
          ++count;
          skip_space();
          if (pos_ >= in_.size()) return fail(pos_, fmt::format("expected ',' or '{}'", close));
          if (in_[pos_] == ',') {
            ++pos_;
            continue;
          }
          if (in_[pos_] == close) {
            ++pos_;
            break;
          }
          return fail(pos_, fmt::format("expected ',' or '{}'", close));
        }
      }
      nodes_[self].type = object ? JsonType::object : JsonType::array;
      nodes_[self].size = count;
      nodes_[self].next = static_cast<uint32_t>(nodes_.size());
      if (object && !check_duplicates(self)) return false;
      return true;
    }
    default:
      if (c == '-' || is_digit(c)) {
        ok = parse_number();
        break;
      }
      return fail(pos_, "expected a value");
  }
  if (!ok) return false;
  nodes_[self].next = static_cast<uint32_t>(nodes_.size());
  return true;
}

bool JsonDocument::parse_string(std::string_view* out) {
  const size_t open = pos_++;
  const size_t start = pos_;
  // Fast path: no escapes, the text is the input itself.
  while (pos_ < in_.size()) {
    const auto c = static_cast<unsigned char>(in_[pos_]);
    if (c == '"') {
      *out = in_.substr(start, pos_ - start);
      ++pos_;
      return true;
    }
    if (c == '\\') break;
    if (c < 0x20) return fail(pos_, "control character in a string (escape it)");
    ++pos_;
  }
  if (pos_ >= in_.size()) return fail(open, "unterminated string");
  const size_t begin = strings_.size();
  strings_.append(in_.substr(start, pos_ - start));
  while (pos_ < in_.size()) {
    const auto c = static_cast<unsigned char>(in_[pos_]);
    if (c == '"') {
      *out = std::string_view(strings_).substr(begin);
      ++pos_;
      return true;
    }
    if (c < 0x20) return fail(pos_, "control character in a string (escape it)");
    if (c != '\\') {
      strings_ += static_cast<char>(c);
      ++pos_;
      continue;
    }
    const size_t esc = pos_;
    if (++pos_ >= in_.size()) break;
    switch (in_[pos_]) {
      case '"':
        strings_ += '"';
        break;
      case '\\':
        strings_ += '\\';
        break;
      case '/':
        strings_ += '/';
        break;
      case 'b':
        strings_ += '\b';
        break;
      case 'f':
        strings_ += '\f';
        break;
      case 'n':
        strings_ += '\n';
        break;
      case 'r':
        strings_ += '\r';
        break;
      case 't':
        strings_ += '\t';
        break;
      case 'u': {
        auto hex4 = [&](size_t at, uint32_t* v) {
          if (at + 4 > in_.size()) return false;
          *v = 0;
          for (size_t k = 0; k < 4; ++k) {
            const int d = hex_digit(in_[at + k]);
            if (d < 0) return false;
            *v = *v * 16 + static_cast<uint32_t>(d);
          }
          return true;
        };
        uint32_t cp;
        if (!hex4(pos_ + 1, &cp)) return fail(esc, "bad \\u escape: expected 4 hex digits");
        pos_ += 4;
        if (cp >= 0xdc00 && cp <= 0xdfff) return fail(esc, "lone low surrogate in \\u escape");
        if (cp >= 0xd800 && cp <= 0xdbff) {
          uint32_t lo;
          if (pos_ + 2 >= in_.size() || in_[pos_ + 1] != '\\' || in_[pos_ + 2] != 'u' ||
              !hex4(pos_ + 3, &lo) || lo < 0xdc00 || lo > 0xdfff)
            return fail(esc, "high surrogate in \\u escape not followed by a low one");
          pos_ += 6;
          cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
        }
        append_utf8(strings_, cp);
        break;
      }
      default:
        return fail(esc, "bad escape in a string");
    }
    ++pos_;
  }
  return fail(open, "unterminated string");
}

bool JsonDocument::parse_number() {
  const size_t start = pos_;
  bool integer = true;
  if (in_[pos_] == '-') ++pos_;
  if (pos_ >= in_.size() || !is_digit(in_[pos_])) return fail(start, "bad number");
  if (in_[pos_] == '0') {
    ++pos_;
    if (pos_ < in_.size() && is_digit(in_[pos_])) return fail(start, "bad number: leading zero");
  } else {
    while (pos_ < in_.size() && is_digit(in_[pos_]))
      ++pos_;
  }
  if (pos_ < in_.size() && in_[pos_] == '.') {
    integer = false;
    ++pos_;
    if (pos_ >= in_.size() || !is_digit(in_[pos_]))
      return fail(start, "bad number: digits expected after '.'");
    while (pos_ < in_.size() && is_digit(in_[pos_]))
      ++pos_;
  }
  if (pos_ < in_.size() && (in_[pos_] == 'e' || in_[pos_] == 'E')) {
    integer = false;
    ++pos_;
    if (pos_ < in_.size() && (in_[pos_] == '+' || in_[pos_] == '-')) ++pos_;
    if (pos_ >= in_.size() || !is_digit(in_[pos_]))
      return fail(start, "bad number: digits expected in the exponent");
    while (pos_ < in_.size() && is_digit(in_[pos_]))
      ++pos_;
  }
  JsonNode& n = nodes_.back();
  n.type = JsonType::number;
  n.integer = integer;
  n.text = in_.substr(start, pos_ - start);
  return true;
}

bool JsonDocument::check_duplicates(uint32_t object) {
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
  return fail(pos_ - 1, fmt::format("duplicate member name \"{}\"", escape_display(*dup)));
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

void append_json_string(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  size_t run = 0;  // start of the current run of bytes copied as they are
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(s.substr(run, i - run));
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
        out += kHex[c >> 4];
        out += kHex[c & 15];
    }
  }
  out.append(s.substr(run));
  out += '"';
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
