// Arrow arrays and streams as ColumnViews (arrow_import.h), through the Arrow PyCapsule
// interface and the Arrow C data and C stream interfaces, without pyarrow.
//
// An array (__arrow_c_array__) is read in place: its capsules stay the structs' owners (their
// destructors release them) and ArrowColumns::owners keeps the capsules. Only what has no
// ColumnView layout is converted into owned buffers: booleans (one bit each in Arrow, one byte
// each in a ColumnView), date32 (days, to int64 seconds), a struct's own nulls (one byte mask
// the children share), the null type (a validity bitmap of zeros) and fixed-size binary of
// width 0 (empty offsets).
//
// A stream (__arrow_c_stream__, read only when there is no __arrow_c_array__) of one chunk is
// read in place the same way, the chunk's ArrowArray owned by `owners`. A stream of several
// chunks is joined into one copy (fixed-width values side by side, offsets rebased into int64
// offsets, nulls into a byte mask), since a columnar append takes one batch whole; each chunk
// is released as soon as it is copied.
#include "arrow_import.h"

#include <Python.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <string_view>
#include <utility>

// The Arrow C data interface's and C stream interface's structs, as their specifications give
// them to be copied (guards unchanged, so that another copy in the same translation unit is
// skipped).
#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE

#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4

struct ArrowSchema {
  // Array type description
  const char* format;
  const char* name;
  const char* metadata;
  int64_t flags;
  int64_t n_children;
  struct ArrowSchema** children;
  struct ArrowSchema* dictionary;

  // Release callback
  void (*release)(struct ArrowSchema*);
  // Opaque producer-specific data
  void* private_data;
};

struct ArrowArray {
  // Array data description
  int64_t length;
  int64_t null_count;
  int64_t offset;
  int64_t n_buffers;
  int64_t n_children;
  const void** buffers;
  struct ArrowArray** children;
  struct ArrowArray* dictionary;

  // Release callback
  void (*release)(struct ArrowArray*);
  // Opaque producer-specific data
  void* private_data;
};

#endif  // ARROW_C_DATA_INTERFACE

#ifndef ARROW_C_STREAM_INTERFACE
#define ARROW_C_STREAM_INTERFACE

struct ArrowArrayStream {
  // Callbacks providing stream functionality
  int (*get_schema)(struct ArrowArrayStream*, struct ArrowSchema* out);
  int (*get_next)(struct ArrowArrayStream*, struct ArrowArray* out);
  const char* (*get_last_error)(struct ArrowArrayStream*);

  // Release callback
  void (*release)(struct ArrowArrayStream*);

  // Opaque producer-specific data
  void* private_data;
};

#endif  // ARROW_C_STREAM_INTERFACE

