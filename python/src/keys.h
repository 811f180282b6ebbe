// Keys between Python and drydb: a Python object as a key of a table's (or index's) encoding, and
// an encoded key back as the Python type of that encoding.
//
//   encoding   Python key in                          Python key out
//   bytes      bytes, bytearray, memoryview, str      bytes
//              (str as UTF-8)
//   int64      int (not bool)                         int
//   uuid_v7    uuid.UUID                              uuid.UUID
//   ulid       str (26 Crockford base32 characters)   str
//   others     bytes-like, as for bytes               bytes
#pragma once

#include <pybind11/pybind11.h>

#include <span>
#include <string>

#include "drydb/key.h"
#include "drydb/key_encoding.h"

namespace drydb::python {

namespace py = pybind11;

// A Python object as a key of `encoding`: raises WrongKeyTypeError for an object of another type
// and InvalidArgumentError for an int outside int64 or a malformed ULID. Holds what the key's
// bytes point into (a copy of a buffer that is not bytes; the object itself otherwise), so the
// object must outlive it.
class PyKey {
 public:
  PyKey(py::handle obj, KeyEncoding encoding) : key_(make(obj, encoding, &copy_)) {}

  // The key of `obj`; where its bytes must be copied (a buffer that is not bytes), into *copy,
  // which must then stay where it is and unchanged while the key is used.
  static Key make(py::handle obj, KeyEncoding encoding, std::string* copy);
  PyKey(const PyKey&) = delete;
  PyKey& operator=(const PyKey&) = delete;

  const Key& key() const noexcept { return key_; }

 private:
  std::string copy_;
  Key key_{std::string_view()};
};

// The encoded key `bytes` as the Python object of `encoding`.
py::object key_to_python(std::span<const std::byte> bytes, KeyEncoding encoding);

// A key encoding by id ("bytes", "int64", "uuid_v7", "ulid", or a registered custom id);
// raises UnknownEncodingError.
KeyEncoding encoding_by_id(const std::string& id);

// Text as a str: UTF-8, with bytes that are not UTF-8 as \xNN escapes (backslashreplace) rather
// than an error. For names and messages, which drydb keeps as bytes.
py::str text(std::string_view s);
// A file path as Python gives them (os.fsdecode).
py::str path_text(const std::string& path);

// Python bytes of a view (a copy).
inline py::bytes to_bytes(std::span<const std::byte> b) {
  return py::bytes(reinterpret_cast<const char*>(b.data()), b.size());
}

}  // namespace drydb::python
