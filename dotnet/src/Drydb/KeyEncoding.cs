// Key encodings, enums and small option types of the public API.

namespace Drydb;

/// <summary>How a table or index orders and stores its keys. Every encoding orders keys by the
/// unsigned byte-wise comparison of their stored bytes (docs/format.md).</summary>
public sealed class KeyEncoding
{
  /// <summary>Byte strings in ordinal (memcmp) order: ASCII or UTF-8 text, or any bytes. The
  /// C# DryDB's default.</summary>
  public static readonly KeyEncoding Ascii = new KeyEncoding("bytes", Native.KeyKinds.Bytes);
  /// <summary>UTF-8 text in ordinal (code point) order; the same encoding as <see cref="Ascii"/>.</summary>
  public static readonly KeyEncoding Utf8 = Ascii;
  /// <summary>Any bytes in ordinal order; the same encoding as <see cref="Ascii"/>.</summary>
  public static readonly KeyEncoding Bytes = Ascii;
  /// <summary>Signed 64-bit integers in numeric order (stored big-endian with the sign bit
  /// flipped; the name is the C# DryDB's).</summary>
  public static readonly KeyEncoding Int64LittleEndian = new KeyEncoding("int64", Native.KeyKinds.Int64);
  /// <summary>Signed 64-bit integers in numeric order; the same encoding as <see cref="Int64LittleEndian"/>.</summary>
  public static readonly KeyEncoding Int64 = Int64LittleEndian;
  /// <summary>UUIDs (16 bytes in RFC 9562 byte order, version 7 sorting by time).</summary>
  public static readonly KeyEncoding Uuidv7 = new KeyEncoding("uuid_v7", Native.KeyKinds.Uuid);
  /// <summary>ULIDs (16 bytes, sorting by time).</summary>
  public static readonly KeyEncoding Ulid = new KeyEncoding("ulid", Native.KeyKinds.Ulid);

  /// <summary>The encoding's id as the file names it ("bytes", "int64", "uuid_v7", "ulid", or a
  /// custom encoding's id).</summary>
  public string Id { get; }

  internal int Kind { get; }

  private KeyEncoding(string id, int kind)
  {
    Id = id;
    Kind = kind;
  }

  /// <summary>The encoding a file names: a built-in one, or for a custom id a bytes encoding
  /// carrying that id.</summary>
  internal static KeyEncoding FromFile(string id, int kind) => id switch
  {
    "bytes" => Ascii,
    "int64" => Int64LittleEndian,
    "uuid_v7" => Uuidv7,
    "ulid" => Ulid,
    _ => new KeyEncoding(id, kind),
  };

  /// <inheritdoc/>
  public override string ToString() => Id;
}

/// <summary>The order of a range.</summary>
public enum SortOrder
{
  /// <summary>Smallest key first.</summary>
  Ascending,
  /// <summary>Largest key first.</summary>
  Descending,
}

/// <summary>Which way an iterator's MoveNext goes.</summary>
public enum IteratorDirection
{
  /// <summary>From the first row towards the last.</summary>
  Forward,
  /// <summary>From the last row towards the first.</summary>
  Backward,
}

/// <summary>Unbounded range ends: pass <see cref="Unbound"/> (an empty key) as a range's start or
/// end.</summary>
public static class KeyRange
{
  /// <summary>An empty key: as a bound, no bound.</summary>
  public static readonly byte[] Unbound = Array.Empty<byte>();
  /// <summary>The same as <see cref="Unbound"/>.</summary>
  public static readonly byte[] UnBound = Unbound;
}

/// <summary>How a file's bytes are reached.</summary>
public enum StorageKind
{
  /// <summary>Map the file (the default): pages are read in place. A file cut short in place
  /// while mapped ends the process (SIGBUS); replace files by rename.</summary>
  Mmap = 0,
  /// <summary>Positional reads into a bounded page cache: safe when the file changes under it.</summary>
  Pread = 1,
  /// <summary>Read the whole file into memory at open.</summary>
  Memory = 2,
}

/// <summary>How a database is opened.</summary>
public sealed record DatabaseLoadOptions
{
  /// <summary>The defaults: mapped storage, a 64 MiB page cache bound.</summary>
  public static DatabaseLoadOptions Default => new DatabaseLoadOptions();

  /// <summary>How the file's bytes are reached.</summary>
  public StorageKind Storage { get; init; } = StorageKind.Mmap;

  /// <summary>Bound in bytes on the cached leaf and overflow pages of <see cref="StorageKind.Pread"/>
  /// storage; 0 = the default, 64 MiB.</summary>
  public long CacheSize { get; init; }
}

/// <summary>How pages are compressed.</summary>
public enum Compression
{
  /// <summary>Pages as they are.</summary>
  None = 0,
  /// <summary>One LZ4 block per page: fast to decode.</summary>
  Lz4 = 1,
  /// <summary>One zstd frame per page: smaller; see ZstdLevel and ZstdDictionarySize.</summary>
  Zstd = 2,
}
