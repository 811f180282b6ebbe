// errc::io_error from a failed system call, for every layer that does I/O
// (storage, sinks, spill files).
#pragma once

#include <string>

#include "drydb/result.h"

namespace drydb::detail {

// "what: strerror(err)" as an io_error.
Error io_error(const std::string& what, int err);

}  // namespace drydb::detail
