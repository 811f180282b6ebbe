// One JSON Lines record at a time, parsed by simdjson, and JSON output
// helpers.
//
// simdjson holds to RFC 8259 (no comments, no trailing commas, no NaN, no
// single quotes, no leading zeros, no lone surrogates, no raw control
// characters, UTF-8 only); on top of it a document refuses duplicate object
// keys and nesting deeper than kMaxDepth, and keeps each number's text as
// written, so that a number used as text (a bytes key, a --value column) is
// the input's and a number stored as MessagePack converts from it as
// msgpack_number says (an integer of any size parses here; whether
// MessagePack can hold it is number_loss's to say).
// Nodes fill a flat, reusable array: one parse allocates nothing once the
// buffers have grown to the longest record.
//
// Why simdjson (docs/cli.md, "JSON input"): it parses the tool's JSON Lines
// as fast as the tool's own parser did where nlohmann-json's SAX parser took
// four times as long, and it reports errors as codes, which the library,
// built without exceptions, can use too.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "drydb/escape.h"

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

  JsonDocument();
  ~JsonDocument();
  JsonDocument(JsonDocument&&) noexcept;
  JsonDocument& operator=(JsonDocument&&) noexcept;

  // Parses `text` (copied: it need not outlive the call). The nodes and
  // their text stay valid until the next parse. On failure returns false and
  // error() says what and at which column.
  bool parse(std::string_view text);
  const std::string& error() const noexcept { return error_; }

  // Node 0 is the root. Children of a container follow it: the first at
  // index + 1, each next one at the previous one's `next`. An object's
  // children alternate member name (a string node) and value.
  const JsonNode& node(uint32_t i) const noexcept { return nodes_[i]; }
  const JsonNode& root() const noexcept { return nodes_[0]; }
  // The value node of member `name` of object node `object`, if any.
  std::optional<uint32_t> member(uint32_t object, std::string_view name) const;
  // The 1-based column where number node `n` of this document starts (its text is the input's).
  size_t number_column(const JsonNode& n) const noexcept {
    return static_cast<size_t>(n.text.data() - padded_.data()) + 1;
  }

 private:
  struct Parser;  // simdjson's, kept out of this header
  class Walker;
  bool fail(size_t at, std::string_view what);
  bool check_duplicates(uint32_t object, size_t at);

  std::unique_ptr<Parser> parser_;
  std::string padded_;  // the text, with the padding simdjson reads past its end
  std::vector<JsonNode> nodes_;
  std::vector<std::string_view> names_;
  std::string error_;
};

// Appends bytes in the tool's JSON form for bytes that are not text (docs/cli.md):
// {"base64":"..."}.
void append_json_base64(std::string& out, std::string_view bytes);
// Appends `s` as a JSON string when it is valid UTF-8, else as {"base64":"..."}.
void append_json_text_or_base64(std::string& out, std::string_view s);
// Appends the JSON text of node `i` of `doc` in compact form.
void append_json(std::string& out, const JsonDocument& doc, uint32_t i);

}  // namespace drydb::cli
