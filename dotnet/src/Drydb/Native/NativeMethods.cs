// The C API (include/drydb/c.h) as .NET sees it: every function drydb uses, with blittable
// signatures only (pointers, IntPtr handles, integers and the structs of NativeTypes.cs), so
// no call marshals or allocates. One DllImport list serves every target: for signatures like
// these, with nothing to marshal, LibraryImport's generator would emit this very declaration
// (DllImport, ExactSpelling) on .NET 8 and 10, and netstandard2.1 (Unity) has only DllImport.
// Keep the signatures blittable. NativeBindingTests checks each name is a C API export.
//
// [SuppressGCTransition] marks the query calls: short, never blocking on a lock held across a
// managed call, never calling back into .NET. It saves the transition's cost on every get,
// range step and cursor step; the price is that a GC waits for a call that page-faults on a
// mapped file (documented in docs/dotnet.md). netstandard2.1 has no such attribute: there the
// mark is the inert stand-in at the end of this file, and each call takes the transition.

namespace Drydb.Native;

internal static unsafe class NativeMethods
{
  // "drydb_c" resolves to libdrydb_c.so beside the application or in the package's
  // runtimes/<rid>/native folder. Where the library is linked statically into the program
  // (iOS under Unity), build with -p:DefineConstants=DRYDB_STATIC_LINK (docs/dotnet.md).
#if DRYDB_STATIC_LINK
  internal const string Lib = "__Internal";
#else
  internal const string Lib = "drydb_c";
#endif

