// drydb.diff: what changed between two builds (drydb::diff, include/drydb/diff.h), as dicts of
// counts; drydb.dask.build_dataset's max_removed_fraction stands on it.
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "bindings.h"
#include "drydb/diff.h"
#include "drydb/sharded.h"
#include "errors.h"

namespace drydb::python {

namespace {

namespace fs = std::filesystem;

// A build to compare: a database file, or a dataset (a folder: its CURRENT generation or a
// gen-N folder; or a manifest, JSON text where a database file starts with its magic).
struct OpenedBuild {
  std::optional<ReadOnlyDatabase> file;
  std::optional<ShardedDatabase> dataset;
  DiffSide side() const { return dataset ? DiffSide(*dataset) : DiffSide(*file); }
};

status open_build(const fs::path& path, const OpenOptions& options, OpenedBuild* out) {
  std::error_code ec;
  bool dataset = fs::is_directory(path, ec);
  if (!dataset) {
    std::ifstream in(path, std::ios::binary);
    char first = 0;
    dataset = in.get(first) && first == '{';
  }
  if (dataset) {
    ShardedOptions so;
    so.open = options;
    auto ds = ShardedDatabase::open(path, so);
    if (!ds) return std::move(ds).error();
    out->dataset.emplace(std::move(*ds));
  } else {
    auto db = ReadOnlyDatabase::open(path, options);
    if (!db) return std::move(db).error();
    out->file.emplace(std::move(*db));
  }
  return {};
}

py::dict table_dict(const TableDiff& t) {
  py::dict d;
  d["name"] = t.name;
  d["in_old"] = t.in_old;
  d["in_new"] = t.in_new;
  d["key_encoding_changed"] = t.key_encoding_changed;
  d["columns_changed"] = t.columns_changed;
  d["old_rows"] = t.old_rows;
  d["new_rows"] = t.new_rows;
  d["added"] = t.added;
  d["removed"] = t.removed;
  d["changed"] = t.changed;
  d["unchanged"] = t.unchanged;
  d["differs"] = t.differs();
  py::list indexes;
  for (const IndexDiff& ix : t.indexes) {
    py::dict id;
    id["name"] = ix.name;
    id["in_old"] = ix.in_old;
    id["in_new"] = ix.in_new;
    id["shape_changed"] = ix.shape_changed;
    id["old_entries"] = ix.old_entries;
    id["new_entries"] = ix.new_entries;
    id["added"] = ix.added;
    id["removed"] = ix.removed;
    id["differs"] = ix.differs();
    indexes.append(id);
  }
  d["indexes"] = indexes;
  return d;
}

py::dict diff_builds(const fs::path& old_path, const fs::path& new_path,
                     std::optional<std::vector<std::string>> tables, bool index_entries,
                     const std::string& storage, size_t cache_bytes) {
  const OpenOptions options = open_options(storage, cache_bytes);
  OpenedBuild o, n;
  DiffOptions d;
  if (tables) d.tables = std::move(*tables);
  d.index_entries = index_entries;
  result<DatabaseDiff> r = Error();
  {
    py::gil_scoped_release unlocked;
    status st = open_build(old_path, options, &o);
    if (st) st = open_build(new_path, options, &n);
    if (!st)
      r = std::move(st).error();
    else
      r = diff(o.side(), n.side(), d);
  }
  const DatabaseDiff got = unwrap(std::move(r));
  py::dict out;
  out["differs"] = got.differs();
  py::list list;
  for (const TableDiff& t : got.tables)
    list.append(table_dict(t));
  out["tables"] = list;
  return out;
}

}  // namespace

void bind_diff(py::module_& m) {
  m.def("diff", &diff_builds, py::arg("old"), py::arg("new"), py::kw_only(),
        py::arg("tables") = py::none(), py::arg("index_entries") = true,
        py::arg("storage") = "pread", py::arg("cache_bytes") = size_t{64} << 20,
        "What changed between two builds (each a database file, a dataset folder, a generation "
        "folder or a manifest), table by table: {'differs': bool, 'tables': [{'name', 'in_old', "
        "'in_new', 'key_encoding_changed', 'columns_changed', 'old_rows', 'new_rows', 'added', "
        "'removed', 'changed', 'unchanged', 'differs', 'indexes': [{'name', 'in_old', 'in_new', "
        "'shape_changed', 'old_entries', 'new_entries', 'added', 'removed', 'differs'}]}]}. "
        "Both tables are merged in key order: memory does not grow with them. `tables` limits "
        "it to those names; index_entries=False compares index definitions only.");
}

}  // namespace drydb::python
