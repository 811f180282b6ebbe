// drydb::Row: a zero-copy view of one row (its primary key and value),
// holding the pages they live in. What a secondary index lookup returns.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>
#include <utility>

#include "drydb/detail/page_cache.h"

namespace drydb {

// Either "not found" or a row. The key and value bytes live in pages (mapped
// file or page cache) that the handle keeps resident: they stay valid as long
// as this Row and its database. Move-only; belongs to one thread at a time.
class Row {
 public:
  Row() noexcept = default;
  // A moved-from Row is empty (not found) and holds no page.
  Row(Row&& o) noexcept { take(o); }
  Row& operator=(Row&& o) noexcept {
    if (this != &o) {
      release();
      take(o);
    }
    return *this;
  }
  Row(const Row&) = delete;
  Row& operator=(const Row&) = delete;
  ~Row() { release(); }

  // Whether a row was found.
  bool has_value() const noexcept { return found_; }
  explicit operator bool() const noexcept { return found_; }

  // The row's primary key (encoded, as its table orders it) and value; empty
  // when not found.
  std::span<const std::byte> key() const noexcept { return key_; }
  std::span<const std::byte> value() const noexcept { return value_; }
  std::string_view key_str() const noexcept {
    return {reinterpret_cast<const char*>(key_.data()), key_.size()};
  }
  std::string_view value_str() const noexcept {
    return {reinterpret_cast<const char*>(value_.data()), value_.size()};
  }

  // Internal: built by the read path. Takes ownership of both pins.
  static Row found(std::span<const std::byte> key, std::span<const std::byte> value,
                   detail::PageSlot* key_pin, detail::PageSlot* value_pin) noexcept {
    Row r;
    r.key_ = key;
    r.value_ = value;
    r.key_pin_ = key_pin;
    r.value_pin_ = value_pin;
    r.found_ = true;
    return r;
  }

 private:
  void release() noexcept {
    detail::unpin(key_pin_);
    detail::unpin(value_pin_);
  }
  void take(Row& o) noexcept {
    key_ = std::exchange(o.key_, {});
    value_ = std::exchange(o.value_, {});
    key_pin_ = std::exchange(o.key_pin_, nullptr);
    value_pin_ = std::exchange(o.value_pin_, nullptr);
    found_ = std::exchange(o.found_, false);
  }

  std::span<const std::byte> key_;
  std::span<const std::byte> value_;
  detail::PageSlot* key_pin_ = nullptr;    // the leaf holding the key (and an inline value)
  detail::PageSlot* value_pin_ = nullptr;  // an overflow run holding the value
  bool found_ = false;
};

}  // namespace drydb
