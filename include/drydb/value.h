// drydb::Value: a zero-copy view of one stored value, holding its page.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>
#include <utility>

#include "drydb/detail/page_cache.h"

namespace drydb {

// What a point lookup returns: either "not found" or a view of the value.
// The bytes live inside a page (mapped file or page cache) that the handle
// keeps resident: they stay valid as long as this Value and its database.
// Move-only; belongs to one thread at a time.
class Value {
 public:
  Value() noexcept = default;
  // A moved-from Value is empty (not found) and holds no page.
  Value(Value&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)),
        size_(std::exchange(o.size_, 0)),
        pin_(std::exchange(o.pin_, nullptr)),
        found_(std::exchange(o.found_, false)) {}
  Value& operator=(Value&& o) noexcept {
    if (this != &o) {
      detail::unpin(pin_);
      data_ = std::exchange(o.data_, nullptr);
      size_ = std::exchange(o.size_, 0);
      pin_ = std::exchange(o.pin_, nullptr);
      found_ = std::exchange(o.found_, false);
    }
    return *this;
  }
  Value(const Value&) = delete;
  Value& operator=(const Value&) = delete;
  ~Value() { detail::unpin(pin_); }

  // Whether the key was found.
  bool has_value() const noexcept { return found_; }
  explicit operator bool() const noexcept { return found_; }

  // The value's bytes (empty when not found, or for an empty value).
  std::span<const std::byte> bytes() const noexcept { return {data_, size_}; }
  std::string_view str() const noexcept { return {reinterpret_cast<const char*>(data_), size_}; }
  size_t size() const noexcept { return size_; }

  // Internal: built by the read path. Takes ownership of `pin`.
  static Value found(const std::byte* data, size_t size, detail::PageSlot* pin) noexcept {
    Value v;
    v.data_ = data;
    v.size_ = size;
    v.pin_ = pin;
    v.found_ = true;
    return v;
  }

 private:
  const std::byte* data_ = nullptr;
  size_t size_ = 0;
  detail::PageSlot* pin_ = nullptr;
  bool found_ = false;
};

}  // namespace drydb
