/* drydb's C API: the stable surface every foreign binding (C#, Rust, Go, Node) stands on.
 *
 * Pure C11; includes no C++ header. Library: drydb::c (libdrydb_c.so; drydb_c.dll on Windows),
 * or libdrydb_c.a with the C++ runtime and drydb's own dependencies linked by the caller.
 * docs/c-api.md is the guide; this header is the reference.
 *
 *   drydb_db* db;
 *   if (drydb_db_open("items.drydb", NULL, &db) != DRYDB_OK) puts(drydb_last_error_message());
 *   const drydb_table* items;
 *   drydb_db_table(db, "items", 5, &items);
 *   drydb_key key = drydb_key_bytes("key1", 4);
 *   char buf[64]; size_t size;
 *   int rc = drydb_table_get_copy(items, &key, buf, sizeof buf, &size);  // 0, DRYDB_END or error
 *   drydb_db_close(db);
 *
 * Statuses. Every function returns an int: DRYDB_OK (0); DRYDB_END (-1), which is not an error but
 * "no row" (an absent key, a cursor or range past its end); or an error: the drydb::errc values of
 * drydb/error.h with the same numbers (DRYDB_INVALID_ARGUMENT .. DRYDB_INVALID_STATE), plus
 * DRYDB_BUFFER_TOO_SMALL, which only this API returns. An error also sets this thread's last-error
 * message (drydb_last_error_message). Nothing throws or aborts across the API, with one exception
 * stated honestly: in a build of drydb with -fno-exceptions (DRYDB_NO_EXCEPTIONS) a failed
 * allocation terminates the process, as it does in the C++ library; built with exceptions (the
 * default) it is DRYDB_OUT_OF_MEMORY.
 *
 * Handles. drydb_db, drydb_table, drydb_index, drydb_value, drydb_value_batch, drydb_cursor,
 * drydb_range, drydb_dataset, drydb_sharded_table, drydb_live_dataset, drydb_builder and
 * drydb_table_builder are opaque. A NULL handle, or one of the wrong kind, is
 * DRYDB_INVALID_ARGUMENT. A released handle must not be used again; drydb keeps the memory of
 * released handles (it is never returned to the system, and is reused only after at least 64
 * later releases of that kind), so a released handle passed again is reported as
 * DRYDB_INVALID_ARGUMENT ("... has been released") rather than read as freed memory, until its
 * memory is handed out again, when it may alias the newer handle. Treat that as a diagnostic,
 * not a licence.
 *
 * Lifetimes, LMDB-style: a pointer returned through an out parameter is owned by drydb and lives
 * as long as the function's comment says (usually: until the handle it came from moves or is
 * released, or the database closes); the caller never frees it, except build_to_memory's bytes
 * (drydb_free). Tables and indexes are owned by their database. Values, value batches, cursors
 * and ranges are created on a database and must be released before it closes: drydb_db_close
 * refuses (DRYDB_INVALID_STATE) while any is live, so no view can outlive its pages. Datasets
 * follow the same rules (their tables owned by them; values and ranges made on one must be
 * released before drydb_dataset_close), and a live dataset's pins before it closes.
 *
 * Threads. A database, its tables and indexes may be queried from many threads at once, and
 * closed while they are (drydb_db_close waits for the calls in flight). A value, value batch,
 * cursor or range handle belongs to one thread at a time. A builder belongs to one thread, but
 * for drydb_builder_release, which may be called while a build runs on another thread: it is
 * refused then (see below), never frees the builder under the build. The last-error message is
 * per OS thread: a binding whose consecutive calls may run on different OS threads (Go's cgo)
 * must read it on the thread that made the failing call.
 */
#ifndef DRYDB_C_H_
#define DRYDB_C_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What the shared library exports: on Windows, drydb_c.dll's export table lists the functions
 * marked dllexport while it is built (DRYDB_C_BUILDING_DLL) and nothing else; a caller needs no
 * dllimport, as its linker reaches them through the import library. Elsewhere, the symbols left
 * visible among hidden ones. */
#if defined(_WIN32)
#if defined(DRYDB_C_BUILDING_DLL)
#define DRYDB_C_EXPORT __declspec(dllexport)
#else
#define DRYDB_C_EXPORT
#endif
#elif defined(__GNUC__)
#define DRYDB_C_EXPORT __attribute__((visibility("default")))
#else
#define DRYDB_C_EXPORT
#endif

/* ---- statuses ------------------------------------------------------------------------------ */

enum {
  DRYDB_OK = 0,
  /* Not an error: no row. get of an absent key, a cursor or range stepped past its end, a
   * seek with no row at or after the key, seek_exact with no row of that key. */
  DRYDB_END = -1,
  /* The drydb::errc values (drydb/error.h, docs/errors.md), the same numbers. */
  DRYDB_INVALID_ARGUMENT = 1, /* a NULL, released or wrong-kind handle; a bad option or bound */
  DRYDB_KEY_TOO_LONG = 2,
  DRYDB_DUPLICATE_KEY = 3,
  DRYDB_DUPLICATE_NAME = 4,
  DRYDB_WRONG_KEY_TYPE = 5, /* e.g. an int64 key for a bytes table */
  DRYDB_NOT_FOUND = 6,      /* an unknown table name (never an absent key: that is DRYDB_END) */
  DRYDB_IO_ERROR = 7,
  DRYDB_CORRUPTION = 8,
  DRYDB_TRUNCATED = 9,
  DRYDB_BAD_MAGIC = 10,
  DRYDB_UNSUPPORTED_VERSION = 11,
  DRYDB_UNKNOWN_ENCODING = 12,
  DRYDB_UNKNOWN_FILTER = 13,
  DRYDB_VALUE_TOO_LARGE = 14,
  DRYDB_OUT_OF_MEMORY = 15,
  DRYDB_INVALID_STATE = 16, /* a call at the wrong time: close with handles live, append after
                             * build, rank of an unpositioned cursor */
  /* C API only: a caller's buffer is smaller than the bytes to copy; the size needed is reported
   * and the buffer is left untouched. */
  DRYDB_BUFFER_TOO_SMALL = 100
};

/* The message of the last error returned on this thread (what failed and where: table, key,
 * page). Owned by drydb; valid until the next call on this thread that returns an error. Never
 * NULL: "" before any error. DRYDB_OK and DRYDB_END leave it unchanged. */
DRYDB_C_EXPORT const char* drydb_last_error_message(void);

