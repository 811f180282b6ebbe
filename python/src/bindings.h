// The pieces of the drydb._drydb extension and what they share: the open database as Python
// objects hold it, and the bind_* functions module.cpp calls.
#pragma once

#include <pybind11/pybind11.h>

#include <atomic>
#include <memory>
#include <optional>
#include <string>

#include "drydb/drydb.h"

namespace drydb::python {

namespace py = pybind11;

// What every Python object made from an open database or dataset holds of it: shared, so that
// the files stay open and mapped until the last of them is gone, whatever order Python frees
// them in. close() only marks it closed: new calls raise InvalidStateError, and views already
// handed out stay valid.
struct Handle {
  virtual ~Handle() = default;
  std::string path;  // the file's or dataset's path, or "<bytes>"
  std::atomic<bool> closed{false};

  // Raises InvalidStateError once closed.
  void check_open() const;
};
using HandleRef = std::shared_ptr<Handle>;

// An open database (Database, Table, Index, Range, Cursor and value views hold it).
struct DbHandle : Handle {
  // Destroyed with the GIL held: `owner` is a Python object.
  ~DbHandle() override;

  py::object owner;                    // open_bytes: the bytes the database reads in place
  std::optional<ReadOnlyDatabase> db;  // set once opened
};
using DbRef = std::shared_ptr<DbHandle>;

// Open options from the Python arguments: storage "pread", "mmap" or "memory"
// (else InvalidArgumentError) and the page cache's size.
OpenOptions open_options(const std::string& storage, size_t cache_bytes);

// A drydb.Table of `h`'s table `t`; decode is None or "msgpack" (else InvalidArgumentError).
py::object make_table(const DbRef& h, const ReadOnlyTable& t, std::optional<std::string> decode);

void bind_errors(py::module_& m);
void bind_dataset(py::module_& m);
void bind_diff(py::module_& m);
// _drydb.shard_numbers and encode_keys: a key column routed and encoded in C++ (partition.cpp).
void bind_partition(py::module_& m);
// _drydb._read_json_lines: a JSON Lines file as columns, for drydb.read_json_lines
// (json_lines.cpp; built when simdjson is found: DRYDB_PYTHON_JSON_LINES).
void bind_json_lines(py::module_& m);
void bind_builder(py::module_& m);
void bind_database(py::module_& m);
void bind_table(py::module_& m);

}  // namespace drydb::python
