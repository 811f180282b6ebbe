/* A fixed number of gets through the C API (drydb_table_get: int64 keys 0..9,999, 13-byte
 * values, 4 KiB pages, keys in a pseudo-random order), for callgrind's instruction count beside
 * drydb_instr_count's C++ gets (docs/benchmarks.md, ".NET package"):
 *
 *   valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*measured_queries*' \
 *     build/release/bench/drydb_capi_instr_count FOLDER
 *
 * FOLDER is where it writes its database (items.drydb). */
#include <stdio.h>
#include <stdlib.h>
#include "drydb/c.h"

__attribute__((noinline)) static unsigned long measured_queries(const drydb_table* t,
                                                                drydb_value* v, const int64_t* keys,
                                                                int n) {
  unsigned long sum = 0;
  for (int i = 0; i < n; i++) {
    drydb_key k = drydb_key_int64(keys[i]);
    const void* data;
    size_t size;
    if (drydb_table_get(t, &k, v, &data, &size) == DRYDB_OK)
      sum += ((const unsigned char*)data)[size - 1];
  }
  return sum;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: drydb_capi_instr_count FOLDER\n");
    return 2;
  }
  char path[4096];
  snprintf(path, sizeof path, "%s/items.drydb", argv[1]);
  drydb_builder* b;
  drydb_table_builder* tb;
  if (drydb_builder_create(4096, &b) ||
      drydb_builder_create_table(b, "items", 5, DRYDB_KEY_INT64, &tb))
    return 1;
  char value[14];
  for (int64_t i = 0; i < 10000; i++) {
    snprintf(value, sizeof value, "val%010lld", (long long)i);
    drydb_key k = drydb_key_int64(i);
    if (drydb_table_builder_append(tb, &k, value, 13)) return 1;
  }
  if (drydb_builder_build_to_file(b, path)) return 1;
  drydb_builder_release(b);
  drydb_db* db;
  const drydb_table* t;
  drydb_value* v;
  if (drydb_db_open(path, NULL, &db) || drydb_db_table(db, "items", 5, &t) ||
      drydb_value_create(db, &v))
    return 1;
  enum { N = 100000 };
  int64_t* keys = malloc(sizeof(int64_t) * N);
  unsigned long long x = 123456789;
  for (int i = 0; i < N; i++) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    keys[i] = (int64_t)((x >> 33) % 10000);
  }
  printf("sum %lu\nqueries %d\n", measured_queries(t, v, keys, N), N);
  drydb_value_release(v);
  drydb_db_close(db);
  return 0;
}