/* A status's name: "ok", "end", "corruption", "buffer_too_small", ...; "unknown" for any other
 * int. A static string (never freed). */
DRYDB_C_EXPORT const char* drydb_status_name(int status);

/* ---- keys and bounds ----------------------------------------------------------------------- */

/* Which keys a table takes (drydb::KeyKind). Bytes tables include text and custom encodings. */
typedef enum drydb_key_kind {
  DRYDB_KEY_BYTES = 0,
  DRYDB_KEY_INT64 = 1,
  DRYDB_KEY_UUID = 2, /* 16 bytes, RFC 9562 byte order */
  DRYDB_KEY_ULID = 3  /* 16 bytes */
} drydb_key_kind;

/* A borrowed key. kind says which field holds it: bytes keys and the 16 bytes of a UUID or ULID
 * in data/size (the bytes must stay valid for the call only), int64 keys in i64. A key of
 * another kind than its table's is DRYDB_WRONG_KEY_TYPE; an unknown kind, a NULL data with a
 * nonzero size, or a UUID/ULID whose size is not 16, DRYDB_INVALID_ARGUMENT. Blittable: a binding
 * may lay it out itself (int32 kind, pointer, size_t, int64). */
typedef struct drydb_key {
  int32_t kind; /* a drydb_key_kind */
  const void* data;
  size_t size;
  int64_t i64;
} drydb_key;

static inline drydb_key drydb_key_bytes(const void* data, size_t size) {
  drydb_key k;
  k.kind = DRYDB_KEY_BYTES;
  k.data = data;
  k.size = size;
  k.i64 = 0;
  return k;
}
static inline drydb_key drydb_key_int64(int64_t value) {
  drydb_key k;
  k.kind = DRYDB_KEY_INT64;
  k.data = NULL;
  k.size = 0;
  k.i64 = value;
  return k;
}

/* One end of a range or count. A NULL drydb_bound pointer means unbounded too. */
typedef enum drydb_bound_kind {
  DRYDB_UNBOUNDED = 0,
  DRYDB_INCLUSIVE = 1,
  DRYDB_EXCLUSIVE = 2
} drydb_bound_kind;

typedef struct drydb_bound {
  int32_t kind;  /* a drydb_bound_kind */
  drydb_key key; /* ignored when unbounded */
} drydb_bound;

typedef enum drydb_order { DRYDB_ASCENDING = 0, DRYDB_DESCENDING = 1 } drydb_order;

/* The int64 a table's encoded key holds (cursors and ranges give keys as stored: 8 bytes,
 * big-endian with the sign bit flipped). DRYDB_INVALID_ARGUMENT unless size is 8. */
DRYDB_C_EXPORT int drydb_decode_int64_key(const void* key, size_t size, int64_t* out);

/* ---- opening a database -------------------------------------------------------------------- */

typedef struct drydb_db drydb_db;
typedef struct drydb_table drydb_table;

/* How a file's bytes are reached (drydb::StorageKind; docs/c-api.md says when to pick which). */
typedef enum drydb_storage {
  DRYDB_STORAGE_MMAP = 0,  /* map the file; a file truncated in place kills the reader (SIGBUS) */
  DRYDB_STORAGE_PREAD = 1, /* positional reads into the page cache; safe when the file changes */
  DRYDB_STORAGE_MEMORY = 2 /* read whole into memory at open */
} drydb_storage;

/* Zero-initialised, the defaults. */
typedef struct drydb_open_options {
  int32_t storage;           /* a drydb_storage */
  uint64_t page_cache_bytes; /* bound on cached leaf/overflow pages; 0 = the default, 64 MiB */
} drydb_open_options;

/* Opens the file at `path` (NUL-terminated, the system's encoding: UTF-8 on Linux) read-only.
 * options may be NULL (defaults). On DRYDB_OK *out is a new database the caller closes with
 * drydb_db_close; on an error *out is NULL (DRYDB_IO_ERROR for a missing file, DRYDB_BAD_MAGIC,
 * DRYDB_CORRUPTION, ... for a bad one: the header and catalog are checked here). */
DRYDB_C_EXPORT int drydb_db_open(const char* path, const drydb_open_options* options,
                                 drydb_db** out);

/* Opens a database held in the caller's memory (an asset pack, drydb_builder_build_to_memory's
 * bytes), used in place: the caller keeps the `size` bytes at `data` alive and unchanged until
 * drydb_db_close returns DRYDB_OK. options->storage is ignored. */
DRYDB_C_EXPORT int drydb_db_open_memory(const void* data, size_t size,
                                        const drydb_open_options* options, drydb_db** out);

/* Closes the database and releases its tables and indexes (their handles become released).
 * Refused with DRYDB_INVALID_STATE, the database left open, while values, value batches, cursors
 * or ranges created on it are live: release them first. Safe while other threads are inside
 * calls on the database, its tables or indexes: it waits for the calls in flight that take no
 * holder (counts, get_copy, verify, accessors, lookups, holder creation) to return, and calls
 * that start after it began get DRYDB_INVALID_ARGUMENT ("the database has been closed"). A
 * second close racing the first gets DRYDB_INVALID_ARGUMENT. */
DRYDB_C_EXPORT int drydb_db_close(drydb_db* db);

/* Reads every page and checks every invariant of every tree; DRYDB_CORRUPTION (or the read's
 * error) names the first fault. Costs a full read of the file. */
DRYDB_C_EXPORT int drydb_db_verify(const drydb_db* db);

/* The number of tables, and the table at `index` (file order; DRYDB_INVALID_ARGUMENT past the
 * end). Table handles are owned by the database: never released, valid until it closes. */
DRYDB_C_EXPORT int drydb_db_table_count(const drydb_db* db, size_t* out);
DRYDB_C_EXPORT int drydb_db_table_at(const drydb_db* db, size_t index, const drydb_table** out);
/* The table named by the `name_size` bytes at `name` (not NUL-terminated);
 * DRYDB_NOT_FOUND if none (the message lists the tables there are). */
DRYDB_C_EXPORT int drydb_db_table(const drydb_db* db, const char* name, size_t name_size,
                                  const drydb_table** out);

/* ---- a table ------------------------------------------------------------------------------- */

/* The table's name: *name points to *size bytes (not NUL-terminated) owned by the database,
 * valid until it closes. */
