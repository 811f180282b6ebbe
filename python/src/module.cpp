// The extension module drydb._drydb; the package drydb (python/drydb/__init__.py) re-exports it.
#include "bindings.h"
#include "rows.h"

PYBIND11_MODULE(_drydb, m) {
  m.doc() = "drydb: build and read immutable key/value files (the C++ library's bindings).";
  drydb::python::bind_errors(m);
  drydb::python::bind_builder(m);
  drydb::python::bind_database(m);
  drydb::python::bind_row_iterator(m);
  drydb::python::bind_table(m);
  drydb::python::bind_dataset(m);
  drydb::python::bind_diff(m);
  drydb::python::bind_partition(m);
#ifdef DRYDB_PYTHON_JSON_LINES
  drydb::python::bind_json_lines(m);
#endif
}
