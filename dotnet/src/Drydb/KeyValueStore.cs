// The queries a table and a secondary index share (the C# DryDB's IKeyValueStore): get, ranges,
// counts and prefixes, for byte, text and integer keys. Each overload builds the C API's key or
// bounds on the stack and makes one native call.

namespace Drydb;

/// <summary>A table, a secondary index or a sharded dataset's table: what all answer.</summary>
public abstract unsafe class KeyValueStore
{
  internal enum StoreKind { Table, Index, ShardedTable }

  internal readonly DatabaseCore Core;
  internal readonly IntPtr Handle;
  private readonly StoreKind kind;
  // The database or dataset object: kept reachable (so not finalized) while its stores are.
  private readonly object owner;

  internal KeyValueStore(object owner, DatabaseCore core, IntPtr handle, StoreKind kind)
  {
    this.owner = owner;
    Core = core;
    Handle = handle;
    this.kind = kind;
  }

  internal void ThrowIfDisposed()
  {
    if (Core.IsDisposed) throw new ObjectDisposedException(owner.GetType().Name);
  }

  /// <summary>A lease for one call that needs no holder (a count): ended with its token.</summary>
  internal NativeSlot Enter(out int token)
  {
    NativeSlot slot = Core.TakeValueSlot();
    token = slot.Token;
    return slot;
  }

  /// <summary>The key encoding.</summary>
  public abstract KeyEncoding KeyEncoding { get; }

  // The kind of a key given as bytes: a UUID or ULID store's 16 bytes, else bytes (an int64
  // store then refuses it). Set by Describe, from the derived constructors.
  internal int SpanKeyKind = KeyKinds.Bytes;

  /// <summary>The store's name and key encoding, read with its kind's C calls (its name, key
  /// kind and encoding id); sets SpanKeyKind.</summary>
  internal (string Name, KeyEncoding Encoding) Describe(TextCall name, ResultCall<int> keyKind, TextCall encodingId)
  {
    byte* text;
    nuint size;
    Errors.Check(name(Handle, &text, &size));
    string storeName = Keys.Text(text, size);
    int kind;
    Errors.Check(keyKind(Handle, &kind));
    Errors.Check(encodingId(Handle, &text, &size));
    KeyEncoding encoding = KeyEncoding.FromFile(Keys.Text(text, size), kind);
    SpanKeyKind = encoding.Kind is KeyKinds.Uuid or KeyKinds.Ulid ? encoding.Kind : KeyKinds.Bytes;
    return (storeName, encoding);
  }

  /// <summary>The number of rows (of an index: its entries; of a sharded table: in every
  /// shard), O(1).</summary>
  public long Count
  {
    get
    {
      NativeSlot lease = Enter(out int token);
      ulong count;
      int status = kind switch
      {
        StoreKind.Table => NativeMethods.drydb_table_count(Handle, &count),
        StoreKind.Index => NativeMethods.drydb_index_count(Handle, &count),
        _ => NativeMethods.drydb_sharded_table_count(Handle, &count),
      };
      lease.Release(token);
      Errors.Check(status);
      return (long)count;
    }
  }

  // ---- get -------------------------------------------------------------------------------

  /// <summary>The value of `key` (a bytes or text key's UTF-8 bytes; the fastest form).</summary>
  [MethodImpl(MethodImplOptions.AggressiveInlining)]
  public SingleValueResult Get(ReadOnlySpan<byte> key)
  {
    fixed (byte* p = key)
    {
      NativeKey k = NativeKey.Bytes(p, key.Length, SpanKeyKind);
      return GetCore(&k);
    }
  }

  /// <summary>The value of a text key (UTF-8).</summary>
  public SingleValueResult Get(string key)
  {
    if (key == null) throw new ArgumentNullException(nameof(key));
    using var utf8 = new Utf8Key(key, stackalloc byte[Utf8Key.StackBytes], nameof(key));
    return Get(utf8.Bytes);
  }

  /// <summary>The value of an int64 key.</summary>
  [MethodImpl(MethodImplOptions.AggressiveInlining)]
  public SingleValueResult Get(long key)
  {
    NativeKey k = NativeKey.Integer(key);
    return GetCore(&k);
  }

  /// <summary>The value of an int64 key.</summary>
  public SingleValueResult Get(int key) => Get((long)key);

