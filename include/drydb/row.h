// drydb::Row: one row (its primary key and value) as views of the pages they
// live in, which it holds, or, for a key its page stores after a shared
// prefix, of its own copy. What a secondary index lookup returns.
#pragma once

#include <cstddef>
#include <cstring>
#include <span>
#include <string_view>
#include <utility>

#include "drydb/detail/format.h"
#include "drydb/detail/page_cache.h"

namespace drydb {

// Either "not found" or a row. The key and value bytes live in pages (mapped
// file or page cache) that the handle keeps resident, or, for a key its page
// stores after a shared prefix, in the Row itself: they stay valid as long as
// this Row (not a moved-from one) and its database. Move-only; belongs to one thread at a time.
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

  // Internal: built by the read path. Takes ownership of both pins. A key
  // that is not a view of its page (`copy_key`, at most
  // kMaxPrefixedKeyLength bytes) is copied into the Row.
  static Row found(std::span<const std::byte> key, bool copy_key, std::span<const std::byte> value,
                   detail::PageSlot* key_pin, detail::PageSlot* value_pin) noexcept {
    Row r;
    r.key_ = key;
    if (copy_key) r.own_key();
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
  void own_key() noexcept {
    if (!key_.empty()) std::memcpy(key_buf_.bytes, key_.data(), key_.size());
    key_ = {key_buf_.bytes, key_.size()};
    key_owned_ = true;
  }
  void take(Row& o) noexcept {
    key_ = std::exchange(o.key_, {});
    key_owned_ = false;  // this Row may have owned its former key
    if (std::exchange(o.key_owned_, false)) own_key();
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
  bool key_owned_ = false;     // key_ views key_buf_
  detail::KeyBuffer key_buf_;  // the key, when its page does not hold it whole
};

}  // namespace drydb
