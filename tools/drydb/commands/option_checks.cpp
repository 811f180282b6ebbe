#include "commands/option_checks.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>

namespace drydb::cli {

namespace {

// Accepts text that from_chars reads whole as a T which `accept(text, value)` takes; otherwise
// the message is "expected WHAT, not 'TEXT'". `description` is what help shows after the type.
template <class T, class Accept>
CLI::Validator whole_value(const char* what, std::string description, Accept accept) {
  return CLI::Validator(
      [what, accept](const std::string& text) -> std::string {
        T value{};
        const char* end = text.data() + text.size();
        const auto [at, ec] = std::from_chars(text.data(), end, value);
        if (text.empty() || ec != std::errc() || at != end || !accept(text, value))
          return fmt::format("expected {}, not '{}'", what, text);
        return {};
      },
      std::move(description));
}

}  // namespace

CLI::Validator non_negative_integer() {
  // No description: help shows the option's own type, UINT, rather than UINT:INTEGER>=0.
  return whole_value<uint64_t>("a non-negative integer", "",
                               [](const std::string&, uint64_t) { return true; });
}

CLI::Validator non_negative_number() {
  return whole_value<double>(
      "a non-negative number", "NUMBER>=0",
      [](const std::string& text, double x) { return text[0] != '-' && std::isfinite(x); });
}

}  // namespace drydb::cli
