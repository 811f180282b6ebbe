// How the drydb tool prints rows and values: text for people (the session
// and the default of the scripting commands), JSON Lines, CSV and TSV.
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "drydb/key_encoding.h"
#include "io/msgpack.h"

namespace drydb::cli {

enum class Format { text, jsonl, csv, tsv };

// "text" -> Format::text ...; a CliError (usage) for anything else.
Format parse_format(std::string_view name);

// A value as one line of text: hex digits with `hex`; printable UTF-8 as it
// is (control characters as \xNN); a MessagePack map or array as compact
// JSON; other bytes escaped as \xNN.
std::string value_line(std::string_view value, bool hex);
// A value as a block, for `get`: printable text as it is; MessagePack as
// JSON; otherwise "(binary, N bytes)" and a hex dump of at most
// `max_dump_bytes` bytes (0 = all).
std::string value_block(std::string_view value, bool hex, size_t max_dump_bytes);
// Appends a value as JSON, exactly: a string when it is UTF-8, {"msgpack": ...}
// when it is MessagePack that JSON holds exactly, else {"base64": "..."}.
void append_json_value(std::string& out, std::string_view value);
// Appends one CSV/TSV field, quoted (RFC 4180) when it holds the delimiter, a
// quote, CR or LF.
void append_delimited_field(std::string& out, std::string_view field, char delimiter);

// The text of a CSV/TSV field that holds `bytes` exactly, in the forms of the
// JSON output and the dump: UTF-8 text as it is; other bytes as
// {"msgpack":JSON} (MessagePack that JSON holds exactly) or {"base64":"..."};
// and text that itself reads as one of these forms as {"base64":"..."}, so
// that a form always stands for bytes and decoded_field gives them back.
std::string delimited_bytes(std::string_view bytes);
// A CSV/TSV field of `drydb build`'s input: the bytes {"base64":"..."} or
// {"msgpack":JSON} stands for, in *out, when the field is exactly what
// delimited_bytes writes for them (no other spacing or spelling); false (and
// *out untouched) for any other field, which is text.
bool decoded_field(std::string_view field, std::string* out);

struct RowStyle {
  Format format = Format::text;
  bool numbered = false;  // the session's "N) key -> value" lines, truncated
  bool hex = false;       // keys and values as hex digits (text, CSV, TSV)
  bool keys_only = false;
  bool values_only = false;
  bool index_key = false;  // rows come from an index: show its key first
  KeyEncoding key_encoding = KeyEncoding::bytes();
  KeyEncoding index_encoding = KeyEncoding::bytes();
  // The table's column list, if it has one: its rows are shown as the maps
  // they stand for (but with `hex`, which shows the bytes stored).
  std::optional<RowColumns> columns;
};

// The value to show of a row with key `key`: with a column list (and not
// `hex`), the map a row stands for, in *buf; else the value as stored.
std::string_view shown_value(std::string_view value, const std::optional<RowColumns>& columns,
                             std::span<const std::byte> key, bool hex, std::string* buf);

// Prints rows to a stdio stream in one style.
class RowPrinter {
 public:
  RowPrinter(std::FILE* out, RowStyle style) : out_(out), style_(style) {}
  // The CSV/TSV header line; nothing for other formats.
  void header();
  // `number` is the 1-based position shown by numbered rows.
  void row(uint64_t number, std::span<const std::byte> index_key, std::span<const std::byte> key,
           std::span<const std::byte> value);

 private:
  std::FILE* out_;
  RowStyle style_;
  std::string line_;
  std::string map_;  // a row's map (shown_value)
};

// Writes `s` to `out` (fwrite). A write that fails is not an error here: it surfaces when the
// output is finished (flush_output). stdio keeps only a flag for it, and drops what it could not
// write, so the write that fails first keeps its errno here: the final flush may then have
// nothing left to write and no errno of its own.
void write_out(std::FILE* out, std::string_view s);
// Flushes `out`: 0 when everything written to it went through, else the errno of the first
// write through write_out that failed (the flush's own when that failed first; EIO for a failure
// with no errno known, of a write made otherwise). Call before the stream is closed: its error
// is forgotten then, as a stream opened later may take its address.
int flush_output(std::FILE* out);

}  // namespace drydb::cli
