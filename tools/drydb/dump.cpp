#include "dump.h"

#include <fmt/format.h>

#include <algorithm>

#include "common.h"
#include "drydb/index.h"
#include "inspect.h"
#include "json.h"
#include "keys.h"
#include "msgpack.h"
#include "render.h"
#include "session.h"
#include "test_pause.h"
#include "text.h"

namespace drydb::cli {

namespace {

// One line of the dump; stops it (a CliError) once SIGINT or SIGTERM was caught.
void write_line(std::FILE* out, std::string_view line) {
  if (g_interrupted) fail("interrupted; the dump is incomplete");
  write_out(out, line);
  test_pause("dump:writing");
}

}  // namespace

void run_dump(const std::string& path, const std::vector<std::string>& names, std::FILE* out) {
  const ReadOnlyDatabase db = open_database(path);
  const FileInfo layout = read_layout(path);
  std::vector<ReadOnlyTable> tables;
  if (names.empty()) {
    tables = db.tables();
  } else {
    for (size_t i = 0; i < names.size(); ++i)  // a table named twice is dumped once
      if (std::find(names.begin(), names.begin() + static_cast<std::ptrdiff_t>(i), names[i]) ==
          names.begin() + static_cast<std::ptrdiff_t>(i))
        tables.push_back(check(db.table(names[i])));
  }

  std::string line =
      fmt::format("{{\"drydb_dump\":2,\"page_size\":{},\"filters\":[", db.page_size());
  bool first = true;
  for (const auto& f : layout.filters) {
    if (!first) line += ',';
    first = false;
    line += "{\"id\":";
    append_json_string(line, f.id);
    if (const auto z = f.id == "zstd" ? filters::zstd_options(f.params) : std::nullopt) {
      line += fmt::format(",\"level\":{}", z->level);
      if (z->dictionary_bytes > 0)
        line += fmt::format(",\"dictionary_bytes\":{}", z->dictionary_bytes);
    }
    line += '}';
  }
  line += "],\"tables\":[";
  first = true;
  for (const auto& t : tables) {
    if (!first) line += ',';
    first = false;
    line += "{\"name\":";
    append_json_string(line, t.name());
    line += ",\"key_encoding\":";
    append_json_string(line, t.encoding().id());
    if (const uint32_t bits = t.info().miss_filter_bits_per_key; bits != 0)
      line += fmt::format(",\"miss_filter_bits_per_key\":{}", bits);
    if (!t.columns().empty()) {
      line += ",\"columns\":[";
      for (size_t i = 0; i < t.columns().size(); ++i) {
        if (i > 0) line += ',';
        append_json_string(line, t.columns()[i]);
      }
      line += ']';
      if (t.key_column()) line += fmt::format(",\"key_column\":{}", *t.key_column());
    }
    line += ",\"indexes\":[";
    bool first_ix = true;
    for (const auto& ix : t.indexes()) {
      if (!first_ix) line += ',';
      first_ix = false;
      line += "{\"name\":";
      append_json_string(line, ix.name());
      line += fmt::format(",\"unique\":{},\"key_encoding\":", ix.unique() ? "true" : "false");
      append_json_string(line, ix.encoding().id());
      line += '}';
    }
    line += "]}";
  }
  line += "]}\n";
  write_line(out, line);

  // The end record, filled in as the rows and entries are written.
  std::string rows = "{\"drydb_dump_end\":{\"rows\":{", entries = ",\"index_entries\":{";
  for (const auto& t : tables) {
    uint64_t row_count = 0;
    std::string prefix = "{\"table\":";
    append_json_string(prefix, t.name());
    std::optional<RowColumns> columns;
    if (!t.columns().empty()) columns = RowColumns{t.columns(), t.key_column(), t.encoding()};
    std::string map, again, err, json;
    Cursor c = t.cursor();
    for (bool ok = c.first(); ok; ok = c.next()) {
      const auto value = c.value();
      check(c.status());
      line = prefix;
      line += ",\"key\":";
      append_json_key(line, t.encoding(), c.key());
      line += ",\"value\":";
      // A row as the map it stands for, when JSON holds the map exactly and build turns it
      // back into the same row; else the row itself, which build stores as it is.
      const std::string_view row = as_text(value);
      json.clear();
      if (columns && row_to_map(row, *columns, c.key(), &map) &&
          map_to_row(map, *columns, c.key(), &again, &err) && again == row &&
          msgpack_to_exact_json(map, &json)) {
        line += "{\"msgpack\":";
        line += json;
        line += '}';
      } else {
        append_json_value(line, row);
      }
      line += "}\n";
      write_line(out, line);
      ++row_count;
    }
    check(c.status());
    if (&t != &tables.front()) rows += ',', entries += ',';
    append_json_string(rows, t.name());
    rows += fmt::format(":{}", row_count);
    append_json_string(entries, t.name());
    entries += ":{";
    bool first_entry = true;
    for (const auto& ix : t.indexes()) {
      uint64_t entry_count = 0;
      std::string ix_prefix = prefix + ",\"index\":";
      append_json_string(ix_prefix, ix.name());
      IndexCursor ic = ix.cursor();
      for (bool ok = ic.first(); ok; ok = ic.next()) {
        const auto key = ic.key();
        check(ic.status());
        line = ix_prefix;
        line += ",\"key\":";
        append_json_key(line, t.encoding(), key);
        line += ",\"index_key\":";
        append_json_key(line, ix.encoding(), ic.index_key());
        line += "}\n";
        write_line(out, line);
        ++entry_count;
      }
      check(ic.status());
      if (!first_entry) entries += ',';
      first_entry = false;
      append_json_string(entries, ix.name());
      entries += fmt::format(":{}", entry_count);
    }
    entries += '}';
  }
  write_line(out, rows + "}" + entries + "}}}\n");
}

}  // namespace drydb::cli
