// The structs of include/drydb/c.h, field for field (x86-64 and arm64 layouts: a 4-byte kind,
// then pointer-aligned fields), its status and kind numbers, and the shapes of the C calls code
// takes as arguments (one query made through the calls of a table, an index or a dataset).

namespace Drydb.Native;

/// <summary>drydb_key: a borrowed key; Kind says which field holds it.</summary>
[StructLayout(LayoutKind.Sequential)]
internal unsafe struct NativeKey
{
  internal int Kind;
  internal byte* Data;
  internal nuint Size;
  internal long Int64;

  /// <summary>Key bytes of a bytes table, or (kind) the 16 bytes of a UUID or ULID key.</summary>
  internal static NativeKey Bytes(byte* data, int size, int kind = KeyKinds.Bytes) =>
    new NativeKey { Kind = kind, Data = data, Size = (nuint)size };

  internal static NativeKey Integer(long value) => new NativeKey { Kind = KeyKinds.Int64, Int64 = value };
}

/// <summary>drydb_bound: one end of a range or count.</summary>
[StructLayout(LayoutKind.Sequential)]
internal struct NativeBound
{
  internal const int Unbounded = 0, Inclusive = 1, Exclusive = 2;
  internal int Kind;
  internal NativeKey Key;
}

/// <summary>drydb_view: a borrowed view.</summary>
[StructLayout(LayoutKind.Sequential)]
internal unsafe struct NativeView
{
  internal byte* Data;
  internal nuint Size;
}

/// <summary>drydb_row: a batch's row, views of its key and value.</summary>
[StructLayout(LayoutKind.Sequential)]
internal unsafe struct NativeRow
{
  internal byte* Key;
  internal nuint KeySize;
  internal byte* Value;
  internal nuint ValueSize;
}

/// <summary>drydb_open_options.</summary>
[StructLayout(LayoutKind.Sequential)]
internal struct OpenOptions
{
  internal int Storage;
  internal ulong PageCacheBytes;
}

/// <summary>drydb_builder_options.</summary>
[StructLayout(LayoutKind.Sequential)]
internal unsafe struct BuilderOptions
{
  internal uint PageSize;
  internal ulong MemoryBudget;
  internal byte* TempDir;
  internal int Compression;
  internal int ZstdLevel;
  internal ulong ZstdDictionaryBytes;
  internal int WholeKeys;
  internal int NoFileIdentity;
}

/// <summary>drydb_key_kind.</summary>
internal static class KeyKinds
{
  internal const int Bytes = 0, Int64 = 1, Uuid = 2, Ulid = 3;
}

/// <summary>The statuses every C call returns that are not errors.</summary>
internal static class Status
{
  internal const int Ok = 0;
  internal const int End = -1;
  internal const int BufferTooSmall = 100;
}

/// <summary>A C API call that writes its one result through its last argument (a count, a key
/// kind, a generation); this and the two below are the calls code takes as arguments.</summary>
internal unsafe delegate int ResultCall<TResult>(IntPtr handle, TResult* result) where TResult : unmanaged;

/// <summary>A C API call that gives the item at a position (drydb_db_table_at and the like).</summary>
internal unsafe delegate int ItemAtCall(IntPtr handle, nuint index, IntPtr* item);

/// <summary>A C API call that gives a text (a name, an encoding id) as borrowed bytes and a size.</summary>
internal unsafe delegate int TextCall(IntPtr handle, byte** text, nuint* size);
