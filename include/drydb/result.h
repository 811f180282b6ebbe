// drydb::result<T>: a value or an Error, shaped like C++23 std::expected.
//
// drydb throws no exceptions (it builds with -fno-exceptions); every fallible
// call returns a result. Calling value() (or * / ->) on a result that holds an
// error is a precondition violation: it prints the error and aborts.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <new>
#include <optional>
#include <string>
#include <system_error>
#include <type_traits>
#include <utility>

#include "drydb/detail/config.h"
#include "drydb/error.h"

namespace drydb {

// A failure: a code to branch on and a message for humans that says what and
// where (table, key, page number).
struct Error {
  std::error_code code;
  std::string message;

  Error() = default;
  Error(errc e, std::string msg) : code(make_error_code(e)), message(std::move(msg)) {}
  Error(std::error_code c, std::string msg) : code(c), message(std::move(msg)) {}

  // "message (drydb:8 corruption)"-style text for logs.
  std::string to_string() const;
};

// Tag to construct a result holding an error: `return unexpected(errc::x, "...")`.
inline Error unexpected(errc e, std::string msg) {
  return Error(e, std::move(msg));
}

namespace detail {
// Where the read path reports a failure: empty on the fast path (constructing
// an Error there would cost a std::string and an error_code per query).
using ErrorOut = std::optional<Error>;

[[noreturn]] inline void die_on_error(const Error& e) {
  std::fprintf(stderr, "drydb: value() called on a result holding an error: %s\n",
               e.message.c_str());
  std::abort();
}
}  // namespace detail

template <class T>
class [[nodiscard]] result {
 public:
  using value_type = T;

  template <class U = T, std::enable_if_t<std::is_constructible_v<T, U&&> &&
                                              !std::is_same_v<std::remove_cvref_t<U>, Error> &&
                                              !std::is_same_v<std::remove_cvref_t<U>, result>,
                                          int> = 0>
  result(U&& v) : has_value_(true) {  // NOLINT: implicit, like std::expected
    new (&value_) T(std::forward<U>(v));
  }
  result(Error e) : has_value_(false) { new (&error_) Error(std::move(e)); }  // NOLINT: implicit
  // A value made in place from `args`, as std::expected's: for a T that is
  // costly to move.
  template <class... A>
  explicit result(std::in_place_t, A&&... args) : has_value_(true) {
    new (&value_) T(std::forward<A>(args)...);
  }

  result(const result& o) : has_value_(o.has_value_) {
    if (has_value_)
      new (&value_) T(o.value_);
    else
      new (&error_) Error(o.error_);
  }
  result(result&& o) noexcept(std::is_nothrow_move_constructible_v<T>) : has_value_(o.has_value_) {
    if (has_value_)
      new (&value_) T(std::move(o.value_));
    else
      new (&error_) Error(std::move(o.error_));
  }
  result& operator=(const result& o) {
    if (this != &o) {
      destroy();
      has_value_ = o.has_value_;
      if (has_value_)
        new (&value_) T(o.value_);
      else
        new (&error_) Error(o.error_);
    }
    return *this;
  }
  result& operator=(result&& o) noexcept(std::is_nothrow_move_constructible_v<T>) {
    if (this != &o) {
      destroy();
      has_value_ = o.has_value_;
      if (has_value_)
        new (&value_) T(std::move(o.value_));
      else
        new (&error_) Error(std::move(o.error_));
    }
    return *this;
  }
  ~result() { destroy(); }

  bool has_value() const noexcept { return has_value_; }
  explicit operator bool() const noexcept { return has_value_; }

  T& value() & {
    check();
    return value_;
  }
  const T& value() const& {
    check();
    return value_;
  }
  // By value from an rvalue, so `for (auto e : *table.get_range(...))` owns
  // its range instead of dangling (range-for does not extend a temporary's
  // member's life).
  T value() && {
    check();
    return std::move(value_);
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  // Requires: !has_value().
  const Error& error() const& { return error_; }
  Error&& error() && { return std::move(error_); }
  // The error code, or a default (zero) code when a value is held.
  std::error_code code() const noexcept { return has_value_ ? std::error_code{} : error_.code; }

  template <class U>
  T value_or(U&& fallback) const& {
    return has_value_ ? value_ : static_cast<T>(std::forward<U>(fallback));
  }

 private:
  void check() const {
    if (!has_value_) detail::die_on_error(error_);
  }
  void destroy() noexcept {
    if (has_value_)
      value_.~T();
    else
      error_.~Error();
  }
  union {
    T value_;
    Error error_;
  };
  bool has_value_;
};

// result<void>: success, or an Error.
template <>
class [[nodiscard]] result<void> {
 public:
  // Success holds no Error: constructing, copying and destroying one costs a
  // flag, which matters on paths that return a status per row.
  result() noexcept {}
  result(Error e) : failed_(true) { new (&error_) Error(std::move(e)); }  // NOLINT: implicit
  result(const result& o) : failed_(o.failed_) {
    if (failed_) new (&error_) Error(o.error_);
  }
  result(result&& o) noexcept : failed_(o.failed_) {
    if (failed_) new (&error_) Error(std::move(o.error_));
  }
  result& operator=(const result& o) {
    if (this != &o) {
      if (o.failed_ && failed_) {
        error_ = o.error_;
      } else {
        reset();
        if (o.failed_) new (&error_) Error(o.error_);
        failed_ = o.failed_;
      }
    }
    return *this;
  }
  result& operator=(result&& o) noexcept {
    if (this != &o) {
      if (o.failed_ && failed_) {
        error_ = std::move(o.error_);
      } else {
        reset();
        if (o.failed_) new (&error_) Error(std::move(o.error_));
        failed_ = o.failed_;
      }
    }
    return *this;
  }
  ~result() { reset(); }

  bool has_value() const noexcept { return !failed_; }
  explicit operator bool() const noexcept { return !failed_; }
  void value() const {
    if (failed_) detail::die_on_error(error_);
  }
  // Requires: !has_value().
  const Error& error() const& { return error_; }
  Error&& error() && { return std::move(error_); }
  std::error_code code() const noexcept { return failed_ ? error_.code : std::error_code{}; }

 private:
  void reset() noexcept {
    if (failed_) {
      error_.~Error();
      failed_ = false;
    }
  }
  union {
    Error error_;
  };
  bool failed_ = false;
};

using status = result<void>;

}  // namespace drydb