DRYDB_C_EXPORT int drydb_table_name(const drydb_table* table, const char** name, size_t* size);
/* The keys it takes: a drydb_key_kind. */
DRYDB_C_EXPORT int drydb_table_key_kind(const drydb_table* table, int32_t* out);
/* The key encoding's id as the file names it ("bytes", "int64", "uuid_v7", "ulid" or a custom
 * id): *id points to *size bytes, static or owned by the database, valid until it closes. */
DRYDB_C_EXPORT int drydb_table_encoding_id(const drydb_table* table, const char** id, size_t* size);
/* The table's miss filter bits per key as built
 * (drydb_table_builder_add_miss_filter; 0 = none). */
DRYDB_C_EXPORT int drydb_table_miss_filter_bits(const drydb_table* table, uint32_t* out);
/* The number of rows, O(1). */
DRYDB_C_EXPORT int drydb_table_count(const drydb_table* table, uint64_t* out);
/* The number of rows between two bounds (NULL = unbounded): two descents whatever the count.
 * DRYDB_INVALID_ARGUMENT if both are bounded and start's key > end's. */
DRYDB_C_EXPORT int drydb_table_count_range(const drydb_table* table, const drydb_bound* start,
                                           const drydb_bound* end, uint64_t* out);

/* ---- get ----------------------------------------------------------------------------------- */

/* A reusable holder of one looked-up value: it keeps the value's page resident while it holds
 * it, so the bytes can be read in place (zero-copy). Reusing one handle for every get costs no
 * allocation. */
typedef struct drydb_value drydb_value;

/* A new, empty value holder for gets on db's tables; released with drydb_value_release, before
 * db closes. */
DRYDB_C_EXPORT int drydb_value_create(drydb_db* db, drydb_value** out);
/* Releases the holder and the page it holds; its views become invalid. */
DRYDB_C_EXPORT int drydb_value_release(drydb_value* value);
/* Lets go of the held page (its views become invalid) and keeps the holder for reuse. */
DRYDB_C_EXPORT int drydb_value_reset(drydb_value* value);

/* Looks `key` up. DRYDB_OK: found, *data and *size view the value's bytes inside the page `value`
 * now holds, valid until `value` is reset, reused by another get or released (and never past
 * the database); *data may be NULL for an empty value. DRYDB_END: absent (*data NULL, *size 0).
 * Whatever `value` held before is let go first, whatever the outcome. data and size may be NULL
 * when only presence matters. `value` must come from table's database. */
DRYDB_C_EXPORT int drydb_table_get(const drydb_table* table, const drydb_key* key,
                                   drydb_value* value, const void** data, size_t* size);

/* Looks `key` up and copies its value into the caller's `capacity` bytes at `buffer`.
 * DRYDB_OK: copied, *size its length. DRYDB_END: absent, *size 0. DRYDB_BUFFER_TOO_SMALL: *size
 * is the length needed and the buffer is untouched (a NULL buffer with capacity 0 asks the size).
 * Holds no page after it returns. */
DRYDB_C_EXPORT int drydb_table_get_copy(const drydb_table* table, const drydb_key* key,
                                        void* buffer, size_t capacity, size_t* size);

/* ---- cursors ------------------------------------------------------------------------------- */

/* A position in a table's key order, movable both ways. Its key/value views are valid until it
 * moves (any positioning or step call), is released, or the database closes. */
typedef struct drydb_cursor drydb_cursor;

/* A new, unpositioned cursor over `table`; released with drydb_cursor_release before the
 * database closes. */
DRYDB_C_EXPORT int drydb_cursor_create(const drydb_table* table, drydb_cursor** out);
DRYDB_C_EXPORT int drydb_cursor_release(drydb_cursor* cursor);

/* Positioning: DRYDB_OK on a row, DRYDB_END when there is none (the cursor is then off the
 * table: next and prev give DRYDB_END until it is positioned again), or an error (a wrong key
 * kind, a page that fails to read or check), which also leaves it off the table.
 *   first, last: the first / last row.
 *   seek: the first row whose key is >= key.
 *   seek_exact: positions as seek, and gives DRYDB_OK only if that row's key equals key,
 *     else DRYDB_END (the cursor may still stand on the next greater row: see valid).
 *   seek_rank: the row of 0-based position `rank` in key order. */
DRYDB_C_EXPORT int drydb_cursor_first(drydb_cursor* cursor);
DRYDB_C_EXPORT int drydb_cursor_last(drydb_cursor* cursor);
DRYDB_C_EXPORT int drydb_cursor_seek(drydb_cursor* cursor, const drydb_key* key);
DRYDB_C_EXPORT int drydb_cursor_seek_exact(drydb_cursor* cursor, const drydb_key* key);
DRYDB_C_EXPORT int drydb_cursor_seek_rank(drydb_cursor* cursor, uint64_t rank);
/* One row on / back. A cursor never positioned yet starts at the first (next) or last (prev)
 * row, so `while (drydb_cursor_next(c) == DRYDB_OK)` walks a fresh cursor over every row. */
DRYDB_C_EXPORT int drydb_cursor_next(drydb_cursor* cursor);
DRYDB_C_EXPORT int drydb_cursor_prev(drydb_cursor* cursor);
/* *out = 1 when the cursor stands on a row, else 0. */
DRYDB_C_EXPORT int drydb_cursor_valid(const drydb_cursor* cursor, int* out);
/* The current row's rank; DRYDB_INVALID_STATE off the table. */
DRYDB_C_EXPORT int drydb_cursor_rank(const drydb_cursor* cursor, uint64_t* out);
/* The current row's key and value as stored (int64 keys: drydb_decode_int64_key). Views valid
 * until the cursor moves. DRYDB_END off the table. Any out pointer may be NULL. */
DRYDB_C_EXPORT int drydb_cursor_current(drydb_cursor* cursor, const void** key, size_t* key_size,
                                        const void** value, size_t* value_size);
/* Fused step and read, one call per row: next / prev, then current. DRYDB_END past the end. */
DRYDB_C_EXPORT int drydb_cursor_next_kv(drydb_cursor* cursor, const void** key, size_t* key_size,
                                        const void** value, size_t* value_size);
DRYDB_C_EXPORT int drydb_cursor_prev_kv(drydb_cursor* cursor, const void** key, size_t* key_size,
                                        const void** value, size_t* value_size);

/* ---- ranges and prefixes ------------------------------------------------------------------- */

/* The rows between two bounds (or of one prefix), in either order, walked one call per row.
 * Reusable: positioning it again costs no allocation. Row views are valid until its next step,
 * reset, repositioning or release (and never past the database). */
