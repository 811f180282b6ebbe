// drydb.Builder and drydb.TableBuilder: DatabaseBuilder and TableBuilder for Python.
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "bindings.h"
#include "columns.h"
#include "drydb/builder.h"
#include "drydb/page_filter.h"
#include "errors.h"
#include "keys.h"

namespace drydb::python {

namespace {

// The zstd levels the builder takes, as the drydb tool's --zstd-level: negative levels go much
// lower, but gain nothing for pages past -7.
constexpr int kMinZstdLevel = -7, kMaxZstdLevel = 22;

// A builder and the Python objects its index functions are: the DatabaseBuilder calls them
// through borrowed pointers, so it never touches a reference count itself (it may be destroyed
// without the GIL); the objects live, and die with the GIL held, here.
struct BuilderHandle {
  ~BuilderHandle() {
    py::gil_scoped_acquire gil;
    functions.clear();
    raised.reset();
  }

  DatabaseBuilder builder;
  std::vector<py::object> functions;
  // The first exception an index function raised: the build fails with it.
  std::optional<py::error_already_set> raised;
  // Set, with the GIL held, while a build runs without it: every other call on the builder,
  // from any thread, is refused meanwhile (DatabaseBuilder is single-threaded).
  bool building = false;

  // Raises InvalidStateError while a build runs.
  void check_idle() const {
    if (building) raise_error(errc::invalid_state, "the builder is building (in another thread)");
  }

  // Runs `work` (a call of the builder's) without the GIL, the builder marked busy.
  template <class F>
  auto run_busy(F&& work) {
    check_idle();
    building = true;
    struct Done {
      BuilderHandle* h;
      ~Done() { h->building = false; }
    } done{this};
    py::gil_scoped_release unlocked;
    return work();
  }

  // Runs `build` (a call of DatabaseBuilder's) as run_busy does; then lets its index functions
  // go: the builder never calls them again.
  template <class F>
  auto run_build(F&& build) {
    struct Done {
      BuilderHandle* h;
      ~Done() { h->functions.clear(); }
    } done{this};
    return run_busy(std::forward<F>(build));
  }
};
using BuilderRef = std::shared_ptr<BuilderHandle>;

// The bytes of a value as the builder takes it: bytes or str (UTF-8) read in place, any other
// buffer through its buffer view for the call.
template <class F>
void with_value_bytes(py::handle obj, F&& f) {
  PyObject* o = obj.ptr();
  if (PyBytes_Check(o)) {
    f(std::as_bytes(std::span(PyBytes_AS_STRING(o), static_cast<size_t>(PyBytes_GET_SIZE(o)))));
    return;
  }
  if (PyUnicode_Check(o)) {
    Py_ssize_t n = 0;
    const char* s = PyUnicode_AsUTF8AndSize(o, &n);
    if (s == nullptr) throw py::error_already_set();
    f(std::as_bytes(std::span(s, static_cast<size_t>(n))));
    return;
  }
  if (PyObject_CheckBuffer(o)) {
    Py_buffer view;
    if (PyObject_GetBuffer(o, &view, PyBUF_SIMPLE) != 0) throw py::error_already_set();
    struct Release {
      Py_buffer* v;
      ~Release() { PyBuffer_Release(v); }
    } release{&view};
    f(std::as_bytes(std::span(static_cast<const char*>(view.buf), static_cast<size_t>(view.len))));
    return;
  }
  throw py::type_error(std::string("a value is bytes, a bytes-like object or str, not ") +
                       Py_TYPE(o)->tp_name);
}

// A table of a builder: the TableBuilder reference stays valid for the builder's life, which
// this object shares.
class PyTableBuilder {
 public:
  PyTableBuilder(BuilderRef b, TableBuilder* t) : b_(std::move(b)), t_(t) {}

  void append(py::handle key, py::handle value) {
    b_->check_idle();
    const PyKey k(key, t_->encoding());
    with_value_bytes(value, [&](std::span<const std::byte> v) { t_->append(k.key(), v); });
    check(t_->status());
  }

