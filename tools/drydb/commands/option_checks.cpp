#include "commands/option_checks.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>

namespace drydb::cli {

CLI::Validator non_negative_integer() {
  return CLI::Validator(
      [](const std::string& text) -> std::string {
        uint64_t n = 0;
        const char* end = text.data() + text.size();
        const auto [at, ec] = std::from_chars(text.data(), end, n);
        if (text.empty() || ec != std::errc() || at != end)
          return fmt::format("expected a non-negative integer, not '{}'", text);
        return {};
      },
      // No description: help shows the option's own type, UINT, rather than UINT:INTEGER>=0.
      "");
}

CLI::Validator non_negative_number() {
  return CLI::Validator(
      [](const std::string& text) -> std::string {
        double x = 0;
        const char* end = text.data() + text.size();
        const auto [at, ec] = std::from_chars(text.data(), end, x);
        if (text.empty() || text[0] == '-' || ec != std::errc() || at != end || !std::isfinite(x))
          return fmt::format("expected a non-negative number, not '{}'", text);
        return {};
      },
      "NUMBER>=0");
}

}  // namespace drydb::cli
