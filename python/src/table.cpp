// drydb.Table, drydb.Index, drydb.Range, drydb.Cursor and drydb.Value: one file's table and what
// its queries give, bound for Python (the queries a dataset's table shares: table.h).
#include <pybind11/stl.h>

#include <algorithm>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bindings.h"
#include "cursor.h"
#include "errors.h"
#include "index.h"
#include "keys.h"
#include "rows.h"
#include "table.h"

namespace drydb::python {

namespace {

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

using PyIndex = PyIndexOf<SecondaryIndex, IndexRange>;

class PyTable : public PyTableOf<ReadOnlyTable, Range, Cursor, PyIndex> {
 public:
  PyTable(DbRef db, const ReadOnlyTable& t, const std::optional<std::string>& decode)
      : PyTableOf(std::move(db), t, std::make_shared<ValueDecoder>(t, decode)) {}

  // A list of the keys' values (None for an absent key), looked up in batches with the GIL
  // released.
  py::list get_many(py::handle keys, bool copy) const {
    h_->check_open();
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
    const KeyEncoding enc = q_.encoding();
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
        st = q_.get_many(batch.keys(), values);
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

  py::list columns() const {
    h_->check_open();
    py::list out;
    for (const std::string& c : q_.columns())
      out.append(text(c));
    return out;
  }
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

  bind_cursor<PyTable::PyCursorT>(
      m, "Cursor",
      "A position among a table's rows. Each move returns whether it is on a "
      "row.");

  bind_index<PyIndex>(m, "Index",
                      "A secondary index: rows as (primary_key, value), in index-key order "
                      "(rows of one index key in primary-key order).");

  py::class_<PyTable> table =
      bind_table_queries<PyTable>(m, "Table", "A table of an open database (Database.table).");
  // get, __getitem__ and __contains__: set_fast_method below.
  table
      .def("get_many", &PyTable::get_many, py::arg("keys"), py::kw_only(), py::arg("copy") = true,
           "The values of many keys at once (None for an absent key), looked up in batches "
           "without the GIL.")
      .def_property_readonly("columns", &PyTable::columns)
      .def("__repr__",
           [](const PyTable& t) { return py::str("<drydb.Table {}>").format(t.name()); });

  static PyMethodDef get_def{
      "get", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(table_get)),
      METH_FASTCALL | METH_KEYWORDS,
      "get(key, default=None, *, copy=True)\n\nThe value of key, or default. copy=False gives a "
      "memoryview of the value in place."};
  // __getitem__ and __contains__ take the key by position only, as their __text_signature__ (the
  // doc up to "--") says; __doc__ is the rest.
  static PyMethodDef getitem_def{
      "__getitem__", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(table_getitem)),
      METH_FASTCALL, "__getitem__($self, key, /)\n--\n\nThe value of key; KeyError when absent."};
  static PyMethodDef contains_def{
      "__contains__", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(table_contains)),
      METH_FASTCALL, "__contains__($self, key, /)\n--\n\nWhether the table has key."};
  set_fast_method(table, &get_def);
  set_fast_method(table, &getitem_def);
  set_fast_method(table, &contains_def);
}

}  // namespace drydb::python
