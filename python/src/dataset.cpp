// drydb.open_dataset (a generation of a sharded dataset: ShardedDatabase), drydb.follow_dataset
// (a dataset that follows CURRENT: LiveDataset, whose pins are Datasets) and the dataset
// functions a builder of datasets needs (drydb.dask uses them): encoded keys, partition
// functions, describe_shard, manifests as dicts, and a dataset folder's generations.
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <chrono>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>

#include "bindings.h"
#include "cursor.h"
#include "drydb/dataset.h"
#include "drydb/live_dataset.h"
#include "drydb/sharded.h"
#include "errors.h"
#include "index.h"
#include "keys.h"
#include "rows.h"
#include "table.h"

namespace drydb::python {

namespace {

namespace fs = std::filesystem;

// A generation being read: one opened (open_dataset) or pinned (LiveDataset.pin), which `owner`
// keeps open, or pinned, until the last object reading it is gone.
struct DatasetHandle : Handle {
  const ShardedDatabase* ds = nullptr;
  std::shared_ptr<void> owner;
};
using DatasetRef = std::shared_ptr<DatasetHandle>;

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
      if (s.identity) sd["identity"] = *s.identity;
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
    if (s.contains("identity")) ms.identity = s["identity"].cast<uint64_t>();
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

using PyDatasetIndex = PyIndexOf<ShardedIndex, ShardedIndexRange>;

class PyDatasetTable : public PyTableOf<ShardedTable, ShardedRange, ShardedCursor, PyDatasetIndex> {
 public:
  using PyTableOf::PyTableOf;

  uint32_t shard_of(py::handle key) const {
    h_->check_open();
    const PyKey k(key, q_.encoding());
    return q_.shard_of(k.key());
  }
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
  py::dict manifest() const {
    h_->check_open();
    return manifest_dict(h_->ds->manifest());
  }
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
  auto owned = std::make_shared<ShardedDatabase>(unwrap(std::move(ds)));
  h->ds = owned.get();
  h->owner = std::move(owned);
  return PyDataset(std::move(h));
}

// drydb.follow_dataset: a LiveDataset, and the last error its watcher met.
struct LiveHolder {
  std::mutex mutex;
  std::optional<std::string> watch_error;  // guarded by mutex
  std::optional<LiveDataset> live;         // destroyed first: its watcher writes the above
};

// A generation pinned for a Dataset: its Reader and Pinned, and the LiveDataset they belong to.
struct PinHolder {
  explicit PinHolder(std::shared_ptr<LiveHolder> l)
      : live(std::move(l)), reader(live->live->reader()), pinned(reader.pin()) {}
  // Destroyed in reverse: the pin, its Reader, then (maybe) the LiveDataset.
  std::shared_ptr<LiveHolder> live;
  LiveDataset::Reader reader;
  LiveDataset::Pinned pinned;
};

class PyLiveDataset {
 public:
  explicit PyLiveDataset(std::shared_ptr<LiveHolder> h, std::string path)
      : h_(std::move(h)), path_(std::move(path)) {}

  // The generation served now, pinned until the Dataset and everything taken from it are gone.
  PyDataset pin() const {
    auto holder = std::make_shared<PinHolder>(h_);
    auto d = std::make_shared<DatasetHandle>();
    d->path = path_;
    d->ds = &*holder->pinned;
    d->owner = std::move(holder);
    return PyDataset(std::move(d));
  }
  bool refresh() const {
    result<bool> r = Error();
    {
      py::gil_scoped_release unlocked;
      r = h_->live->refresh();
    }
    return unwrap(std::move(r));
  }
  void watch(double seconds) const {
    if (!(seconds > 0)) throw py::value_error("watch: the interval must be positive");
    LiveHolder* raw = h_.get();  // outlives the watcher, which `live` stops when destroyed
    py::gil_scoped_release unlocked;
    raw->live->watch(
        std::chrono::milliseconds(std::max<int64_t>(1, static_cast<int64_t>(seconds * 1000))),
        [raw](const Error& e) {
          std::lock_guard lock(raw->mutex);
          raw->watch_error = e.message;
        });
  }
  void stop_watching() const {
    py::gil_scoped_release unlocked;
    h_->live->stop_watching();
  }
  std::optional<std::string> watch_error() const {
    std::lock_guard lock(h_->mutex);
    return h_->watch_error;
  }
  uint64_t generation() const { return h_->live->generation(); }
  size_t retired() const { return h_->live->retired(); }
  py::str path() const { return path_text(path_); }

