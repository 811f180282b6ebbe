// drydb._RowIterator: the iterator of a range's rows. A C type of its own, not a pybind11 class:
// its __next__ is a slot that hands out the next row of a buffered chunk (no call dispatch per
// row, as for a list), and asks next_chunk() for more when the chunk is used up.
#include "rows.h"

namespace drydb::python {

namespace {

struct RowIterator {
  PyObject_HEAD
  PyObject* next_chunk;  // the Chunker's bound next_chunk
  PyObject* buffer;      // the rows of the chunks read and not yet handed out, from `pos` on
  Py_ssize_t pos;
  bool done;             // next_chunk() gave an empty chunk
};

PyTypeObject* g_type = nullptr;

void row_iterator_dealloc(PyObject* self) {
  auto* it = reinterpret_cast<RowIterator*>(self);
  Py_XDECREF(it->next_chunk);
  Py_XDECREF(it->buffer);
  PyTypeObject* type = Py_TYPE(self);
  type->tp_free(self);
  Py_DECREF(type);  // a heap type's instances hold a reference to it
}

PyObject* row_iterator_next(PyObject* self) {
  auto* it = reinterpret_cast<RowIterator*>(self);
  for (;;) {
    if (it->buffer != nullptr && it->pos < PyList_GET_SIZE(it->buffer)) {
      PyObject* row = PyList_GET_ITEM(it->buffer, it->pos++);
      Py_INCREF(row);
      return row;
    }
    if (it->done) return nullptr;  // the end: StopIteration
    // Reads the chunk without the GIL; another thread stepping this iterator meanwhile waits
    // for the Chunker (or reads the chunk after it), so each row is handed out once.
    PyObject* chunk = PyObject_CallNoArgs(it->next_chunk);
    if (chunk == nullptr) return nullptr;
    if (!PyList_Check(chunk)) {
      Py_DECREF(chunk);
      PyErr_SetString(PyExc_TypeError, "next_chunk did not return a list");
      return nullptr;
    }
    if (PyList_GET_SIZE(chunk) == 0) it->done = true;
    if (it->buffer != nullptr && it->pos < PyList_GET_SIZE(it->buffer)) {
      // Rows another thread's chunk left: they come first.
      PyObject* rest = PyList_GetSlice(it->buffer, it->pos, PyList_GET_SIZE(it->buffer));
      if (rest == nullptr ||
          PyList_SetSlice(rest, PY_SSIZE_T_MAX, PY_SSIZE_T_MAX, chunk) != 0) {  // appends
        Py_XDECREF(rest);
        Py_DECREF(chunk);
        return nullptr;
      }
      Py_DECREF(chunk);
      chunk = rest;
    }
    Py_XSETREF(it->buffer, chunk);
    it->pos = 0;
  }
}

PyType_Slot g_slots[] = {
    {Py_tp_dealloc, reinterpret_cast<void*>(row_iterator_dealloc)},
    {Py_tp_iter, reinterpret_cast<void*>(PyObject_SelfIter)},
    {Py_tp_iternext, reinterpret_cast<void*>(row_iterator_next)},
    {Py_tp_doc, const_cast<char*>("The rows of a range, read in chunks.")},
    {0, nullptr},
};
PyType_Spec g_spec = {"drydb._RowIterator", sizeof(RowIterator), 0, Py_TPFLAGS_DEFAULT, g_slots};

}  // namespace

void bind_row_iterator(py::module_& m) {
  PyObject* type = PyType_FromSpec(&g_spec);
  if (type == nullptr) throw py::error_already_set();
  g_type = reinterpret_cast<PyTypeObject*>(type);
  m.attr("_RowIterator") = py::reinterpret_steal<py::object>(type);
}

py::object make_row_iterator(py::object next_chunk) {
  PyObject* self = PyType_GenericAlloc(g_type, 0);
  if (self == nullptr) throw py::error_already_set();
  auto* it = reinterpret_cast<RowIterator*>(self);
  it->next_chunk = next_chunk.release().ptr();
  it->buffer = nullptr;
  it->pos = 0;
  it->done = false;
  return py::reinterpret_steal<py::object>(self);
}

}  // namespace drydb::python
