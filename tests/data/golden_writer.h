// The writer of a format version's golden files (make_format2.cpp, make_format2_N.cpp):
// builds each file of the version's model (golden.h) into a folder with the builder it is linked
// with, and refuses to run with a builder that writes another format version, since golden files
// are the record of what their version's builder wrote. `add_features` gives a table what its
// version added (a miss filter, a column list) right after the table is created; the rest is
// what every version's builder has.
#pragma once

#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "drydb/detail/format.h"
#include "golden.h"

namespace drydb_golden {

template <class AddFeatures>
int write_golden_files(int argc, char** argv, const std::vector<FileSpec>& files, uint16_t minor,
                       AddFeatures add_features) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s FOLDER\n", argv[0]);
    return 2;
  }
  if (drydb::detail::kFormatMajor != 2 || drydb::detail::kFormatMinor != minor) {
    std::fprintf(stderr,
                 "%s: this builder writes format %d.%d; these are the format-2.%d golden files, "
                 "written once by the format-2.%d builder (see the model's header)\n",
                 argv[0], int{drydb::detail::kFormatMajor}, int{drydb::detail::kFormatMinor},
                 int{minor}, int{minor});
    return 2;
  }
  for (const FileSpec& f : files) {
    drydb::DatabaseBuilder builder({.page_size = f.page_size, .filters = f.filters});
    for (const TableSpec& t : f.tables) {
      auto& table = builder.create_table(t.name, t.encoding);
      add_features(table, t);
      for (const Row& r : t.rows)
        table.append(typed_key(t.encoding, r.key), r.value);
      for (const IndexSpec& ix : t.indexes)
        table.add_secondary_index(
            ix.name, ix.unique, ix.encoding,
            [&ix](std::span<const std::byte> key,
                  std::span<const std::byte> value) -> std::optional<drydb::IndexKey> {
              const Row row{std::string(reinterpret_cast<const char*>(key.data()), key.size()),
                            std::string(reinterpret_cast<const char*>(value.data()), value.size())};
              const auto k = ix.key_of(row);
              if (!k) return std::nullopt;
              return drydb::IndexKey(typed_key(ix.encoding, *k));
            });
    }
    const auto path = std::filesystem::path(argv[1]) / f.name;
    if (auto st = builder.build_to_file(path); !st) {
      std::fprintf(stderr, "%s: %s\n", path.c_str(), st.error().to_string().c_str());
      return 1;
    }
    std::printf("%s\n", path.c_str());
  }
  return 0;
}

// The add_features of the versions since 2.1: a table's miss filter, when its spec has one.
inline void add_miss_filter(drydb::TableBuilder& table, const TableSpec& t) {
  if (t.miss_filter_bits != 0) table.add_miss_filter(t.miss_filter_bits);
}

// The add_features of the versions since 2.3: a table's column list, then its miss filter, as
// far as its spec has them.
inline void add_columns_and_miss_filter(drydb::TableBuilder& table, const TableSpec& t) {
  if (!t.columns.empty()) table.set_columns(t.columns, t.key_column);
  add_miss_filter(table, t);
}

}  // namespace drydb_golden
