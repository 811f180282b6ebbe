// drydb.Table, drydb.Index, drydb.Range, drydb.Cursor and drydb.Value: a table's and an index's
// queries for Python.
#include <pybind11/stl.h>

#include <algorithm>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "bindings.h"
#include "errors.h"
#include "keys.h"

namespace drydb::python {

namespace {

// How a table handle gives values: bytes, or decoded from MessagePack (a row of a table with
// columns as a dict of its non-nil fields, the key column's nil as the key's text).
class ValueDecoder {
 public:
  ValueDecoder(const ReadOnlyTable& t, const std::optional<std::string>& decode)
      : encoding_(t.encoding()) {
    if (!decode) return;
    if (*decode != "msgpack")
      raise_error(errc::invalid_argument,
                  "decode '" + *decode + "' is not 'msgpack' or None");
    unpackb_ = py::module_::import("msgpack").attr("unpackb");
    for (const std::string& c : t.columns())
      columns_.push_back(py::str(c));
    key_column_ = t.key_column();
  }

  py::object operator()(std::span<const std::byte> key, std::span<const std::byte> value) const {
    if (!unpackb_) return to_bytes(value);
    py::object v = unpackb_(to_bytes(value), py::arg("raw") = false);
    if (columns_.empty() || !PyList_Check(v.ptr())) return v;
    py::dict row;
    const py::list fields = v;
    const size_t n = std::min(fields.size(), columns_.size());
    for (size_t i = 0; i < n; ++i) {
      py::object f = fields[i];
      if (f.is_none() && key_column_ && *key_column_ == i)
        f = py::str(encoding_.column_text(key));
      if (!f.is_none()) row[columns_[i]] = f;
    }
    return row;
  }

  bool decodes() const { return static_cast<bool>(unpackb_); }

 private:
  KeyEncoding encoding_;
  py::object unpackb_;
  std::vector<py::str> columns_;
  std::optional<uint32_t> key_column_;
};
using DecoderRef = std::shared_ptr<const ValueDecoder>;

// A value handed out without a copy (copy=False): the bytes stay in their page, which this
// object keeps resident, as it keeps the database open. Exposed as a read-only buffer.
struct PyValue {
  DbRef db;
  Value value;
};

// Keys of one batch: the Keys and the copies some of them point into.
class KeyBatch {
 public:
  void add(py::handle obj, KeyEncoding encoding) {
    Key k = PyKey::make(obj, encoding, &scratch_);
    if (!scratch_.empty() && k.bytes().data() == reinterpret_cast<const std::byte*>(scratch_.data())) {
      // A copied buffer: kept where it stays put (a moved short string would not).
      copies_.push_back(std::move(scratch_));
      scratch_.clear();
      k = Key(std::string_view(copies_.back()));
    }
    keys_.push_back(k);
  }
  std::span<const Key> keys() const { return keys_; }
  void clear() {
    keys_.clear();
    copies_.clear();
  }

 private:
  std::vector<Key> keys_;
  std::string scratch_;
  std::deque<std::string> copies_;  // stable addresses
};

RangeOptions range_options(bool start_exclusive, bool end_exclusive, bool reverse) {
  return RangeOptions{.start_exclusive = start_exclusive,
                      .end_exclusive = end_exclusive,
                      .order = reverse ? SortOrder::descending : SortOrder::ascending};
}

// A bound as a query takes it: None for an open end.
class PyBound {
 public:
  PyBound(py::handle obj, KeyEncoding encoding) {
    if (!obj.is_none()) key_.emplace(obj, encoding);
  }
  KeyBound bound() const {
    if (key_) return KeyBound(key_->key());
    return KeyBound(unbounded);
  }

