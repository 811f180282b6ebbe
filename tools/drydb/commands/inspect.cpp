#include "commands/inspect.h"

#include <fmt/format.h>

#include "common.h"
#include "io/text.h"

namespace drydb::cli {

FileInfo read_layout(const std::string& path) {
  return check(read_file_info(path));
}

std::string describe_filter(const FilterInfo& f) {
  if (f.id == "zstd") {
    if (const auto z = filters::zstd_options(f.params)) {
      if (z->dictionary_bytes > 0)
        return fmt::format("zstd (level {}, dictionary {} bytes)", z->level,
                           group_digits(z->dictionary_bytes));
      return fmt::format("zstd (level {})", z->level);
    }
  }
  return escape_display(f.id);
}

}  // namespace drydb::cli
