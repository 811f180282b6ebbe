// drydb/msgpack.h: typed tables whose values are MessagePack, on msgpack-cxx.
//
//   struct Person {
//     std::string name;
//     int age = 0;
//     MSGPACK_DEFINE(name, age);  // packed as the array [name, age]
//   };
//
//   auto people = drydb::as_msgpack<Person>(builder.create_table("people"));
//   people.append("key01", Person{"Bob", 22});
//   people.add_secondary_index("age", /*unique=*/false, drydb::KeyEncoding::int64(),
//                              [](const Person& p) { return p.age; });
//   ...
//   auto table = drydb::as_msgpack<Person>(db.table("people").value());
//   std::optional<Person> bob = table.get("key01").value();
//   for (auto [key, person] : *table.index("age")->get_range(20, 29)) ...
//
// Dependencies. Only this header needs msgpack-cxx (Debian: libmsgpack-cxx-dev;
// header-only); libdrydb does not, so a program that includes it links
// msgpack-cxx itself:
//   find_package(msgpack-cxx CONFIG REQUIRED)  # msgpack-cxx 6 and later
//   target_link_libraries(app PRIVATE drydb::drydb msgpack-cxx)
// or, for msgpack-cxx 4 and 5 (Debian 12 ships 4.1.3):
//   find_package(msgpack CONFIG REQUIRED)
//   target_link_libraries(app PRIVATE drydb::drydb msgpackc-cxx)
// Defining MSGPACK_NO_BOOST leaves Boost out; this header uses none of it.
// msgpack-cxx's API version 2 or 3 (3 is its default) is required.
//
// Exceptions. msgpack-cxx reports every error by throwing (it has no
// non-throwing decode path and does not compile with -fno-exceptions), so this
// header needs exceptions enabled, unlike the rest of drydb. It catches what
// msgpack-cxx or T's adaptor throws, and what an index function throws, and
// returns a drydb::result instead; only a std::bad_alloc from its own
// bookkeeping (an error message, a handle's shared state) can escape.
//
// Values. T is any type msgpack-cxx packs and converts: a struct with
// MSGPACK_DEFINE (an array of its fields) or MSGPACK_DEFINE_MAP, standard
// containers, std::optional, or a type with its own msgpack adaptor. T must
// own its data (std::string, not std::string_view or msgpack::type::raw_ref):
// the bytes a T is decoded from are released once it is decoded.
//
// Decode errors. A stored value that does not decode as T is
// errc::corruption, with a message naming the table (and index), the row's key
// and what is wrong: not MessagePack, truncated, bytes left after the object,
// or a MessagePack object of another shape than T. Never a crash: lengths in
// the value are checked against its size before anything is allocated, and
// containers may nest at most kMsgpackMaxDepth levels. Running out of memory
// while decoding is errc::out_of_memory.
//
// Column lists. A table with a column list (TableBuilder::set_columns) stores
// its rows as MessagePack arrays; a typed table reads each as the map it
// stands for (column names to the row's fields, the key column's nil as the
// key's text), so T is map-shaped: MSGPACK_DEFINE_MAP, a std::map. A typed
// builder over such a table stores each packed map as its row (a nil field
// as an absent column; the key column always, so a map without it reads back
// with the key's text there); a field that is not a column fails the build.
#pragma once

#if !defined(__cpp_exceptions)
#error "drydb/msgpack.h needs C++ exceptions: msgpack-cxx reports errors by throwing"
#endif

#include <msgpack.hpp>

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <functional>
#include <iterator>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "drydb/builder.h"
#include "drydb/cursor.h"
#include "drydb/error.h"
#include "drydb/index.h"
#include "drydb/key.h"
#include "drydb/key_encoding.h"
#include "drydb/range.h"
#include "drydb/result.h"
#include "drydb/table.h"

