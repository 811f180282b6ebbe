// drydb.open_dataset (a generation of a sharded dataset: ShardedDatabase) and the dataset
// functions a builder of datasets needs (drydb.dask uses them): encoded keys, partition
// functions, describe_shard, manifests as dicts, and a dataset folder's generations.
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <filesystem>
#include <optional>
#include <string>

#include "bindings.h"
#include "drydb/dataset.h"
#include "drydb/sharded.h"
#include "errors.h"
#include "index.h"
#include "keys.h"
#include "rows.h"

namespace drydb::python {

namespace {

namespace fs = std::filesystem;

struct DatasetHandle : Handle {
  std::optional<ShardedDatabase> ds;
};
using DatasetRef = std::shared_ptr<DatasetHandle>;

using PyShardedRange = PyRange<ShardedRange>;
using PyDatasetIndex = PyIndexOf<ShardedIndex, ShardedIndexRange>;

// ---- manifests as dicts -------------------------------------------------------------------------

py::dict manifest_dict(const Manifest& m) {
  py::dict d;
  d["dataset"] = m.dataset;
  d["generation"] = m.generation;
  py::list tables;
  for (const ManifestTable& t : m.tables) {
    py::dict td;
    td["name"] = t.name;
    td["key_encoding"] = t.key_encoding;
    py::list indexes;
    for (const ManifestIndex& ix : t.indexes) {
      py::dict id;
      id["name"] = ix.name;
      id["unique"] = ix.unique;
      id["key_encoding"] = ix.key_encoding;
      indexes.append(id);
    }
    td["indexes"] = indexes;
    py::list splits;
    for (const std::string& s : t.partitioning.splits)
      splits.append(py::bytes(s));
    py::dict part;
    part["function"] = t.partitioning.function;
    part["splits"] = splits;
    td["partitioning"] = part;
    tables.append(td);
  }
  d["tables"] = tables;
  py::list shards;
  for (const ManifestShard& s : m.shards)
    shards.append([&] {
      py::dict sd;
      sd["file"] = s.file;
      sd["bytes"] = s.bytes;
      sd["xxh3"] = s.xxh3;
      py::list st;
      for (const ShardTable& t : s.tables) {
        py::dict x;
        x["rows"] = t.rows;
        x["first"] = py::bytes(t.first);
        x["last"] = py::bytes(t.last);
        st.append(x);
      }
      sd["tables"] = st;
      return sd;
    }());
  d["shards"] = shards;
  return d;
}

Manifest manifest_of(const py::dict& d) {
  Manifest m;
  m.dataset = d["dataset"].cast<std::string>();
  m.generation = d["generation"].cast<uint64_t>();
  for (py::handle th : d["tables"].cast<py::list>()) {
    const py::dict t = th.cast<py::dict>();
    ManifestTable& mt = m.tables.emplace_back();
    mt.name = t["name"].cast<std::string>();
    mt.key_encoding = t["key_encoding"].cast<std::string>();
    if (t.contains("indexes"))
      for (py::handle ih : t["indexes"].cast<py::list>()) {
        const py::dict ix = ih.cast<py::dict>();
        mt.indexes.push_back({ix["name"].cast<std::string>(), ix["unique"].cast<bool>(),
                              ix["key_encoding"].cast<std::string>()});
      }
    const py::dict part = t["partitioning"].cast<py::dict>();
    mt.partitioning.function = part["function"].cast<std::string>();
    for (py::handle s : part["splits"].cast<py::list>())
      mt.partitioning.splits.push_back(s.cast<std::string>());
  }
  for (py::handle sh : d["shards"].cast<py::list>()) {
    const py::dict s = sh.cast<py::dict>();
    ManifestShard& ms = m.shards.emplace_back();
    ms.file = s["file"].cast<std::string>();
    ms.bytes = s["bytes"].cast<uint64_t>();
    ms.xxh3 = s["xxh3"].cast<uint64_t>();
    for (py::handle th : s["tables"].cast<py::list>()) {
      const py::dict t = th.cast<py::dict>();
      ShardTable& st = ms.tables.emplace_back();
      st.rows = t["rows"].cast<uint64_t>();
      if (st.rows != 0) {
        st.first = t["first"].cast<std::string>();
        st.last = t["last"].cast<std::string>();
      }
    }
  }
  return m;
}

// ---- a dataset's tables -------------------------------------------------------------------------

class PyDatasetTable {
 public:
  PyDatasetTable(DatasetRef h, ShardedTable t, DecoderRef decoder)
      : h_(std::move(h)), t_(t), decoder_(std::move(decoder)) {}