typedef struct drydb_range drydb_range;

/* A new, empty range holder for db's tables; released with drydb_range_release before db
 * closes. */
DRYDB_C_EXPORT int drydb_range_create(drydb_db* db, drydb_range** out);
DRYDB_C_EXPORT int drydb_range_release(drydb_range* range);

/* Positions `range` on the rows of `table` between start and end (NULL = unbounded), in
 * `order` (a drydb_order). Two descents; rows are read as it is stepped. Errors: a wrong key
 * kind; DRYDB_INVALID_ARGUMENT when start's key > end's or the order is unknown. On an error the
 * range is left empty. */
DRYDB_C_EXPORT int drydb_table_range(const drydb_table* table, const drydb_bound* start,
                                     const drydb_bound* end, int32_t order, drydb_range* range);
/* Positions `range` on the rows whose key starts with the `size` bytes at `prefix` (every row
 * for size 0). DRYDB_WRONG_KEY_TYPE unless the table has bytes keys. */
DRYDB_C_EXPORT int drydb_table_prefix(const drydb_table* table, const void* prefix, size_t size,
                                      int32_t order, drydb_range* range);
/* The number of rows the range holds (known up front). */
DRYDB_C_EXPORT int drydb_range_count(const drydb_range* range, uint64_t* out);
/* The next row in the range's order: DRYDB_OK with views of its key and value (any out pointer
 * may be NULL), DRYDB_END after the last, or the error that ended the walk (a corrupt page). */
DRYDB_C_EXPORT int drydb_range_next(drydb_range* range, const void** key, size_t* key_size,
                                    const void** value, size_t* value_size);
/* Starts the walk over from the range's first row. */
DRYDB_C_EXPORT int drydb_range_rewind(drydb_range* range);

/* A row of a batch: views of its key and value. */
typedef struct drydb_row {
  const void* key;
  size_t key_size;
  const void* value;
  size_t value_size;
} drydb_row;

/* The most rows one drydb_range_next_batch gives. */
#define DRYDB_RANGE_BATCH_MAX 256

/* The next rows of the walk at once, as that many drydb_range_next calls would give them: *rows
 * points to *count rows (at most max_rows, at most DRYDB_RANGE_BATCH_MAX), owned by the range and
 * valid until its next step, batch, rewind, repositioning or release. It saves a call per row;
 * a binding that pays for each call (.NET's P/Invoke) walks ranges with it.
 * DRYDB_OK with *count >= 1; DRYDB_END with *count 0 after the last row; or the error that ended
 * the walk, with *count the rows read before it (their views valid as above; the next call says
 * DRYDB_END). The range copies every row of a batch but its last into its own buffer (so a batch
 * holds no more than the walk's current page resident): a batch ends early, at a row of more than
 * 4 KiB or when 64 KiB are copied, and the copies are made once, in memory the range keeps for
 * its next batches. DRYDB_INVALID_ARGUMENT for max_rows 0 or a NULL rows or count. An index query's
 * rows come without their index keys: walk with drydb_range_next where drydb_range_index_key is
 * wanted. */
DRYDB_C_EXPORT int drydb_range_next_batch(drydb_range* range, size_t max_rows,
                                          const drydb_row** rows, size_t* count);

/* ---- secondary indexes --------------------------------------------------------------------- */

/* One secondary index of a table (drydb::SecondaryIndex). Owned by the database like its table:
 * never released, valid until the database closes. Every query answers with the table's rows
 * (primary key and value) in index-key order; the rows of one index key of a non-unique index
 * come in primary-key order. Index keys are given as drydb_key of the index's key kind
 * (DRYDB_WRONG_KEY_TYPE otherwise). */
typedef struct drydb_index drydb_index;

/* The number of the table's indexes, and the index at `position` (declaration order;
 * DRYDB_INVALID_ARGUMENT past the end). *out is owned by the database, valid until it closes. */
DRYDB_C_EXPORT int drydb_table_index_count(const drydb_table* table, size_t* out);
DRYDB_C_EXPORT int drydb_table_index_at(const drydb_table* table, size_t position,
                                        const drydb_index** out);
/* The index named by the `name_size` bytes at `name`; DRYDB_NOT_FOUND if the table has none of
 * that name (the message lists the indexes there are). */
DRYDB_C_EXPORT int drydb_table_index(const drydb_table* table, const char* name, size_t name_size,
                                     const drydb_index** out);
/* The index's name: *name points to *size bytes (not NUL-terminated) owned by the database,
 * valid until it closes. */
DRYDB_C_EXPORT int drydb_index_name(const drydb_index* index, const char** name, size_t* size);
/* *out = 1 for a unique index, 0 for a non-unique one. */
DRYDB_C_EXPORT int drydb_index_unique(const drydb_index* index, int* out);
/* The kind of its keys: a drydb_key_kind. */
DRYDB_C_EXPORT int drydb_index_key_kind(const drydb_index* index, int32_t* out);
/* Its key encoding's id ("bytes", "int64", ...): *id points to *size bytes, valid for the
 * process (as drydb_table_encoding_id's). */
DRYDB_C_EXPORT int drydb_index_encoding_id(const drydb_index* index, const char** id, size_t* size);
/* The number of entries, O(1): the table's rows that have an index key. */
DRYDB_C_EXPORT int drydb_index_count(const drydb_index* index, uint64_t* out);
/* The number of entries whose index key lies between two bounds (NULL = unbounded): two
 * descents. DRYDB_INVALID_ARGUMENT if both are bounded and start's key > end's. */
DRYDB_C_EXPORT int drydb_index_count_range(const drydb_index* index, const drydb_bound* start,
                                           const drydb_bound* end, uint64_t* out);

/* The row whose index key is `key` (for a non-unique index the first such row in primary-key
 * order; drydb_index_get_all gives them all). DRYDB_OK: *key_out and *key_size view its primary key
 * as stored and *value and *value_size its value, held by `holder` (a drydb_value of the index's
 * database), valid until the holder is reset, reused by another get or released. DRYDB_END:
 * none (views NULL, sizes 0). Whatever the holder held before is let go first. Any view out
 * pointer may be NULL. */
DRYDB_C_EXPORT int drydb_index_get(const drydb_index* index, const drydb_key* key,
                                   drydb_value* holder, const void** key_out, size_t* key_size,
                                   const void** value, size_t* value_size);