namespace drydb {

// How deeply MessagePack arrays and maps may nest in a stored value; deeper is
// a decode error. It bounds the recursion of converting to a recursive T.
inline constexpr size_t kMsgpackMaxDepth = 256;

namespace detail {

// T's name for messages ("Person", "std::vector<int>"), read from the
// compiler's signature of this function.
template <class T>
std::string_view msgpack_type_name() noexcept {
#if defined(__GNUC__) || defined(__clang__)
  std::string_view sig = __PRETTY_FUNCTION__;  // "... [with T = Person; ...]" or "... [T = Person]"
  if (const size_t at = sig.find("T = "); at != std::string_view::npos) {
    sig.remove_prefix(at + 4);
    return sig.substr(0, sig.find_first_of(";]"));
  }
#endif
  return "the requested type";
}

inline const char* msgpack_kind_name(::msgpack::type::object_type type) noexcept {
  switch (type) {
    case ::msgpack::type::NIL:
      return "nil";
    case ::msgpack::type::BOOLEAN:
      return "boolean";
    case ::msgpack::type::POSITIVE_INTEGER:
    case ::msgpack::type::NEGATIVE_INTEGER:
      return "integer";
    case ::msgpack::type::FLOAT32:
    case ::msgpack::type::FLOAT64:
      return "float";
    case ::msgpack::type::STR:
      return "str";
    case ::msgpack::type::BIN:
      return "bin";
    case ::msgpack::type::ARRAY:
      return "array";
    case ::msgpack::type::MAP:
      return "map";
    case ::msgpack::type::EXT:
      return "ext";
  }
  return "object";
}

// Strings, bins and exts of an unpacked object point into the value's bytes
// instead of being copied into the zone: converting to T copies them anyway.
inline bool msgpack_reference_all(::msgpack::type::object_type, size_t, void*) {
  return true;
}

// A string object pointing at `s` (no copy).
inline ::msgpack::object msgpack_str(std::string_view s) {
  ::msgpack::object o;
  o.type = ::msgpack::type::STR;
  o.via.str.ptr = s.data();
  o.via.str.size = static_cast<uint32_t>(s.size());
  return o;
}

}  // namespace detail

// ---- column lists ------------------------------------------------------------------------------

// Rows of a table with a column list (TableBuilder::set_columns; docs/format.md, format 2.3)
// are MessagePack arrays of its columns; these read them as the maps they stand for, pack a
// map as such a row, and pack any object with its floats kept floats.

// A table's column list (TableBuilder::set_columns), for reading its rows,
// MessagePack arrays, as the maps they stand for. No names: values are read
// as they are.
struct MsgpackColumns {
  std::span<const std::string> names;
  std::optional<uint32_t> key_column;
  KeyEncoding encoding = KeyEncoding::bytes();
  bool present() const noexcept { return !names.empty(); }
};

// The map `row` (an array of at most c.names.size() elements) stands for,
// built in `zone`: column i's name to element i where that is not nil, and
// at the key column a nil becomes the key's text. Its strings point into the
// column list, the row and the zone.
inline ::msgpack::object column_row_map(const ::msgpack::object& row, const MsgpackColumns& c,
                                        std::span<const std::byte> key, ::msgpack::zone& zone) {
  const uint32_t n = row.via.array.size;
  auto* kv = static_cast<::msgpack::object_kv*>(zone.allocate_align(
      sizeof(::msgpack::object_kv) * (n == 0 ? 1 : n), MSGPACK_ZONE_ALIGNOF(::msgpack::object_kv)));
  uint32_t used = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const ::msgpack::object& field = row.via.array.ptr[i];
    if (field.type == ::msgpack::type::NIL) {
      if (c.key_column != i) continue;
      const std::string text = c.encoding.column_text(key);
      char* copy = static_cast<char*>(zone.allocate_no_align(text.size() == 0 ? 1 : text.size()));
      std::memcpy(copy, text.data(), text.size());
      kv[used].key = detail::msgpack_str(c.names[i]);
      kv[used++].val = detail::msgpack_str(std::string_view(copy, text.size()));
      continue;
    }
    kv[used].key = detail::msgpack_str(c.names[i]);
    kv[used++].val = field;
  }
  ::msgpack::object map;
  map.type = ::msgpack::type::MAP;
  map.via.map.size = used;
  map.via.map.ptr = kv;
  return map;
}

// Packs `o` into `out` as msgpack-cxx's packer does, but each float as the
// float it is: msgpack-cxx 4 (Debian 12's 4.1.3) packs a double with an
// integral value as an integer, so 8.0 would read back as 8.
template <class Stream>
void pack_object_exact(Stream& out, const ::msgpack::object& o) {
  ::msgpack::packer<Stream> pk(out);
  switch (o.type) {
    case ::msgpack::type::FLOAT64:
    case ::msgpack::type::FLOAT32: {
      const bool single = o.type == ::msgpack::type::FLOAT32;
      uint64_t bits = 0;
      if (single) {
        const auto f = static_cast<float>(o.via.f64);
        uint32_t b32;
        std::memcpy(&b32, &f, 4);
        bits = b32;
      } else {
        std::memcpy(&bits, &o.via.f64, 8);
      }
      const int width = single ? 4 : 8;
      char buf[9];
      buf[0] = static_cast<char>(single ? 0xca : 0xcb);
      for (int i = 0; i < width; ++i)
        buf[1 + i] = static_cast<char>(bits >> (8 * (width - 1 - i)));
      out.write(buf, static_cast<size_t>(1 + width));
      return;
    }
    case ::msgpack::type::ARRAY:
      pk.pack_array(o.via.array.size);
      for (uint32_t i = 0; i < o.via.array.size; ++i)
        pack_object_exact(out, o.via.array.ptr[i]);
      return;
    case ::msgpack::type::MAP:
      pk.pack_map(o.via.map.size);
      for (uint32_t i = 0; i < o.via.map.size; ++i) {
        pack_object_exact(out, o.via.map.ptr[i].key);
        pack_object_exact(out, o.via.map.ptr[i].val);
      }
      return;
    default:
      pk.pack(o);
  }
}