 private:
  std::shared_ptr<LiveHolder> h_;
  std::string path_;
};

PyLiveDataset follow_dataset(const fs::path& path, const std::string& storage, size_t cache_bytes,
                             bool verify_checksums, std::optional<double> watch) {
  ShardedOptions o;
  o.open = open_options(storage, cache_bytes);
  o.verify_checksums = verify_checksums;
  auto h = std::make_shared<LiveHolder>();
  result<LiveDataset> live = Error();
  {
    py::gil_scoped_release unlocked;
    live = LiveDataset::open(path, o);
  }
  h->live.emplace(unwrap(std::move(live)));
  PyLiveDataset out(std::move(h), path.string());
  if (watch) out.watch(*watch);
  return out;
}

}  // namespace

void bind_dataset(py::module_& m) {
  bind_cursor<PyDatasetTable::PyCursorT>(
      m, "DatasetCursor",
      "A position among a range-partitioned dataset table's rows, across its shards (empty ones "
      "included): rank() counts the rows of every shard before. Each move returns whether it is "
      "on a row.");
  bind_range<ShardedRange>(m, "DatasetRange", "_DatasetRangeChunks");
  bind_range<ShardedIndexRange>(m, "DatasetIndexRange", "_DatasetIndexRangeChunks");
  bind_index<PyDatasetIndex>(m, "DatasetIndex",
                             "A secondary index across a dataset's shards: rows as (primary_key, "
                             "value), in index-key order (rows of one index key in primary-key "
                             "order), the shards' entries merged.");

  bind_table_queries<PyDatasetTable>(m, "DatasetTable",
                                     "A table of a sharded dataset: queries routed to its shards "
                                     "or merged across them (drydb.open_dataset). Only a "
                                     "range-partitioned one has a cursor().")
      .def(
          "get",
          [](const PyDatasetTable& t, py::handle key, py::object dflt) {
            return t.get(key, std::move(dflt));
          },
          py::arg("key"), py::arg("default") = py::none())
      .def("__getitem__", &PyDatasetTable::getitem, py::arg("key"))
      .def("__contains__", &PyDatasetTable::contains, py::arg("key"))
      .def("shard_of", &PyDatasetTable::shard_of, py::arg("key"), "The shard that holds key.");

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

  py::class_<PyLiveDataset>(
      m, "LiveDataset",
      "A dataset folder that follows CURRENT (drydb.follow_dataset): pin() gives the generation "
      "served now as a Dataset, which stays readable (pinned) until it and every table, index and "
      "range taken from it are gone; refresh() swaps in the generation CURRENT names (queries on "
      "pinned Datasets finish on theirs); watch(seconds) refreshes on a thread of its own.")
      .def("pin", &PyLiveDataset::pin,
           "The generation served now, as a Dataset pinned until it is gone.")
      .def("refresh", &PyLiveDataset::refresh,
           "Serves the generation CURRENT names if it is another; returns whether it swapped. A "
           "generation that does not open raises, and the served one stays.")
      .def("watch", &PyLiveDataset::watch, py::arg("seconds"),
           "Refreshes every `seconds` on a thread of its own (errors: watch_error).")
      .def("stop_watching", &PyLiveDataset::stop_watching)
      .def_property_readonly("watch_error", &PyLiveDataset::watch_error,
                             "The message of the last refresh the watcher failed, or None.")
      .def_property_readonly("generation", &PyLiveDataset::generation,
                             "The generation the next pin() gives.")
      .def_property_readonly("retired", &PyLiveDataset::retired,
                             "Generations swapped out that a pin may still hold.")
      .def_property_readonly("path", &PyLiveDataset::path);

  m.def("follow_dataset", &follow_dataset, py::arg("path"), py::kw_only(),
        py::arg("storage") = "pread", py::arg("cache_bytes") = size_t{64} << 20,
        py::arg("verify_checksums") = false, py::arg("watch") = py::none(),
        "Opens a dataset folder and follows its CURRENT generation (a LiveDataset); with "
        "`watch`, refreshes every that many seconds.");

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
        Published p = unwrap(publish_generation(dataset, generation, keep));
        py::dict out;
        out["removed"] = py::cast(p.removed);
        out["warnings"] = py::cast(p.warnings);
        return out;
      },
      py::arg("dataset"), py::arg("generation"), py::arg("keep") = 2,
      "Makes the generation live; raises only when it did not become live. Returns {'removed': "
      "the older generations retention removed, 'warnings': what failed after it was live}.");
  m.def(
      "discard_generation",
      [](const fs::path& dataset, uint64_t generation) {
        return unwrap(discard_generation(dataset, generation));
      },
      py::arg("dataset"), py::arg("generation"),
      "Removes an abandoned generation's folder unless a publish may have named it; returns "
      "whether it is gone.");
  m.def(
      "rollback_generation",
      [](const fs::path& dataset) { return unwrap(rollback_generation(dataset)); },
      py::arg("dataset"));
  m.def("generation_folder", &generation_folder, py::arg("generation"));
}

}  // namespace drydb::python