/* Positions `range` (of the index's database) on every row whose index key is `key`, in
 * primary-key order. As drydb_index_range with two inclusive bounds of `key`. */
DRYDB_C_EXPORT int drydb_index_get_all(const drydb_index* index, const drydb_key* key,
                                       drydb_range* range);
/* Positions `range` on the rows whose index key lies between start and end (NULL = unbounded),
 * in index-key order (then primary-key order), or its reverse for DRYDB_DESCENDING. Rows are
 * walked with drydb_range_next (primary key and value) and drydb_range_index_key (the row's
 * index key); drydb_range_count and drydb_range_rewind work as on table ranges. Errors: a wrong
 * key kind; DRYDB_INVALID_ARGUMENT when start's key > end's or the order is unknown. On an
 * error the range is left empty. */
DRYDB_C_EXPORT int drydb_index_range(const drydb_index* index, const drydb_bound* start,
                                     const drydb_bound* end, int32_t order, drydb_range* range);
/* Positions `range` on the rows whose index key starts with the `size` bytes at `prefix` (every
 * row with an index key for size 0). DRYDB_WRONG_KEY_TYPE unless the index has bytes keys. */
DRYDB_C_EXPORT int drydb_index_prefix(const drydb_index* index, const void* prefix, size_t size,
                                      int32_t order, drydb_range* range);
/* The index key of the row drydb_range_next last gave, as the index stores it (an int64 key as
 * its 8 encoded bytes: drydb_decode_int64_key). The view is valid until the range's next step,
 * rewind, repositioning or release. DRYDB_INVALID_STATE for a range positioned by a table (not
 * an index) query, or not on a row (before its first step or after its end). */
DRYDB_C_EXPORT int drydb_range_index_key(drydb_range* range, const void** key, size_t* size);

/* ---- get_many ------------------------------------------------------------------------------ */

/* A borrowed view: `size` bytes at `data` (NULL when size is 0). */
typedef struct drydb_view {
  const void* data;
  size_t size;
} drydb_view;

/* A reusable holder of up to `capacity` looked-up values (the many-key drydb_value): it keeps
 * every found value's page resident, so the views a get_many gives stay valid until the batch is
 * used for another get_many, reset or released. All its memory is allocated when it is created:
 * a get_many allocates nothing per key. */
typedef struct drydb_value_batch drydb_value_batch;

/* A new, empty batch of `capacity` slots (1 or more) for gets on db's tables; released with
 * drydb_value_batch_release, before db closes. */
DRYDB_C_EXPORT int drydb_value_batch_create(drydb_db* db, size_t capacity, drydb_value_batch** out);
/* Releases the batch and the pages it holds; its views become invalid. */
DRYDB_C_EXPORT int drydb_value_batch_release(drydb_value_batch* batch);
/* Lets go of every held page (the views become invalid) and keeps the batch for reuse. */
DRYDB_C_EXPORT int drydb_value_batch_reset(drydb_value_batch* batch);

/* Looks up the `count` keys at `keys` (any order, repeats allowed; count <= the batch's
 * capacity), their descents advancing together so that their cache misses overlap. For each
 * key i, statuses[i] is DRYDB_OK (views[i] views its value, held by `batch`), DRYDB_END (absent;
 * views[i] = {NULL, 0}) or that key's error (a wrong key kind, a bad key, a page that fails to
 * read or check; views[i] = {NULL, 0}); `statuses` and `views` are the caller's arrays of
 * `count` entries. Whatever the batch held before is let go first.
 * Returns DRYDB_OK when every key's status is DRYDB_OK or DRYDB_END; else the status of the last
 * key that failed, whose message is the last error. Errors of the call itself, with no status
 * written: a NULL or released handle or array, count over the capacity
 * (DRYDB_INVALID_ARGUMENT), a batch of another database. count 0 is DRYDB_OK. */
DRYDB_C_EXPORT int drydb_table_get_many(const drydb_table* table, const drydb_key* keys,
                                        size_t count, drydb_value_batch* batch, int32_t* statuses,
                                        drydb_view* views);

/* ---- sharded datasets ---------------------------------------------------------------------- */

/* A sharded dataset (docs/sharding.md): one logical database split into shard files, described
 * by a manifest, published in numbered generations that the dataset folder's CURRENT names.
 * Part of libdrydb_c only when drydb was built with drydb::dataset (simdjson found); otherwise
 * every function below returns DRYDB_INVALID_STATE, saying so.
 *
 * A drydb_dataset is one generation read as one database (drydb::ShardedDatabase): its tables
 * answer get, count, count_range, ranges and prefixes across the shards, with the statuses of a
 * file's tables; an error a shard gives names its file ("ds/gen-1/shard-00002.drydb: table
 * 'items', page 7: checksum mismatch"). A dataset is either opened on a generation
 * (drydb_dataset_open), on which it stays whatever is published later, or pinned from a live
 * dataset (drydb_live_dataset_pin), which follows CURRENT. Both are closed with
 * drydb_dataset_close.
 *
 * Its tables (drydb_sharded_table) are owned by the dataset: never released, valid until it
 * closes. Value holders (drydb_dataset_value_create) and range holders
 * (drydb_dataset_range_create) are the drydb_value and drydb_range types of a file's gets and
 * ranges, made on the dataset: released with drydb_value_release / drydb_range_release before
 * the dataset closes (drydb_dataset_close refuses, DRYDB_INVALID_STATE, while any is live), and
 * used only with that dataset's tables (a holder of another dataset or of a database is
 * DRYDB_INVALID_ARGUMENT, as a dataset's holder is for a database's tables).
 *
 * Threads: a dataset and its tables may be queried from many threads at once; a value or range
 * holder belongs to one thread at a time. */
typedef struct drydb_dataset drydb_dataset;
typedef struct drydb_sharded_table drydb_sharded_table;

/* Opens `path` (NUL-terminated): a dataset folder (the generation its CURRENT names), a
 * generation folder (gen-N) or a manifest file; then every shard the manifest names, beside it,
 * each with `options` (NULL = the defaults; page_cache_bytes bounds each shard's cache). Every
 * shard is checked against the manifest (tables, key encodings, row counts, first and last
 * keys, sizes, identities) before DRYDB_OK; checksums are not read. On DRYDB_OK *out is a new
 * dataset the caller closes with drydb_dataset_close. On an error *out is NULL: DRYDB_IO_ERROR
 * for a manifest or shard that cannot be read, DRYDB_NOT_FOUND for a dataset folder with no
 * live generation (no CURRENT), DRYDB_CORRUPTION for a manifest that breaks a rule or a shard
 * that disagrees with it, DRYDB_UNSUPPORTED_VERSION for a newer manifest or an unknown partition
 * function, a shard's own open errors (naming it); DRYDB_INVALID_ARGUMENT for a bad storage. */
