// What gets and ranges return: structs over native memory, allocating nothing.

namespace Drydb;

/// <summary>The result of a get: <see cref="HasValue"/>, and the value's bytes as a span viewing
/// the database's page (zero-copy). The span is valid until the result is disposed; reading
/// <see cref="Span"/> after that throws. Dispose every result (a <c>using</c> declaration);
/// while one is live its database stays open. Disposing a copy of a disposed result does
/// nothing.</summary>
public readonly unsafe struct SingleValueResult : IDisposable
{
  private readonly NativeSlot? slot;
  private readonly int token;
  private readonly byte* data;
  private readonly int length;

  internal SingleValueResult(NativeSlot slot, int token, byte* data, int length)
  {
    this.slot = slot;
    this.token = token;
    this.data = data;
    this.length = length;
  }

  /// <summary>No value (what a get of an absent key returns).</summary>
  public static SingleValueResult Empty => default;

  /// <summary>True when the key was found.</summary>
  public bool HasValue => slot != null;

  /// <summary>True when the key was found (the C# DryDB README's name for <see cref="HasValue"/>).</summary>
  public bool IsExists => slot != null;

  /// <summary>The value's bytes (empty when not found).</summary>
  /// <exception cref="ObjectDisposedException">The result was disposed.</exception>
  public ReadOnlySpan<byte> Span
  {
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    get
    {
      if (slot == null) return default;
      slot.CheckLive(token);
      return new ReadOnlySpan<byte>(data, length);
    }
  }

  /// <summary>A copy of the value's bytes, or null when not found.</summary>
  public byte[]? ToArray() => slot == null ? null : Span.ToArray();

  /// <summary>Lets go of the value's page.</summary>
  public void Dispose() => slot?.Release(token);
}

/// <summary>The rows of a range, prefix or index query: <see cref="Count"/> known up front, and
/// the values walked with <c>foreach</c> as spans viewing the database's pages (zero-copy; each
/// valid until the next step). Dispose it (a <c>using</c> declaration); while one is live its
/// database stays open. One walk at a time: a new <c>foreach</c> starts over from the first
/// row, and ends a walk under way (a nested <c>foreach</c>, or ToList inside one), whose
/// enumerator then throws InvalidOperationException at its next step.</summary>
public readonly unsafe struct RangeResult : IDisposable
{
  private readonly NativeSlot? slot;
  private readonly int token;
  private readonly long count;
  private readonly bool batched;

  // batched: whether walks take rows in batches (drydb_range_next_batch), as every query's do but
  // an index's, whose enumerator reads CurrentIndexKey at the native walk's row.
  internal RangeResult(NativeSlot slot, int token, long count, bool batched)
  {
    this.slot = slot;
    this.token = token;
    this.count = count;
    this.batched = batched;
  }

  /// <summary>No rows.</summary>
  public static RangeResult Empty => default;

  /// <summary>The number of rows.</summary>
  public int Count => checked((int)count);

  /// <summary>The number of rows, as a long.</summary>
  public long LongCount => count;

  /// <summary>A walk over the rows from the first; its Current is the value.</summary>
  public Enumerator GetEnumerator()
  {
    if (slot == null) return default;
    slot.CheckLive(token);
    Errors.Check(NativeMethods.drydb_range_rewind(slot.Handle));
    return new Enumerator(slot, token, ++slot.Walk, batched);
  }

  /// <summary>Copies of every row's value, in the range's order.</summary>
  public List<byte[]> ToList()
  {
    var values = new List<byte[]>(Count);
    foreach (ReadOnlySpan<byte> value in this) values.Add(value.ToArray());
    return values;
  }

  /// <summary>Lets go of the range's pages.</summary>
  public void Dispose() => slot?.Release(token);

  /// <summary>Steps through a range. Rows come from native code in batches of up to
  /// <see cref="BatchRows"/> (one call per batch; an index query's walk takes one call per row),
  /// and each row's spans stay valid until the next step.</summary>
  public ref struct Enumerator
  {
    /// <summary>The rows asked for in one native call.</summary>
    internal const int BatchRows = 64;

    private readonly NativeSlot? slot;
    private readonly int token;
    private readonly int walk;  // the slot's Walk when this walk began
    private readonly bool batched;
    // The current batch: rows[at] is the current row, of count. A batch that ended in an error
    // gives its rows first; failure is thrown at the step past them.
    private NativeRow* rows;
    private int at, count;
    private Exception? failure;
    // The current row of a walk one row per call.
    private NativeRow row;

    internal Enumerator(NativeSlot slot, int token, int walk, bool batched)
    {
      this.slot = slot;
      this.token = token;
      this.walk = walk;
      this.batched = batched;
      rows = null;
      at = count = 0;
      failure = null;
      row = default;
    }

    /// <summary>Steps to the next row; false after the last.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool MoveNext()
    {
      if (slot == null) return false;
      CheckWalk();
      if (++at < count) return true;
      return batched ? NextBatch() : NextRow();
    }

    private bool NextBatch()
    {
      if (failure != null) throw failure;
      NativeRow* batch;
      nuint n;
      int status = NativeMethods.drydb_range_next_batch(slot!.Handle, BatchRows, &batch, &n);
      if (status != Status.Ok)
      {
        if (status == Status.End) return false;
        if (n == 0) Errors.Throw(status);
        failure = Errors.ToException(status);
      }
      rows = batch;
      at = 0;
      count = (int)n;
      return true;
    }

    private bool NextRow()
    {
      NativeRow r;
      int status = NativeMethods.drydb_range_next(slot!.Handle, &r.Key, &r.KeySize, &r.Value, &r.ValueSize);
      if (status != Status.Ok)
      {
        if (status != Status.End) Errors.Throw(status);
        return false;
      }
      row = r;
      at = 0;
      count = 1;
      return true;
    }

    private readonly NativeRow Row => batched ? rows[at] : row;

    // Throws if the result was disposed, or another walk of it began (the native range now
    // serves that one: this walk's rows, and the batch its spans view, are gone).
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private readonly void CheckWalk()
    {
      slot!.CheckLive(token);
      if (slot.Walk != walk) ThrowWalkEnded();
    }

    private static void ThrowWalkEnded() =>
      throw new InvalidOperationException("drydb: another walk of this RangeResult began (a nested foreach or ToList); " +
                                          "a RangeResult walks once at a time: take a second query for a second walk");

    /// <summary>The current row's value.</summary>
    public ReadOnlySpan<byte> Current
    {
      get
      {
        if (slot != null) CheckWalk();
        NativeRow r = Row;
        return new ReadOnlySpan<byte>(r.Value, checked((int)r.ValueSize));
      }
    }

    /// <summary>The current row's key as stored (an int64 key: 8 bytes, see
    /// <see cref="CurrentKeyAsInt64"/>; an index query: the row's primary key).</summary>
    public ReadOnlySpan<byte> CurrentKey
    {
      get
      {
        if (slot != null) CheckWalk();
        NativeRow r = Row;
        return new ReadOnlySpan<byte>(r.Key, checked((int)r.KeySize));
      }
    }

    /// <summary>The current row's int64 key.</summary>
    public long CurrentKeyAsInt64 => Keys.DecodeInt64(CurrentKey);

    /// <summary>An index query's current row: its index key as the index stores it.</summary>
    public ReadOnlySpan<byte> CurrentIndexKey
    {
      get
      {
        if (slot == null) return default;
        CheckWalk();
        byte* k;
        nuint size;
        Errors.Check(NativeMethods.drydb_range_index_key(slot.Handle, &k, &size));
        return new ReadOnlySpan<byte>(k, checked((int)size));
      }
    }
  }
}
