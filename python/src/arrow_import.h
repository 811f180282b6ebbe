// Arrow arrays and streams read through the Arrow PyCapsule interface
// (__arrow_c_array__, __arrow_c_stream__; the Arrow C data interface's
// ArrowSchema, ArrowArray and ArrowArrayStream), as drydb::ColumnViews over
// the producer's buffers: no pyarrow needed.
#pragma once

#include <pybind11/pybind11.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "drydb/columns.h"

namespace drydb::python {

namespace py = pybind11;

// The columns of one imported Arrow array: a struct array's (a record batch's) children named
// by their fields, or the array itself as one column named by its field (often ""). The views
// point into buffers `owners` keeps alive (the capsules, the arrays a stream gave, and what an
// import had to convert: booleans unpacked to bytes, a stream's chunks joined into one array).
struct ArrowColumns {
  std::vector<std::string> names;  // names[i] is columns[i].name (a copy in owners backs it)
  std::vector<ColumnView> columns;
  std::vector<std::shared_ptr<void>> owners;
  bool is_struct = false;  // the array was a struct array: columns are its children
};

// The object's columns when it has __arrow_c_array__ or __arrow_c_stream__ (a stream's chunks
// joined); std::nullopt when it has neither. Raises TypeError naming the column and its Arrow
// format for a type drydb does not take, ValueError for a malformed array.
std::optional<ArrowColumns> import_arrow(py::handle obj);

}  // namespace drydb::python
