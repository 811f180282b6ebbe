// Consumer test program: built against drydb the ways a user does (installed CMake package,
// pkg-config, add_subdirectory); see tests/consumer/run.cmake. It proves that the package's
// headers are found, that the static library and its dependencies (xxhash, threads) link, and
// that a database builds and reads back.
#include <drydb/drydb.h>

#include <cstdio>

int main() {
  drydb::DatabaseBuilder builder({.page_size = 512});
  auto& items = builder.create_table("items", drydb::KeyEncoding::bytes());
  items.append("b", "2").append("a", "1");
  auto bytes = builder.build_to_memory();
  if (!bytes) {
    std::fprintf(stderr, "consumer: build failed: %s\n", bytes.error().message.c_str());
    return 1;
  }
  auto db = drydb::ReadOnlyDatabase::open_memory(*bytes);
  if (!db) {
    std::fprintf(stderr, "consumer: open failed: %s\n", db.error().message.c_str());
    return 1;
  }
  auto table = db->table("items");
  auto a = table ? table->get("a") : drydb::result<drydb::Value>(table.error());
  if (!a || !a->has_value() || a->str() != "1" || table->count() != 2) {
    std::fprintf(stderr, "consumer: unexpected answer\n");
    return 1;
  }
  std::printf("consumer: drydb package OK\n");
  return 0;
}
