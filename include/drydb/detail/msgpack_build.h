// What msgpack.h's typed builder keeps: the state a builder and its index
// functions share. Not for users.
#pragma once

#include <msgpack.hpp>

#include <cstddef>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "drydb/builder.h"
#include "drydb/detail/msgpack_decode.h"
#include "drydb/key.h"

namespace drydb {

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

}  // namespace drydb
