// A cursor over a table's rows, both ways.

namespace Drydb;

/// <summary>A cursor over a table's rows in key order (the C# DryDB's RangeIterator): MoveNext
/// steps one row in the iterator's direction, TrySeek jumps to a key, and CurrentKey and
/// CurrentValue view the row (zero-copy, valid until the next move). One thread at a time;
/// dispose it: the database stays open while it lives (a forgotten one keeps it open: a
/// finalizer could free a page a span still views).</summary>
public sealed unsafe class RangeIterator : IDisposable
{
  private enum Position { Fresh, OnRow, Ended }

  private readonly DatabaseCore core;
  private readonly ReadOnlyTable table;  // keeps its database reachable
  private IntPtr cursor;
  private Position position = Position.Fresh;
  private byte* key, value;
  private nuint keySize, valueSize;

  internal RangeIterator(DatabaseCore core, ReadOnlyTable table, IteratorDirection direction)
  {
    this.core = core;
    this.table = table;
    Direction = direction;
    core.BeginObjectLease();
    IntPtr handle;
    int status = NativeMethods.drydb_cursor_create(table.Handle, &handle);
    if (status != Status.Ok)
    {
      core.EndObjectLease();
      Errors.Throw(status);
    }
    cursor = handle;
  }

  /// <summary>Which way MoveNext goes.</summary>
  public IteratorDirection Direction { get; }

  /// <summary>True while the iterator stands on a row.</summary>
  public bool IsValid => position == Position.OnRow;

  /// <summary>The current row's key as stored (an int64 key: 8 bytes; see CurrentKeyAsInt64).</summary>
  public ReadOnlySpan<byte> CurrentKey
  {
    get
    {
      ThrowIfOffRow();
      return new ReadOnlySpan<byte>(key, checked((int)keySize));
    }
  }

  /// <summary>The current row's int64 key.</summary>
  public long CurrentKeyAsInt64 => Keys.DecodeInt64(CurrentKey);

  /// <summary>The current row's value.</summary>
  public ReadOnlySpan<byte> CurrentValue
  {
    get
    {
      ThrowIfOffRow();
      return new ReadOnlySpan<byte>(value, checked((int)valueSize));
    }
  }

  /// <summary>The current row's value (the same as CurrentValue).</summary>
  public ReadOnlySpan<byte> Current => CurrentValue;

  /// <summary>The current row's 0-based position in key order.</summary>
  public long Rank
  {
    get
    {
      ThrowIfOffRow();
      ulong rank;
      Errors.Check(NativeMethods.drydb_cursor_rank(cursor, &rank));
      return (long)rank;
    }
  }

  /// <summary>Steps one row in the iterator's direction (from an unpositioned iterator: to the
  /// first or last row); false past the end, where it stays until positioned again.</summary>
  [MethodImpl(MethodImplOptions.AggressiveInlining)]
  public bool MoveNext()
  {
    ThrowIfDisposed();
    byte* k, v;
    nuint ks, vs;
    int status;
    if (position == Position.OnRow)
    {
      status = Direction == IteratorDirection.Forward
        ? NativeMethods.drydb_cursor_next_kv(cursor, &k, &ks, &v, &vs)
        : NativeMethods.drydb_cursor_prev_kv(cursor, &k, &ks, &v, &vs);
    }
    else if (position == Position.Ended)
    {
      return false;
    }
    else
    {
      status = Direction == IteratorDirection.Forward ? NativeMethods.drydb_cursor_first(cursor)
                                                      : NativeMethods.drydb_cursor_last(cursor);
      if (status == Status.Ok) status = NativeMethods.drydb_cursor_current(cursor, &k, &ks, &v, &vs);
      else
      {
        k = v = null;
        ks = vs = 0;
      }
    }
    return Land(status, k, ks, v, vs, Position.Ended);
  }

  /// <summary>MoveNext, as a completed task.</summary>
  public ValueTask<bool> MoveNextAsync(CancellationToken cancellationToken = default)
  {
    cancellationToken.ThrowIfCancellationRequested();
    return new ValueTask<bool>(MoveNext());
  }

  /// <summary>Moves to the row of `key` exactly (the next MoveNext goes on from it); false, and
  /// the iterator where it was, when there is no such row.</summary>
  public bool TrySeek(ReadOnlySpan<byte> key) => SeekTo(key, exact: true);

  /// <summary>TrySeek of a text key (UTF-8).</summary>
  public bool TrySeek(string key) => SeekTo(key, exact: true);

  /// <summary>TrySeek of an int64 key.</summary>
  public bool TrySeek(long key) => SeekTo(key, exact: true);

  /// <summary>TrySeek, as a completed task.</summary>
  public ValueTask<bool> TrySeekAsync(ReadOnlyMemory<byte> key, CancellationToken cancellationToken = default)
  {
    cancellationToken.ThrowIfCancellationRequested();
    return new ValueTask<bool>(TrySeek(key.Span));
  }

  /// <summary>Moves to the first row whose key is at or after `key`; false (past the end) when
  /// there is none.</summary>
  public bool Seek(ReadOnlySpan<byte> key) => SeekTo(key, exact: false);