 private:
  std::optional<PyKey> key_;
};

// A prefix: bytes-like or str (UTF-8), whatever the table's key encoding (it applies to the
// encoded keys).
std::span<const std::byte> prefix_bytes(py::handle p, std::string* copy) {
  return PyKey::make(p, KeyEncoding::bytes(), copy).bytes();
}

// The rows of a range in chunks, read with the GIL released: a chunk's keys and values are
// copied into one buffer, then made Python objects. Range.__iter__ chains the chunks, so a
// row costs Python no call of ours.
template <class CursorT>
class Chunker {
 public:
  Chunker(DbRef db, BasicRange<CursorT> range, KeyEncoding key_encoding, DecoderRef decoder)
      : db_(std::move(db)),
        range_(std::move(range)),
        key_encoding_(key_encoding),
        int64_keys_(key_encoding.kind() == KeyKind::int64),
        decoder_(std::move(decoder)) {}

  py::list next_chunk() {
    // The chunk is read without the GIL: a second thread stepping the same iterator meanwhile
    // is refused, as a running generator refuses it.
    if (busy_) throw py::value_error("a range iterator is already being stepped by another thread");
    busy_ = true;
    struct Idle {
      bool* busy;
      ~Idle() { *busy = false; }
    } idle{&busy_};
    if (error_) {
      Error e = std::move(*error_);
      error_.reset();
      done_ = true;
      raise_error(e);
    }
    py::list out;
    if (done_) return out;
    // A first chunk small enough that next(iter(r)) reads little, but that holds a short range
    // whole (a range of 100 rows, one chunk); then larger ones.
    const size_t want = chunk_;
    chunk_ = std::min<size_t>(chunk_ * 4, 2048);
    bytes_.clear();
    spans_.clear();
    {
      py::gil_scoped_release unlocked;
      if (!started_) {
        it_.emplace(range_.begin());
        started_ = true;
      }
      auto& it = *it_;
      while (spans_.size() < want && !(it == std::default_sentinel)) {
        const Entry e = *it;
        spans_.push_back({bytes_.size(), e.key.size(), e.value.size()});
        bytes_.append(reinterpret_cast<const char*>(e.key.data()), e.key.size());
        bytes_.append(reinterpret_cast<const char*>(e.value.data()), e.value.size());
        ++it;
      }
      if (it == std::default_sentinel) {
        done_ = true;
        if (!range_.status()) error_ = range_.status().error();
      }
    }
    const auto* base = reinterpret_cast<const std::byte*>(bytes_.data());
    for (const Span& s : spans_) {
      const std::span<const std::byte> k(base + s.at, s.key), v(base + s.at + s.key, s.value);
      // The row's pair through the C API: py::make_tuple's casts cost a third of a row.
      py::object key = int64_keys_ && k.size() == 8
                           ? py::reinterpret_steal<py::object>(PyLong_FromLongLong(
                                 ordered_to_int64(detail::load_be64(k.data()))))
                           : key_to_python(k, key_encoding_);
      py::object value = (*decoder_)(k, v);
      if (!key || !value) throw py::error_already_set();
      PyObject* pair = PyTuple_New(2);
      if (pair == nullptr) throw py::error_already_set();
      PyTuple_SET_ITEM(pair, 0, key.release().ptr());
      PyTuple_SET_ITEM(pair, 1, value.release().ptr());
      const int appended = PyList_Append(out.ptr(), pair);
      Py_DECREF(pair);
      if (appended != 0) throw py::error_already_set();
    }
    if (out.empty() && error_) {
      Error e = std::move(*error_);
      error_.reset();
      raise_error(e);
    }
    return out;
  }

 private:
  struct Span {
    size_t at, key, value;
  };
  DbRef db_;
  BasicRange<CursorT> range_;
  KeyEncoding key_encoding_;
  bool int64_keys_;
  DecoderRef decoder_;
  std::optional<typename BasicRange<CursorT>::iterator> it_;
  bool started_ = false, done_ = false, busy_ = false;
  size_t chunk_ = 128;
  std::optional<Error> error_;
  std::string bytes_;
  std::vector<Span> spans_;
};

// A range's rows: len() is known without reading them; each iteration reads them again, from a
// query run again (the first iteration takes the range the first run gave).
template <class CursorT>
class PyRange {
 public:
  using Query = std::function<BasicRange<CursorT>()>;  // raises; run with the GIL held