  // Rows from any iterable of (key, value) pairs, one C++ loop: no Python call per row beyond
  // the iterator's own.
  uint64_t append_many(py::handle rows) {
    py::iterator it = py::iter(rows);
    uint64_t n = 0;
    const KeyEncoding enc = t_->encoding();
    while (PyObject* raw = PyIter_Next(it.ptr())) {
      const py::object item = py::reinterpret_steal<py::object>(raw);
      b_->check_idle();  // the iterator's own code may have let another thread start a build
      PyObject* key;
      PyObject* value;
      if (PyTuple_Check(raw) && PyTuple_GET_SIZE(raw) == 2) {
        key = PyTuple_GET_ITEM(raw, 0);
        value = PyTuple_GET_ITEM(raw, 1);
      } else if (PyList_Check(raw) && PyList_GET_SIZE(raw) == 2) {
        key = PyList_GET_ITEM(raw, 0);
        value = PyList_GET_ITEM(raw, 1);
      } else {
        throw py::type_error("append_many takes (key, value) pairs; row " + std::to_string(n) +
                             " is a " + Py_TYPE(raw)->tp_name);
      }
      const PyKey k(key, enc);
      with_value_bytes(value, [&](std::span<const std::byte> v) { t_->append(k.key(), v); });
      if (!t_->status()) [[unlikely]]
        raise_error(t_->status().error());
      ++n;
    }
    if (PyErr_Occurred()) throw py::error_already_set();
    return n;
  }

  // append_columns' work (drydb/_columns.py makes its arguments): rows keyed by `keys`, a
  // column named `key_name` for messages, or by the column `key_name` of `columns` when `keys`
  // is None; fields from `columns`, a list of (name, column) pairs or an Arrow struct array or
  // stream. A table with neither a column list nor rows takes the columns' names as its list,
  // the key's column (when it is one of them) as its key column.
  uint64_t append_columns(py::handle keys, const std::string& key_name, py::handle columns) {
    b_->check_idle();
    PythonColumns in;
    if (py::isinstance<py::list>(columns)) {
      for (py::handle item : columns.cast<py::list>()) {
        const auto pair = item.cast<py::tuple>();
        in.add(pair[1], pair[0].cast<std::string>());
      }
    } else {
      in.add_struct(columns);
    }
    std::vector<ColumnView> fields;
    std::vector<std::string> names;
    std::optional<uint32_t> key_position;
    for (const ColumnView& v : in.views()) {
      if (v.name == key_name) key_position = static_cast<uint32_t>(fields.size());
      names.emplace_back(v.name);
      fields.push_back(v);
    }
    ColumnView key;
    if (keys.is_none()) {
      if (!key_position)
        raise_error(errc::invalid_argument, "no key column '" + key_name + "' among the columns");
      key = fields[*key_position];
    } else {
      in.add(keys, key_name);
      key = in.views().back();
      key_position.reset();
    }
    if (t_->columns().empty() && t_->rows_appended() == 0) declare_columns(names, key_position);
    check(b_->run_busy([&] { return t_->append_columns(key, fields); }));
    return key.length;
  }

  // append_values' work: rows keyed by `keys` (named `key_name` for messages), valued by
  // `values`.
  uint64_t append_values(py::handle keys, const std::string& key_name, py::handle values) {
    b_->check_idle();
    PythonColumns in;
    in.add(keys, key_name);
    in.add(values, "values");
    const ColumnView key = in.views()[0], value = in.views()[1];
    check(b_->run_busy([&] { return t_->append_values(key, value); }));
    return key.length;
  }

  // set_columns, refusing a bad list before the builder records it (its errors are sticky).
  void declare_columns(const std::vector<std::string>& names, std::optional<uint32_t> key_column) {
    b_->check_idle();
    std::set<std::string_view> seen;
    for (const std::string& n : names) {
      if (n.empty() || n.size() > 255)
        raise_error(errc::invalid_argument, "a column name is 1 to 255 bytes, not '" + n + "'");
      if (!seen.insert(n).second)
        raise_error(errc::duplicate_name, "column '" + n + "' is named twice");
    }
    if (names.empty()) raise_error(errc::invalid_argument, "a column list names a column at least");
    if (!t_->columns().empty() || t_->rows_appended() != 0)
      raise_error(errc::invalid_state, "table '" + std::string(t_->name()) +
                                           "': columns are declared once, before its first row");
    t_->set_columns(names, key_column);
    check(t_->status());
  }