DRYDB_C_EXPORT int drydb_dataset_open(const char* path, const drydb_open_options* options,
                                      drydb_dataset** out);
/* Closes the dataset: an opened one's shards, or a pinned one's pin (its generation may then be
 * released by the live dataset's next refresh). Its tables' handles become released. Refused
 * with DRYDB_INVALID_STATE, the dataset left open, while value or range holders made on it are
 * live: release them first. Safe while other threads are inside calls on the dataset or its
 * tables, as drydb_db_close is. */
DRYDB_C_EXPORT int drydb_dataset_close(drydb_dataset* dataset);
/* The generation's number (its manifest's). */
DRYDB_C_EXPORT int drydb_dataset_generation(const drydb_dataset* dataset, uint64_t* out);
/* The number of shards (1 .. 65536). */
DRYDB_C_EXPORT int drydb_dataset_shard_count(const drydb_dataset* dataset, uint32_t* out);
/* Reads every page of every shard and checks every tree invariant: DRYDB_CORRUPTION (or the
 * read's error) names the first fault and its shard's file. Costs a full read of the shards. */
DRYDB_C_EXPORT int drydb_dataset_verify(const drydb_dataset* dataset);

/* The number of tables, and the table at `index` (the manifest's order; DRYDB_INVALID_ARGUMENT
 * past the end). *out is owned by the dataset: never released, valid until it closes. */
DRYDB_C_EXPORT int drydb_dataset_table_count(const drydb_dataset* dataset, size_t* out);
DRYDB_C_EXPORT int drydb_dataset_table_at(const drydb_dataset* dataset, size_t index,
                                          const drydb_sharded_table** out);
/* The table named by the `name_size` bytes at `name` (not NUL-terminated); DRYDB_NOT_FOUND if
 * none (the message lists the tables there are). */
DRYDB_C_EXPORT int drydb_dataset_table(const drydb_dataset* dataset, const char* name,
                                       size_t name_size, const drydb_sharded_table** out);

/* The table's name: *name points to *size bytes (not NUL-terminated) owned by the dataset,
 * valid until it closes. */
DRYDB_C_EXPORT int drydb_sharded_table_name(const drydb_sharded_table* table, const char** name,
                                            size_t* size);
/* The keys it takes: a drydb_key_kind. */
DRYDB_C_EXPORT int drydb_sharded_table_key_kind(const drydb_sharded_table* table, int32_t* out);
/* The key encoding's id, as drydb_table_encoding_id's: valid for the process. */
DRYDB_C_EXPORT int drydb_sharded_table_encoding_id(const drydb_sharded_table* table,
                                                   const char** id, size_t* size);
/* The number of rows in every shard, O(1) (from the manifest). */
DRYDB_C_EXPORT int drydb_sharded_table_count(const drydb_sharded_table* table, uint64_t* out);
/* The shard (0 .. shard count - 1) whose file holds `key`, by the table's partition function.
 * DRYDB_WRONG_KEY_TYPE for a key of another kind than the table's. */
DRYDB_C_EXPORT int drydb_sharded_table_shard_of(const drydb_sharded_table* table,
                                                const drydb_key* key, uint32_t* out);
/* The number of rows between two bounds (NULL = unbounded), as drydb_table_count_range:
 * O(log S + log n) for a range-partitioned table (the shards between the bounds' shards are
 * counted from the manifest), every shard asked for a hash-partitioned one.
 * DRYDB_INVALID_ARGUMENT if both are bounded and start's key > end's. */
DRYDB_C_EXPORT int drydb_sharded_table_count_range(const drydb_sharded_table* table,
                                                   const drydb_bound* start, const drydb_bound* end,
                                                   uint64_t* out);

/* A new, empty value holder for gets on the dataset's tables (a drydb_value, reset and released
 * as a database's); released with drydb_value_release before the dataset closes. */
DRYDB_C_EXPORT int drydb_dataset_value_create(drydb_dataset* dataset, drydb_value** out);
/* Looks `key` up in its shard. DRYDB_OK: *data and *size view the value, held by `value` (a
 * holder of this dataset), valid until the holder is reset, reused by another get or released;
 * DRYDB_END: absent (*data NULL, *size 0); or an error (a wrong key kind; a page that fails to
 * read or check, naming its shard). Whatever the holder held before is let go first. data and
 * size may be NULL. */
DRYDB_C_EXPORT int drydb_sharded_table_get(const drydb_sharded_table* table, const drydb_key* key,
                                           drydb_value* value, const void** data, size_t* size);
/* Copies the value of `key` into the caller's buffer of `capacity` bytes, as
 * drydb_table_get_copy: DRYDB_OK with *size the value's size; DRYDB_END, *size 0, when absent;
 * DRYDB_BUFFER_TOO_SMALL with *size the size needed and the buffer untouched. buffer may be NULL
 * when capacity is 0 (to ask the size). */
DRYDB_C_EXPORT int drydb_sharded_table_get_copy(const drydb_sharded_table* table,
                                                const drydb_key* key, void* buffer, size_t capacity,
                                                size_t* size);

/* A new, empty range holder for the dataset's tables (a drydb_range, walked, counted, rewound
 * and released as a database's); released with drydb_range_release before the dataset closes. */
DRYDB_C_EXPORT int drydb_dataset_range_create(drydb_dataset* dataset, drydb_range** out);
/* Positions `range` (a holder of this dataset) on the table's rows between start and end
 * (NULL = unbounded) across the shards, in `order`: a range-partitioned table's shards one after
 * another, a hash-partitioned table's rows merged by key. Its count is known up front; rows are
 * read as it is stepped (drydb_range_next; views valid until the next step, rewind,
 * repositioning or release); a shard's error ends the walk, naming the shard. Errors: a wrong
 * key kind; DRYDB_INVALID_ARGUMENT when start's key > end's or the order is unknown. On an
 * error the range is left empty. */
DRYDB_C_EXPORT int drydb_sharded_table_range(const drydb_sharded_table* table,
                                             const drydb_bound* start, const drydb_bound* end,
                                             int32_t order, drydb_range* range);
