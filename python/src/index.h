// drydb.Index and drydb.DatasetIndex: a secondary index's queries for Python, over one file's
// index (SecondaryIndex, IndexRange) or a dataset's across its shards (ShardedIndex,
// ShardedIndexRange). Rows come as (primary_key, value).
#pragma once

#include <utility>

#include "bindings.h"
#include "errors.h"
#include "keys.h"
#include "queries.h"
#include "rows.h"

namespace drydb::python {

template <class IndexT, class RangeT>
class PyIndexOf : public PyRangeQueries<IndexT, RangeT> {
 public:
  using typename PyRangeQueries<IndexT, RangeT>::PyRangeT;

  PyIndexOf(HandleRef db, IndexT ix, KeyEncoding table_encoding, DecoderRef decoder)
      : PyRangeQueries<IndexT, RangeT>(std::move(db), std::move(ix), table_encoding,
                                       std::move(decoder)) {}

  py::object get(py::handle key, py::object dflt) const {
    this->h_->check_open();
    const PyKey k(key, this->q_.encoding());
    Row row = unwrap(this->q_.get(k.key()));
    if (!row) return dflt;
    return py::make_tuple(key_to_python(row.key(), this->row_keys_),
                          (*this->decoder_)(row.key(), row.value()));
  }
  PyRangeT get_all(py::object key) const { return this->range(key, key, false, false, false); }
  bool unique() const { return this->q_.unique(); }
};

// Binds PyIndexT (a PyIndexOf) as the class `name` of `m`.
template <class PyIndexT>
void bind_index(py::module_& m, const char* name, const char* doc) {
  py::class_<PyIndexT> c(m, name, doc);
  bind_range_queries(c);
  c.def("get", &PyIndexT::get, py::arg("key"), py::arg("default") = py::none(),
        "The first row of index key `key`, as (primary_key, value), or default.")
      .def("get_all", &PyIndexT::get_all, py::arg("key"))
      .def_property_readonly("unique", &PyIndexT::unique);
}

}  // namespace drydb::python