  /// <summary>The value of a UUID key.</summary>
  public SingleValueResult Get(Guid key)
  {
    byte* bytes = stackalloc byte[16];
    Keys.WriteUuid(key, new Span<byte>(bytes, 16));
    NativeKey k = new NativeKey { Kind = KeyKinds.Uuid, Data = bytes, Size = 16 };
    return GetCore(&k);
  }

  /// <summary>Get, as a completed task (reads of mapped or loaded files never wait; a pread
  /// database reads on the calling thread).</summary>
  public ValueTask<SingleValueResult> GetAsync(ReadOnlyMemory<byte> key, CancellationToken cancellationToken = default)
  {
    cancellationToken.ThrowIfCancellationRequested();
    return new ValueTask<SingleValueResult>(Get(key.Span));
  }

  /// <summary>Get of a text key, as a completed task.</summary>
  public ValueTask<SingleValueResult> GetAsync(string key, CancellationToken cancellationToken = default)
  {
    cancellationToken.ThrowIfCancellationRequested();
    return new ValueTask<SingleValueResult>(Get(key));
  }

  /// <summary>Get of an int64 key, as a completed task.</summary>
  public ValueTask<SingleValueResult> GetAsync(long key, CancellationToken cancellationToken = default)
  {
    cancellationToken.ThrowIfCancellationRequested();
    return new ValueTask<SingleValueResult>(Get(key));
  }

  [MethodImpl(MethodImplOptions.AggressiveInlining)]
  private SingleValueResult GetCore(NativeKey* key)
  {
    NativeSlot slot = Core.TakeValueSlot();
    int token = slot.Token;
    byte* data;
    nuint size;
    int status = kind switch
    {
      StoreKind.Table => NativeMethods.drydb_table_get(Handle, key, slot.Handle, &data, &size),
      StoreKind.Index => NativeMethods.drydb_index_get(Handle, key, slot.Handle, null, null, &data, &size),
      _ => NativeMethods.drydb_sharded_table_get(Handle, key, slot.Handle, &data, &size),
    };
    if (status == Status.Ok && size <= int.MaxValue) return new SingleValueResult(slot, token, data, (int)size);
    slot.Release(token);
    if (status == Status.Ok) throw new NotSupportedException("the value is larger than a span can view");
    if (status != Status.End) Errors.Throw(status);
    return default;
  }

  // ---- ranges ----------------------------------------------------------------------------

  /// <summary>The rows between startKey and endKey (an empty key, <see cref="KeyRange.Unbound"/>,
  /// is no bound), each end inclusive unless its flag says exclusive, in sortOrder.</summary>
  /// <exception cref="ArgumentException">startKey is greater than endKey.</exception>
  public RangeResult GetRange(ReadOnlySpan<byte> startKey, ReadOnlySpan<byte> endKey, bool startKeyExclusive = false,
                              bool endKeyExclusive = false, SortOrder sortOrder = SortOrder.Ascending)
  {
    fixed (byte* s = startKey)
    fixed (byte* e = endKey)
    {
      NativeBound start = Keys.Bound(s, startKey.Length, startKeyExclusive, SpanKeyKind);
      NativeBound end = Keys.Bound(e, endKey.Length, endKeyExclusive, SpanKeyKind);
      return RangeCore(&start, &end, sortOrder);
    }
  }

  /// <summary>GetRange over text keys (UTF-8); null or "" is no bound.</summary>
  public RangeResult GetRange(string? startKey, string? endKey, bool startKeyExclusive = false,
                              bool endKeyExclusive = false, SortOrder sortOrder = SortOrder.Ascending)
  {
    using var start = new Utf8Key(startKey, stackalloc byte[Utf8Key.StackBytes], nameof(startKey));
    using var end = new Utf8Key(endKey, stackalloc byte[Utf8Key.StackBytes], nameof(endKey));
    return GetRange(start.Bytes, end.Bytes, startKeyExclusive, endKeyExclusive, sortOrder);
  }

  /// <summary>GetRange over int64 keys; null is no bound.</summary>
  public RangeResult GetRange(long? startKey, long? endKey, bool startKeyExclusive = false,
                              bool endKeyExclusive = false, SortOrder sortOrder = SortOrder.Ascending)
  {
    NativeBound start = Keys.Bound(startKey, startKeyExclusive);
    NativeBound end = Keys.Bound(endKey, endKeyExclusive);
    return RangeCore(&start, &end, sortOrder);
  }

