// The MessagePack the builder writes itself: the rows of a columnar append
// (docs/format.md, "Column lists"), each object in its shortest form, as
// msgpack-cxx and msgpack-python write them.
//
// Why not msgpack-cxx: libdrydb has no dependency on it (the tool and the
// tests use it), and the dozen markers below are all a row needs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

namespace drydb::detail {

class MsgpackPacker {
 public:
  explicit MsgpackPacker(std::vector<std::byte>& out) : out_(out) {}

  void nil() { put(0xc0); }
  void boolean(bool v) { put(v ? 0xc3 : 0xc2); }

  void uint(uint64_t v) {
    if (v < 0x80)
      put(static_cast<uint8_t>(v));
    else if (v <= 0xff)
      put_be(0xcc, v, 1);
    else if (v <= 0xffff)
      put_be(0xcd, v, 2);
    else if (v <= 0xffffffff)
      put_be(0xce, v, 4);
    else
      put_be(0xcf, v, 8);
  }

  void integer(int64_t v) {
    if (v >= 0) return uint(static_cast<uint64_t>(v));
    const auto u = static_cast<uint64_t>(v);
    if (v >= -32)
      put(static_cast<uint8_t>(u));  // negative fixint
    else if (v >= INT8_MIN)
      put_be(0xd0, u, 1);
    else if (v >= INT16_MIN)
      put_be(0xd1, u, 2);
    else if (v >= INT32_MIN)
      put_be(0xd2, u, 4);
    else
      put_be(0xd3, u, 8);
  }

  void float32(float v) {
    uint32_t bits;
    std::memcpy(&bits, &v, 4);
    put_be(0xca, bits, 4);
  }
  void float64(double v) {
    uint64_t bits;
    std::memcpy(&bits, &v, 8);
    put_be(0xcb, bits, 8);
  }

  void str(std::span<const std::byte> s) {
    const size_t n = s.size();
    if (n < 32)
      put(static_cast<uint8_t>(0xa0 | n));
    else if (n <= 0xff)
      put_be(0xd9, n, 1);
    else if (n <= 0xffff)
      put_be(0xda, n, 2);
    else
      put_be(0xdb, n, 4);
    out_.insert(out_.end(), s.begin(), s.end());
  }

  void bin(std::span<const std::byte> s) {
    const size_t n = s.size();
    if (n <= 0xff)
      put_be(0xc4, n, 1);
    else if (n <= 0xffff)
      put_be(0xc5, n, 2);
    else
      put_be(0xc6, n, 4);
    out_.insert(out_.end(), s.begin(), s.end());
  }

  void array(size_t n) {
    if (n < 16)
      put(static_cast<uint8_t>(0x90 | n));
    else if (n <= 0xffff)
      put_be(0xdc, n, 2);
    else
      put_be(0xdd, n, 4);
  }

  // MessagePack's timestamp (extension type -1): `seconds` since the epoch
  // plus `nanos` (0 .. 999,999,999), in the shortest of its 32, 64 and 96-bit
  // forms.
  void timestamp(int64_t seconds, uint32_t nanos) {
    if (seconds >= 0 && (seconds >> 34) == 0) {
      const auto s = static_cast<uint64_t>(seconds);
      if (nanos == 0 && (s >> 32) == 0) {
        put(0xd6);
        put(0xff);
        put_be_bytes(s, 4);
      } else {
        put(0xd7);
        put(0xff);
        put_be_bytes(uint64_t{nanos} << 34 | s, 8);
      }
      return;
    }
    put(0xc7);
    put(12);
    put(0xff);
    put_be_bytes(nanos, 4);
    put_be_bytes(static_cast<uint64_t>(seconds), 8);
  }

 private:
  void put(uint8_t b) { out_.push_back(static_cast<std::byte>(b)); }
  void put_be_bytes(uint64_t v, int width) {
    for (int i = width - 1; i >= 0; --i)
      put(static_cast<uint8_t>(v >> (8 * i)));
  }
  void put_be(uint8_t marker, uint64_t v, int width) {
    put(marker);
    put_be_bytes(v, width);
  }

  std::vector<std::byte>& out_;
};

}  // namespace drydb::detail
