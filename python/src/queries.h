// The queries every sorted source of rows gives Python, written once: a table, an index, and
// either of a dataset's across its shards (table.h and index.h add what is theirs). A source Q
// has name(), encoding(), count(), and get_range, count_range and prefix giving results, its
// ranges of type R.
#pragma once

#include <string>
#include <utility>

#include "bindings.h"
#include "errors.h"
#include "keys.h"
#include "rows.h"

namespace drydb::python {

template <class Q, class R>
class PyRangeQueries {
 public:
  using PyRangeT = PyRange<R>;

  // Rows come out keyed in `row_keys`: the table's encoding, also for an index (whose rows are
  // its table's), while bounds are in q's own.
  PyRangeQueries(HandleRef h, Q q, KeyEncoding row_keys, DecoderRef decoder)
      : h_(std::move(h)), q_(std::move(q)), row_keys_(row_keys), decoder_(std::move(decoder)) {}

  PyRangeT range(py::object start, py::object end, bool start_exclusive, bool end_exclusive,
                 bool reverse) const {
    h_->check_open();
    const RangeOptions o = range_options(start_exclusive, end_exclusive, reverse);
    return rows(
        [q = q_, start, end, o] {
          const PyBound s(start, q.encoding()), e(end, q.encoding());
          return unwrap(q.get_range(s.bound(), e.bound(), o));
        },
        reverse);
  }
  uint64_t count_range(py::handle start, py::handle end, bool start_exclusive,
                       bool end_exclusive) const {
    h_->check_open();
    return count_between(q_, start, end, start_exclusive, end_exclusive);
  }
  PyRangeT prefix(py::object p, bool reverse) const {
    h_->check_open();
    return rows(
        [q = q_, p, reverse] {
          std::string copy;
          const auto bytes = prefix_bytes(p, &copy);
          return unwrap(q.prefix(bytes, reverse ? SortOrder::descending : SortOrder::ascending));
        },
        reverse);
  }
  uint64_t size() const {
    h_->check_open();
    return q_.count();
  }
  py::str name() const { return text(q_.name()); }
  py::str key_encoding() const { return text(q_.encoding().id()); }

 protected:
  PyRangeT rows(typename PyRangeT::Query query, bool reverse) const {
    return PyRangeT(h_, std::move(query), reverse, row_keys_, decoder_);
  }

  HandleRef h_;
  Q q_;
  KeyEncoding row_keys_;
  DecoderRef decoder_;
};

// Binds the PyRangeQueries of the class `c` binds (a class derived from one).
template <class PyT>
void bind_range_queries(py::class_<PyT>& c) {
  c.def("__len__", &PyT::size)
      .def("range", &PyT::range, py::arg("start") = py::none(), py::arg("end") = py::none(),
           py::kw_only(), py::arg("start_exclusive") = false, py::arg("end_exclusive") = false,
           py::arg("reverse") = false,
           "The rows from start to end (None: open), inclusive unless told otherwise.")
      .def("count_range", &PyT::count_range, py::arg("start") = py::none(),
           py::arg("end") = py::none(), py::kw_only(), py::arg("start_exclusive") = false,
           py::arg("end_exclusive") = false,
           "How many rows range() would give, from the trees' row counts: no row is read.")
      .def("prefix", &PyT::prefix, py::arg("prefix"), py::arg("reverse") = false,
           "The rows whose encoded key starts with prefix (bytes or str).")
      .def_property_readonly("name", &PyT::name)
      .def_property_readonly("key_encoding", &PyT::key_encoding);
}

}  // namespace drydb::python
