#include "commands/dump.h"

#include <fmt/format.h>

#include <algorithm>

#include "commands/inspect.h"
#include "commands/session.h"
#include "common.h"
#include "drydb/index.h"
#include "drydb/sharded.h"
#include "io/json.h"
#include "io/keys.h"
#include "io/msgpack.h"
#include "io/render.h"
#include "io/text.h"
#include "test_pause.h"

namespace drydb::cli {

namespace {

// One line of the dump; stops it (a CliError) once SIGINT or SIGTERM was caught.
void write_line(std::FILE* out, std::string_view line) {
  if (g_interrupted) fail("interrupted; the dump is incomplete");
  write_out(out, line);
  test_pause("dump:writing");
}

// Calls row(key, value) for each row of a table, in key order: a file's, or a dataset's
// across its shards.
template <class Row>
void for_each_row(const ReadOnlyTable& t, const ShardedTable* sharded, Row row) {
  if (sharded) {
    ShardedRange r = check(sharded->get_range(unbounded, unbounded));
    for (const Entry e : r)
      row(e.key, e.value);
    return check(r.status());
  }
  Cursor c = t.cursor();
  for (bool ok = c.first(); ok; ok = c.next()) {
    const auto value = c.value();
    check(c.status());
    row(c.key(), value);
  }
  check(c.status());
}

// Calls entry(key, index_key) for each entry of an index, in (index key, key) order.
template <class IndexEntry>
void for_each_entry(const SecondaryIndex& ix, const ShardedTable* sharded, IndexEntry entry) {
  if (sharded) {
    ShardedIndexRange r = check(check(sharded->index(ix.name())).get_range(unbounded, unbounded));
    for (const ShardedIndexEntry e : r)
      entry(e.key, e.index_key);
    return check(r.status());
  }
  IndexCursor c = ix.cursor();
  for (bool ok = c.first(); ok; ok = c.next()) {
    const auto key = c.key();
    check(c.status());
    entry(key, c.index_key());
  }
  check(c.status());
}

}  // namespace

DumpValues::DumpValues(const ReadOnlyTable& t) {
  if (!t.columns().empty()) columns_ = RowColumns{t.columns(), t.key_column(), t.encoding()};
}

void DumpValues::append(std::string& line, std::span<const std::byte> key,
                        std::span<const std::byte> value) const {
  // A row as the map it stands for, when JSON holds the map exactly and build turns it back
  // into the same row; else the row itself, which build stores as it is.
  const std::string_view row = as_text(value);
  json_.clear();
  if (columns_ && row_to_map(row, *columns_, key, &map_) &&
      map_to_row(map_, *columns_, key, &again_, &err_) && again_ == row &&
      msgpack_to_exact_json(map_, &json_)) {
    line += "{\"msgpack\":";
    line += json_;
    line += '}';
  } else {
    append_json_value(line, row);
  }
}

void run_dump(const std::string& path, const std::vector<std::string>& names, std::FILE* out) {
  // A dataset dumps as the one file its shards make: its tables' shape (and the page size and
  // filters) from its first shard, its rows and index entries across the shards.
  std::optional<ShardedDatabase> dataset;
  std::optional<ReadOnlyDatabase> file;
  if (is_dataset(path))
    dataset.emplace(open_dataset(path));
  else
    file.emplace(open_database(path));
  const ReadOnlyDatabase& db = dataset ? dataset->shard(0) : *file;
  const FileInfo layout = read_layout(dataset ? dataset->shard_path(0).string() : path);
  std::vector<ReadOnlyTable> tables;
  if (names.empty()) {
    tables = db.tables();
  } else {
    for (size_t i = 0; i < names.size(); ++i)  // a table named twice is dumped once
      if (std::find(names.begin(), names.begin() + static_cast<std::ptrdiff_t>(i), names[i]) ==
          names.begin() + static_cast<std::ptrdiff_t>(i))
        tables.push_back(check(db.table(names[i])));
  }
  std::vector<ShardedTable> sharded;
  if (dataset)
    for (const auto& t : tables)
      sharded.push_back(check(dataset->table(t.name())));

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
  for (size_t k = 0; k < tables.size(); ++k) {
    const ReadOnlyTable& t = tables[k];
    const ShardedTable* across = dataset ? &sharded[k] : nullptr;
    uint64_t row_count = 0;
    std::string prefix = "{\"table\":";
    append_json_string(prefix, t.name());
    const DumpValues values(t);
    for_each_row(t, across, [&](std::span<const std::byte> key, std::span<const std::byte> value) {
      line = prefix;
      line += ",\"key\":";
      append_json_key(line, t.encoding(), key);
      line += ",\"value\":";
      values.append(line, key, value);
      line += "}\n";
      write_line(out, line);
      ++row_count;
    });
    if (k > 0) rows += ',', entries += ',';
    append_json_string(rows, t.name());
    rows += fmt::format(":{}", row_count);
    append_json_string(entries, t.name());
    entries += ":{";
    bool first_entry = true;
    for (const auto& ix : t.indexes()) {
      uint64_t entry_count = 0;
      std::string ix_prefix = prefix + ",\"index\":";
      append_json_string(ix_prefix, ix.name());
      for_each_entry(ix, across,
                     [&](std::span<const std::byte> key, std::span<const std::byte> index_key) {
                       line = ix_prefix;
                       line += ",\"key\":";
                       append_json_key(line, t.encoding(), key);
                       line += ",\"index_key\":";
                       append_json_key(line, ix.encoding(), index_key);
                       line += "}\n";
                       write_line(out, line);
                       ++entry_count;
                     });
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
