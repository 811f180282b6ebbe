/* The C API's test, compiled as C11: every function of drydb/c.h and every status it returns.
 *
 * Builds its databases through the C builder into the folder given as argv[1], then checks gets,
 * copies, counts, ranges and prefixes (every bound kind, both orders, against a sorted model),
 * cursors, the table list, verify, and the misuse a binding can commit: NULL, released and
 * wrong-kind handles, wrong key kinds, small buffers, missing, truncated and corrupt files.
 * Sharded datasets: writes a dataset of two generations as docs/sharding.md specifies (shards
 * by the C builder, manifest, CURRENT and HIGHEST by hand), then checks the dataset functions
 * against the same models, and a live dataset's pins across a refresh.
 * Prints "N passed, M failed"; exits nonzero on any failure. */
#define _POSIX_C_SOURCE 200809L /* mkdir */

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#if defined(_WIN32)
#include <direct.h>  /* _mkdir */
#include <windows.h> /* MoveFileExA */
#endif

#include "drydb/c.h"

#ifndef DRYDB_TEST_DATASETS
#define DRYDB_TEST_DATASETS 1
#endif
#if DRYDB_TEST_DATASETS
#include <xxhash.h>
#endif

static int passed, failed;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (cond) {                                                                \
      ++passed;                                                                \
    } else {                                                                   \
      ++failed;                                                                \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                          \
  } while (0)

/* A call's status must be `want`; on a mismatch, says what came instead and why. */
#define CHECK_RC(call, want)                                                                \
  do {                                                                                      \
    int rc_ = (call);                                                                       \
    if (rc_ == (want)) {                                                                    \
      ++passed;                                                                             \
    } else {                                                                                \
      ++failed;                                                                             \
      fprintf(stderr, "%s:%d: %s gave %s (%s), wanted %s\n", __FILE__, __LINE__, #call,     \
              drydb_status_name(rc_), drydb_last_error_message(), drydb_status_name(want)); \
    }                                                                                       \
  } while (0)

/* The last error's message mentions `text`. */
#define CHECK_MESSAGE(text) CHECK(strstr(drydb_last_error_message(), (text)) != NULL)

static char scratch[4096];
static const char* path_in(const char* dir, const char* name) {
  snprintf(scratch, sizeof scratch, "%s/%s", dir, name);
  return scratch;
}

/* ---- the model ----------------------------------------------------------------------------- */

/* items (bytes keys): "key0000".."key0299" with values "value<i>", plus "big" (an overflow
 * value) and "empty" (an empty value), in memcmp order. nums (int64): -150..149. */
#define ITEM_ROWS 302
#define NUM_ROWS 300
#define BIG_SIZE 3000
static char item_keys[ITEM_ROWS][16];
static unsigned char big_value[BIG_SIZE];

static int compare_bytes(const void* a, size_t an, const void* b, size_t bn) {
  int c = memcmp(a, b, an < bn ? an : bn);
  if (c != 0) return c;
  return an < bn ? -1 : an > bn ? 1 : 0;
}

static int compare_item_keys(const void* a, const void* b) {
  return compare_bytes(a, strlen(a), b, strlen(b));
}

static void make_model(void) {
  int i;
  for (i = 0; i < 300; ++i)
    snprintf(item_keys[i], sizeof item_keys[i], "key%04d", i);
  strcpy(item_keys[300], "big");
  strcpy(item_keys[301], "empty");
  qsort(item_keys, ITEM_ROWS, sizeof item_keys[0], compare_item_keys);
  for (i = 0; i < BIG_SIZE; ++i)
    big_value[i] = (unsigned char)(i * 7);
}

static void item_value(const char* key, char* out, size_t cap) {
  snprintf(out, cap, "value%d", atoi(key + 3));
}

static int index_by_len(void* ctx, const void* key, size_t key_size, const void* value,
                        size_t value_size, drydb_key* out);
static int index_by_value(void* ctx, const void* key, size_t key_size, const void* value,
                          size_t value_size, drydb_key* out);
static unsigned char index_key_buffer[BIG_SIZE];

/* A builder holding items, nums, uuids (2 rows) and an empty table, rows appended out of order. */
static drydb_builder* make_builder(void) {
  drydb_builder* b = NULL;
  drydb_table_builder *items, *nums, *uuids, *none;
  int i;
  CHECK_RC(drydb_builder_create(512, &b), DRYDB_OK);
  CHECK_RC(drydb_builder_create_table(b, "items", 5, DRYDB_KEY_BYTES, &items), DRYDB_OK);
  CHECK_RC(drydb_builder_create_table(b, "nums", 4, DRYDB_KEY_INT64, &nums), DRYDB_OK);
  CHECK_RC(drydb_builder_create_table(b, "uuids", 5, DRYDB_KEY_UUID, &uuids), DRYDB_OK);
  CHECK_RC(drydb_builder_create_table(b, "none", 4, DRYDB_KEY_BYTES, &none), DRYDB_OK);
  for (i = 299; i >= 0; --i) {
    char key[16], value[32];
    drydb_key k;
    snprintf(key, sizeof key, "key%04d", i);
    item_value(key, value, sizeof value);
    k = drydb_key_bytes(key, strlen(key));
    if (drydb_table_builder_append(items, &k, value, strlen(value)) != DRYDB_OK) CHECK(0);
  }
  {
    drydb_key big = drydb_key_bytes("big", 3), empty = drydb_key_bytes("empty", 5);
    CHECK_RC(drydb_table_builder_append(items, &big, big_value, BIG_SIZE), DRYDB_OK);
    CHECK_RC(drydb_table_builder_append(items, &empty, NULL, 0), DRYDB_OK);
  }
  for (i = 149; i >= -150; --i) {
    char value[32];
    drydb_key k = drydb_key_int64(i);
    snprintf(value, sizeof value, "n%d", i);
    if (drydb_table_builder_append(nums, &k, value, strlen(value)) != DRYDB_OK) CHECK(0);
  }
  for (i = 0; i < 2; ++i) {
    unsigned char id[16];
    drydb_key k;
    memset(id, i + 1, sizeof id);
    k.kind = DRYDB_KEY_UUID;
    k.data = id;
    k.size = 16;
    k.i64 = 0;
    CHECK_RC(drydb_table_builder_append(uuids, &k, "u", 1), DRYDB_OK);
  }
  CHECK_RC(
      drydb_table_builder_add_index(items, "by_len", 6, 0, DRYDB_KEY_INT64, index_by_len, NULL),
      DRYDB_OK);
  CHECK_RC(drydb_table_builder_add_index(items, "by_value", 8, 1, DRYDB_KEY_BYTES, index_by_value,
                                         index_key_buffer),
           DRYDB_OK);
  return b;
}

/* ---- the table under test ----------------------------------------------------------------- */

/* A table under test: a file's table, a dataset's sharded table, or an index of a file's table
 * (which answers the same queries by index key). The checks below take one, so that each kind
 * meets the same assertions; the tested_* functions are the one place a kind picks its C
 * functions. A NULL handle tests how those functions refuse it. */
typedef enum table_kind { FILE_TABLE, SHARDED_TABLE, TABLE_INDEX } table_kind;
typedef struct tested_table {
  table_kind kind;
  const void* handle; /* a drydb_table, drydb_sharded_table or drydb_index */
} tested_table;

static const char* const table_kind_names[] = {"table", "sharded table", "index"};

static int tested_name(tested_table t, const char** name, size_t* size) {
  switch (t.kind) {
    case FILE_TABLE:
      return drydb_table_name(t.handle, name, size);
    case SHARDED_TABLE:
      return drydb_sharded_table_name(t.handle, name, size);
    default:
      return drydb_index_name(t.handle, name, size);
  }
}

static int tested_key_kind(tested_table t, int32_t* kind) {
  switch (t.kind) {
    case FILE_TABLE:
      return drydb_table_key_kind(t.handle, kind);
    case SHARDED_TABLE:
      return drydb_sharded_table_key_kind(t.handle, kind);
    default:
      return drydb_index_key_kind(t.handle, kind);
  }
}

static int tested_encoding_id(tested_table t, const char** id, size_t* size) {
  switch (t.kind) {
    case FILE_TABLE:
      return drydb_table_encoding_id(t.handle, id, size);
    case SHARDED_TABLE:
      return drydb_sharded_table_encoding_id(t.handle, id, size);
    default:
      return drydb_index_encoding_id(t.handle, id, size);
  }
}

static int tested_count(tested_table t, uint64_t* rows) {
  switch (t.kind) {
    case FILE_TABLE:
      return drydb_table_count(t.handle, rows);
    case SHARDED_TABLE:
      return drydb_sharded_table_count(t.handle, rows);
    default:
      return drydb_index_count(t.handle, rows);
  }
}

static int tested_count_range(tested_table t, const drydb_bound* s, const drydb_bound* e,
                              uint64_t* out) {
  switch (t.kind) {
    case FILE_TABLE:
      return drydb_table_count_range(t.handle, s, e, out);
    case SHARDED_TABLE:
      return drydb_sharded_table_count_range(t.handle, s, e, out);
    default:
      return drydb_index_count_range(t.handle, s, e, out);
  }
}

static int tested_range(tested_table t, const drydb_bound* s, const drydb_bound* e, int32_t order,
                        drydb_range* r) {
  switch (t.kind) {
    case FILE_TABLE:
      return drydb_table_range(t.handle, s, e, order, r);
    case SHARDED_TABLE:
      return drydb_sharded_table_range(t.handle, s, e, order, r);
    default:
      return drydb_index_range(t.handle, s, e, order, r);
  }
}

static int tested_prefix(tested_table t, const char* prefix, size_t size, int32_t order,
                         drydb_range* r) {
  switch (t.kind) {
    case FILE_TABLE:
      return drydb_table_prefix(t.handle, prefix, size, order, r);
    case SHARDED_TABLE:
      return drydb_sharded_table_prefix(t.handle, prefix, size, order, r);
    default:
      return drydb_index_prefix(t.handle, prefix, size, order, r);
  }
}

/* A table's name, key kind, encoding and row count, and how each accessor refuses a NULL handle
 * or a NULL output. */
