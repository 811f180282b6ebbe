// PyKey and key_to_python: the table in keys.h.
#include "keys.h"

#include <cstring>

#include "errors.h"

namespace drydb::python {

namespace {

const char* python_type_name(py::handle obj) {
  return Py_TYPE(obj.ptr())->tp_name;
}

[[noreturn]] void wrong_type(py::handle obj, KeyEncoding encoding, const char* wanted) {
  raise_error(errc::wrong_key_type, std::string("a key of encoding '") +
                                        std::string(encoding.id()) + "' is " + wanted + ", not " +
                                        python_type_name(obj));
}

py::object& uuid_class() {
  // Imported once; kept for the life of the process, as the module itself is.
  static py::object* cls = new py::object(py::module_::import("uuid").attr("UUID"));
  return *cls;
}

}  // namespace

Key PyKey::make(py::handle obj, KeyEncoding encoding, std::string* copy) {
  PyObject* o = obj.ptr();
  switch (encoding.kind()) {
    case KeyKind::int64: {
      if (!PyLong_Check(o) || PyBool_Check(o)) wrong_type(obj, encoding, "an int");
      int overflow = 0;
      const long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
      if (overflow != 0)
        raise_error(errc::invalid_argument,
                    "the key " + py::str(obj).cast<std::string>() + " is outside int64");
      if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
      return Key(static_cast<int64_t>(v));
    }
    case KeyKind::uuid: {
      if (!py::isinstance(obj, uuid_class())) wrong_type(obj, encoding, "a uuid.UUID");
      // UUID.bytes of uuid.UUID itself (a subclass may override the property).
      const std::string b = uuid_class().attr("bytes").attr("__get__")(obj).cast<std::string>();
      if (b.size() != 16)
        raise_error(errc::invalid_argument, "a UUID of " + std::to_string(b.size()) + " bytes");
      Uuid u;
      std::memcpy(u.bytes.data(), b.data(), 16);
      return Key(u);
    }
    case KeyKind::ulid: {
      if (!PyUnicode_Check(o)) wrong_type(obj, encoding, "a str (26 Crockford base32 characters)");
      Py_ssize_t n = 0;
      const char* s = PyUnicode_AsUTF8AndSize(o, &n);
      if (s == nullptr) throw py::error_already_set();
      return Key(unwrap(Ulid::parse(std::string_view(s, static_cast<size_t>(n)))));
    }
    case KeyKind::bytes:
      break;
  }
  // Bytes keys: the object's own bytes where Python keeps them fixed (bytes; str's UTF-8 form,
  // cached in the object), a copy of any other buffer (a bytearray may change).
  if (PyBytes_Check(o))
    return Key(
        std::as_bytes(std::span(PyBytes_AS_STRING(o), static_cast<size_t>(PyBytes_GET_SIZE(o)))));
  if (PyUnicode_Check(o)) {
    Py_ssize_t n = 0;
    const char* s = PyUnicode_AsUTF8AndSize(o, &n);
    if (s == nullptr) throw py::error_already_set();
    return Key(std::string_view(s, static_cast<size_t>(n)));
  }
  if (PyObject_CheckBuffer(o)) {
    Py_buffer view;
    if (PyObject_GetBuffer(o, &view, PyBUF_SIMPLE) != 0) throw py::error_already_set();
    copy->assign(static_cast<const char*>(view.buf), static_cast<size_t>(view.len));
    PyBuffer_Release(&view);
    return Key(std::string_view(*copy));
  }
  wrong_type(obj, encoding, "bytes or str");
}

py::object key_to_python(std::span<const std::byte> bytes, KeyEncoding encoding) {
  switch (encoding.kind()) {
    case KeyKind::int64:
      if (bytes.size() == 8) return py::int_(decode_int64_key(bytes.data()));
      break;
    case KeyKind::uuid:
      if (bytes.size() == 16) return uuid_class()(py::arg("bytes") = to_bytes(bytes));
      break;
    case KeyKind::ulid:
      if (bytes.size() == 16) {
        Ulid u;
        std::memcpy(u.bytes.data(), bytes.data(), 16);
        return py::str(u.to_string());
      }
      break;
    case KeyKind::bytes:
      return to_bytes(bytes);
  }
  // A stored key of the wrong width: verify() reports such a file; a query shows the bytes.
  return to_bytes(bytes);
}

py::str text(std::string_view s) {
  PyObject* o =
      PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "backslashreplace");
  if (o == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(o);
}

py::str path_text(const std::string& path) {
  PyObject* o = PyUnicode_DecodeFSDefaultAndSize(path.data(), static_cast<Py_ssize_t>(path.size()));
  if (o == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(o);
}

KeyEncoding encoding_by_id(const std::string& id) {
  return unwrap(KeyEncoding::find(id));
}

}  // namespace drydb::python
