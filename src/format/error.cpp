#include "drydb/error.h"

#include <cstring>

#include "drydb/result.h"
#include "format/io_error.h"

namespace drydb {
namespace {

class Category final : public std::error_category {
 public:
  const char* name() const noexcept override { return "drydb"; }
  std::string message(int code) const override {
    switch (static_cast<errc>(code)) {
      case errc::ok:
        return "success";
      case errc::invalid_argument:
        return "invalid argument";
      case errc::key_too_long:
        return "key too long";
      case errc::duplicate_key:
        return "duplicate key";
      case errc::duplicate_name:
        return "duplicate name";
      case errc::wrong_key_type:
        return "wrong key type for the table's encoding";
      case errc::not_found:
        return "no such table or index";
      case errc::io_error:
        return "I/O error";
      case errc::corruption:
        return "corrupt file";
      case errc::truncated:
        return "truncated file";
      case errc::bad_magic:
        return "not a drydb file";
      case errc::unsupported_version:
        return "unsupported format version or feature";
      case errc::unknown_encoding:
        return "unknown key encoding";
      case errc::unknown_filter:
        return "unknown page filter";
      case errc::value_too_large:
        return "value too large";
      case errc::out_of_memory:
        return "out of memory";
      case errc::invalid_state:
        return "invalid state";
    }
    return "unknown drydb error";
  }
};

}  // namespace

const std::error_category& error_category() noexcept {
  static const Category category;
  return category;
}

std::string Error::to_string() const {
  return message + " (" + code.category().name() + ":" + std::to_string(code.value()) + " " +
         code.message() + ")";
}

Error detail::io_error(const std::string& what, int err) {
  return Error(errc::io_error, what + ": " + std::strerror(err));
}

}  // namespace drydb