namespace drydb::python {

namespace {

// How a field's values lie in its ArrowArray's buffers, and what a ColumnView needs of them.
enum class Layout : uint8_t {
  fixed,         // validity, values of `width` bytes: read in place
  bits,          // boolean: validity, one bit a value: unpacked to a byte a value
  days,          // date32: validity, int32 days: converted to int64 seconds
  offsets32,     // utf8, binary: validity, int32 offsets, data
  offsets64,     // large utf8, large binary: validity, int64 offsets, data
  fixed_binary,  // fixed-size binary: validity, values of `width` bytes
  null,          // the null type: no buffers (older producers give a validity buffer)
};

// A field of the schema: a column, or the struct whose children are the columns.
struct Field {
  std::string name;
  std::string format;
  Layout layout = Layout::fixed;
  ColumnType type = ColumnType::int8;
  TimeUnit unit = TimeUnit::nanosecond;
  size_t width = 0;  // bytes a value: fixed and fixed_binary
};

struct Schema {
  bool is_struct = false;
  std::string name;           // the struct's own, for messages
  std::vector<Field> fields;  // the struct's children, or the array's one field
};

// Eight zero bytes: the values of empty or all-null columns, an empty column's offsets (a zero
// of either width), the data of strings that are all empty.
alignas(8) constexpr uint8_t kZeros[8] = {};

// The buffers each layout has, as ArrowArray::n_buffers counts them.
int64_t buffer_count(Layout layout) noexcept {
  switch (layout) {
    case Layout::offsets32:
    case Layout::offsets64:
      return 3;
    case Layout::null:
      return 0;
    default:
      return 2;
  }
}

// A column as messages name it: by its Arrow field's name (an array's is often empty).
std::string quoted(std::string_view name) {
  return name.empty() ? std::string("an unnamed column") : "column '" + std::string(name) + "'";
}

// What Arrow calls a format drydb does not take, for the message that refuses it.
std::string_view format_kind(std::string_view f) noexcept {
  struct Known {
    std::string_view prefix, kind;
  };
  // Longest prefixes first where one is another's prefix ("+vl" before "+l").
  static constexpr Known kKnown[] = {
      {"e", "half float"},          {"vu", "string view"},
      {"vz", "binary view"},        {"d:", "decimal"},
      {"tt", "time of day"},        {"tD", "duration"},
      {"ti", "interval"},           {"+vl", "list view"},
      {"+vL", "large list view"},   {"+l", "list"},
      {"+L", "large list"},         {"+w:", "fixed-size list"},
      {"+s", "struct in a struct"}, {"+m", "map"},
      {"+ud:", "dense union"},      {"+us:", "sparse union"},
      {"+r", "run-end encoded"},
  };
  for (const Known& k : kKnown)
    if (f == k.prefix || (k.prefix.size() > 1 && f.starts_with(k.prefix))) return k.kind;
  return "unknown";
}

[[noreturn]] void refuse(std::string_view column, std::string_view format, std::string_view kind) {
  throw py::type_error(quoted(column) + ": Arrow format '" + std::string(format) + "' (" +
                       std::string(kind) + ") is not one drydb takes");
}

[[noreturn]] void malformed(std::string_view column, const std::string& what) {
  throw py::value_error(quoted(column) + ": malformed Arrow data: " + what);
}

// A field's layout and type from its schema; TypeError for a format drydb does not take.
Field parse_field(const ArrowSchema& s) {
  Field f;
  f.name = s.name != nullptr ? s.name : "";
  if (s.format == nullptr) malformed(f.name, "the schema has no format string");
  f.format = s.format;
  const std::string_view fmt = f.format;
  if (s.dictionary != nullptr) {
    const char* values = s.dictionary->format != nullptr ? s.dictionary->format : "?";
    refuse(f.name, fmt, "dictionary-encoded, its values '" + std::string(values) + "'");
  }
  auto fixed = [&](ColumnType type) {
    f.layout = Layout::fixed;
    f.type = type;
    f.width = column_type_width(type);
  };
  // The formats of one character drydb takes (null aside).
  struct OneChar {
    char format;
    Layout layout;
    ColumnType type;
  };
  static constexpr OneChar kOneChar[] = {
      {'b', Layout::bits, ColumnType::boolean},    {'c', Layout::fixed, ColumnType::int8},
      {'C', Layout::fixed, ColumnType::uint8},     {'s', Layout::fixed, ColumnType::int16},
      {'S', Layout::fixed, ColumnType::uint16},    {'i', Layout::fixed, ColumnType::int32},
      {'I', Layout::fixed, ColumnType::uint32},    {'l', Layout::fixed, ColumnType::int64},
      {'L', Layout::fixed, ColumnType::uint64},    {'f', Layout::fixed, ColumnType::float32},
      {'g', Layout::fixed, ColumnType::float64},   {'u', Layout::offsets32, ColumnType::text},
      {'U', Layout::offsets64, ColumnType::text},  {'z', Layout::offsets32, ColumnType::bytes},
      {'Z', Layout::offsets64, ColumnType::bytes},
  };
  if (fmt == "n") {
    f.layout = Layout::null;
  } else if (fmt.size() == 1) {
    const auto* one = std::find_if(std::begin(kOneChar), std::end(kOneChar),
                                   [&](const OneChar& o) { return o.format == fmt[0]; });
    if (one == std::end(kOneChar)) refuse(f.name, fmt, format_kind(fmt));
    if (one->layout == Layout::fixed) {
      fixed(one->type);
    } else {
      f.layout = one->layout;
      f.type = one->type;
    }
  } else if (fmt == "tdD") {
    f.layout = Layout::days;
    f.type = ColumnType::timestamp;
    f.unit = TimeUnit::second;
  } else if (fmt == "tdm") {
    fixed(ColumnType::timestamp);
    f.unit = TimeUnit::millisecond;
  } else if (fmt.size() >= 4 && fmt.starts_with("ts") && fmt[3] == ':' &&
             std::string_view("smun").find(fmt[2]) != std::string_view::npos) {
    // A timestamp's count is of UTC whatever its timezone (the text after the colon).
    fixed(ColumnType::timestamp);
    f.unit = fmt[2] == 's'   ? TimeUnit::second
             : fmt[2] == 'm' ? TimeUnit::millisecond
             : fmt[2] == 'u' ? TimeUnit::microsecond
                             : TimeUnit::nanosecond;
  } else if (fmt.starts_with("w:")) {
    const std::string_view digits = fmt.substr(2);
    int32_t width = -1;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), width);
    if (ec != std::errc() || end != digits.data() + digits.size() || width < 0)
      malformed(f.name, "fixed-size binary format '" + f.format + "' has no width");
    f.layout = Layout::fixed_binary;
    f.type = ColumnType::bytes;
    f.width = static_cast<size_t>(width);
  } else {
    refuse(f.name, fmt, format_kind(fmt));
  }
  if (s.n_children != 0)
    malformed(f.name, "format '" + f.format + "' has no children; the schema gives " +
                          std::to_string(s.n_children));
  return f;
}

