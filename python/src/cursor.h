// drydb.Cursor and drydb.DatasetCursor: a position among a table's rows for Python, over one
// file's table (Cursor) or a range-partitioned dataset's across its shards (ShardedCursor).
#pragma once

#include <utility>

#include "bindings.h"
#include "errors.h"
#include "keys.h"
#include "rows.h"

namespace drydb::python {

template <class CursorT>
class PyCursorOf {
 public:
  PyCursorOf(HandleRef db, CursorT cursor, KeyEncoding encoding, DecoderRef decoder)
      : db_(std::move(db)),
        cursor_(std::move(cursor)),
        encoding_(encoding),
        decoder_(std::move(decoder)) {}

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
  bool valid() const {
    db_->check_open();
    return cursor_.valid();
  }
  py::object key() const {
    on_row();
    return key_to_python(cursor_.key(), encoding_);
  }
  py::object value() const {
    on_row();
    const auto value = cursor_.value();
    if (!cursor_.status()) raise_error(cursor_.status().error());
    return (*decoder_)(cursor_.key(), value);
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

  HandleRef db_;
  CursorT cursor_;
  KeyEncoding encoding_;
  DecoderRef decoder_;
};

// Binds a PyCursorOf as `name`.
template <class PyCursorT>
void bind_cursor(py::module_& m, const char* name, const char* doc) {
  py::class_<PyCursorT>(m, name, doc)
      .def("first", &PyCursorT::first)
      .def("last", &PyCursorT::last)
      .def("next", &PyCursorT::next)
      .def("prev", &PyCursorT::prev)
      .def("seek", &PyCursorT::seek, py::arg("key"), "To the first row whose key is >= key.")
      .def("seek_exact", &PyCursorT::seek_exact, py::arg("key"),
           "As seek; returns whether that row's key is key.")
      .def_property_readonly("valid", &PyCursorT::valid)
      .def_property_readonly("key", &PyCursorT::key)
      .def_property_readonly("value", &PyCursorT::value)
      .def_property_readonly("rank", &PyCursorT::rank, "The row's position in key order.");
}

}  // namespace drydb::python
