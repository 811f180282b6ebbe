// The format-2.3 golden files in this folder: what each holds, as a model computed from fixed
// formulas (types and helpers in ../golden.h). make_format2_3.cpp wrote the files from this model
// with the format-2.3 builder (detail::kFormatMinor = 3); tests/format/format2_compat_test.cpp
// opens the committed files with today's reader and checks every row and index entry against
// the same model. Never regenerate the files with a builder that writes another format version
// (the writer refuses to): they are the record of what format 2.3 was.
//
// Format 2.3 added column lists: a table's column names stored once in the catalog, its rows
// MessagePack arrays (docs/format.md, "Column lists (format 2.3)"). The file (page size 512):
//   column_lists.drydb  a table of text keys with a column list whose key column comes first
//                       (rows store nil there for the key's text, or another text as it is;
//                       rows shorter than the list, nil columns in the middle), with a miss
//                       filter and a secondary index; an int64 table whose key column is in
//                       the middle; a table with a column list and no key column; an empty
//                       table with a column list; a table without one
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "../golden.h"

namespace drydb_format2_3 {

using namespace drydb_golden;

inline std::vector<TableSpec> column_tables() {
  std::vector<TableSpec> out;
  {
    TableSpec t{"people",
                drydb::KeyEncoding::bytes(),
                {},
                {},
                /*miss_filter_bits=*/10,
                {"id", "name", "age", "email", "team"},
                /*key_column=*/0};
    for (uint64_t i = 0; i < 400; ++i) {
      const uint64_t n = 10000 + i * 7;
      const std::string name = "Person " + std::to_string(i * 37 % 1000);
      const auto age = static_cast<uint32_t>(18 + n % 70);
      const std::string email = "p" + std::to_string(n) + "@example.org";
      std::vector<std::string> row;
      if (i % 7 == 3) {  // only the first columns
        row = {msgpack_nil(), msgpack_str(name)};
      } else if (i % 11 == 5) {  // an absent column in the middle
        row = {msgpack_nil(), msgpack_str(name), msgpack_nil(), msgpack_str(email)};
      } else if (i % 13 == 6) {  // the key column holding another text than the key's
        row = {msgpack_str("P-" + std::to_string(n)), msgpack_str(name), msgpack_uint(age)};
      } else {
        row = {msgpack_nil(), msgpack_str(name), msgpack_uint(age), msgpack_str(email),
               msgpack_str("team-" + std::to_string(n % 6))};
      }
      t.rows.push_back({"person/" + std::to_string(n), msgpack_array(row)});
    }
    t = sorted(t);
    t.indexes.push_back({"age", false, drydb::KeyEncoding::int64(), [](const Row& r) {
                           const uint64_t n = std::stoull(r.key.substr(7));
                           return std::optional<std::string>(
                               int64_bytes(static_cast<int64_t>(18 + n % 70)));
                         }});
    out.push_back(t);
  }
  {
    TableSpec t{"scores",
                drydb::KeyEncoding::int64(),
                {},
                {},
                /*miss_filter_bits=*/0,
                {"name", "id", "score", "note"},
                /*key_column=*/1};
    for (int64_t i = 0; i < 300; ++i) {
      const int64_t id = (i - 100) * 13;
      const auto u = static_cast<uint64_t>(i);
      std::vector<std::string> row{msgpack_str("player" + std::to_string(u * 59 % 997)),
                                   msgpack_nil(),
                                   msgpack_uint(static_cast<uint32_t>(u * u % 70000))};
      if (i % 9 == 4) row[1] = msgpack_str("00" + std::to_string(id));  // stored as it is
      if (i % 5 == 1) row.push_back(msgpack_str(std::string(i % 40, 'n')));
      t.rows.push_back({int64_bytes(id), msgpack_array(row)});
    }
    out.push_back(t);
  }
  {
    TableSpec t{"tags", drydb::KeyEncoding::bytes(), {},
                {},     /*miss_filter_bits=*/0,      {"count", "label"}};
    for (uint64_t i = 0; i < 200; ++i) {
      std::vector<std::string> row{msgpack_uint(static_cast<uint32_t>(i * 1237 % 300))};
      if (i % 4 != 0) row.push_back(msgpack_str("Label " + std::to_string(i)));
      if (i % 10 == 7) row[0] = msgpack_nil();
      t.rows.push_back(
          {"tag:category/subcategory/" + std::to_string(i * 61 % 1009), msgpack_array(row)});
    }
    out.push_back(sorted(t));
  }
  out.push_back(TableSpec{"no_rows", drydb::KeyEncoding::bytes(), {}, {}, 0, {"a", "b"}, 1});
  {
    TableSpec t{"blobs", drydb::KeyEncoding::int64(), {}, {}};
    for (int64_t i = 0; i < 60; ++i)
      t.rows.push_back({int64_bytes(i), value_of(static_cast<uint64_t>(i), 10)});
    out.push_back(t);
  }
  return out;
}

inline std::vector<FileSpec> files() {
  return {{"column_lists.drydb", 512, {}, column_tables(), /*prefixed_pages=*/true}};
}

}  // namespace drydb_format2_3
