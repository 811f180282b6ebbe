// MessagePack for the drydb tool: encoding records, showing values as JSON,
// and reading one field of a stored record (for index keys), through
// msgpack-cxx.
//
// Values come from database files, which are untrusted: every read goes
// through msgpack::unpack with an unpack_limit that holds each length and
// count to the bytes there are and nesting to 128 levels, and a malformed
// value is reported as such, never thrown past these functions. Encoding is
// msgpack-cxx's packer, which picks the smallest form for every integer,
// string, array and map; a float is always written as a float 64.
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "drydb/key_encoding.h"
#include "drydb/msgpack.h"
#include "io/json.h"

namespace drydb::cli {

class MsgpackWriter {
 public:
  // Appends to *out, which must outlive the writer.
  explicit MsgpackWriter(std::string* out);
  void nil();
  void boolean(bool v);
  void integer(int64_t v);
  void uinteger(uint64_t v);
  void float64(double v);
  void str(std::string_view s);
  void array_header(uint32_t n);
  void map_header(uint32_t n);

  // What msgpack-cxx's packer writes to: a type with write(const char*, size_t).
  // A one-byte write (a fixstr, fixmap or small integer's marker, nil, a
  // boolean: most writes of a record) is a push_back, which costs less than
  // an append.
  struct Sink {
    std::string* out;
    void write(const char* p, size_t n) {
      if (n == 1)
        out->push_back(*p);
      else
        out->append(p, n);
    }
  };

 private:
  Sink sink_;
};

// Appends node `i` of `doc` as MessagePack: numbers as msgpack_number converts
// them, strings as str, arrays and maps in order. False, with *error ("column
// C, field a.b[2]: why"), for a number no MessagePack value holds
// (number_loss): what was appended is then to be dropped. `field` names node
// `i` in the message, when it is a member written on its own.
bool json_to_msgpack(const JsonDocument& doc, uint32_t i, MsgpackWriter& w, std::string* error,
                     std::string_view field = {});

// If `bytes` is exactly one MessagePack map or array (nothing before or after),
// appends it as compact JSON to `out` and returns true. Types JSON lacks are
// shown as {"base64": ...} (bin), {"ext": type, "base64": ...} (ext) and
// null (NaN, infinities); non-string map keys as strings.
bool msgpack_to_json(std::string_view bytes, std::string* out);

// Like msgpack_to_json, but succeeds only when json_to_msgpack of the JSON
// gives back exactly `bytes`: the JSON form is then an exact copy.
bool msgpack_to_exact_json(std::string_view bytes, std::string* out);

// One scalar field of a record, whether from JSON or MessagePack.
struct Scalar {
  enum Kind : uint8_t {
    missing,
    null,
    boolean,
    integer,
    unsigned_integer,
    floating,
    string,
    other
  };
  Kind kind = missing;
  bool b = false;
  int64_t i = 0;
  uint64_t u = 0;  // unsigned_integer: values over INT64_MAX
  double d = 0;
  std::string_view s;  // string; for a JSON number, its text
};

// A JSON number node as json_to_msgpack writes it (the one conversion of
// both): an integer (written without fraction or exponent) that fits int64 as
// `integer`, else one that fits uint64 as `unsigned_integer`, any other number
// as `floating`, the double nearest its text (round to nearest, ties to even,
// as strtod: beyond the double range ±inf, below it ±0). number_loss says
// whether that is the number written. The text is left empty, as MessagePack
// keeps none. Inline: json_to_msgpack runs it for every number of every record.
inline Scalar msgpack_number(const JsonNode& n) {
  Scalar s;
  const char* b = n.text.data();
  const char* e = b + n.text.size();
  if (n.integer) {
    if (auto r = std::from_chars(b, e, s.i); r.ec == std::errc() && r.ptr == e) {
      s.kind = Scalar::integer;
      return s;
    }
    if (auto r = std::from_chars(b, e, s.u); r.ec == std::errc() && r.ptr == e) {
      s.kind = Scalar::unsigned_integer;
      return s;
    }
  }
  s.kind = Scalar::floating;
  // The grammar was checked, so only range errors are possible, which from_chars leaves to
  // the caller: strtod then gives ±inf for an overflow (which the parser refuses anyway) and
  // the nearest value, ±0 or a subnormal, for an underflow (1e-400, which it takes).
  if (auto r = std::from_chars(b, e, s.d); r.ec == std::errc::result_out_of_range)
    s.d = std::strtod(std::string(n.text).c_str(), nullptr);
  return s;
}

// Why `s`, msgpack_number of the number node `n`, is not the number its text
// says (docs/cli.md, "JSON numbers"), or an empty string when it is. It is when
// it is an integer of the int64 or uint64 range, or the double nearest the text
// unless that double is infinite (an overflow, 1e400), is 0 for a text that is
// not (an underflow, 4.9e-325), or, for an integer outside both ranges, is not
// exactly that integer (18446744073709551617; 2^64 is a double exactly).
std::string number_loss(const JsonNode& n, const Scalar& s);

// Whether msgpack_number's `s` holds the number `n` says: number_loss is
// empty. Inline, with the common cases first: json_to_msgpack asks it of every
// number.
inline bool holds_number(const JsonNode& n, const Scalar& s) {
  if (s.kind != Scalar::floating) return true;
  if (!n.integer && s.d != 0 && std::isfinite(s.d)) return true;
  return number_loss(n, s).empty();
}

// The value of member `name` of the MessagePack map `bytes` (missing when the
// map has no such string key, or `bytes` is not a well-formed map). A nested
// array or map gives kind `other`.
Scalar msgpack_field(std::string_view bytes, std::string_view name);

// A table's column list (TableBuilder::set_columns, format 2.3): its rows are
// MessagePack arrays of these columns, nil for an absent one; at the key
// column a nil stands for the key's text (KeyEncoding::column_text). The
// names belong to the table (or the dump header) and must outlive it. The
// rows are read and written by drydb/msgpack.h's own functions, which typed
// tables use, so the tool and typed tables agree on every row.
using RowColumns = drydb::MsgpackColumns;

// The MessagePack map `row` (a row of `c`, of the row with key `key`) stands
// for, into *map: each present column's name and value in column order, the
// key column's nil as the key's text. False when `row` is not a row of `c`.
bool row_to_map(std::string_view row, const RowColumns& c, std::span<const std::byte> key,
                std::string* map);
// The row of `c` the MessagePack map `map` stands for, into *row (the inverse
// of row_to_map): fields in column order, nil for a column the map lacks or
// holds as nil, the absent columns after the last present one left out, and
// the key column always: nil when it holds the key's text or nothing. False, with *err, when `map`
// is not a map or has a field that is not a column.
bool map_to_row(std::string_view map, const RowColumns& c, std::span<const std::byte> key,
                std::string* row, std::string* err);
// Field `position` of a row as msgpack_field reads one of a map: missing
// when the row leaves it out (nil or past its end; a nil at the key column,
// which stands for the key, too: the key is the caller's to read).
Scalar msgpack_row_field(std::string_view row, uint32_t position);

}  // namespace drydb::cli
