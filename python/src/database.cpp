// drydb.Database, drydb.open and drydb.open_bytes: ReadOnlyDatabase for Python.
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <filesystem>
#include <optional>
#include <string>

#include "bindings.h"
#include "errors.h"
#include "keys.h"

namespace drydb::python {

DbHandle::~DbHandle() {
  // The database first: it reads `owner`'s bytes until it is gone.
  db.reset();
  if (owner) {
    py::gil_scoped_acquire gil;
    owner = py::object();
  }
}

void Handle::check_open() const {
  if (closed.load(std::memory_order_relaxed))
    raise_error(errc::invalid_state, "the database " + path + " is closed");
}

namespace {

class PyDatabase {
 public:
  explicit PyDatabase(DbRef h) : h_(std::move(h)) {}

  py::list tables() const {
    h_->check_open();
    py::list out;
    for (const ReadOnlyTable& t : h_->db->tables())
      out.append(make_table(h_, t, std::nullopt));
    return out;
  }

  py::object table(const std::string& name, std::optional<std::string> decode) const {
    h_->check_open();
    return make_table(h_, unwrap(h_->db->table(name)), std::move(decode));
  }

  py::dict info() const {
    h_->check_open();
    py::dict d;
    d["path"] = path_text(h_->path);
    d["page_size"] = h_->db->page_size();
    py::list tables;
    for (const ReadOnlyTable& t : h_->db->tables()) {
      const TableInfo ti = t.info();
      py::dict td;
      td["name"] = text(ti.name);
      td["key_encoding"] = std::string(ti.encoding.id());
      td["rows"] = ti.rows;
      td["depth"] = ti.depth;
      td["leaf_pages"] = ti.leaf_pages;
      td["internal_pages"] = ti.internal_pages;
      td["overflow_pages"] = ti.overflow_pages;
      td["max_key_length"] = ti.max_key_length;
      td["miss_filter_bits_per_key"] = ti.miss_filter_bits_per_key;
      td["descent_index_bytes"] = ti.descent_index_bytes;
      py::list columns;
      for (const std::string& c : t.columns())
        columns.append(text(c));
      td["columns"] = columns;
      py::list indexes;
      for (const SecondaryIndex& ix : t.indexes()) {
        py::dict id;
        id["name"] = text(ix.name());
        id["unique"] = ix.unique();
        id["key_encoding"] = std::string(ix.encoding().id());
        id["entries"] = ix.count();
        indexes.append(id);
      }
      td["indexes"] = indexes;
      tables.append(td);
    }
    d["tables"] = tables;
    return d;
  }

  void verify() const {
    h_->check_open();
    status st;
    {
      py::gil_scoped_release unlocked;
      st = h_->db->verify();
    }
    check(st);
  }

  void close() { h_->closed.store(true, std::memory_order_relaxed); }
  bool closed() const { return h_->closed.load(std::memory_order_relaxed); }
  py::str path() const { return path_text(h_->path); }
  uint32_t page_size() const {
    h_->check_open();
    return h_->db->page_size();
  }

 private:
  DbRef h_;
};

PyDatabase open_path(const std::filesystem::path& path, const std::string& storage,
                     size_t cache_bytes) {
  const OpenOptions o = open_options(storage, cache_bytes);
  auto h = std::make_shared<DbHandle>();
  h->path = path.string();
  result<ReadOnlyDatabase> db = Error();
  {
    py::gil_scoped_release unlocked;
    db = ReadOnlyDatabase::open(path, o);
  }
  h->db.emplace(unwrap(std::move(db)));
  return PyDatabase(std::move(h));
}

PyDatabase open_bytes(py::object data, size_t cache_bytes) {
  // The database reads the bytes in place: a bytes object cannot change; any other buffer is
  // copied into one first.
  if (!PyBytes_Check(data.ptr())) {
    // PyBytes_FromObject copies any buffer, strided views in their logical order included.
    PyObject* copy = PyBytes_FromObject(data.ptr());
    if (copy == nullptr) throw py::error_already_set();
    data = py::reinterpret_steal<py::object>(copy);
  }
  const OpenOptions o = open_options("mmap", cache_bytes);
  auto h = std::make_shared<DbHandle>();
  h->path = "<bytes>";
  h->owner = data;
  const auto bytes = std::as_bytes(
      std::span(PyBytes_AS_STRING(data.ptr()), static_cast<size_t>(PyBytes_GET_SIZE(data.ptr()))));
  h->db.emplace(unwrap(ReadOnlyDatabase::open_memory(bytes, o)));
  return PyDatabase(std::move(h));
}

}  // namespace

OpenOptions open_options(const std::string& storage, size_t cache_bytes) {
  OpenOptions o;
  if (storage == "pread")
    o.storage = StorageKind::pread;
  else if (storage == "mmap")
    o.storage = StorageKind::mmap;
  else if (storage == "memory")
    o.storage = StorageKind::memory;
  else
    raise_error(errc::invalid_argument,
                "storage '" + storage + "' is not 'pread', 'mmap' or 'memory'");
  o.page_cache_bytes = cache_bytes;
  return o;
}

void bind_database(py::module_& m) {
  py::class_<PyDatabase>(m, "Database",
                         "An open drydb file (drydb.open) or bytes (drydb.open_bytes). Safe to "
                         "query from many threads. A context manager: leaving the block closes "
                         "it.")
      .def("tables", &PyDatabase::tables, "Every table, in file order.")
      .def("table", &PyDatabase::table, py::arg("name"), py::kw_only(),
           py::arg("decode") = py::none(),
           "The table `name` (NotFoundError if none). decode='msgpack' gives its values "
           "decoded from MessagePack (a dict per row for a table with columns).")
      .def("info", &PyDatabase::info, "The file's page size, tables and indexes, as a dict.")
      .def("verify", &PyDatabase::verify,
           "Reads every page and checks every checksum and tree invariant; raises "
           "CorruptionError (or the read's error) at the first fault.")
      .def("close", &PyDatabase::close,
           "Later calls raise InvalidStateError. Values, ranges and cursors already handed out "
           "stay valid: the file stays open until the last of them is gone.")
      .def_property_readonly("closed", &PyDatabase::closed)
      .def_property_readonly("path", &PyDatabase::path)
      .def_property_readonly("page_size", &PyDatabase::page_size)
      .def("__enter__", [](py::object self) { return self; })
      .def("__exit__", [](PyDatabase& self, py::args) { self.close(); })
      .def("__repr__", [](const PyDatabase& self) {
        return py::str("<drydb.Database {}{}>")
            .format(self.path(), self.closed() ? " (closed)" : "");
      });

  m.def("open", &open_path, py::arg("path"), py::kw_only(), py::arg("storage") = "pread",
        py::arg("cache_bytes") = size_t{64} << 20,
        "Opens a drydb file read-only. storage='pread' (the default) reads pages into a cache "
        "of cache_bytes and reports a file changed under it as an error; storage='mmap' maps "
        "the file and reads in place (faster, but a file truncated while mapped kills the "
        "process with SIGBUS); storage='memory' reads the whole file at open into memory "
        "(huge pages where the system allows) and reads it in place, never seeing a later "
        "change of the file, at the cost of memory the size of the file.");
  m.def("open_bytes", &open_bytes, py::arg("data"), py::kw_only(),
        py::arg("cache_bytes") = size_t{64} << 20,
        "Opens a database held in memory (bytes, read in place; another buffer is copied).");
}

}  // namespace drydb::python
