// _drydb._read_json_lines: a JSON Lines file read into columns, for drydb.read_json_lines
// (drydb/_json_lines.py makes the pandas DataFrame) and the Dask build's input.
//
// The file is read in chunks and each line parsed by simdjson's DOM parser with the GIL
// released; each member's value goes to its column as a tag byte and a 64-bit word per row, so
// a column's type is decided once the whole file is read:
//
//   tags seen (nulls and absent members aside)   column handed to Python
//   none                                         object, every row None
//   int (fits int64)                             int64 (with a mask if a row has none)
//   int and float                                float64, NaN where none
//   bool                                         bool (with a mask if a row has none)
//   str                                          object: str, None where none
//   anything else (uint64 past int64, nested,    object: the values json.loads gives
//   mixed types, lines only json.loads reads)
//
// Only the last step, with the GIL, makes Python objects: str for strings, dicts and lists for
// nested values, none for numbers and bools (int64 and float64 arrays are the words themselves,
// handed over without a copy). A line simdjson refuses is given to json.loads, so what it reads
// (integers past 64 bits, NaN, lone surrogates) is read as it reads it; a line neither reads is an
// InvalidArgumentError naming the file and the line. A member given twice keeps its last value
// in its first place, as json.loads does.
#include <fcntl.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>
#include <simdjson.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "bindings.h"
#include "errors.h"
#include "keys.h"

namespace drydb::python {

namespace {

namespace dom = simdjson::dom;

// What a row holds in a column. kObject: a Python object json.loads made (an int past 64 bits,
// a value of a line only json.loads reads, a str that is not UTF-8).
enum Tag : uint8_t { kMissing, kInt, kUInt, kFloat, kBool, kStr, kNested, kObject };
constexpr uint32_t bit(Tag t) {
  return 1u << t;
}

// A nested value (an object or array member's value) flattened in document order: an array
// node is followed by its `count` elements, an object node by `count` pairs of a kStr node (the
// member's name) and the member's value. Scalars are as in a row (kMissing: null).
enum NodeTag : uint8_t { kArrayNode = kObject + 1, kDictNode };
struct Node {
  uint64_t word;
  uint32_t count;
  uint8_t tag;
};

struct Column {
  std::string name;
  std::vector<uint8_t> tags;        // one per row (rows past its last value are added at the end)
  std::vector<uint64_t> words;      // int64, uint64, double bits, 0/1, or the index of a str,
                                    // a nested value's first node or a kObject
  std::string text;                 // every str of the column (values, nested ones, member names)
  std::vector<uint64_t> text_ends;  // the end of each str in `text`
  std::vector<Node> nodes;
  std::vector<py::object> objects;  // touched only with the GIL
  uint32_t seen = 0;                // bit(tag) of every tag stored but kMissing
  size_t present = 0;               // rows with a value
  uint64_t stamp = 0;               // 1 + the row whose members last named this column
  uint32_t slot = 0;                // that member's place in the row's list

