#include "columns.h"

#include <cmath>
#include <cstring>
#include <optional>
#include <string_view>

#include "arrow_import.h"
#include "errors.h"

namespace drydb::python {

namespace {

[[noreturn]] void column_type_error(std::string_view name, const std::string& what) {
  throw py::type_error("column '" + std::string(name) + "' " + what);
}

[[noreturn]] void row_error(std::string_view name, size_t row, const std::string& what) {
  raise_error(errc::invalid_argument,
              "column '" + std::string(name) + "', row " + std::to_string(row) + ": " + what);
}

// Buffers a conversion made: the view points into them.
struct Converted {
  std::vector<int64_t> offsets{0};
  std::string data;
  std::vector<int64_t> ints;
  std::vector<double> floats;
  std::vector<uint8_t> bytes;  // booleans, one per value
  std::vector<uint8_t> nulls;
};

// A datetime64 unit as a TimeUnit; days are converted to seconds by the caller.
bool time_unit(std::string_view unit, TimeUnit* out) {
  if (unit == "s")
    *out = TimeUnit::second;
  else if (unit == "ms")
    *out = TimeUnit::millisecond;
  else if (unit == "us")
    *out = TimeUnit::microsecond;
  else if (unit == "ns")
    *out = TimeUnit::nanosecond;
  else
    return false;
  return true;
}

// Appends code point `c` as UTF-8.
void put_utf8(std::string& out, uint32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

// pandas' missing values in an object array: None, NaN, pandas.NA and pandas.NaT (known by
// their types' names, so that this module does not import pandas).
bool is_missing_object(PyObject* o) {
  if (o == Py_None) return true;
  if (PyFloat_Check(o)) return std::isnan(PyFloat_AS_DOUBLE(o));
  const std::string_view type = Py_TYPE(o)->tp_name;
  return type == "NAType" || type == "NaTType";
}

// An int's decimal text for a message, or its size where Python refuses to print it (more
// digits than sys.get_int_max_str_digits() allows: str() raises ValueError).
std::string int_text(PyObject* o) {
  PyObject* s = PyObject_Str(o);
  if (s != nullptr) {
    const char* text = PyUnicode_AsUTF8(s);
    std::string out = text != nullptr ? text : "";
    Py_DECREF(s);
    if (text != nullptr) return out;
  }
  PyErr_Clear();
  PyObject* bits = PyObject_CallMethod(o, "bit_length", nullptr);
  const long long n = bits != nullptr ? PyLong_AsLongLong(bits) : -1;
  Py_XDECREF(bits);
  PyErr_Clear();
  return n < 0 ? std::string("an int") : "an int of " + std::to_string(n) + " bits";
}

// An int of a float column as a double; one too large for a double (PyLong_AsDouble's
// OverflowError) is the row's error, the Python error cleared.
double int_as_double(PyObject* o, std::string_view name, size_t row) {
  const double d = PyLong_AsDouble(o);
  if (d == -1.0 && PyErr_Occurred()) {
    if (!PyErr_ExceptionMatches(PyExc_OverflowError)) throw py::error_already_set();
    PyErr_Clear();
    row_error(name, row, int_text(o) + " is too large for a float64");
  }
  return d;
}

// The fixed-width type of a NumPy kind and item size, or false.
bool numeric_type(char kind, size_t size, ColumnType* out) {
  static constexpr ColumnType kSigned[] = {ColumnType::int8, ColumnType::int16, ColumnType::int32,
                                           ColumnType::int64};
  static constexpr ColumnType kUnsigned[] = {ColumnType::uint8, ColumnType::uint16,
                                             ColumnType::uint32, ColumnType::uint64};
  const int log = size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : size == 8 ? 3 : -1;
  if (log < 0) return false;
  switch (kind) {
    case 'i':
      *out = kSigned[log];
      return true;
    case 'u':
      *out = kUnsigned[log];
      return true;
    case 'b':
      if (size != 1) return false;
      *out = ColumnType::boolean;
      return true;
    case 'f':
      if (size != 4 && size != 8) return false;
      *out = size == 4 ? ColumnType::float32 : ColumnType::float64;
      return true;
    default:
      return false;
  }
}

}  // namespace

void PythonColumns::add(py::handle obj, std::string name) {
  PyObject* o = obj.ptr();
  if (PyTuple_Check(o) && PyTuple_GET_SIZE(o) == 2) {
    // (values, mask): the mask's true values are nulls.
    add(PyTuple_GET_ITEM(o, 0), std::move(name));
    apply_mask(views_.back(), PyTuple_GET_ITEM(o, 1));
    return;
  }
  names_.push_back(std::move(name));
  const std::string_view n = names_.back();
  if (py::hasattr(obj, "__arrow_c_array__") || py::hasattr(obj, "__arrow_c_stream__")) {
    auto imported = std::make_shared<ArrowColumns>(std::move(*import_arrow(obj)));
    if (imported->is_struct)
      column_type_error(n, "is a struct array (a record batch or table): give it as columns=");
    ColumnView v = imported->columns.at(0);
    v.name = n;
    owners_.push_back(imported);
    views_.push_back(v);
    return;
  }
  if (py::hasattr(obj, "__array_interface__")) {
    views_.push_back(from_array_interface(obj, obj.attr("__array_interface__"), n));
    return;
  }
  if (PyObject_CheckBuffer(o)) {
    views_.push_back(from_buffer(obj, n));
    return;
  }
  column_type_error(n, std::string("is a ") + Py_TYPE(o)->tp_name +
                           ": a column is a NumPy array, a pandas Series, an Arrow array or "
                           "stream, or a one-dimensional buffer");
}

void PythonColumns::add_struct(py::handle obj) {
  std::optional<ArrowColumns> imported = import_arrow(obj);
  if (!imported || !imported->is_struct)
    throw py::type_error(std::string("columns is a ") + Py_TYPE(obj.ptr())->tp_name +
                         ": it is a pandas DataFrame, a dict of columns, or an Arrow struct "
                         "array, record batch or stream");
  auto owner = std::make_shared<ArrowColumns>(std::move(*imported));
  owners_.push_back(owner);
  for (size_t i = 0; i < owner->columns.size(); ++i) {
    names_.push_back(owner->names[i]);
    ColumnView v = owner->columns[i];
    v.name = names_.back();
    views_.push_back(v);
  }
}

ColumnView PythonColumns::from_array_interface(py::handle obj, const py::dict& interface,
                                               std::string_view name) {
  const auto shape = interface["shape"].cast<py::tuple>();
  if (shape.size() != 1)
    column_type_error(name, "has " + std::to_string(shape.size()) + " dimensions, not 1");
  const auto length = shape[0].cast<size_t>();
  const auto typestr = interface["typestr"].cast<std::string>();
  if (typestr.size() < 2) column_type_error(name, "has the unknown type '" + typestr + "'");
  const char order = typestr[0], kind = typestr[1];
  // "<i8", "|S5", "<M8[ns]", "|O" (objects: pointers).
  size_t size = sizeof(PyObject*);
  std::string unit;
  if (typestr.size() > 2) {
    const std::string rest = typestr.substr(2);
    const size_t bracket = rest.find('[');
    size = std::stoul(rest.substr(0, bracket));
    if (bracket != std::string::npos) unit = rest.substr(bracket + 1, rest.size() - bracket - 2);
  }
  if (kind == 'U') size *= 4;  // "<U5": five UCS-4 code points
  if (order == '>' && size > 1)
    column_type_error(name, "is big-endian ('" + typestr + "'): convert it to the native order");
  const py::object data = interface["data"];
  if (!py::isinstance<py::tuple>(data))
    column_type_error(name, "exposes no data pointer in its __array_interface__");
  const auto* base = reinterpret_cast<const char*>(data.cast<py::tuple>()[0].cast<uintptr_t>());
  ptrdiff_t stride = static_cast<ptrdiff_t>(size);
  if (interface.contains("strides") && !interface["strides"].is_none())
    stride = interface["strides"].cast<py::tuple>()[0].cast<ptrdiff_t>();
  objects_.push_back(py::reinterpret_borrow<py::object>(obj));

  ColumnType type;
  if (numeric_type(kind, size, &type)) {
    ColumnView v = ColumnView::fixed(name, type, base, length, stride);
    v.stride = stride;  // 0 too: a broadcast array repeats its one value
    v.missing_sentinels = type == ColumnType::float32 || type == ColumnType::float64;  // NaN
    return v;
  }
  switch (kind) {
    case 'M': {
      TimeUnit u;
      if (time_unit(unit, &u)) {
        ColumnView v =
            ColumnView::timestamps(name, reinterpret_cast<const int64_t*>(base), length, u, stride);
        v.stride = stride;
        v.missing_sentinels = true;  // NaT
        return v;
      }
      if (unit != "D")
        column_type_error(name, "is datetime64[" + unit + "]: drydb takes D, s, ms, us and ns");
      auto c = std::make_shared<Converted>();
      c->ints.resize(length);
      for (size_t i = 0; i < length; ++i) {
        int64_t days;
        std::memcpy(&days, base + static_cast<ptrdiff_t>(i) * stride, 8);
        if (days == INT64_MIN) {  // NaT
          c->ints[i] = days;
          continue;
        }
        // A day whose seconds int64 cannot hold (past about 292 billion years) is refused:
        // the product would wrap to another date.
        if (__builtin_mul_overflow(days, int64_t{86400}, &c->ints[i]))
          row_error(name, i,
                    "the datetime64[D] value " + std::to_string(days) +
                        " days is outside what int64 seconds since 1970 hold (" +
                        std::to_string(INT64_MIN / 86400) + " .. " +
                        std::to_string(INT64_MAX / 86400) + " days)");
      }
      owners_.push_back(c);
      ColumnView v = ColumnView::timestamps(name, c->ints.data(), length, TimeUnit::second);
      v.missing_sentinels = true;
      return v;
    }
    case 'S': {
      ColumnView v = ColumnView::fixed_width_strings(name, ColumnType::bytes, base, size, length,
                                                     true, stride);
      v.stride = stride;
      return v;
    }
    case 'U': {
      // UCS-4 code points, trailing zeros not part of the value: converted to UTF-8.
      auto c = std::make_shared<Converted>();
      c->offsets.reserve(length + 1);
      for (size_t i = 0; i < length; ++i) {
        const char* p = base + static_cast<ptrdiff_t>(i) * stride;
        size_t chars = size / 4;
        uint32_t cp = 0;
        while (chars > 0 && (std::memcpy(&cp, p + 4 * (chars - 1), 4), cp == 0))
          --chars;
        for (size_t j = 0; j < chars; ++j) {
          std::memcpy(&cp, p + 4 * j, 4);
          put_utf8(c->data, cp);
        }
        c->offsets.push_back(static_cast<int64_t>(c->data.size()));
      }
      owners_.push_back(c);
      return ColumnView::strings(name, ColumnType::text, c->offsets.data(), c->data.data(), length);
    }
    case 'O':
      return from_object_array(obj, base, length, stride, name);
    default:
      column_type_error(name, "has the NumPy type '" + typestr +
                                  "', which drydb does not store (it takes bool, integers, "
                                  "float32/64, datetime64, bytes, str and objects of those)");
  }
}

ColumnView PythonColumns::from_object_array(py::handle, const char* base, size_t length,
                                            ptrdiff_t stride, std::string_view name) {
  auto at = [&](size_t i) {
    PyObject* o;
    std::memcpy(&o, base + static_cast<ptrdiff_t>(i) * stride, sizeof o);
    return o;
  };
  // The column's type is its first present value's.
  PyObject* first = nullptr;
  for (size_t i = 0; i < length && first == nullptr; ++i)
    if (!is_missing_object(at(i))) first = at(i);
  auto c = std::make_shared<Converted>();
  owners_.push_back(c);
  c->nulls.assign(length, 0);
  if (first == nullptr) {  // all missing: an int8 column of nulls
    c->bytes.assign(length, 0);
    c->nulls.assign(length, 1);
    ColumnView v = ColumnView::fixed(name, ColumnType::int8, c->bytes.data(), length);
    v.null_mask = c->nulls.data();
    return v;
  }
  enum Kind { text, bytes, boolean, integer, floating } kind;
  const char* kind_name;
  if (PyUnicode_Check(first))
    kind = text, kind_name = "str";
  else if (PyBytes_Check(first) || PyByteArray_Check(first))
    kind = bytes, kind_name = "bytes";
  else if (PyBool_Check(first))
    kind = boolean, kind_name = "bool";
  else if (PyLong_Check(first))
    kind = integer, kind_name = "int";
  else if (PyFloat_Check(first))
    kind = floating, kind_name = "float";
  else
    column_type_error(name, std::string("holds ") + Py_TYPE(first)->tp_name +
                                " objects: an object column holds str, bytes, bool, int or float");

  for (size_t i = 0; i < length; ++i) {
    PyObject* o = at(i);
    if (is_missing_object(o)) {
      c->nulls[i] = 1;
      switch (kind) {
        case text:
        case bytes:
          c->offsets.push_back(static_cast<int64_t>(c->data.size()));
          break;
        case boolean:
          c->bytes.push_back(0);
          break;
        case integer:
          c->ints.push_back(0);
          break;
        case floating:
          c->floats.push_back(0);
          break;
      }
      continue;
    }
    auto mixed = [&] {
      row_error(name, i, std::string("a ") + Py_TYPE(o)->tp_name + " in a column of " + kind_name);
    };
    switch (kind) {
      case text: {
        if (!PyUnicode_Check(o)) mixed();
        Py_ssize_t n = 0;
        const char* s = PyUnicode_AsUTF8AndSize(o, &n);
        if (s == nullptr) {
          PyErr_Clear();
          row_error(name, i, "a str that is not valid Unicode (a lone surrogate)");
        }
        c->data.append(s, static_cast<size_t>(n));
        c->offsets.push_back(static_cast<int64_t>(c->data.size()));
        break;
      }
      case bytes:
        if (PyBytes_Check(o))
          c->data.append(PyBytes_AS_STRING(o), static_cast<size_t>(PyBytes_GET_SIZE(o)));
        else if (PyByteArray_Check(o))
          c->data.append(PyByteArray_AS_STRING(o), static_cast<size_t>(PyByteArray_GET_SIZE(o)));
        else
          mixed();
        c->offsets.push_back(static_cast<int64_t>(c->data.size()));
        break;
      case boolean:
        if (!PyBool_Check(o)) mixed();
        c->bytes.push_back(o == Py_True ? 1 : 0);
        break;
      case integer: {
        if (!PyLong_Check(o) || PyBool_Check(o)) mixed();
        int overflow = 0;
        const long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
        if (overflow != 0) row_error(name, i, int_text(o) + " is outside int64");
        if (v == -1 && PyErr_Occurred()) throw py::error_already_set();
        c->ints.push_back(v);
        break;
      }
      case floating:
        if (PyFloat_Check(o))
          c->floats.push_back(PyFloat_AS_DOUBLE(o));
        else if (PyLong_Check(o) && !PyBool_Check(o))
          c->floats.push_back(int_as_double(o, name, i));
        else
          mixed();
        break;
    }
  }
  ColumnView v;
  switch (kind) {
    case text:
    case bytes:
      v = ColumnView::strings(name, kind == text ? ColumnType::text : ColumnType::bytes,
                              c->offsets.data(), c->data.data(), length);
      break;
    case boolean:
      v = ColumnView::fixed(name, ColumnType::boolean, c->bytes.data(), length);
      break;
    case integer:
      v = ColumnView::fixed(name, ColumnType::int64, c->ints.data(), length);
      break;
    case floating:
      v = ColumnView::fixed(name, ColumnType::float64, c->floats.data(), length);
      break;
  }
  v.null_mask = c->nulls.data();
  return v;
}

ColumnView PythonColumns::from_buffer(py::handle obj, std::string_view name) {
  auto* raw = new Py_buffer();
  if (PyObject_GetBuffer(obj.ptr(), raw, PyBUF_FORMAT | PyBUF_STRIDES) != 0) {
    delete raw;
    throw py::error_already_set();
  }
  const auto view = std::shared_ptr<Py_buffer>(raw, [](Py_buffer* b) {
    PyBuffer_Release(b);
    delete b;
  });
  owners_.push_back(view);
  if (view->ndim != 1)
    column_type_error(name, "is a buffer of " + std::to_string(view->ndim) + " dimensions, not 1");
  std::string_view format = view->format != nullptr ? view->format : "B";
  if (!format.empty() && (format[0] == '@' || format[0] == '=' || format[0] == '<'))
    format.remove_prefix(1);
  const auto size = static_cast<size_t>(view->itemsize);
  ColumnType type;
  char kind = 0;
  if (format.size() == 1) {
    const char f = format[0];
    if (f == '?')
      kind = 'b';
    else if (std::string_view("bhilq").find(f) != std::string_view::npos)
      kind = 'i';
    else if (std::string_view("BHILQ").find(f) != std::string_view::npos)
      kind = 'u';
    else if (f == 'f' || f == 'd')
      kind = 'f';
  }
  if (kind == 0 || !numeric_type(kind, size, &type))
    column_type_error(name, "is a buffer of format '" + std::string(format) +
                                "': drydb takes booleans, integers and float32/64 from buffers");
  ColumnView v = ColumnView::fixed(name, type, view->buf, static_cast<size_t>(view->shape[0]),
                                   view->strides[0]);
  v.stride = view->strides[0];
  v.missing_sentinels = kind == 'f';
  return v;
}

void PythonColumns::apply_mask(ColumnView& column, py::handle mask) {
  const std::string_view name = column.name;
  if (!py::hasattr(mask, "__array_interface__"))
    column_type_error(name, "has a mask that is no NumPy array");
  const py::dict interface = mask.attr("__array_interface__");
  const auto shape = interface["shape"].cast<py::tuple>();
  if (interface["typestr"].cast<std::string>() != "|b1" || shape.size() != 1 ||
      shape[0].cast<size_t>() != column.length)
    column_type_error(name, "has a mask that is not a bool array of its length");
  const py::object data = interface["data"];
  const auto* bits = reinterpret_cast<const uint8_t*>(data.cast<py::tuple>()[0].cast<uintptr_t>());
  ptrdiff_t stride = 1;
  if (interface.contains("strides") && !interface["strides"].is_none())
    stride = interface["strides"].cast<py::tuple>()[0].cast<ptrdiff_t>();
  objects_.push_back(py::reinterpret_borrow<py::object>(mask));
  if (stride == 1 && column.null_mask == nullptr) {
    column.null_mask = bits;
    return;
  }
  // A strided mask, or one beside the nulls a conversion found: one mask of both.
  auto c = std::make_shared<Converted>();
  c->nulls.resize(column.length);
  for (size_t i = 0; i < column.length; ++i)
    c->nulls[i] = (bits[static_cast<ptrdiff_t>(i) * stride] != 0 ||
                   (column.null_mask != nullptr && column.null_mask[i] != 0))
                      ? 1
                      : 0;
  owners_.push_back(c);
  column.null_mask = c->nulls.data();
}

}  // namespace drydb::python
