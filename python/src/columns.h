// Python objects read as drydb::ColumnViews for TableBuilder.append_columns and append_values:
// NumPy arrays (through __array_interface__, without NumPy's C API), (values, mask) pairs,
// Arrow arrays and streams (arrow_import.h) and any one-dimensional buffer. pandas objects
// reach here as NumPy arrays (drydb/_columns.py converts them).
#pragma once

#include <pybind11/pybind11.h>

#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "drydb/columns.h"

namespace drydb::python {

namespace py = pybind11;

class PythonColumns {
 public:
  // Reads `obj` as a column named `name`, with the GIL held. Raises TypeError for an object or
  // dtype no column is made from, InvalidArgumentError (naming the column and the row) for a
  // value of an object array that its column cannot hold (mixed types, an int over int64).
  void add(py::handle obj, std::string name);
  // Reads each child of an Arrow struct array, record batch or stream (a table) as a column
  // named by its field; TypeError for any other object.
  void add_struct(py::handle obj);

  // The columns read so far, in order; valid while this object lives (it keeps every buffer
  // they point into: the objects, their buffer views, what had to be converted). Destroy it
  // with the GIL held.
  const std::vector<ColumnView>& views() const noexcept { return views_; }

 private:
  ColumnView from_array_interface(py::handle obj, const py::dict& interface, std::string_view name);
  ColumnView from_object_array(py::handle obj, const char* base, size_t length, ptrdiff_t stride,
                               std::string_view name);
  ColumnView from_buffer(py::handle obj, std::string_view name);
  void apply_mask(ColumnView& column, py::handle mask);

  std::deque<std::string> names_;  // ColumnView::name's storage (a deque: never moves)
  std::vector<ColumnView> views_;
  std::vector<py::object> objects_;
  std::vector<std::shared_ptr<void>> owners_;
};

}  // namespace drydb::python
