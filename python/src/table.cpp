// drydb.Table, drydb.Index, drydb.Range, drydb.Cursor and drydb.Value: a table's and an index's
// queries for Python.
#include <pybind11/stl.h>

#include <algorithm>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "bindings.h"
#include "cursor.h"
#include "errors.h"
#include "index.h"
#include "keys.h"
#include "rows.h"

namespace drydb::python {

namespace {

// A value handed out without a copy (copy=False): the bytes stay in their page, which this
// object keeps resident, as it keeps the database open. Exposed as a read-only buffer.
struct PyValue {
  DbRef db;
  Value value;
};

// Keys of one batch: the Keys and the copies some of them point into.
class KeyBatch {
 public:
  void add(py::handle obj, KeyEncoding encoding) {
    Key k = PyKey::make(obj, encoding, &scratch_);
    if (!scratch_.empty() &&
        k.bytes().data() == reinterpret_cast<const std::byte*>(scratch_.data())) {
      // A copied buffer: kept where it stays put (a moved short string would not).
      copies_.push_back(std::move(scratch_));
      scratch_.clear();
      k = Key(std::string_view(copies_.back()));
    }
    keys_.push_back(k);
  }
  std::span<const Key> keys() const { return keys_; }
  void clear() {
    keys_.clear();
    copies_.clear();
  }

 private:
  std::vector<Key> keys_;
  std::string scratch_;
  std::deque<std::string> copies_;  // stable addresses
};

using PyTableRange = PyRange<Range>;

using PyCursor = PyCursorOf<Cursor>;

using PyIndex = PyIndexOf<SecondaryIndex, IndexRange>;

class PyTable {
 public:
  PyTable(DbRef db, const ReadOnlyTable& t, const std::optional<std::string>& decode)
      : db_(std::move(db)), t_(t), decoder_(std::make_shared<ValueDecoder>(t, decode)) {}

  py::object get(py::handle key, py::object dflt, bool copy) const {
    db_->check_open();
    const PyKey k(key, t_.encoding());
    Value v = unwrap(t_.get(k.key()));
    if (!v) return dflt;
    return value_object(k.key().bytes(), std::move(v), copy);
  }
  py::object getitem(py::handle key) const {
    db_->check_open();
    const PyKey k(key, t_.encoding());
    Value v = unwrap(t_.get(k.key()));
    if (!v) {
      PyErr_SetObject(PyExc_KeyError, key.ptr());  // as a dict does: the key itself
      throw py::error_already_set();
    }
    return value_object(k.key().bytes(), std::move(v), true);
  }
  bool contains(py::handle key) const {
    db_->check_open();
    const PyKey k(key, t_.encoding());
    return static_cast<bool>(unwrap(t_.get(k.key())));
  }

  // A list of the keys' values (None for an absent key), looked up in batches with the GIL
  // released.
  py::list get_many(py::handle keys, bool copy) const {
    db_->check_open();
    constexpr size_t kBatch = 4096;
    // The keys as a tuple of our own (a tuple given is taken as it is: it cannot change): it
    // holds them while their Keys point into them, also while another thread, or Python code a
    // key's conversion runs, changes the list they came in.
    const py::object seq = py::reinterpret_steal<py::object>(PySequence_Tuple(keys.ptr()));
    if (!seq) throw py::error_already_set();
    const size_t n = static_cast<size_t>(PyTuple_GET_SIZE(seq.ptr()));
    PyObject** items = &PyTuple_GET_ITEM(seq.ptr(), 0);
    py::list out(n);
    KeyBatch batch;
    std::vector<Value> values;
    const KeyEncoding enc = t_.encoding();
    for (size_t at = 0; at < n; at += kBatch) {
      const size_t m = std::min(kBatch, n - at);
      batch.clear();
      for (size_t i = 0; i < m; ++i)
        batch.add(items[at + i], enc);
      values.clear();
      values.resize(m);
      status st;
      {
        py::gil_scoped_release unlocked;
        st = t_.get_many(batch.keys(), values);
      }
      check(st);
      for (size_t i = 0; i < m; ++i) {
        py::object v = values[i] ? value_object(batch.keys()[i].bytes(), std::move(values[i]), copy)
                                 : py::none();
        PyList_SET_ITEM(out.ptr(), static_cast<Py_ssize_t>(at + i), v.release().ptr());
      }
    }
    return out;
  }

