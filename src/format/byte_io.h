// Sequential little-endian writing and bounds-checked reading of byte strings,
// for the catalog (the only variable-length structure outside pages).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "drydb/detail/coding.h"

namespace drydb::detail {

class ByteWriter {
 public:
  void u8(uint8_t v) { out_.push_back(std::byte{v}); }
  void u16(uint16_t v) { put(v); }
  void u32(uint32_t v) { put(v); }
  void u64(uint64_t v) { put(v); }
  void bytes(std::string_view s) {
    auto b = std::as_bytes(std::span(s.data(), s.size()));
    out_.insert(out_.end(), b.begin(), b.end());
  }
  std::vector<std::byte>& out() { return out_; }

 private:
  template <class T>
  void put(T v) {
    std::byte tmp[sizeof(T)];
    store_le(tmp, v);
    out_.insert(out_.end(), tmp, tmp + sizeof(T));
  }
  std::vector<std::byte> out_;
};

// Every read checks the remaining length; after the first failure ok() is
// false and reads return zeros.
class ByteReader {
 public:
  explicit ByteReader(std::span<const std::byte> in) : in_(in) {}
  uint8_t u8() { return get<uint8_t>(); }
  uint16_t u16() { return get<uint16_t>(); }
  uint32_t u32() { return get<uint32_t>(); }
  uint64_t u64() { return get<uint64_t>(); }
  std::string bytes(size_t n) {
    if (!ok_ || in_.size() - pos_ < n) {
      ok_ = false;
      return {};
    }
    std::string s(reinterpret_cast<const char*>(in_.data() + pos_), n);
    pos_ += n;
    return s;
  }
  bool ok() const { return ok_; }
  size_t remaining() const { return in_.size() - pos_; }
  size_t position() const { return pos_; }

 private:
  template <class T>
  T get() {
    if (!ok_ || in_.size() - pos_ < sizeof(T)) {
      ok_ = false;
      return 0;
    }
    T v = load_le<T>(in_.data() + pos_);
    pos_ += sizeof(T);
    return v;
  }
  std::span<const std::byte> in_;
  size_t pos_ = 0;
  bool ok_ = true;
};

}  // namespace drydb::detail
