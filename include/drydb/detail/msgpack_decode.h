// How msgpack.h decodes a stored value as T: the decode with its bounds and
// messages, and a row's decoder shared by ranges and cursors. Not for users.
#pragma once

#include <msgpack.hpp>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "drydb/key.h"
#include "drydb/msgpack_columns.h"
#include "drydb/result.h"
#include "drydb/table.h"

namespace drydb {

namespace detail {

// How deeply MessagePack arrays and maps may nest in a stored value (kMsgpackMaxDepth).
inline constexpr size_t kMsgpackDepthLimit = 256;

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
    const ::msgpack::unpack_limit limit(n, n / 2, n, n, n, kMsgpackDepthLimit);
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
    return bad("nests MessagePack containers deeper than " + std::to_string(kMsgpackDepthLimit) +
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

}  // namespace drydb