  /// <summary>Seek of a text key (UTF-8).</summary>
  public bool Seek(string key) => SeekTo(key, exact: false);

  /// <summary>Seek of an int64 key.</summary>
  public bool Seek(long key) => SeekTo(key, exact: false);

  /// <summary>Moves to the row at 0-based position `rank`; false (past the end) when rank is not
  /// below the table's row count.</summary>
  public bool SeekRank(long rank)
  {
    ThrowIfDisposed();
    if (rank < 0) throw new ArgumentOutOfRangeException(nameof(rank));
    return Settle(NativeMethods.drydb_cursor_seek_rank(cursor, (ulong)rank));
  }

  /// <summary>Moves to the first row; false for an empty table.</summary>
  public bool SeekToFirst()
  {
    ThrowIfDisposed();
    return Settle(NativeMethods.drydb_cursor_first(cursor));
  }

  /// <summary>Moves to the last row; false for an empty table.</summary>
  public bool SeekToLast()
  {
    ThrowIfDisposed();
    return Settle(NativeMethods.drydb_cursor_last(cursor));
  }

  /// <summary>Forgets the position: the next MoveNext starts over.</summary>
  public void Reset()
  {
    ThrowIfDisposed();
    position = Position.Fresh;
    key = value = null;
  }

  /// <summary>The iterator itself, for <c>foreach</c> from the current position on (a
  /// <c>foreach</c> calls MoveNext first, so after TrySeek(k) it starts at k's successor, as in
  /// the C# DryDB).</summary>
  public RangeIterator GetEnumerator() => this;

  // TrySeek (exact) and Seek of each key form.
  private bool SeekTo(ReadOnlySpan<byte> key, bool exact)
  {
    fixed (byte* p = key)
    {
      NativeKey k = NativeKey.Bytes(p, key.Length, table.SpanKeyKind);
      return SeekTo(&k, exact);
    }
  }

  private bool SeekTo(string key, bool exact)
  {
    if (key == null) throw new ArgumentNullException(nameof(key));
    using var utf8 = new Utf8Key(key, stackalloc byte[Utf8Key.StackBytes], nameof(key));
    return SeekTo(utf8.Bytes, exact);
  }

  private bool SeekTo(long key, bool exact)
  {
    NativeKey k = NativeKey.Integer(key);
    return SeekTo(&k, exact);
  }

  private bool SeekTo(NativeKey* k, bool exact)
  {
    if (exact) return SeekExact(k);
    ThrowIfDisposed();
    return Settle(NativeMethods.drydb_cursor_seek(cursor, k));
  }

  private bool SeekExact(NativeKey* k)
  {
    ThrowIfDisposed();
    ulong rank = 0;
    bool wasOnRow = position == Position.OnRow &&
                    NativeMethods.drydb_cursor_rank(cursor, &rank) == Status.Ok;
    int status = NativeMethods.drydb_cursor_seek_exact(cursor, k);
    if (status == Status.Ok) return Settle(status);
    // An error leaves the cursor off the table: so is the iterator (Land throws it).
    if (status != Status.End) return Land(status, null, 0, null, 0, Position.Ended);
    // Not found: back to where it was.
    if (wasOnRow) Settle(NativeMethods.drydb_cursor_seek_rank(cursor, rank));
    else if (position == Position.Ended) Settle(Status.End);
    return false;
  }

  /// <summary>After a positioning call: reads the row it landed on.</summary>
  private bool Settle(int status)
  {
    byte* k = null, v = null;
    nuint ks = 0, vs = 0;
    if (status == Status.Ok) status = NativeMethods.drydb_cursor_current(cursor, &k, &ks, &v, &vs);
    return Land(status, k, ks, v, vs, Position.Ended);
  }

  [MethodImpl(MethodImplOptions.AggressiveInlining)]
  private bool Land(int status, byte* k, nuint ks, byte* v, nuint vs, Position offRow)
  {
    if (status == Status.Ok)
    {
      key = k;
      keySize = ks;
      value = v;
      valueSize = vs;
      position = Position.OnRow;
      return true;
    }
    position = offRow;
    key = value = null;
    if (status != Status.End) Errors.Throw(status);
    return false;
  }

  private void ThrowIfOffRow()
  {
    ThrowIfDisposed();
    if (position != Position.OnRow)
      throw new InvalidOperationException("the iterator is not on a row: call MoveNext or TrySeek first");
  }

  private void ThrowIfDisposed()
  {
    if (cursor == IntPtr.Zero) throw new ObjectDisposedException(nameof(RangeIterator));
  }

  private void Release()
  {
    IntPtr handle = Interlocked.Exchange(ref cursor, IntPtr.Zero);
    if (handle == IntPtr.Zero) return;
    NativeMethods.drydb_cursor_release(handle);
    core.EndObjectLease();
  }

  /// <summary>Releases the cursor.</summary>
  public void Dispose() => Release();

  /// <summary>Dispose, as a completed task.</summary>
  public ValueTask DisposeAsync()
  {
    Dispose();
    return default;
  }
}
