// The records `drydb build` reads, one at a time: a CSV/TSV record's fields
// or a JSON Lines record's object, and what the build takes from them (a key
// column's field, a --value column's text, the record as MessagePack).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "io/json.h"
#include "io/msgpack.h"

namespace drydb::cli {

// A column of the input: by name, and by position for CSV/TSV.
struct Column {
  static constexpr size_t npos = static_cast<size_t>(-1);
  std::string name;
  size_t position = npos;  // CSV/TSV: the column's place in the header; npos for none
};

class Record {
 public:
  virtual ~Record() = default;
  virtual Scalar field(const Column& c) const = 0;
  // The column's text for a value stored as it is; false when missing.
  virtual bool raw(const Column& c, std::string* out) const = 0;
  // The record as MessagePack; false, with *error, for a JSON number no
  // MessagePack value holds (json_to_msgpack): the record is then a bad row.
  virtual bool to_msgpack(MsgpackWriter& w, bool omit_empty, std::string* error) const = 0;
  // The column's field exactly as msgpack_field reads it back from the bytes
  // to_msgpack(omit_empty) writes, without writing them: missing where
  // to_msgpack leaves it out, a number as json_to_msgpack converts it and with
  // no text (the bytes keep none, so scalar_text prints the value, not the
  // number as written). cli_unit_test checks the two against each other. Asked
  // only of a record to_msgpack took.
  virtual Scalar stored_field(const Column& c, bool omit_empty) const = 0;
};

// A CSV/TSV record: its fields, named by the header's columns.
class CsvRecord : public Record {
 public:
  const std::vector<std::string>* header = nullptr;
  // The fields with each {"base64":...} or {"msgpack":...} form decoded (what
  // field() and raw() give: a key, a --value), and as read: a record stored as
  // MessagePack (to_msgpack, to_row, stored_field) holds the text.
  std::vector<std::string_view> fields, text_fields;

  Scalar field(const Column& c) const override;
  bool raw(const Column& c, std::string* out) const override;
  bool to_msgpack(MsgpackWriter& w, bool omit_empty, std::string* error) const override;
  Scalar stored_field(const Column& c, bool omit_empty) const override;
  // The record as a row of the header's columns (a table with a column list,
  // TableBuilder::set_columns): each field as a string in column order; nil
  // for an empty one with omit_empty (the trailing ones left out), and at
  // `key_position` when the field is `key_text`, the key's column text
  // (KeyEncoding::column_text), which the nil stands for. stored_field
  // gives what msgpack_row_field reads back of it.
  void to_row(MsgpackWriter& w, bool omit_empty, size_t key_position,
              std::string_view key_text) const;
};

// A JSON Lines record: a JSON object.
class JsonRecord : public Record {
 public:
  JsonDocument doc;

  Scalar field(const Column& c) const override;
  bool raw(const Column& c, std::string* out) const override;
  bool to_msgpack(MsgpackWriter& w, bool omit_empty, std::string* error) const override;
  Scalar stored_field(const Column& c, bool omit_empty) const override;
};

// A JSON value as a field: a number as msgpack_number converts it, with its
// text as written; an array or object as kind `other`.
Scalar scalar_of(const JsonNode& n);

}  // namespace drydb::cli
