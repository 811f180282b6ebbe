// Key encodings: how a table's keys are turned into bytes and ordered.
//
// Every encoding orders keys by the unsigned byte-wise comparison of their
// encoded bytes (memcmp, then the shorter key first). That single order lets
// the read path compare 8-byte big-endian key prefixes as integers. The
// built-in encodings:
//   bytes    the key bytes as given (text, binary); variable length
//   int64    signed 64-bit integers in numeric order: 8 bytes big-endian with
//            the sign bit flipped
//   uuid_v7  16-byte UUIDs in RFC 9562 byte order (version 7 sorts by time)
//   ulid     16-byte ULIDs (48-bit timestamp, then 80 random bits)
// A custom encoding, registered by id before a file that names it is built or
// opened, fixes a key width (or variable) and how keys print and parse; its
// keys are given as already-encoded bytes in memcmp order.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "drydb/result.h"

namespace drydb {

// Which typed keys a table accepts.
enum class KeyKind : uint8_t { bytes, int64, uuid, ulid };

namespace detail {
struct EncodingDef;
}

// A custom key encoding. Requires: id is 1..255 bytes and not a built-in id.
struct CustomKeyEncoding {
  std::string id;
  // 0 for variable-length keys, else every key has exactly this many bytes (1..64).
  uint32_t fixed_width = 0;
  // Display form of an encoded key (for the CLI and error messages); when empty,
  // keys print as escaped text.
  std::function<std::string(std::span<const std::byte>)> format;
  // Parses a typed-in key to its encoded bytes; when empty, text is taken as bytes.
  std::function<result<std::string>(std::string_view)> parse;
};

// A handle to a registered encoding; cheap to copy, valid for the process's life.
class KeyEncoding {
 public:
  static KeyEncoding bytes() noexcept;
  static KeyEncoding int64() noexcept;
  static KeyEncoding uuid_v7() noexcept;
  static KeyEncoding ulid() noexcept;
  // A built-in or registered custom encoding by id; errc::unknown_encoding if none.
  static result<KeyEncoding> find(std::string_view id);

  // The id written in the file ("bytes", "int64", "uuid_v7", "ulid" or custom).
  std::string_view id() const noexcept;
  // 0 = variable length; else the width of every key in bytes.
  uint32_t fixed_width() const noexcept;
  // The typed key this encoding takes (custom encodings take bytes).
  KeyKind kind() const noexcept;
  // Human-readable form of an encoded key: decimal for int64, UUID/ULID text,
  // text with \xNN escapes for bytes.
  std::string format(std::span<const std::byte> key) const;
  // A key as a column of its row holds it (TableBuilder::set_columns): the
  // text format() gives for int64, UUID, ULID and custom encodings with a
  // display form; the key's bytes as they are for bytes (and custom encodings
  // without one), so that any bytes key survives.
  std::string column_text(std::span<const std::byte> key) const;
  // Parses the human-readable form back to encoded key bytes.
  result<std::string> parse(std::string_view text) const;

  friend bool operator==(KeyEncoding a, KeyEncoding b) noexcept { return a.def_ == b.def_; }
  friend result<KeyEncoding> register_key_encoding(CustomKeyEncoding encoding);

 private:
  explicit KeyEncoding(const detail::EncodingDef* def) : def_(def) {}
  const detail::EncodingDef* def_;
};

// Registers a custom encoding for this process. Thread-safe. errc::invalid_argument
// for a bad id or width, errc::duplicate_name if the id is taken.
result<KeyEncoding> register_key_encoding(CustomKeyEncoding encoding);

// Text with every byte outside printable ASCII (and the backslash) as \xNN.
std::string escape_bytes(std::span<const std::byte> bytes);

// int64 key coding: the encoded form is big-endian with the sign bit flipped.
inline uint64_t int64_to_ordered(int64_t v) noexcept {
  return static_cast<uint64_t>(v) ^ (uint64_t{1} << 63);
}
inline int64_t ordered_to_int64(uint64_t u) noexcept {
  return static_cast<int64_t>(u ^ (uint64_t{1} << 63));
}
// An int64 key's 8 encoded bytes (big-endian, the sign bit flipped), and the
// int64 back from them. Requires: out / key hold 8 bytes.
inline void encode_int64_key(int64_t v, std::byte* out) noexcept {
  const uint64_t u = int64_to_ordered(v);
  for (int i = 0; i < 8; ++i)
    out[i] = static_cast<std::byte>(u >> (56 - 8 * i));
}
inline int64_t decode_int64_key(const std::byte* key) noexcept {
  uint64_t u = 0;
  for (int i = 0; i < 8; ++i)
    u = u << 8 | static_cast<uint8_t>(key[i]);
  return ordered_to_int64(u);
}

}  // namespace drydb
