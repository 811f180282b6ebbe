// The format-2.1 golden files in this folder: what each holds, as a model computed from fixed
// formulas (types and helpers in ../golden.h). make_format2_1.cpp wrote the files from this model
// with the format-2.1 builder, the library at commit 5cd400f (its last commit before format 2.2:
// detail::kFormatMinor = 1); tests/format/format2_compat_test.cpp opens the committed files with
// today's reader and checks every row and index entry against the same model. Never regenerate
// the files with a builder that writes another format version (the writer refuses to): they are
// the record of what format 2.1 was.
//
// Format 2.1 added miss filters (docs/format.md, "Miss filters"). The files (page size 512, so a
// filter takes several pages and the trees are several levels deep):
//   miss_filters.drydb       tables with miss filters of 1 to 32 bits per key over int64 keys
//                            (negative and positive, sparse), text keys (with overflow values and
//                            a secondary index), uuid_v7 keys; an empty table that asked for a
//                            filter (and so has none) and a table without one
//   miss_filters_zstd.drydb  the same tables with zstd page filtering, so the filter's pages are
//                            read through the page cache
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "../golden.h"

namespace drydb_format2_1 {

using namespace drydb_golden;

inline std::vector<TableSpec> miss_filter_tables() {
  std::vector<TableSpec> out;
  {
    TableSpec t{"ids", drydb::KeyEncoding::int64(), {}, {}, /*miss_filter_bits=*/10};
    for (int64_t i = 0; i < 750; ++i)
      t.rows.push_back(
          {int64_bytes((i - 375) * 7919 + i % 7), value_of(static_cast<uint64_t>(i), 6)});
    t.rows.push_back({int64_bytes(INT64_MIN), "min"});
    t.rows.push_back({int64_bytes(INT64_MAX), "max"});
    out.push_back(sorted(t));
  }
  {
    TableSpec t{"names", drydb::KeyEncoding::bytes(), {}, {}, /*miss_filter_bits=*/6};
    t.rows.push_back({"", "the empty key"});
    for (uint64_t i = 0; i < 300; ++i) {
      size_t len = 4 + i * 13 % 40;
      if (i % 67 == 5) len = 300 + i;  // overflow values
      t.rows.push_back({"name/" + std::to_string(i * 104729 % 1000003), value_of(i, len)});
    }
    t = sorted(t);
    t.indexes.push_back({"length", false, drydb::KeyEncoding::int64(), [](const Row& r) {
                           return std::optional<std::string>(
                               int64_bytes(static_cast<int64_t>(r.value.size())));
                         }});
    out.push_back(t);
  }
  {
    TableSpec t{"uuid", drydb::KeyEncoding::uuid_v7(), {}, {}, /*miss_filter_bits=*/32};
    for (uint64_t i = 0; i < 250; ++i) {
      std::string k = be64(0x0191'0000'0000'7000ull + (i << 24) + i * 3) +
                      be64(0x8000'0000'0000'0000ull | (i * 0x9E3779B97F4A7C15ull >> 2));
      k[6] = static_cast<char>(0x70 | (k[6] & 0x0F));  // version 7
      k[8] = static_cast<char>(0x80 | (k[8] & 0x3F));  // variant 10
      t.rows.push_back({k, value_of(i, 12)});
    }
    out.push_back(sorted(t));
  }
  {
    TableSpec t{"sparse", drydb::KeyEncoding::int64(), {}, {}, /*miss_filter_bits=*/1};
    for (int64_t i = 0; i < 300; ++i)
      t.rows.push_back({int64_bytes(i * 1'000'003), value_of(static_cast<uint64_t>(i), 3)});
    out.push_back(sorted(t));
  }
  out.push_back(TableSpec{"empty", drydb::KeyEncoding::bytes(), {}, {}, /*miss_filter_bits=*/10});
  {
    TableSpec t{"plain", drydb::KeyEncoding::int64(), {}, {}};
    for (int64_t i = 0; i < 100; ++i)
      t.rows.push_back({int64_bytes(i * 3), value_of(static_cast<uint64_t>(i), 9)});
    out.push_back(t);
  }
  return out;
}

inline std::vector<FileSpec> files() {
  return {
      {"miss_filters.drydb", 512, {}, miss_filter_tables()},
      {"miss_filters_zstd.drydb", 512, {drydb::filters::zstd()}, miss_filter_tables()},
  };
}

}  // namespace drydb_format2_1