  PyRange(DbRef db, Query query, bool reverse, KeyEncoding key_encoding, DecoderRef decoder)
      : db_(std::move(db)),
        query_(std::move(query)),
        first_(query_()),
        size_(first_->size()),
        reverse_(reverse),
        key_encoding_(key_encoding),
        decoder_(std::move(decoder)) {}

  uint64_t size() const { return size_; }
  bool reverse() const { return reverse_; }

  py::object iter() {
    db_->check_open();
    BasicRange<CursorT> range = first_ ? std::move(*first_) : query_();
    first_.reset();
    const py::object chunker =
        py::cast(Chunker<CursorT>(db_, std::move(range), key_encoding_, decoder_));
    const py::object next = chunker.attr("next_chunk");
    static py::object* chain =
        new py::object(py::module_::import("itertools").attr("chain").attr("from_iterable"));
    // iter(next, []) calls next() until it returns an empty chunk.
    py::object chunks = py::reinterpret_steal<py::object>(PyCallIter_New(next.ptr(), py::list().ptr()));
    if (!chunks) throw py::error_already_set();
    return (*chain)(chunks);
  }

 private:
  DbRef db_;
  Query query_;
  std::optional<BasicRange<CursorT>> first_;
  uint64_t size_;
  bool reverse_;
  KeyEncoding key_encoding_;
  DecoderRef decoder_;
};
using PyTableRange = PyRange<Cursor>;
using PyIndexRange = PyRange<IndexCursor>;

class PyCursor {
 public:
  PyCursor(DbRef db, const ReadOnlyTable& t, DecoderRef decoder)
      : db_(std::move(db)), cursor_(t.cursor()), encoding_(t.encoding()), decoder_(std::move(decoder)) {}

  bool first() {
    db_->check_open();
    return moved(cursor_.first());
  }
  bool last() {
    db_->check_open();
    return moved(cursor_.last());
  }
  bool next() {
    db_->check_open();
    return moved(cursor_.valid() && cursor_.next());
  }
  bool prev() {
    db_->check_open();
    return moved(cursor_.valid() && cursor_.prev());
  }
  bool seek(py::handle key) {
    db_->check_open();
    const PyKey k(key, encoding_);
    return moved(cursor_.seek(k.key()));
  }
  bool seek_exact(py::handle key) {
    db_->check_open();
    const PyKey k(key, encoding_);
    const bool exact = cursor_.seek_exact(k.key());
    moved(cursor_.valid());
    return exact;
  }
  bool valid() const { return cursor_.valid(); }
  py::object key() const {
    on_row();
    return key_to_python(cursor_.key(), encoding_);
  }
  py::object value() const {
    on_row();
    const Entry e = cursor_.entry();
    if (!cursor_.status()) raise_error(cursor_.status().error());
    return (*decoder_)(e.key, e.value);
  }
  uint64_t rank() const {
    on_row();
    return cursor_.rank();
  }

 private:
  bool moved(bool valid) {
    if (!valid && !cursor_.status()) raise_error(cursor_.status().error());
    return valid;
  }
  void on_row() const {
    db_->check_open();
    if (!cursor_.valid()) raise_error(errc::invalid_state, "the cursor is not on a row");
  }

  DbRef db_;
  Cursor cursor_;
  KeyEncoding encoding_;
  DecoderRef decoder_;
};

class PyIndex {
 public:
  PyIndex(DbRef db, SecondaryIndex ix, KeyEncoding table_encoding, DecoderRef decoder)
      : db_(std::move(db)), ix_(ix), table_encoding_(table_encoding), decoder_(std::move(decoder)) {}

