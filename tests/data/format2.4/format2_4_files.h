// The format-2.4 golden files in this folder: what each holds, as a model computed from fixed
// formulas (types and helpers in ../golden.h). make_format2_4.cpp wrote the files from this model
// with the format-2.4 builder (detail::kFormatMinor = 4); tests/format/format2_compat_test.cpp
// opens the committed files with today's reader and checks every row and index entry against
// the same model. Never regenerate the files with a builder that writes another format version
// (the writer refuses to): they are the record of what format 2.4 was.
//
// Format 2.4 added the file identity: 8 header bytes that seed every checksum but the header's
// (docs/format.md, "File identity"). Its files hold the earlier versions' models, so that every
// kind of page is checksummed with the seed (page size 512):
//   identity.drydb       the 2.3 column-list tables (text keys sharing prefixes: prefixed
//                        pages; a secondary index; a miss filter) and a table of overflow values
//   identity_lz4.drydb   the 2.1 miss filter tables (miss filter pages) through the lz4 filter
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "../format2.1/format2_1_files.h"
#include "../format2.3/format2_3_files.h"
#include "../golden.h"

namespace drydb_format2_4 {

using namespace drydb_golden;

// Values of 600 to 1,260 bytes: overflow runs of two and three pages at page size 512.
inline TableSpec overflow_table() {
  TableSpec t{"documents", drydb::KeyEncoding::int64(), {}, {}};
  for (int64_t i = 0; i < 12; ++i)
    t.rows.push_back({int64_bytes(i * 3 - 20), value_of(static_cast<uint64_t>(i), 600 + i * 60)});
  return t;
}

inline std::vector<TableSpec> identity_tables() {
  std::vector<TableSpec> out = drydb_format2_3::column_tables();
  out.push_back(overflow_table());
  return out;
}

inline std::vector<FileSpec> files() {
  FileSpec plain{"identity.drydb", 512, {}, identity_tables(), /*prefixed_pages=*/true};
  FileSpec lz4{"identity_lz4.drydb",
               512,
               {drydb::filters::lz4()},
               drydb_format2_1::miss_filter_tables(),
               /*prefixed_pages=*/true};
  plain.file_identity = lz4.file_identity = true;
  return {plain, lz4};
}

}  // namespace drydb_format2_4
