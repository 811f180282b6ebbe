// drydb::result<T>: a value or an Error, shaped like C++23 std::expected.
//
// drydb throws no exceptions (it builds with -fno-exceptions); every fallible
// call returns a result. Calling value() (or * / ->) on a result that holds an
// error is a precondition violation: it prints the error and aborts.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>
#include <system_error>
#include <type_traits>
#include <utility>
#include <variant>

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
  result(U&& v) : state_(std::in_place_index<0>, std::forward<U>(v)) {}  // NOLINT: implicit
  result(Error e) : state_(std::in_place_index<1>, std::move(e)) {}      // NOLINT: implicit

  bool has_value() const noexcept { return state_.index() == 0; }
  explicit operator bool() const noexcept { return has_value(); }

  T& value() & {
    check();
    return *std::get_if<0>(&state_);
  }
  const T& value() const& {
    check();
    return *std::get_if<0>(&state_);
  }
  T&& value() && {
    check();
    return std::move(*std::get_if<0>(&state_));
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  // Requires: !has_value().
  const Error& error() const& { return *std::get_if<1>(&state_); }
  Error&& error() && { return std::move(*std::get_if<1>(&state_)); }
  // The error code, or a default (zero) code when a value is held.
  std::error_code code() const noexcept {
    return has_value() ? std::error_code{} : std::get_if<1>(&state_)->code;
  }

  template <class U>
  T value_or(U&& fallback) const& {
    return has_value() ? *std::get_if<0>(&state_) : static_cast<T>(std::forward<U>(fallback));
  }

 private:
  void check() const {
    if (!has_value()) detail::die_on_error(*std::get_if<1>(&state_));
  }
  std::variant<T, Error> state_;
};

// result<void>: success, or an Error.
template <>
class [[nodiscard]] result<void> {
 public:
  result() = default;
  result(Error e) : error_(std::move(e)), failed_(true) {}  // NOLINT: implicit

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
  Error error_;
  bool failed_ = false;
};

using status = result<void>;

}  // namespace drydb

// Propagates an error from an expression yielding a drydb::result.
#define DRYDB_TRY(expr)                                                  \
  do {                                                                   \
    auto&& drydb_try_result_ = (expr);                                   \
    if (!drydb_try_result_) return std::move(drydb_try_result_).error(); \
  } while (0)
