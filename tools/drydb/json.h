// A strict JSON parser for one JSON Lines record at a time, and JSON output
// helpers.
//
// The parser follows RFC 8259 to the letter (no comments, no trailing commas,
// no NaN, no single quotes, no leading zeros, no lone surrogates, no raw
// control characters, UTF-8 only) and also refuses duplicate object keys and
// nesting deeper than kMaxDepth. It fills a flat, reusable node array: one
// parse allocates nothing once the buffers have grown to the longest record.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace drydb::cli {

enum class JsonType : uint8_t { null, boolean, number, string, array, object };

struct JsonNode {
  JsonType type = JsonType::null;
  bool boolean = false;  // the value of a boolean
  bool integer = false;  // a number written without fraction or exponent
  uint32_t size = 0;     // array: elements; object: members
  uint32_t next = 0;     // the node after this one's subtree (its next sibling)
  // string: the decoded text; number: the number as written; otherwise empty.
  std::string_view text;
};

class JsonDocument {
 public:
  static constexpr uint32_t kMaxDepth = 128;

  // Parses `text`, which must stay alive and unchanged while the nodes are
  // used. On failure returns false and error() says what and at which column.
  bool parse(std::string_view text);
  const std::string& error() const noexcept { return error_; }

  // Node 0 is the root. Children of a container follow it: the first at
  // index + 1, each next one at the previous one's `next`. An object's
  // children alternate member name (a string node) and value.
  const JsonNode& node(uint32_t i) const noexcept { return nodes_[i]; }
  const JsonNode& root() const noexcept { return nodes_[0]; }
  // The value node of member `name` of object node `object`, if any.
  std::optional<uint32_t> member(uint32_t object, std::string_view name) const;

 private:
  bool fail(size_t at, std::string_view what);
  void skip_space();
  bool parse_value(uint32_t depth);
  bool parse_string(std::string_view* out);
  bool parse_number();
  bool check_duplicates(uint32_t object);

  std::string_view in_;
  size_t pos_ = 0;
  std::vector<JsonNode> nodes_;
  std::string strings_;  // decoded strings with escapes; reserved so views stay valid
  std::vector<std::string_view> names_;
  std::string error_;
};

// Appends `s` (valid UTF-8) as a JSON string literal.
void append_json_string(std::string& out, std::string_view s);
// Appends the JSON text of node `i` of `doc` in compact form.
void append_json(std::string& out, const JsonDocument& doc, uint32_t i);

}  // namespace drydb::cli