  py::object get(py::handle key, py::object dflt) const {
    db_->check_open();
    const PyKey k(key, ix_.encoding());
    Row row = unwrap(ix_.get(k.key()));
    if (!row) return dflt;
    return py::make_tuple(key_to_python(row.key(), table_encoding_),
                          (*decoder_)(row.key(), row.value()));
  }
  PyIndexRange get_all(py::object key) const { return range(key, key, false, false, false); }
  PyIndexRange range(py::object start, py::object end, bool start_exclusive, bool end_exclusive,
                     bool reverse) const {
    db_->check_open();
    const RangeOptions o = range_options(start_exclusive, end_exclusive, reverse);
    return wrap([ix = ix_, start, end, o] {
      const PyBound s(start, ix.encoding()), e(end, ix.encoding());
      return unwrap(ix.get_range(s.bound(), e.bound(), o));
    }, reverse);
  }
  uint64_t count_range(py::handle start, py::handle end, bool start_exclusive,
                       bool end_exclusive) const {
    db_->check_open();
    const PyBound s(start, ix_.encoding()), e(end, ix_.encoding());
    const RangeOptions o = range_options(start_exclusive, end_exclusive, false);
    result<uint64_t> n = Error();
    {
      py::gil_scoped_release unlocked;
      n = ix_.count_range(s.bound(), e.bound(), o);
    }
    return unwrap(std::move(n));
  }
  PyIndexRange prefix(py::object p, bool reverse) const {
    db_->check_open();
    return wrap([ix = ix_, p, reverse] {
      std::string copy;
      const auto bytes = prefix_bytes(p, &copy);
      return unwrap(ix.prefix(bytes, reverse ? SortOrder::descending : SortOrder::ascending));
    }, reverse);
  }
  uint64_t size() const { return ix_.count(); }
  std::string name() const { return std::string(ix_.name()); }
  bool unique() const { return ix_.unique(); }
  std::string key_encoding() const { return std::string(ix_.encoding().id()); }

 private:
  PyIndexRange wrap(PyIndexRange::Query q, bool reverse) const {
    return PyIndexRange(db_, std::move(q), reverse, table_encoding_, decoder_);
  }

  DbRef db_;
  SecondaryIndex ix_;
  KeyEncoding table_encoding_;
  DecoderRef decoder_;
};

class PyTable {
 public:
  PyTable(DbRef db, const ReadOnlyTable& t, const std::optional<std::string>& decode)
      : db_(std::move(db)), t_(t), decoder_(std::make_shared<ValueDecoder>(t, decode)) {}

  py::object get(py::handle key, py::object dflt, bool copy) const {
    db_->check_open();
    const PyKey k(key, t_.encoding());
    Value v = unwrap(t_.get(k.key()));
    if (!v) return dflt;
    return value_object(k.key().bytes(), std::move(v), copy);
  }
  py::object getitem(py::handle key) const {
    db_->check_open();
    const PyKey k(key, t_.encoding());
    Value v = unwrap(t_.get(k.key()));
    if (!v) {
      PyErr_SetObject(PyExc_KeyError, key.ptr());  // as a dict does: the key itself
      throw py::error_already_set();
    }
    return value_object(k.key().bytes(), std::move(v), true);
  }
  bool contains(py::handle key) const {
    db_->check_open();
    const PyKey k(key, t_.encoding());
    return static_cast<bool>(unwrap(t_.get(k.key())));
  }

  // A list of the keys' values (None for an absent key), looked up in batches with the GIL
  // released.
  py::list get_many(py::handle keys, bool copy) const {
    db_->check_open();
    constexpr size_t kBatch = 4096;
    // A list or tuple as it is, any other iterable as a list: it holds the keys while their
    // Keys point into them.
    const py::object seq = py::reinterpret_steal<py::object>(
        PySequence_Fast(keys.ptr(), "get_many takes an iterable of keys"));
    if (!seq) throw py::error_already_set();
    const size_t n = static_cast<size_t>(PySequence_Fast_GET_SIZE(seq.ptr()));
    PyObject** items = PySequence_Fast_ITEMS(seq.ptr());
    py::list out(n);
    KeyBatch batch;
    std::vector<Value> values;
    const KeyEncoding enc = t_.encoding();
    for (size_t at = 0; at < n; at += kBatch) {
      const size_t m = std::min(kBatch, n - at);
      batch.clear();
      for (size_t i = 0; i < m; ++i)
        batch.add(items[at + i], enc);
      values.clear();
      values.resize(m);
      status st;
      {
        py::gil_scoped_release unlocked;
        st = t_.get_many(batch.keys(), values);
      }
      check(st);
      for (size_t i = 0; i < m; ++i) {
        py::object v = values[i] ? value_object(batch.keys()[i].bytes(), std::move(values[i]), copy)
                                 : py::none();
        PyList_SET_ITEM(out.ptr(), static_cast<Py_ssize_t>(at + i), v.release().ptr());
      }
    }
    return out;
  }