  uint64_t add_text(std::string_view s) {
    text.append(s);
    text_ends.push_back(text.size());
    return text_ends.size() - 1;
  }
  std::string_view text_at(uint64_t i) const {
    const uint64_t start = i == 0 ? 0 : text_ends[i - 1];
    return std::string_view(text).substr(start, text_ends[i] - start);
  }
  // Row `row`'s value; every row before it without one is missing.
  void put(size_t row, Tag tag, uint64_t word) {
    tags.resize(row, kMissing);
    words.resize(row, 0);
    tags.push_back(tag);
    words.push_back(word);
    if (tag != kMissing) {
      seen |= bit(tag);
      ++present;
    }
  }
};

// The str of UTF-8 `s` (simdjson checked it).
py::object str_of(std::string_view s) {
  PyObject* o = PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), nullptr);
  if (o == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(o);
}

// A NumPy array over `v`'s elements, which it then owns (no copy).
template <class T>
py::array take(std::vector<T>&& v, const py::dtype& dtype) {
  if (v.empty()) return py::array(dtype, std::vector<py::ssize_t>{0});
  auto* owner = new std::vector<T>(std::move(v));
  py::capsule base(owner, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return py::array(dtype, {static_cast<py::ssize_t>(owner->size())},
                   {static_cast<py::ssize_t>(sizeof(T))}, owner->data(), base);
}

class Reader {
 public:
  static constexpr uint32_t kSkip = std::numeric_limits<uint32_t>::max();

  Reader(std::string path, std::optional<std::vector<std::string>> only,
         std::optional<size_t> max_rows)
      : path_(std::move(path)),
        max_rows_(max_rows.value_or(std::numeric_limits<size_t>::max())),
        restricted_(only.has_value()) {
    json_loads_ = py::module_::import("json").attr("loads");
    decode_error_ = py::module_::import("json").attr("JSONDecodeError");
    if (only) {
      for (std::string& name : *only) {
        if (by_name_.count(name))
          raise_error(errc::invalid_argument, "columns names '" + name + "' twice");
        by_name_.emplace(name, static_cast<uint32_t>(columns_.size()));
        columns_.emplace_back().name = std::move(name);
      }
    }
  }

  // Reads the file: run without the GIL (the lines only json.loads reads take it back). False
  // on an error, which raise() raises.
  bool read() {
    const int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return failed_os(errno);
    struct Closer {
      int fd;
      ~Closer() { ::close(fd); }
    } closer{fd};
    // The buffer holds whole lines and the start of the next; simdjson reads up to
    // SIMDJSON_PADDING bytes past a line's end, which the allocation leaves room for.
    size_t capacity = 1 << 20;
    auto buffer = std::make_unique<char[]>(capacity + simdjson::SIMDJSON_PADDING);
    size_t filled = 0;
    for (bool eof = false; !eof && !done();) {
      if (filled == capacity) {  // one line longer than the buffer
        auto larger = std::make_unique<char[]>(2 * capacity + simdjson::SIMDJSON_PADDING);
        std::memcpy(larger.get(), buffer.get(), filled);
        buffer = std::move(larger);
        capacity *= 2;
      }
      const ssize_t n = ::read(fd, buffer.get() + filled, capacity - filled);
      if (n < 0) {
        if (errno == EINTR) continue;
        return failed_os(errno);
      }
      eof = n == 0;
      filled += static_cast<size_t>(n);
      std::memset(buffer.get() + filled, 0, simdjson::SIMDJSON_PADDING);
      // Every whole line; at the end of the file, the last one without its newline too.
      const char* p = buffer.get();
      const char* end = p + filled;
      while (p < end && !done()) {
        const char* nl = static_cast<const char*>(std::memchr(p, '\n', end - p));
        if (nl == nullptr && !eof) break;
        const char* line_end = nl == nullptr ? end : nl;
        ++line_;
        if (!parse_line(p, static_cast<size_t>(line_end - p))) return false;
        p = nl == nullptr ? end : nl + 1;
      }
      filled = static_cast<size_t>(end - p);
      std::memmove(buffer.get(), p, filled);
    }
    return true;
  }

  [[noreturn]] void raise() {
    if (errno_ != 0) {
      errno = errno_;  // OSError's subclass of it: FileNotFoundError, IsADirectoryError...
      PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError, path_text(path_).ptr());
      throw py::error_already_set();
    }
    raise_error(errc::invalid_argument, error_);
  }

  // (rows, [(name, kind, values, mask or None)]), kind "int64", "float64", "bool" or "object";
  // with the GIL.
  py::tuple finish() {
    py::list out;
    for (Column& c : columns_)
      out.append(finish(c));
    return py::make_tuple(rows_, out);
  }

 private:
  bool done() const { return rows_ >= max_rows_; }

  bool failed_os(int e) {
    errno_ = e;
    return false;
  }
  bool failed(std::string_view what, std::optional<size_t> column = std::nullopt) {
    error_ = path_ + ", line " + std::to_string(line_);
    if (column) error_ += ", column " + std::to_string(*column);
    error_ += ": ";
    error_ += what;
    return false;
  }

  static bool blank(const char* p, size_t n) {
    return std::all_of(p, p + n, [](char c) { return c == ' ' || c == '\t' || c == '\r'; });
  }

  bool parse_line(const char* p, size_t n) {
    if (blank(p, n)) return true;
    dom::element root;
    if (parser_.parse(p, n, false).get(root) != simdjson::SUCCESS) return parse_line_slowly(p, n);
    dom::object object;
    if (root.get_object().get(object) != simdjson::SUCCESS) return failed("not a JSON object");
    members_.clear();
    size_t position = 0;
    for (dom::key_value_pair member : object) {
      const uint32_t c = column_of(position++, member.key);
      if (c == kSkip) continue;
      Column& column = columns_[c];
      if (column.stamp == rows_ + 1) {
        members_[column.slot].second = member.value;  // named twice: the last value counts
      } else {
        column.stamp = rows_ + 1;
        column.slot = static_cast<uint32_t>(members_.size());
        members_.emplace_back(c, member.value);
      }
    }
    for (auto& [c, value] : members_)
      store(columns_[c], value);
    ++rows_;
    return true;
  }

  // The column of the row's `position`th member, named `name`; kSkip for a member `columns=`
  // leaves out. Rows usually name their members in one order: the column at this position in
  // the last row is tried first.
  uint32_t column_of(size_t position, std::string_view name) {
    if (position < recent_.size() && recent_[position].first == name)
      return recent_[position].second;
    uint32_t c;
    if (auto it = by_name_.find(name); it != by_name_.end()) {
      c = it->second;
    } else if (restricted_) {
      c = kSkip;
    } else {
      c = static_cast<uint32_t>(columns_.size());
      by_name_.emplace(std::string(name), c);
      columns_.emplace_back().name = std::string(name);
    }
    if (position >= recent_.size()) recent_.resize(position + 1);
    recent_[position] = {std::string(name), c};
    return c;
  }

  void store(Column& column, dom::element v) {
    switch (v.type()) {
      case dom::element_type::INT64:
        return column.put(rows_, kInt, static_cast<uint64_t>(v.get_int64().value_unsafe()));
      case dom::element_type::UINT64:
        return column.put(rows_, kUInt, v.get_uint64().value_unsafe());
      case dom::element_type::DOUBLE:
        return column.put(rows_, kFloat, std::bit_cast<uint64_t>(v.get_double().value_unsafe()));
      case dom::element_type::BOOL:
        return column.put(rows_, kBool, v.get_bool().value_unsafe() ? 1 : 0);
      case dom::element_type::STRING:
        return column.put(rows_, kStr, column.add_text(v.get_string().value_unsafe()));
      case dom::element_type::NULL_VALUE:
        return column.put(rows_, kMissing, 0);
      case dom::element_type::ARRAY:
      case dom::element_type::OBJECT:
        column.put(rows_, kNested, column.nodes.size());
        return flatten(column, v);
    }
  }

  void flatten(Column& column, dom::element v) {
    auto& nodes = column.nodes;
    switch (v.type()) {
      case dom::element_type::INT64:
        return nodes.push_back({static_cast<uint64_t>(v.get_int64().value_unsafe()), 0, kInt});
      case dom::element_type::UINT64:
        return nodes.push_back({v.get_uint64().value_unsafe(), 0, kUInt});
      case dom::element_type::DOUBLE:
        return nodes.push_back({std::bit_cast<uint64_t>(v.get_double().value_unsafe()), 0, kFloat});
      case dom::element_type::BOOL:
        return nodes.push_back({v.get_bool().value_unsafe() ? 1u : 0u, 0, kBool});
      case dom::element_type::STRING:
        return nodes.push_back({column.add_text(v.get_string().value_unsafe()), 0, kStr});
      case dom::element_type::NULL_VALUE:
        return nodes.push_back({0, 0, kMissing});
      case dom::element_type::ARRAY: {
        const size_t at = nodes.size();
        nodes.push_back({0, 0, kArrayNode});
        uint32_t n = 0;
        const dom::array array = v.get_array().value_unsafe();  // not a temporary's member
        for (dom::element e : array) {
          flatten(column, e);
          ++n;
        }
        column.nodes[at].count = n;
        return;
      }
      case dom::element_type::OBJECT: {
        const size_t at = nodes.size();
        nodes.push_back({0, 0, kDictNode});
        uint32_t n = 0;
        const dom::object object = v.get_object().value_unsafe();
        for (dom::key_value_pair member : object) {
          nodes.push_back({column.add_text(member.key), 0, kStr});
          flatten(column, member.value);
          ++n;
        }
        column.nodes[at].count = n;
        return;
      }
    }
  }

  // A line simdjson refuses, given to json.loads with the GIL: an integer past 64 bits, NaN or
  // Infinity, a lone surrogate escape, a number past a double's range (inf) — or an error.
  bool parse_line_slowly(const char* p, size_t n) {
    py::gil_scoped_acquire held;
    try {
      PyObject* s = PyUnicode_DecodeUTF8(p, static_cast<Py_ssize_t>(n), "strict");
      if (s == nullptr) throw py::error_already_set();
      py::object value = json_loads_(py::reinterpret_steal<py::object>(s));
      if (!PyDict_Check(value.ptr())) return failed("not a JSON object");
      PyObject* key;
      PyObject* member;
      Py_ssize_t i = 0;
      size_t position = 0;
      while (PyDict_Next(value.ptr(), &i, &key, &member)) {
        Py_ssize_t size;
        const char* name = PyUnicode_AsUTF8AndSize(key, &size);
        if (name == nullptr) throw py::error_already_set();
        const uint32_t c = column_of(position++, std::string_view(name, static_cast<size_t>(size)));
        if (c != kSkip) store(columns_[c], py::handle(member));
      }
    } catch (py::error_already_set& e) {
      if (e.matches(decode_error_)) {
        py::object error = e.value();
        return failed(py::str(error.attr("msg")).cast<std::string>(),
                      error.attr("colno").cast<size_t>());
      }
      return failed(py::str(e.value()).cast<std::string>());
    }
    ++rows_;
    return true;
  }

  // A member json.loads read (a dict has each name once).
  void store(Column& column, py::handle v) {
    PyObject* o = v.ptr();
    if (o == Py_None) return column.put(rows_, kMissing, 0);
    if (PyBool_Check(o)) return column.put(rows_, kBool, o == Py_True ? 1 : 0);
    if (PyFloat_Check(o))
      return column.put(rows_, kFloat, std::bit_cast<uint64_t>(PyFloat_AS_DOUBLE(o)));
    if (PyLong_Check(o)) {
      int overflow = 0;
      const long long i = PyLong_AsLongLongAndOverflow(o, &overflow);
      if (overflow == 0 && !(i == -1 && PyErr_Occurred()))
        return column.put(rows_, kInt, static_cast<uint64_t>(i));
      PyErr_Clear();
      if (overflow > 0) {
        const unsigned long long u = PyLong_AsUnsignedLongLong(o);
        if (!PyErr_Occurred()) return column.put(rows_, kUInt, u);
        PyErr_Clear();
      }
    } else if (PyUnicode_Check(o)) {
      Py_ssize_t size;
      if (const char* s = PyUnicode_AsUTF8AndSize(o, &size))
        return column.put(rows_, kStr,
                          column.add_text(std::string_view(s, static_cast<size_t>(size))));
      PyErr_Clear();  // a lone surrogate: kept as the str it is
    }
    column.put(rows_, kObject, column.objects.size());
    column.objects.push_back(py::reinterpret_borrow<py::object>(v));
  }

  // The Python object of node `i` and its children; `i` moves past them.
  py::object node_object(const Column& column, size_t& i) {
    const Node& node = column.nodes[i++];
    switch (node.tag) {
      case kArrayNode: {
        py::list out(node.count);
        for (uint32_t k = 0; k < node.count; ++k)
          out[k] = node_object(column, i);
        return out;
      }
      case kDictNode: {
        py::dict out;
        for (uint32_t k = 0; k < node.count; ++k) {
          py::object name = str_of(column.text_at(column.nodes[i++].word));
          out[name] = node_object(column, i);  // a name given twice: the last value
        }
        return out;
      }
      default:
        return scalar_object(column, static_cast<Tag>(node.tag), node.word);
    }
  }

  py::object scalar_object(const Column& column, Tag tag, uint64_t word) {
    switch (tag) {
      case kMissing:
        return py::none();
      case kInt:
        return py::reinterpret_steal<py::object>(PyLong_FromLongLong(static_cast<int64_t>(word)));
      case kUInt:
        return py::reinterpret_steal<py::object>(PyLong_FromUnsignedLongLong(word));
      case kFloat:
        return py::float_(std::bit_cast<double>(word));
      case kBool:
        return py::bool_(word != 0);
      case kStr:
        return str_of(column.text_at(word));
      case kNested: {
        size_t i = word;
        return node_object(column, i);
      }
      case kObject:
        return column.objects[word];
    }
    return py::none();
  }

  // The column as (name, kind, values, mask or None), its buffers handed over.
  py::tuple finish(Column& c) {
    c.tags.resize(rows_, kMissing);
    c.words.resize(rows_, 0);
    py::object name = str_of(c.name);
    const bool missing = c.present < rows_;
    auto mask = [&]() -> py::object {
      if (!missing) return py::none();
      for (uint8_t& t : c.tags)
        t = t == kMissing ? 1 : 0;
      return take(std::move(c.tags), py::dtype("?"));
    };
    if (c.seen == bit(kInt)) {
      py::array values = take(std::move(c.words), py::dtype::of<int64_t>());
      return py::make_tuple(name, "int64", values, mask());
    }
    if ((c.seen & bit(kFloat)) != 0 && (c.seen & ~(bit(kInt) | bit(kFloat))) == 0) {
      for (size_t i = 0; i < rows_; ++i) {
        const double d = c.tags[i] == kFloat ? std::bit_cast<double>(c.words[i])
                         : c.tags[i] == kInt ? static_cast<double>(static_cast<int64_t>(c.words[i]))
                                             : std::numeric_limits<double>::quiet_NaN();
        c.words[i] = std::bit_cast<uint64_t>(d);
      }
      return py::make_tuple(name, "float64", take(std::move(c.words), py::dtype::of<double>()),
                            py::none());
    }
    if (c.seen == bit(kBool)) {
      std::vector<uint8_t> values(c.words.begin(), c.words.end());
      return py::make_tuple(name, "bool", take(std::move(values), py::dtype("?")), mask());
    }
    py::array values(py::dtype("O"), std::vector<py::ssize_t>{static_cast<py::ssize_t>(rows_)});
    auto** cells = static_cast<PyObject**>(values.mutable_data());
    for (size_t i = 0; i < rows_; ++i) {
      PyObject* o = scalar_object(c, static_cast<Tag>(c.tags[i]), c.words[i]).release().ptr();
      Py_XDECREF(cells[i]);  // None, or NULL: NumPy's fill of a new object array
      cells[i] = o;
    }
    return py::make_tuple(name, "object", values, py::none());
  }

  struct NameHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };

  std::string path_;
  size_t max_rows_;
  bool restricted_;
  py::object json_loads_, decode_error_;
  dom::parser parser_;
  std::vector<Column> columns_;
  std::unordered_map<std::string, uint32_t, NameHash, std::equal_to<>> by_name_;
  std::vector<std::pair<std::string, uint32_t>> recent_;    // the last row's column per position
  std::vector<std::pair<uint32_t, dom::element>> members_;  // this row's
  size_t rows_ = 0;
  size_t line_ = 0;
  int errno_ = 0;
  std::string error_;
};

py::tuple read_json_lines(const py::bytes& path, std::optional<std::vector<std::string>> columns,
                          std::optional<size_t> max_rows) {
  Reader reader(std::string(path), std::move(columns), max_rows);
  bool ok;
  {
    py::gil_scoped_release unlocked;
    ok = reader.read();
  }
  if (!ok) reader.raise();
  return reader.finish();
}

}  // namespace

void bind_json_lines(py::module_& m) {
  m.def("_read_json_lines", &read_json_lines, py::arg("path"), py::arg("columns") = py::none(),
        py::arg("max_rows") = py::none(),
        "The columns of a JSON Lines file (path: bytes, os.fsencode), for "
        "drydb.read_json_lines: (rows, [(name, kind, values, mask or None)]), kind 'int64', "
        "'float64', 'bool' or 'object', values and mask NumPy arrays. columns: only these "
        "members, in this order; max_rows: stop after so many records (None: all).");
}

}  // namespace drydb::python