  void set_columns(const std::vector<std::string>& names, py::object key_column) {
    std::optional<uint32_t> position;
    if (py::isinstance<py::str>(key_column)) {
      const auto name = key_column.cast<std::string>();
      const auto at = std::find(names.begin(), names.end(), name);
      if (at == names.end())
        raise_error(errc::invalid_argument, "key_column '" + name + "' is not one of the columns");
      position = static_cast<uint32_t>(at - names.begin());
    } else if (!key_column.is_none()) {
      throw py::type_error("key_column is a column's name or None");
    }
    declare_columns(names, position);
  }

  py::tuple columns() const {
    py::list names;
    for (const std::string& n : t_->columns())
      names.append(text(n));
    return py::tuple(names);
  }

  void add_index(const std::string& name, bool unique, const std::string& key_encoding,
                 py::object fn) {
    b_->check_idle();
    if (!PyCallable_Check(fn.ptr())) throw py::type_error("add_index: key is not callable");
    const KeyEncoding index_encoding = encoding_by_id(key_encoding);
    const KeyEncoding table_encoding = t_->encoding();
    BuilderHandle* h = b_.get();
    h->functions.push_back(fn);
    PyObject* f = fn.ptr();
    t_->add_secondary_index(
        name, unique, index_encoding,
        [h, f, table_encoding, index_encoding](
            std::span<const std::byte> key,
            std::span<const std::byte> value) -> result<std::optional<IndexKey>> {
          py::gil_scoped_acquire gil;
          try {
            const py::object k = py::reinterpret_borrow<py::object>(f)(
                key_to_python(key, table_encoding), to_bytes(value));
            if (k.is_none()) return std::nullopt;
            const PyKey index_key(k, index_encoding);
            return IndexKey(index_key.key());
          } catch (py::error_already_set& e) {
            std::string what = e.what();
            if (!h->raised) h->raised.emplace(std::move(e));
            return Error(errc::invalid_argument, "the function raised " + what);
          }
        });
    check(t_->status());
  }

  void add_miss_filter(uint32_t bits_per_key) {
    b_->check_idle();
    t_->add_miss_filter(bits_per_key);
    check(t_->status());
  }

  py::str name() const { return text(t_->name()); }
  py::str key_encoding() const { return text(t_->encoding().id()); }
  uint64_t rows() const { return t_->rows_appended(); }

 private:
  BuilderRef b_;
  TableBuilder* t_;
};

class PyBuilder {
 public:
  PyBuilder(uint32_t page_size, size_t memory_budget, std::optional<std::string> temp_dir,
            std::optional<std::string> compression, int zstd_level, size_t zstd_dictionary) {
    BuildOptions o;
    o.page_size = page_size;
    o.memory_budget = memory_budget;
    if (temp_dir) o.temp_dir = *temp_dir;
    if (zstd_level < kMinZstdLevel || zstd_level > kMaxZstdLevel)
      raise_error(errc::invalid_argument, "zstd_level " + std::to_string(zstd_level) +
                                              " is outside " + std::to_string(kMinZstdLevel) +
                                              " .. " + std::to_string(kMaxZstdLevel));
    if (compression) {
      if (*compression == "zstd")
        o.filters.push_back(
            filters::zstd({.level = zstd_level, .dictionary_bytes = zstd_dictionary}));
      else if (*compression == "lz4")
        o.filters.push_back(filters::lz4());
      else
        raise_error(errc::invalid_argument,
                    "compression '" + *compression + "' is not one of 'zstd', 'lz4' or None");
    }
    if (zstd_dictionary != 0 && compression != "zstd")
      raise_error(errc::invalid_argument, "zstd_dictionary needs compression='zstd'");
    if (zstd_dictionary > filters::kMaxZstdDictionaryBytes)
      raise_error(errc::invalid_argument,
                  "zstd_dictionary " + std::to_string(zstd_dictionary) +
                      " is over the maximum of " +
                      std::to_string(filters::kMaxZstdDictionaryBytes) + " bytes (" +
                      std::to_string(filters::kMaxZstdDictionaryBytes >> 20) + " MiB)");
    h_ = std::make_shared<BuilderHandle>();
    h_->builder = DatabaseBuilder(std::move(o));
    check(h_->builder.status());
  }

