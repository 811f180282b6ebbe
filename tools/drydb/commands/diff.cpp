#include "commands/diff.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <string_view>

#include "commands/dump.h"
#include "commands/session.h"
#include "common.h"
#include "drydb/diff.h"
#include "drydb/index.h"
#include "drydb/sharded.h"
#include "io/json.h"
#include "io/keys.h"
#include "io/render.h"

namespace drydb::cli {

namespace {

// A side of the diff, opened: a database file or a dataset.
struct Opened {
  std::optional<ReadOnlyDatabase> file;
  std::optional<ShardedDatabase> dataset;
  DiffSide side() const { return dataset ? DiffSide(*dataset) : DiffSide(*file); }
};

Opened open_side(const std::string& path) {
  Opened o;
  if (is_dataset(path))
    o.dataset.emplace(open_dataset(path));
  else
    o.file.emplace(open_database(path));
  return o;
}

// The "change" field of a JSON line: DiffChange's values in declaration order.
constexpr std::array<std::string_view, 3> kChangeNames = {"added", "removed", "changed"};
static_assert(static_cast<size_t>(DiffChange::changed) + 1 == kChangeNames.size());

std::string_view change_name(DiffChange c) {
  return kChangeNames.at(static_cast<size_t>(c));
}

std::string json_string(std::string_view s) {
  std::string out;
  append_json_string(out, s);
  return out;
}

std::string json_columns(const ReadOnlyTable& t) {
  std::string out = "[";
  for (size_t i = 0; i < t.columns().size(); ++i) {
    if (i > 0) out += ',';
    append_json_string(out, t.columns()[i]);
  }
  out += ']';
  return out;
}

std::string json_index_definition(const SecondaryIndex& ix) {
  return fmt::format("{{\"unique\":{},\"key_encoding\":{}}}", ix.unique() ? "true" : "false",
                     json_string(ix.encoding().id()));
}

// Writes each difference as a JSON line (keys and rows modes).
class LineWriter final : public DiffVisitor {
 public:
  LineWriter(bool values, std::FILE* out) : values_(values), out_(out) {}

  status row(const DiffRow& r) override {
    const ReadOnlyTable& t = r.change == DiffChange::added ? *r.new_table : *r.old_table;
    line_ = "{\"table\":";
    append_json_string(line_, t.name());
    line_ += fmt::format(",\"change\":\"{}\",\"key\":", change_name(r.change));
    append_json_key(line_, t.encoding(), r.key);
    if (values_) {
      if (r.change == DiffChange::changed) {
        line_ += ",\"old_value\":";
        values_of(*r.old_table, true).append(line_, r.key, r.old_value);
        line_ += ",\"new_value\":";
        values_of(*r.new_table, false).append(line_, r.key, r.new_value);
      } else {
        const bool old_side = r.change == DiffChange::removed;
        line_ += ",\"value\":";
        values_of(t, old_side).append(line_, r.key, old_side ? r.old_value : r.new_value);
      }
    }
    line_ += "}\n";
    write_out(out_, line_);
    return {};
  }

  status index_entry(const DiffIndexEntry& e) override {
    line_ = "{\"table\":";
    append_json_string(line_, e.table->name());
    line_ += ",\"index\":";
    append_json_string(line_, e.index->name());
    line_ += fmt::format(",\"change\":\"{}\",\"key\":", change_name(e.change));
    append_json_key(line_, e.table->encoding(), e.key);
    line_ += ",\"index_key\":";
    append_json_key(line_, e.index->encoding(), e.index_key);
    line_ += "}\n";
    write_out(out_, line_);
    return {};
  }

  // The lines of a table's (and its indexes') definitions that differ.
  void definitions(const TableDiff& td, const ReadOnlyDatabase& old_shape,
                   const ReadOnlyDatabase& new_shape) {
    const std::string table = "{\"table\":" + json_string(td.name);
    if (!td.in_old || !td.in_new) {
      write_out(out_, fmt::format("{},\"change\":\"{}\"}}\n", table,
                                  td.in_old ? "table_removed" : "table_added"));
      return;
    }
    const ReadOnlyTable o = check(old_shape.table(td.name));
    const ReadOnlyTable n = check(new_shape.table(td.name));
    if (td.key_encoding_changed)
      write_out(out_, fmt::format("{},\"change\":\"key_encoding\",\"old\":{},\"new\":{}}}\n", table,
                                  json_string(o.encoding().id()), json_string(n.encoding().id())));
    if (td.columns_changed)
      write_out(out_, fmt::format("{},\"change\":\"columns\",\"old\":{},\"new\":{}}}\n", table,
                                  json_columns(o), json_columns(n)));
    for (const IndexDiff& id : td.indexes) {
      const std::string index = table + ",\"index\":" + json_string(id.name);
      if (!id.in_old || !id.in_new)
        write_out(out_, fmt::format("{},\"change\":\"{}\"}}\n", index,
                                    id.in_old ? "index_removed" : "index_added"));
      else if (id.shape_changed)
        write_out(out_, fmt::format("{},\"change\":\"definition\",\"old\":{},\"new\":{}}}\n", index,
                                    json_index_definition(check(o.index(id.name))),
                                    json_index_definition(check(n.index(id.name)))));
    }
  }

 private:
  // The value writer of a side's table, made at its first row.
  const DumpValues& values_of(const ReadOnlyTable& t, bool old_side) {
    auto& cache = old_side ? old_values_ : new_values_;
    auto it = cache.find(std::string(t.name()));
    if (it == cache.end()) it = cache.emplace(std::string(t.name()), DumpValues(t)).first;
    return it->second;
  }

