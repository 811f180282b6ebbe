// What the tables, indexes and datasets of the extension share to give rows: values as Python
// objects (ValueDecoder), bounds and prefixes as queries take them, and a range's rows read in
// chunks without the GIL (Chunker, PyRange), for any range type R with begin(), an iterator that
// compares equal to std::default_sentinel at the end and yields Entry, and status().
#pragma once

#include <pybind11/pybind11.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "bindings.h"
#include "errors.h"
#include "keys.h"

namespace drydb::python {

// The iterator Range.__iter__ returns: the rows of next_chunk()'s chunks (row_iterator.cpp).
py::object make_row_iterator(py::object next_chunk);
void bind_row_iterator(py::module_& m);

// How a table handle gives values: bytes, or decoded from MessagePack (a row of a table with
// columns as a dict of its non-nil fields, the key column's nil as the key's text).
class ValueDecoder {
 public:
  ValueDecoder(const ReadOnlyTable& t, const std::optional<std::string>& decode)
      : encoding_(t.encoding()) {
    if (!decode) return;
    if (*decode != "msgpack")
      raise_error(errc::invalid_argument, "decode '" + *decode + "' is not 'msgpack' or None");
    unpackb_ = py::module_::import("msgpack").attr("unpackb");
    for (const std::string& c : t.columns())
      columns_.push_back(py::str(c));
    key_column_ = t.key_column();
  }

  py::object operator()(std::span<const std::byte> key, std::span<const std::byte> value) const {
    if (!unpackb_) return to_bytes(value);
    // strict_map_key=False: maps keyed by integers (what msgpack.h packs from a std::map<int,
    // ...>) decode too.
    py::object v =
        unpackb_(to_bytes(value), py::arg("raw") = false, py::arg("strict_map_key") = false);
    if (columns_.empty() || !PyList_Check(v.ptr())) return v;
    py::dict row;
    const py::list fields = v;
    const size_t n = std::min(fields.size(), columns_.size());
    for (size_t i = 0; i < n; ++i) {
      py::object f = fields[i];
      if (f.is_none() && key_column_ && *key_column_ == i) f = text(encoding_.column_text(key));
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

inline RangeOptions range_options(bool start_exclusive, bool end_exclusive, bool reverse) {
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

// count_range of a table, index or dataset table `t` between two Python bounds (None: open),
// counted without the GIL.
template <class T>
uint64_t count_between(const T& t, py::handle start, py::handle end, bool start_exclusive,
                       bool end_exclusive) {
  const PyBound s(start, t.encoding()), e(end, t.encoding());
  const RangeOptions o = range_options(start_exclusive, end_exclusive, false);
  result<uint64_t> n = Error();
  {
    py::gil_scoped_release unlocked;
    n = t.count_range(s.bound(), e.bound(), o);
  }
  return unwrap(std::move(n));
}

// A prefix: bytes-like or str (UTF-8), whatever the table's key encoding (it applies to the
// encoded keys).
inline std::span<const std::byte> prefix_bytes(py::handle p, std::string* copy) {
  return PyKey::make(p, KeyEncoding::bytes(), copy).bytes();
}

// The rows of a range in chunks, read with the GIL released: a chunk's keys and values are
// copied into one buffer, then made Python objects. Range.__iter__ hands out the chunks' rows
// from a _RowIterator (row_iterator.cpp), so a row costs Python no call of ours.
template <class R>
class Chunker {
 public:
  Chunker(HandleRef db, R range, KeyEncoding key_encoding, DecoderRef decoder)
      : db_(std::move(db)),
        range_(std::move(range)),
        key_encoding_(key_encoding),
        int64_keys_(key_encoding.kind() == KeyKind::int64),
        decoder_(std::move(decoder)) {}

  py::list next_chunk() {
    // The chunk is read without the GIL: a second thread stepping the same iterator meanwhile
    // waits for it here, without the GIL (the first needs the GIL back to finish), then reads
    // the next chunk.
    std::unique_lock<std::mutex> lock(*mutex_, std::try_to_lock);
    if (!lock.owns_lock()) {
      py::gil_scoped_release unlocked;
      lock.lock();
    }
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
        const auto e = *it;  // an Entry, or a ShardedIndexEntry
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
      py::object key =
          int64_keys_ && k.size() == 8
              ? py::reinterpret_steal<py::object>(PyLong_FromLongLong(decode_int64_key(k.data())))
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
  HandleRef db_;
  R range_;
  KeyEncoding key_encoding_;
  bool int64_keys_;
  DecoderRef decoder_;
  std::optional<typename R::iterator> it_;
  bool started_ = false, done_ = false;
  std::unique_ptr<std::mutex> mutex_ = std::make_unique<std::mutex>();  // one chunk at a time
  size_t chunk_ = 128;
  std::optional<Error> error_;
  std::string bytes_;
  std::vector<Span> spans_;
};

// A range's rows: len() is known without reading them; each iteration reads them again, from a
// query run again (the first iteration takes the range the first run gave).
template <class R>
class PyRange {
 public:
  using Query = std::function<R()>;  // raises; run with the GIL held

  PyRange(HandleRef db, Query query, bool reverse, KeyEncoding key_encoding, DecoderRef decoder)
      : db_(std::move(db)),
        query_(std::move(query)),
        first_(query_()),
        size_(first_->size()),
        reverse_(reverse),
        key_encoding_(key_encoding),
        decoder_(std::move(decoder)) {}

  uint64_t size() const {
    db_->check_open();
    return size_;
  }
  bool reverse() const { return reverse_; }

  py::object iter() {
    db_->check_open();
    R range = first_ ? std::move(*first_) : query_();
    first_.reset();
    const py::object chunker = py::cast(Chunker<R>(db_, std::move(range), key_encoding_, decoder_));
    return make_row_iterator(chunker.attr("next_chunk"));
  }

 private:
  HandleRef db_;
  Query query_;
  std::optional<R> first_;
  uint64_t size_;
  bool reverse_;
  KeyEncoding key_encoding_;
  DecoderRef decoder_;
};

template <class R>
void bind_range(py::module_& m, const char* name, const char* chunks_name) {
  using Rows = PyRange<R>;
  py::class_<Chunker<R>>(m, chunks_name, "Internal: the chunks of rows of a range iteration.")
      .def("next_chunk", &Chunker<R>::next_chunk);
  py::class_<Rows>(m, name,
                   "Rows between two bounds, as (key, value) pairs in key order (or reversed). "
                   "len() is known up front; each iteration reads the rows again.")
      .def("__len__", &Rows::size)
      .def("__iter__", &Rows::iter)
      .def_property_readonly("reverse", &Rows::reverse);
}

}  // namespace drydb::python
