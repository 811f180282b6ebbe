// Sharded datasets (docs/sharding.md): one generation of a dataset folder read as one database,
// and a live dataset that follows the folder's CURRENT generation through pins.

namespace Drydb;

/// <summary>One generation of a sharded dataset read as one database: its tables answer gets,
/// counts, ranges and prefixes across the shards. Opened on a folder (its CURRENT generation), a
/// gen-N folder or a manifest, it stays on that generation; pinned from a
/// <see cref="LiveDataset"/>, it holds the generation served then. Dispose it as a database
/// (disposal waits for live results and ranges).</summary>
public sealed unsafe class ShardedDataset : IDisposable
{
  internal readonly DatabaseCore Core;
  private readonly NamedItems<ShardedTable> tables;

  internal ShardedDataset(IntPtr handle, Action? onClosed)
  {
    Core = new DatabaseCore(handle, IntPtr.Zero, isDataset: true, onClosed);
    try
    {
      ulong generation;
      Errors.Check(NativeMethods.drydb_dataset_generation(handle, &generation));
      Generation = (long)generation;
      uint shards;
      Errors.Check(NativeMethods.drydb_dataset_shard_count(handle, &shards));
      ShardCount = (int)shards;
      tables = new NamedItems<ShardedTable>(handle, NativeMethods.drydb_dataset_table_count,
                                            NativeMethods.drydb_dataset_table_at, table => new ShardedTable(this, table),
                                            table => table.Name, "the dataset has no table");
    }
    catch
    {
      Core.Dispose();
      throw;
    }
  }

  /// <summary>Finalizer: closes a dataset nobody disposed (when nothing views it).</summary>
  ~ShardedDataset() => Core.Dispose();

  /// <summary>Opens the dataset at `path`: a dataset folder (its CURRENT generation), a gen-N
  /// folder or a manifest. Every shard is opened and checked against the manifest.</summary>
  /// <exception cref="DrydbException">A manifest or shard that cannot be read or disagrees.</exception>
  /// <exception cref="KeyNotFoundException">A dataset folder with no CURRENT.</exception>
  public static ShardedDataset Open(string path, DatabaseLoadOptions? options = null)
  {
    byte[] utf8 = NativeText.Path(path, nameof(path));
    OpenOptions native = ReadOnlyDatabase.ToNative(options);
    IntPtr handle;
    fixed (byte* p = utf8) Errors.Check(NativeMethods.drydb_dataset_open(p, &native, &handle));
    return new ShardedDataset(handle, null);
  }

  /// <summary>The generation's number.</summary>
  public long Generation { get; }

  /// <summary>The number of shards.</summary>
  public int ShardCount { get; }

  /// <summary>The names of the tables, in manifest order.</summary>
  public IReadOnlyList<string> TableNames => tables.Names;

  /// <summary>The table named `name`.</summary>
  /// <exception cref="KeyNotFoundException">No table has that name.</exception>
  public ShardedTable GetTable(string name)
  {
    if (Core.IsDisposed) throw new ObjectDisposedException(nameof(ShardedDataset));
    return tables.Get(name);
  }

  /// <summary>Reads every page of every shard and checks every invariant.</summary>
  public void Verify()
  {
    NativeSlot lease = Core.TakeValueSlot();
    int token = lease.Token;
    int status = NativeMethods.drydb_dataset_verify(Core.Handle);
    lease.Release(token);
    Errors.Check(status);
  }

  /// <summary>Refuses new queries and closes the shards (or lets go of the pin) when nothing
  /// views them.</summary>
  public void Dispose()
  {
    Core.Dispose();
    GC.SuppressFinalize(this);
  }
}

