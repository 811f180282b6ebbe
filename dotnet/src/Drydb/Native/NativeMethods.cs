// The C API (include/drydb/c.h) as .NET sees it: every function drydb uses, with blittable
// signatures only (pointers, IntPtr handles, integers and the structs of NativeTypes.cs), so
// no call marshals or allocates. .NET 7 and later bind them with LibraryImport; netstandard2.1
// (Unity) with DllImport. The two lists below must stay the same function for function
// (both are written from one list; NativeBindingTests checks each name is a C API export).
//
// [SuppressGCTransition] marks the query calls: short, never blocking on a lock held across a
// managed call, never calling back into .NET. It saves the transition's cost on every get,
// range step and cursor step; the price is that a GC waits for a call that page-faults on a
// mapped file (documented in docs/dotnet.md).
using System;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Drydb.Native;

internal static unsafe partial class NativeMethods
{
  // "drydb_c" resolves to libdrydb_c.so beside the application or in the package's
  // runtimes/<rid>/native folder. Where the library is linked statically into the program
  // (iOS under Unity), build with -p:DefineConstants=DRYDB_STATIC_LINK (docs/dotnet.md).
#if DRYDB_STATIC_LINK
  internal const string Lib = "__Internal";
#else
  internal const string Lib = "drydb_c";
#endif

#if NET7_0_OR_GREATER
  [LibraryImport(Lib)] internal static partial byte* drydb_last_error_message();
  [LibraryImport(Lib)] internal static partial byte* drydb_status_name(int status);
  [LibraryImport(Lib)] internal static partial int drydb_db_open(byte* path, OpenOptions* options, IntPtr* db);
  [LibraryImport(Lib)] internal static partial int drydb_db_open_memory(void* data, nuint size, OpenOptions* options, IntPtr* db);
  [LibraryImport(Lib)] internal static partial int drydb_db_close(IntPtr db);
  [LibraryImport(Lib)] internal static partial int drydb_db_verify(IntPtr db);
  [LibraryImport(Lib)] internal static partial int drydb_db_table_count(IntPtr db, nuint* count);
  [LibraryImport(Lib)] internal static partial int drydb_db_table_at(IntPtr db, nuint index, IntPtr* table);
  [LibraryImport(Lib)] internal static partial int drydb_db_table(IntPtr db, byte* name, nuint nameSize, IntPtr* table);
  [LibraryImport(Lib)] internal static partial int drydb_table_name(IntPtr table, byte** name, nuint* size);
  [LibraryImport(Lib)] internal static partial int drydb_table_key_kind(IntPtr table, int* kind);
  [LibraryImport(Lib)] internal static partial int drydb_table_encoding_id(IntPtr table, byte** id, nuint* size);
  [LibraryImport(Lib)] internal static partial int drydb_table_miss_filter_bits(IntPtr table, uint* bits);
  [LibraryImport(Lib)] internal static partial int drydb_table_count(IntPtr table, ulong* count);
  [SuppressGCTransition] [LibraryImport(Lib)] internal static partial int drydb_table_count_range(IntPtr table, NativeBound* start, NativeBound* end, ulong* count);
  [LibraryImport(Lib)] internal static partial int drydb_value_create(IntPtr db, IntPtr* value);
  [LibraryImport(Lib)] internal static partial int drydb_value_release(IntPtr value);
  [SuppressGCTransition] [LibraryImport(Lib)] internal static partial int drydb_table_get(IntPtr table, NativeKey* key, IntPtr value, byte** data, nuint* size);
  [SuppressGCTransition] [LibraryImport(Lib)] internal static partial int drydb_table_get_copy(IntPtr table, NativeKey* key, byte* buffer, nuint capacity, nuint* size);
  [LibraryImport(Lib)] internal static partial int drydb_cursor_create(IntPtr table, IntPtr* cursor);
  [LibraryImport(Lib)] internal static partial int drydb_cursor_release(IntPtr cursor);
  [SuppressGCTransition] [LibraryImport(Lib)] internal static partial int drydb_cursor_first(IntPtr cursor);
  [SuppressGCTransition] [LibraryImport(Lib)] internal static partial int drydb_cursor_last(IntPtr cursor);
  [SuppressGCTransition] [LibraryImport(Lib)] internal static partial int drydb_cursor_seek(IntPtr cursor, NativeKey* key);
  [SuppressGCTransition] [LibraryImport(Lib)] internal static partial int drydb_cursor_seek_exact(IntPtr cursor, NativeKey* key);
  [SuppressGCTransition] [LibraryImport(Lib)] internal static partial int drydb_cursor_seek_rank(IntPtr cursor, ulong rank);
  [LibraryImport(Lib)] internal static partial int drydb_cursor_valid(IntPtr cursor, int* valid);
  [LibraryImport(Lib)] internal static partial int drydb_cursor_rank(IntPtr cursor, ulong* rank);
  [SuppressGCTransition] [LibraryImport(Lib)] internal static partial int drydb_cursor_current(IntPtr cursor, byte** key, nuint* keySize, byte** value, nuint* valueSize);
  [SuppressGCTransition] [LibraryImport(Lib)] internal static partial int drydb_cursor_next_kv(IntPtr cursor, byte** key, nuint* keySize, byte** value, nuint* valueSize);
  [SuppressGCTransition] [LibraryImport(Lib)] internal static partial int drydb_cursor_prev_kv(IntPtr cursor, byte** key, nuint* keySize, byte** value, nuint* valueSize);
  [LibraryImport(Lib)] internal static partial int drydb_range_create(IntPtr db, IntPtr* range);
  [LibraryImport(Lib)] internal static partial int drydb_range_release(IntPtr range);
  [SuppressGCTransition] [LibraryImport(Lib)] internal static partial int drydb_table_range(IntPtr table, NativeBound* start, NativeBound* end, int order, IntPtr range);
  [SuppressGCTransition] [LibraryImport(Lib)] internal static partial int drydb_table_prefix(IntPtr table, byte* prefix, nuint size, int order, IntPtr range);
  [LibraryImport(Lib)] internal static partial int drydb_range_count(IntPtr range, ulong* count);
  [SuppressGCTransition] [LibraryImport(Lib)] internal static partial int drydb_range_next(IntPtr range, byte** key, nuint* keySize, byte** value, nuint* valueSize);
  [LibraryImport(Lib)] internal static partial int drydb_range_rewind(IntPtr range);
  [SuppressGCTransition] [LibraryImport(Lib)] internal static partial int drydb_range_next_batch(IntPtr range, nuint maxRows, NativeRow** rows, nuint* count);
  [LibraryImport(Lib)] internal static partial int drydb_range_index_key(IntPtr range, byte** key, nuint* size);
  [LibraryImport(Lib)] internal static partial int drydb_table_index_count(IntPtr table, nuint* count);
  [LibraryImport(Lib)] internal static partial int drydb_table_index_at(IntPtr table, nuint position, IntPtr* index);
  [LibraryImport(Lib)] internal static partial int drydb_table_index(IntPtr table, byte* name, nuint nameSize, IntPtr* index);
  [LibraryImport(Lib)] internal static partial int drydb_index_name(IntPtr index, byte** name, nuint* size);
  [LibraryImport(Lib)] internal static partial int drydb_index_unique(IntPtr index, int* unique);
  [LibraryImport(Lib)] internal static partial int drydb_index_key_kind(IntPtr index, int* kind);
  [LibraryImport(Lib)] internal static partial int drydb_index_encoding_id(IntPtr index, byte** id, nuint* size);
  [LibraryImport(Lib)] internal static partial int drydb_index_count(IntPtr index, ulong* count);
  [SuppressGCTransition] [LibraryImport(Lib)] internal static partial int drydb_index_count_range(IntPtr index, NativeBound* start, NativeBound* end, ulong* count);
  [SuppressGCTransition] [LibraryImport(Lib)] internal static partial int drydb_index_get(IntPtr index, NativeKey* key, IntPtr holder, byte** keyOut, nuint* keySize, byte** value, nuint* valueSize);
  [SuppressGCTransition] [LibraryImport(Lib)] internal static partial int drydb_index_get_all(IntPtr index, NativeKey* key, IntPtr range);
  [SuppressGCTransition] [LibraryImport(Lib)] internal static partial int drydb_index_range(IntPtr index, NativeBound* start, NativeBound* end, int order, IntPtr range);
  [SuppressGCTransition] [LibraryImport(Lib)] internal static partial int drydb_index_prefix(IntPtr index, byte* prefix, nuint size, int order, IntPtr range);
  [LibraryImport(Lib)] internal static partial int drydb_value_batch_create(IntPtr db, nuint capacity, IntPtr* batch);
  [LibraryImport(Lib)] internal static partial int drydb_value_batch_release(IntPtr batch);
  [SuppressGCTransition] [LibraryImport(Lib)] internal static partial int drydb_table_get_many(IntPtr table, NativeKey* keys, nuint count, IntPtr batch, int* statuses, NativeView* views);
  [LibraryImport(Lib)] internal static partial int drydb_builder_create_with_options(BuilderOptions* options, IntPtr* builder);
  [LibraryImport(Lib)] internal static partial int drydb_builder_release(IntPtr builder);
  [LibraryImport(Lib)] internal static partial int drydb_builder_create_table(IntPtr builder, byte* name, nuint nameSize, int keyKind, IntPtr* table);
  [LibraryImport(Lib)] internal static partial int drydb_table_builder_append(IntPtr table, NativeKey* key, byte* value, nuint valueSize);
  [LibraryImport(Lib)] internal static partial int drydb_table_builder_add_index(IntPtr table, byte* name, nuint nameSize, int unique, int keyKind, IntPtr indexKey, IntPtr context);
  [LibraryImport(Lib)] internal static partial int drydb_table_builder_add_miss_filter(IntPtr table, uint bitsPerKey);
  [LibraryImport(Lib)] internal static partial int drydb_builder_build_to_file(IntPtr builder, byte* path);
  [LibraryImport(Lib)] internal static partial int drydb_builder_build_to_memory(IntPtr builder, byte** data, nuint* size);
  [LibraryImport(Lib)] internal static partial void drydb_free(void* data);
  [LibraryImport(Lib)] internal static partial int drydb_dataset_open(byte* path, OpenOptions* options, IntPtr* dataset);
  [LibraryImport(Lib)] internal static partial int drydb_dataset_close(IntPtr dataset);
  [LibraryImport(Lib)] internal static partial int drydb_dataset_generation(IntPtr dataset, ulong* generation);
  [LibraryImport(Lib)] internal static partial int drydb_dataset_shard_count(IntPtr dataset, uint* count);
  [LibraryImport(Lib)] internal static partial int drydb_dataset_verify(IntPtr dataset);
  [LibraryImport(Lib)] internal static partial int drydb_dataset_table_count(IntPtr dataset, nuint* count);
  [LibraryImport(Lib)] internal static partial int drydb_dataset_table_at(IntPtr dataset, nuint index, IntPtr* table);
  [LibraryImport(Lib)] internal static partial int drydb_sharded_table_name(IntPtr table, byte** name, nuint* size);
  [LibraryImport(Lib)] internal static partial int drydb_sharded_table_key_kind(IntPtr table, int* kind);
  [LibraryImport(Lib)] internal static partial int drydb_sharded_table_encoding_id(IntPtr table, byte** id, nuint* size);
  [LibraryImport(Lib)] internal static partial int drydb_sharded_table_count(IntPtr table, ulong* count);
  [LibraryImport(Lib)] internal static partial int drydb_sharded_table_shard_of(IntPtr table, NativeKey* key, uint* shard);
  [SuppressGCTransition] [LibraryImport(Lib)] internal static partial int drydb_sharded_table_count_range(IntPtr table, NativeBound* start, NativeBound* end, ulong* count);
  [LibraryImport(Lib)] internal static partial int drydb_dataset_value_create(IntPtr dataset, IntPtr* value);
  [SuppressGCTransition] [LibraryImport(Lib)] internal static partial int drydb_sharded_table_get(IntPtr table, NativeKey* key, IntPtr value, byte** data, nuint* size);
  [LibraryImport(Lib)] internal static partial int drydb_dataset_range_create(IntPtr dataset, IntPtr* range);
  [SuppressGCTransition] [LibraryImport(Lib)] internal static partial int drydb_sharded_table_range(IntPtr table, NativeBound* start, NativeBound* end, int order, IntPtr range);
  [SuppressGCTransition] [LibraryImport(Lib)] internal static partial int drydb_sharded_table_prefix(IntPtr table, byte* prefix, nuint size, int order, IntPtr range);
  [LibraryImport(Lib)] internal static partial int drydb_live_dataset_open(byte* path, OpenOptions* options, IntPtr* live);
  [LibraryImport(Lib)] internal static partial int drydb_live_dataset_close(IntPtr live);
  [LibraryImport(Lib)] internal static partial int drydb_live_dataset_refresh(IntPtr live, int* swapped);
  [LibraryImport(Lib)] internal static partial int drydb_live_dataset_generation(IntPtr live, ulong* generation);
  [LibraryImport(Lib)] internal static partial int drydb_live_dataset_retired(IntPtr live, nuint* retired);
  [LibraryImport(Lib)] internal static partial int drydb_live_dataset_pin(IntPtr live, IntPtr* dataset);
#else
  [DllImport(Lib)] internal static extern byte* drydb_last_error_message();
  [DllImport(Lib)] internal static extern byte* drydb_status_name(int status);
  [DllImport(Lib)] internal static extern int drydb_db_open(byte* path, OpenOptions* options, IntPtr* db);
  [DllImport(Lib)] internal static extern int drydb_db_open_memory(void* data, nuint size, OpenOptions* options, IntPtr* db);
  [DllImport(Lib)] internal static extern int drydb_db_close(IntPtr db);
  [DllImport(Lib)] internal static extern int drydb_db_verify(IntPtr db);
  [DllImport(Lib)] internal static extern int drydb_db_table_count(IntPtr db, nuint* count);
  [DllImport(Lib)] internal static extern int drydb_db_table_at(IntPtr db, nuint index, IntPtr* table);
  [DllImport(Lib)] internal static extern int drydb_db_table(IntPtr db, byte* name, nuint nameSize, IntPtr* table);
  [DllImport(Lib)] internal static extern int drydb_table_name(IntPtr table, byte** name, nuint* size);
  [DllImport(Lib)] internal static extern int drydb_table_key_kind(IntPtr table, int* kind);
  [DllImport(Lib)] internal static extern int drydb_table_encoding_id(IntPtr table, byte** id, nuint* size);
  [DllImport(Lib)] internal static extern int drydb_table_miss_filter_bits(IntPtr table, uint* bits);
  [DllImport(Lib)] internal static extern int drydb_table_count(IntPtr table, ulong* count);
  [DllImport(Lib)] internal static extern int drydb_table_count_range(IntPtr table, NativeBound* start, NativeBound* end, ulong* count);
  [DllImport(Lib)] internal static extern int drydb_value_create(IntPtr db, IntPtr* value);
  [DllImport(Lib)] internal static extern int drydb_value_release(IntPtr value);
  [DllImport(Lib)] internal static extern int drydb_table_get(IntPtr table, NativeKey* key, IntPtr value, byte** data, nuint* size);
  [DllImport(Lib)] internal static extern int drydb_table_get_copy(IntPtr table, NativeKey* key, byte* buffer, nuint capacity, nuint* size);
  [DllImport(Lib)] internal static extern int drydb_cursor_create(IntPtr table, IntPtr* cursor);
  [DllImport(Lib)] internal static extern int drydb_cursor_release(IntPtr cursor);
  [DllImport(Lib)] internal static extern int drydb_cursor_first(IntPtr cursor);
  [DllImport(Lib)] internal static extern int drydb_cursor_last(IntPtr cursor);
  [DllImport(Lib)] internal static extern int drydb_cursor_seek(IntPtr cursor, NativeKey* key);
  [DllImport(Lib)] internal static extern int drydb_cursor_seek_exact(IntPtr cursor, NativeKey* key);
  [DllImport(Lib)] internal static extern int drydb_cursor_seek_rank(IntPtr cursor, ulong rank);
  [DllImport(Lib)] internal static extern int drydb_cursor_valid(IntPtr cursor, int* valid);
  [DllImport(Lib)] internal static extern int drydb_cursor_rank(IntPtr cursor, ulong* rank);
  [DllImport(Lib)] internal static extern int drydb_cursor_current(IntPtr cursor, byte** key, nuint* keySize, byte** value, nuint* valueSize);
  [DllImport(Lib)] internal static extern int drydb_cursor_next_kv(IntPtr cursor, byte** key, nuint* keySize, byte** value, nuint* valueSize);
  [DllImport(Lib)] internal static extern int drydb_cursor_prev_kv(IntPtr cursor, byte** key, nuint* keySize, byte** value, nuint* valueSize);
  [DllImport(Lib)] internal static extern int drydb_range_create(IntPtr db, IntPtr* range);
  [DllImport(Lib)] internal static extern int drydb_range_release(IntPtr range);
  [DllImport(Lib)] internal static extern int drydb_table_range(IntPtr table, NativeBound* start, NativeBound* end, int order, IntPtr range);
  [DllImport(Lib)] internal static extern int drydb_table_prefix(IntPtr table, byte* prefix, nuint size, int order, IntPtr range);
  [DllImport(Lib)] internal static extern int drydb_range_count(IntPtr range, ulong* count);
  [DllImport(Lib)] internal static extern int drydb_range_next(IntPtr range, byte** key, nuint* keySize, byte** value, nuint* valueSize);
  [DllImport(Lib)] internal static extern int drydb_range_rewind(IntPtr range);
  [DllImport(Lib)] internal static extern int drydb_range_next_batch(IntPtr range, nuint maxRows, NativeRow** rows, nuint* count);
  [DllImport(Lib)] internal static extern int drydb_range_index_key(IntPtr range, byte** key, nuint* size);
  [DllImport(Lib)] internal static extern int drydb_table_index_count(IntPtr table, nuint* count);
  [DllImport(Lib)] internal static extern int drydb_table_index_at(IntPtr table, nuint position, IntPtr* index);
  [DllImport(Lib)] internal static extern int drydb_table_index(IntPtr table, byte* name, nuint nameSize, IntPtr* index);
  [DllImport(Lib)] internal static extern int drydb_index_name(IntPtr index, byte** name, nuint* size);
  [DllImport(Lib)] internal static extern int drydb_index_unique(IntPtr index, int* unique);
  [DllImport(Lib)] internal static extern int drydb_index_key_kind(IntPtr index, int* kind);
  [DllImport(Lib)] internal static extern int drydb_index_encoding_id(IntPtr index, byte** id, nuint* size);
  [DllImport(Lib)] internal static extern int drydb_index_count(IntPtr index, ulong* count);
  [DllImport(Lib)] internal static extern int drydb_index_count_range(IntPtr index, NativeBound* start, NativeBound* end, ulong* count);
  [DllImport(Lib)] internal static extern int drydb_index_get(IntPtr index, NativeKey* key, IntPtr holder, byte** keyOut, nuint* keySize, byte** value, nuint* valueSize);
  [DllImport(Lib)] internal static extern int drydb_index_get_all(IntPtr index, NativeKey* key, IntPtr range);
  [DllImport(Lib)] internal static extern int drydb_index_range(IntPtr index, NativeBound* start, NativeBound* end, int order, IntPtr range);
  [DllImport(Lib)] internal static extern int drydb_index_prefix(IntPtr index, byte* prefix, nuint size, int order, IntPtr range);
  [DllImport(Lib)] internal static extern int drydb_value_batch_create(IntPtr db, nuint capacity, IntPtr* batch);
  [DllImport(Lib)] internal static extern int drydb_value_batch_release(IntPtr batch);
  [DllImport(Lib)] internal static extern int drydb_table_get_many(IntPtr table, NativeKey* keys, nuint count, IntPtr batch, int* statuses, NativeView* views);
  [DllImport(Lib)] internal static extern int drydb_builder_create_with_options(BuilderOptions* options, IntPtr* builder);
  [DllImport(Lib)] internal static extern int drydb_builder_release(IntPtr builder);
  [DllImport(Lib)] internal static extern int drydb_builder_create_table(IntPtr builder, byte* name, nuint nameSize, int keyKind, IntPtr* table);
  [DllImport(Lib)] internal static extern int drydb_table_builder_append(IntPtr table, NativeKey* key, byte* value, nuint valueSize);
  [DllImport(Lib)] internal static extern int drydb_table_builder_add_index(IntPtr table, byte* name, nuint nameSize, int unique, int keyKind, IntPtr indexKey, IntPtr context);
  [DllImport(Lib)] internal static extern int drydb_table_builder_add_miss_filter(IntPtr table, uint bitsPerKey);
  [DllImport(Lib)] internal static extern int drydb_builder_build_to_file(IntPtr builder, byte* path);
  [DllImport(Lib)] internal static extern int drydb_builder_build_to_memory(IntPtr builder, byte** data, nuint* size);
  [DllImport(Lib)] internal static extern void drydb_free(void* data);
  [DllImport(Lib)] internal static extern int drydb_dataset_open(byte* path, OpenOptions* options, IntPtr* dataset);
  [DllImport(Lib)] internal static extern int drydb_dataset_close(IntPtr dataset);
  [DllImport(Lib)] internal static extern int drydb_dataset_generation(IntPtr dataset, ulong* generation);
  [DllImport(Lib)] internal static extern int drydb_dataset_shard_count(IntPtr dataset, uint* count);
  [DllImport(Lib)] internal static extern int drydb_dataset_verify(IntPtr dataset);
  [DllImport(Lib)] internal static extern int drydb_dataset_table_count(IntPtr dataset, nuint* count);
  [DllImport(Lib)] internal static extern int drydb_dataset_table_at(IntPtr dataset, nuint index, IntPtr* table);
  [DllImport(Lib)] internal static extern int drydb_sharded_table_name(IntPtr table, byte** name, nuint* size);
  [DllImport(Lib)] internal static extern int drydb_sharded_table_key_kind(IntPtr table, int* kind);
  [DllImport(Lib)] internal static extern int drydb_sharded_table_encoding_id(IntPtr table, byte** id, nuint* size);
  [DllImport(Lib)] internal static extern int drydb_sharded_table_count(IntPtr table, ulong* count);
  [DllImport(Lib)] internal static extern int drydb_sharded_table_shard_of(IntPtr table, NativeKey* key, uint* shard);
  [DllImport(Lib)] internal static extern int drydb_sharded_table_count_range(IntPtr table, NativeBound* start, NativeBound* end, ulong* count);
  [DllImport(Lib)] internal static extern int drydb_dataset_value_create(IntPtr dataset, IntPtr* value);
  [DllImport(Lib)] internal static extern int drydb_sharded_table_get(IntPtr table, NativeKey* key, IntPtr value, byte** data, nuint* size);
  [DllImport(Lib)] internal static extern int drydb_dataset_range_create(IntPtr dataset, IntPtr* range);
  [DllImport(Lib)] internal static extern int drydb_sharded_table_range(IntPtr table, NativeBound* start, NativeBound* end, int order, IntPtr range);
  [DllImport(Lib)] internal static extern int drydb_sharded_table_prefix(IntPtr table, byte* prefix, nuint size, int order, IntPtr range);
  [DllImport(Lib)] internal static extern int drydb_live_dataset_open(byte* path, OpenOptions* options, IntPtr* live);
  [DllImport(Lib)] internal static extern int drydb_live_dataset_close(IntPtr live);
  [DllImport(Lib)] internal static extern int drydb_live_dataset_refresh(IntPtr live, int* swapped);
  [DllImport(Lib)] internal static extern int drydb_live_dataset_generation(IntPtr live, ulong* generation);
  [DllImport(Lib)] internal static extern int drydb_live_dataset_retired(IntPtr live, nuint* retired);
  [DllImport(Lib)] internal static extern int drydb_live_dataset_pin(IntPtr live, IntPtr* dataset);
#endif
}