// The fields of a top-level schema: a struct's children, or the schema's own field.
Schema parse_schema(const ArrowSchema& s) {
  if (s.release == nullptr) throw py::value_error("the Arrow schema was released already");
  Schema schema;
  if (s.format != nullptr && std::string_view(s.format) == "+s" && s.dictionary == nullptr) {
    schema.is_struct = true;
    schema.name = s.name != nullptr ? s.name : "";
    if (s.n_children < 0 || (s.n_children > 0 && s.children == nullptr))
      malformed(schema.name, "a struct schema without its children");
    schema.fields.reserve(static_cast<size_t>(s.n_children));
    for (int64_t i = 0; i < s.n_children; ++i) {
      if (s.children[i] == nullptr) malformed(schema.name, "a struct schema without its children");
      schema.fields.push_back(parse_field(*s.children[i]));
    }
  } else {
    schema.fields.push_back(parse_field(s));
  }
  return schema;
}

bool bit_at(const void* bits, int64_t i) noexcept {
  return ((static_cast<const uint8_t*>(bits)[i / 8] >> (i % 8)) & 1) != 0;
}

// `n` zeros of T in a buffer `out` keeps.
template <class T>
std::shared_ptr<std::vector<T>> owned(ArrowColumns& out, size_t n) {
  auto v = std::make_shared<std::vector<T>>(n);
  out.owners.push_back(v);
  return v;
}

// The shape every ArrowArray must have: a length and offset not negative, its children given.
void check_array(std::string_view column, const ArrowArray& a) {
  if (a.length < 0 || a.offset < 0)
    malformed(column,
              "length " + std::to_string(a.length) + ", offset " + std::to_string(a.offset));
  if (a.n_buffers < 0 || (a.n_buffers > 0 && a.buffers == nullptr))
    malformed(column, "the array has no buffers");
  if (a.n_children < 0 || (a.n_children > 0 && a.children == nullptr))
    malformed(column, "the array has no children");
}

