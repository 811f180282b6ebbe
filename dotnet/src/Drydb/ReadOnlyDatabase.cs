// A read-only drydb database, opened from a file or from memory.

namespace Drydb;

/// <summary>A read-only database: one immutable .drydb file (or bytes in memory), read by any
/// number of threads at once. Dispose it when done: disposal waits for live results, ranges and
/// iterators (the file closes when the last one is disposed), and a forgotten database is
/// closed by its finalizer.</summary>
public sealed unsafe class ReadOnlyDatabase : IDisposable
{
  internal readonly DatabaseCore Core;
  private readonly NamedItems<ReadOnlyTable> tables;

  private ReadOnlyDatabase(DatabaseCore core)
  {
    Core = core;
    tables = new NamedItems<ReadOnlyTable>(core.Handle, NativeMethods.drydb_db_table_count, NativeMethods.drydb_db_table_at,
                                           table => new ReadOnlyTable(this, table), table => table.Name, "no table");
  }

  /// <summary>Finalizer: closes the file of a database nobody disposed (when nothing views it).</summary>
  ~ReadOnlyDatabase() => Core.Dispose();

  /// <summary>Opens the database file at `path`.</summary>
  /// <exception cref="DrydbException">The file is missing, unreadable, or not a drydb file
  /// this reader knows (Code says which).</exception>
  public static ReadOnlyDatabase Open(string path, DatabaseLoadOptions? options = null)
  {
    if (path == null) throw new ArgumentNullException(nameof(path));
    OpenOptions native = ToNative(options);
    byte[] utf8 = NativeText.Path(path, nameof(path));
    IntPtr handle;
    fixed (byte* p = utf8) Errors.Check(NativeMethods.drydb_db_open(p, &native, &handle));
    return Create(handle, IntPtr.Zero);
  }

  /// <summary>Opens the database file at `path` (the C# DryDB's name for <see cref="Open(string, DatabaseLoadOptions?)"/>).</summary>
  public static ReadOnlyDatabase OpenFile(string path, DatabaseLoadOptions? options = null) => Open(path, options);

  /// <summary>Opens the database file at `path` on the thread pool.</summary>
  public static ValueTask<ReadOnlyDatabase> OpenFileAsync(string path, DatabaseLoadOptions? options = null,
                                                         CancellationToken cancellationToken = default) =>
    new ValueTask<ReadOnlyDatabase>(Task.Run(() => Open(path, options), cancellationToken));

  /// <summary>Opens the database file at `path` on the thread pool.</summary>
  public static ValueTask<ReadOnlyDatabase> OpenAsync(string path, DatabaseLoadOptions? options = null,
                                                     CancellationToken cancellationToken = default) =>
    OpenFileAsync(path, options, cancellationToken);

  /// <summary>Opens a database held in `bytes` (a build to memory, an asset). The bytes are
  /// copied once into native memory, freed when the database closes.</summary>
  public static ReadOnlyDatabase Open(ReadOnlySpan<byte> bytes, DatabaseLoadOptions? options = null)
  {
    OpenOptions native = ToNative(options);
    IntPtr memory = Marshal.AllocHGlobal(Math.Max(bytes.Length, 1));
    bytes.CopyTo(new Span<byte>((void*)memory, bytes.Length));
    IntPtr handle;
    int status = NativeMethods.drydb_db_open_memory((void*)memory, (nuint)bytes.Length, &native, &handle);
    if (status != Status.Ok)
    {
      Marshal.FreeHGlobal(memory);
      Errors.Throw(status);
    }
    return Create(handle, memory);
  }

  /// <summary>Opens a database from the whole of `stream` (read into native memory).</summary>
  public static ValueTask<ReadOnlyDatabase> OpenAsync(Stream stream, DatabaseLoadOptions? options = null,
                                                     CancellationToken cancellationToken = default) =>
    StreamIo.OpenAsync(stream, options, cancellationToken);

  private static ReadOnlyDatabase Create(IntPtr handle, IntPtr memory)
  {
    var core = new DatabaseCore(handle, memory);
    try
    {
      return new ReadOnlyDatabase(core);
    }
    catch
    {
      core.Dispose();
      throw;
    }
  }

  internal static OpenOptions ToNative(DatabaseLoadOptions? options)
  {
    options ??= DatabaseLoadOptions.Default;
    if (options.CacheSize < 0) throw new ArgumentOutOfRangeException(nameof(options), "CacheSize must not be negative");
    return new OpenOptions { Storage = (int)options.Storage, PageCacheBytes = (ulong)options.CacheSize };
  }

  /// <summary>The names of the tables, in file order.</summary>
  public IReadOnlyList<string> TableNames => tables.Names;

  /// <summary>The table named `name`.</summary>
  /// <exception cref="KeyNotFoundException">No table has that name.</exception>
  public ReadOnlyTable GetTable(string name)
  {
    ThrowIfDisposed();
    return tables.Get(name);
  }

  /// <summary>The table named `name`, or false.</summary>
  public bool TryGetTable(string name, out ReadOnlyTable table)
  {
    ThrowIfDisposed();
    return tables.TryGet(name, out table!);
  }

  /// <summary>Reads every page and checks every invariant of every tree.</summary>
  /// <exception cref="DrydbException">Corruption (or the read's error) found.</exception>
  public void Verify()
  {
    NativeSlot guard = Core.TakeValueSlot();
    int token = guard.Token;
    try
    {
      Errors.Check(NativeMethods.drydb_db_verify(Core.Handle));
    }
    finally
    {
      guard.Release(token);
    }
  }

  /// <summary>True once disposed (the file may still be open while results live).</summary>
  public bool IsDisposed => Core.IsDisposed;

  internal void ThrowIfDisposed()
  {
    if (Core.IsDisposed) throw new ObjectDisposedException(nameof(ReadOnlyDatabase));
  }

  /// <summary>Refuses new queries and closes the file — now if no result, range or iterator is
  /// live, else when the last one is disposed.</summary>
  public void Dispose()
  {
    Core.Dispose();
    GC.SuppressFinalize(this);
  }
}
