// Checks of option values with the tool's own messages ("--limit: expected a
// non-negative integer, not '-1'"), where CLI11's would print its range's
// bounds as doubles of 300 digits.
#pragma once

#include <CLI/CLI.hpp>

namespace drydb::cli {

// A decimal integer >= 0 that fits 64 bits, digits only (no sign, point or
// exponent): an unsigned option would otherwise take -1 as 2^64-1.
CLI::Validator non_negative_integer();
// A decimal number >= 0 (seconds, say), finite, as from_chars reads it (a
// fraction and an exponent allowed: 0.5, 5e-1).
CLI::Validator non_negative_number();

}  // namespace drydb::cli
