// Batched gets: many keys of one table in one native call (drydb_table_get_many), which sorts
// them and reads each leaf once.

namespace Drydb;

public sealed unsafe partial class ReadOnlyTable
{
  /// <summary>The values of many int64 keys (any order, repeats allowed), read in one call.
  /// Dispose the result.</summary>
  public MultiValueResult GetMany(ReadOnlySpan<long> keys)
  {
    var result = new MultiValueResult(Core, keys.Length, 0);
    try
    {
      for (int i = 0; i < keys.Length; i++) result.Keys[i] = NativeKey.Integer(keys[i]);
      result.Fetch(Handle);
      return result;
    }
    catch
    {
      result.Dispose();
      throw;
    }
  }

  /// <summary>The values of many bytes keys, read in one call. Dispose the result.</summary>
  public MultiValueResult GetMany(IReadOnlyList<byte[]> keys)
  {
    if (keys == null) throw new ArgumentNullException(nameof(keys));
    long bytes = 0;
    foreach (byte[] key in keys) bytes += (key ?? throw new ArgumentNullException(nameof(keys))).Length;
    var result = new MultiValueResult(Core, keys.Count, checked((int)bytes));
    try
    {
      byte* at = result.KeyBytes;
      for (int i = 0; i < keys.Count; i++)
      {
        keys[i].AsSpan().CopyTo(new Span<byte>(at, keys[i].Length));
        result.Keys[i] = NativeKey.Bytes(at, keys[i].Length, SpanKeyKind);
        at += keys[i].Length;
      }
      result.Fetch(Handle);
      return result;
    }
    catch
    {
      result.Dispose();
      throw;
    }
  }

  /// <summary>The values of many text keys (UTF-8), read in one call. Dispose the result.</summary>
  public MultiValueResult GetMany(IReadOnlyList<string> keys)
  {
    if (keys == null) throw new ArgumentNullException(nameof(keys));
    var utf8 = new byte[keys.Count][];
    for (int i = 0; i < keys.Count; i++) utf8[i] = NativeText.Bytes(keys[i] ?? throw new ArgumentNullException(nameof(keys)), nameof(keys));
    return GetMany(utf8);
  }
}

/// <summary>The values of a <see cref="ReadOnlyTable.GetMany(ReadOnlySpan{long})"/>, in the keys'
/// order: <see cref="HasValue"/> and the value's bytes as a span viewing the database's page,
/// valid until the result is disposed (the database stays open while it lives; a forgotten one
/// keeps it open).</summary>
public sealed unsafe class MultiValueResult : IDisposable
{
  private readonly DatabaseCore core;
  private IntPtr batch;
  // One native block: the keys, their bytes, the statuses and the views.
  private IntPtr block;
  internal readonly NativeKey* Keys;
  internal readonly byte* KeyBytes;
  private readonly int* statuses;
  private readonly NativeView* views;

  internal MultiValueResult(DatabaseCore core, int count, int keyBytes)
  {
    this.core = core;
    Count = count;
    core.BeginObjectLease();
    long size = (long)count * (sizeof(NativeKey) + sizeof(NativeView) + sizeof(int)) + keyBytes + 16;
    block = Marshal.AllocHGlobal(checked((IntPtr)size));
    Keys = (NativeKey*)block;
    views = (NativeView*)(Keys + count);
    statuses = (int*)(views + count);
    KeyBytes = (byte*)(statuses + count);
    IntPtr created = IntPtr.Zero;
    int status = count == 0 ? Status.Ok : NativeMethods.drydb_value_batch_create(core.Handle, (nuint)count, &created);
    batch = created;
    if (status != Status.Ok)
    {
      Dispose();
      Errors.Throw(status);
    }
  }

  internal void Fetch(IntPtr table)
  {
    if (Count == 0) return;
    Errors.Check(NativeMethods.drydb_table_get_many(table, Keys, (nuint)Count, batch, statuses, views));
  }

  /// <summary>The number of keys asked for.</summary>
  public int Count { get; }

  /// <summary>True when the i-th key was found.</summary>
  public bool HasValue(int i)
  {
    Check(i);
    return statuses[i] == Status.Ok;
  }

  /// <summary>The i-th key's value (empty when not found).</summary>
  public ReadOnlySpan<byte> this[int i]
  {
    get
    {
      Check(i);
      return statuses[i] == Status.Ok ? new ReadOnlySpan<byte>(views[i].Data, checked((int)views[i].Size)) : default;
    }
  }

  private void Check(int i)
  {
    if (block == IntPtr.Zero) throw new ObjectDisposedException(nameof(MultiValueResult));
    if ((uint)i >= (uint)Count) throw new ArgumentOutOfRangeException(nameof(i));
    if (statuses[i] > 0) throw Errors.ToException(statuses[i]);  // that key's page failed its checks
  }

  private void Release()
  {
    IntPtr b = Interlocked.Exchange(ref block, IntPtr.Zero);
    if (b == IntPtr.Zero) return;
    if (batch != IntPtr.Zero) NativeMethods.drydb_value_batch_release(batch);
    batch = IntPtr.Zero;
    Marshal.FreeHGlobal(b);
    core.EndObjectLease();
  }

  /// <summary>Lets go of the values' pages.</summary>
  public void Dispose() => Release();
}
