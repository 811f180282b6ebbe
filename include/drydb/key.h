// drydb::Key: a key as a query or append takes it, typed or raw, already
// encoded to the bytes that a table orders by memcmp.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

#include "drydb/detail/coding.h"
#include "drydb/key_encoding.h"
#include "drydb/ulid.h"
#include "drydb/uuid.h"

namespace drydb {

// A borrowed key: text or bytes are referenced (they must outlive the Key),
// typed keys (integers, Uuid, Ulid) are encoded into the Key itself.
// kind() says which typed key it came from, so a table can refuse the wrong
// kind (an int64_t key for a bytes table, text for an int64 table).
class Key {
 public:
  Key(std::string_view text) noexcept  // NOLINT: implicit by design
      : kind_(KeyKind::bytes),
        ext_(reinterpret_cast<const std::byte*>(text.data())),
        size_(static_cast<uint32_t>(text.size())) {}
  Key(const char* text) noexcept : Key(std::string_view(text)) {}         // NOLINT
  Key(const std::string& text) noexcept : Key(std::string_view(text)) {}  // NOLINT
  Key(std::span<const std::byte> raw) noexcept                            // NOLINT
      : kind_(KeyKind::bytes), ext_(raw.data()), size_(static_cast<uint32_t>(raw.size())) {}
  // Any integer that converts to int64_t without loss; 64-bit unsigned
  // integers are refused at compile time (values over INT64_MAX would wrap).
  template <std::integral I>
  requires(!std::same_as<I, bool> && !std::same_as<I, char> &&
           (std::is_signed_v<I> || sizeof(I) < sizeof(int64_t))) Key(I v)
  noexcept : kind_(KeyKind::int64), size_(8) {  // NOLINT
    detail::store_be64(buf_, int64_to_ordered(static_cast<int64_t>(v)));
  }
  Key(const Uuid& u) noexcept : kind_(KeyKind::uuid), size_(16) {  // NOLINT
    std::memcpy(buf_, u.bytes.data(), 16);
  }
  Key(const Ulid& u) noexcept : kind_(KeyKind::ulid), size_(16) {  // NOLINT
    std::memcpy(buf_, u.bytes.data(), 16);
  }

  // The key whose encoded bytes are `encoded` (a key read from a table, to query or append
  // with), of `kind`: referenced for KeyKind::bytes (they must outlive the Key), copied for a
  // typed kind. Requires: a typed kind's width (8 bytes for int64, 16 for uuid and ulid).
  static Key from_encoded(KeyKind kind, std::span<const std::byte> encoded) noexcept {
    Key key(encoded);
    if (kind != KeyKind::bytes) {
      key.kind_ = kind;
      key.ext_ = nullptr;
      key.size_ = static_cast<uint32_t>(std::min<size_t>(encoded.size(), sizeof key.buf_));
      if (key.size_ != 0) std::memcpy(key.buf_, encoded.data(), key.size_);
    }
    return key;
  }

  KeyKind kind() const noexcept { return kind_; }
  // The encoded bytes. Valid while this Key (and, for text/bytes, its source) lives.
  std::span<const std::byte> bytes() const noexcept { return {ext_ ? ext_ : buf_, size_}; }

 private:
  KeyKind kind_;
  const std::byte* ext_ = nullptr;
  uint32_t size_;
  std::byte buf_[16] = {};
};

// An owned key: what a secondary index function returns. Text and bytes are
// copied, typed keys (integers, Uuid, Ulid) encoded, exactly as Key does.
class IndexKey {
 public:
  template <class K>
  requires std::constructible_from<Key, const K&> IndexKey(const K& k)  // NOLINT: implicit
  {
    const Key key(k);  // a typed key's bytes live in the Key itself
    kind_ = key.kind();
    auto b = key.bytes();
    bytes_.assign(reinterpret_cast<const char*>(b.data()), b.size());
  }

  // The key whose encoded bytes are `encoded`, of `kind` (copied), as Key::from_encoded.
  static IndexKey from_encoded(KeyKind kind, std::span<const std::byte> encoded) {
    return IndexKey(Key::from_encoded(kind, encoded));
  }

  KeyKind kind() const noexcept { return kind_; }
  // The encoded bytes, valid while this IndexKey lives.
  std::span<const std::byte> bytes() const noexcept { return std::as_bytes(std::span(bytes_)); }

 private:
  KeyKind kind_;
  std::string bytes_;
};

// The "no bound" marker for range ends: get_range("a", drydb::unbounded).
struct Unbounded {
  explicit constexpr Unbounded() = default;
};
inline constexpr Unbounded unbounded{};

// One end of a range: a Key or unbounded.
class KeyBound {
 public:
  KeyBound(Unbounded) noexcept : bounded_(false), key_(std::string_view()) {}  // NOLINT
  template <class K>
  requires std::constructible_from<Key, const K&> KeyBound(const K& k)
  noexcept : bounded_(true), key_(k) {}  // NOLINT

  bool bounded() const noexcept { return bounded_; }
  // Requires: bounded().
  const Key& key() const noexcept { return key_; }

 private:
  bool bounded_;
  Key key_;
};

}  // namespace drydb
