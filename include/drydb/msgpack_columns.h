// Rows of a table with a column list (TableBuilder::set_columns;
// docs/format.md, format 2.3) are MessagePack arrays of its columns; these
// read them as the maps they stand for, pack a map as such a row, and pack
// any object with its floats kept floats. On msgpack-cxx, as msgpack.h.
#pragma once

#if !defined(__cpp_exceptions)
#error "drydb/msgpack_columns.h needs C++ exceptions: msgpack-cxx reports errors by throwing"
#endif

#include <msgpack.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "drydb/key_encoding.h"
#include "drydb/result.h"

namespace drydb {

namespace detail {

// A string object pointing at `s` (no copy).
inline ::msgpack::object msgpack_str(std::string_view s) {
  ::msgpack::object o;
  o.type = ::msgpack::type::STR;
  o.via.str.ptr = s.data();
  o.via.str.size = static_cast<uint32_t>(s.size());
  return o;
}

}  // namespace detail

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

}  // namespace drydb