  py::object get(py::handle key, py::object dflt) const {
    std::optional<py::object> v = lookup(key);
    return v ? std::move(*v) : dflt;
  }
  py::object getitem(py::handle key) const {
    std::optional<py::object> v = lookup(key);
    if (!v) {
      PyErr_SetObject(PyExc_KeyError, key.ptr());  // as a dict does: the key itself
      throw py::error_already_set();
    }
    return std::move(*v);
  }
  bool contains(py::handle key) const {
    h_->check_open();
    const PyKey k(key, t_.encoding());
    return static_cast<bool>(unwrap(t_.get(k.key())));
  }
  uint64_t size() const {
    h_->check_open();
    return t_.count();
  }
  uint32_t shard_of(py::handle key) const {
    const PyKey k(key, t_.encoding());
    return t_.shard_of(k.key());
  }
  PyShardedRange range(py::object start, py::object end, bool start_exclusive, bool end_exclusive,
                       bool reverse) const {
    h_->check_open();
    const RangeOptions o = range_options(start_exclusive, end_exclusive, reverse);
    return PyShardedRange(
        h_,
        [t = t_, start, end, o] {
          const PyBound s(start, t.encoding()), e(end, t.encoding());
          return unwrap(t.get_range(s.bound(), e.bound(), o));
        },
        reverse, t_.encoding(), decoder_);
  }
  uint64_t count_range(py::handle start, py::handle end, bool start_exclusive,
                       bool end_exclusive) const {
    h_->check_open();
    return count_between(t_, start, end, start_exclusive, end_exclusive);
  }
  PyShardedRange prefix(py::object p, bool reverse) const {
    h_->check_open();
    return PyShardedRange(
        h_,
        [t = t_, p, reverse] {
          std::string copy;
          const auto bytes = prefix_bytes(p, &copy);
          return unwrap(t.prefix(bytes, reverse ? SortOrder::descending : SortOrder::ascending));
        },
        reverse, t_.encoding(), decoder_);
  }
  py::str name() const { return text(t_.name()); }
  py::str key_encoding() const { return text(t_.encoding().id()); }
  PyDatasetIndex index(const std::string& name) const {
    h_->check_open();
    return PyDatasetIndex(h_, unwrap(t_.index(name)), t_.encoding(), decoder_);
  }
  std::vector<PyDatasetIndex> indexes() const {
    h_->check_open();
    std::vector<PyDatasetIndex> out;
    for (const ShardedIndex& ix : t_.indexes())
      out.emplace_back(h_, ix, t_.encoding(), decoder_);
    return out;
  }

 private:
  // The value of `key`, or nothing when absent.
  std::optional<py::object> lookup(py::handle key) const {
    h_->check_open();
    const PyKey k(key, t_.encoding());
    Value v = unwrap(t_.get(k.key()));
    if (!v) return std::nullopt;
    return (*decoder_)(k.key().bytes(), v.bytes());
  }

  DatasetRef h_;
  ShardedTable t_;
  DecoderRef decoder_;
};

class PyDataset {
 public:
  explicit PyDataset(DatasetRef h) : h_(std::move(h)) {}

  PyDatasetTable table(const std::string& name, std::optional<std::string> decode) const {
    h_->check_open();
    const ShardedTable t = unwrap(h_->ds->table(name));
    // Values decode as shard 0's table says (every shard of a dataset has the same tables).
    const ReadOnlyTable first = unwrap(h_->ds->shard(0).table(name));
    return PyDatasetTable(h_, t, std::make_shared<ValueDecoder>(first, decode));
  }
  std::vector<PyDatasetTable> tables() const {
    h_->check_open();
    std::vector<PyDatasetTable> out;
    for (const ShardedTable& t : h_->ds->tables())
      out.push_back(table(std::string(t.name()), std::nullopt));
    return out;
  }
  py::dict manifest() const { return manifest_dict(h_->ds->manifest()); }
  uint64_t generation() const { return h_->ds->generation(); }
  size_t shard_count() const { return h_->ds->shard_count(); }
  void close() { h_->closed.store(true, std::memory_order_relaxed); }
  bool closed() const { return h_->closed.load(std::memory_order_relaxed); }
  py::str path() const { return path_text(h_->path); }

