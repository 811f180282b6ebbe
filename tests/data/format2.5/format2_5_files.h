// The format-2.5 golden files in this folder: what each holds, as a model computed from fixed
// formulas (types and helpers in ../golden.h). make_format2_5.cpp wrote the files from this model
// with the format-2.5 builder (detail::kFormatMinor = 5); tests/format/format2_compat_test.cpp
// opens the committed files with today's reader and checks every row and index entry against
// the same model. Never regenerate the files with a builder that writes another format version
// (the writer refuses to): they are the record of what format 2.5 was.
//
// Format 2.5 bound overflow runs to their place (required feature bit 5: a run's checksum is
// seeded with the identity XOR its first page) and made the identity cover each index's entries
// (docs/format.md, "File identity"). Its files have overflow runs and secondary indexes, also
// over the rows of overflow values (page size 512):
//   placed_runs.drydb       the 2.4 file's tables (column lists, prefixed pages, an index, a
//                           miss filter, overflow runs) and "attachments": text keys, values
//                           of 200 to 2,300 bytes (runs of one to five pages), two indexes
//   placed_runs_lz4.drydb   "attachments" and the 2.4 overflow table through the lz4 filter
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "../format2.4/format2_4_files.h"
#include "../golden.h"

namespace drydb_format2_5 {

using namespace drydb_golden;

// 60 rows "att/000" .. "att/177" (keys 3 apart), every third value over the inline limit of 128
// bytes: 200 + 105 × i bytes; the others 10 + i % 50 bytes. Indexed by the value's length
// (non-unique, int64; left out for inline values) and by the key read backwards (unique, text).
inline TableSpec attachments() {
  TableSpec t{"attachments", drydb::KeyEncoding::bytes(), {}, {}};
  for (uint64_t i = 0; i < 60; ++i) {
    std::string key = "att/000";
    const uint64_t n = i * 3;
    key[4] = static_cast<char>('0' + n / 100);
    key[5] = static_cast<char>('0' + n / 10 % 10);
    key[6] = static_cast<char>('0' + n % 10);
    t.rows.push_back({key, value_of(i, i % 3 == 1 ? 200 + 105 * (i / 3) : 10 + i % 50)});
  }
  t.indexes.push_back({"length", false, drydb::KeyEncoding::int64(),
                       [](const Row& r) -> std::optional<std::string> {
                         if (r.value.size() <= 128) return std::nullopt;
                         return int64_bytes(static_cast<int64_t>(r.value.size() / 300));
                       }});
  t.indexes.push_back({"reversed", true, drydb::KeyEncoding::bytes(),
                       [](const Row& r) -> std::optional<std::string> {
                         return std::string(r.key.rbegin(), r.key.rend());
                       }});
  return t;
}

inline std::vector<FileSpec> files() {
  std::vector<TableSpec> tables = drydb_format2_4::identity_tables();
  tables.push_back(attachments());
  FileSpec plain{"placed_runs.drydb", 512, {}, tables, /*prefixed_pages=*/true};
  FileSpec lz4{"placed_runs_lz4.drydb",
               512,
               {drydb::filters::lz4()},
               {attachments(), drydb_format2_4::overflow_table()},
               /*prefixed_pages=*/true};
  plain.file_identity = lz4.file_identity = true;
  plain.placed_runs = lz4.placed_runs = true;
  return {plain, lz4};
}

}  // namespace drydb_format2_5