  PyTableRange range(py::object start, py::object end, bool start_exclusive, bool end_exclusive,
                     bool reverse) const {
    db_->check_open();
    const RangeOptions o = range_options(start_exclusive, end_exclusive, reverse);
    return wrap([t = t_, start, end, o] {
      const PyBound s(start, t.encoding()), e(end, t.encoding());
      return unwrap(t.get_range(s.bound(), e.bound(), o));
    }, reverse);
  }
  uint64_t count_range(py::handle start, py::handle end, bool start_exclusive,
                       bool end_exclusive) const {
    db_->check_open();
    const PyBound s(start, t_.encoding()), e(end, t_.encoding());
    const RangeOptions o = range_options(start_exclusive, end_exclusive, false);
    result<uint64_t> n = Error();
    {
      py::gil_scoped_release unlocked;
      n = t_.count_range(s.bound(), e.bound(), o);
    }
    return unwrap(std::move(n));
  }
  PyTableRange prefix(py::object p, bool reverse) const {
    db_->check_open();
    return wrap([t = t_, p, reverse] {
      std::string copy;
      const auto bytes = prefix_bytes(p, &copy);
      return unwrap(t.prefix(bytes, reverse ? SortOrder::descending : SortOrder::ascending));
    }, reverse);
  }
  PyCursor cursor() const {
    db_->check_open();
    return PyCursor(db_, t_, decoder_);
  }
  PyIndex index(const std::string& name) const {
    db_->check_open();
    return PyIndex(db_, unwrap(t_.index(name)), t_.encoding(), decoder_);
  }
  std::vector<PyIndex> indexes() const {
    db_->check_open();
    std::vector<PyIndex> out;
    for (const SecondaryIndex& ix : t_.indexes())
      out.emplace_back(db_, ix, t_.encoding(), decoder_);
    return out;
  }

  uint64_t size() const {
    db_->check_open();
    return t_.count();
  }
  std::string name() const { return std::string(t_.name()); }
  std::string key_encoding() const { return std::string(t_.encoding().id()); }
  std::vector<std::string> columns() const {
    return std::vector<std::string>(t_.columns().begin(), t_.columns().end());
  }

 private:
  py::object value_object(std::span<const std::byte> key, Value v, bool copy) const {
    if (decoder_->decodes()) return (*decoder_)(key, v.bytes());
    if (copy) return to_bytes(v.bytes());
    py::object holder = py::cast(PyValue{db_, std::move(v)});
    return py::memoryview(holder);
  }
  PyTableRange wrap(PyTableRange::Query q, bool reverse) const {
    return PyTableRange(db_, std::move(q), reverse, t_.encoding(), decoder_);
  }