 private:
  DatasetRef h_;
};

PyDataset open_dataset(const fs::path& path, const std::string& storage, size_t cache_bytes,
                       bool verify_checksums) {
  ShardedOptions o;
  o.open = open_options(storage, cache_bytes);
  o.verify_checksums = verify_checksums;
  auto h = std::make_shared<DatasetHandle>();
  h->path = path.string();
  result<ShardedDatabase> ds = Error();
  {
    py::gil_scoped_release unlocked;
    ds = ShardedDatabase::open(path, o);
  }
  h->ds.emplace(unwrap(std::move(ds)));
  return PyDataset(std::move(h));
}

}  // namespace

void bind_dataset(py::module_& m) {
  bind_range<ShardedRange>(m, "DatasetRange", "_DatasetRangeChunks");
  bind_range<ShardedIndexRange>(m, "DatasetIndexRange", "_DatasetIndexRangeChunks");
  bind_index<PyDatasetIndex>(m, "DatasetIndex",
                             "A secondary index across a dataset's shards: rows as (primary_key, "
                             "value), in index-key order (rows of one index key in primary-key "
                             "order), the shards' entries merged.");

  py::class_<PyDatasetTable>(m, "DatasetTable",
                             "A table of a sharded dataset: queries routed to its shards or "
                             "merged across them (drydb.open_dataset).")
      .def("get", &PyDatasetTable::get, py::arg("key"), py::arg("default") = py::none())
      .def("__getitem__", &PyDatasetTable::getitem, py::arg("key"))
      .def("__contains__", &PyDatasetTable::contains, py::arg("key"))
      .def("__len__", &PyDatasetTable::size)
      .def("shard_of", &PyDatasetTable::shard_of, py::arg("key"), "The shard that holds key.")
      .def("range", &PyDatasetTable::range, py::arg("start") = py::none(),
           py::arg("end") = py::none(), py::kw_only(), py::arg("start_exclusive") = false,
           py::arg("end_exclusive") = false, py::arg("reverse") = false)
      .def("count_range", &PyDatasetTable::count_range, py::arg("start") = py::none(),
           py::arg("end") = py::none(), py::kw_only(), py::arg("start_exclusive") = false,
           py::arg("end_exclusive") = false)
      .def("prefix", &PyDatasetTable::prefix, py::arg("prefix"), py::arg("reverse") = false)
      .def("index", &PyDatasetTable::index, py::arg("name"),
           "The secondary index `name`, across the shards.")
      .def("indexes", &PyDatasetTable::indexes)
      .def_property_readonly("name", &PyDatasetTable::name)
      .def_property_readonly("key_encoding", &PyDatasetTable::key_encoding);

  py::class_<PyDataset>(m, "Dataset", "One generation of a sharded dataset (drydb.open_dataset).")
      .def("table", &PyDataset::table, py::arg("name"), py::kw_only(),
           py::arg("decode") = py::none())
      .def("tables", &PyDataset::tables)
      .def("manifest", &PyDataset::manifest, "The generation's manifest, as a dict.")
      .def_property_readonly("generation", &PyDataset::generation)
      .def_property_readonly("shard_count", &PyDataset::shard_count)
      .def_property_readonly("path", &PyDataset::path)
      .def_property_readonly("closed", &PyDataset::closed)
      .def("close", &PyDataset::close)
      .def("__enter__", [](py::object self) { return self; })
      .def("__exit__", [](PyDataset& self, py::args) { self.close(); });

  m.def("open_dataset", &open_dataset, py::arg("path"), py::kw_only(), py::arg("storage") = "pread",
        py::arg("cache_bytes") = size_t{64} << 20, py::arg("verify_checksums") = false,
        "Opens a dataset folder (the generation CURRENT names), a generation folder or a "
        "manifest, checking every shard against the manifest.");

  // What a builder of datasets needs (docs/sharding.md).
  m.def(
      "encode_key",
      [](py::handle key, const std::string& encoding) {
        const PyKey k(key, encoding_by_id(encoding));
        return to_bytes(k.key().bytes());
      },
      py::arg("key"), py::arg("encoding"),
      "The encoded bytes of a key of that encoding, which drydb orders by memcmp.");
  m.def(
      "shard_of",
      [](const std::string& function, const std::vector<std::string>& splits, uint32_t shards,
         const py::bytes& encoded) {
        const Partitioning p{function, splits};
        check(check_partitioning(p, shards));
        return drydb::shard_of(p, shards, std::string_view(encoded));
      },
      py::arg("function"), py::arg("splits"), py::arg("shards"), py::arg("encoded_key"),
      "The shard of an encoded key under a partition function.");
  m.def(
      "describe_shard",
      [](const fs::path& file) {
        result<ManifestShard> s = Error();
        {
          py::gil_scoped_release unlocked;
          s = describe_shard(file);
        }
        Manifest m;
        m.shards.push_back(unwrap(std::move(s)));
        const py::list shards = manifest_dict(m)["shards"];
        return py::object(shards[0]);
      },
      py::arg("file"), "A shard file as a manifest describes it (reads the whole file).");
  m.def(
      "read_manifest",
      [](const fs::path& path) { return manifest_dict(unwrap(read_manifest(path))); },
      py::arg("path"));
  m.def(
      "write_manifest",
      [](const fs::path& folder, const py::dict& manifest) {
        check(write_manifest(folder, manifest_of(manifest)));
      },
      py::arg("folder"), py::arg("manifest"),
      "Writes FOLDER/manifest.json whole (temp file, fsync, rename) after checking every rule.");
  m.def(
      "next_generation", [](const fs::path& dataset) { return unwrap(next_generation(dataset)); },
      py::arg("dataset"));
  m.def(
      "claim_generation", [](const fs::path& dataset) { return unwrap(claim_generation(dataset)); },
      py::arg("dataset"),
      "Creates the next generation's folder (exclusively) and returns its number.");
  m.def(
      "current_generation",
      [](const fs::path& dataset) { return unwrap(current_generation(dataset)); },
      py::arg("dataset"));
  m.def(
      "publish_generation",
      [](const fs::path& dataset, uint64_t generation, uint32_t keep) {
        check(publish_generation(dataset, generation, keep));
      },
      py::arg("dataset"), py::arg("generation"), py::arg("keep") = 2);
  m.def(
      "rollback_generation",
      [](const fs::path& dataset) { return unwrap(rollback_generation(dataset)); },
      py::arg("dataset"));
  m.def("generation_folder", &generation_folder, py::arg("generation"));
}

}  // namespace drydb::python