  /// <summary>GetRange, as a completed task.</summary>
  public ValueTask<RangeResult> GetRangeAsync(ReadOnlyMemory<byte> startKey, ReadOnlyMemory<byte> endKey,
                                              bool startKeyExclusive = false, bool endKeyExclusive = false,
                                              SortOrder sortOrder = SortOrder.Ascending,
                                              CancellationToken cancellationToken = default)
  {
    cancellationToken.ThrowIfCancellationRequested();
    return new ValueTask<RangeResult>(GetRange(startKey.Span, endKey.Span, startKeyExclusive, endKeyExclusive, sortOrder));
  }

  /// <summary>GetRange over text keys, as a completed task.</summary>
  public ValueTask<RangeResult> GetRangeAsync(string? startKey, string? endKey, bool startKeyExclusive = false,
                                              bool endKeyExclusive = false, SortOrder sortOrder = SortOrder.Ascending,
                                              CancellationToken cancellationToken = default)
  {
    cancellationToken.ThrowIfCancellationRequested();
    return new ValueTask<RangeResult>(GetRange(startKey, endKey, startKeyExclusive, endKeyExclusive, sortOrder));
  }

  /// <summary>GetRange over int64 keys, as a completed task.</summary>
  public ValueTask<RangeResult> GetRangeAsync(long? startKey, long? endKey, bool startKeyExclusive = false,
                                              bool endKeyExclusive = false, SortOrder sortOrder = SortOrder.Ascending,
                                              CancellationToken cancellationToken = default)
  {
    cancellationToken.ThrowIfCancellationRequested();
    return new ValueTask<RangeResult>(GetRange(startKey, endKey, startKeyExclusive, endKeyExclusive, sortOrder));
  }

  /// <summary>The rows whose key starts with `prefix` (every row for an empty prefix), in
  /// sortOrder. Bytes and text keys only.</summary>
  public RangeResult GetRangeWithPrefix(ReadOnlySpan<byte> prefix, SortOrder sortOrder = SortOrder.Ascending)
  {
    NativeSlot slot = Core.TakeRangeSlot();
    int token = slot.Token;
    int status;
    fixed (byte* p = prefix)
    {
      status = kind switch
      {
        StoreKind.Table => NativeMethods.drydb_table_prefix(Handle, p, (nuint)prefix.Length, (int)sortOrder, slot.Handle),
        StoreKind.Index => NativeMethods.drydb_index_prefix(Handle, p, (nuint)prefix.Length, (int)sortOrder, slot.Handle),
        _ => NativeMethods.drydb_sharded_table_prefix(Handle, p, (nuint)prefix.Length, (int)sortOrder, slot.Handle),
      };
    }
    return FinishRange(slot, token, status, batched: kind != StoreKind.Index);
  }

  /// <summary>GetRangeWithPrefix of a text prefix (UTF-8).</summary>
  public RangeResult GetRangeWithPrefix(string prefix, SortOrder sortOrder = SortOrder.Ascending)
  {
    if (prefix == null) throw new ArgumentNullException(nameof(prefix));
    using var utf8 = new Utf8Key(prefix, stackalloc byte[Utf8Key.StackBytes], nameof(prefix));
    return GetRangeWithPrefix(utf8.Bytes, sortOrder);
  }

  private RangeResult RangeCore(NativeBound* start, NativeBound* end, SortOrder sortOrder)
  {
    NativeSlot slot = Core.TakeRangeSlot();
    int token = slot.Token;
    int status = kind switch
    {
      StoreKind.Table => NativeMethods.drydb_table_range(Handle, start, end, (int)sortOrder, slot.Handle),
      StoreKind.Index => NativeMethods.drydb_index_range(Handle, start, end, (int)sortOrder, slot.Handle),
      _ => NativeMethods.drydb_sharded_table_range(Handle, start, end, (int)sortOrder, slot.Handle),
    };
    return FinishRange(slot, token, status, batched: kind != StoreKind.Index);
  }

  /// <summary>Wraps a positioned range holder, or releases it and throws the status's error.
  /// batched: see RangeResult's constructor.</summary>
  internal static RangeResult FinishRange(NativeSlot slot, int token, int status, bool batched)
  {
    ulong count = 0;
    if (status == Status.Ok) status = NativeMethods.drydb_range_count(slot.Handle, &count);
    if (status != Status.Ok)
    {
      slot.Release(token);
      Errors.Throw(status);
    }
    return new RangeResult(slot, token, (long)count, batched);
  }