// Packs into `out` the row of `c` that `map` (a MessagePack map) stands for:
// its fields in column order, nil for a column it lacks or holds as nil, the
// absent columns after the last present one left out. The key column is
// always kept: nil when the map holds the key's text there or nothing (so a
// map without its key column reads back with it), else what it holds. False,
// with *why ("field 'x' that is not a column of the table"), when a field is
// not a column; then nothing was packed.
template <class Stream>
bool pack_map_as_row(const ::msgpack::object& map, const MsgpackColumns& c,
                     std::span<const std::byte> key, Stream& out, std::string* why) {
  std::vector<const ::msgpack::object*> fields(c.names.size(), nullptr);
  for (uint32_t i = 0; i < map.via.map.size; ++i) {
    const ::msgpack::object_kv& kv = map.via.map.ptr[i];
    const bool named = kv.key.type == ::msgpack::type::STR;
    const std::string_view name =
        named ? std::string_view(kv.key.via.str.ptr, kv.key.via.str.size) : std::string_view();
    const auto at = named ? std::find(c.names.begin(), c.names.end(), name) : c.names.end();
    if (at == c.names.end()) {
      *why = named ? "field '" + std::string(name) + "' that is not a column of the table"
                   : std::string("field whose name is not a string");
      return false;
    }
    // A nil field is an absent column, as a nil in a row is.
    fields[static_cast<size_t>(at - c.names.begin())] =
        kv.val.type == ::msgpack::type::NIL ? nullptr : &kv.val;
  }
  const auto k = c.key_column;
  if (k && fields[*k] != nullptr && fields[*k]->type == ::msgpack::type::STR &&
      std::string_view(fields[*k]->via.str.ptr, fields[*k]->via.str.size) ==
          c.encoding.column_text(key))
    fields[*k] = nullptr;
  size_t count = fields.size();
  while (count > 0 && fields[count - 1] == nullptr && k != count - 1)
    --count;
  ::msgpack::packer<Stream> pk(out);
  pk.pack_array(static_cast<uint32_t>(count));
  for (size_t i = 0; i < count; ++i)
    if (fields[i] == nullptr)
      pk.pack_nil();
    else
      pack_object_exact(out, *fields[i]);
  return true;
}

namespace detail {

// Decodes `bytes`, which must hold exactly one MessagePack object, into `out`
// (replacing what it held), using `zone` for the unpacked object; with a
// column list, the object must be a row of its columns (an array of at most
// as many fields), which decodes as the map it stands for (column_row_map;
// `key` is the row's key). On failure `out` is unchanged and the Error's
// message ends a sentence begun with "the value of key 'k' ".
template <class T>
std::optional<Error> decode_msgpack(std::span<const std::byte> bytes, ::msgpack::zone& zone,
                                    std::optional<T>& out, const MsgpackColumns& columns = {},
                                    std::span<const std::byte> key = {}) {
  const size_t n = bytes.size();
  const std::string_view type = msgpack_type_name<T>();
  const auto bad = [](std::string what) { return Error(errc::corruption, std::move(what)); };
  if (n == 0) return bad("is empty: no MessagePack object");
  try {
    // Each element of an array takes a byte at least, each map entry two, and
    // a str, bin or ext is no longer than the value: a length beyond these
    // limits is refused before memory is allocated for it.
    const ::msgpack::unpack_limit limit(n, n / 2, n, n, n, kMsgpackMaxDepth);
    size_t off = 0;
    ::msgpack::object obj = ::msgpack::unpack(zone, reinterpret_cast<const char*>(bytes.data()), n,
                                              off, &msgpack_reference_all, nullptr, limit);
    if (off != n)
      return bad("has " + std::to_string(n - off) + " bytes after its MessagePack object (of " +
                 std::to_string(n) + ")");
    if (columns.present()) {
      if (obj.type != ::msgpack::type::ARRAY || obj.via.array.size > columns.names.size())
        return bad("is a MessagePack " + std::string(msgpack_kind_name(obj.type)) +
                   (obj.type == ::msgpack::type::ARRAY
                        ? " of " + std::to_string(obj.via.array.size) + " fields"
                        : std::string()) +
                   ", not a row of its table's " + std::to_string(columns.names.size()) +
                   " columns");
      obj = column_row_map(obj, columns, key, zone);
    }
    try {
      out.emplace(obj.as<T>());
    } catch (const ::msgpack::type_error&) {
      return bad("is a MessagePack " + std::string(msgpack_kind_name(obj.type)) +
                 " whose shape does not convert to " + std::string(type));
    }
    return std::nullopt;
  } catch (const ::msgpack::insufficient_bytes&) {
    return bad("is truncated: its " + std::to_string(n) + " bytes end inside a MessagePack object");
  } catch (const ::msgpack::depth_size_overflow&) {
    return bad("nests MessagePack containers deeper than " + std::to_string(kMsgpackMaxDepth) +
               " levels");
  } catch (const ::msgpack::size_overflow& e) {
    return bad("is truncated or not MessagePack: a length in it exceeds the value's " +
               std::to_string(n) + " bytes (" + e.what() + ")");
  } catch (const ::msgpack::unpack_error& e) {
    return bad("is not MessagePack (" + std::string(e.what()) + ")");
  } catch (const std::bad_alloc&) {
    return Error(errc::out_of_memory,
                 "could not be decoded as " + std::string(type) + ": out of memory");
  } catch (const std::exception& e) {
    return bad("could not be decoded as " + std::string(type) + ": " + e.what());
  } catch (...) {
    return bad("could not be decoded as " + std::string(type) + ": its conversion threw");
  }
}

// Where values are read from, for messages: a table, or one of its indexes.
struct MsgpackSource {
  ReadOnlyTable table;
  std::string_view index;  // empty for the table itself