  bool values_;
  std::FILE* out_;
  std::string line_;
  std::map<std::string, DumpValues> old_values_, new_values_;
};

void write_summary(const DatabaseDiff& d, const ReadOnlyDatabase& old_shape,
                   const ReadOnlyDatabase& new_shape, std::FILE* out) {
  for (const TableDiff& td : d.tables) {
    if (!td.in_old || !td.in_new) {
      write_out(out, fmt::format("{}: only in {} ({} rows)\n", td.name, td.in_old ? "OLD" : "NEW",
                                 td.in_old ? td.old_rows : td.new_rows));
      continue;
    }
    const ReadOnlyTable o = check(old_shape.table(td.name));
    const ReadOnlyTable n = check(new_shape.table(td.name));
    if (td.key_encoding_changed)
      write_out(out, fmt::format("{}: key encoding {} in OLD, {} in NEW\n", td.name,
                                 o.encoding().id(), n.encoding().id()));
    if (td.columns_changed)
      write_out(out, fmt::format("{}: columns {} in OLD, {} in NEW\n", td.name, json_columns(o),
                                 json_columns(n)));
    if (td.added != 0 || td.removed != 0 || td.changed != 0)
      write_out(out, fmt::format("{}: {} added, {} removed, {} changed, {} unchanged\n", td.name,
                                 td.added, td.removed, td.changed, td.unchanged));
    for (const IndexDiff& id : td.indexes) {
      if (!id.in_old || !id.in_new) {
        write_out(out, fmt::format("{}.{}: only in {} ({} entries)\n", td.name, id.name,
                                   id.in_old ? "OLD" : "NEW",
                                   id.in_old ? id.old_entries : id.new_entries));
        continue;
      }
      if (id.shape_changed) {
        const SecondaryIndex oi = check(o.index(id.name));
        const SecondaryIndex ni = check(n.index(id.name));
        if (oi.unique() != ni.unique())
          write_out(out, fmt::format("{}.{}: unique in {}, not in {}\n", td.name, id.name,
                                     oi.unique() ? "OLD" : "NEW", oi.unique() ? "NEW" : "OLD"));
        if (oi.encoding().id() != ni.encoding().id())
          write_out(out, fmt::format("{}.{}: key encoding {} in OLD, {} in NEW\n", td.name, id.name,
                                     oi.encoding().id(), ni.encoding().id()));
      }
      if (id.added != 0 || id.removed != 0)
        write_out(out, fmt::format("{}.{}: {} entries added, {} removed\n", td.name, id.name,
                                   id.added, id.removed));
    }
  }
}

void write_stat(const DatabaseDiff& d, std::FILE* out) {
  auto b = [](bool v) { return v ? "true" : "false"; };
  for (const TableDiff& td : d.tables) {
    write_out(out, fmt::format("{{\"table\":{},\"in_old\":{},\"in_new\":{},\"old_rows\":{},"
                               "\"new_rows\":{},\"added\":{},\"removed\":{},\"changed\":{},"
                               "\"unchanged\":{},\"shape_changed\":{}}}\n",
                               json_string(td.name), b(td.in_old), b(td.in_new), td.old_rows,
                               td.new_rows, td.added, td.removed, td.changed, td.unchanged,
                               b(td.key_encoding_changed || td.columns_changed)));
    for (const IndexDiff& id : td.indexes)
      write_out(out, fmt::format("{{\"table\":{},\"index\":{},\"in_old\":{},\"in_new\":{},"
                                 "\"old_entries\":{},\"new_entries\":{},\"added\":{},"
                                 "\"removed\":{},\"shape_changed\":{}}}\n",
                                 json_string(td.name), json_string(id.name), b(id.in_old),
                                 b(id.in_new), id.old_entries, id.new_entries, id.added, id.removed,
                                 b(id.shape_changed)));
  }
}

}  // namespace

int run_diff(const std::string& old_path, const std::string& new_path, DiffMode mode,
             const std::vector<std::string>& tables, std::FILE* out) {
  const Opened o = open_side(old_path);
  const Opened n = open_side(new_path);
  const DiffSide old_side = o.side(), new_side = n.side();
  DiffOptions options;
  options.tables = tables;
  if (mode == DiffMode::summary || mode == DiffMode::stat) {
    const DatabaseDiff d = check(diff(old_side, new_side, options));
    if (mode == DiffMode::summary)
      write_summary(d, old_side.shape(), new_side.shape(), out);
    else
      write_stat(d, out);
    return d.differs() ? kExitDiffer : kExitOk;
  }
  // A table at a time, so that each table's definition lines follow its rows.
  std::vector<std::string> names = tables;
  if (names.empty()) {
    for (const ReadOnlyTable& t : old_side.shape().tables())
      names.emplace_back(t.name());
    for (const ReadOnlyTable& t : new_side.shape().tables())
      if (!old_side.shape().table(t.name())) names.emplace_back(t.name());
  }
  LineWriter writer(mode == DiffMode::rows, out);
  bool differs = false;
  for (size_t i = 0; i < names.size(); ++i) {
    if (std::find(names.begin(), names.begin() + static_cast<std::ptrdiff_t>(i), names[i]) !=
        names.begin() + static_cast<std::ptrdiff_t>(i))
      continue;  // a table named twice is compared once
    options.tables = {names[i]};
    const DatabaseDiff d = check(diff(old_side, new_side, options, &writer));
    for (const TableDiff& td : d.tables)
      writer.definitions(td, old_side.shape(), new_side.shape());
    differs = differs || d.differs();
  }
  return differs ? kExitDiffer : kExitOk;
}

}  // namespace drydb::cli