static void check_described(tested_table t, const char* name, int32_t kind, const char* encoding,
                            uint64_t rows) {
  tested_table none = {t.kind, NULL};
  const char* text = NULL;
  size_t size = 0;
  int32_t got_kind = -1;
  uint64_t count = 0;
  CHECK_RC(tested_name(t, &text, &size), DRYDB_OK);
  CHECK(size == strlen(name) && memcmp(text, name, size) == 0);
  CHECK_RC(tested_key_kind(t, &got_kind), DRYDB_OK);
  CHECK(got_kind == kind);
  CHECK_RC(tested_encoding_id(t, &text, &size), DRYDB_OK);
  CHECK(size == strlen(encoding) && memcmp(text, encoding, size) == 0);
  CHECK_RC(tested_count(t, &count), DRYDB_OK);
  CHECK(count == rows);
  CHECK_RC(tested_name(none, &text, &size), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(tested_name(t, NULL, &size), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(tested_name(t, &text, NULL), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(tested_key_kind(none, &got_kind), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(tested_key_kind(t, NULL), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(tested_encoding_id(none, &text, &size), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(tested_encoding_id(t, &text, NULL), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(tested_count(none, &count), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(tested_count(t, NULL), DRYDB_INVALID_ARGUMENT);
}

/* ---- tests --------------------------------------------------------------------------------- */

static void test_statuses(void) {
  CHECK(strcmp(drydb_last_error_message(), "") == 0);
  CHECK(strcmp(drydb_status_name(DRYDB_OK), "ok") == 0);
  CHECK(strcmp(drydb_status_name(DRYDB_END), "end") == 0);
  CHECK(strcmp(drydb_status_name(DRYDB_CORRUPTION), "corruption") == 0);
  CHECK(strcmp(drydb_status_name(DRYDB_INVALID_STATE), "invalid_state") == 0);
  CHECK(strcmp(drydb_status_name(DRYDB_BUFFER_TOO_SMALL), "buffer_too_small") == 0);
  CHECK(strcmp(drydb_status_name(12345), "unknown") == 0);
  {
    int s;
    for (s = DRYDB_INVALID_ARGUMENT; s <= DRYDB_INVALID_STATE; ++s)
      CHECK(strcmp(drydb_status_name(s), "unknown") != 0);
  }
  {
    unsigned char enc[8] = {0x80, 0, 0, 0, 0, 0, 0, 42};
    int64_t v = 0;
    CHECK_RC(drydb_decode_int64_key(enc, 8, &v), DRYDB_OK);
    CHECK(v == 42);
    enc[0] = 0x7f;
    memset(enc + 1, 0xff, 7);
    CHECK_RC(drydb_decode_int64_key(enc, 8, &v), DRYDB_OK);
    CHECK(v == -1);
    CHECK_RC(drydb_decode_int64_key(enc, 7, &v), DRYDB_INVALID_ARGUMENT);
    CHECK_RC(drydb_decode_int64_key(NULL, 8, &v), DRYDB_INVALID_ARGUMENT);
    CHECK_RC(drydb_decode_int64_key(enc, 8, NULL), DRYDB_INVALID_ARGUMENT);
  }
}

static void test_builder_errors(const char* dir) {
  drydb_builder* b = NULL;
  drydb_table_builder *t = NULL, *t2 = NULL;
  drydb_key k = drydb_key_bytes("a", 1), n = drydb_key_int64(1);
  void* data = NULL;
  size_t size = 0;
  char long_key[200];

  CHECK_RC(drydb_builder_create(1000, &b), DRYDB_INVALID_ARGUMENT);
  CHECK(b == NULL);
  CHECK_RC(drydb_builder_create(256, &b), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_builder_create(4096, NULL), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_builder_create(0, &b), DRYDB_OK);
  CHECK_RC(drydb_builder_create_table(NULL, "t", 1, DRYDB_KEY_BYTES, &t), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_builder_create_table(b, "t", 1, DRYDB_KEY_BYTES, NULL), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_builder_create_table(b, NULL, 1, DRYDB_KEY_BYTES, &t), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_builder_create_table(b, "t", 1, 9, &t), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_builder_create_table(b, "t", 1, DRYDB_KEY_BYTES, &t), DRYDB_OK);
  CHECK_RC(drydb_table_builder_append(NULL, &k, "v", 1), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_table_builder_append(t, NULL, "v", 1), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_table_builder_append(t, &k, NULL, 1), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_table_builder_append(t, &k, "v", 1), DRYDB_OK);
  CHECK_RC(drydb_builder_build_to_file(b, NULL), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_builder_build_to_memory(b, NULL, &size), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_builder_build_to_memory(NULL, &data, &size), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_builder_build_to_memory(b, &data, &size), DRYDB_OK);
  CHECK(data != NULL && size > 0);
  drydb_free(data);
  drydb_free(NULL);
  /* A builder builds once. */
  CHECK_RC(drydb_builder_build_to_memory(b, &data, &size), DRYDB_INVALID_STATE);
  CHECK(data == NULL);
  CHECK_RC(drydb_builder_build_to_file(b, path_in(dir, "twice.drydb")), DRYDB_INVALID_STATE);
  CHECK_RC(drydb_table_builder_append(t, &k, "v", 1), DRYDB_INVALID_STATE);
  CHECK_RC(drydb_builder_create_table(b, "u", 1, DRYDB_KEY_BYTES, &t2), DRYDB_INVALID_STATE);
  CHECK_RC(drydb_builder_release(b), DRYDB_OK);
  /* Released: the builder and its table builders. */
  CHECK_RC(drydb_builder_release(b), DRYDB_INVALID_ARGUMENT);
  CHECK_MESSAGE("released");
  CHECK_RC(drydb_table_builder_append(t, &k, "v", 1), DRYDB_INVALID_ARGUMENT);
  CHECK_MESSAGE("released");
  CHECK_RC(drydb_builder_release(NULL), DRYDB_INVALID_ARGUMENT);

  /* Sticky errors: the first one fails the build. */
  CHECK_RC(drydb_builder_create(512, &b), DRYDB_OK);
  CHECK_RC(drydb_builder_create_table(b, "t", 1, DRYDB_KEY_BYTES, &t), DRYDB_OK);
  CHECK_RC(drydb_builder_create_table(b, "t", 1, DRYDB_KEY_INT64, &t2), DRYDB_DUPLICATE_NAME);
  CHECK(t2 == NULL);
  /* One failed call poisons every later one: each returns DRYDB_INVALID_STATE naming the first
   * error, and a create sets its output to NULL (even for a name that is fine, or one that is
   * bad in another way). */
  t2 = t;
  CHECK_RC(drydb_builder_create_table(b, "", 0, DRYDB_KEY_BYTES, &t2), DRYDB_INVALID_STATE);
  CHECK_MESSAGE("failed earlier");
  CHECK_MESSAGE("created twice");
  CHECK(t2 == NULL);
  t2 = t;
  CHECK_RC(drydb_builder_create_table(b, "fresh", 5, DRYDB_KEY_BYTES, &t2), DRYDB_INVALID_STATE);
  CHECK(t2 == NULL);
  CHECK_RC(drydb_table_builder_append(t, &k, "v", 1), DRYDB_INVALID_STATE);
  CHECK_RC(drydb_table_builder_add_miss_filter(t, 10), DRYDB_INVALID_STATE);
  CHECK_RC(drydb_table_builder_add_index(t, "i", 1, 0, DRYDB_KEY_BYTES, index_by_len, NULL),
           DRYDB_INVALID_STATE);
  CHECK_RC(drydb_builder_build_to_memory(b, &data, &size), DRYDB_DUPLICATE_NAME);
  CHECK(data == NULL && size == 0);
  CHECK_RC(drydb_builder_release(b), DRYDB_OK);

  /* The same after a failed append (an empty table name refused first). */
  CHECK_RC(drydb_builder_create(512, &b), DRYDB_OK);
  t2 = (drydb_table_builder*)(void*)b;
  CHECK_RC(drydb_builder_create_table(b, "", 0, DRYDB_KEY_BYTES, &t2), DRYDB_INVALID_ARGUMENT);
  CHECK(t2 == NULL);
  t2 = (drydb_table_builder*)(void*)b;
  CHECK_RC(drydb_builder_create_table(b, "", 0, DRYDB_KEY_BYTES, &t2), DRYDB_INVALID_STATE);
  CHECK(t2 == NULL);
  CHECK_RC(drydb_builder_build_to_file(b, path_in(dir, "never.drydb")), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_builder_release(b), DRYDB_OK);

  CHECK_RC(drydb_builder_create(512, &b), DRYDB_OK);
  CHECK_RC(drydb_builder_create_table(b, "t", 1, DRYDB_KEY_BYTES, &t), DRYDB_OK);
  CHECK_RC(drydb_table_builder_append(t, &n, "v", 1), DRYDB_WRONG_KEY_TYPE);
  CHECK_RC(drydb_table_builder_append(t, &k, "v", 1), DRYDB_INVALID_STATE); /* failed earlier */
  CHECK_RC(drydb_builder_build_to_file(b, path_in(dir, "never.drydb")), DRYDB_WRONG_KEY_TYPE);
  CHECK_RC(drydb_builder_release(b), DRYDB_OK);
  {
    drydb_db* db = NULL;
    CHECK_RC(drydb_db_open(path_in(dir, "never.drydb"), NULL, &db), DRYDB_IO_ERROR);
  }

  CHECK_RC(drydb_builder_create(512, &b), DRYDB_OK); /* keys up to 512/4 - 64 = 64 bytes */
  CHECK_RC(drydb_builder_create_table(b, "t", 1, DRYDB_KEY_BYTES, &t), DRYDB_OK);
  memset(long_key, 'x', sizeof long_key);
  k = drydb_key_bytes(long_key, sizeof long_key);
  CHECK_RC(drydb_table_builder_append(t, &k, "v", 1), DRYDB_KEY_TOO_LONG);
  CHECK_RC(drydb_builder_release(b), DRYDB_OK);

  CHECK_RC(drydb_builder_create(512, &b), DRYDB_OK);
  CHECK_RC(drydb_builder_create_table(b, "t", 1, DRYDB_KEY_BYTES, &t), DRYDB_OK);
  k = drydb_key_bytes("same", 4);
  CHECK_RC(drydb_table_builder_append(t, &k, "1", 1), DRYDB_OK);
  CHECK_RC(drydb_table_builder_append(t, &k, "2", 1), DRYDB_OK); /* found when sorted */
  CHECK_RC(drydb_builder_build_to_memory(b, &data, &size), DRYDB_DUPLICATE_KEY);
  CHECK_MESSAGE("same");
  CHECK_RC(drydb_builder_release(b), DRYDB_OK);
}

static void test_tables(drydb_db* db) {
  size_t n = 0, size = 0, i;
  const drydb_table* t = NULL;
  static const char* names[] = {"items", "nums", "uuids", "none"};
  static const int32_t kinds[] = {DRYDB_KEY_BYTES, DRYDB_KEY_INT64, DRYDB_KEY_UUID,
                                  DRYDB_KEY_BYTES};
  static const char* encodings[] = {"bytes", "int64", "uuid_v7", "bytes"};
  static const uint64_t counts[] = {ITEM_ROWS, NUM_ROWS, 2, 0};

  CHECK_RC(drydb_db_table_count(db, &n), DRYDB_OK);
  CHECK(n == 4);
  CHECK_RC(drydb_db_table_count(db, NULL), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_db_table_count(NULL, &n), DRYDB_INVALID_ARGUMENT);
  CHECK_MESSAGE("database is NULL");
  for (i = 0; i < 4; ++i) {
    const drydb_table* by_name = NULL;
    CHECK_RC(drydb_db_table_at(db, i, &t), DRYDB_OK);
    check_described((tested_table){FILE_TABLE, t}, names[i], kinds[i], encodings[i], counts[i]);
    CHECK_RC(drydb_db_table(db, names[i], strlen(names[i]), &by_name), DRYDB_OK);
    CHECK(by_name == t);
  }
  CHECK_RC(drydb_db_table_at(db, 4, &t), DRYDB_INVALID_ARGUMENT);
  CHECK_MESSAGE("drydb_db_table_at: table index 4 of 4 tables");
  CHECK(t == NULL);
  CHECK_RC(drydb_db_table_at(db, 0, NULL), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_db_table(db, "nope", 4, &t), DRYDB_NOT_FOUND);
  CHECK_MESSAGE("items"); /* the message lists the tables there are */
  CHECK_RC(drydb_db_table(db, NULL, 4, &t), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_db_table(db, "items", 5, NULL), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_table_name(t, NULL, &size), DRYDB_INVALID_ARGUMENT); /* t is NULL */
  CHECK_RC(drydb_table_count(t, NULL), DRYDB_INVALID_ARGUMENT);
}

static const drydb_table* table_named(drydb_db* db, const char* name) {
  const drydb_table* t = NULL;
  CHECK_RC(drydb_db_table(db, name, strlen(name), &t), DRYDB_OK);
  return t;
}

static void test_get(drydb_db* db, drydb_db* other) {
  const drydb_table* items = table_named(db, "items");
  const drydb_table* nums = table_named(db, "nums");
  const drydb_table* uuids = table_named(db, "uuids");
  const drydb_table* none = table_named(db, "none");
  drydb_value *v = NULL, *foreign = NULL;
  const void* data = NULL;
  size_t size = 0;
  int i;
  drydb_key k;
  char buf[64];

  CHECK_RC(drydb_value_create(NULL, &v), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_value_create(db, NULL), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_value_create(db, &v), DRYDB_OK);
  for (i = 0; i < 300; ++i) {
    char key[16], want[32];
    snprintf(key, sizeof key, "key%04d", i);
    item_value(key, want, sizeof want);
    k = drydb_key_bytes(key, strlen(key));
    if (drydb_table_get(items, &k, v, &data, &size) != DRYDB_OK || size != strlen(want) ||
        memcmp(data, want, size) != 0)
      CHECK(0);
  }
  k = drydb_key_bytes("big", 3);
  CHECK_RC(drydb_table_get(items, &k, v, &data, &size), DRYDB_OK); /* an overflow value */
  CHECK(size == BIG_SIZE && memcmp(data, big_value, BIG_SIZE) == 0);
  k = drydb_key_bytes("empty", 5);
  CHECK_RC(drydb_table_get(items, &k, v, &data, &size), DRYDB_OK);
  CHECK(size == 0);
  k = drydb_key_bytes("key0300", 7);
  CHECK_RC(drydb_table_get(items, &k, v, &data, &size), DRYDB_END);
  CHECK(data == NULL && size == 0);
  CHECK_RC(drydb_table_get(none, &k, v, &data, &size), DRYDB_END);
  k = drydb_key_bytes("key0001", 7);
  CHECK_RC(drydb_table_get(items, &k, v, NULL, NULL), DRYDB_OK); /* presence only */
  CHECK_RC(drydb_value_reset(v), DRYDB_OK);
  CHECK_RC(drydb_value_reset(NULL), DRYDB_INVALID_ARGUMENT);

  for (i = -150; i < 150; i += 7) {
    char want[32];
    snprintf(want, sizeof want, "n%d", i);
    k = drydb_key_int64(i);
    CHECK_RC(drydb_table_get(nums, &k, v, &data, &size), DRYDB_OK);
    CHECK(size == strlen(want) && memcmp(data, want, size) == 0);
  }
  k = drydb_key_int64(150);
  CHECK_RC(drydb_table_get(nums, &k, v, &data, &size), DRYDB_END);
  {
    unsigned char id[16];
    memset(id, 2, sizeof id);
    k.kind = DRYDB_KEY_UUID;
    k.data = id;
    k.size = 16;
    CHECK_RC(drydb_table_get(uuids, &k, v, &data, &size), DRYDB_OK);
    CHECK(size == 1 && memcmp(data, "u", 1) == 0);
    k.size = 15;
    CHECK_RC(drydb_table_get(uuids, &k, v, &data, &size), DRYDB_INVALID_ARGUMENT);
    k.kind = DRYDB_KEY_ULID;
    k.size = 16;
    CHECK_RC(drydb_table_get(uuids, &k, v, &data, &size), DRYDB_WRONG_KEY_TYPE);
  }

  /* Wrong key kinds, bad keys, NULLs. */
  k = drydb_key_int64(1);
  CHECK_RC(drydb_table_get(items, &k, v, &data, &size), DRYDB_WRONG_KEY_TYPE);
  CHECK(data == NULL && size == 0);
  k = drydb_key_bytes("1", 1);
  CHECK_RC(drydb_table_get(nums, &k, v, &data, &size), DRYDB_WRONG_KEY_TYPE);
  k.kind = 42;
  CHECK_RC(drydb_table_get(items, &k, v, &data, &size), DRYDB_INVALID_ARGUMENT);
  CHECK_MESSAGE("key kind");
  k = drydb_key_bytes(NULL, 3);
  CHECK_RC(drydb_table_get(items, &k, v, &data, &size), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_table_get(items, NULL, v, &data, &size), DRYDB_INVALID_ARGUMENT);
  k = drydb_key_bytes("key0001", 7);
  CHECK_RC(drydb_table_get(NULL, &k, v, &data, &size), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_table_get(items, &k, NULL, &data, &size), DRYDB_INVALID_ARGUMENT);
  CHECK_MESSAGE("value is NULL");
  CHECK_RC(drydb_value_create(other, &foreign), DRYDB_OK);
  CHECK_RC(drydb_table_get(items, &k, foreign, &data, &size), DRYDB_INVALID_ARGUMENT);
  CHECK_MESSAGE("another database");
  CHECK_RC(drydb_value_release(foreign), DRYDB_OK);

  /* A handle of another kind where a value is expected. */
  {
    drydb_cursor* c = NULL;
    CHECK_RC(drydb_cursor_create(items, &c), DRYDB_OK);
    CHECK_RC(drydb_table_get(items, &k, (drydb_value*)(void*)c, &data, &size),
             DRYDB_INVALID_ARGUMENT);
    CHECK_MESSAGE("not a drydb value");
    CHECK_RC(drydb_cursor_release(c), DRYDB_OK);
  }

  /* The copying get. */
  CHECK_RC(drydb_table_get_copy(items, &k, buf, sizeof buf, &size), DRYDB_OK);
  CHECK(size == 6 && memcmp(buf, "value1", 6) == 0);
  memset(buf, '#', sizeof buf);
  CHECK_RC(drydb_table_get_copy(items, &k, buf, 3, &size), DRYDB_BUFFER_TOO_SMALL);
  CHECK(size == 6 && buf[0] == '#'); /* the size needed; the buffer untouched */
  CHECK_RC(drydb_table_get_copy(items, &k, NULL, 0, &size), DRYDB_BUFFER_TOO_SMALL);
  CHECK(size == 6);
  CHECK_RC(drydb_table_get_copy(items, &k, NULL, 6, &size), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_table_get_copy(items, &k, buf, sizeof buf, NULL), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_table_get_copy(NULL, &k, buf, sizeof buf, &size), DRYDB_INVALID_ARGUMENT);
  k = drydb_key_bytes("big", 3);
  CHECK_RC(drydb_table_get_copy(items, &k, buf, sizeof buf, &size), DRYDB_BUFFER_TOO_SMALL);
  CHECK(size == BIG_SIZE);
  {
    unsigned char* big = malloc(size);
    CHECK_RC(drydb_table_get_copy(items, &k, big, size, &size), DRYDB_OK);
    CHECK(size == BIG_SIZE && memcmp(big, big_value, BIG_SIZE) == 0);
    free(big);
  }
  k = drydb_key_bytes("empty", 5);
  CHECK_RC(drydb_table_get_copy(items, &k, NULL, 0, &size), DRYDB_OK);
  CHECK(size == 0);
  k = drydb_key_bytes("nope", 4);
  CHECK_RC(drydb_table_get_copy(items, &k, buf, sizeof buf, &size), DRYDB_END);
  CHECK(size == 0);
  k = drydb_key_int64(3);
  CHECK_RC(drydb_table_get_copy(items, &k, buf, sizeof buf, &size), DRYDB_WRONG_KEY_TYPE);

  CHECK_RC(drydb_value_release(v), DRYDB_OK);
  CHECK_RC(drydb_value_release(v), DRYDB_INVALID_ARGUMENT);
  CHECK_MESSAGE("released");
  k = drydb_key_bytes("key0001", 7);
  CHECK_RC(drydb_table_get(items, &k, v, &data, &size), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_value_reset(v), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_value_release(NULL), DRYDB_INVALID_ARGUMENT);
}

/* ---- counts and ranges against the model --------------------------------------------------- */

/* Whether model row `key` lies within the bounds (either NULL = unbounded). */
static int in_bounds(const drydb_key* key, const drydb_bound* s, const drydb_bound* e,
                     int (*cmp)(const drydb_key*, const drydb_key*)) {
  if (s->kind != DRYDB_UNBOUNDED) {
    int c = cmp(key, &s->key);
    if (c < 0 || (c == 0 && s->kind == DRYDB_EXCLUSIVE)) return 0;
  }
  if (e->kind != DRYDB_UNBOUNDED) {
    int c = cmp(key, &e->key);
    if (c > 0 || (c == 0 && e->kind == DRYDB_EXCLUSIVE)) return 0;
  }
  return 1;
}

static int cmp_bytes_keys(const drydb_key* a, const drydb_key* b) {
  return compare_bytes(a->data, a->size, b->data, b->size);
}
static int cmp_int_keys(const drydb_key* a, const drydb_key* b) {
  return a->i64 < b->i64 ? -1 : a->i64 > b->i64;
}

/* Whether a range's row key equals model key `want`. */
static int row_is(const void* key, size_t key_size, const drydb_key* want) {
  if (want->kind == DRYDB_KEY_INT64) {
    int64_t v;
    return drydb_decode_int64_key(key, key_size, &v) == DRYDB_OK && v == want->i64;
  }
  return compare_bytes(key, key_size, want->data, want->size) == 0;
}

/* A model row as a query orders it: its key (a table's key, or an index's key) and, for an
 * index, the primary key of the row the entry names (NULL for a table's row). */
typedef struct model_row {
  drydb_key key; /* bytes keys point into storage that outlives the model */
  const char* pk;
} model_row;

/* Whether a range's current row is model row m: its key, and for an index entry also its
 * primary key. */
static int range_row_is(drydb_range* r, const void* key, size_t key_size, const model_row* m) {
  const void* ik;
  size_t iks;
  if (m->pk == NULL) return row_is(key, key_size, &m->key);
  if (compare_bytes(key, key_size, m->pk, strlen(m->pk)) != 0) return 0;
  if (drydb_range_index_key(r, &ik, &iks) != DRYDB_OK) return 0;
  return row_is(ik, iks, &m->key);
}

/* FNV-1a over a row's sizes and bytes, chained from h: the walks below compare digests. */
static uint64_t row_digest(uint64_t h, const void* key, size_t key_size, const void* value,
                           size_t value_size) {
  const size_t sizes[2] = {key_size, value_size};
  const unsigned char* parts[3] = {(const unsigned char*)sizes, (const unsigned char*)key,
                                   (const unsigned char*)value};
  const size_t lengths[3] = {sizeof sizes, key_size, value_size};
  size_t p, i;
  for (p = 0; p < 3; ++p)
    for (i = 0; i < lengths[p]; ++i)
      h = (h ^ parts[p][i]) * 1099511628211u;
  return h;
}

/* Whether a rewound walk of `r` in batches of at most max_rows gives the rows drydb_range_next
 * gives, keys and values, in order, and ends as it does. Rewinds r before and after. */
static int batches_match(drydb_range* r, size_t max_rows) {
  uint64_t one = 14695981039346656037u, many = one;
  size_t rows = 0, batched = 0, i, count;
  const void *key, *value;
  size_t key_size, value_size;
  const drydb_row* batch;
  int rc;
  if (drydb_range_rewind(r) != DRYDB_OK) return 0;
  while (drydb_range_next(r, &key, &key_size, &value, &value_size) == DRYDB_OK) {
    one = row_digest(one, key, key_size, value, value_size);
    ++rows;
  }
  if (drydb_range_rewind(r) != DRYDB_OK) return 0;
  while ((rc = drydb_range_next_batch(r, max_rows, &batch, &count)) == DRYDB_OK) {
    if (count == 0 || count > max_rows) return 0;
    for (i = 0; i < count; ++i)
      many = row_digest(many, batch[i].key, batch[i].key_size, batch[i].value, batch[i].value_size);
    batched += count;
  }
  if (rc != DRYDB_END || count != 0) return 0;
  if (drydb_range_next_batch(r, max_rows, &batch, &count) != DRYDB_END || count != 0) return 0;
  return drydb_range_rewind(r) == DRYDB_OK && rows == batched && one == many;
}

/* count_range and ranges in both orders for every pair of probes and bound kinds, against the
 * sorted model rows, through table t. */
static void check_bounds(tested_table t, drydb_range* r, const model_row* rows, int nrows,
                         const drydb_key* probes, int nprobes,
                         int (*cmp)(const drydb_key*, const drydb_key*)) {
  int si, ei, sk, ek, order;
  for (si = 0; si < nprobes; ++si)
    for (ei = 0; ei < nprobes; ++ei)
      for (sk = 0; sk < 3; ++sk)
        for (ek = 0; ek < 3; ++ek) {
          drydb_bound s, e;
          int i, want = 0, bad_order;
          uint64_t count = 0;
          s.kind = sk;
          s.key = probes[si];
          e.kind = ek;
          e.key = probes[ei];
          /* Unbounded sides repeat for every probe: only the first probe's. */
          if ((sk == DRYDB_UNBOUNDED && si != 0) || (ek == DRYDB_UNBOUNDED && ei != 0)) continue;
          bad_order =
              sk != DRYDB_UNBOUNDED && ek != DRYDB_UNBOUNDED && cmp(&probes[si], &probes[ei]) > 0;
          if (bad_order) { /* refused in either order, leaving the range empty */
            CHECK_RC(tested_count_range(t, &s, &e, &count), DRYDB_INVALID_ARGUMENT);
            for (order = DRYDB_ASCENDING; order <= DRYDB_DESCENDING; ++order) {
              CHECK_RC(tested_range(t, &s, &e, order, r), DRYDB_INVALID_ARGUMENT);
              CHECK_RC(drydb_range_next(r, NULL, NULL, NULL, NULL), DRYDB_END);
            }
            continue;
          }
          for (i = 0; i < nrows; ++i)
            want += in_bounds(&rows[i].key, &s, &e, cmp);
          if (tested_count_range(t, &s, &e, &count) != DRYDB_OK || count != (uint64_t)want)
            CHECK(0);
          else
            ++passed;
          for (order = DRYDB_ASCENDING; order <= DRYDB_DESCENDING; ++order) {
            int at = order == DRYDB_ASCENDING ? 0 : nrows - 1, step = order ? -1 : 1, seen = 0;
            int ok = tested_range(t, &s, &e, order, r) == DRYDB_OK &&
                     drydb_range_count(r, &count) == DRYDB_OK && count == (uint64_t)want;
            const void *key, *value;
            size_t key_size, value_size;
            while (ok && drydb_range_next(r, &key, &key_size, &value, &value_size) == DRYDB_OK) {
              while (at >= 0 && at < nrows && !in_bounds(&rows[at].key, &s, &e, cmp))
                at += step;
              ok = at >= 0 && at < nrows && range_row_is(r, key, key_size, &rows[at]);
              at += step;
              ++seen;
            }
            ok = ok && seen == want &&
                 drydb_range_next(r, &key, &key_size, &value, &value_size) == DRYDB_END;
            /* Batches of 1, of a few rows and of the most. */
            ok = ok && batches_match(r, 1 + (size_t)(si + ei + sk + ek + order) % 5) &&
                 batches_match(r, 1000);
            if (!ok) {
              fprintf(stderr, "%s range probes %d..%d kinds %d,%d order %d: want %d, saw %d\n",
                      table_kind_names[t.kind], si, ei, sk, ek, order, want, seen);
              CHECK(0);
            } else {
              ++passed;
            }
          }
        }
}

/* The models of items and nums (rows and probes), checked by check_bounds on tables that hold
 * them: a file's, or a dataset's. Requires: r never positioned, so it ends at once. */
static const char* const item_probes[] = {"a",        "big",     "c",        "key0000", "key0150",
                                          "key01505", "key0299", "key0299x", "z"};
static const int64_t num_probes[] = {-1000, -150, -149, -1, 0, 7, 148, 149, 1000};

static void check_item_and_num_bounds(tested_table items, tested_table nums, drydb_range* r) {
  model_row rows[ITEM_ROWS];
  drydb_key probes[9];
  uint64_t count = 99;
  const void *key, *value;
  size_t key_size, value_size;
  int i;
  CHECK_RC(drydb_range_next(r, &key, &key_size, &value, &value_size), DRYDB_END);
  CHECK_RC(drydb_range_next(r, NULL, NULL, NULL, NULL), DRYDB_END);
  CHECK_RC(drydb_range_count(r, &count), DRYDB_OK);
  CHECK(count == 0);
  memset(rows, 0, sizeof rows); /* pk NULL: a table's rows */
  for (i = 0; i < ITEM_ROWS; ++i)
    rows[i].key = drydb_key_bytes(item_keys[i], strlen(item_keys[i]));
  for (i = 0; i < 9; ++i)
    probes[i] = drydb_key_bytes(item_probes[i], strlen(item_probes[i]));
  check_bounds(items, r, rows, ITEM_ROWS, probes, 9, cmp_bytes_keys);
  for (i = 0; i < NUM_ROWS; ++i)
    rows[i].key = drydb_key_int64(i - 150);
  for (i = 0; i < 9; ++i)
    probes[i] = drydb_key_int64(num_probes[i]);
  check_bounds(nums, r, rows, NUM_ROWS, probes, 9, cmp_int_keys);
}

/* A range of bytes-keyed table t (holding `rows` rows) refuses a bad order, bound kind, key kind
 * or handle, leaving r empty; s..e are good bounds of t. */
static void check_bad_bounds(tested_table t, drydb_range* r, drydb_bound s, const drydb_bound* e,
                             uint64_t rows) {
  tested_table none = {t.kind, NULL};
  uint64_t count = 0;
  CHECK_RC(tested_range(t, &s, e, 7, r), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_range_next(r, NULL, NULL, NULL, NULL), DRYDB_END);
  CHECK_RC(tested_range(none, &s, e, DRYDB_ASCENDING, r), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(tested_range(t, &s, e, DRYDB_ASCENDING, NULL), DRYDB_INVALID_ARGUMENT);
  s.kind = 9;
  CHECK_RC(tested_range(t, &s, e, DRYDB_ASCENDING, r), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(tested_count_range(t, &s, e, &count), DRYDB_INVALID_ARGUMENT);
  CHECK_MESSAGE("bound kind");
  s.kind = DRYDB_INCLUSIVE;
  s.key = drydb_key_int64(4);
  CHECK_RC(tested_range(t, &s, e, DRYDB_ASCENDING, r), DRYDB_WRONG_KEY_TYPE);
  CHECK_RC(tested_count_range(t, &s, NULL, &count), DRYDB_WRONG_KEY_TYPE);
  CHECK_RC(tested_count_range(none, NULL, NULL, &count), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(tested_count_range(t, NULL, NULL, NULL), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(tested_count_range(t, NULL, NULL, &count), DRYDB_OK); /* NULL: unbounded */
  CHECK(count == rows);
}

/* A prefix walk of t gives `want` rows, each starting with the prefix, in the order asked. */
static void check_prefix(tested_table t, drydb_range* r, const char* prefix, int want) {
  int order;
  for (order = DRYDB_ASCENDING; order <= DRYDB_DESCENDING; ++order) {
    int n = 0, ordered = 1;
    char last[16] = "";
    uint64_t count = 0;
    const void *key, *value;
    size_t key_size, value_size;
    CHECK_RC(tested_prefix(t, prefix, strlen(prefix), order, r), DRYDB_OK);
    CHECK_RC(drydb_range_count(r, &count), DRYDB_OK);
    CHECK(count == (uint64_t)want);
    while (drydb_range_next(r, &key, &key_size, &value, &value_size) == DRYDB_OK) {
      char k[16];
      if (key_size >= sizeof k) {
        ordered = 0;
        break;
      }
      memcpy(k, key, key_size);
      k[key_size] = 0;
      if (n > 0 && (order == DRYDB_ASCENDING ? strcmp(last, k) >= 0 : strcmp(last, k) <= 0))
        ordered = 0;
      if (strncmp(k, prefix, strlen(prefix)) != 0) ordered = 0;
      strcpy(last, k);
      ++n;
    }
    CHECK(n == want && ordered);
  }
}

/* Prefix queries t (bytes keys) and int_keyed (int64 keys) refuse, and those that end at once. */
static void check_prefix_errors(tested_table t, tested_table int_keyed, drydb_range* r) {
  tested_table none = {t.kind, NULL};
  check_prefix(t, r, "zz", 0);
  CHECK_RC(tested_prefix(int_keyed, "k", 1, DRYDB_ASCENDING, r), DRYDB_WRONG_KEY_TYPE);
  CHECK_RC(tested_prefix(t, NULL, 1, DRYDB_ASCENDING, r), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(tested_prefix(t, "k", 1, 5, r), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(tested_prefix(none, "k", 1, DRYDB_ASCENDING, r), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(tested_prefix(t, "k", 1, DRYDB_ASCENDING, NULL), DRYDB_INVALID_ARGUMENT);
}

/* drydb_range_next_batch's bounds: copies end a batch at 64 KiB, a row of more than 4 KiB ends
 * its batch uncopied; through the page cache (pread storage, a few pages cached), so a batch's
 * copied rows outlive the pages they came from. And its argument errors. */
static void test_range_batches(const char* dir) {
  enum { WIDE = 40, HUGE_ROW = 40, ROWS = 45, WIDE_SIZE = 3000, HUGE_SIZE = 5000 };
  static unsigned char value[HUGE_SIZE];
  char path[4096];
  drydb_builder* b = NULL;
  drydb_table_builder* t = NULL;
  drydb_db* db = NULL;
  const drydb_table* table = NULL;
  drydb_range* r = NULL;
  const drydb_row* rows = NULL;
  drydb_open_options options;
  size_t count = 0, i, seen = 0, want_counts[] = {22, 19, 4};
  int64_t k;
  int batch, ok = 1;

  snprintf(path, sizeof path, "%s/capi_batches.drydb", dir);
  CHECK_RC(drydb_builder_create(512, &b), DRYDB_OK);
  CHECK_RC(drydb_builder_create_table(b, "rows", 4, DRYDB_KEY_INT64, &t), DRYDB_OK);
  for (k = 0; k < ROWS; ++k) {
    drydb_key key = drydb_key_int64(k);
    size_t size = k < WIDE ? WIDE_SIZE : k == HUGE_ROW ? HUGE_SIZE : 10;
    memset(value, (int)k, size);
    CHECK_RC(drydb_table_builder_append(t, &key, value, size), DRYDB_OK);
  }
  CHECK_RC(drydb_builder_build_to_file(b, path), DRYDB_OK);
  CHECK_RC(drydb_builder_release(b), DRYDB_OK);
  options.storage = DRYDB_STORAGE_PREAD;
  options.page_cache_bytes = 4096;
  CHECK_RC(drydb_db_open(path, &options, &db), DRYDB_OK);
  if (db == NULL) return;
  CHECK_RC(drydb_db_table(db, "rows", 4, &table), DRYDB_OK);
  CHECK_RC(drydb_range_create(db, &r), DRYDB_OK);

  /* Argument errors; a holder never positioned ends at once. */
  CHECK_RC(drydb_range_next_batch(r, 8, &rows, &count), DRYDB_END);
  CHECK(count == 0);
  CHECK_RC(drydb_range_next_batch(NULL, 8, &rows, &count), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_range_next_batch(r, 0, &rows, &count), DRYDB_INVALID_ARGUMENT);
  CHECK_MESSAGE("max_rows");
  CHECK_RC(drydb_range_next_batch(r, 8, NULL, &count), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_range_next_batch(r, 8, &rows, NULL), DRYDB_INVALID_ARGUMENT);

  /* Every row, in batches as large as allowed: 21 copied rows of 3,000 bytes and a 22nd (the
   * copies would pass 64 KiB with it); the other 18 wide rows and the 5,000-byte row, which ends
   * its batch; the small rows. */
  CHECK_RC(drydb_table_range(table, NULL, NULL, DRYDB_ASCENDING, r), DRYDB_OK);
  for (batch = 0; batch < 3; ++batch) {
    CHECK_RC(drydb_range_next_batch(r, 1000, &rows, &count), DRYDB_OK);
    CHECK(count == want_counts[batch]);
    for (i = 0; i < count && rows != NULL; ++i, ++seen) {
      size_t size = seen < WIDE ? WIDE_SIZE : seen == HUGE_ROW ? HUGE_SIZE : 10;
      const unsigned char* v = (const unsigned char*)rows[i].value;
      drydb_key key = drydb_key_int64((int64_t)seen);
      ok = ok && rows[i].key_size == 8 && row_is(rows[i].key, rows[i].key_size, &key) &&
           rows[i].value_size == size && v[0] == (unsigned char)seen &&
           v[size - 1] == (unsigned char)seen;
    }
  }
  CHECK(ok && seen == ROWS);
  CHECK_RC(drydb_range_next_batch(r, 1000, &rows, &count), DRYDB_END);
  CHECK(count == 0);
  CHECK(batches_match(r, 3));
  CHECK(batches_match(r, 256));

  /* Descending, and a batch's size capped by max_rows. */
  CHECK_RC(drydb_table_range(table, NULL, NULL, DRYDB_DESCENDING, r), DRYDB_OK);
  CHECK_RC(drydb_range_next_batch(r, 3, &rows, &count), DRYDB_OK);
  {
    drydb_key last = drydb_key_int64(ROWS - 1), third = drydb_key_int64(ROWS - 3);
    CHECK(count == 3 && row_is(rows[0].key, rows[0].key_size, &last) &&
          row_is(rows[2].key, rows[2].key_size, &third));
  }
  CHECK(batches_match(r, 7));

  CHECK_RC(drydb_range_release(r), DRYDB_OK);
  CHECK_RC(drydb_range_next_batch(r, 8, &rows, &count), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_db_close(db), DRYDB_OK);
}

static void test_ranges(drydb_db* db) {
  const drydb_table* items = table_named(db, "items");
  const drydb_table* nums = table_named(db, "nums");
  const drydb_table* none = table_named(db, "none");
  tested_table tested_items = {FILE_TABLE, items}, tested_nums = {FILE_TABLE, nums};
  drydb_range* r = NULL;
  uint64_t count = 0;
  const void *key, *value;
  size_t key_size, value_size;

  CHECK_RC(drydb_range_create(NULL, &r), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_range_create(db, NULL), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_range_create(db, &r), DRYDB_OK);
  check_item_and_num_bounds(tested_items, tested_nums, r);

  /* A range's values, the overflow one included, and a rewind. */
  {
    drydb_bound s, e;
    s.kind = DRYDB_INCLUSIVE;
    s.key = drydb_key_bytes("big", 3);
    e.kind = DRYDB_EXCLUSIVE;
    e.key = drydb_key_bytes("key0001", 7);
    CHECK_RC(drydb_table_range(items, &s, &e, DRYDB_ASCENDING, r), DRYDB_OK);
    CHECK_RC(drydb_range_next(r, &key, &key_size, &value, &value_size), DRYDB_OK);
    CHECK(key_size == 3 && value_size == BIG_SIZE && memcmp(value, big_value, BIG_SIZE) == 0);
    CHECK_RC(drydb_range_next(r, &key, &key_size, &value, &value_size), DRYDB_OK);
    CHECK(key_size == 5 && value_size == 0);
    CHECK_RC(drydb_range_next(r, &key, &key_size, &value, &value_size), DRYDB_OK);
    CHECK(value_size == 6 && memcmp(value, "value0", 6) == 0);
    CHECK_RC(drydb_range_next(r, &key, &key_size, &value, &value_size), DRYDB_END);
    CHECK_RC(drydb_range_next(r, &key, &key_size, &value, &value_size), DRYDB_END);
    CHECK_RC(drydb_range_rewind(r), DRYDB_OK);
    CHECK_RC(drydb_range_next(r, NULL, NULL, NULL, NULL), DRYDB_OK);
    CHECK_RC(drydb_range_next(r, NULL, NULL, NULL, NULL), DRYDB_OK);
    CHECK_RC(drydb_range_rewind(NULL), DRYDB_INVALID_ARGUMENT);
    check_bad_bounds(tested_items, r, s, &e, ITEM_ROWS);
    CHECK_RC(drydb_table_range(none, NULL, NULL, DRYDB_DESCENDING, r), DRYDB_OK);
    CHECK_RC(drydb_range_next(r, NULL, NULL, NULL, NULL), DRYDB_END);
  }

  /* Prefixes. */
  check_prefix(tested_items, r, "key01", 100);
  check_prefix(tested_items, r, "", ITEM_ROWS);
  check_prefix_errors(tested_items, tested_nums, r);
  CHECK_RC(drydb_range_count(NULL, &count), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_range_count(r, NULL), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_range_next(NULL, NULL, NULL, NULL, NULL), DRYDB_INVALID_ARGUMENT);

  CHECK_RC(drydb_range_release(r), DRYDB_OK);
  CHECK_RC(drydb_range_release(r), DRYDB_INVALID_ARGUMENT);
  CHECK_MESSAGE("released");
  CHECK_RC(drydb_range_next(r, NULL, NULL, NULL, NULL), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_range_release(NULL), DRYDB_INVALID_ARGUMENT);
}

static void test_cursors(drydb_db* db) {
  const drydb_table* items = table_named(db, "items");
  const drydb_table* nums = table_named(db, "nums");
  const drydb_table* none = table_named(db, "none");
  drydb_cursor* c = NULL;
  const void *key, *value;
  size_t key_size, value_size;
  uint64_t rank = 0;
  int valid = -1, n = 0, ok = 1;
  drydb_key k;

  CHECK_RC(drydb_cursor_create(NULL, &c), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_cursor_create(items, NULL), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_cursor_create(items, &c), DRYDB_OK);
  CHECK_RC(drydb_cursor_valid(c, &valid), DRYDB_OK);
  CHECK(valid == 0);
  CHECK_RC(drydb_cursor_rank(c, &rank), DRYDB_INVALID_STATE);
  CHECK_RC(drydb_cursor_current(c, &key, &key_size, &value, &value_size), DRYDB_END);

  /* A fresh cursor's next_kv walks every row, then stays at the end. */
  while (drydb_cursor_next_kv(c, &key, &key_size, &value, &value_size) == DRYDB_OK) {
    if (n >= ITEM_ROWS || compare_bytes(key, key_size, item_keys[n], strlen(item_keys[n])) != 0)
      ok = 0;
    ++n;
  }
  CHECK(ok && n == ITEM_ROWS);
  CHECK_RC(drydb_cursor_next(c), DRYDB_END);
  CHECK_RC(drydb_cursor_prev(c), DRYDB_END);
  CHECK_RC(drydb_cursor_next_kv(c, &key, &key_size, &value, &value_size), DRYDB_END);
  CHECK_RC(drydb_cursor_release(c), DRYDB_OK);

  /* ... and a fresh cursor's prev_kv walks them backwards. */
  CHECK_RC(drydb_cursor_create(items, &c), DRYDB_OK);
  n = ITEM_ROWS;
  ok = 1;
  while (drydb_cursor_prev_kv(c, &key, &key_size, NULL, NULL) == DRYDB_OK) {
    --n;
    if (n < 0 || compare_bytes(key, key_size, item_keys[n], strlen(item_keys[n])) != 0) ok = 0;
  }
  CHECK(ok && n == 0);
  CHECK_RC(drydb_cursor_prev_kv(c, &key, &key_size, NULL, NULL), DRYDB_END);

  CHECK_RC(drydb_cursor_first(c), DRYDB_OK);
  CHECK_RC(drydb_cursor_rank(c, &rank), DRYDB_OK);
  CHECK(rank == 0);
  CHECK_RC(drydb_cursor_current(c, &key, &key_size, &value, &value_size), DRYDB_OK);
  CHECK(key_size == 3 && memcmp(key, "big", 3) == 0 && value_size == BIG_SIZE &&
        memcmp(value, big_value, BIG_SIZE) == 0);
  CHECK_RC(drydb_cursor_current(c, NULL, NULL, NULL, NULL), DRYDB_OK);
  CHECK_RC(drydb_cursor_last(c), DRYDB_OK);
  CHECK_RC(drydb_cursor_rank(c, &rank), DRYDB_OK);
  CHECK(rank == ITEM_ROWS - 1);
  CHECK_RC(drydb_cursor_next(c), DRYDB_END);
  CHECK_RC(drydb_cursor_valid(c, &valid), DRYDB_OK);
  CHECK(valid == 0);

  k = drydb_key_bytes("key0150", 7);
  CHECK_RC(drydb_cursor_seek(c, &k), DRYDB_OK);
  CHECK_RC(drydb_cursor_rank(c, &rank), DRYDB_OK);
  CHECK(rank == 152); /* "big", "empty", then key0000.. */
  CHECK_RC(drydb_cursor_seek_exact(c, &k), DRYDB_OK);
  CHECK_RC(drydb_cursor_next_kv(c, &key, &key_size, &value, &value_size), DRYDB_OK);
  CHECK(key_size == 7 && memcmp(key, "key0151", 7) == 0 && value_size == 8 &&
        memcmp(value, "value151", 8) == 0);
  CHECK_RC(drydb_cursor_prev_kv(c, &key, &key_size, &value, &value_size), DRYDB_OK);
  CHECK(key_size == 7 && memcmp(key, "key0150", 7) == 0);
  k = drydb_key_bytes("key01505", 8);
  CHECK_RC(drydb_cursor_seek(c, &k), DRYDB_OK); /* the next key */
  CHECK_RC(drydb_cursor_current(c, &key, &key_size, NULL, NULL), DRYDB_OK);
  CHECK(key_size == 7 && memcmp(key, "key0151", 7) == 0);
  CHECK_RC(drydb_cursor_seek_exact(c, &k), DRYDB_END);
  CHECK_RC(drydb_cursor_valid(c, &valid), DRYDB_OK);
  CHECK(valid == 1); /* on the next key, as seek */
  k = drydb_key_bytes("zzz", 3);
  CHECK_RC(drydb_cursor_seek(c, &k), DRYDB_END);
  CHECK_RC(drydb_cursor_seek_exact(c, &k), DRYDB_END);
  CHECK_RC(drydb_cursor_seek_rank(c, 10), DRYDB_OK);
  CHECK_RC(drydb_cursor_current(c, &key, &key_size, NULL, NULL), DRYDB_OK);
  CHECK(compare_bytes(key, key_size, item_keys[10], strlen(item_keys[10])) == 0);
  CHECK_RC(drydb_cursor_seek_rank(c, ITEM_ROWS), DRYDB_END);

  /* Wrong kinds and NULLs. */
  k = drydb_key_int64(5);
  CHECK_RC(drydb_cursor_seek(c, &k), DRYDB_WRONG_KEY_TYPE);
  CHECK_RC(drydb_cursor_seek_exact(c, &k), DRYDB_WRONG_KEY_TYPE);
  CHECK_RC(drydb_cursor_valid(c, &valid), DRYDB_OK);
  CHECK(valid == 0);
  CHECK_RC(drydb_cursor_seek(c, NULL), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_cursor_seek_exact(c, NULL), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_cursor_valid(c, NULL), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_cursor_rank(c, NULL), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_cursor_first(NULL), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_cursor_last(NULL), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_cursor_seek(NULL, &k), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_cursor_seek_exact(NULL, &k), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_cursor_seek_rank(NULL, 0), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_cursor_next(NULL), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_cursor_prev(NULL), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_cursor_valid(NULL, &valid), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_cursor_rank(NULL, &rank), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_cursor_current(NULL, NULL, NULL, NULL, NULL), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_cursor_next_kv(NULL, NULL, NULL, NULL, NULL), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_cursor_prev_kv(NULL, NULL, NULL, NULL, NULL), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_cursor_release(c), DRYDB_OK);
  CHECK_RC(drydb_cursor_release(c), DRYDB_INVALID_ARGUMENT);
  CHECK_MESSAGE("released");
  CHECK_RC(drydb_cursor_next(c), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_cursor_release(NULL), DRYDB_INVALID_ARGUMENT);

  /* int64 keys: a cursor gives them encoded; seeks take them typed. */
  CHECK_RC(drydb_cursor_create(nums, &c), DRYDB_OK);
  k = drydb_key_int64(-3);
  CHECK_RC(drydb_cursor_seek_exact(c, &k), DRYDB_OK);
  CHECK_RC(drydb_cursor_rank(c, &rank), DRYDB_OK);
  CHECK(rank == 147);
  CHECK_RC(drydb_cursor_next_kv(c, &key, &key_size, &value, &value_size), DRYDB_OK);
  {
    int64_t v = 0;
    CHECK_RC(drydb_decode_int64_key(key, key_size, &v), DRYDB_OK);
    CHECK(v == -2 && value_size == 3 && memcmp(value, "n-2", 3) == 0);
  }
  k = drydb_key_bytes("x", 1);
  CHECK_RC(drydb_cursor_seek(c, &k), DRYDB_WRONG_KEY_TYPE);
  CHECK_RC(drydb_cursor_release(c), DRYDB_OK);

  /* An empty table. */
  CHECK_RC(drydb_cursor_create(none, &c), DRYDB_OK);
  CHECK_RC(drydb_cursor_next_kv(c, &key, &key_size, &value, &value_size), DRYDB_END);
  CHECK_RC(drydb_cursor_first(c), DRYDB_END);
  CHECK_RC(drydb_cursor_last(c), DRYDB_END);
  CHECK_RC(drydb_cursor_release(c), DRYDB_OK);
}

/* ---- secondary indexes --------------------------------------------------------------------- */

/* items' indexes: by_len (non-unique, int64) is a value's length, none for the empty value;
 * by_value (unique, bytes) is the value itself, none for the empty value and for values over
 * 32 bytes (index keys obey the key length limit: 64 bytes for 512-byte pages). */
static int index_by_len(void* ctx, const void* key, size_t key_size, const void* value,
                        size_t value_size, drydb_key* out) {
  (void)ctx;
  (void)key;
  (void)key_size;
  (void)value;
  if (value_size == 0) return DRYDB_END;
  *out = drydb_key_int64((int64_t)value_size);
  return DRYDB_OK;
}

/* The index key is copied into ctx's buffer, reused by every call: drydb must copy it. */
static int index_by_value(void* ctx, const void* key, size_t key_size, const void* value,
                          size_t value_size, drydb_key* out) {
  unsigned char* buf = ctx;
  (void)key;
  (void)key_size;
  if (value_size == 0 || value_size > 32) return DRYDB_END;
  memcpy(buf, value, value_size);
  *out = drydb_key_bytes(buf, value_size);
  return DRYDB_OK;
}

/* The model of an index: entries sorted by index key, then primary key. Bytes index keys point
 * into value_key_bytes, which the sort leaves in place. */

static char value_key_bytes[ITEM_ROWS][16];

static model_row len_entries[ITEM_ROWS], value_entries[ITEM_ROWS];
static int len_count, value_count;
static int (*entry_cmp)(const drydb_key*, const drydb_key*);

static int compare_entries(const void* a, const void* b) {
  const model_row *x = a, *y = b;
  int c = entry_cmp(&x->key, &y->key);
  return c != 0 ? c : compare_item_keys(x->pk, y->pk);
}

static void make_index_models(void) {
  int i;
  len_count = value_count = 0;
  for (i = 0; i < ITEM_ROWS; ++i) {
    const char* pk = item_keys[i];
    model_row* l;
    model_row* v;
    if (strcmp(pk, "empty") == 0) continue;
    l = &len_entries[len_count++];
    l->pk = pk;
    if (strcmp(pk, "big") == 0) {
      l->key = drydb_key_int64(BIG_SIZE);
    } else {
      v = &value_entries[value_count++];
      v->pk = pk;
      char* bytes = value_key_bytes[value_count - 1];
      item_value(pk, bytes, sizeof value_key_bytes[0]);
      l->key = drydb_key_int64((int64_t)strlen(bytes));
      v->key = drydb_key_bytes(bytes, strlen(bytes));
    }
  }
  entry_cmp = cmp_int_keys;
  qsort(len_entries, (size_t)len_count, sizeof len_entries[0], compare_entries);
  entry_cmp = cmp_bytes_keys;
  qsort(value_entries, (size_t)value_count, sizeof value_entries[0], compare_entries);
}

static void test_indexes(drydb_db* db, drydb_db* other) {
  const drydb_table* items = table_named(db, "items");
  const drydb_table* nums = table_named(db, "nums");
  const drydb_index *by_len = NULL, *by_value = NULL, *ix = NULL;
  drydb_range *r = NULL, *foreign = NULL;
  drydb_value* v = NULL;
  size_t n = 0;
  int unique = -1, i;
  uint64_t count = 0;
  const void *key, *value, *ik;
  size_t key_size, value_size, iks;
  drydb_key k, probes[10];
  drydb_bound lo, hi;
  static const int64_t len_probes[] = {-1, 0, 6, 7, 8, 9, 100, BIG_SIZE, 5000};
  static const char* value_probes[] = {"",         "a",        "value1", "value15", "value150",
                                       "value15x", "value299", "value3", "zz"};

  make_index_models();
  CHECK_RC(drydb_table_index_count(items, &n), DRYDB_OK);
  CHECK(n == 2);
  CHECK_RC(drydb_table_index_count(nums, &n), DRYDB_OK);
  CHECK(n == 0);
  CHECK_RC(drydb_table_index_count(NULL, &n), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_table_index_count(items, NULL), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_table_index_at(items, 0, &by_len), DRYDB_OK);
  CHECK_RC(drydb_table_index_at(items, 1, &by_value), DRYDB_OK);
  CHECK_RC(drydb_table_index_at(items, 2, &ix), DRYDB_INVALID_ARGUMENT);
  CHECK_MESSAGE("drydb_table_index_at: index position 2 of 2 indexes");
  CHECK(ix == NULL);
  CHECK_RC(drydb_table_index_at(NULL, 0, &ix), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_table_index_at(items, 0, NULL), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_table_index(items, "by_value", 8, &ix), DRYDB_OK);
  CHECK(ix == by_value);
  CHECK_RC(drydb_table_index(items, "nope", 4, &ix), DRYDB_NOT_FOUND);
  CHECK_MESSAGE("by_len"); /* names the indexes there are */
  CHECK(ix == NULL);
  CHECK_RC(drydb_table_index(items, NULL, 4, &ix), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_table_index(items, "by_len", 6, NULL), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_table_index(NULL, "by_len", 6, &ix), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_table_index((const drydb_table*)(const void*)db, "by_len", 6, &ix),
           DRYDB_INVALID_ARGUMENT);
  CHECK_MESSAGE("not a drydb table");

  /* The empty value has no entry in either index, and "big"'s value none in by_value. */
  check_described((tested_table){TABLE_INDEX, by_len}, "by_len", DRYDB_KEY_INT64, "int64",
                  ITEM_ROWS - 1);
  check_described((tested_table){TABLE_INDEX, by_value}, "by_value", DRYDB_KEY_BYTES, "bytes",
                  ITEM_ROWS - 2);
  CHECK_RC(drydb_index_unique(by_len, &unique), DRYDB_OK);
  CHECK(unique == 0);
  CHECK_RC(drydb_index_unique(by_value, &unique), DRYDB_OK);
  CHECK(unique == 1);
  CHECK_RC(drydb_index_unique(NULL, &unique), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_index_unique(by_len, NULL), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_index_count((const drydb_index*)(const void*)items, &count),
           DRYDB_INVALID_ARGUMENT);
  CHECK_MESSAGE("not a drydb index");

  /* get: the unique index gives the row, the non-unique one its first row by primary key. */
  CHECK_RC(drydb_value_create(db, &v), DRYDB_OK);
  k = drydb_key_bytes("value42", 7);
  CHECK_RC(drydb_index_get(by_value, &k, v, &key, &key_size, &value, &value_size), DRYDB_OK);
  CHECK(key_size == 7 && memcmp(key, "key0042", 7) == 0 && value_size == 7 &&
        memcmp(value, "value42", 7) == 0);
  k = drydb_key_int64(BIG_SIZE);
  CHECK_RC(drydb_index_get(by_len, &k, v, &key, &key_size, &value, &value_size), DRYDB_OK);
  CHECK(key_size == 3 && memcmp(key, "big", 3) == 0 && value_size == BIG_SIZE &&
        memcmp(value, big_value, BIG_SIZE) == 0);
  k = drydb_key_int64(7);
  CHECK_RC(drydb_index_get(by_len, &k, v, &key, &key_size, &value, &value_size), DRYDB_OK);
  CHECK(key_size == 7 && memcmp(key, "key0010", 7) == 0);
  CHECK_RC(drydb_index_get(by_len, &k, v, NULL, NULL, NULL, NULL), DRYDB_OK);
  k = drydb_key_int64(0);
  CHECK_RC(drydb_index_get(by_len, &k, v, &key, &key_size, &value, &value_size), DRYDB_END);
  CHECK(key == NULL && key_size == 0 && value == NULL && value_size == 0);
  k = drydb_key_bytes("value", 5);
  CHECK_RC(drydb_index_get(by_value, &k, v, &key, &key_size, &value, &value_size), DRYDB_END);
  CHECK_RC(drydb_index_get(by_len, &k, v, &key, &key_size, &value, &value_size),
           DRYDB_WRONG_KEY_TYPE);
  k = drydb_key_int64(7);
  CHECK_RC(drydb_index_get(by_value, &k, v, &key, &key_size, &value, &value_size),
           DRYDB_WRONG_KEY_TYPE);
  k.kind = 42;
  CHECK_RC(drydb_index_get(by_value, &k, v, &key, &key_size, &value, &value_size),
           DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_index_get(by_value, NULL, v, &key, &key_size, &value, &value_size),
           DRYDB_INVALID_ARGUMENT);
  k = drydb_key_int64(7);
  CHECK_RC(drydb_index_get(NULL, &k, v, &key, &key_size, &value, &value_size),
           DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_index_get(by_len, &k, NULL, &key, &key_size, &value, &value_size),
           DRYDB_INVALID_ARGUMENT);
  {
    drydb_value* ov = NULL;
    CHECK_RC(drydb_value_create(other, &ov), DRYDB_OK);
    CHECK_RC(drydb_index_get(by_len, &k, ov, &key, &key_size, &value, &value_size),
             DRYDB_INVALID_ARGUMENT);
    CHECK_MESSAGE("another database");
    CHECK_RC(drydb_value_release(ov), DRYDB_OK);
  }
  /* A table get on the same holder lets the row go and holds a value instead. */
  CHECK_RC(drydb_index_get(by_len, &k, v, &key, &key_size, &value, &value_size), DRYDB_OK);
  k = drydb_key_bytes("key0001", 7);
  CHECK_RC(drydb_table_get(items, &k, v, &value, &value_size), DRYDB_OK);
  CHECK(value_size == 6 && memcmp(value, "value1", 6) == 0);
  CHECK_RC(drydb_value_release(v), DRYDB_OK);
  k = drydb_key_int64(7);
  CHECK_RC(drydb_index_get(by_len, &k, v, &key, &key_size, &value, &value_size),
           DRYDB_INVALID_ARGUMENT);
  CHECK_MESSAGE("released");

  /* Ranges, get_all and prefixes. */
  CHECK_RC(drydb_range_create(db, &r), DRYDB_OK);
  for (i = 0; i < 9; ++i)
    probes[i] = drydb_key_int64(len_probes[i]);
  check_bounds((tested_table){TABLE_INDEX, by_len}, r, len_entries, len_count, probes, 9,
               cmp_int_keys);
  for (i = 0; i < 9; ++i)
    probes[i] = drydb_key_bytes(value_probes[i], strlen(value_probes[i]));
  check_bounds((tested_table){TABLE_INDEX, by_value}, r, value_entries, value_count, probes, 9,
               cmp_bytes_keys);

  k = drydb_key_int64(6);
  CHECK_RC(drydb_index_get_all(by_len, &k, r), DRYDB_OK);
  CHECK_RC(drydb_range_count(r, &count), DRYDB_OK);
  CHECK(count == 10);
  CHECK_RC(drydb_range_index_key(r, &ik, &iks), DRYDB_INVALID_STATE); /* before the first row */
  CHECK_MESSAGE("not on a row");
  for (i = 0; drydb_range_next(r, &key, &key_size, &value, &value_size) == DRYDB_OK; ++i) {
    char want[16];
    int64_t len = 0;
    snprintf(want, sizeof want, "key%04d", i);
    CHECK(key_size == 7 && memcmp(key, want, 7) == 0);
    CHECK_RC(drydb_range_index_key(r, &ik, &iks), DRYDB_OK);
    CHECK(drydb_decode_int64_key(ik, iks, &len) == DRYDB_OK && len == 6);
  }
  CHECK(i == 10);
  CHECK_RC(drydb_range_index_key(r, &ik, &iks), DRYDB_INVALID_STATE); /* past the end */
  CHECK_RC(drydb_range_rewind(r), DRYDB_OK);
  CHECK_RC(drydb_range_next(r, &key, &key_size, NULL, NULL), DRYDB_OK);
  CHECK(key_size == 7 && memcmp(key, "key0000", 7) == 0);
  k = drydb_key_int64(5);
  CHECK_RC(drydb_index_get_all(by_len, &k, r), DRYDB_OK);
  CHECK_RC(drydb_range_next(r, NULL, NULL, NULL, NULL), DRYDB_END);
  k = drydb_key_bytes("value7", 6);
  CHECK_RC(drydb_index_get_all(by_value, &k, r), DRYDB_OK);
  CHECK_RC(drydb_range_next(r, &key, &key_size, &value, &value_size), DRYDB_OK);
  CHECK(key_size == 7 && memcmp(key, "key0007", 7) == 0);
  CHECK_RC(drydb_range_next(r, NULL, NULL, NULL, NULL), DRYDB_END);
  CHECK_RC(drydb_index_get_all(by_len, &k, r), DRYDB_WRONG_KEY_TYPE);
  CHECK_RC(drydb_range_next(r, NULL, NULL, NULL, NULL), DRYDB_END); /* left empty */
  CHECK_RC(drydb_index_get_all(by_len, NULL, r), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_index_get_all(NULL, &k, r), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_index_get_all(by_value, &k, NULL), DRYDB_INVALID_ARGUMENT);

  /* "value1" starts value1, value10..19 and value100..199; descending they come reversed. */
  for (i = DRYDB_ASCENDING; i <= DRYDB_DESCENDING; ++i) {
    int seen = 0, ordered = 1;
    char last[16] = "";
    CHECK_RC(drydb_index_prefix(by_value, "value1", 6, i, r), DRYDB_OK);
    CHECK_RC(drydb_range_count(r, &count), DRYDB_OK);
    CHECK(count == 111);
    while (drydb_range_next(r, &key, &key_size, &value, &value_size) == DRYDB_OK) {
      char pk[16];
      if (key_size >= sizeof pk || value_size < 6 || memcmp(value, "value1", 6) != 0) {
        ordered = 0;
        break;
      }
      memcpy(pk, key, key_size);
      pk[key_size] = 0;
      CHECK_RC(drydb_range_index_key(r, &ik, &iks), DRYDB_OK);
      if (iks != value_size || memcmp(ik, value, iks) != 0) ordered = 0;
      if (seen > 0 && (i == DRYDB_ASCENDING ? compare_bytes(last, strlen(last), ik, iks) >= 0
                                            : compare_bytes(last, strlen(last), ik, iks) <= 0))
        ordered = 0;
      memcpy(last, ik, iks);
      last[iks] = 0;
      ++seen;
    }
    CHECK(seen == 111 && ordered);
  }
  CHECK_RC(drydb_index_prefix(by_value, "", 0, DRYDB_DESCENDING, r), DRYDB_OK);
  CHECK_RC(drydb_range_count(r, &count), DRYDB_OK);
  CHECK(count == ITEM_ROWS - 2);
  CHECK_RC(drydb_index_prefix(by_value, "zz", 2, DRYDB_ASCENDING, r), DRYDB_OK);
  CHECK_RC(drydb_range_next(r, NULL, NULL, NULL, NULL), DRYDB_END);
  CHECK_RC(drydb_index_prefix(by_len, "v", 1, DRYDB_ASCENDING, r), DRYDB_WRONG_KEY_TYPE);
  CHECK_RC(drydb_index_prefix(by_value, NULL, 1, DRYDB_ASCENDING, r), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_index_prefix(by_value, "v", 1, 7, r), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_index_prefix(NULL, "v", 1, DRYDB_ASCENDING, r), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_index_prefix(by_value, "v", 1, DRYDB_ASCENDING, NULL), DRYDB_INVALID_ARGUMENT);

  /* Bad bounds, orders, kinds and handles. */
  lo.kind = DRYDB_INCLUSIVE;
  lo.key = drydb_key_bytes("a", 1);
  hi.kind = DRYDB_INCLUSIVE;
  hi.key = drydb_key_int64(3);
  CHECK_RC(drydb_index_range(by_len, &lo, NULL, DRYDB_ASCENDING, r), DRYDB_WRONG_KEY_TYPE);
  CHECK_RC(drydb_index_count_range(by_len, &lo, NULL, &count), DRYDB_WRONG_KEY_TYPE);
  CHECK_RC(drydb_index_range(by_len, NULL, &hi, 9, r), DRYDB_INVALID_ARGUMENT);
  lo.kind = 9;
  CHECK_RC(drydb_index_range(by_len, &lo, NULL, DRYDB_ASCENDING, r), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_index_count_range(by_len, &lo, NULL, &count), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_index_count_range(NULL, NULL, NULL, &count), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_index_count_range(by_len, NULL, NULL, NULL), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_index_count_range(by_len, NULL, NULL, &count), DRYDB_OK);
  CHECK(count == ITEM_ROWS - 1);
  CHECK_RC(drydb_index_range(NULL, NULL, NULL, DRYDB_ASCENDING, r), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_index_range(by_len, NULL, NULL, DRYDB_ASCENDING, NULL), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_range_create(other, &foreign), DRYDB_OK);
  CHECK_RC(drydb_index_range(by_len, NULL, NULL, DRYDB_ASCENDING, foreign), DRYDB_INVALID_ARGUMENT);
  CHECK_MESSAGE("another database");
  CHECK_RC(drydb_index_prefix(by_value, "v", 1, DRYDB_ASCENDING, foreign), DRYDB_INVALID_ARGUMENT);
  k = drydb_key_int64(6);
  CHECK_RC(drydb_index_get_all(by_len, &k, foreign), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_range_release(foreign), DRYDB_OK);

  /* A table range has no index keys. */
  CHECK_RC(drydb_table_range(items, NULL, NULL, DRYDB_ASCENDING, r), DRYDB_OK);
  CHECK_RC(drydb_range_next(r, NULL, NULL, NULL, NULL), DRYDB_OK);
  CHECK_RC(drydb_range_index_key(r, &ik, &iks), DRYDB_INVALID_STATE);
  CHECK_MESSAGE("not positioned by an index");
  CHECK_RC(drydb_range_index_key(NULL, &ik, &iks), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_range_index_key(r, NULL, &iks), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_range_index_key(r, &ik, NULL), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_range_release(r), DRYDB_OK);
  CHECK_RC(drydb_range_index_key(r, &ik, &iks), DRYDB_INVALID_ARGUMENT);
  CHECK_MESSAGE("released");
}

/* Index declarations the builder refuses, and index key functions that fail the build. */

/* An index key function's answer for every row: its status and, when that is DRYDB_OK, the key. */
typedef struct fixed_answer {
  int status;
  drydb_key key;
} fixed_answer;

/* Gives every row the fixed_answer ctx points to. */
static int index_fixed(void* ctx, const void* key, size_t key_size, const void* value,
                       size_t value_size, drydb_key* out) {
  const fixed_answer* answer = ctx;
  (void)key;
  (void)key_size;
  (void)value;
  (void)value_size;
  if (answer->status == DRYDB_OK) *out = answer->key;
  return answer->status;
}

/* A builder of one bytes table "t" of rows "a" and "b" with one index (fn, ctx, unique). */
static int build_with_index(drydb_index_key_fn fn, void* ctx, int unique) {
  drydb_builder* b = NULL;
  drydb_table_builder* t = NULL;
  drydb_key a = drydb_key_bytes("a", 1), bk = drydb_key_bytes("b", 1);
  void* data = NULL;
  size_t size = 0;
  int rc;
  CHECK_RC(drydb_builder_create(512, &b), DRYDB_OK);
  CHECK_RC(drydb_builder_create_table(b, "t", 1, DRYDB_KEY_BYTES, &t), DRYDB_OK);
  CHECK_RC(drydb_table_builder_append(t, &a, "1", 1), DRYDB_OK);
  CHECK_RC(drydb_table_builder_append(t, &bk, "2", 1), DRYDB_OK);
  CHECK_RC(drydb_table_builder_add_index(t, "i", 1, unique, DRYDB_KEY_BYTES, fn, ctx), DRYDB_OK);
  rc = drydb_builder_build_to_memory(b, &data, &size);
  drydb_free(data);
  CHECK_RC(drydb_builder_release(b), DRYDB_OK);
  return rc;
}

static void test_index_builder_errors(void) {
  drydb_builder* b = NULL;
  drydb_table_builder* t = NULL;

  CHECK_RC(drydb_builder_create(512, &b), DRYDB_OK);
  CHECK_RC(drydb_builder_create_table(b, "t", 1, DRYDB_KEY_BYTES, &t), DRYDB_OK);
  CHECK_RC(drydb_table_builder_add_index(NULL, "i", 1, 0, DRYDB_KEY_BYTES, index_by_len, NULL),
           DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_table_builder_add_index(t, NULL, 1, 0, DRYDB_KEY_BYTES, index_by_len, NULL),
           DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_table_builder_add_index(t, "i", 1, 0, DRYDB_KEY_BYTES, NULL, NULL),
           DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_table_builder_add_index(t, "i", 1, 0, 17, index_by_len, NULL),
           DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_table_builder_add_index((drydb_table_builder*)(void*)b, "i", 1, 0, DRYDB_KEY_BYTES,
                                         index_by_len, NULL),
           DRYDB_INVALID_ARGUMENT);
  CHECK_MESSAGE("not a drydb table builder");
  CHECK_RC(drydb_table_builder_add_index(t, "i", 1, 0, DRYDB_KEY_INT64, index_by_len, NULL),
           DRYDB_OK);
  CHECK_RC(drydb_table_builder_add_index(t, "i", 1, 1, DRYDB_KEY_INT64, index_by_len, NULL),
           DRYDB_DUPLICATE_NAME);
  CHECK_RC(drydb_table_builder_add_index(t, "j", 1, 1, DRYDB_KEY_INT64, index_by_len, NULL),
           DRYDB_INVALID_STATE); /* failed earlier */
  CHECK_RC(drydb_builder_release(b), DRYDB_OK);
  CHECK_RC(drydb_table_builder_add_index(t, "i", 1, 0, DRYDB_KEY_BYTES, index_by_len, NULL),
           DRYDB_INVALID_ARGUMENT);
  CHECK_MESSAGE("released");

  CHECK_RC(drydb_builder_create(512, &b), DRYDB_OK);
  CHECK_RC(drydb_builder_create_table(b, "t", 1, DRYDB_KEY_BYTES, &t), DRYDB_OK);
  CHECK_RC(drydb_table_builder_add_index(t, "", 0, 0, DRYDB_KEY_BYTES, index_by_len, NULL),
           DRYDB_INVALID_ARGUMENT); /* an empty name */
  CHECK_RC(drydb_builder_release(b), DRYDB_OK);

  /* What the build makes of each answer: an error status fails it with that status. */
  {
    struct {
      fixed_answer answer;
      int unique, want;
      const char* message; /* NULL: not checked */
    } cases[] = {
        {{DRYDB_CORRUPTION, {0}}, 0, DRYDB_CORRUPTION, "index key function returned corruption"},
        {{DRYDB_NOT_FOUND, {0}}, 1, DRYDB_NOT_FOUND, NULL},
        {{42, {0}}, 0, DRYDB_INVALID_ARGUMENT, "42"},                     /* not a drydb status */
        {{DRYDB_BUFFER_TOO_SMALL, {0}}, 0, DRYDB_INVALID_ARGUMENT, NULL}, /* not an errc */
        {{DRYDB_END, {0}}, 1, DRYDB_OK, NULL},                            /* no row has an entry */
        {{DRYDB_OK, drydb_key_int64(1)}, 0, DRYDB_WRONG_KEY_TYPE, NULL},  /* a bytes index */
        {{DRYDB_OK, drydb_key_bytes("same", 4)}, 1, DRYDB_DUPLICATE_KEY, NULL},
        {{DRYDB_OK, drydb_key_bytes("same", 4)}, 0, DRYDB_OK, NULL},
        {{DRYDB_OK, {42, NULL, 0, 1}}, 0, DRYDB_INVALID_ARGUMENT, "key kind"}, /* no such kind */
    };
    size_t i, ncases = sizeof cases / sizeof cases[0];
    for (i = 0; i < ncases; ++i) {
      int failed_before = failed;
      CHECK_RC(build_with_index(index_fixed, &cases[i].answer, cases[i].unique), cases[i].want);
      if (cases[i].message != NULL) CHECK_MESSAGE(cases[i].message);
      if (failed != failed_before) fprintf(stderr, "  (index key function answer %zu)\n", i);
    }
  }

  /* After the build: refused. */
  {
    void* data = NULL;
    size_t size = 0;
    CHECK_RC(drydb_builder_create(512, &b), DRYDB_OK);
    CHECK_RC(drydb_builder_create_table(b, "t", 1, DRYDB_KEY_BYTES, &t), DRYDB_OK);
    CHECK_RC(drydb_builder_build_to_memory(b, &data, &size), DRYDB_OK);
    drydb_free(data);
    CHECK_RC(drydb_table_builder_add_index(t, "i", 1, 0, DRYDB_KEY_BYTES, index_by_len, NULL),
             DRYDB_INVALID_STATE);
    CHECK_RC(drydb_table_builder_add_miss_filter(t, 10), DRYDB_INVALID_STATE);
    CHECK_RC(drydb_builder_release(b), DRYDB_OK);
  }
}

/* ---- names with a NUL ---------------------------------------------------------------------- */

/* Names are sized byte strings: one holding a NUL is kept whole through the build and the
 * look-ups (a table "a\0b" is not the table "a"), never cut at the NUL. */
static void test_names_with_a_nul(void) {
  drydb_builder* b = NULL;
  drydb_table_builder* t = NULL;
  drydb_key k = drydb_key_bytes("k", 1);
  void* data = NULL;
  size_t size = 0;
  drydb_db* db = NULL;
  const drydb_table* table = NULL;
  const drydb_index* index = NULL;
  const char* name = NULL;
  size_t name_size = 0;

  CHECK_RC(drydb_builder_create(512, &b), DRYDB_OK);
  CHECK_RC(drydb_builder_create_table(b, "a\0b", 3, DRYDB_KEY_BYTES, &t), DRYDB_OK);
  CHECK_RC(drydb_table_builder_append(t, &k, "v", 1), DRYDB_OK);
  CHECK_RC(drydb_table_builder_add_index(t, "i\0j", 3, 0, DRYDB_KEY_BYTES, index_by_value,
                                         index_key_buffer),
           DRYDB_OK);
  CHECK_RC(drydb_builder_create_table(b, "a", 1, DRYDB_KEY_BYTES, &t), DRYDB_OK);
  CHECK_RC(drydb_builder_build_to_memory(b, &data, &size), DRYDB_OK);
  CHECK_RC(drydb_builder_release(b), DRYDB_OK);
  CHECK_RC(drydb_db_open_memory(data, size, NULL, &db), DRYDB_OK);
  CHECK_RC(drydb_db_table(db, "a\0b", 3, &table), DRYDB_OK);
  CHECK_RC(drydb_table_name(table, &name, &name_size), DRYDB_OK);
  CHECK(name_size == 3 && memcmp(name, "a\0b", 3) == 0);
  CHECK_RC(drydb_table_index(table, "i", 1, &index), DRYDB_NOT_FOUND);
  CHECK_RC(drydb_table_index(table, "i\0j", 3, &index), DRYDB_OK);
  CHECK_RC(drydb_index_name(index, &name, &name_size), DRYDB_OK);
  CHECK(name_size == 3 && memcmp(name, "i\0j", 3) == 0);
  CHECK_RC(drydb_db_table(db, "a", 1, &table), DRYDB_OK);
  CHECK_RC(drydb_table_name(table, &name, &name_size), DRYDB_OK);
  CHECK(name_size == 1);
  CHECK_RC(drydb_db_table(db, "a\0", 2, &table), DRYDB_NOT_FOUND);
  CHECK_RC(drydb_db_close(db), DRYDB_OK);
  drydb_free(data);
}

/* ---- a release while a build runs ---------------------------------------------------------- */

/* An index key function that holds the build at its first row until the test says go: the build
 * is then known to be running (on another thread) while the test releases the builder. */
typedef struct build_gate {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int building; /* the index function has been entered */
  int go;       /* the test has tried its release: the build may finish */
} build_gate;

static int index_held(void* ctx, const void* key, size_t key_size, const void* value,
                      size_t value_size, drydb_key* out) {
  build_gate* gate = ctx;
  (void)value;
  (void)value_size;
  pthread_mutex_lock(&gate->mu);
  gate->building = 1;
  pthread_cond_broadcast(&gate->cv);
  while (!gate->go)
    pthread_cond_wait(&gate->cv, &gate->mu);
  pthread_mutex_unlock(&gate->mu);
  *out = drydb_key_bytes(key, key_size);
  return DRYDB_OK;
}

typedef struct held_build {
  drydb_builder* builder;
  const char* path;
  int status;
} held_build;

static void* run_held_build(void* arg) {
  held_build* build = arg;
  build->status = drydb_builder_build_to_file(build->builder, build->path);
  return NULL;
}

static void test_release_during_build(const char* dir) {
  enum { rows = 2000 };
  build_gate gate = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0};
  char path[4096];
  held_build build = {NULL, path, -100};
  drydb_table_builder* t = NULL;
  drydb_db* db = NULL;
  const drydb_table* table = NULL;
  const drydb_index* index = NULL;
  pthread_t thread;
  uint64_t count = 0;
  int i;

  snprintf(path, sizeof path, "%s/held.drydb", dir);
  CHECK_RC(drydb_builder_create(512, &build.builder), DRYDB_OK);
  CHECK_RC(drydb_builder_create_table(build.builder, "t", 1, DRYDB_KEY_BYTES, &t), DRYDB_OK);
  for (i = 0; i < rows; ++i) {
    char key[16];
    drydb_key k;
    snprintf(key, sizeof key, "k%06d", i);
    k = drydb_key_bytes(key, strlen(key));
    CHECK_RC(drydb_table_builder_append(t, &k, key, strlen(key)), DRYDB_OK);
  }
  CHECK_RC(drydb_table_builder_add_index(t, "i", 1, 1, DRYDB_KEY_BYTES, index_held, &gate),
           DRYDB_OK);
  if (pthread_create(&thread, NULL, run_held_build, &build) != 0) {
    CHECK(!"pthread_create");
    return;
  }
  pthread_mutex_lock(&gate.mu);
  while (!gate.building)
    pthread_cond_wait(&gate.cv, &gate.mu);
  pthread_mutex_unlock(&gate.mu);

  /* The build is inside the index function: the builder is refused, and so is another build or
   * a change; nothing is freed. */
  CHECK_RC(drydb_builder_release(build.builder), DRYDB_INVALID_STATE);
  CHECK_MESSAGE("build is running");
  CHECK_RC(drydb_builder_create_table(build.builder, "u", 1, DRYDB_KEY_BYTES, &t),
           DRYDB_INVALID_STATE);
  CHECK(t == NULL);

  pthread_mutex_lock(&gate.mu);
  gate.go = 1;
  pthread_cond_broadcast(&gate.cv);
  pthread_mutex_unlock(&gate.mu);
  pthread_join(thread, NULL);
  CHECK_RC(build.status, DRYDB_OK);
  CHECK_RC(drydb_builder_release(build.builder), DRYDB_OK);

  /* The build finished whole. */
  CHECK_RC(drydb_db_open(path, NULL, &db), DRYDB_OK);
  CHECK_RC(drydb_db_table(db, "t", 1, &table), DRYDB_OK);
  CHECK_RC(drydb_table_count(table, &count), DRYDB_OK);
  CHECK(count == rows);
  CHECK_RC(drydb_table_index(table, "i", 1, &index), DRYDB_OK);
  CHECK_RC(drydb_db_close(db), DRYDB_OK);
}

/* ---- get_many ------------------------------------------------------------------------------ */

static void test_get_many(drydb_db* db, drydb_db* other) {
  const drydb_table* items = table_named(db, "items");
  const drydb_table* nums = table_named(db, "nums");
  drydb_value_batch *batch = NULL, *foreign = NULL;
  drydb_key keys[64];
  int32_t statuses[64];
  drydb_view views[64];
  char names[64][16];
  int i, ok = 1;

  CHECK_RC(drydb_value_batch_create(NULL, 4, &batch), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_value_batch_create(db, 4, NULL), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_value_batch_create(db, 0, &batch), DRYDB_INVALID_ARGUMENT);
  CHECK(batch == NULL);
  CHECK_RC(drydb_value_batch_create(db, 64, &batch), DRYDB_OK);

  /* 64 keys, every third absent, in a scrambled order: each view is its key's value. */
  for (i = 0; i < 64; ++i) {
    int n = (i * 37) % 64 * 4;
    snprintf(names[i], sizeof names[i], i % 3 == 2 ? "key%04dx" : "key%04d", n);
    keys[i] = drydb_key_bytes(names[i], strlen(names[i]));
  }
  CHECK_RC(drydb_table_get_many(items, keys, 64, batch, statuses, views), DRYDB_OK);
  for (i = 0; i < 64; ++i) {
    char want[32];
    if (i % 3 == 2) {
      ok = ok && statuses[i] == DRYDB_END && views[i].data == NULL && views[i].size == 0;
      continue;
    }
    item_value(names[i], want, sizeof want);
    ok = ok && statuses[i] == DRYDB_OK && views[i].size == strlen(want) &&
         memcmp(views[i].data, want, views[i].size) == 0;
  }
  CHECK(ok);

  /* Overflow and empty values, repeats, and per-key errors beside good keys. */
  keys[0] = drydb_key_bytes("big", 3);
  keys[1] = drydb_key_bytes("empty", 5);
  keys[2] = drydb_key_int64(3); /* wrong kind */
  keys[3] = drydb_key_bytes("big", 3);
  keys[4] = drydb_key_bytes(NULL, 2); /* bad key */
  keys[5] = drydb_key_bytes("key0005", 7);
  CHECK_RC(drydb_table_get_many(items, keys, 6, batch, statuses, views), DRYDB_INVALID_ARGUMENT);
  CHECK(statuses[0] == DRYDB_OK && views[0].size == BIG_SIZE &&
        memcmp(views[0].data, big_value, BIG_SIZE) == 0);
  CHECK(statuses[1] == DRYDB_OK && views[1].size == 0);
  CHECK(statuses[2] == DRYDB_WRONG_KEY_TYPE && views[2].data == NULL);
  CHECK(statuses[3] == DRYDB_OK && views[3].size == BIG_SIZE &&
        memcmp(views[3].data, big_value, BIG_SIZE) == 0);
  CHECK(statuses[4] == DRYDB_INVALID_ARGUMENT && views[4].data == NULL);
  CHECK(statuses[5] == DRYDB_OK && views[5].size == 6 && memcmp(views[5].data, "value5", 6) == 0);
  CHECK_RC(drydb_table_get_many(items, keys, 4, batch, statuses, views), DRYDB_WRONG_KEY_TYPE);
  CHECK_MESSAGE("key 2");

  /* int64 keys. */
  for (i = 0; i < 10; ++i)
    keys[i] = drydb_key_int64(i * 40 - 200);
  CHECK_RC(drydb_table_get_many(nums, keys, 10, batch, statuses, views), DRYDB_OK);
  for (i = 0, ok = 1; i < 10; ++i) {
    int64_t n = i * 40 - 200;
    char want[32];
    snprintf(want, sizeof want, "n%d", (int)n);
    if (n < -150 || n >= 150)
      ok = ok && statuses[i] == DRYDB_END;
    else
      ok = ok && statuses[i] == DRYDB_OK && views[i].size == strlen(want) &&
           memcmp(views[i].data, want, views[i].size) == 0;
  }
  CHECK(ok);

  /* The call's own errors: no status written. */
  statuses[0] = 77;
  CHECK_RC(drydb_table_get_many(items, keys, 65, batch, statuses, views), DRYDB_INVALID_ARGUMENT);
  CHECK_MESSAGE("65 keys for a batch of 64");
  CHECK(statuses[0] == 77);
  CHECK_RC(drydb_table_get_many(items, keys, 0, batch, NULL, NULL), DRYDB_OK);
  CHECK_RC(drydb_table_get_many(items, NULL, 1, batch, statuses, views), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_table_get_many(items, keys, 1, batch, NULL, views), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_table_get_many(items, keys, 1, batch, statuses, NULL), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_table_get_many(NULL, keys, 1, batch, statuses, views), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_table_get_many(items, keys, 1, NULL, statuses, views), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_table_get_many(items, keys, 1, (drydb_value_batch*)(void*)items, statuses, views),
           DRYDB_INVALID_ARGUMENT);
  CHECK_MESSAGE("not a drydb value batch");
  CHECK(statuses[0] == 77);
  CHECK_RC(drydb_value_batch_create(other, 2, &foreign), DRYDB_OK);
  CHECK_RC(drydb_table_get_many(items, keys, 1, foreign, statuses, views), DRYDB_INVALID_ARGUMENT);
  CHECK_MESSAGE("another database");
  CHECK_RC(drydb_value_batch_release(foreign), DRYDB_OK);

  CHECK_RC(drydb_value_batch_reset(batch), DRYDB_OK);
  CHECK_RC(drydb_value_batch_reset(NULL), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_value_batch_release(batch), DRYDB_OK);
  CHECK_RC(drydb_value_batch_release(batch), DRYDB_INVALID_ARGUMENT);
  CHECK_MESSAGE("released");
  CHECK_RC(drydb_table_get_many(items, keys, 1, batch, statuses, views), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_value_batch_reset(batch), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_value_batch_release(NULL), DRYDB_INVALID_ARGUMENT);
}

/* Through a tiny page cache every view of a get_many stays pinned until the batch moves on. */
static void test_get_many_pinned(const char* path) {
  drydb_db* db = NULL;
  drydb_value_batch* batch = NULL;
  drydb_open_options options;
  drydb_key keys[40];
  int32_t statuses[40];
  drydb_view views[40];
  char names[40][16];
  int i, ok = 1;
  memset(&options, 0, sizeof options);
  options.storage = DRYDB_STORAGE_PREAD;
  options.page_cache_bytes = 512;
  CHECK_RC(drydb_db_open(path, &options, &db), DRYDB_OK);
  CHECK_RC(drydb_value_batch_create(db, 40, &batch), DRYDB_OK);
  for (i = 0; i < 40; ++i) {
    snprintf(names[i], sizeof names[i], "key%04d", 299 - i * 7);
    keys[i] = drydb_key_bytes(names[i], strlen(names[i]));
  }
  CHECK_RC(drydb_table_get_many(table_named(db, "items"), keys, 40, batch, statuses, views),
           DRYDB_OK);
  for (i = 0; i < 40; ++i) {
    char want[32];
    item_value(names[i], want, sizeof want);
    ok = ok && statuses[i] == DRYDB_OK && views[i].size == strlen(want) &&
         memcmp(views[i].data, want, views[i].size) == 0;
  }
  CHECK(ok);
  CHECK_RC(drydb_db_close(db), DRYDB_INVALID_STATE); /* the batch lives */
  CHECK_RC(drydb_value_batch_release(batch), DRYDB_OK);
  CHECK_RC(drydb_db_close(db), DRYDB_OK);
}

/* ---- builder options and miss filters ------------------------------------------------------ */

/* Builds 2,000 rows with `options` (and a miss filter of `bits`, 0 = none) to `path`, then reads
 * every row back, some absent keys, and verify. */
static void check_build_with(const drydb_builder_options* options, uint32_t bits,
                             const char* path) {
  drydb_builder* b = NULL;
  drydb_table_builder* t = NULL;
  drydb_db* db = NULL;
  const drydb_table* table;
  drydb_value* v = NULL;
  int i, ok = 1;
  uint32_t built_bits = 99;
  CHECK_RC(drydb_builder_create_with_options(options, &b), DRYDB_OK);
  CHECK_RC(drydb_builder_create_table(b, "t", 1, DRYDB_KEY_INT64, &t), DRYDB_OK);
  if (bits != 0) CHECK_RC(drydb_table_builder_add_miss_filter(t, bits), DRYDB_OK);
  for (i = 0; i < 2000; ++i) {
    char value[64];
    drydb_key k = drydb_key_int64(i * 2);
    snprintf(value, sizeof value, "row %d of a table whose pages compress well", i);
    if (drydb_table_builder_append(t, &k, value, strlen(value)) != DRYDB_OK) ok = 0;
  }
  CHECK(ok);
  CHECK_RC(drydb_builder_build_to_file(b, path), DRYDB_OK);
  CHECK_RC(drydb_builder_release(b), DRYDB_OK);
  CHECK_RC(drydb_db_open(path, NULL, &db), DRYDB_OK);
  if (db == NULL) return;
  CHECK_RC(drydb_db_verify(db), DRYDB_OK);
  table = table_named(db, "t");
  CHECK_RC(drydb_table_miss_filter_bits(table, &built_bits), DRYDB_OK);
  CHECK(built_bits == bits);
  CHECK_RC(drydb_value_create(db, &v), DRYDB_OK);
  for (i = 0; i < 4000; ++i) {
    char want[64];
    const void* data;
    size_t size;
    drydb_key k = drydb_key_int64(i);
    int rc = drydb_table_get(table, &k, v, &data, &size);
    snprintf(want, sizeof want, "row %d of a table whose pages compress well", i / 2);
    if (i % 2 == 1 ? rc != DRYDB_END
                   : rc != DRYDB_OK || size != strlen(want) || memcmp(data, want, size) != 0)
      ok = 0;
  }
  CHECK(ok);
  CHECK_RC(drydb_value_release(v), DRYDB_OK);
  CHECK_RC(drydb_db_close(db), DRYDB_OK);
}

static void test_builder_options(const char* dir) {
  drydb_builder_options o;
  drydb_builder* b = (drydb_builder*)(void*)&b;
  drydb_table_builder* t = NULL;
  char path[4096];
  uint32_t bits = 99;

  snprintf(path, sizeof path, "%s/options.drydb", dir);
  check_build_with(NULL, 0, path);
  memset(&o, 0, sizeof o);
  check_build_with(&o, 10, path);
  o.page_size = 1024;
  o.compression = DRYDB_COMPRESSION_LZ4;
  check_build_with(&o, 1, path);
  o.compression = DRYDB_COMPRESSION_ZSTD;
  o.zstd_level = 9;
  check_build_with(&o, 32, path);
  o.zstd_dictionary_bytes = 4096; /* a trained dictionary */
  o.memory_budget = 1;            /* every row spills to a run */
  o.temp_dir = dir;
  o.whole_keys = 1;
  o.no_file_identity = 1;
  check_build_with(&o, 0, path);

  /* Refused options. */
  memset(&o, 0, sizeof o);
  o.page_size = 3000;
  CHECK_RC(drydb_builder_create_with_options(&o, &b), DRYDB_INVALID_ARGUMENT);
  CHECK(b == NULL);
  CHECK_MESSAGE("page size");
  o.page_size = 0;
  o.compression = 3;
  CHECK_RC(drydb_builder_create_with_options(&o, &b), DRYDB_INVALID_ARGUMENT);
  CHECK_MESSAGE("compression");
  o.compression = DRYDB_COMPRESSION_ZSTD;
  o.zstd_dictionary_bytes = (uint64_t)1 << 40;
  CHECK_RC(drydb_builder_create_with_options(&o, &b), DRYDB_INVALID_ARGUMENT);
  CHECK_MESSAGE("dictionary");
  CHECK_RC(drydb_builder_create_with_options(NULL, NULL), DRYDB_INVALID_ARGUMENT);
  /* A temp folder that does not exist fails the build that spills. */
  memset(&o, 0, sizeof o);
  o.memory_budget = 1;
  o.temp_dir = "/nonexistent/drydb-capi-test";
  CHECK_RC(drydb_builder_create_with_options(&o, &b), DRYDB_OK);
  CHECK_RC(drydb_builder_create_table(b, "t", 1, DRYDB_KEY_INT64, &t), DRYDB_OK);
  {
    int i, failed_append = 0;
    void* data = NULL;
    size_t size = 0;
    for (i = 0; i < 100; ++i) {
      drydb_key k = drydb_key_int64(i);
      if (drydb_table_builder_append(t, &k, "v", 1) != DRYDB_OK) failed_append = 1;
    }
    if (!failed_append)
      CHECK_RC(drydb_builder_build_to_memory(b, &data, &size), DRYDB_IO_ERROR);
    else
      CHECK(strstr(drydb_last_error_message(), "drydb-capi-test") != NULL);
    drydb_free(data);
  }
  CHECK_RC(drydb_builder_release(b), DRYDB_OK);

  /* Miss filter sizes. */
  CHECK_RC(drydb_builder_create(0, &b), DRYDB_OK);
  CHECK_RC(drydb_builder_create_table(b, "t", 1, DRYDB_KEY_INT64, &t), DRYDB_OK);
  CHECK_RC(drydb_table_builder_add_miss_filter(NULL, 10), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_table_builder_add_miss_filter((drydb_table_builder*)(void*)b, 10),
           DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_table_builder_add_miss_filter(t, 33), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_table_builder_add_miss_filter(t, 10), DRYDB_INVALID_STATE); /* failed earlier */
  CHECK_RC(drydb_builder_release(b), DRYDB_OK);
  CHECK_RC(drydb_table_builder_add_miss_filter(t, 10), DRYDB_INVALID_ARGUMENT);
  CHECK_MESSAGE("released");
  CHECK_RC(drydb_builder_create(0, &b), DRYDB_OK);
  CHECK_RC(drydb_builder_create_table(b, "t", 1, DRYDB_KEY_INT64, &t), DRYDB_OK);
  CHECK_RC(drydb_table_builder_add_miss_filter(t, 0), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_builder_release(b), DRYDB_OK);
  CHECK_RC(drydb_table_miss_filter_bits(NULL, &bits), DRYDB_INVALID_ARGUMENT);
}

/* Reads a whole file into malloc'd memory. */
static unsigned char* read_file(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  unsigned char* data;
  long n;
  if (f == NULL) return NULL;
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  fseek(f, 0, SEEK_SET);
  data = malloc((size_t)n);
  if (data != NULL && fread(data, 1, (size_t)n, f) != (size_t)n) {
    free(data);
    data = NULL;
  }
  fclose(f);
  *size = (size_t)n;
  return data;
}

static void write_file(const char* path, const unsigned char* data, size_t size) {
  FILE* f = fopen(path, "wb");
  CHECK(f != NULL);
  if (f == NULL) return;
  CHECK(fwrite(data, 1, size, f) == size);
  fclose(f);
}

static void test_bad_files(const char* dir, const char* good_path) {
  drydb_db* db = (drydb_db*)(void*)&db; /* not NULL: open must clear it on failure */
  size_t size = 0;
  unsigned char* bytes = read_file(good_path, &size);
  unsigned char* copy;
  drydb_open_options pread_options;
  memset(&pread_options, 0, sizeof pread_options);
  pread_options.storage = DRYDB_STORAGE_PREAD;
  CHECK(bytes != NULL && size > 4096);
  if (bytes == NULL) return;

  CHECK_RC(drydb_db_open(path_in(dir, "missing.drydb"), NULL, &db), DRYDB_IO_ERROR);
  CHECK(db == NULL);
  CHECK_MESSAGE("missing.drydb");
  CHECK_RC(drydb_db_open(NULL, NULL, &db), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_db_open(good_path, NULL, NULL), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_db_open_memory(NULL, 10, NULL, &db), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_db_open_memory(bytes, size, NULL, NULL), DRYDB_INVALID_ARGUMENT);

  /* Not a drydb file. */
  copy = malloc(size);
  memcpy(copy, bytes, size);
  memcpy(copy, "NOTADRYDBFILE", 13);
  CHECK_RC(drydb_db_open_memory(copy, size, NULL, &db), DRYDB_BAD_MAGIC);
  CHECK(db == NULL);
  write_file(path_in(dir, "bad_magic.drydb"), copy, size);
  CHECK_RC(drydb_db_open(path_in(dir, "bad_magic.drydb"), NULL, &db), DRYDB_BAD_MAGIC);

  /* Truncated: half the file. */
  write_file(path_in(dir, "truncated.drydb"), bytes, size / 2);
  CHECK_RC(drydb_db_open(path_in(dir, "truncated.drydb"), NULL, &db), DRYDB_TRUNCATED);
  CHECK(db == NULL);

  /* A damaged page: open (which checks the header and catalog) succeeds, verify finds it. */
  memcpy(copy, bytes, size);
  copy[512 * 3 + 100] ^= 0x5a;
  write_file(path_in(dir, "corrupt.drydb"), copy, size);
  CHECK_RC(drydb_db_open(path_in(dir, "corrupt.drydb"), &pread_options, &db), DRYDB_OK);
  CHECK_RC(drydb_db_verify(db), DRYDB_CORRUPTION);
  {
    /* Every query meeting the page says so too: a walk of every table stops on it. */
    size_t t, tables = 0;
    int saw_corruption = 0;
    CHECK_RC(drydb_db_table_count(db, &tables), DRYDB_OK);
    for (t = 0; t < tables; ++t) {
      const drydb_table* table = NULL;
      drydb_cursor* c = NULL;
      int rc;
      CHECK_RC(drydb_db_table_at(db, t, &table), DRYDB_OK);
      CHECK_RC(drydb_cursor_create(table, &c), DRYDB_OK);
      while ((rc = drydb_cursor_next_kv(c, NULL, NULL, NULL, NULL)) == DRYDB_OK) {
      }
      if (rc == DRYDB_CORRUPTION)
        saw_corruption = 1;
      else
        CHECK_RC(rc, DRYDB_END);
      CHECK_RC(drydb_cursor_release(c), DRYDB_OK);
    }
    CHECK(saw_corruption);
  }
  CHECK_RC(drydb_db_close(db), DRYDB_OK);
  free(copy);
  free(bytes);
}

static void test_open_and_close(const char* path, const unsigned char* memory, size_t memory_size) {
  drydb_db* db = NULL;
  const drydb_table* items = NULL;
  drydb_value* v = NULL;
  drydb_cursor* c = NULL;
  drydb_range* r = NULL;
  drydb_open_options options;
  int storage;
  uint64_t rows = 0;
  drydb_key k = drydb_key_bytes("key0007", 7);
  const void* data;
  size_t size;

  memset(&options, 0, sizeof options);
  for (storage = DRYDB_STORAGE_MMAP; storage <= DRYDB_STORAGE_MEMORY; ++storage) {
    options.storage = storage;
    options.page_cache_bytes = storage == DRYDB_STORAGE_PREAD ? 4096 : 0; /* a tiny cache */
    CHECK_RC(drydb_db_open(path, &options, &db), DRYDB_OK);
    CHECK_RC(drydb_db_verify(db), DRYDB_OK);
    items = table_named(db, "items");
    CHECK_RC(drydb_table_count(items, &rows), DRYDB_OK);
    CHECK(rows == ITEM_ROWS);
    CHECK_RC(drydb_table_get_copy(items, &k, NULL, 0, &size), DRYDB_BUFFER_TOO_SMALL);
    CHECK(size == 6);
    CHECK_RC(drydb_db_close(db), DRYDB_OK);
  }
  options.storage = 3;
  CHECK_RC(drydb_db_open(path, &options, &db), DRYDB_INVALID_ARGUMENT);
  CHECK_MESSAGE("storage");
  options.storage = -1;
  CHECK_RC(drydb_db_open_memory(memory, memory_size, &options, &db), DRYDB_INVALID_ARGUMENT);

  /* The database from memory; close is refused while a value, cursor or range lives. */
  CHECK_RC(drydb_db_open_memory(memory, memory_size, NULL, &db), DRYDB_OK);
  CHECK_RC(drydb_db_verify(db), DRYDB_OK);
  items = table_named(db, "items");
  CHECK_RC(drydb_value_create(db, &v), DRYDB_OK);
  CHECK_RC(drydb_cursor_create(items, &c), DRYDB_OK);
  CHECK_RC(drydb_range_create(db, &r), DRYDB_OK);
  CHECK_RC(drydb_table_get(items, &k, v, &data, &size), DRYDB_OK);
  CHECK_RC(drydb_db_close(db), DRYDB_INVALID_STATE);
  CHECK_MESSAGE("3 values, value batches, cursors or ranges");
  CHECK(size == 6 && memcmp(data, "value7", 6) == 0); /* still readable: nothing was closed */
  CHECK_RC(drydb_value_release(v), DRYDB_OK);
  CHECK_RC(drydb_db_close(db), DRYDB_INVALID_STATE);
  CHECK_RC(drydb_cursor_release(c), DRYDB_OK);
  CHECK_RC(drydb_range_release(r), DRYDB_OK);
  CHECK_RC(drydb_db_close(db), DRYDB_OK);
  /* Closed: the database and its tables are released handles. */
  CHECK_RC(drydb_db_close(db), DRYDB_INVALID_ARGUMENT);
  CHECK_MESSAGE("released");
  CHECK_RC(drydb_db_verify(db), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_table_count(items, &rows), DRYDB_INVALID_ARGUMENT);
  CHECK_MESSAGE("table has been released");
  CHECK_RC(drydb_cursor_create(items, &c), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_value_create(db, &v), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_db_close(NULL), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_db_verify(NULL), DRYDB_INVALID_ARGUMENT);
}

/* ---- sharded datasets ---------------------------------------------------------------------- */

#if DRYDB_TEST_DATASETS

/* The test's dataset, written as docs/sharding.md specifies (a third party's writer: the C
 * builder for the shards, this code for the manifest, CURRENT and HIGHEST), 3 shards and 3
 * tables:
 *   items  (bytes, range-v1, splits "key0100" "key0200"): the file test's items model; shard 0
 *          holds "big", "empty" and key0000..key0099.
 *   nums   (int64, range-v1, splits -1000 and 0): -150..149 (generation 2: ..150); shard 0 holds
 *          none, so walks cross an empty shard.
 *   hashed (bytes, xxh3-64-mod-v1): "h000".."h199", whose ranges merge the shards' rows.
 * Values: generation 1 as the file test's ("value<i>", "n<i>"), later ones "g<N>-" before
 * them, so a query tells which generation answered. */
#define DS_SHARDS 3
#define DS_TABLES 3
#define HASHED_ROWS 200

static uint32_t range_shard(const void* key, size_t size, const unsigned char splits[][8],
                            const size_t* split_sizes) {
  uint32_t shard = 0;
  int i;
  for (i = 0; i < DS_SHARDS - 1; ++i)
    if (compare_bytes(splits[i], split_sizes[i], key, size) <= 0) ++shard;
  return shard;
}

/* int64 key v as stored: 8 bytes big-endian, the sign bit flipped. */
static void encode_int64(int64_t v, unsigned char out[8]) {
  uint64_t u = (uint64_t)v ^ ((uint64_t)1 << 63);
  int i;
  for (i = 7; i >= 0; --i, u >>= 8)
    out[i] = (unsigned char)(u & 0xff);
}

static void hex(const void* data, size_t size, char* out) {
  static const char digits[] = "0123456789abcdef";
  const unsigned char* p = data;
  size_t i;
  for (i = 0; i < size; ++i) {
    out[2 * i] = digits[p[i] >> 4];
    out[2 * i + 1] = digits[p[i] & 15];
  }
  out[2 * size] = 0;
}

/* What a shard holds of a table, for the manifest. */
typedef struct shard_table {
  uint64_t rows;
  char first[40], last[40]; /* hex */
} shard_table;
typedef struct shard_desc {
  uint64_t bytes, xxh3;
  shard_table tables[DS_TABLES];
} shard_desc;

static void note_row(shard_table* t, const void* encoded, size_t size) {
  if (t->rows == 0) hex(encoded, size, t->first);
  hex(encoded, size, t->last); /* rows come in key order */
  ++t->rows;
}

static int nums_rows(int generation) {
  return generation == 1 ? NUM_ROWS : NUM_ROWS + 1;
}

static void ds_item_value(int generation, const char* key, char* out, size_t cap) {
  char v[32];
  item_value(key, v, sizeof v);
  if (generation == 1)
    snprintf(out, cap, "%s", v);
  else
    snprintf(out, cap, "g%d-%s", generation, v);
}

static void ds_num_value(int generation, int64_t n, char* out, size_t cap) {
  if (generation == 1)
    snprintf(out, cap, "n%d", (int)n);
  else
    snprintf(out, cap, "g%d-n%d", generation, (int)n);
}

static uint32_t hashed_shard(const char* key) {
  return (uint32_t)(XXH3_64bits(key, strlen(key)) % DS_SHARDS);
}

static const unsigned char item_splits[2][8] = {"key0100", "key0200"};
static const size_t item_split_sizes[2] = {7, 7};
/* -1000 and 0, encoded. */
static const unsigned char num_splits[2][8] = {{0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfc, 0x18},
                                               {0x80, 0, 0, 0, 0, 0, 0, 0}};
static const size_t num_split_sizes[2] = {8, 8};

static void write_text(const char* path, const char* tmp, const char* text) {
  FILE* f = fopen(tmp, "wb");
  CHECK(f != NULL);
  if (f == NULL) return;
  CHECK(fputs(text, f) >= 0);
  CHECK(fclose(f) == 0);
#if defined(_WIN32)
  /* The C runtime's rename does not replace an existing file on Windows. */
  CHECK(MoveFileExA(tmp, path, MOVEFILE_REPLACE_EXISTING) != 0);
#else
  CHECK(rename(tmp, path) == 0);
#endif
}

static void make_folder(const char* path) {
#if defined(_WIN32)
  CHECK(_mkdir(path) == 0 || errno == EEXIST);
#else
  CHECK(mkdir(path, 0755) == 0 || errno == EEXIST);
#endif
}

/* Builds generation `generation`'s shards into DIR/ds/gen-N and describes them. */
static void build_shards(const char* dir, int generation, shard_desc* shards) {
  char path[4096];
  int s, i;
  {
    unsigned char enc[8];
    encode_int64(-1000, enc);
    CHECK(memcmp(enc, num_splits[0], 8) == 0);
  }
  snprintf(path, sizeof path, "%s/ds", dir);
  make_folder(path);
  snprintf(path, sizeof path, "%s/ds/gen-%d", dir, generation);
  make_folder(path);
  memset(shards, 0, sizeof(shard_desc) * DS_SHARDS);
  for (s = 0; s < DS_SHARDS; ++s) {
    drydb_builder* b = NULL;
    drydb_table_builder *items, *nums, *hashed;
    unsigned char* bytes;
    size_t size = 0;
    CHECK_RC(drydb_builder_create(512, &b), DRYDB_OK);
    CHECK_RC(drydb_builder_create_table(b, "items", 5, DRYDB_KEY_BYTES, &items), DRYDB_OK);
    CHECK_RC(drydb_builder_create_table(b, "nums", 4, DRYDB_KEY_INT64, &nums), DRYDB_OK);
    CHECK_RC(drydb_builder_create_table(b, "hashed", 6, DRYDB_KEY_BYTES, &hashed), DRYDB_OK);
    for (i = 0; i < ITEM_ROWS; ++i) {
      const char* key = item_keys[i];
      drydb_key k = drydb_key_bytes(key, strlen(key));
      char value[48];
      if (range_shard(key, strlen(key), item_splits, item_split_sizes) != (uint32_t)s) continue;
      note_row(&shards[s].tables[0], key, strlen(key));
      if (strcmp(key, "big") == 0) {
        CHECK_RC(drydb_table_builder_append(items, &k, big_value, BIG_SIZE), DRYDB_OK);
      } else if (strcmp(key, "empty") == 0) {
        CHECK_RC(drydb_table_builder_append(items, &k, NULL, 0), DRYDB_OK);
      } else {
        ds_item_value(generation, key, value, sizeof value);
        if (drydb_table_builder_append(items, &k, value, strlen(value)) != DRYDB_OK) CHECK(0);
      }
    }
    for (i = 0; i < nums_rows(generation); ++i) {
      unsigned char enc[8];
      char value[48];
      drydb_key k = drydb_key_int64(i - 150);
      encode_int64(i - 150, enc);
      if (range_shard(enc, 8, num_splits, num_split_sizes) != (uint32_t)s) continue;
      note_row(&shards[s].tables[1], enc, 8);
      ds_num_value(generation, i - 150, value, sizeof value);
      if (drydb_table_builder_append(nums, &k, value, strlen(value)) != DRYDB_OK) CHECK(0);
    }
    for (i = 0; i < HASHED_ROWS; ++i) {
      char key[8], value[16];
      drydb_key k;
      snprintf(key, sizeof key, "h%03d", i);
      if (hashed_shard(key) != (uint32_t)s) continue;
      note_row(&shards[s].tables[2], key, 4);
      snprintf(value, sizeof value, "hv%d", i);
      k = drydb_key_bytes(key, 4);
      if (drydb_table_builder_append(hashed, &k, value, strlen(value)) != DRYDB_OK) CHECK(0);
    }
    snprintf(path, sizeof path, "%s/ds/gen-%d/shard-%05d.drydb", dir, generation, s);
    CHECK_RC(drydb_builder_build_to_file(b, path), DRYDB_OK);
    CHECK_RC(drydb_builder_release(b), DRYDB_OK);
    bytes = read_file(path, &size);
    CHECK(bytes != NULL);
    shards[s].bytes = size;
    shards[s].xxh3 = bytes != NULL ? XXH3_64bits(bytes, size) : 0;
    free(bytes);
  }
}

/* Writes DIR/ds/gen-N/manifest.json (version 1: no identities) for `shards`, by temp name and
 * rename. */
static void write_manifest(const char* dir, int generation, const shard_desc* shards) {
  static char json[16384];
  char path[4096], tmp[4096], a[40], b[40];
  size_t n = 0;
  int s, t;
  static const char* names[DS_TABLES] = {"items", "nums", "hashed"};
  static const char* encodings[DS_TABLES] = {"bytes", "int64", "bytes"};
  n += (size_t)snprintf(json + n, sizeof json - n,
                        "{\"format\": \"drydb-dataset\", \"version\": 1, \"dataset\": \"ds\", "
                        "\"generation\": %d, \"tables\": [",
                        generation);
  for (t = 0; t < DS_TABLES; ++t) {
    n += (size_t)snprintf(json + n, sizeof json - n,
                          "%s{\"name\": \"%s\", \"key_encoding\": \"%s\", \"indexes\": [], "
                          "\"partitioning\": ",
                          t ? ", " : "", names[t], encodings[t]);
    if (t == 2) {
      n += (size_t)snprintf(json + n, sizeof json - n,
                            "{\"function\": \"xxh3-64-mod-v1\", \"splits\": []}}");
      continue;
    }
    if (t == 0) {
      hex(item_splits[0], 7, a);
      hex(item_splits[1], 7, b);
    } else {
      hex(num_splits[0], 8, a);
      hex(num_splits[1], 8, b);
    }
    n += (size_t)snprintf(json + n, sizeof json - n,
                          "{\"function\": \"range-v1\", \"splits\": [\"%s\", \"%s\"]}}", a, b);
  }
  n += (size_t)snprintf(json + n, sizeof json - n, "], \"shards\": [");
  for (s = 0; s < DS_SHARDS; ++s) {
    n += (size_t)snprintf(json + n, sizeof json - n,
                          "%s\n{\"file\": \"shard-%05d.drydb\", \"bytes\": %llu, \"xxh3\": "
                          "\"%016llx\", \"tables\": [",
                          s ? "," : "", s, (unsigned long long)shards[s].bytes,
                          (unsigned long long)shards[s].xxh3);
    for (t = 0; t < DS_TABLES; ++t) {
      const shard_table* st = &shards[s].tables[t];
      if (st->rows == 0)
        n += (size_t)snprintf(json + n, sizeof json - n, "%s{\"rows\": 0}", t ? ", " : "");
      else
        n += (size_t)snprintf(json + n, sizeof json - n,
                              "%s{\"rows\": %llu, \"first\": \"%s\", \"last\": \"%s\"}",
                              t ? ", " : "", (unsigned long long)st->rows, st->first, st->last);
    }
    n += (size_t)snprintf(json + n, sizeof json - n, "]}");
  }
  n += (size_t)snprintf(json + n, sizeof json - n, "]}\n");
  CHECK(n < sizeof json);
  snprintf(path, sizeof path, "%s/ds/gen-%d/manifest.json", dir, generation);
  snprintf(tmp, sizeof tmp, "%s/ds/gen-%d/manifest.json.tmp", dir, generation);
  write_text(path, tmp, json);
}

/* Makes generation N live: HIGHEST, then CURRENT, each by temp name and rename. */
static void publish(const char* dir, int generation) {
  char path[4096], tmp[4096], text[32];
  snprintf(text, sizeof text, "%d\n", generation);
  snprintf(path, sizeof path, "%s/ds/HIGHEST", dir);
  snprintf(tmp, sizeof tmp, "%s/ds/HIGHEST.tmp", dir);
  write_text(path, tmp, text);
  snprintf(text, sizeof text, "gen-%d\n", generation);
  snprintf(path, sizeof path, "%s/ds/CURRENT", dir);
  snprintf(tmp, sizeof tmp, "%s/ds/CURRENT.tmp", dir);
  write_text(path, tmp, text);
}

static void write_generation(const char* dir, int generation) {
  shard_desc shards[DS_SHARDS];
  build_shards(dir, generation, shards);
  write_manifest(dir, generation, shards);
}

static const drydb_sharded_table* ds_table(const drydb_dataset* ds, const char* name) {
  const drydb_sharded_table* t = NULL;
  CHECK_RC(drydb_dataset_table(ds, name, strlen(name), &t), DRYDB_OK);
  return t;
}

/* Whether `key`'s value in `t` (through holder v) is `want`. */
static int ds_value_is(const drydb_sharded_table* t, drydb_value* v, const drydb_key* key,
                       const char* want) {
  const void* data = NULL;
  size_t size = 0;
  return drydb_sharded_table_get(t, key, v, &data, &size) == DRYDB_OK && size == strlen(want) &&
         memcmp(data, want, size) == 0;
}

/* A dataset opened on its CURRENT generation: tables, gets, copies, counts, ranges and
 * prefixes against the models, and the misuse a binding can commit. */
static void test_dataset(const char* dir, drydb_db* file_db) {
  char path[4096];
  drydb_dataset *ds = NULL, *other = NULL;
  const drydb_sharded_table *items, *nums, *hashed, *t = NULL;
  const drydb_table* file_items = table_named(file_db, "items");
  drydb_value *v = NULL, *v_other = NULL, *file_v = NULL;
  drydb_range *r = NULL, *file_r = NULL;
  tested_table tested_items, tested_nums, tested_hashed;
  model_row rows[HASHED_ROWS];
  drydb_key probes[9];
  static const char* hashed_probes[] = {"",     "h000", "h0005", "h050", "h100",
                                        "h150", "h199", "h1999", "z"};
  static char hashed_keys[HASHED_ROWS][8];
  uint64_t count = 0, generation = 0;
  uint32_t shards = 0, shard = 0;
  size_t tables = 0, size = 0;
  const void* data = NULL;
  int i;
  drydb_open_options options;

  snprintf(path, sizeof path, "%s/ds", dir);
  CHECK_RC(drydb_dataset_open(path, NULL, &ds), DRYDB_OK);
  if (ds == NULL) return;
  CHECK_RC(drydb_dataset_generation(ds, &generation), DRYDB_OK);
  CHECK(generation == 1);
  CHECK_RC(drydb_dataset_shard_count(ds, &shards), DRYDB_OK);
  CHECK(shards == DS_SHARDS);
  CHECK_RC(drydb_dataset_verify(ds), DRYDB_OK);

  /* Tables by position and name. */
  CHECK_RC(drydb_dataset_table_count(ds, &tables), DRYDB_OK);
  CHECK(tables == DS_TABLES);
  {
    static const char* names[DS_TABLES] = {"items", "nums", "hashed"};
    static const int32_t kinds[DS_TABLES] = {DRYDB_KEY_BYTES, DRYDB_KEY_INT64, DRYDB_KEY_BYTES};
    static const char* encodings[DS_TABLES] = {"bytes", "int64", "bytes"};
    static const uint64_t counts[DS_TABLES] = {ITEM_ROWS, NUM_ROWS, HASHED_ROWS};
    for (i = 0; i < DS_TABLES; ++i) {
      CHECK_RC(drydb_dataset_table_at(ds, (size_t)i, &t), DRYDB_OK);
      check_described((tested_table){SHARDED_TABLE, t}, names[i], kinds[i], encodings[i],
                      counts[i]);
      CHECK(ds_table(ds, names[i]) == t);
    }
  }
  CHECK_RC(drydb_dataset_table_at(ds, DS_TABLES, &t), DRYDB_INVALID_ARGUMENT);
  CHECK_MESSAGE("drydb_dataset_table_at: table index");
  CHECK(t == NULL);
  CHECK_RC(drydb_dataset_table(ds, "nope", 4, &t), DRYDB_NOT_FOUND);
  CHECK_MESSAGE("hashed"); /* the message lists the tables there are */
  CHECK(t == NULL);
  CHECK_RC(drydb_dataset_table(ds, NULL, 4, &t), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_dataset_table(ds, "items", 5, NULL), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_dataset_table(NULL, "items", 5, &t), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_dataset_table_at(NULL, 0, &t), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_dataset_table_at(ds, 0, NULL), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_dataset_table_count(NULL, &tables), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_dataset_table_count(ds, NULL), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_dataset_generation(NULL, &generation), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_dataset_generation(ds, NULL), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_dataset_shard_count(NULL, &shards), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_dataset_shard_count(ds, NULL), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_dataset_verify(NULL), DRYDB_INVALID_ARGUMENT);
  items = ds_table(ds, "items");
  nums = ds_table(ds, "nums");
  hashed = ds_table(ds, "hashed");
  tested_items.kind = tested_nums.kind = tested_hashed.kind = SHARDED_TABLE;
  tested_items.handle = items;
  tested_nums.handle = nums;
  tested_hashed.handle = hashed;

  /* Wrong kinds: a database for a dataset, a file's table for a sharded one, and back. */
  CHECK_RC(drydb_dataset_table_count((const drydb_dataset*)(const void*)file_db, &tables),
           DRYDB_INVALID_ARGUMENT);
  CHECK_MESSAGE("not a drydb dataset handle");
  CHECK_RC(drydb_sharded_table_count((const drydb_sharded_table*)(const void*)file_items, &count),
           DRYDB_INVALID_ARGUMENT);
  CHECK_MESSAGE("not a drydb sharded table handle");
  CHECK_RC(drydb_table_count((const drydb_table*)(const void*)items, &count),
           DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_db_close((drydb_db*)(void*)ds), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_dataset_close((drydb_dataset*)(void*)file_db), DRYDB_INVALID_ARGUMENT);

  /* The shard of a key. */
  {
    drydb_key k = drydb_key_bytes("big", 3);
    CHECK_RC(drydb_sharded_table_shard_of(items, &k, &shard), DRYDB_OK);
    CHECK(shard == 0);
    k = drydb_key_bytes("key0100", 7);
    CHECK_RC(drydb_sharded_table_shard_of(items, &k, &shard), DRYDB_OK);
    CHECK(shard == 1);
    k = drydb_key_bytes("zzz", 3);
    CHECK_RC(drydb_sharded_table_shard_of(items, &k, &shard), DRYDB_OK);
    CHECK(shard == 2);
    k = drydb_key_int64(-2000);
    CHECK_RC(drydb_sharded_table_shard_of(nums, &k, &shard), DRYDB_OK);
    CHECK(shard == 0);
    k = drydb_key_int64(-1);
    CHECK_RC(drydb_sharded_table_shard_of(nums, &k, &shard), DRYDB_OK);
    CHECK(shard == 1);
    k = drydb_key_int64(0);
    CHECK_RC(drydb_sharded_table_shard_of(nums, &k, &shard), DRYDB_OK);
    CHECK(shard == 2);
    for (i = 0; i < HASHED_ROWS; i += 37) {
      char key[8];
      snprintf(key, sizeof key, "h%03d", i);
      k = drydb_key_bytes(key, 4);
      CHECK_RC(drydb_sharded_table_shard_of(hashed, &k, &shard), DRYDB_OK);
      CHECK(shard == hashed_shard(key));
    }
    CHECK_RC(drydb_sharded_table_shard_of(items, &k, NULL), DRYDB_INVALID_ARGUMENT);
    CHECK_RC(drydb_sharded_table_shard_of(NULL, &k, &shard), DRYDB_INVALID_ARGUMENT);
    CHECK_RC(drydb_sharded_table_shard_of(items, NULL, &shard), DRYDB_INVALID_ARGUMENT);
    k = drydb_key_int64(5);
    CHECK_RC(drydb_sharded_table_shard_of(items, &k, &shard), DRYDB_WRONG_KEY_TYPE);
  }

  /* Gets: every row of every table, zero-copy and copied, and absent keys. */
  CHECK_RC(drydb_dataset_value_create(NULL, &v), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_dataset_value_create(ds, NULL), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_dataset_value_create(ds, &v), DRYDB_OK);
  {
    int all = 1;
    char want[48], buf[64];
    for (i = 0; i < ITEM_ROWS; ++i) {
      const char* key = item_keys[i];
      drydb_key k = drydb_key_bytes(key, strlen(key));
      if (strcmp(key, "big") == 0) {
        all = all && drydb_sharded_table_get(items, &k, v, &data, &size) == DRYDB_OK &&
              size == BIG_SIZE && memcmp(data, big_value, BIG_SIZE) == 0;
        continue;
      }
      if (strcmp(key, "empty") == 0) {
        all = all && drydb_sharded_table_get(items, &k, v, &data, &size) == DRYDB_OK && size == 0;
        continue;
      }
      ds_item_value(1, key, want, sizeof want);
      all = all && ds_value_is(items, v, &k, want) &&
            drydb_sharded_table_get_copy(items, &k, buf, sizeof buf, &size) == DRYDB_OK &&
            size == strlen(want) && memcmp(buf, want, size) == 0;
    }
    for (i = 0; i < NUM_ROWS; ++i) {
      drydb_key k = drydb_key_int64(i - 150);
      ds_num_value(1, i - 150, want, sizeof want);
      all = all && ds_value_is(nums, v, &k, want);
    }
    for (i = 0; i < HASHED_ROWS; ++i) {
      char key[8];
      drydb_key k;
      snprintf(key, sizeof key, "h%03d", i);
      snprintf(want, sizeof want, "hv%d", i);
      k = drydb_key_bytes(key, 4);
      all = all && ds_value_is(hashed, v, &k, want);
    }
    CHECK(all);
  }
  {
    drydb_key absent = drydb_key_bytes("key0150x", 8), k = drydb_key_bytes("key0007", 7);
    drydb_key n = drydb_key_int64(-1000), wrong = drydb_key_int64(7);
    char buf[8];
    data = buf;
    size = 99;
    CHECK_RC(drydb_sharded_table_get(items, &absent, v, &data, &size), DRYDB_END);
    CHECK(data == NULL && size == 0);
    CHECK_RC(drydb_sharded_table_get(nums, &n, v, &data, &size), DRYDB_END); /* empty shard 0 */
    CHECK_RC(drydb_sharded_table_get(items, &k, v, NULL, NULL), DRYDB_OK);
    CHECK_RC(drydb_sharded_table_get(items, &wrong, v, &data, &size), DRYDB_WRONG_KEY_TYPE);
    CHECK_RC(drydb_sharded_table_get(items, NULL, v, &data, &size), DRYDB_INVALID_ARGUMENT);
    CHECK_RC(drydb_sharded_table_get(NULL, &k, v, &data, &size), DRYDB_INVALID_ARGUMENT);
    CHECK_RC(drydb_sharded_table_get(items, &k, NULL, &data, &size), DRYDB_INVALID_ARGUMENT);
    /* A database's holder, and a database's table with a dataset's holder. */
    CHECK_RC(drydb_value_create(file_db, &file_v), DRYDB_OK);
    CHECK_RC(drydb_sharded_table_get(items, &k, file_v, &data, &size), DRYDB_INVALID_ARGUMENT);
    CHECK_MESSAGE("another dataset");
    CHECK_RC(drydb_table_get(file_items, &k, v, &data, &size), DRYDB_INVALID_ARGUMENT);
    CHECK_MESSAGE("another database");
    CHECK_RC(drydb_value_release(file_v), DRYDB_OK);
    /* A holder of another dataset (the same generation, opened again). */
    CHECK_RC(drydb_dataset_open(path, NULL, &other), DRYDB_OK);
    CHECK_RC(drydb_dataset_value_create(other, &v_other), DRYDB_OK);
    CHECK_RC(drydb_sharded_table_get(items, &k, v_other, &data, &size), DRYDB_INVALID_ARGUMENT);
    CHECK_RC(drydb_sharded_table_get(ds_table(other, "items"), &k, v_other, &data, &size),
             DRYDB_OK);
    CHECK(size == 6 && memcmp(data, "value7", 6) == 0);
    /* Close is refused while a holder lives; the holder's view stays readable. */
    CHECK_RC(drydb_dataset_close(other), DRYDB_INVALID_STATE);
    CHECK_MESSAGE("1 values or ranges");
    CHECK(size == 6 && memcmp(data, "value7", 6) == 0);
    CHECK_RC(drydb_value_reset(v_other), DRYDB_OK);
    CHECK_RC(drydb_value_release(v_other), DRYDB_OK);
    CHECK_RC(drydb_dataset_close(other), DRYDB_OK);

    /* Copies: exact, too small (untouched), a size query, absent. */
    memset(buf, '#', sizeof buf);
    CHECK_RC(drydb_sharded_table_get_copy(items, &k, buf, 6, &size), DRYDB_OK);
    CHECK(size == 6 && memcmp(buf, "value7##", 8) == 0);
    memset(buf, '#', sizeof buf);
    CHECK_RC(drydb_sharded_table_get_copy(items, &k, buf, 5, &size), DRYDB_BUFFER_TOO_SMALL);
    CHECK(size == 6 && buf[0] == '#');
    CHECK_MESSAGE("6 bytes");
    CHECK_RC(drydb_sharded_table_get_copy(items, &k, NULL, 0, &size), DRYDB_BUFFER_TOO_SMALL);
    CHECK(size == 6);
    CHECK_RC(drydb_sharded_table_get_copy(items, &absent, buf, sizeof buf, &size), DRYDB_END);
    CHECK(size == 0);
    CHECK_RC(drydb_sharded_table_get_copy(items, &k, NULL, 8, &size), DRYDB_INVALID_ARGUMENT);
    CHECK_RC(drydb_sharded_table_get_copy(items, &k, buf, 8, NULL), DRYDB_INVALID_ARGUMENT);
    CHECK_RC(drydb_sharded_table_get_copy(NULL, &k, buf, 8, &size), DRYDB_INVALID_ARGUMENT);
    CHECK_RC(drydb_sharded_table_get_copy(items, &wrong, buf, 8, &size), DRYDB_WRONG_KEY_TYPE);
  }

  /* count_range and ranges, both orders, every bound kind, against the models. */
  CHECK_RC(drydb_dataset_range_create(NULL, &r), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_dataset_range_create(ds, NULL), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_dataset_range_create(ds, &r), DRYDB_OK);
  check_item_and_num_bounds(tested_items, tested_nums, r);
  for (i = 0; i < HASHED_ROWS; ++i) {
    snprintf(hashed_keys[i], sizeof hashed_keys[i], "h%03d", i);
    rows[i].key = drydb_key_bytes(hashed_keys[i], 4);
    rows[i].pk = NULL;
  }
  for (i = 0; i < 9; ++i)
    probes[i] = drydb_key_bytes(hashed_probes[i], strlen(hashed_probes[i]));
  check_bounds(tested_hashed, r, rows, HASHED_ROWS, probes, 9, cmp_bytes_keys);

  /* A range's values across shards (the overflow one included) and a rewind. */
  {
    drydb_bound s, e;
    const void *key, *value;
    size_t key_size, value_size;
    char want[48];
    int n = 0, ok = 1;
    s.kind = DRYDB_EXCLUSIVE;
    s.key = drydb_key_bytes("key0098", 7);
    e.kind = DRYDB_INCLUSIVE;
    e.key = drydb_key_bytes("key0201", 7);
    CHECK_RC(drydb_sharded_table_range(items, &s, &e, DRYDB_ASCENDING, r), DRYDB_OK);
    CHECK_RC(drydb_range_count(r, &count), DRYDB_OK);
    CHECK(count == 103);
    while (drydb_range_next(r, &key, &key_size, &value, &value_size) == DRYDB_OK) {
      char k[16];
      snprintf(k, sizeof k, "key%04d", 99 + n);
      ds_item_value(1, k, want, sizeof want);
      ok = ok && key_size == 7 && memcmp(key, k, 7) == 0 && value_size == strlen(want) &&
           memcmp(value, want, value_size) == 0;
      ++n;
    }
    CHECK(ok && n == 103);
    CHECK_RC(drydb_range_next(r, &key, &key_size, &value, &value_size), DRYDB_END);
    CHECK_RC(drydb_range_rewind(r), DRYDB_OK);
    CHECK_RC(drydb_range_next(r, &key, &key_size, NULL, NULL), DRYDB_OK);
    CHECK(key_size == 7 && memcmp(key, "key0099", 7) == 0);
    /* Not an index query's range. */
    CHECK_RC(drydb_range_index_key(r, &key, &key_size), DRYDB_INVALID_STATE);
    s.kind = DRYDB_INCLUSIVE;
    s.key = drydb_key_bytes("big", 3);
    CHECK_RC(drydb_sharded_table_range(items, &s, NULL, DRYDB_ASCENDING, r), DRYDB_OK);
    CHECK_RC(drydb_range_next(r, &key, &key_size, &value, &value_size), DRYDB_OK);
    CHECK(key_size == 3 && value_size == BIG_SIZE && memcmp(value, big_value, BIG_SIZE) == 0);
    CHECK_RC(drydb_range_next(r, &key, &key_size, &value, &value_size), DRYDB_OK);
    CHECK(key_size == 5 && value_size == 0);

    /* Bad bounds, orders, holders. */
    check_bad_bounds(tested_items, r, s, &e, ITEM_ROWS);
    CHECK_RC(drydb_range_create(file_db, &file_r), DRYDB_OK);
    CHECK_RC(drydb_sharded_table_range(items, NULL, NULL, DRYDB_ASCENDING, file_r),
             DRYDB_INVALID_ARGUMENT);
    CHECK_MESSAGE("another dataset");
    CHECK_RC(drydb_sharded_table_prefix(items, "k", 1, DRYDB_ASCENDING, file_r),
             DRYDB_INVALID_ARGUMENT);
    CHECK_RC(drydb_table_range(file_items, NULL, NULL, DRYDB_ASCENDING, r), DRYDB_INVALID_ARGUMENT);
    CHECK_MESSAGE("another database");
    CHECK_RC(drydb_range_release(file_r), DRYDB_OK);
  }

  /* Prefixes: within a shard, across the three, merged from hashed shards. */
  check_prefix(tested_items, r, "key01", 100);
  check_prefix(tested_items, r, "key0", 300);
  check_prefix(tested_items, r, "", ITEM_ROWS);
  check_prefix(tested_hashed, r, "h1", 100);
  check_prefix(tested_hashed, r, "h05", 10);
  check_prefix_errors(tested_items, tested_nums, r); /* "zz" too */

  /* Close: refused while a holder lives, then the dataset and its tables are released. */
  CHECK_RC(drydb_dataset_close(ds), DRYDB_INVALID_STATE);
  CHECK_MESSAGE("2 values or ranges");
  CHECK_RC(drydb_range_release(r), DRYDB_OK);
  CHECK_RC(drydb_range_release(r), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_dataset_close(ds), DRYDB_INVALID_STATE);
  CHECK_RC(drydb_value_release(v), DRYDB_OK);
  CHECK_RC(drydb_value_release(v), DRYDB_INVALID_ARGUMENT);
  CHECK_MESSAGE("released");
  CHECK_RC(drydb_dataset_close(ds), DRYDB_OK);
  CHECK_RC(drydb_dataset_close(ds), DRYDB_INVALID_ARGUMENT);
  CHECK_MESSAGE("dataset has been released");
  CHECK_RC(drydb_sharded_table_count(items, &count), DRYDB_INVALID_ARGUMENT);
  CHECK_MESSAGE("sharded table has been released");
  CHECK_RC(drydb_dataset_value_create(ds, &v), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_dataset_range_create(ds, &r), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_dataset_close(NULL), DRYDB_INVALID_ARGUMENT);

  /* Other ways in: a generation's folder, its manifest, each storage. */
  memset(&options, 0, sizeof options);
  for (i = DRYDB_STORAGE_MMAP; i <= DRYDB_STORAGE_MEMORY; ++i) {
    drydb_key k = drydb_key_bytes("key0250", 7);
    options.storage = i;
    options.page_cache_bytes = i == DRYDB_STORAGE_PREAD ? 4096 : 0; /* a tiny cache */
    snprintf(path, sizeof path,
             i == DRYDB_STORAGE_MEMORY ? "%s/ds/gen-1/manifest.json" : "%s/ds/gen-1", dir);
    CHECK_RC(drydb_dataset_open(path, &options, &ds), DRYDB_OK);
    if (ds == NULL) continue;
    CHECK_RC(drydb_dataset_generation(ds, &generation), DRYDB_OK);
    CHECK(generation == 1);
    CHECK_RC(drydb_dataset_value_create(ds, &v), DRYDB_OK);
    CHECK(ds_value_is(ds_table(ds, "items"), v, &k, "value250"));
    CHECK_RC(drydb_value_release(v), DRYDB_OK);
    CHECK_RC(drydb_dataset_close(ds), DRYDB_OK);
  }

  /* Open's errors. */
  ds = (drydb_dataset*)(void*)&ds; /* not NULL: open must clear it on failure */
  options.storage = 3;
  snprintf(path, sizeof path, "%s/ds", dir);
  CHECK_RC(drydb_dataset_open(path, &options, &ds), DRYDB_INVALID_ARGUMENT);
  CHECK_MESSAGE("storage");
  CHECK(ds == NULL);
  CHECK_RC(drydb_dataset_open(NULL, NULL, &ds), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_dataset_open(path, NULL, NULL), DRYDB_INVALID_ARGUMENT);
  snprintf(path, sizeof path, "%s/no-dataset", dir);
  CHECK_RC(drydb_dataset_open(path, NULL, &ds), DRYDB_IO_ERROR);
  CHECK_MESSAGE("no-dataset");
  CHECK(ds == NULL);
  snprintf(path, sizeof path, "%s/empty-dataset", dir);
  make_folder(path);
  CHECK_RC(drydb_dataset_open(path, NULL, &ds), DRYDB_NOT_FOUND);
  CHECK(ds == NULL);
}

/* Following CURRENT: pins answer from the generation served when they were taken, and keep it
 * (views, tables, a walk under way) across refreshes; new pins see the new generation. */
static void test_live_dataset(const char* dir) {
  char path[4096];
  drydb_live_dataset* live = NULL;
  drydb_dataset *pin1 = NULL, *pin2 = NULL, *fixed = NULL;
  drydb_value *v1 = NULL, *v2 = NULL;
  drydb_range* r1 = NULL;
  const drydb_sharded_table* items1 = NULL;
  uint64_t generation = 0, count = 0;
  size_t retired = 99;
  int swapped = -1, i, n, ok;
  drydb_key k7 = drydb_key_bytes("key0007", 7);
  const void *data = NULL, *key, *value;
  size_t size = 0, key_size, value_size;
  drydb_open_options memory;

  memset(&memory, 0, sizeof memory);
  snprintf(path, sizeof path, "%s/ds/gen-1", dir);
  live = (drydb_live_dataset*)(void*)&live;
  CHECK_RC(drydb_live_dataset_open(path, NULL, &live), DRYDB_INVALID_ARGUMENT);
  CHECK(live == NULL);
  CHECK_MESSAGE("CURRENT");
  snprintf(path, sizeof path, "%s/ds", dir);
  CHECK_RC(drydb_live_dataset_open(NULL, NULL, &live), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_live_dataset_open(path, NULL, NULL), DRYDB_INVALID_ARGUMENT);
  {
    drydb_open_options bad;
    memset(&bad, 0, sizeof bad);
    bad.storage = 7;
    CHECK_RC(drydb_live_dataset_open(path, &bad, &live), DRYDB_INVALID_ARGUMENT);
  }
  /* Shards read whole into memory: a generation released while a pin still viewed it would be
   * a use of freed heap memory, which the sanitizer builds report. */
  memory.storage = DRYDB_STORAGE_MEMORY;
  CHECK_RC(drydb_live_dataset_open(path, &memory, &live), DRYDB_OK);
  if (live == NULL) return;
  CHECK_RC(drydb_dataset_open(path, NULL, &fixed), DRYDB_OK);
  CHECK_RC(drydb_live_dataset_generation(live, &generation), DRYDB_OK);
  CHECK(generation == 1);
  CHECK_RC(drydb_live_dataset_refresh(live, &swapped), DRYDB_OK); /* CURRENT unchanged */
  CHECK(swapped == 0);
  CHECK_RC(drydb_live_dataset_refresh(live, NULL), DRYDB_OK);

  /* Pins opened and closed many times reuse their readers; several may be open at once. */
  for (i = 0; i < 200; ++i) {
    drydb_dataset* p = NULL;
    if (drydb_live_dataset_pin(live, &p) != DRYDB_OK || drydb_dataset_close(p) != DRYDB_OK)
      CHECK(0);
  }

  /* Pin generation 1; hold a value view and a walk half done. */
  CHECK_RC(drydb_live_dataset_pin(live, &pin1), DRYDB_OK);
  if (pin1 == NULL) return;
  CHECK_RC(drydb_dataset_generation(pin1, &generation), DRYDB_OK);
  CHECK(generation == 1);
  items1 = ds_table(pin1, "items");
  CHECK_RC(drydb_dataset_value_create(pin1, &v1), DRYDB_OK);
  CHECK_RC(drydb_sharded_table_get(items1, &k7, v1, &data, &size), DRYDB_OK);
  CHECK(size == 6 && memcmp(data, "value7", 6) == 0);
  CHECK_RC(drydb_dataset_range_create(pin1, &r1), DRYDB_OK);
  CHECK_RC(drydb_sharded_table_range(items1, NULL, NULL, DRYDB_ASCENDING, r1), DRYDB_OK);
  for (i = 0; i < 10; ++i)
    CHECK_RC(drydb_range_next(r1, NULL, NULL, NULL, NULL), DRYDB_OK);

  /* Generation 2 is published: nothing changes until a refresh. */
  write_generation(dir, 2);
  publish(dir, 2);
  CHECK_RC(drydb_live_dataset_generation(live, &generation), DRYDB_OK);
  CHECK(generation == 1);
  CHECK_RC(drydb_live_dataset_pin(live, &pin2), DRYDB_OK);
  CHECK_RC(drydb_dataset_generation(pin2, &generation), DRYDB_OK);
  CHECK(generation == 1);
  CHECK_RC(drydb_dataset_close(pin2), DRYDB_OK);

  CHECK_RC(drydb_live_dataset_refresh(live, &swapped), DRYDB_OK);
  CHECK(swapped == 1);
  CHECK_RC(drydb_live_dataset_generation(live, &generation), DRYDB_OK);
  CHECK(generation == 2);
  CHECK_RC(drydb_live_dataset_retired(live, &retired), DRYDB_OK);
  CHECK(retired == 1); /* generation 1, which pin1 holds */

  /* The old pin still answers from generation 1: its held view, new gets, the walk under way. */
  CHECK(size == 6 && memcmp(data, "value7", 6) == 0);
  CHECK_RC(drydb_dataset_generation(pin1, &generation), DRYDB_OK);
  CHECK(generation == 1);
  CHECK(ds_value_is(items1, v1, &k7, "value7"));
  CHECK_RC(drydb_sharded_table_count(ds_table(pin1, "nums"), &count), DRYDB_OK);
  CHECK(count == NUM_ROWS);
  n = 10;
  ok = 1;
  while (drydb_range_next(r1, &key, &key_size, &value, &value_size) == DRYDB_OK) {
    char k[16], want[48];
    memcpy(k, key, key_size < 15 ? key_size : 15);
    k[key_size < 15 ? key_size : 15] = 0;
    ok = ok && strcmp(k, item_keys[n]) == 0;
    if (strncmp(k, "key", 3) == 0) {
      ds_item_value(1, k, want, sizeof want);
      ok = ok && value_size == strlen(want) && memcmp(value, want, value_size) == 0;
    }
    ++n;
  }
  CHECK(ok && n == ITEM_ROWS);
  /* So does a dataset opened on the folder before the publish. */
  CHECK_RC(drydb_dataset_generation(fixed, &generation), DRYDB_OK);
  CHECK(generation == 1);
  CHECK_RC(drydb_dataset_value_create(fixed, &v2), DRYDB_OK);
  CHECK(ds_value_is(ds_table(fixed, "items"), v2, &k7, "value7"));
  CHECK_RC(drydb_value_release(v2), DRYDB_OK);
  CHECK_RC(drydb_dataset_close(fixed), DRYDB_OK);

  /* A new pin sees generation 2. */
  CHECK_RC(drydb_live_dataset_pin(live, &pin2), DRYDB_OK);
  CHECK_RC(drydb_dataset_generation(pin2, &generation), DRYDB_OK);
  CHECK(generation == 2);
  CHECK_RC(drydb_dataset_value_create(pin2, &v2), DRYDB_OK);
  CHECK(ds_value_is(ds_table(pin2, "items"), v2, &k7, "g2-value7"));
  {
    drydb_key k150 = drydb_key_int64(150);
    CHECK(ds_value_is(ds_table(pin2, "nums"), v2, &k150, "g2-n150"));
    CHECK_RC(drydb_sharded_table_get(ds_table(pin1, "nums"), &k150, v1, &data, &size), DRYDB_END);
  }
  CHECK_RC(drydb_sharded_table_count(ds_table(pin2, "nums"), &count), DRYDB_OK);
  CHECK(count == NUM_ROWS + 1);
  /* Each pin's holders are its own. */
  CHECK_RC(drydb_sharded_table_get(items1, &k7, v2, &data, &size), DRYDB_INVALID_ARGUMENT);

  /* The live dataset cannot close while pins are open; a pin not while its holders live. */
  CHECK_RC(drydb_live_dataset_close(live), DRYDB_INVALID_STATE);
  CHECK_MESSAGE("2 pinned datasets");
  CHECK_RC(drydb_dataset_close(pin1), DRYDB_INVALID_STATE);
  CHECK_RC(drydb_value_release(v1), DRYDB_OK);
  CHECK_RC(drydb_range_release(r1), DRYDB_OK);
  CHECK_RC(drydb_dataset_close(pin1), DRYDB_OK);
  CHECK_RC(drydb_sharded_table_count(items1, &count), DRYDB_INVALID_ARGUMENT);
  /* Generation 1 is released by the next refresh, now that no pin holds it. */
  CHECK_RC(drydb_live_dataset_retired(live, &retired), DRYDB_OK);
  CHECK(retired == 1);
  CHECK_RC(drydb_live_dataset_refresh(live, &swapped), DRYDB_OK);
  CHECK(swapped == 0);
  CHECK_RC(drydb_live_dataset_retired(live, &retired), DRYDB_OK);
  CHECK(retired == 0);

  /* A generation that does not open (its shards missing) is not swapped in. */
  {
    shard_desc shards[DS_SHARDS];
    memset(shards, 0, sizeof shards);
    snprintf(path, sizeof path, "%s/ds/gen-3", dir);
    make_folder(path);
    for (i = 0; i < DS_SHARDS; ++i) { /* a manifest whose shard files are not there */
      int t;
      shards[i].bytes = 4096;
      for (t = 0; t < DS_TABLES; ++t)
        shards[i].tables[t].rows = 0;
    }
    write_manifest(dir, 3, shards);
    publish(dir, 3);
    swapped = -1;
    CHECK_RC(drydb_live_dataset_refresh(live, &swapped), DRYDB_IO_ERROR);
    CHECK_MESSAGE("shard-00000.drydb");
    CHECK(swapped == 0);
    CHECK_RC(drydb_live_dataset_generation(live, &generation), DRYDB_OK);
    CHECK(generation == 2);
    CHECK(ds_value_is(ds_table(pin2, "items"), v2, &k7, "g2-value7"));
    CHECK_RC(drydb_live_dataset_pin(live, &pin1), DRYDB_OK);
    CHECK_RC(drydb_dataset_generation(pin1, &generation), DRYDB_OK);
    CHECK(generation == 2);
    CHECK_RC(drydb_dataset_close(pin1), DRYDB_OK);
    publish(dir, 2); /* back to a generation that opens */
  }

  /* Misuse. */
  CHECK_RC(drydb_live_dataset_refresh(NULL, &swapped), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_live_dataset_generation(NULL, &generation), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_live_dataset_generation(live, NULL), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_live_dataset_retired(NULL, &retired), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_live_dataset_retired(live, NULL), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_live_dataset_pin(NULL, &pin1), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_live_dataset_pin(live, NULL), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_live_dataset_pin((drydb_live_dataset*)(void*)pin2, &pin1), DRYDB_INVALID_ARGUMENT);
  CHECK_MESSAGE("not a drydb live dataset handle");
  CHECK_RC(drydb_dataset_close((drydb_dataset*)(void*)live), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_live_dataset_close(NULL), DRYDB_INVALID_ARGUMENT);

  CHECK_RC(drydb_value_release(v2), DRYDB_OK);
  CHECK_RC(drydb_dataset_close(pin2), DRYDB_OK);
  CHECK_RC(drydb_live_dataset_close(live), DRYDB_OK);
  CHECK_RC(drydb_live_dataset_close(live), DRYDB_INVALID_ARGUMENT);
  CHECK_MESSAGE("live dataset has been released");
  CHECK_RC(drydb_live_dataset_pin(live, &pin1), DRYDB_INVALID_ARGUMENT);
  CHECK_RC(drydb_live_dataset_refresh(live, &swapped), DRYDB_INVALID_ARGUMENT);
}

static void test_datasets(const char* dir, drydb_db* file_db) {
  write_generation(dir, 1);
  publish(dir, 1);
  test_dataset(dir, file_db);
  test_live_dataset(dir);
}

#else /* !DRYDB_TEST_DATASETS */

/* Built without drydb::dataset: the functions are there and say so. */
static void test_datasets(const char* dir, drydb_db* file_db) {
  drydb_dataset* ds = NULL;
  drydb_live_dataset* live = NULL;
  (void)file_db;
  CHECK_RC(drydb_dataset_open(dir, NULL, &ds), DRYDB_INVALID_STATE);
  CHECK_MESSAGE("without sharded datasets");
  CHECK_RC(drydb_live_dataset_open(dir, NULL, &live), DRYDB_INVALID_STATE);
  CHECK_RC(drydb_dataset_close(ds), DRYDB_INVALID_STATE);
}

#endif /* DRYDB_TEST_DATASETS */

int main(int argc, char** argv) {
  const char* dir = argc > 1 ? argv[1] : ".";
  char path[4096];
  drydb_builder* b;
  void* memory = NULL;
  size_t memory_size = 0;
  drydb_db *db = NULL, *other = NULL;

  make_model();
  test_statuses();
  test_builder_errors(dir);

  snprintf(path, sizeof path, "%s/capi_test.drydb", dir);
  b = make_builder();
  CHECK_RC(drydb_builder_build_to_file(b, path), DRYDB_OK);
  CHECK_RC(drydb_builder_release(b), DRYDB_OK);
  b = make_builder();
  CHECK_RC(drydb_builder_build_to_memory(b, &memory, &memory_size), DRYDB_OK);
  CHECK_RC(drydb_builder_release(b), DRYDB_OK);

  CHECK_RC(drydb_db_open(path, NULL, &db), DRYDB_OK);
  CHECK_RC(drydb_db_open_memory(memory, memory_size, NULL, &other), DRYDB_OK);
  if (db != NULL && other != NULL) {
    test_tables(db);
    test_get(db, other);
    test_ranges(db);
    test_cursors(db);
    test_indexes(db, other);
    test_get_many(db, other);
    test_datasets(dir, db);
  }
  CHECK_RC(drydb_db_close(other), DRYDB_OK);
  CHECK_RC(drydb_db_close(db), DRYDB_OK);

  test_range_batches(dir);
  test_open_and_close(path, memory, memory_size);
  test_get_many_pinned(path);
  test_index_builder_errors();
  test_release_during_build(dir);
  test_names_with_a_nul();
  test_builder_options(dir);
  test_bad_files(dir, path);
  drydb_free(memory);

  printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