// A column over `length` values of `a` from `start` (its own offset, plus a parent struct's),
// of field `f`. What had to be converted goes to out.owners.
ColumnView column_of(const Field& f, const ArrowArray& a, int64_t start, int64_t length,
                     ArrowColumns& out) {
  const std::string_view name = f.name;
  check_array(name, a);
  if (a.n_children != 0)
    malformed(name, "format '" + f.format + "' has no children; the array has " +
                        std::to_string(a.n_children));
  if (a.length + a.offset < start + length)
    malformed(name, "the array has " + std::to_string(a.length) + " values from offset " +
                        std::to_string(a.offset) + "; its struct reads up to " +
                        std::to_string(start + length));
  const int64_t buffers = buffer_count(f.layout);
  if (a.n_buffers != buffers && !(f.layout == Layout::null && a.n_buffers == 1))
    malformed(name, "format '" + f.format + "' has " + std::to_string(buffers) +
                        " buffers; the array has " + std::to_string(a.n_buffers));
  const auto n = static_cast<size_t>(length);

  ColumnView c;
  if (f.layout == Layout::null) {
    // Every value null: zeros as int8 values (read at stride 0, never packed), a bitmap of
    // zeros.
    c = ColumnView::fixed(name, ColumnType::int8, kZeros, n);
    c.stride = 0;
    c.validity = owned<uint8_t>(out, (n + 7) / 8)->data();
    return c;
  }

  // Buffer `i` from value `start` on, `size` bytes a value; NULL only when it would hold no
  // bytes (then kZeros, not to be read).
  auto buffer = [&](int i, int64_t size, bool empty, std::string_view what) -> const uint8_t* {
    const auto* p = static_cast<const uint8_t*>(a.buffers[i]);
    if (p != nullptr) return p + start * size;
    if (!empty)
      malformed(name, "format '" + f.format + "': the " + std::string(what) +
                          " buffer is NULL, the array has " + std::to_string(length) + " values");
    return kZeros;
  };
  switch (f.layout) {
    case Layout::fixed: {
      const uint8_t* values = buffer(1, static_cast<int64_t>(f.width), n == 0, "values");
      c = ColumnView::fixed(name, f.type, values, n);
      c.unit = f.unit;
      break;
    }
    case Layout::bits: {
      const uint8_t* bits = buffer(1, 0, n == 0, "values");
      auto bytes = owned<uint8_t>(out, n);
      for (size_t i = 0; i < n; ++i)
        (*bytes)[i] = bit_at(bits, start + static_cast<int64_t>(i)) ? 1 : 0;
      c = ColumnView::fixed(name, ColumnType::boolean, bytes->data(), n);
      break;
    }
    case Layout::days: {
      const uint8_t* days = buffer(1, 4, n == 0, "values");
      auto seconds = owned<int64_t>(out, n);
      for (size_t i = 0; i < n; ++i) {
        int32_t d;
        std::memcpy(&d, days + i * 4, 4);
        (*seconds)[i] = int64_t{d} * 86'400;
      }
      c = ColumnView::timestamps(name, seconds->data(), n, TimeUnit::second);
      break;
    }
    case Layout::offsets32:
    case Layout::offsets64: {
      const bool wide = f.layout == Layout::offsets64;
      // Offsets [start, start + length]: one more than the values, none at all in an empty
      // array.
      const uint8_t* offsets = buffer(1, wide ? 8 : 4, n == 0, "offsets");
      auto offset_at = [&](int64_t i) -> int64_t {
        if (wide) {
          int64_t o;
          std::memcpy(&o, offsets + i * 8, 8);
          return o;
        }
        int32_t o;
        std::memcpy(&o, offsets + i * 4, 4);
        return o;
      };
      // The data may be NULL when every value is empty.
      const int64_t bytes = length == 0 ? 0 : offset_at(length) - offset_at(0);
      const auto* data = static_cast<const uint8_t*>(a.buffers[2]);
      if (data == nullptr && bytes != 0)
        malformed(name, "format '" + f.format + "': the data buffer is NULL, the values have " +
                            std::to_string(bytes) + " bytes");
      c.name = name;
      c.type = f.type;
      c.length = n;
      c.offsets = length == 0 ? kZeros : offsets;
      c.wide_offsets = wide;
      c.data = reinterpret_cast<const std::byte*>(data != nullptr ? data : kZeros);
      break;
    }
    case Layout::fixed_binary: {
      if (f.width == 0) {
        // Every value empty; a ColumnView of width 0 has no layout, offsets do.
        c = ColumnView::strings(name, ColumnType::bytes, owned<int32_t>(out, n + 1)->data(), kZeros,
                                n);
        break;
      }
      const uint8_t* values = buffer(1, static_cast<int64_t>(f.width), n == 0, "values");
      c = ColumnView::fixed_width_strings(name, ColumnType::bytes, values, f.width, n,
                                          /*trim_zeros=*/false);
      break;
    }
    case Layout::null:
      break;
  }

  // Nulls: none when null_count is 0 or there is no bitmap (null_count -1: not counted).
  const void* validity = a.buffers[0];
  if (a.null_count > 0 && validity == nullptr && length > 0)
    malformed(name, "null_count " + std::to_string(a.null_count) + " but no validity bitmap");
  if (a.null_count != 0 && validity != nullptr) {
    c.validity = static_cast<const uint8_t*>(validity);
    c.validity_bit = static_cast<size_t>(start);
  }
  return c;
}