  PyTableRange range(py::object start, py::object end, bool start_exclusive, bool end_exclusive,
                     bool reverse) const {
    db_->check_open();
    const RangeOptions o = range_options(start_exclusive, end_exclusive, reverse);
    return wrap(
        [t = t_, start, end, o] {
          const PyBound s(start, t.encoding()), e(end, t.encoding());
          return unwrap(t.get_range(s.bound(), e.bound(), o));
        },
        reverse);
  }
  uint64_t count_range(py::handle start, py::handle end, bool start_exclusive,
                       bool end_exclusive) const {
    db_->check_open();
    return count_between(t_, start, end, start_exclusive, end_exclusive);
  }
  PyTableRange prefix(py::object p, bool reverse) const {
    db_->check_open();
    return wrap(
        [t = t_, p, reverse] {
          std::string copy;
          const auto bytes = prefix_bytes(p, &copy);
          return unwrap(t.prefix(bytes, reverse ? SortOrder::descending : SortOrder::ascending));
        },
        reverse);
  }
  PyCursor cursor() const {
    db_->check_open();
    return PyCursor(db_, t_.cursor(), t_.encoding(), decoder_);
  }
  PyIndex index(const std::string& name) const {
    db_->check_open();
    return PyIndex(db_, unwrap(t_.index(name)), t_.encoding(), decoder_);
  }
  std::vector<PyIndex> indexes() const {
    db_->check_open();
    std::vector<PyIndex> out;
    for (const SecondaryIndex& ix : t_.indexes())
      out.emplace_back(db_, ix, t_.encoding(), decoder_);
    return out;
  }

  uint64_t size() const {
    db_->check_open();
    return t_.count();
  }
  py::str name() const { return text(t_.name()); }
  py::str key_encoding() const { return text(t_.encoding().id()); }
  py::list columns() const {
    db_->check_open();
    py::list out;
    for (const std::string& c : t_.columns())
      out.append(text(c));
    return out;
  }

 private:
  py::object value_object(std::span<const std::byte> key, Value v, bool copy) const {
    if (decoder_->decodes()) return (*decoder_)(key, v.bytes());
    if (copy) return to_bytes(v.bytes());
    py::object holder = py::cast(PyValue{db_, std::move(v)});
    return py::memoryview(holder);
  }
  PyTableRange wrap(PyTableRange::Query q, bool reverse) const {
    return PyTableRange(db_, std::move(q), reverse, t_.encoding(), decoder_);
  }

  DbRef db_;
  ReadOnlyTable t_;
  DecoderRef decoder_;
};

// Table.get, t[key] and `key in t` called the C API's way (vectorcall): pybind11's dispatcher
// costs more than the lookup itself (about 130 ns a call against 40 ns), and these are the
// calls a Python loop makes by the million. Same arguments and errors as the bound methods.
template <class F>
PyObject* translate_errors(F&& f) noexcept {
  try {
    return f().release().ptr();
  } catch (py::error_already_set& e) {
    e.restore();
  } catch (py::builtin_exception& e) {
    e.set_error();
  } catch (const std::bad_alloc&) {
    PyErr_NoMemory();
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
  return nullptr;
}

PyObject* table_get(PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                    PyObject* kwnames) noexcept {
  return translate_errors([&]() -> py::object {
    PyObject* key = nargs > 0 ? args[0] : nullptr;
    PyObject* dflt = nargs > 1 ? args[1] : Py_None;
    bool copy = true;
    if (nargs > 2) throw py::type_error("get() takes at most 2 positional arguments");
    const Py_ssize_t nkw = kwnames != nullptr ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t i = 0; i < nkw; ++i) {
      const std::string_view name = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, i));
      PyObject* v = args[nargs + i];
      if (name == "key" && key == nullptr) {
        key = v;
      } else if (name == "default" && nargs < 2) {
        dflt = v;
      } else if (name == "copy") {
        const int truth = PyObject_IsTrue(v);
        if (truth < 0) throw py::error_already_set();
        copy = truth != 0;
      } else {
        throw py::type_error("get() got an unexpected or repeated argument '" + std::string(name) +
                             "'");
      }
    }
    if (key == nullptr) throw py::type_error("get() missing its argument 'key'");
    return py::cast<const PyTable&>(py::handle(self))
        .get(key, py::reinterpret_borrow<py::object>(dflt), copy);
  });
}

PyObject* table_getitem(PyObject* self, PyObject* const* args, Py_ssize_t nargs) noexcept {
  return translate_errors([&]() -> py::object {
    if (nargs != 1) throw py::type_error("__getitem__ takes one key");
    return py::cast<const PyTable&>(py::handle(self)).getitem(args[0]);
  });
}