/// <summary>A table of a sharded dataset: the queries of <see cref="KeyValueStore"/> across its
/// shards, in key order.</summary>
public sealed unsafe class ShardedTable : KeyValueStore
{
  internal ShardedTable(ShardedDataset dataset, IntPtr handle)
    : base(dataset, dataset.Core, handle, StoreKind.ShardedTable)
  {
    (Name, KeyEncoding) = Describe(NativeMethods.drydb_sharded_table_name, NativeMethods.drydb_sharded_table_key_kind,
                                   NativeMethods.drydb_sharded_table_encoding_id);
  }

  /// <summary>The table's name.</summary>
  public string Name { get; }

  /// <inheritdoc/>
  public override KeyEncoding KeyEncoding { get; }

}

/// <summary>A dataset folder followed under load: it serves the generation CURRENT names, and
/// <see cref="Refresh"/> swaps in the one CURRENT names now. Queries go through pins: each
/// <see cref="Pin"/> is a <see cref="ShardedDataset"/> on the generation served at that moment,
/// which stays valid (views and walks included) across any refresh until it is disposed. Pin per
/// request or batch, not per key. Thread-safe.</summary>
public sealed unsafe class LiveDataset : IDisposable
{
  private IntPtr handle;
  private int pins;
  private int disposed;
  private readonly object gate = new object();

  private LiveDataset(IntPtr handle) => this.handle = handle;

  /// <summary>Finalizer: closes a live dataset nobody disposed (once its pins are closed).</summary>
  ~LiveDataset() => Dispose();

  /// <summary>Opens the dataset folder at `path` and serves its CURRENT generation.</summary>
  public static LiveDataset Open(string path, DatabaseLoadOptions? options = null)
  {
    byte[] utf8 = NativeText.Path(path, nameof(path));
    OpenOptions native = ReadOnlyDatabase.ToNative(options);
    IntPtr live;
    fixed (byte* p = utf8) Errors.Check(NativeMethods.drydb_live_dataset_open(p, &native, &live));
    return new LiveDataset(live);
  }

  /// <summary>Serves CURRENT's generation if it is not the one served; true when it swapped.
  /// An error (the new generation does not open) leaves the served one in place.</summary>
  public bool Refresh() => Call<int>(NativeMethods.drydb_live_dataset_refresh) != 0;

  /// <summary>The generation served.</summary>
  public long Generation => (long)Call<ulong>(NativeMethods.drydb_live_dataset_generation);

  /// <summary>Generations swapped out and not yet released (a pin held them at the last refresh).</summary>
  public int RetiredGenerations => (int)Call<nuint>(NativeMethods.drydb_live_dataset_retired);

  /// <summary>Pins the generation served now: a dataset on it, until disposed.</summary>
  public ShardedDataset Pin()
  {
    lock (gate)
    {
      ThrowIfDisposed();
      IntPtr dataset;
      Errors.Check(NativeMethods.drydb_live_dataset_pin(handle, &dataset));
      pins++;
      // On an error the new dataset's core closes the pin, which calls Unpinned.
      return new ShardedDataset(dataset, Unpinned);
    }
  }

  /// <summary>`call`'s result on the live dataset, under the lock (refused once disposed).</summary>
  private TResult Call<TResult>(ResultCall<TResult> call) where TResult : unmanaged
  {
    lock (gate)
    {
      ThrowIfDisposed();
      TResult result;
      Errors.Check(call(handle, &result));
      return result;
    }
  }

  private void Unpinned()
  {
    lock (gate)
    {
      pins--;
      CloseIfDone();
    }
  }

  private void CloseIfDone()
  {
    if (disposed == 0 || pins != 0 || handle == IntPtr.Zero) return;
    NativeMethods.drydb_live_dataset_close(handle);
    handle = IntPtr.Zero;
  }

  private void ThrowIfDisposed()
  {
    if (disposed != 0) throw new ObjectDisposedException(nameof(LiveDataset));
  }

  /// <summary>Refuses new pins and refreshes; closes when the last pin is disposed.</summary>
  public void Dispose()
  {
    lock (gate)
    {
      disposed = 1;
      CloseIfDone();
    }
    GC.SuppressFinalize(this);
  }
}
