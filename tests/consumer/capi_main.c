/* Consumer test program of the C API, compiled as C: built against drydb::c the ways a user
 * does (installed CMake package, pkg-config drydb_c, add_subdirectory); see run.cmake. It proves
 * that c.h is found and that libdrydb_c links and runs: a database builds and reads back. */
#include <drydb/c.h>
#include <stdio.h>
#include <string.h>

int main(void) {
  drydb_builder* builder;
  drydb_table_builder* items;
  if (drydb_builder_create(512, &builder) != DRYDB_OK ||
      drydb_builder_create_table(builder, "items", 5, DRYDB_KEY_BYTES, &items) != DRYDB_OK)
    return 1;
  drydb_key a = drydb_key_bytes("a", 1), b = drydb_key_bytes("b", 1);
  if (drydb_table_builder_append(items, &b, "2", 1) != DRYDB_OK ||
      drydb_table_builder_append(items, &a, "1", 1) != DRYDB_OK)
    return 1;
  void* bytes;
  size_t size;
  if (drydb_builder_build_to_memory(builder, &bytes, &size) != DRYDB_OK) {
    fprintf(stderr, "consumer_c: build failed: %s\n", drydb_last_error_message());
    return 1;
  }
  drydb_builder_release(builder);
  drydb_db* db;
  const drydb_table* table;
  char value[8];
  size_t got;
  if (drydb_db_open_memory(bytes, size, NULL, &db) != DRYDB_OK ||
      drydb_db_table(db, "items", 5, &table) != DRYDB_OK ||
      drydb_table_get_copy(table, &a, value, sizeof value, &got) != DRYDB_OK || got != 1 ||
      memcmp(value, "1", 1) != 0) {
    fprintf(stderr, "consumer_c: unexpected answer: %s\n", drydb_last_error_message());
    return 1;
  }
  drydb_db_close(db);
  drydb_free(bytes);
  printf("consumer_c: drydb C API OK\n");
  return 0;
}