  DbRef db_;
  ReadOnlyTable t_;
  DecoderRef decoder_;
};

// Table.get, t[key] and `key in t` called the C API's way (vectorcall): pybind11's dispatcher
// costs more than the lookup itself (about 130 ns a call against 40 ns), and these are the
// calls a Python loop makes by the million. Same arguments and errors as the bound methods.
template <class F>
PyObject* translate_errors(F&& f) noexcept {
  try {
    return f().release().ptr();
  } catch (py::error_already_set& e) {
    e.restore();
  } catch (py::builtin_exception& e) {
    e.set_error();
  } catch (const std::bad_alloc&) {
    PyErr_NoMemory();
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
  return nullptr;
}

PyObject* table_get(PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                    PyObject* kwnames) noexcept {
  return translate_errors([&]() -> py::object {
    PyObject* key = nargs > 0 ? args[0] : nullptr;
    PyObject* dflt = nargs > 1 ? args[1] : Py_None;
    bool copy = true;
    if (nargs > 2) throw py::type_error("get() takes at most 2 positional arguments");
    const Py_ssize_t nkw = kwnames != nullptr ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t i = 0; i < nkw; ++i) {
      const std::string_view name = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, i));
      PyObject* v = args[nargs + i];
      if (name == "key" && key == nullptr)
        key = v;
      else if (name == "default" && nargs < 2)
        dflt = v;
      else if (name == "copy")
        copy = PyObject_IsTrue(v) != 0;
      else
        throw py::type_error("get() got an unexpected or repeated argument '" + std::string(name) + "'");
    }
    if (key == nullptr) throw py::type_error("get() missing its argument 'key'");
    return py::cast<const PyTable&>(py::handle(self))
        .get(key, py::reinterpret_borrow<py::object>(dflt), copy);
  });
}

PyObject* table_getitem(PyObject* self, PyObject* const* args, Py_ssize_t nargs) noexcept {
  return translate_errors([&]() -> py::object {
    if (nargs != 1) throw py::type_error("__getitem__ takes one key");
    return py::cast<const PyTable&>(py::handle(self)).getitem(args[0]);
  });
}

PyObject* table_contains(PyObject* self, PyObject* const* args, Py_ssize_t nargs) noexcept {
  return translate_errors([&]() -> py::object {
    if (nargs != 1) throw py::type_error("__contains__ takes one key");
    return py::bool_(py::cast<const PyTable&>(py::handle(self)).contains(args[0]));
  });
}

// Sets `def` as method def->ml_name of the bound class `cls`, replacing pybind11's.
void set_fast_method(py::handle cls, PyMethodDef* def) {
  PyObject* descr = PyDescr_NewMethod(reinterpret_cast<PyTypeObject*>(cls.ptr()), def);
  if (descr == nullptr || PyObject_SetAttrString(cls.ptr(), def->ml_name, descr) != 0) {
    Py_XDECREF(descr);
    throw py::error_already_set();
  }
  Py_DECREF(descr);
}

template <class CursorT>
void bind_range(py::module_& m, const char* name, const char* chunks_name) {
  using R = PyRange<CursorT>;
  py::class_<Chunker<CursorT>>(m, chunks_name, "Internal: the chunks of rows of a range iteration.")
      .def("next_chunk", &Chunker<CursorT>::next_chunk);
  py::class_<R>(m, name,
                "Rows between two bounds, as (key, value) pairs in key order (or reversed). "
                "len() is known up front; each iteration reads the rows again.")
      .def("__len__", &R::size)
      .def("__iter__", &R::iter)
      .def_property_readonly("reverse", &R::reverse);
}

}  // namespace

py::object make_table(const DbRef& h, const ReadOnlyTable& t, std::optional<std::string> decode) {
  return py::cast(PyTable(h, t, decode));
}