  // ---- counts ----------------------------------------------------------------------------

  /// <summary>The number of rows (entries of an index).</summary>
  public long CountRange()
  {
    NativeBound start = default, end = default;
    return CountCore(&start, &end);
  }

  /// <summary>The number of rows between two bounds (an empty key is no bound): two descents
  /// whatever the count.</summary>
  public long CountRange(ReadOnlySpan<byte> startKey, ReadOnlySpan<byte> endKey, bool startKeyExclusive = false,
                         bool endKeyExclusive = false)
  {
    fixed (byte* s = startKey)
    fixed (byte* e = endKey)
    {
      NativeBound start = Keys.Bound(s, startKey.Length, startKeyExclusive, SpanKeyKind);
      NativeBound end = Keys.Bound(e, endKey.Length, endKeyExclusive, SpanKeyKind);
      return CountCore(&start, &end);
    }
  }

  /// <summary>CountRange over text keys; null or "" is no bound.</summary>
  public long CountRange(string? startKey, string? endKey, bool startKeyExclusive = false, bool endKeyExclusive = false)
  {
    using var start = new Utf8Key(startKey, stackalloc byte[Utf8Key.StackBytes], nameof(startKey));
    using var end = new Utf8Key(endKey, stackalloc byte[Utf8Key.StackBytes], nameof(endKey));
    return CountRange(start.Bytes, end.Bytes, startKeyExclusive, endKeyExclusive);
  }

  /// <summary>CountRange over int64 keys; null is no bound.</summary>
  public long CountRange(long? startKey, long? endKey, bool startKeyExclusive = false, bool endKeyExclusive = false)
  {
    NativeBound start = Keys.Bound(startKey, startKeyExclusive);
    NativeBound end = Keys.Bound(endKey, endKeyExclusive);
    return CountCore(&start, &end);
  }

  /// <summary>CountRange of every row, as a completed task.</summary>
  public ValueTask<long> CountRangeAsync(CancellationToken cancellationToken = default)
  {
    cancellationToken.ThrowIfCancellationRequested();
    return new ValueTask<long>(CountRange());
  }

  /// <summary>CountRange, as a completed task.</summary>
  public ValueTask<long> CountRangeAsync(ReadOnlyMemory<byte> startKey, ReadOnlyMemory<byte> endKey,
                                         bool startKeyExclusive = false, bool endKeyExclusive = false,
                                         CancellationToken cancellationToken = default)
  {
    cancellationToken.ThrowIfCancellationRequested();
    return new ValueTask<long>(CountRange(startKey.Span, endKey.Span, startKeyExclusive, endKeyExclusive));
  }

  /// <summary>CountRange over text keys, as a completed task.</summary>
  public ValueTask<long> CountRangeAsync(string? startKey, string? endKey, bool startKeyExclusive = false,
                                         bool endKeyExclusive = false, CancellationToken cancellationToken = default)
  {
    cancellationToken.ThrowIfCancellationRequested();
    return new ValueTask<long>(CountRange(startKey, endKey, startKeyExclusive, endKeyExclusive));
  }

  /// <summary>CountRange over int64 keys, as a completed task.</summary>
  public ValueTask<long> CountRangeAsync(long? startKey, long? endKey, bool startKeyExclusive = false,
                                         bool endKeyExclusive = false, CancellationToken cancellationToken = default)
  {
    cancellationToken.ThrowIfCancellationRequested();
    return new ValueTask<long>(CountRange(startKey, endKey, startKeyExclusive, endKeyExclusive));
  }

  private long CountCore(NativeBound* start, NativeBound* end)
  {
    // A value slot as a lease: the database stays open for the call.
    NativeSlot slot = Enter(out int token);
    ulong count;
    int status = kind switch
    {
      StoreKind.Table => NativeMethods.drydb_table_count_range(Handle, start, end, &count),
      StoreKind.Index => NativeMethods.drydb_index_count_range(Handle, start, end, &count),
      _ => NativeMethods.drydb_sharded_table_count_range(Handle, start, end, &count),
    };
    slot.Release(token);
    Errors.Check(status);
    return (long)count;
  }
}