/* Positions `range` on the rows whose key starts with the `size` bytes at `prefix` (every row
 * for size 0), across the shards. DRYDB_WRONG_KEY_TYPE unless the table has bytes keys. */
DRYDB_C_EXPORT int drydb_sharded_table_prefix(const drydb_sharded_table* table, const void* prefix,
                                              size_t size, int32_t order, drydb_range* range);

/* ---- following CURRENT: live datasets ------------------------------------------------------ */

/* A dataset folder followed under load (drydb::LiveDataset): it serves the generation CURRENT
 * names, and drydb_live_dataset_refresh swaps in the one CURRENT names now when it changed (a
 * publish or a rollback). Queries go through pins: drydb_live_dataset_pin gives a drydb_dataset
 * on the generation served at that moment, queried like any dataset and closed with
 * drydb_dataset_close.
 *
 * How views stay valid across a refresh: a pin holds its generation open (its shards, pages,
 * tables) until the pin is closed, whatever refreshes happen meanwhile. So a value, a copy or a
 * range row read through a pin keeps viewing that generation's bytes, for as long as its holder
 * would keep it on a dataset opened with drydb_dataset_open; a refresh never invalidates a view,
 * a table handle or a range walk under way, and no query sees a mix of generations. Pins taken
 * after a refresh see the new generation. A generation swapped out is released once no pin
 * holds it, by a later refresh (or the live dataset's close): drydb_live_dataset_retired counts
 * those still held. Pin per request or batch of queries, and close the pin after it: a pin
 * taken once and kept forever keeps its generation (and its files) open forever.
 *
 * Cost: a pin takes a LiveDataset reader from the live dataset's pool (made once, then reused)
 * and one table handle per table, each under a short lock, and makes a small allocation (its
 * list of tables): unlike drydb::LiveDataset::Reader::pin, it is not free of shared locks, so
 * pin per request or batch of queries, not per key. A refresh opens and checks the new
 * generation before it swaps, while pins and queries go on; a generation that does not open is
 * not swapped in.
 *
 * Threads: refresh, pin and the accessors may be called from many threads at once. A pin may be
 * queried from many threads as any dataset; it is closed once, after every query on it returned.
 */
typedef struct drydb_live_dataset drydb_live_dataset;

/* Opens the dataset folder at `path` (NUL-terminated) and serves its CURRENT generation, opened
 * as drydb_dataset_open does with `options` (NULL = the defaults), with its errors;
 * DRYDB_INVALID_ARGUMENT for a path that is not a folder with a CURRENT (a gen-N folder or a
 * manifest names one generation: open it with drydb_dataset_open). On DRYDB_OK *out is a new live
 * dataset the caller closes with drydb_live_dataset_close; on an error *out is NULL. */
DRYDB_C_EXPORT int drydb_live_dataset_open(const char* path, const drydb_open_options* options,
                                           drydb_live_dataset** out);
/* Closes the live dataset and every generation it holds. Refused with DRYDB_INVALID_STATE, the
 * live dataset left open, while pins of it are open: close them first. */
DRYDB_C_EXPORT int drydb_live_dataset_close(drydb_live_dataset* live);
/* Serves CURRENT's generation if it is not the one served: opens and checks it, swaps it in,
 * and releases the generations swapped out earlier that no pin holds. *swapped (may be NULL) is
 * 1 when it swapped, else 0. An error (the new generation's open error: a shard missing, a
 * manifest bad; DRYDB_CORRUPTION for a CURRENT that is not "gen-N") leaves the served generation
 * in place, *swapped 0. Never waits for pins; refreshes run one at a time. */
DRYDB_C_EXPORT int drydb_live_dataset_refresh(drydb_live_dataset* live, int* swapped);
/* The generation served now: what the next pin sees. */
DRYDB_C_EXPORT int drydb_live_dataset_generation(const drydb_live_dataset* live, uint64_t* out);
/* The generations swapped out and not yet released (a pin held them at the last refresh). */
DRYDB_C_EXPORT int drydb_live_dataset_retired(const drydb_live_dataset* live, size_t* out);
/* Pins the generation served now: *out is a drydb_dataset on it (tables, gets, counts, ranges as
 * any dataset's), which holds it open until drydb_dataset_close; see above. The live dataset
 * cannot close while the pin is open. */
DRYDB_C_EXPORT int drydb_live_dataset_pin(drydb_live_dataset* live, drydb_dataset** out);

/* ---- building ------------------------------------------------------------------------------ */

/* A database builder (drydb::DatabaseBuilder).
 *
 * Errors are sticky. The first error the builder records (a bad or duplicate table or index
 * name, a key of the wrong type or too long, a bad miss filter size, ...) is returned by the call
 * that made it; from then on every drydb_builder_create_table, drydb_table_builder_append,
 * _add_index and _add_miss_filter of that builder returns DRYDB_INVALID_STATE ("the builder
 * failed earlier: " and the first error's message) and changes nothing, and every build returns
 * the first error itself. A call refused before it reaches the builder (a NULL or released
 * handle or pointer, an unknown key kind, a call after the build) records nothing and leaves the
 * builder as it was. A create that fails (drydb_builder_create, _create_with_options,
 * _create_table, for any reason) sets its *out to NULL, and a failed
 * drydb_builder_build_to_memory sets *data to NULL and *size to 0. */
typedef struct drydb_builder drydb_builder;
typedef struct drydb_table_builder drydb_table_builder;

/* A new builder writing pages of `page_size` bytes (a power of two, 512 .. 65536; 0 = 4096).
 * Released with drydb_builder_release. */
DRYDB_C_EXPORT int drydb_builder_create(uint32_t page_size, drydb_builder** out);
/* How pages are compressed (page filters; a reader needs nothing to read them). */
typedef enum drydb_compression {
  DRYDB_COMPRESSION_NONE = 0,
  DRYDB_COMPRESSION_LZ4 = 1, /* one LZ4 block per page: fast to decode */
  DRYDB_COMPRESSION_ZSTD = 2 /* one zstd frame per page; level and dictionary below */
} drydb_compression;