// The columns of `a`, an array of `schema`.
ArrowColumns columns_of(const Schema& schema, const ArrowArray& a) {
  ArrowColumns out;
  out.is_struct = schema.is_struct;
  if (a.release == nullptr) throw py::value_error("the Arrow array was released already");
  if (!schema.is_struct) {
    out.names.push_back(schema.fields[0].name);
    out.columns.push_back(column_of(schema.fields[0], a, a.offset, a.length, out));
    return out;
  }
  const std::string_view name = schema.name;
  check_array(name, a);
  if (a.n_buffers != 1)
    malformed(name, "format '+s' has 1 buffer; the array has " + std::to_string(a.n_buffers));
  if (a.n_children != static_cast<int64_t>(schema.fields.size()))
    malformed(name, "the struct array has " + std::to_string(a.n_children) +
                        " children; its schema " + std::to_string(schema.fields.size()));
  // A null struct row makes each of its fields null: one byte mask, which every child takes as
  // its null_mask beside its own validity bitmap.
  const uint8_t* struct_nulls = nullptr;
  const auto n = static_cast<size_t>(a.length);
  if (a.null_count != 0 && a.buffers[0] != nullptr && n > 0) {
    auto mask = owned<uint8_t>(out, n);
    size_t nulls = 0;
    for (size_t i = 0; i < n; ++i) {
      (*mask)[i] = bit_at(a.buffers[0], a.offset + static_cast<int64_t>(i)) ? 0 : 1;
      nulls += (*mask)[i];
    }
    if (nulls > 0) struct_nulls = mask->data();
  } else if (a.null_count > 0 && a.buffers[0] == nullptr && n > 0) {
    malformed(name, "null_count " + std::to_string(a.null_count) + " but no validity bitmap");
  }
  for (size_t i = 0; i < schema.fields.size(); ++i) {
    const ArrowArray* child = a.children[i];
    if (child == nullptr) malformed(schema.fields[i].name, "the struct array's child is NULL");
    out.names.push_back(schema.fields[i].name);
    ColumnView c = column_of(schema.fields[i], *child, child->offset + a.offset, a.length, out);
    if (struct_nulls != nullptr) c.null_mask = struct_nulls;
    out.columns.push_back(c);
  }
  return out;
}

// Points each column's name at a copy of `names` that `owners` keeps, so that a copy of `out`
// names its columns too.
void name_columns(ArrowColumns& out) {
  auto names = std::make_shared<std::vector<std::string>>(out.names);
  out.owners.push_back(names);
  for (size_t i = 0; i < out.columns.size(); ++i)
    out.columns[i].name = (*names)[i];
}

// Zero-length columns of `schema` (an empty stream).
ArrowColumns empty_columns(const Schema& schema) {
  ArrowColumns out;
  out.is_struct = schema.is_struct;
  for (const Field& f : schema.fields) {
    out.names.push_back(f.name);
    ColumnView c;
    c.type = f.layout == Layout::null ? ColumnType::int8 : f.type;
    c.unit = f.unit;
    if (f.layout == Layout::offsets32 || f.layout == Layout::offsets64) {
      c.offsets = kZeros;
      c.wide_offsets = f.layout == Layout::offsets64;
      c.data = reinterpret_cast<const std::byte*>(kZeros);
    } else if (f.layout == Layout::fixed_binary && f.width > 0) {
      c = ColumnView::fixed_width_strings({}, ColumnType::bytes, kZeros, f.width, 0, false);
    } else if (f.layout == Layout::fixed_binary) {
      c = ColumnView::strings({}, ColumnType::bytes, reinterpret_cast<const int32_t*>(kZeros),
                              kZeros, 0);
    } else {
      c = ColumnView::fixed({}, c.type, kZeros, 0);
      c.unit = f.unit;
    }
    out.columns.push_back(c);
  }
  return out;
}

