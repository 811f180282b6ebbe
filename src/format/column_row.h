// The shape of a row in a table with a column list (format 2.3, "Column
// lists"): exactly one MessagePack array of at most as many well-formed
// objects as the table has columns. The builder checks each appended row and
// verify() each stored one.
//
// Why not msgpack-cxx: libdrydb builds with or without exceptions
// (DRYDB_NO_EXCEPTIONS), and msgpack-cxx reports every malformed input by
// throwing. The one question asked here, whether bytes are well-formed, needs
// only the format's type markers and lengths, not a decoder.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace drydb::detail {

// Empty when `row` is one MessagePack array of at most `columns` elements,
// each a well-formed object, with nothing after it; else what is wrong.
std::string column_row_problem(std::span<const std::byte> row, uint32_t columns);

}  // namespace drydb::detail
