/* Gets, 100-row ranges and counts through the C API (libdrydb_c) on a 100,000-row int64 table,
 * for comparing two builds of the same library side by side: the shipped one (libstdc++, zstd,
 * lz4, xxHash and simdjson linked in, -DDRYDB_STATIC_RUNTIME=ON) and a normal Release build's,
 * which links them dynamically (docs/benchmarks.md, "Shipped library: static against dynamic").
 *
 *   drydb_capi_link_bench FOLDER get|range|count|all N
 *
 * FOLDER is where it writes its database (items.drydb: keys 0..99,999, 13-byte values, 4 KiB
 * pages). Each op runs N queries over keys drawn in advance by an LCG (the same for every run), in
 * its own function measured_gets, measured_ranges or measured_counts, after one uncounted walk
 * over every row; it prints the library it called (dladdr), nanoseconds per query (wall time
 * and the process's CPU time) and a checksum. The library is whichever libdrydb_c.so.0 the
 * loader finds first, so point LD_LIBRARY_PATH at a folder holding one (LD_LIBRARY_PATH is
 * searched before the build's RUNPATH); `ldd` or LD_DEBUG=libs shows which it picks, and the
 * printed path confirms it.
 *
 * Instructions per query, under callgrind (steady on a shared machine):
 *
 *   LD_LIBRARY_PATH=LIBDIR valgrind --tool=callgrind --collect-atstart=no \
 *     --toggle-collect='measured_gets' build/release/bench/drydb_capi_link_bench FOLDER get 100000
 *
 * (measured_ranges with `range`, measured_counts with `count`) -> total Ir / N. Times: run `all`
 * with each library in turn, over several rounds (alternating, so that a shared machine's drift
 * falls on both), and take each library's median:
 *
 *   for round in 1 2 3 4 5; do for dir in SHIPPED_DIR DYNAMIC_DIR; do
 *     LD_LIBRARY_PATH=$dir build/release/bench/drydb_capi_link_bench FOLDER all 300000
 *   done; done */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "drydb/c.h"

enum { kRows = 100000, kRangeRows = 100, kCountRows = 8000 };

static void check(int status, const char* what) {
  if (status != DRYDB_OK) {
    fprintf(stderr, "drydb_capi_link_bench: %s failed with status %d\n", what, status);
    exit(1);
  }
}

/* N keys in [0, span), the same for every run. */
static int64_t* draw_keys(int n, int64_t span) {
  int64_t* keys = malloc(sizeof(int64_t) * (size_t)n);
  if (keys == NULL) exit(1);
  unsigned long long x = 123456789;
  for (int i = 0; i < n; i++) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    keys[i] = (int64_t)((x >> 33) % (unsigned long long)span);
  }
  return keys;
}

__attribute__((noinline)) static uint64_t measured_gets(const drydb_table* t, drydb_value* v,
                                                        const int64_t* keys, int n) {
  uint64_t sum = 0;
  for (int i = 0; i < n; i++) {
    drydb_key k = drydb_key_int64(keys[i]);
    const void* data;
    size_t size;
    if (drydb_table_get(t, &k, v, &data, &size) == DRYDB_OK)
      sum += ((const unsigned char*)data)[size - 1];
  }
  return sum;
}

/* Each query positions the range on kRangeRows rows from keys[i] and walks them. */
__attribute__((noinline)) static uint64_t measured_ranges(const drydb_table* t, drydb_range* r,
                                                          const int64_t* keys, int n) {
  uint64_t sum = 0;
  for (int i = 0; i < n; i++) {
    drydb_bound lo = {DRYDB_INCLUSIVE, drydb_key_int64(keys[i])};
    drydb_bound hi = {DRYDB_INCLUSIVE, drydb_key_int64(keys[i] + kRangeRows - 1)};
    if (drydb_table_range(t, &lo, &hi, DRYDB_ASCENDING, r) != DRYDB_OK) continue;
    const void* value;
    size_t size;
    while (drydb_range_next(r, NULL, NULL, &value, &size) == DRYDB_OK)
      sum += ((const unsigned char*)value)[size - 1];
  }
  return sum;
}

