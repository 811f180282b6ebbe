// Writes the format-2.0 golden files of format2_files.h into a folder:
//   drydb_make_format2 tests/data/format2
// Run once, with the format-2.0 builder; the files are committed. Kept to show how they were
// made; never rerun it with a builder of a later format (see format2_files.h).
#include <cstdio>
#include <filesystem>

#include "format2_files.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s FOLDER\n", argv[0]);
    return 2;
  }
  using namespace drydb_format2;
  for (const FileSpec& f : files()) {
    drydb::DatabaseBuilder builder({.page_size = f.page_size, .filters = f.filters});
    for (const TableSpec& t : f.tables) {
      auto& table = builder.create_table(t.name, t.encoding);
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