  MsgpackColumns columns() const { return {table.columns(), table.key_column(), table.encoding()}; }

  // `why` (from decode_msgpack) with the table, index and row key in front.
  Error locate(std::span<const std::byte> key, Error why) const {
    std::string where = "table '" + std::string(table.name()) + "'";
    if (!index.empty()) where += " (index '" + std::string(index) + "')";
    why.message =
        where + ": the value of key '" + table.encoding().format(key) + "' " + why.message;
    return why;
  }
};

// Decodes rows one after another, reusing one zone for their unpacked
// objects. Belongs to one range or cursor.
template <class T>
class MsgpackRowDecoder {
 public:
  explicit MsgpackRowDecoder(MsgpackSource source) : source_(std::move(source)) {}

  const MsgpackSource& source() const noexcept { return source_; }

  std::optional<Error> decode(std::span<const std::byte> key, std::span<const std::byte> value,
                              std::optional<T>& out) {
    try {
      if (zone_ == nullptr)
        zone_ = std::make_unique<::msgpack::zone>();
      else
        zone_->clear();
    } catch (const std::bad_alloc&) {
      return source_.locate(key, Error(errc::out_of_memory, "could not be decoded: out of memory"));
    }
    if (auto why = decode_msgpack(value, *zone_, out, source_.columns(), key))
      return source_.locate(key, std::move(*why));
    return std::nullopt;
  }

 private:
  MsgpackSource source_;
  std::unique_ptr<::msgpack::zone> zone_;
};

// One row's value decoded as T: an absent row is an empty optional.
template <class T>
result<std::optional<T>> decode_msgpack_row(const MsgpackSource& source, bool found,
                                            std::span<const std::byte> key,
                                            std::span<const std::byte> value) {
  if (!found) return std::optional<T>();
  std::optional<T> out;
  try {
    ::msgpack::zone zone(512);  // grows if the value needs more
    if (auto why = decode_msgpack(value, zone, out, source.columns(), key))
      return source.locate(key, std::move(*why));
  } catch (const std::bad_alloc&) {
    return source.locate(key, Error(errc::out_of_memory, "could not be decoded: out of memory"));
  }
  return out;
}

}  // namespace detail

// ---- reading -----------------------------------------------------------------------------------

// One row of a typed range or cursor walk: the row's primary key (encoded,
// as its table orders it) and its value decoded as T. Both belong to the
// iteration and stay valid until it steps; the value may be moved from.
//   for (auto [key, person] : *range) people.push_back(std::move(person));
template <class T>
struct MsgpackEntry {
  std::span<const std::byte> key;
  T& value;

  std::string_view key_str() const noexcept {
    return {reinterpret_cast<const char*>(key.data()), key.size()};
  }
};

namespace detail {

// The iterator of typed ranges and cursors: decodes each row as it reaches
// it, so a value that does not decode as T ends the iteration before the loop
// body sees it, with the error in the owner's status(). Source provides
// step() (move to the next row; false at the end), entry() (the current row),
// read_status() (the underlying read error, if any) and decode_row().
template <class T, class Source>
class MsgpackIterator {
 public:
  using value_type = MsgpackEntry<T>;
  using difference_type = std::ptrdiff_t;

  MsgpackEntry<T> operator*() const { return {key_, *value_}; }
  MsgpackIterator& operator++() {
    load(source_->step());
    return *this;
  }
  void operator++(int) { ++*this; }
  bool operator==(std::default_sentinel_t) const noexcept { return done_; }

  // Internal: positioned on a row when `on_row`.
  MsgpackIterator(Source* source, bool on_row) : source_(source) { load(on_row); }

 private:
  void load(bool on_row) {
    done_ = true;
    if (!on_row) return;
    const Entry e = source_->entry();
    if (!source_->read_status()) return;  // a failed page read: the source holds the error
    key_ = e.key;
    done_ = !source_->decode_row(e, value_);
  }

  Source* source_;
  std::span<const std::byte> key_;
  mutable std::optional<T> value_;
  bool done_ = true;
};

}  // namespace detail

// A typed view of a Range or IndexRange (see range.h): the same rows, in the
// same order, with values decoded as T while iterating:
//   for (auto [key, person] : *range) ...   // see MsgpackEntry
// A value that does not decode as T ends the iteration early, like a failed
// page read: check status() after the loop. Iterating again starts over. Must
// not outlive its database; belongs to one thread at a time.
template <class T, class CursorT = Cursor>
class MsgpackRange {
 public:
  using iterator = detail::MsgpackIterator<T, MsgpackRange>;