  PyTableBuilder create_table(const std::string& name, const std::string& key_encoding) {
    h_->check_idle();
    TableBuilder& t = h_->builder.create_table(name, encoding_by_id(key_encoding));
    check(h_->builder.status());
    return PyTableBuilder(h_, &t);
  }

  void build(const std::filesystem::path& path) {
    finish(h_->run_build([&] { return h_->builder.build_to_file(path); }));
  }

  py::bytes build_bytes() {
    result<std::vector<std::byte>> bytes =
        h_->run_build([&] { return h_->builder.build_to_memory(); });
    if (!bytes) finish(bytes.error());
    return to_bytes(*bytes);
  }

 private:
  // Raises what a failed build failed with: an index function's own exception (with the
  // builder's message as a note), else the builder's error.
  void finish(const status& st) {
    if (st) return;
    if (h_->raised) {
      py::error_already_set e = std::move(*h_->raised);
      h_->raised.reset();
      e.restore();
      PyObject *type, *value, *trace;
      PyErr_Fetch(&type, &value, &trace);
      PyErr_NormalizeException(&type, &value, &trace);
      if (value != nullptr && PyObject_HasAttrString(value, "add_note")) {
        py::object v = py::reinterpret_borrow<py::object>(value);
        v.attr("add_note")("drydb: " + st.error().message);
      }
      PyErr_Restore(type, value, trace);
      throw py::error_already_set();
    }
    raise_error(st.error());
  }

  BuilderRef h_;
};

}  // namespace

void bind_builder(py::module_& m) {
  py::class_<PyTableBuilder>(m, "TableBuilder",
                             "A table being built; made by Builder.create_table.")
      .def("append", &PyTableBuilder::append, py::arg("key"), py::arg("value"),
           "Adds a row (copied). Keys in any order; a duplicate key fails the build.")
      .def("append_many", &PyTableBuilder::append_many, py::arg("rows"),
           "Adds every (key, value) pair of an iterable; returns how many.")
      .def("set_columns", &PyTableBuilder::set_columns, py::arg("names"),
           py::arg("key_column") = py::none(),
           "Declares the table's values rows of these columns (MessagePack arrays, the names "
           "stored once); key_column names the column that holds the key. Before any row.")
      .def_property_readonly("columns", &PyTableBuilder::columns,
                             "The column list's names; () without one.")
      .def("_append_columns", &PyTableBuilder::append_columns)
      .def("_append_values", &PyTableBuilder::append_values)
      .def("add_index", &PyTableBuilder::add_index, py::arg("name"), py::kw_only(),
           py::arg("unique") = false, py::arg("key_encoding") = "bytes", py::arg("key"),
           "Declares a secondary index: key(primary_key, value) gives a row's index key, or "
           "None to leave it out. An exception it raises fails the build with that exception.")
      .def("add_miss_filter", &PyTableBuilder::add_miss_filter, py::arg("bits_per_key") = 10,
           "Adds a Bloom filter over the keys that answers most gets of absent keys at once.")
      .def_property_readonly("name", &PyTableBuilder::name)
      .def_property_readonly("key_encoding", &PyTableBuilder::key_encoding)
      .def_property_readonly("rows", &PyTableBuilder::rows, "Rows appended so far.");

  py::class_<PyBuilder>(m, "Builder", "Builds one immutable drydb file.")
      .def(py::init<uint32_t, size_t, std::optional<std::string>, std::optional<std::string>, int,
                    size_t>(),
           py::kw_only(), py::arg("page_size") = 4096, py::arg("memory_budget") = size_t{256} << 20,
           py::arg("temp_dir") = py::none(), py::arg("compression") = py::none(),
           py::arg("zstd_level") = 3, py::arg("zstd_dictionary") = 0)
      .def("create_table", &PyBuilder::create_table, py::arg("name"),
           py::arg("key_encoding") = "bytes")
      .def("build", &PyBuilder::build, py::arg("path"),
           "Writes the file atomically (temp file, fsync, rename). Builds once.")
      .def("build_bytes", &PyBuilder::build_bytes, "The database's bytes. Builds once.");
}

}  // namespace drydb::python