  [DllImport(Lib, ExactSpelling = true)] internal static extern byte* drydb_last_error_message();
  [DllImport(Lib, ExactSpelling = true)] internal static extern byte* drydb_status_name(int status);
  [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_db_open(byte* path, OpenOptions* options, IntPtr* db);
  [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_db_open_memory(void* data, nuint size, OpenOptions* options, IntPtr* db);
  [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_db_close(IntPtr db);
  [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_db_verify(IntPtr db);
  [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_db_table_count(IntPtr db, nuint* count);
  [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_db_table_at(IntPtr db, nuint index, IntPtr* table);
  [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_db_table(IntPtr db, byte* name, nuint nameSize, IntPtr* table);
  [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_table_name(IntPtr table, byte** name, nuint* size);
  [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_table_key_kind(IntPtr table, int* kind);
  [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_table_encoding_id(IntPtr table, byte** id, nuint* size);
  [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_table_miss_filter_bits(IntPtr table, uint* bits);
  [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_table_count(IntPtr table, ulong* count);
  [SuppressGCTransition] [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_table_count_range(IntPtr table, NativeBound* start, NativeBound* end, ulong* count);
  [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_value_create(IntPtr db, IntPtr* value);
  [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_value_release(IntPtr value);
  [SuppressGCTransition] [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_table_get(IntPtr table, NativeKey* key, IntPtr value, byte** data, nuint* size);
  [SuppressGCTransition] [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_table_get_copy(IntPtr table, NativeKey* key, byte* buffer, nuint capacity, nuint* size);
  [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_cursor_create(IntPtr table, IntPtr* cursor);
  [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_cursor_release(IntPtr cursor);
  [SuppressGCTransition] [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_cursor_first(IntPtr cursor);
  [SuppressGCTransition] [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_cursor_last(IntPtr cursor);
  [SuppressGCTransition] [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_cursor_seek(IntPtr cursor, NativeKey* key);
  [SuppressGCTransition] [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_cursor_seek_exact(IntPtr cursor, NativeKey* key);
  [SuppressGCTransition] [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_cursor_seek_rank(IntPtr cursor, ulong rank);
  [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_cursor_valid(IntPtr cursor, int* valid);
  [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_cursor_rank(IntPtr cursor, ulong* rank);
  [SuppressGCTransition] [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_cursor_current(IntPtr cursor, byte** key, nuint* keySize, byte** value, nuint* valueSize);
  [SuppressGCTransition] [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_cursor_next_kv(IntPtr cursor, byte** key, nuint* keySize, byte** value, nuint* valueSize);
  [SuppressGCTransition] [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_cursor_prev_kv(IntPtr cursor, byte** key, nuint* keySize, byte** value, nuint* valueSize);
  [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_range_create(IntPtr db, IntPtr* range);
  [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_range_release(IntPtr range);
  [SuppressGCTransition] [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_table_range(IntPtr table, NativeBound* start, NativeBound* end, int order, IntPtr range);
  [SuppressGCTransition] [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_table_prefix(IntPtr table, byte* prefix, nuint size, int order, IntPtr range);
  [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_range_count(IntPtr range, ulong* count);
  [SuppressGCTransition] [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_range_next(IntPtr range, byte** key, nuint* keySize, byte** value, nuint* valueSize);
  [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_range_rewind(IntPtr range);
  [SuppressGCTransition] [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_range_next_batch(IntPtr range, nuint maxRows, NativeRow** rows, nuint* count);
  [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_range_index_key(IntPtr range, byte** key, nuint* size);
  [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_table_index_count(IntPtr table, nuint* count);
  [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_table_index_at(IntPtr table, nuint position, IntPtr* index);
  [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_table_index(IntPtr table, byte* name, nuint nameSize, IntPtr* index);
  [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_index_name(IntPtr index, byte** name, nuint* size);
  [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_index_unique(IntPtr index, int* unique);
  [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_index_key_kind(IntPtr index, int* kind);
  [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_index_encoding_id(IntPtr index, byte** id, nuint* size);
  [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_index_count(IntPtr index, ulong* count);
  [SuppressGCTransition] [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_index_count_range(IntPtr index, NativeBound* start, NativeBound* end, ulong* count);
  [SuppressGCTransition] [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_index_get(IntPtr index, NativeKey* key, IntPtr holder, byte** keyOut, nuint* keySize, byte** value, nuint* valueSize);
  [SuppressGCTransition] [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_index_get_all(IntPtr index, NativeKey* key, IntPtr range);
  [SuppressGCTransition] [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_index_range(IntPtr index, NativeBound* start, NativeBound* end, int order, IntPtr range);
  [SuppressGCTransition] [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_index_prefix(IntPtr index, byte* prefix, nuint size, int order, IntPtr range);
  [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_value_batch_create(IntPtr db, nuint capacity, IntPtr* batch);
  [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_value_batch_release(IntPtr batch);
  [SuppressGCTransition] [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_table_get_many(IntPtr table, NativeKey* keys, nuint count, IntPtr batch, int* statuses, NativeView* views);
  [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_builder_create_with_options(BuilderOptions* options, IntPtr* builder);
  [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_builder_release(IntPtr builder);
  [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_builder_create_table(IntPtr builder, byte* name, nuint nameSize, int keyKind, IntPtr* table);
  [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_table_builder_append(IntPtr table, NativeKey* key, byte* value, nuint valueSize);
  [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_table_builder_add_index(IntPtr table, byte* name, nuint nameSize, int unique, int keyKind, IntPtr indexKey, IntPtr context);
  [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_table_builder_add_miss_filter(IntPtr table, uint bitsPerKey);
  [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_builder_build_to_file(IntPtr builder, byte* path);
  [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_builder_build_to_memory(IntPtr builder, byte** data, nuint* size);
  [DllImport(Lib, ExactSpelling = true)] internal static extern void drydb_free(void* data);
  [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_dataset_open(byte* path, OpenOptions* options, IntPtr* dataset);
  [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_dataset_close(IntPtr dataset);
  [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_dataset_generation(IntPtr dataset, ulong* generation);
  [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_dataset_shard_count(IntPtr dataset, uint* count);
  [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_dataset_verify(IntPtr dataset);
  [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_dataset_table_count(IntPtr dataset, nuint* count);
  [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_dataset_table_at(IntPtr dataset, nuint index, IntPtr* table);
  [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_sharded_table_name(IntPtr table, byte** name, nuint* size);
  [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_sharded_table_key_kind(IntPtr table, int* kind);
  [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_sharded_table_encoding_id(IntPtr table, byte** id, nuint* size);
  [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_sharded_table_count(IntPtr table, ulong* count);
  [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_sharded_table_shard_of(IntPtr table, NativeKey* key, uint* shard);
  [SuppressGCTransition] [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_sharded_table_count_range(IntPtr table, NativeBound* start, NativeBound* end, ulong* count);
  [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_dataset_value_create(IntPtr dataset, IntPtr* value);
  [SuppressGCTransition] [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_sharded_table_get(IntPtr table, NativeKey* key, IntPtr value, byte** data, nuint* size);
  [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_dataset_range_create(IntPtr dataset, IntPtr* range);
  [SuppressGCTransition] [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_sharded_table_range(IntPtr table, NativeBound* start, NativeBound* end, int order, IntPtr range);
  [SuppressGCTransition] [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_sharded_table_prefix(IntPtr table, byte* prefix, nuint size, int order, IntPtr range);
  [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_live_dataset_open(byte* path, OpenOptions* options, IntPtr* live);
  [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_live_dataset_close(IntPtr live);
  [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_live_dataset_refresh(IntPtr live, int* swapped);
  [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_live_dataset_generation(IntPtr live, ulong* generation);
  [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_live_dataset_retired(IntPtr live, nuint* retired);
  [DllImport(Lib, ExactSpelling = true)] internal static extern int drydb_live_dataset_pin(IntPtr live, IntPtr* dataset);
}

#if !NET5_0_OR_GREATER
/// <summary>netstandard2.1's stand-in for System.Runtime.InteropServices.SuppressGCTransition, so
/// that the one list of imports compiles there. Conditional on a symbol never defined, it is not
/// written into the assembly: that build's calls keep their GC transition, as they always did.</summary>
[AttributeUsage(AttributeTargets.Method)]
[System.Diagnostics.Conditional("DRYDB_NEVER_DEFINED")]
internal sealed class SuppressGCTransitionAttribute : Attribute
{
}
#endif