  // Rows in the range (known up front, from the tree's subtree counts).
  uint64_t size() const noexcept { return range_.size(); }
  bool empty() const noexcept { return range_.empty(); }
  SortOrder order() const noexcept { return range_.order(); }
  // The first error of the last iteration: a value that did not decode as T,
  // or a failed page read.
  const drydb::status& status() const noexcept {
    return decode_status_ ? range_.status() : decode_status_;
  }
  // The untyped range: the same rows as bytes.
  BasicRange<CursorT>& untyped() noexcept { return range_; }

  iterator begin() {
    decode_status_ = {};
    at_.emplace(range_.begin());
    return iterator(this, *at_ != std::default_sentinel);
  }
  std::default_sentinel_t end() const noexcept { return {}; }

  // Internal.
  MsgpackRange(BasicRange<CursorT> range, detail::MsgpackSource source)
      : range_(std::move(range)), decoder_(std::move(source)) {}

 private:
  friend iterator;
  bool step() {
    ++*at_;
    return *at_ != std::default_sentinel;
  }
  Entry entry() const { return **at_; }
  const drydb::status& read_status() const noexcept { return range_.status(); }
  bool decode_row(const Entry& e, std::optional<T>& out) {
    if (auto why = decoder_.decode(e.key, e.value, out)) {
      decode_status_ = std::move(*why);
      return false;
    }
    return true;
  }

  BasicRange<CursorT> range_;
  detail::MsgpackRowDecoder<T> decoder_;
  std::optional<typename BasicRange<CursorT>::iterator> at_;
  drydb::status decode_status_;
};

template <class T>
using MsgpackIndexRange = MsgpackRange<T, IndexCursor>;

// A typed view of a Cursor or IndexCursor (see cursor.h, index.h): the same
// positioning calls; value() decodes the current row as T. Range-for walks
// from the current row (the first when unpositioned) to the last, decoding
// each row, and stops early at a value that does not decode (see status()).
// Views and entries stay valid until the cursor moves. Must not outlive its
// database; belongs to one thread at a time.
template <class T, class CursorT = Cursor>
class MsgpackCursor {
 public:
  using iterator = detail::MsgpackIterator<T, MsgpackCursor>;

  // Each positioning call returns valid(), as the untyped cursor's does.
  bool first() { return moved(cursor_.first()); }
  bool last() { return moved(cursor_.last()); }
  bool seek(const Key& key) { return moved(cursor_.seek(key)); }
  bool seek_exact(const Key& key) {
    const bool exact = cursor_.seek_exact(key);
    moved(false);
    return exact;
  }
  bool seek_rank(uint64_t rank) { return moved(cursor_.seek_rank(rank)); }
  bool next() { return moved(cursor_.next()); }
  bool prev() { return moved(cursor_.prev()); }

  bool valid() const noexcept { return cursor_.valid(); }
  // Requires: valid().
  uint64_t rank() const noexcept { return cursor_.rank(); }
  // The current row's primary key; empty when !valid().
  std::span<const std::byte> key() const { return cursor_.key(); }
  // The current row's value decoded as T (decoded again on each call).
  // errc::invalid_state when !valid(); a failed page read's error; the
  // decode error of a value that is not a T.
  result<T> value() const {
    if (!cursor_.valid())
      return Error(errc::invalid_state, "table '" + std::string(decoder_.source().table.name()) +
                                            "': value() of a cursor that is not on a row");
    const Entry e = cursor_.entry();
    if (!cursor_.status()) return cursor_.status().error();
    std::optional<T> out;
    if (auto why = decoder_.decode(e.key, e.value, out)) return std::move(*why);
    return std::move(*out);
  }
  // The first error since the last positioning call: a failed page read, or
  // a value that range-for could not decode.
  const drydb::status& status() const noexcept {
    return decode_status_ ? cursor_.status() : decode_status_;
  }
  // The untyped cursor (for index_key(), row(), raw values).
  CursorT& untyped() noexcept { return cursor_; }
  const CursorT& untyped() const noexcept { return cursor_; }

  iterator begin() {
    if (!cursor_.valid()) first();
    return iterator(this, cursor_.valid());
  }
  std::default_sentinel_t end() const noexcept { return {}; }

  // Internal.
  MsgpackCursor(CursorT cursor, detail::MsgpackSource source)
      : cursor_(std::move(cursor)), decoder_(std::move(source)) {}

 private:
  friend iterator;
  bool moved(bool valid) {
    decode_status_ = {};
    return valid;
  }
  bool step() { return next(); }
  Entry entry() const { return cursor_.entry(); }
  const drydb::status& read_status() const noexcept { return cursor_.status(); }
  bool decode_row(const Entry& e, std::optional<T>& out) {
    if (auto why = decoder_.decode(e.key, e.value, out)) {
      decode_status_ = std::move(*why);
      return false;
    }
    return true;
  }