// Column `k` of every chunk, copied into one column whose buffers go to out.owners.
ColumnView join_column(const std::vector<ArrowColumns>& chunks, size_t k, ArrowColumns& out) {
  const ColumnView& first = chunks.front().columns[k];
  size_t total = 0;
  bool any_nulls = false;
  for (const ArrowColumns& chunk : chunks) {
    const ColumnView& c = chunk.columns[k];
    total += c.length;
    any_nulls |= c.validity != nullptr || c.null_mask != nullptr;
  }
  ColumnView joined;
  if (first.offsets != nullptr) {
    // Text and bytes by offsets: the data side by side, each chunk's offsets rebased on the
    // bytes before it.
    auto offsets = owned<int64_t>(out, total + 1);
    auto data = std::make_shared<std::string>();
    out.owners.push_back(data);
    size_t row = 0;
    for (const ArrowColumns& chunk : chunks) {
      const ColumnView& c = chunk.columns[k];
      auto offset_at = [&](size_t i) -> int64_t {
        return c.wide_offsets ? static_cast<const int64_t*>(c.offsets)[i]
                              : static_cast<const int32_t*>(c.offsets)[i];
      };
      const int64_t begin = offset_at(0), end = c.length == 0 ? begin : offset_at(c.length);
      if (begin < 0 || end < begin)
        malformed(c.name, "offsets " + std::to_string(begin) + " .. " + std::to_string(end) +
                              " of a stream's chunk");
      const auto base = static_cast<int64_t>(data->size());
      for (size_t i = 0; i < c.length; ++i)
        (*offsets)[row++] = base + offset_at(i) - begin;
      if (end > begin)
        data->append(reinterpret_cast<const char*>(c.data + begin),
                     static_cast<size_t>(end - begin));
    }
    (*offsets)[total] = static_cast<int64_t>(data->size());
    joined =
        ColumnView::strings({}, first.type, offsets->data(),
                            data->empty() ? static_cast<const void*>(kZeros) : data->data(), total);
  } else {
    // Fixed-width values side by side (fixed-size binary too, `width` bytes each).
    const bool strings = first.type == ColumnType::text || first.type == ColumnType::bytes;
    const size_t width = strings ? first.width : column_type_width(first.type);
    auto values = owned<uint8_t>(out, total * width);
    uint8_t* to = values->data();
    for (const ArrowColumns& chunk : chunks) {
      const ColumnView& c = chunk.columns[k];
      const auto* from = static_cast<const uint8_t*>(c.values);
      if (c.stride == static_cast<ptrdiff_t>(width)) {
        if (c.length > 0) std::memcpy(to, from, c.length * width);
        to += c.length * width;
      } else {
        for (size_t i = 0; i < c.length; ++i, to += width)
          std::memcpy(to, from + static_cast<ptrdiff_t>(i) * c.stride, width);
      }
    }
    const void* base = total > 0 ? static_cast<const void*>(values->data()) : kZeros;
    joined = strings ? ColumnView::fixed_width_strings({}, first.type, base, width, total, false)
                     : ColumnView::fixed({}, first.type, base, total);
    joined.unit = first.unit;
  }
  if (any_nulls) {
    auto mask = owned<uint8_t>(out, total);
    size_t row = 0;
    for (const ArrowColumns& chunk : chunks) {
      const ColumnView& c = chunk.columns[k];
      for (size_t i = 0; i < c.length; ++i)
        (*mask)[row++] = c.is_null(i) ? 1 : 0;
    }
    joined.null_mask = mask->data();
  }
  return joined;
}

// A Python object kept alive by a shared_ptr, released with the GIL whoever drops it last.
std::shared_ptr<void> keep(py::object obj) {
  return std::shared_ptr<void>(new py::object(std::move(obj)), [](void* p) {
    py::gil_scoped_acquire gil;
    delete static_cast<py::object*>(p);
  });
}

// The struct a capsule of the PyCapsule interface holds; TypeError for another object.
template <class T>
T* capsule_pointer(py::handle capsule, const char* name, const char* method) {
  if (!PyCapsule_IsValid(capsule.ptr(), name)) {
    std::string what = std::string("a ") + Py_TYPE(capsule.ptr())->tp_name;
    if (PyCapsule_CheckExact(capsule.ptr())) {
      const char* other = PyCapsule_GetName(capsule.ptr());
      what = "a capsule named '" + std::string(other != nullptr ? other : "") + "'";
    }
    throw py::type_error(std::string(method) + " gave " + what + ", not a capsule named '" + name +
                         "'");
  }
  return static_cast<T*>(PyCapsule_GetPointer(capsule.ptr(), name));
}

