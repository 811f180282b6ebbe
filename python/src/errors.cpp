// drydb.Error and one subclass per drydb::errc. Each subclass also derives from the built-in
// exception a Python user would catch for it (a wrong key type is a TypeError, an unknown table a
// LookupError, a failed read an OSError), so `except TypeError` works as well as
// `except drydb.WrongKeyTypeError`.
#include "errors.h"

#include <array>

#include "bindings.h"
#include "keys.h"

namespace drydb::python {

namespace {

struct ErrorClass {
  errc code;
  const char* name;       // the class name
  const char* code_name;  // the errc's name, the exception's .code
  PyObject* builtin;      // the built-in base beside drydb.Error, or nullptr
  const char* doc;
};

const std::array<ErrorClass, 16>& error_classes() {
  static const std::array<ErrorClass, 16> classes{{
      {errc::invalid_argument, "InvalidArgumentError", "invalid_argument", PyExc_ValueError,
       "A bad option, bound, name or value."},
      {errc::key_too_long, "KeyTooLongError", "key_too_long", PyExc_ValueError,
       "A key longer than the page size allows."},
      {errc::duplicate_key, "DuplicateKeyError", "duplicate_key", PyExc_ValueError,
       "The same key appended twice to a table, or given by two rows to a unique index."},
      {errc::duplicate_name, "DuplicateNameError", "duplicate_name", PyExc_ValueError,
       "Two tables, or two indexes of a table, share a name."},
      {errc::wrong_key_type, "WrongKeyTypeError", "wrong_key_type", PyExc_TypeError,
       "A key of the wrong type for its table or index (a str for an int64 table, say)."},
      {errc::not_found, "NotFoundError", "not_found", PyExc_LookupError,
       "An unknown table or index name (an absent key is never an error)."},
      {errc::io_error, "IoError", "io_error", PyExc_OSError,
       "The operating system refused a read, write, sync or rename."},
      {errc::corruption, "CorruptionError", "corruption", nullptr,
       "The file breaks a rule of the format: checksum, bound, order."},
      {errc::truncated, "TruncatedError", "truncated", nullptr,
       "The file is shorter than its header says."},
      {errc::bad_magic, "BadMagicError", "bad_magic", nullptr, "Not a drydb file."},
      {errc::unsupported_version, "UnsupportedVersionError", "unsupported_version", nullptr,
       "A format version or required feature this reader does not know."},
      {errc::unknown_encoding, "UnknownEncodingError", "unknown_encoding", nullptr,
       "A key encoding that is not registered in this process."},
      {errc::unknown_filter, "UnknownFilterError", "unknown_filter", nullptr,
       "A page filter that is not registered in this process."},
      {errc::value_too_large, "ValueTooLargeError", "value_too_large", PyExc_ValueError,
       "A value of 4 GiB or more."},
      {errc::out_of_memory, "OutOfMemoryError", "out_of_memory", PyExc_MemoryError,
       "An allocation failed."},
      {errc::invalid_state, "InvalidStateError", "invalid_state", PyExc_RuntimeError,
       "A call made at the wrong time: on a closed database, or to a builder after its build."},
  }};
  return classes;
}

PyObject* g_base = nullptr;                // drydb.Error
std::array<PyObject*, 17> g_by_code = {};  // indexed by errc

}  // namespace

void raise_error(errc code, const std::string& message) {
  raise_error(Error(code, message));
}

void raise_error(const Error& e) {
  PyObject* cls = g_base;
  const char* code_name = "";
  if (e.code.category() == error_category()) {
    const auto v = static_cast<size_t>(e.code.value());
    if (v < g_by_code.size() && g_by_code[v] != nullptr) cls = g_by_code[v];
    for (const ErrorClass& c : error_classes())
      if (static_cast<int>(c.code) == e.code.value()) code_name = c.code_name;
  }
  py::object exc = py::reinterpret_borrow<py::object>(cls)(text(e.message));
  exc.attr("code") = *code_name != '\0' ? py::str(code_name) : py::str(e.code.message());
  PyErr_SetObject(cls, exc.ptr());
  throw py::error_already_set();
}

void bind_errors(py::module_& m) {
  g_base = PyErr_NewExceptionWithDoc(
      "drydb.Error",
      "The base of drydb's exceptions. `.code` names the library's error code (errc), for "
      "example 'corruption'; str(e) is the library's message.",
      PyExc_Exception, nullptr);
  if (g_base == nullptr) throw py::error_already_set();
  m.attr("Error") = py::reinterpret_borrow<py::object>(g_base);
  for (const ErrorClass& c : error_classes()) {
    py::tuple bases = c.builtin != nullptr
                          ? py::make_tuple(py::handle(g_base), py::handle(c.builtin))
                          : py::make_tuple(py::handle(g_base));
    const std::string qualified = std::string("drydb.") + c.name;
    PyObject* cls = PyErr_NewExceptionWithDoc(qualified.c_str(), c.doc, bases.ptr(), nullptr);
    if (cls == nullptr) throw py::error_already_set();
    g_by_code[static_cast<size_t>(c.code)] = cls;
    m.attr(c.name) = py::reinterpret_borrow<py::object>(cls);
  }
}

}  // namespace drydb::python