  CursorT cursor_;
  mutable detail::MsgpackRowDecoder<T> decoder_;
  drydb::status decode_status_;
};

// A typed view of a SecondaryIndex (see index.h): the same queries, answering
// with the rows' values decoded as T. Index keys are given as the index's
// encoding takes them. A cheap handle; must not outlive its database.
template <class T>
class MsgpackIndex {
 public:
  std::string_view name() const noexcept { return index_.name(); }
  bool unique() const noexcept { return index_.unique(); }
  KeyEncoding encoding() const noexcept { return index_.encoding(); }
  // Entries in the index, O(1).
  uint64_t count() const noexcept { return index_.count(); }
  // The untyped index.
  const SecondaryIndex& untyped() const noexcept { return index_; }

  // The value of the row whose index key is `key` (for a non-unique index,
  // the first such row in primary-key order); an empty optional when none.
  result<std::optional<T>> get(const Key& key) const {
    auto row = index_.get(key);
    if (!row) return std::move(row).error();
    return detail::decode_msgpack_row<T>(source(), row->has_value(), row->key(), row->value());
  }
  // Every row whose index key is `key`, in primary-key order.
  result<MsgpackIndexRange<T>> get_all(const Key& key) const { return typed(index_.get_all(key)); }
  // Rows whose index key lies between two bounds; see SecondaryIndex::get_range.
  result<MsgpackIndexRange<T>> get_range(const KeyBound& start, const KeyBound& end,
                                         RangeOptions options = {}) const {
    return typed(index_.get_range(start, end, options));
  }
  result<uint64_t> count_range(const KeyBound& start, const KeyBound& end,
                               RangeOptions options = {}) const {
    return index_.count_range(start, end, options);
  }
  // Rows whose index key starts with `prefix` (byte-keyed indexes).
  result<MsgpackIndexRange<T>> prefix(std::span<const std::byte> prefix,
                                      SortOrder order = SortOrder::ascending) const {
    return typed(index_.prefix(prefix, order));
  }
  result<MsgpackIndexRange<T>> prefix(std::string_view text,
                                      SortOrder order = SortOrder::ascending) const {
    return typed(index_.prefix(text, order));
  }
  // An unpositioned cursor in index order.
  MsgpackCursor<T, IndexCursor> cursor() const {
    return MsgpackCursor<T, IndexCursor>(index_.cursor(), source());
  }

  // Internal.
  MsgpackIndex(SecondaryIndex index, ReadOnlyTable table) noexcept : index_(index), table_(table) {}

 private:
  detail::MsgpackSource source() const { return {table_, index_.name()}; }
  result<MsgpackIndexRange<T>> typed(result<IndexRange> r) const {
    if (!r) return std::move(r).error();
    return MsgpackIndexRange<T>(std::move(r).value(), source());
  }

  SecondaryIndex index_;
  ReadOnlyTable table_;
};

// A typed view of a ReadOnlyTable (see table.h) whose values are MessagePack
// encodings of T: the same queries, with values decoded as T. Keys are given
// as the table takes them. A cheap handle (copy freely); must not outlive its
// database. Safe from many threads at once, as the table is.
template <class T>
class MsgpackTable {
 public:
  explicit MsgpackTable(ReadOnlyTable table) noexcept : table_(table) {}

  std::string_view name() const noexcept { return table_.name(); }
  KeyEncoding encoding() const noexcept { return table_.encoding(); }
  uint64_t count() const noexcept { return table_.count(); }
  // The untyped table.
  const ReadOnlyTable& untyped() const noexcept { return table_; }

  // The value of `key` decoded as T; an empty optional when absent.
  result<std::optional<T>> get(const Key& key) const {
    auto v = table_.get(key);
    if (!v) return std::move(v).error();
    return detail::decode_msgpack_row<T>(source(), v->has_value(), key.bytes(), v->bytes());
  }
  // Rows between two bounds; see ReadOnlyTable::get_range.
  result<MsgpackRange<T>> get_range(const KeyBound& start, const KeyBound& end,
                                    RangeOptions options = {}) const {
    return typed(table_.get_range(start, end, options));
  }
  result<uint64_t> count_range(const KeyBound& start, const KeyBound& end,
                               RangeOptions options = {}) const {
    return table_.count_range(start, end, options);
  }
  // Rows whose key starts with `prefix` (byte-keyed tables).
  result<MsgpackRange<T>> prefix(std::span<const std::byte> prefix,
                                 SortOrder order = SortOrder::ascending) const {
    return typed(table_.prefix(prefix, order));
  }
  result<MsgpackRange<T>> prefix(std::string_view text,
                                 SortOrder order = SortOrder::ascending) const {
    return typed(table_.prefix(text, order));
  }
  // An unpositioned cursor in key order.
  MsgpackCursor<T> cursor() const { return MsgpackCursor<T>(table_.cursor(), source()); }
  // The table's secondary index `name`, typed; errc::not_found if none.
  result<MsgpackIndex<T>> index(std::string_view name) const {
    auto ix = table_.index(name);
    if (!ix) return std::move(ix).error();
    return MsgpackIndex<T>(*ix, table_);
  }