ArrowColumns import_array(py::handle obj) {
  const py::object pair = obj.attr("__arrow_c_array__")();
  if (!PyTuple_Check(pair.ptr()) || PyTuple_GET_SIZE(pair.ptr()) != 2)
    throw py::type_error("__arrow_c_array__ gave no (schema, array) pair of capsules");
  const py::object schema_capsule = pair[py::int_(0)], array_capsule = pair[py::int_(1)];
  const auto* schema =
      capsule_pointer<ArrowSchema>(schema_capsule, "arrow_schema", "__arrow_c_array__");
  const auto* array =
      capsule_pointer<ArrowArray>(array_capsule, "arrow_array", "__arrow_c_array__");
  ArrowColumns out = columns_of(parse_schema(*schema), *array);
  // The capsules own the structs: the array's buffers live until they go.
  out.owners.push_back(keep(array_capsule));
  out.owners.push_back(keep(schema_capsule));
  return out;
}

// Raises the stream's last error after `call` returned the errno-like `code`.
[[noreturn]] void stream_failed(ArrowArrayStream* stream, const char* call, int code) {
  const char* message =
      stream->get_last_error != nullptr ? stream->get_last_error(stream) : nullptr;
  const std::string what = std::string("the Arrow stream's ") + call +
                           " failed: " + (message != nullptr ? message : "(no message)");
  const py::tuple args = py::make_tuple(code, what);
  PyErr_SetObject(PyExc_OSError, args.ptr());
  throw py::error_already_set();
}

ArrowColumns import_stream(py::handle obj) {
  const py::object capsule = obj.attr("__arrow_c_stream__")();
  auto* stream =
      capsule_pointer<ArrowArrayStream>(capsule, "arrow_array_stream", "__arrow_c_stream__");
  if (stream->release == nullptr) throw py::value_error("the Arrow stream was released already");
  // Released when done, whatever happens; the capsule's destructor then skips it. The schema
  // and the arrays it gave live on their own (the C stream interface's result lifetimes).
  struct ReleaseStream {
    ArrowArrayStream* s;
    ~ReleaseStream() {
      if (s->release != nullptr) s->release(s);
    }
  } release_stream{stream};

  ArrowSchema raw_schema{};
  if (const int code = stream->get_schema(stream, &raw_schema); code != 0)
    stream_failed(stream, "get_schema", code);
  struct ReleaseSchema {
    ArrowSchema* s;
    ~ReleaseSchema() {
      if (s->release != nullptr) s->release(s);
    }
  } release_schema{&raw_schema};
  const Schema schema = parse_schema(raw_schema);

  std::vector<ArrowColumns> chunks;
  for (;;) {
    // Ours until released: by the deleter, when the chunk's columns (or this function) let go.
    std::shared_ptr<ArrowArray> array(new ArrowArray{}, [](ArrowArray* a) {
      if (a->release != nullptr) {
        py::gil_scoped_acquire gil;  // a Python producer's buffers may be Python objects
        a->release(a);
      }
      delete a;
    });
    if (const int code = stream->get_next(stream, array.get()); code != 0)
      stream_failed(stream, "get_next", code);
    if (array->release == nullptr) break;  // the end of the stream
    ArrowColumns chunk = columns_of(schema, *array);
    chunk.owners.push_back(std::move(array));
    chunks.push_back(std::move(chunk));
  }
  if (chunks.empty()) return empty_columns(schema);
  if (chunks.size() == 1) return std::move(chunks.front());
  ArrowColumns out;
  out.is_struct = schema.is_struct;
  for (size_t k = 0; k < schema.fields.size(); ++k) {
    out.names.push_back(schema.fields[k].name);
    out.columns.push_back(join_column(chunks, k, out));
  }
  return out;
}

}  // namespace

std::optional<ArrowColumns> import_arrow(py::handle obj) {
  std::optional<ArrowColumns> out;
  if (py::hasattr(obj, "__arrow_c_array__"))
    out = import_array(obj);
  else if (py::hasattr(obj, "__arrow_c_stream__"))
    out = import_stream(obj);
  else
    return std::nullopt;
  name_columns(*out);
  return out;
}

}  // namespace drydb::python