/* Each query counts the kCountRows rows from keys[i]. */
__attribute__((noinline)) static uint64_t measured_counts(const drydb_table* t, const int64_t* keys,
                                                          int n) {
  uint64_t sum = 0;
  for (int i = 0; i < n; i++) {
    drydb_bound lo = {DRYDB_INCLUSIVE, drydb_key_int64(keys[i])};
    drydb_bound hi = {DRYDB_INCLUSIVE, drydb_key_int64(keys[i] + kCountRows - 1)};
    uint64_t count;
    if (drydb_table_count_range(t, &lo, &hi, &count) == DRYDB_OK) sum += count;
  }
  return sum;
}

static double now_ns(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* When an op started: wall time, and the process's CPU time (which leaves out the time other
 * work on a shared machine held the core). */
typedef struct start_time {
  double wall_ns, cpu_ns;
} start_time;

static start_time start_now(void) {
  start_time t = {now_ns(CLOCK_MONOTONIC), now_ns(CLOCK_PROCESS_CPUTIME_ID)};
  return t;
}

static void report(const char* op, int n, start_time start, uint64_t sum) {
  const double wall = (now_ns(CLOCK_MONOTONIC) - start.wall_ns) / n;
  const double cpu = (now_ns(CLOCK_PROCESS_CPUTIME_ID) - start.cpu_ns) / n;
  printf("%-5s %d queries %.1f ns/query wall %.1f ns/query cpu checksum %llu\n", op, n, wall, cpu,
         (unsigned long long)sum);
}

static void build(const char* path) {
  drydb_builder* b;
  drydb_table_builder* tb;
  check(drydb_builder_create(4096, &b), "drydb_builder_create");
  check(drydb_builder_create_table(b, "items", 5, DRYDB_KEY_INT64, &tb), "create_table");
  char value[14];
  for (int64_t i = 0; i < kRows; i++) {
    snprintf(value, sizeof value, "val%010lld", (long long)i);
    drydb_key k = drydb_key_int64(i);
    check(drydb_table_builder_append(tb, &k, value, 13), "append");
  }
  check(drydb_builder_build_to_file(b, path), "build_to_file");
  drydb_builder_release(b);
}

int main(int argc, char** argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: drydb_capi_link_bench FOLDER get|range|count|all N\n");
    return 2;
  }
  const char* op = argv[2];
  const int all = strcmp(op, "all") == 0;
  const int n = atoi(argv[3]);
  if (n <= 0 ||
      !(all || strcmp(op, "get") == 0 || strcmp(op, "range") == 0 || strcmp(op, "count") == 0)) {
    fprintf(stderr, "drydb_capi_link_bench: unknown op or count\n");
    return 2;
  }
  /* The file the loader took drydb_table_get from (dlsym: a data pointer, as dladdr takes). */
  Dl_info info;
  void* entry = dlsym(RTLD_DEFAULT, "drydb_table_get");
  if (entry != NULL && dladdr(entry, &info) && info.dli_fname != NULL)
    printf("library %s\n", info.dli_fname);

  char path[4096];
  snprintf(path, sizeof path, "%s/items.drydb", argv[1]);
  build(path);
  drydb_db* db;
  const drydb_table* t;
  drydb_value* v;
  drydb_range* r;
  check(drydb_db_open(path, NULL, &db), "drydb_db_open");
  check(drydb_db_table(db, "items", 5, &t), "drydb_db_table");
  check(drydb_value_create(db, &v), "drydb_value_create");
  check(drydb_range_create(db, &r), "drydb_range_create");

  /* Uncounted: every page faulted in and verified on its first visit, the caches warm. */
  check(drydb_table_range(t, NULL, NULL, DRYDB_ASCENDING, r), "drydb_table_range");
  while (drydb_range_next(r, NULL, NULL, NULL, NULL) == DRYDB_OK) {
  }

  if (all || strcmp(op, "get") == 0) {
    int64_t* keys = draw_keys(n, kRows);
    const start_time start = start_now();
    report("get", n, start, measured_gets(t, v, keys, n));
    free(keys);
  }
  if (all || strcmp(op, "range") == 0) {
    int64_t* keys = draw_keys(n, kRows - kRangeRows + 1);
    const start_time start = start_now();
    report("range", n, start, measured_ranges(t, r, keys, n));
    free(keys);
  }
  if (all || strcmp(op, "count") == 0) {
    int64_t* keys = draw_keys(n, kRows - kCountRows + 1);
    const start_time start = start_now();
    report("count", n, start, measured_counts(t, keys, n));
    free(keys);
  }
  check(drydb_range_release(r), "drydb_range_release");
  check(drydb_value_release(v), "drydb_value_release");
  check(drydb_db_close(db), "drydb_db_close");
  return 0;
}