PyObject* table_contains(PyObject* self, PyObject* const* args, Py_ssize_t nargs) noexcept {
  return translate_errors([&]() -> py::object {
    if (nargs != 1) throw py::type_error("__contains__ takes one key");
    return py::bool_(py::cast<const PyTable&>(py::handle(self)).contains(args[0]));
  });
}

// Sets `def` as method def->ml_name of the bound class `cls`, replacing pybind11's.
void set_fast_method(py::handle cls, PyMethodDef* def) {
  PyObject* descr = PyDescr_NewMethod(reinterpret_cast<PyTypeObject*>(cls.ptr()), def);
  if (descr == nullptr || PyObject_SetAttrString(cls.ptr(), def->ml_name, descr) != 0) {
    Py_XDECREF(descr);
    throw py::error_already_set();
  }
  Py_DECREF(descr);
}

}  // namespace

py::object make_table(const DbRef& h, const ReadOnlyTable& t, std::optional<std::string> decode) {
  return py::cast(PyTable(h, t, decode));
}

void bind_table(py::module_& m) {
  py::class_<PyValue>(m, "Value", py::buffer_protocol(),
                      "A value read in place (get(..., copy=False)); seen through a memoryview. "
                      "Keeps its page and database alive.")
      .def_buffer([](PyValue& v) {
        return py::buffer_info(const_cast<std::byte*>(v.value.bytes().data()), 1, "B", 1,
                               {static_cast<py::ssize_t>(v.value.size())}, {1}, /*readonly=*/true);
      });

  bind_range<Range>(m, "Range", "_RangeChunks");
  bind_range<IndexRange>(m, "IndexRange", "_IndexRangeChunks");

  bind_cursor<PyCursor>(m, "Cursor",
                        "A position among a table's rows. Each move returns whether it is on a "
                        "row.");

  bind_index<PyIndex>(m, "Index",
                      "A secondary index: rows as (primary_key, value), in index-key order "
                      "(rows of one index key in primary-key order).");

  py::class_<PyTable> table(m, "Table", "A table of an open database (Database.table).");
  table
      // get, __getitem__ and __contains__: set_fast_method below.
      .def("__len__", &PyTable::size)
      .def("get_many", &PyTable::get_many, py::arg("keys"), py::kw_only(), py::arg("copy") = true,
           "The values of many keys at once (None for an absent key), looked up in batches "
           "without the GIL.")
      .def("range", &PyTable::range, py::arg("start") = py::none(), py::arg("end") = py::none(),
           py::kw_only(), py::arg("start_exclusive") = false, py::arg("end_exclusive") = false,
           py::arg("reverse") = false,
           "The rows from start to end (None: open), inclusive unless told otherwise.")
      .def("count_range", &PyTable::count_range, py::arg("start") = py::none(),
           py::arg("end") = py::none(), py::kw_only(), py::arg("start_exclusive") = false,
           py::arg("end_exclusive") = false, "How many rows range() would give, in O(log n).")
      .def("prefix", &PyTable::prefix, py::arg("prefix"), py::arg("reverse") = false,
           "The rows whose encoded key starts with prefix (bytes or str).")
      .def("cursor", &PyTable::cursor)
      .def("index", &PyTable::index, py::arg("name"))
      .def("indexes", &PyTable::indexes)
      .def_property_readonly("name", &PyTable::name)
      .def_property_readonly("key_encoding", &PyTable::key_encoding)
      .def_property_readonly("columns", &PyTable::columns)
      .def("__repr__",
           [](const PyTable& t) { return py::str("<drydb.Table {}>").format(t.name()); });

  static PyMethodDef get_def{
      "get", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(table_get)),
      METH_FASTCALL | METH_KEYWORDS,
      "get(key, default=None, *, copy=True)\n\nThe value of key, or default. copy=False gives a "
      "memoryview of the value in place."};
  static PyMethodDef getitem_def{
      "__getitem__", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(table_getitem)),
      METH_FASTCALL, "The value of key; KeyError when absent."};
  static PyMethodDef contains_def{
      "__contains__", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(table_contains)),
      METH_FASTCALL, "Whether the table has key."};
  set_fast_method(table, &get_def);
  set_fast_method(table, &getitem_def);
  set_fast_method(table, &contains_def);
}

}  // namespace drydb::python