void bind_table(py::module_& m) {
  py::class_<PyValue>(m, "Value", py::buffer_protocol(),
                      "A value read in place (get(..., copy=False)); seen through a memoryview. "
                      "Keeps its page and database alive.")
      .def_buffer([](PyValue& v) {
        return py::buffer_info(const_cast<std::byte*>(v.value.bytes().data()), 1, "B", 1,
                               {static_cast<py::ssize_t>(v.value.size())}, {1}, /*readonly=*/true);
      });

  bind_range<Cursor>(m, "Range", "_RangeChunks");
  bind_range<IndexCursor>(m, "IndexRange", "_IndexRangeChunks");

  py::class_<PyCursor>(m, "Cursor",
                       "A position among a table's rows. Each move returns whether it is on a "
                       "row.")
      .def("first", &PyCursor::first)
      .def("last", &PyCursor::last)
      .def("next", &PyCursor::next)
      .def("prev", &PyCursor::prev)
      .def("seek", &PyCursor::seek, py::arg("key"), "To the first row whose key is >= key.")
      .def("seek_exact", &PyCursor::seek_exact, py::arg("key"),
           "As seek; returns whether that row's key is key.")
      .def_property_readonly("valid", &PyCursor::valid)
      .def_property_readonly("key", &PyCursor::key)
      .def_property_readonly("value", &PyCursor::value)
      .def_property_readonly("rank", &PyCursor::rank, "The row's position in key order.");

  py::class_<PyIndex>(m, "Index",
                      "A secondary index: rows as (primary_key, value), in index-key order "
                      "(rows of one index key in primary-key order).")
      .def("get", &PyIndex::get, py::arg("key"), py::arg("default") = py::none(),
           "The first row of index key `key`, as (primary_key, value), or default.")
      .def("get_all", &PyIndex::get_all, py::arg("key"))
      .def("range", &PyIndex::range, py::arg("start") = py::none(), py::arg("end") = py::none(),
           py::kw_only(), py::arg("start_exclusive") = false, py::arg("end_exclusive") = false,
           py::arg("reverse") = false)
      .def("count_range", &PyIndex::count_range, py::arg("start") = py::none(),
           py::arg("end") = py::none(), py::kw_only(), py::arg("start_exclusive") = false,
           py::arg("end_exclusive") = false)
      .def("prefix", &PyIndex::prefix, py::arg("prefix"), py::arg("reverse") = false)
      .def("__len__", &PyIndex::size)
      .def_property_readonly("name", &PyIndex::name)
      .def_property_readonly("unique", &PyIndex::unique)
      .def_property_readonly("key_encoding", &PyIndex::key_encoding);

  py::class_<PyTable> table(m, "Table", "A table of an open database (Database.table).");
  table
      // get, __getitem__ and __contains__: set_fast_method below.
      .def("__len__", &PyTable::size)
      .def("get_many", &PyTable::get_many, py::arg("keys"), py::kw_only(), py::arg("copy") = true,
           "The values of many keys at once (None for an absent key), looked up in batches "
           "without the GIL.")
      .def("range", &PyTable::range, py::arg("start") = py::none(), py::arg("end") = py::none(),
           py::kw_only(), py::arg("start_exclusive") = false, py::arg("end_exclusive") = false,
           py::arg("reverse") = false,
           "The rows from start to end (None: open), inclusive unless told otherwise.")
      .def("count_range", &PyTable::count_range, py::arg("start") = py::none(),
           py::arg("end") = py::none(), py::kw_only(), py::arg("start_exclusive") = false,
           py::arg("end_exclusive") = false, "How many rows range() would give, in O(log n).")
      .def("prefix", &PyTable::prefix, py::arg("prefix"), py::arg("reverse") = false,
           "The rows whose encoded key starts with prefix (bytes or str).")
      .def("cursor", &PyTable::cursor)
      .def("index", &PyTable::index, py::arg("name"))
      .def("indexes", &PyTable::indexes)
      .def_property_readonly("name", &PyTable::name)
      .def_property_readonly("key_encoding", &PyTable::key_encoding)
      .def_property_readonly("columns", &PyTable::columns)
      .def("__repr__", [](const PyTable& t) { return "<drydb.Table " + t.name() + ">"; });

  static PyMethodDef get_def{
      "get", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(table_get)),
      METH_FASTCALL | METH_KEYWORDS,
      "get(key, default=None, *, copy=True)\n\nThe value of key, or default. copy=False gives a "
      "memoryview of the value in place."};
  static PyMethodDef getitem_def{
      "__getitem__", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(table_getitem)),
      METH_FASTCALL, "The value of key; KeyError when absent."};
  static PyMethodDef contains_def{
      "__contains__", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(table_contains)),
      METH_FASTCALL, "Whether the table has key."};
  set_fast_method(table, &get_def);
  set_fast_method(table, &getitem_def);
  set_fast_method(table, &contains_def);
}

}  // namespace drydb::python
