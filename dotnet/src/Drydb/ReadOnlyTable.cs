// A table of a read-only database, and its secondary indexes.

namespace Drydb;

/// <summary>One table: gets, ranges, counts and prefix scans by primary key (see
/// <see cref="KeyValueStore"/>), iterators, and its secondary indexes. Safe to share between
/// threads; valid while its database is undisposed.</summary>
public sealed unsafe partial class ReadOnlyTable : KeyValueStore
{
  private readonly NamedItems<SecondaryIndex> indexes;

  internal ReadOnlyTable(ReadOnlyDatabase database, IntPtr handle) : base(database, database.Core, handle, StoreKind.Table)
  {
    (Name, KeyEncoding) = Describe(NativeMethods.drydb_table_name, NativeMethods.drydb_table_key_kind,
                                   NativeMethods.drydb_table_encoding_id);
    uint bits;
    Errors.Check(NativeMethods.drydb_table_miss_filter_bits(handle, &bits));
    MissFilterBitsPerKey = (int)bits;
    indexes = new NamedItems<SecondaryIndex>(handle, NativeMethods.drydb_table_index_count, NativeMethods.drydb_table_index_at,
                                             index => new SecondaryIndex(database, this, index), index => index.Name,
                                             $"table \"{Name}\" has no index");
  }

  /// <summary>The table's name.</summary>
  public string Name { get; }

  /// <inheritdoc/>
  public override KeyEncoding KeyEncoding { get; }

  /// <summary>The miss filter's bits per key as built (0: none).</summary>
  public int MissFilterBitsPerKey { get; }


  /// <summary>The names of the table's secondary indexes, in declaration order.</summary>
  public IReadOnlyList<string> IndexNames => indexes.Names;

  /// <summary>The secondary index named `name`.</summary>
  /// <exception cref="KeyNotFoundException">The table has no index of that name.</exception>
  public SecondaryIndex Index(string name)
  {
    ThrowIfDisposed();
    return indexes.Get(name);
  }

  /// <summary>A cursor over the rows in key order, unpositioned: its first MoveNext goes to the
  /// first row (Forward) or the last (Backward). Dispose it.</summary>
  public RangeIterator CreateIterator(IteratorDirection direction = IteratorDirection.Forward) =>
    new RangeIterator(Core, this, direction);

  /// <inheritdoc/>
  public override string ToString() => $"ReadOnlyTable({Name}, {KeyEncoding})";
}

/// <summary>A secondary index of a table: its queries give the table's rows (their primary key
/// as the range's key, their value as the value), in index-key order.</summary>
public sealed unsafe class SecondaryIndex : KeyValueStore
{
  internal SecondaryIndex(ReadOnlyDatabase database, ReadOnlyTable table, IntPtr handle)
    : base(database, database.Core, handle, StoreKind.Index)
  {
    Table = table;
    (Name, KeyEncoding) = Describe(NativeMethods.drydb_index_name, NativeMethods.drydb_index_key_kind,
                                   NativeMethods.drydb_index_encoding_id);
    int unique;
    Errors.Check(NativeMethods.drydb_index_unique(handle, &unique));
    IsUnique = unique != 0;
  }

  /// <summary>The table indexed.</summary>
  public ReadOnlyTable Table { get; }

  /// <summary>The index's name.</summary>
  public string Name { get; }

  /// <summary>True for a unique index.</summary>
  public bool IsUnique { get; }

  /// <inheritdoc/>
  public override KeyEncoding KeyEncoding { get; }

  /// <summary>Every row whose index key is `key`, in primary-key order (or its reverse).</summary>
  public RangeResult GetAll(ReadOnlySpan<byte> key, SortOrder sortOrder = SortOrder.Ascending)
  {
    fixed (byte* p = key) return GetAllCore(NativeKey.Bytes(p, key.Length, SpanKeyKind), sortOrder);
  }

  /// <summary>GetAll of a text key (UTF-8).</summary>
  public RangeResult GetAll(string key, SortOrder sortOrder = SortOrder.Ascending)
  {
    if (key == null) throw new ArgumentNullException(nameof(key));
    using var utf8 = new Utf8Key(key, stackalloc byte[Utf8Key.StackBytes], nameof(key));
    return GetAll(utf8.Bytes, sortOrder);
  }

  /// <summary>GetAll of an int64 key.</summary>
  public RangeResult GetAll(long key, SortOrder sortOrder = SortOrder.Ascending) =>
    GetAllCore(NativeKey.Integer(key), sortOrder);

  /// <summary>GetAll, as a completed task.</summary>
  public System.Threading.Tasks.ValueTask<RangeResult> GetAllAsync(ReadOnlyMemory<byte> key,
                                                                   SortOrder sortOrder = SortOrder.Ascending) =>
    new System.Threading.Tasks.ValueTask<RangeResult>(GetAll(key.Span, sortOrder));

  private RangeResult GetAllCore(NativeKey key, SortOrder sortOrder)
  {
    // Two inclusive bounds of the key: ascending is drydb_index_get_all, descending its reverse.
    NativeBound bound = new NativeBound { Kind = NativeBound.Inclusive, Key = key };
    NativeSlot slot = Core.TakeRangeSlot();
    int token = slot.Token;
    int status = sortOrder == SortOrder.Ascending
      ? NativeMethods.drydb_index_get_all(Handle, &key, slot.Handle)
      : NativeMethods.drydb_index_range(Handle, &bound, &bound, (int)sortOrder, slot.Handle);
    return FinishRange(slot, token, status, batched: false);
  }


  /// <inheritdoc/>
  public override string ToString() => $"SecondaryIndex({Table.Name}.{Name}, {KeyEncoding}, unique: {IsUnique})";
}
