// drydb.Error and its subclasses, one per drydb::errc, and how C++ errors become them.
#pragma once

#include <pybind11/pybind11.h>

#include <string>
#include <utility>

#include "drydb/result.h"

namespace drydb::python {

// Raises the Python exception of `e`'s code (drydb.CorruptionError for errc::corruption, ...)
// with its message; `.code` holds the errc's name. A code of another category raises
// drydb.Error. Needs the GIL.
[[noreturn]] void raise_error(const Error& e);
// Raises the exception of `code` (an errc) with `message`.
[[noreturn]] void raise_error(errc code, const std::string& message);

inline void check(const status& st) {
  if (!st) raise_error(st.error());
}

template <class T>
T unwrap(result<T>&& r) {
  if (!r) raise_error(r.error());
  return std::move(*r);
}

}  // namespace drydb::python
