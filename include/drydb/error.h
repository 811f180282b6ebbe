// Error codes and the error category of drydb.
//
// Every fallible drydb call returns drydb::result<T> (see result.h) carrying a
// std::error_code in the drydb category when it fails. Absence (a key that is
// not in a table) is never an error. Each failure also carries a message that
// says what and where (table, key, page number); see result.h.
#pragma once

#include <string>
#include <system_error>

namespace drydb {

enum class errc : int {
  ok = 0,
  invalid_argument = 1,      // a caller passed a bad option, bound or name
  key_too_long = 2,          // a key longer than max_key_length(page_size)
  duplicate_key = 3,         // the same key appended twice to one table
  duplicate_name = 4,        // two tables (or indexes of one table) share a name
  wrong_key_type = 5,        // e.g. an int64_t key for a bytes table
  not_found = 6,             // an unknown table or index name (never a missing key)
  io_error = 7,              // the operating system refused a read, write, sync or rename
  corruption = 8,            // the file breaks a rule of the format: checksum, bound, order
  truncated = 9,             // the file is shorter than its header says
  bad_magic = 10,            // not a drydb file
  unsupported_version = 11,  // a major version or required feature this reader does not know
  unknown_encoding = 12,     // a key encoding id that is not registered in this process
  unknown_filter = 13,       // a page filter id that is not registered in this process
  value_too_large = 14,      // a value of 2^32 bytes or more
  out_of_memory = 15,        // an allocation failed
  invalid_state = 16,        // a call made at the wrong time (e.g. append after build)
};

// The category of drydb::errc codes; name() is "drydb".
const std::error_category& error_category() noexcept;

inline std::error_code make_error_code(errc e) noexcept {
  return {static_cast<int>(e), error_category()};
}

}  // namespace drydb

template <>
struct std::is_error_code_enum<drydb::errc> : std::true_type {};