 private:
  detail::MsgpackSource source() const { return {table_, {}}; }
  result<MsgpackRange<T>> typed(result<Range> r) const {
    if (!r) return std::move(r).error();
    return MsgpackRange<T>(std::move(r).value(), source());
  }

  ReadOnlyTable table_;
};

// `table` with values decoded as T.
template <class T>
MsgpackTable<T> as_msgpack(const ReadOnlyTable& table) noexcept {
  return MsgpackTable<T>(table);
}

// Decodes one MessagePack value (e.g. a Row's or Value's bytes) as T; the
// errors of a typed table's reads, without the table and key.
template <class T>
result<T> from_msgpack(std::span<const std::byte> bytes) {
  std::optional<T> out;
  try {
    ::msgpack::zone zone(512);
    if (auto why = detail::decode_msgpack(bytes, zone, out)) {
      why->message = "the value " + why->message;
      return std::move(*why);
    }
  } catch (const std::bad_alloc&) {
    return Error(errc::out_of_memory, "the value could not be decoded: out of memory");
  }
  return std::move(*out);
}

// ---- building ----------------------------------------------------------------------------------

namespace detail {

// What a typed builder and the index functions it declares share (the
// functions live in the DatabaseBuilder, maybe longer than the typed builder).
template <class T>
struct MsgpackBuildState {
  ::msgpack::sbuffer packed;  // reused by every append
  drydb::status first_error;  // the typed builder's own first error
  // The row the index functions decoded last: its key, the address and size
  // of its value, and the value. The builder calls every index function of a
  // row in turn, so they share one decode.
  std::string row_key;
  const std::byte* row_value = nullptr;
  size_t row_size = 0;
  std::optional<T> row;
  std::unique_ptr<::msgpack::zone> zone;

  void fail(Error e) {
    if (first_error) first_error = std::move(e);
  }

  // For a table with a column list: when `packed` holds a map, replaces it
  // with the row of the table's columns it stands for (pack_map_as_row).
  // Anything else stays as it is, for the table's own check. False, with
  // row_error set, when the map has a field that is not a column.
  bool packed_as_row(const TableBuilder& table, std::span<const std::byte> key) {
    ::msgpack::zone row_zone;
    const ::msgpack::object obj = ::msgpack::unpack(row_zone, packed.data(), packed.size());
    if (obj.type != ::msgpack::type::MAP) return true;
    ::msgpack::sbuffer row;
    std::string why;
    if (!pack_map_as_row(obj, MsgpackColumns{table.columns(), table.key_column(), table.encoding()},
                         key, row, &why)) {
      row_error = "table '" + std::string(table.name()) + "': the value of key '" +
                  table.encoding().format(key) + "' has a " + why;
      return false;
    }
    packed = std::move(row);
    return true;
  }
  std::string row_error;  // why packed_as_row failed

  // The row (key, value) decoded as T, or nullptr after recording why.
  const T* decode(std::string_view table, const MsgpackColumns& columns, std::string_view index,
                  std::span<const std::byte> key, std::span<const std::byte> value) {
    const KeyEncoding encoding = columns.encoding;
    const std::string_view k(reinterpret_cast<const char*>(key.data()), key.size());
    if (row && row_value == value.data() && row_size == value.size() && row_key == k) return &*row;
    row.reset();
    std::optional<Error> why;
    try {
      if (zone == nullptr)
        zone = std::make_unique<::msgpack::zone>();
      else
        zone->clear();
      why = decode_msgpack(value, *zone, row, columns, key);
      if (!why) {
        row_key.assign(k);
        row_value = value.data();
        row_size = value.size();
        return &*row;
      }
    } catch (const std::bad_alloc&) {
      why = Error(errc::out_of_memory, "could not be decoded: out of memory");
    }
    row.reset();
    decode_error = Error(why->code, "the value " + why->message);
    why->message = "table '" + std::string(table) + "' (index '" + std::string(index) +
                   "'): the value of key '" + encoding.format(key) + "' " + why->message;
    fail(std::move(*why));
    return nullptr;
  }
  Error decode_error;  // why decode() last failed, without the table, index and key
};

// A key of the wrong kind for `encoding`: the core builder refuses it with
// errc::wrong_key_type, which makes the whole build fail: how append() fails
// it (TableBuilder has no call that records an error of the caller's own).
inline Key msgpack_poison_key(KeyEncoding encoding) noexcept {
  if (encoding.kind() == KeyKind::bytes) return Key(int64_t{0});
  return Key(std::string_view());
}

}  // namespace detail

// An index function of a MsgpackTableBuilder<T>: called with the row's value
// decoded as T, and optionally the row's encoded primary key before it.
template <class F, class T>
concept MsgpackIndexFunction = (std::invocable<F&, const T&>) ||
                               (std::invocable<F&, std::span<const std::byte>, const T&>);