/* A builder's options (drydb::BuildOptions). Zero-initialised, the defaults. */
typedef struct drydb_builder_options {
  uint32_t page_size;     /* a power of two, 512 .. 65536; 0 = 4096 */
  uint64_t memory_budget; /* bytes of rows held before sorted runs spill to temp_dir; 0 = 256 MiB */
  /* Folder for spilled runs (NUL-terminated; read during drydb_builder_create_with_options
   * only); NULL or "" = the system's temp folder. Run files are unlinked as soon as created. */
  const char* temp_dir;
  int32_t compression; /* a drydb_compression */
  /* zstd only: the level, 1 (fast) .. 22 (small), negative faster still; 0 = 3. A level
   * outside zstd's range (ZSTD_minCLevel() .. ZSTD_maxCLevel()) is DRYDB_INVALID_ARGUMENT. */
  int32_t zstd_level;
  /* zstd only: when nonzero, a dictionary of at most this many bytes (up to 32 MiB) is trained
   * from a sample of the pages and stored in the file; small pages compress much better. */
  uint64_t zstd_dictionary_bytes;
  /* Nonzero: store each page's keys whole (format 2.0 pages), not after their shared prefix. */
  int32_t whole_keys;
  /* Nonzero: leave out the file identity (format 2.3 checksums), for readers older than 2.4. */
  int32_t no_file_identity;
} drydb_builder_options;

/* A new builder with `options` (NULL = the defaults). DRYDB_INVALID_ARGUMENT for a bad page
 * size, compression kind or zstd dictionary size (the message says which). Released with
 * drydb_builder_release. */
DRYDB_C_EXPORT int drydb_builder_create_with_options(const drydb_builder_options* options,
                                                     drydb_builder** out);
/* Releases the builder and its table builders (their handles become released). While a build of
 * it runs on another thread (inside drydb_builder_build_to_file / _to_memory, its index
 * functions included) the release is refused with DRYDB_INVALID_STATE ("a build is running on
 * this builder") and frees nothing: release it after the build returns. */
DRYDB_C_EXPORT int drydb_builder_release(drydb_builder* builder);
/* Adds a table named by the `name_size` bytes at `name`, keyed by `key_kind` (bytes: memcmp
 * order; int64: signed order; uuid: uuid_v7; ulid). The name is kept whole: a NUL byte in it is
 * part of it, as in every sized name of this API (drydb_db_table of "a" never finds "a\0b").
 * Paths, NUL-terminated, end at their first NUL. *out is owned by the builder: valid until it
 * is released. DRYDB_DUPLICATE_NAME, DRYDB_INVALID_ARGUMENT for a bad name or kind. */
DRYDB_C_EXPORT int drydb_builder_create_table(drydb_builder* builder, const char* name,
                                              size_t name_size, int32_t key_kind,
                                              drydb_table_builder** out);
/* Copies one row (any order; the builder sorts). DRYDB_WRONG_KEY_TYPE, DRYDB_KEY_TOO_LONG,
 * DRYDB_VALUE_TOO_LARGE; a duplicate key is found at build time (DRYDB_DUPLICATE_KEY). value may
 * be NULL when value_size is 0. */
DRYDB_C_EXPORT int drydb_table_builder_append(drydb_table_builder* table, const drydb_key* key,
                                              const void* value, size_t value_size);
/* A secondary index's key for one row, called by the build once per row, in primary-key order,
 * on the thread that builds (inside drydb_builder_build_to_file / _to_memory).
 *   ctx: the pointer given to drydb_table_builder_add_index.
 *   key, key_size: the row's primary key as stored (an int64 key: its 8 encoded bytes,
 *     drydb_decode_int64_key); value, value_size: its value (value may be NULL when value_size
 *     is 0). Both are drydb's, valid during this call only.
 *   out_index_key: where the function writes the row's index key, a drydb_key of the index's
 *     key kind. Bytes, UUID and ULID keys may point into `key` or `value`, or to bytes the
 *     function keeps valid until its next call on this builder (any index's) or until the
 *     build returns: drydb copies them as soon as the function returns.
 * Returns DRYDB_OK (*out_index_key set), DRYDB_END (the row has no entry: a sparse index), or an
 * error status, which fails the build with that status (a status that is not a drydb error,
 * DRYDB_INVALID_ARGUMENT), its message naming the table, index and row. An index key of
 * another kind fails the build with DRYDB_WRONG_KEY_TYPE. */
typedef int (*drydb_index_key_fn)(void* ctx, const void* key, size_t key_size, const void* value,
                                  size_t value_size, drydb_key* out_index_key);

/* Declares a secondary index named by the `name_size` bytes at `name` on the table: `unique`
 * nonzero for a unique index (two rows giving one index key fail the build with
 * DRYDB_DUPLICATE_KEY, naming both), its keys of `key_kind` (a drydb_key_kind), computed by
 * `index_key` with `ctx`, which must stay valid until the build returns or the builder is
 * released. DRYDB_INVALID_ARGUMENT for a NULL function, a bad name or kind; DRYDB_DUPLICATE_NAME
 * for a name the table already uses; DRYDB_INVALID_STATE after the build. */
DRYDB_C_EXPORT int drydb_table_builder_add_index(drydb_table_builder* table, const char* name,
                                                 size_t name_size, int unique, int32_t key_kind,
                                                 drydb_index_key_fn index_key, void* ctx);
/* Gives the table a miss filter of `bits_per_key` bits per row (1 .. 32; 10 answers about 99%
 * of gets of absent keys from one cache line, for 1.25 bytes per row): gets and get_many test
 * it before descending. Called again, the last size counts. DRYDB_INVALID_ARGUMENT outside
 * 1 .. 32; DRYDB_INVALID_STATE after the build. An empty table gets no filter. */
DRYDB_C_EXPORT int drydb_table_builder_add_miss_filter(drydb_table_builder* table,
                                                       uint32_t bits_per_key);
/* Writes the database to `path` atomically (temp file, fsync, rename): on an error `path` is
 * untouched. A builder builds once; a second build, or one started while a build runs, is
 * DRYDB_INVALID_STATE, and so are create_table, append, add_index and add_miss_filter during the
 * build or after it. */
DRYDB_C_EXPORT int drydb_builder_build_to_file(drydb_builder* builder, const char* path);
/* Builds into memory: *data (allocated by drydb, freed by the caller with drydb_free) holds
 * *size bytes, which drydb_db_open_memory reads. */
DRYDB_C_EXPORT int drydb_builder_build_to_memory(drydb_builder* builder, void** data, size_t* size);
/* Frees memory drydb handed to the caller (build_to_memory's bytes). NULL is a no-op. */
DRYDB_C_EXPORT void drydb_free(void* data);

#ifdef __cplusplus
}
#endif

#endif /* DRYDB_C_H_ */
