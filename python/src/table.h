// drydb.Table and drydb.DatasetTable: a table's queries for Python, written once over one file's
// table (ReadOnlyTable) or a dataset's across its shards (ShardedTable). table.cpp and
// dataset.cpp bind each with bind_table_queries and add what only theirs has.
#pragma once

#include <span>
#include <string>
#include <utility>
#include <vector>

#include "bindings.h"
#include "cursor.h"
#include "drydb/sharded.h"
#include "errors.h"
#include "keys.h"
#include "queries.h"
#include "rows.h"

namespace drydb::python {

// A value handed out without a copy (copy=False): the bytes stay in their page, which this
// object keeps resident, as it keeps the database open. Exposed as a read-only buffer
// (drydb.Value, table.cpp).
struct PyValue {
  HandleRef db;
  Value value;
};

// A table's cursor: ReadOnlyTable::cursor() cannot fail, ShardedTable::cursor() can (a
// hash-partitioned table has none).
inline Cursor cursor_of(const ReadOnlyTable& t) {
  return t.cursor();
}
inline ShardedCursor cursor_of(const ShardedTable& t) {
  return unwrap(t.cursor());
}

// The queries of a table TableT whose ranges are RangeT, cursors CursorT and indexes PyIndexT (a
// PyIndexOf).
template <class TableT, class RangeT, class CursorT, class PyIndexT>
class PyTableOf : public PyRangeQueries<TableT, RangeT> {
 public:
  using PyCursorT = PyCursorOf<CursorT>;

  PyTableOf(HandleRef h, TableT t, DecoderRef decoder)
      : PyRangeQueries<TableT, RangeT>(std::move(h), t, t.encoding(), std::move(decoder)) {}

  // The value of key, or dflt. copy=false gives a memoryview of the value in place (unless
  // values decode).
  py::object get(py::handle key, py::object dflt, bool copy = true) const {
    this->h_->check_open();
    const PyKey k(key, this->q_.encoding());
    Value v = unwrap(this->q_.get(k.key()));
    if (!v) return dflt;
    return value_object(k.key().bytes(), std::move(v), copy);
  }
  py::object getitem(py::handle key) const {
    this->h_->check_open();
    const PyKey k(key, this->q_.encoding());
    Value v = unwrap(this->q_.get(k.key()));
    if (!v) {
      PyErr_SetObject(PyExc_KeyError, key.ptr());  // as a dict does: the key itself
      throw py::error_already_set();
    }
    return value_object(k.key().bytes(), std::move(v), true);
  }
  bool contains(py::handle key) const {
    this->h_->check_open();
    const PyKey k(key, this->q_.encoding());
    return static_cast<bool>(unwrap(this->q_.get(k.key())));
  }

  PyCursorT cursor() const {
    this->h_->check_open();
    return PyCursorT(this->h_, cursor_of(this->q_), this->q_.encoding(), this->decoder_);
  }
  PyIndexT index(const std::string& name) const {
    this->h_->check_open();
    return PyIndexT(this->h_, unwrap(this->q_.index(name)), this->q_.encoding(), this->decoder_);
  }
  std::vector<PyIndexT> indexes() const {
    this->h_->check_open();
    std::vector<PyIndexT> out;
    for (const auto& ix : this->q_.indexes())
      out.emplace_back(this->h_, ix, this->q_.encoding(), this->decoder_);
    return out;
  }

 protected:
  py::object value_object(std::span<const std::byte> key, Value v, bool copy) const {
    if (this->decoder_->decodes() || copy) return (*this->decoder_)(key, v.bytes());
    py::object holder = py::cast(PyValue{this->h_, std::move(v)});
    return py::memoryview(holder);
  }
};

// Binds PyTableT (a PyTableOf) as the class `name` of `m`: the queries every table has, but for
// get, __getitem__ and __contains__, which each table class binds its own way. Returns the class
// for the caller to add its own.
template <class PyTableT>
py::class_<PyTableT> bind_table_queries(py::module_& m, const char* name, const char* doc) {
  py::class_<PyTableT> c(m, name, doc);
  bind_range_queries(c);
  c.def("cursor", &PyTableT::cursor, "A cursor over the rows, in key order.")
      .def("index", &PyTableT::index, py::arg("name"), "The secondary index `name`.")
      .def("indexes", &PyTableT::indexes);
  return c;
}

}  // namespace drydb::python