// A typed view of a TableBuilder (see builder.h) that packs T values with
// msgpack-cxx. A cheap handle (copy freely); the TableBuilder must outlive
// it, as the DatabaseBuilder's tables do. Single-threaded, like the builder.
template <class T>
class MsgpackTableBuilder {
 public:
  explicit MsgpackTableBuilder(TableBuilder& table)
      : table_(&table), state_(std::make_shared<detail::MsgpackBuildState<T>>()) {}

  // Packs `value` and appends it under `key` (any key the table takes; any
  // order). The TableBuilder's errors apply. If packing fails (out of memory,
  // or T's adaptor throws), the build fails and status() says why.
  MsgpackTableBuilder& append(const Key& key, const T& value) {
    auto& s = *state_;
    try {
      s.packed.clear();
      ::msgpack::pack(s.packed, value);
      if (!table_->columns().empty() && !s.packed_as_row(*table_, key.bytes()))
        return poison(std::move(s.row_error));
    } catch (const std::exception& e) {
      return poison("table '" + std::string(table_->name()) + "': the value of key '" +
                    table_->encoding().format(key.bytes()) +
                    "' could not be packed as MessagePack: " + e.what());
    } catch (...) {
      return poison("table '" + std::string(table_->name()) + "': the value of key '" +
                    table_->encoding().format(key.bytes()) +
                    "' could not be packed as MessagePack: its adaptor threw");
    }
    table_->append(key, std::as_bytes(std::span(s.packed.data(), s.packed.size())));
    return *this;
  }

  // Declares a secondary index (see TableBuilder::add_secondary_index) whose
  // function sees the row decoded as T. `index_key` is called as
  //   index_key(const T& value)                                or
  //   index_key(std::span<const std::byte> primary_key, const T& value)
  // (the primary key encoded, as TableBuilder's index functions get it) and
  // returns what converts to std::optional<IndexKey>: a key (text, integer,
  // Uuid, Ulid...), or std::nullopt to leave the row out of the index.
  //
  // Cost: the builder stores packed bytes, so at build time each row's value
  // is decoded again (unpack + convert to T, with T's allocations): once per
  // row for all the indexes declared through one MsgpackTableBuilder, which
  // share the decoded row, and once more per row for each other handle's.
  //
  // If a row does not decode as T (a raw append of other bytes to this table)
  // or the function throws, the build fails with that error (errc::corruption
  // for a value that does not decode, errc::invalid_argument for a function
  // that threw; see IndexKeyFunction) and status() holds it, naming the
  // table, index and row.
  template <MsgpackIndexFunction<T> F>
  MsgpackTableBuilder& add_secondary_index(std::string_view name, bool unique, KeyEncoding encoding,
                                           F index_key) {
    table_->add_secondary_index(
        name, unique, encoding,
        [state = state_, fn = std::move(index_key), builder = table_,
         table = std::string(table_->name()), table_encoding = table_->encoding(),
         index = std::string(name)](
            std::span<const std::byte> key,
            std::span<const std::byte> value) mutable -> result<std::optional<IndexKey>> {
          const T* row = state->decode(
              table, MsgpackColumns{builder->columns(), builder->key_column(), table_encoding},
              index, key, value);
          if (row == nullptr) return state->decode_error;
          std::string why = "the function threw";
          try {
            if constexpr (std::invocable<F&, std::span<const std::byte>, const T&>)
              return std::optional<IndexKey>(fn(key, *row));
            else
              return std::optional<IndexKey>(fn(*row));
          } catch (const std::exception& e) {
            why += ": ";
            why += e.what();
          } catch (...) {
          }
          state->fail(Error(errc::invalid_argument, "table '" + table + "' (index '" + index +
                                                        "'): " + why + " for key '" +
                                                        table_encoding.format(key) + "'"));
          return Error(errc::invalid_argument, std::move(why));
        });
    return *this;
  }

  std::string_view name() const noexcept { return table_->name(); }
  KeyEncoding encoding() const noexcept { return table_->encoding(); }
  uint64_t rows_appended() const noexcept { return table_->rows_appended(); }
  // The untyped table builder.
  TableBuilder& untyped() const noexcept { return *table_; }

  // This handle's first error (a value that failed to pack or, during the
  // build, to decode for an index), else the builder's first error so far.
  const drydb::status& status() const noexcept {
    return state_->first_error ? table_->status() : state_->first_error;
  }

 private:
  MsgpackTableBuilder& poison(std::string message) {
    state_->fail(Error(errc::invalid_argument, std::move(message)));
    table_->append(detail::msgpack_poison_key(table_->encoding()), std::string_view());
    return *this;
  }

  TableBuilder* table_;
  std::shared_ptr<detail::MsgpackBuildState<T>> state_;
};

// `table` taking values of type T, packed as MessagePack.
template <class T>
MsgpackTableBuilder<T> as_msgpack(TableBuilder& table) {
  return MsgpackTableBuilder<T>(table);
}

}  // namespace drydb
