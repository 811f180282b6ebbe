// Fixed-width integer coding: the only way drydb reads or writes an integer of
// the file format. Every on-disk integer is little-endian except the 8-byte key
// prefixes, which are big-endian so that their unsigned integer order equals the
// memcmp order of the keys they start (see docs/format.md).
//
// Loads and stores go through memcpy, so they accept any alignment; compilers
// turn them into single moves (plus a bswap where the host order differs).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "drydb/detail/config.h"

namespace drydb::detail {

template <class T>
inline T byteswap_any(T v) noexcept {
  if constexpr (sizeof(T) == 2) return static_cast<T>(__builtin_bswap16(static_cast<uint16_t>(v)));
  if constexpr (sizeof(T) == 4) return static_cast<T>(__builtin_bswap32(static_cast<uint32_t>(v)));
  if constexpr (sizeof(T) == 8) return static_cast<T>(__builtin_bswap64(static_cast<uint64_t>(v)));
  return v;
}

template <class T>
inline T load_le(const std::byte* p) noexcept {
  T v;
  std::memcpy(&v, p, sizeof(T));
  if constexpr (std::endian::native == std::endian::big && sizeof(T) > 1) v = byteswap_any(v);
  return v;
}

template <class T>
inline void store_le(std::byte* p, T v) noexcept {
  if constexpr (std::endian::native == std::endian::big && sizeof(T) > 1) v = byteswap_any(v);
  std::memcpy(p, &v, sizeof(T));
}

inline uint16_t load_u16(const std::byte* p) noexcept {
  return load_le<uint16_t>(p);
}
inline uint32_t load_u32(const std::byte* p) noexcept {
  return load_le<uint32_t>(p);
}
inline uint64_t load_u64(const std::byte* p) noexcept {
  return load_le<uint64_t>(p);
}
inline void store_u8(std::byte* p, uint8_t v) noexcept {
  *p = std::byte{v};
}
inline void store_u16(std::byte* p, uint16_t v) noexcept {
  store_le(p, v);
}
inline void store_u32(std::byte* p, uint32_t v) noexcept {
  store_le(p, v);
}
inline void store_u64(std::byte* p, uint64_t v) noexcept {
  store_le(p, v);
}

inline uint64_t bswap64(uint64_t v) noexcept {
  return __builtin_bswap64(v);
}

// Big-endian 8 bytes -> integer; the order of the results equals memcmp order.
inline uint64_t load_be64(const std::byte* p) noexcept {
  uint64_t v;
  std::memcpy(&v, p, 8);
  if constexpr (std::endian::native == std::endian::little) v = bswap64(v);
  return v;
}

// Big-endian 4 bytes -> integer, in memcmp order as load_be64.
inline uint32_t load_be32(const std::byte* p) noexcept {
  uint32_t v;
  std::memcpy(&v, p, 4);
  if constexpr (std::endian::native == std::endian::little) v = __builtin_bswap32(v);
  return v;
}

inline void store_be64(std::byte* p, uint64_t v) noexcept {
  if constexpr (std::endian::native == std::endian::little) v = bswap64(v);
  std::memcpy(p, &v, 8);
}

// The low 48 bits of `v`, big-endian, in p[0..5]: the millisecond timestamp that starts a ULID
// and a version-7 UUID.
inline void store_be48(std::byte* p, uint64_t v) noexcept {
  for (int i = 0; i < 6; ++i)
    p[i] = static_cast<std::byte>((v >> (40 - 8 * i)) & 0xff);
}

// Big-endian p[0..5] -> integer: the inverse of store_be48.
inline uint64_t load_be48(const std::byte* p) noexcept {
  uint64_t v = 0;
  for (int i = 0; i < 6; ++i)
    v = (v << 8) | std::to_integer<uint64_t>(p[i]);
  return v;
}

// The first 8 bytes of `key` as a big-endian integer, zero-padded when shorter.
// prefix(a) < prefix(b) implies a < b in memcmp-then-length order; equal
// prefixes need a full comparison unless both keys are exactly 8 bytes.
inline uint64_t key_prefix(const std::byte* key, size_t len) noexcept {
  if (len >= 8) return load_be64(key);
  std::byte buf[8] = {};
  if (len) std::memcpy(buf, key, len);
  return load_be64(buf);
}

}  // namespace drydb::detail
