// The names the suites give an enum's values in test names and messages, written as one list per
// enum rather than a switch each: the list is in the enum's declaration order, and a
// static_assert beside it ties its length to the enum's last value.
#pragma once

#include <array>
#include <cstddef>

namespace drydb_test {

// names[value] for an enum whose values are 0..N-1 in declaration order; "?" past the list (a
// value added to the enum without a name, which gtest then refuses as a test name).
template <class Enum, size_t N>
constexpr const char* name_in(const std::array<const char*, N>& names, Enum value) {
  const auto i = static_cast<size_t>(value);
  return i < N ? names[i] : "?";
}

// True when `names` names every value of an enum whose last value is `last`.
template <class Enum, size_t N>
constexpr bool names_every_value(const std::array<const char*, N>& /*names*/, Enum last) {
  return static_cast<size_t>(last) + 1 == N;
}

}  // namespace drydb_test
