// drydb.Index and drydb.DatasetIndex: a secondary index's queries for Python, over one file's
// index (SecondaryIndex, IndexRange) or a dataset's across its shards (ShardedIndex,
// ShardedIndexRange). Rows come as (primary_key, value).
#pragma once

#include <string>
#include <utility>

#include "bindings.h"
#include "errors.h"
#include "keys.h"
#include "rows.h"

namespace drydb::python {

template <class IndexT, class RangeT>
class PyIndexOf {
 public:
  using PyIndexRange = PyRange<RangeT>;

  PyIndexOf(HandleRef db, IndexT ix, KeyEncoding table_encoding, DecoderRef decoder)
      : db_(std::move(db)),
        ix_(ix),
        table_encoding_(table_encoding),
        decoder_(std::move(decoder)) {}

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
    return wrap(
        [ix = ix_, start, end, o] {
          const PyBound s(start, ix.encoding()), e(end, ix.encoding());
          return unwrap(ix.get_range(s.bound(), e.bound(), o));
        },
        reverse);
  }
  uint64_t count_range(py::handle start, py::handle end, bool start_exclusive,
                       bool end_exclusive) const {
    db_->check_open();
    return count_between(ix_, start, end, start_exclusive, end_exclusive);
  }
  PyIndexRange prefix(py::object p, bool reverse) const {
    db_->check_open();
    return wrap(
        [ix = ix_, p, reverse] {
          std::string copy;
          const auto bytes = prefix_bytes(p, &copy);
          return unwrap(ix.prefix(bytes, reverse ? SortOrder::descending : SortOrder::ascending));
        },
        reverse);
  }
  uint64_t size() const {
    db_->check_open();
    return ix_.count();
  }
  py::str name() const { return text(ix_.name()); }
  bool unique() const { return ix_.unique(); }
  py::str key_encoding() const { return text(ix_.encoding().id()); }

 private:
  PyIndexRange wrap(typename PyIndexRange::Query q, bool reverse) const {
    return PyIndexRange(db_, std::move(q), reverse, table_encoding_, decoder_);
  }

  HandleRef db_;
  IndexT ix_;
  KeyEncoding table_encoding_;
  DecoderRef decoder_;
};

// Binds PyIndexT (a PyIndexOf) as the class `name` of `m`.
template <class PyIndexT>
void bind_index(py::module_& m, const char* name, const char* doc) {
  py::class_<PyIndexT>(m, name, doc)
      .def("get", &PyIndexT::get, py::arg("key"), py::arg("default") = py::none(),
           "The first row of index key `key`, as (primary_key, value), or default.")
      .def("get_all", &PyIndexT::get_all, py::arg("key"))
      .def("range", &PyIndexT::range, py::arg("start") = py::none(), py::arg("end") = py::none(),
           py::kw_only(), py::arg("start_exclusive") = false, py::arg("end_exclusive") = false,
           py::arg("reverse") = false)
      .def("count_range", &PyIndexT::count_range, py::arg("start") = py::none(),
           py::arg("end") = py::none(), py::kw_only(), py::arg("start_exclusive") = false,
           py::arg("end_exclusive") = false)
      .def("prefix", &PyIndexT::prefix, py::arg("prefix"), py::arg("reverse") = false)
      .def("__len__", &PyIndexT::size)
      .def_property_readonly("name", &PyIndexT::name)
      .def_property_readonly("unique", &PyIndexT::unique)
      .def_property_readonly("key_encoding", &PyIndexT::key_encoding);
}

}  // namespace drydb::python
