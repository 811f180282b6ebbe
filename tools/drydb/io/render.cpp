#include "io/render.h"

#include <cerrno>
#include <vector>

#include <fmt/format.h>

#include "common.h"
#include "io/json.h"
#include "io/keys.h"
#include "io/msgpack.h"
#include "io/text.h"

namespace drydb::cli {

Format parse_format(std::string_view name) {
  if (name == "text") return Format::text;
  if (name == "jsonl") return Format::jsonl;
  if (name == "csv") return Format::csv;
  if (name == "tsv") return Format::tsv;
  fail_usage(fmt::format("unknown format '{}': use text, jsonl, csv or tsv", name));
}

std::string value_line(std::string_view value, bool hex) {
  if (hex) return to_hex(value);
  if (!printable_text(value)) {
    std::string json;
    if (msgpack_to_json(value, &json)) return json;
  }
  return escape_display(value);
}

std::string value_block(std::string_view value, bool hex, size_t max_dump_bytes) {
  if (hex) return to_hex(value);
  if (printable_text(value)) return std::string(value);
  std::string json;
  if (msgpack_to_json(value, &json)) return json;
  std::string dump = hex_dump(value, max_dump_bytes);
  if (!dump.empty() && dump.back() == '\n') dump.pop_back();
  return fmt::format("(binary, {} bytes)\n{}", group_digits(value.size()), dump);
}

void append_json_value(std::string& out, std::string_view value) {
  if (valid_utf8(value)) {
    append_json_string(out, value);
    return;
  }
  const size_t start = out.size();
  out += "{\"msgpack\":";
  if (msgpack_to_exact_json(value, &out)) {
    out += '}';
    return;
  }
  out.resize(start);
  append_json_base64(out, value);
}

void append_delimited_field(std::string& out, std::string_view field, char delimiter) {
  if (field.find_first_of(std::string{delimiter, '"', '\r', '\n'}) == std::string_view::npos) {
    out += field;
    return;
  }
  out += '"';
  for (char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
}

std::string delimited_bytes(std::string_view bytes) {
  std::string scratch;
  if (valid_utf8(bytes) && !decoded_field(bytes, &scratch)) return std::string(bytes);
  std::string out;
  if (valid_utf8(bytes))
    append_json_base64(out, bytes);
  else
    append_json_value(out, bytes);
  return out;
}

bool decoded_field(std::string_view field, std::string* out) {
  // Cheap refusals first: the forms are JSON objects, and most fields are not.
  if (field.size() < 2 || field.front() != '{' || field.find('"') == std::string_view::npos)
    return false;
  static JsonDocument doc;  // one parser for every field of a build
  if (!doc.parse(field) || doc.root().type != JsonType::object || doc.root().size != 1)
    return false;
  // Only the exact text delimited_bytes writes is a form: another spelling of one (spaces, a
  // different JSON for the same MessagePack, base64 the output would not write) is text.
  std::string bytes, canonical;
  if (const auto b = doc.member(0, "base64")) {
    if (doc.node(*b).type != JsonType::string) return false;
    auto decoded = from_base64(doc.node(*b).text);
    if (!decoded) return false;
    bytes = std::move(*decoded);
  } else if (const auto m = doc.member(0, "msgpack")) {
    MsgpackWriter w(&bytes);
    // A number no MessagePack value holds makes no form: the field is its text.
    if (std::string err; !json_to_msgpack(doc, *m, w, &err)) return false;
  } else {
    return false;
  }
  if (delimited_bytes(bytes) != field) return false;
  *out = std::move(bytes);
  return true;
}

namespace {

// The streams write_out saw fail and the errno of their first failure: stdout, and the one
// output file a command writes at a time. The tool has one thread.
struct WriteError {
  std::FILE* stream;
  int err;
};
std::vector<WriteError> g_write_errors;

int recorded_error(std::FILE* out) {
  for (const WriteError& e : g_write_errors)
    if (e.stream == out) return e.err;
  return 0;
}

}  // namespace

void write_out(std::FILE* out, std::string_view s) {
  const bool failed_before = std::ferror(out) != 0;
  std::fwrite(s.data(), 1, s.size(), out);
  // The error flag was set by this write: errno is the failed write(2)'s (ENOSPC, EFBIG, EIO).
  // fwrite's count cannot tell: it reports everything written when the data went into the
  // buffer and only the flush that made room for it failed.
  if (!failed_before && std::ferror(out) && recorded_error(out) == 0)
    g_write_errors.push_back({out, errno != 0 ? errno : EIO});
}

int flush_output(std::FILE* out) {
  const bool flushed = std::fflush(out) == 0;
  const int flush_err = errno;
  int err = recorded_error(out);
  std::erase_if(g_write_errors, [&](const WriteError& e) { return e.stream == out; });
  if (err == 0 && !flushed) err = flush_err;
  if (err == 0 && std::ferror(out)) err = EIO;
  return err;
}

void RowPrinter::header() {
  if (style_.format != Format::csv && style_.format != Format::tsv) return;
  const char d = style_.format == Format::csv ? ',' : '\t';
  line_.clear();
  auto col = [&](std::string_view name) {
    if (!line_.empty()) line_ += d;
    line_ += name;
  };
  if (style_.index_key) col("index_key");
  if (!style_.values_only) col("key");
  if (!style_.keys_only) col("value");
  line_ += '\n';
  write_out(out_, line_);
}

std::string_view shown_value(std::string_view value, const std::optional<RowColumns>& columns,
                             std::span<const std::byte> key, bool hex, std::string* buf) {
  if (columns && !hex && row_to_map(value, *columns, key, buf)) return *buf;
  return value;
}

void RowPrinter::row(uint64_t number, std::span<const std::byte> index_key,
                     std::span<const std::byte> key, std::span<const std::byte> value) {
  line_.clear();
  const std::string_view v = shown_value(as_text(value), style_.columns, key, style_.hex, &map_);
  if (style_.format == Format::jsonl) {
    line_ += '{';
    if (style_.index_key) {
      line_ += "\"index_key\":";
      append_json_key(line_, style_.index_encoding, index_key);
      line_ += ',';
    }
    if (!style_.values_only) {
      line_ += "\"key\":";
      append_json_key(line_, style_.key_encoding, key);
    }
    if (!style_.keys_only) {
      if (!style_.values_only) line_ += ',';
      line_ += "\"value\":";
      append_json_value(line_, v);
    }
    line_ += "}\n";
  } else if (style_.format == Format::csv || style_.format == Format::tsv) {
    const char d = style_.format == Format::csv ? ',' : '\t';
    bool first = true;
    auto field = [&](std::string_view f) {
      if (!first) line_ += d;
      first = false;
      append_delimited_field(line_, f, d);
    };
    // CSV and TSV carry text as it is (quoted when needed), other bytes in the forms of the
    // JSON output, which `drydb build` reads back (delimited_bytes).
    auto value_field = [&]() { return style_.hex ? to_hex(v) : delimited_bytes(v); };
    auto key_field = [&](KeyEncoding enc, std::span<const std::byte> k) {
      if (!style_.hex && enc == KeyEncoding::bytes()) return delimited_bytes(as_text(k));
      return display_key(enc, k, style_.hex);
    };
    if (style_.index_key) field(key_field(style_.index_encoding, index_key));
    if (!style_.values_only) field(key_field(style_.key_encoding, key));
    if (!style_.keys_only) field(value_field());
    line_ += '\n';
  } else if (style_.numbered) {
    // The session's form: "N) key -> value", long keys and values cut.
    line_ += fmt::format("{}) ", number);
    if (style_.index_key)
      line_ +=
          truncate_display(display_key(style_.index_encoding, index_key, style_.hex), 40) + " | ";
    const bool shows_both = !style_.keys_only && !style_.values_only;
    if (!style_.values_only) {
      const std::string k = display_key(style_.key_encoding, key, style_.hex);
      line_ += shows_both ? truncate_display(k, 40) : k;
    }
    if (shows_both) line_ += " -> ";
    if (!style_.keys_only) {
      std::string shown;
      if (!style_.hex && !printable_text(v) && !msgpack_to_json(v, &shown))
        shown = fmt::format("(binary, {} bytes)", group_digits(v.size()));
      else if (shown.empty())
        shown = value_line(v, style_.hex);
      line_ += shows_both ? truncate_display(shown, 60) : shown;
    }
    line_ += '\n';
  } else {
    // Plain text: tab-separated, one row per line.
    if (style_.index_key) {
      line_ += display_key(style_.index_encoding, index_key, style_.hex);
      line_ += '\t';
    }
    if (!style_.values_only) line_ += display_key(style_.key_encoding, key, style_.hex);
    if (!style_.keys_only) {
      if (!style_.values_only) line_ += '\t';
      line_ += value_line(v, style_.hex);
    }
    line_ += '\n';
  }
  write_out(out_, line_);
}

}  // namespace drydb::cli
