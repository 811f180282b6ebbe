// Building a database: tables of rows appended in any order, secondary indexes computed by a
// .NET function, miss filters and compression; built to a file (atomically) or to memory.

namespace Drydb;

/// <summary>A secondary index's key for one row, from its primary key and value (an int64
/// primary key as its 8 little-endian bytes). Return the index key's bytes, or null for a row
/// the index leaves out.</summary>
public delegate ReadOnlyMemory<byte>? SecondaryIndexFactory(ReadOnlyMemory<byte> key, ReadOnlyMemory<byte> value);

/// <summary>A secondary index's key for one row as a typed value: a string (UTF-8), a long or
/// int, a Guid, a byte[] or ReadOnlyMemory&lt;byte&gt;; null for a row the index leaves out.</summary>
public delegate TIndex SecondaryIndexFactory<TIndex>(ReadOnlyMemory<byte> key, ReadOnlyMemory<byte> value);

/// <summary>Builds one database: set the options, create tables, append rows, then build once.
/// Not thread-safe, except Dispose: disposed while a build runs (BuildToFileAsync on the thread
/// pool, say), the builder is released when that build returns, which completes whole. Dispose
/// it (a forgotten builder is released by its finalizer).</summary>
public sealed unsafe class DatabaseBuilder : IDisposable
{
  private IntPtr handle;
  private bool built;
  // Guards building and disposed: a Dispose during a build (on another thread) leaves the native
  // builder, and the index callbacks it calls, to EndBuild.
  private readonly object gate = new object();
  private bool building;
  private volatile bool disposed;
  private uint pageSize = 4096;
  private readonly List<TableBuilder> tables = new List<TableBuilder>();
  // Index callbacks' states, kept alive (and pinned by GCHandle) until the builder is released.
  internal readonly List<IndexCallback> Callbacks = new List<IndexCallback>();

  /// <summary>A new builder with the default options.</summary>
  public DatabaseBuilder() { }

  /// <summary>Finalizer: releases the native builder nobody disposed.</summary>
  ~DatabaseBuilder() => Release();

  /// <summary>Page size in bytes: a power of two, 512 .. 65536 (default 4096).</summary>
  public int PageSize
  {
    get => (int)pageSize;
    set { ThrowIfStarted(); pageSize = (uint)value; }
  }

  /// <summary>Page compression (default none).</summary>
  public Compression Compression { get => compression; set { ThrowIfStarted(); compression = value; } }
  private Compression compression;

  /// <summary>zstd only: the level, 1 (fast) .. 22 (small), negative faster still; 0 = 3. A level
  /// outside zstd's range (ZSTD_minCLevel() .. ZSTD_maxCLevel()) fails the build (invalid argument).</summary>
  public int ZstdLevel { get => zstdLevel; set { ThrowIfStarted(); zstdLevel = value; } }
  private int zstdLevel;

  /// <summary>zstd only: when nonzero, a dictionary of at most this many bytes (up to 32 MiB)
  /// trained from the pages and stored in the file.</summary>
  public long ZstdDictionarySize { get => zstdDictionarySize; set { ThrowIfStarted(); zstdDictionarySize = value; } }
  private long zstdDictionarySize;

  /// <summary>Bytes of rows held before sorted runs spill to TempDirectory (0 = 256 MiB).</summary>
  public long MemoryBudget { get => memoryBudget; set { ThrowIfStarted(); memoryBudget = value; } }
  private long memoryBudget;

  /// <summary>Folder for spilled runs (null = the system's temp folder).</summary>
  public string? TempDirectory
  {
    get => tempDirectory;
    set
    {
      ThrowIfStarted();
      if (value != null) NativeText.Path(value, nameof(value));  // refused here, not at the first CreateTable
      tempDirectory = value;
    }
  }
  private string? tempDirectory;

  /// <summary>Adds a table keyed by `encoding` (default <see cref="KeyEncoding.Ascii"/>).</summary>
  /// <exception cref="ArgumentException">A table already has that name.</exception>
  public TableBuilder CreateTable(string name, KeyEncoding? encoding = null)
  {
    if (name == null) throw new ArgumentNullException(nameof(name));
    encoding ??= KeyEncoding.Ascii;
    IntPtr builder = Start();
    byte[] utf8 = NativeText.Name(name, nameof(name));
    IntPtr table;
    fixed (byte* p = utf8) Errors.Check(NativeMethods.drydb_builder_create_table(builder, p, (nuint)utf8.Length, encoding.Kind, &table));
    var tableBuilder = new TableBuilder(this, table, name, encoding);
    tables.Add(tableBuilder);
    return tableBuilder;
  }

  /// <summary>The tables created so far.</summary>
  public IReadOnlyList<TableBuilder> Tables => tables;

  /// <summary>Writes the database to `path` atomically (temp file, fsync, rename): on an error
  /// the file at `path` is untouched.</summary>
  public void BuildToFile(string path)
  {
    if (path == null) throw new ArgumentNullException(nameof(path));
    byte[] utf8 = NativeText.Path(path, nameof(path));
    BuildToFile(BeginBuild(), utf8);
  }

  private void BuildToFile(IntPtr builder, byte[] utf8Path)
  {
    try
    {
      int status;
      fixed (byte* p = utf8Path) status = NativeMethods.drydb_builder_build_to_file(builder, p);
      FinishBuild(status);
    }
    finally
    {
      EndBuild();
    }
  }

  /// <summary>BuildToFile on the thread pool. The build is taken on the calling thread (the
  /// builder may be disposed as soon as this returns: <c>using var b = ...; return
  /// b.BuildToFileAsync(p);</c> builds the whole file); `cancellationToken` is checked before
  /// that, and a build under way runs to its end. Errors come through the task.</summary>
  public ValueTask BuildToFileAsync(string path, CancellationToken cancellationToken = default)
  {
    if (cancellationToken.IsCancellationRequested) return new ValueTask(Task.FromCanceled(cancellationToken));
    try
    {
      if (path == null) throw new ArgumentNullException(nameof(path));
      byte[] utf8 = NativeText.Path(path, nameof(path));
      IntPtr builder = BeginBuild();
      return new ValueTask(Task.Run(() => BuildToFile(builder, utf8)));
    }
    catch (Exception e)
    {
      return new ValueTask(Task.FromException(e));
    }
  }

  /// <summary>Builds into a new array.</summary>
  public byte[] BuildToMemory() => BuildToMemory(BeginBuild());

  private byte[] BuildToMemory(IntPtr builder)
  {
    byte* data;
    nuint size;
    try
    {
      int status = NativeMethods.drydb_builder_build_to_memory(builder, &data, &size);
      FinishBuild(status);
    }
    finally
    {
      EndBuild();
    }
    try
    {
      return new ReadOnlySpan<byte>(data, checked((int)size)).ToArray();
    }
    finally
    {
      NativeMethods.drydb_free(data);
    }
  }

  /// <summary>Builds and writes the database to `stream`. As BuildToFileAsync, the build is
  /// taken on the calling thread: the builder may be disposed as soon as this returns.</summary>
  public ValueTask BuildToStreamAsync(Stream stream, CancellationToken cancellationToken = default)
  {
    if (cancellationToken.IsCancellationRequested) return new ValueTask(Task.FromCanceled(cancellationToken));
    try
    {
      if (stream == null) throw new ArgumentNullException(nameof(stream));
      IntPtr builder = BeginBuild();
      return StreamIo.WriteAsync(Task.Run(() => BuildToMemory(builder)), stream, cancellationToken);
    }
    catch (Exception e)
    {
      return new ValueTask(Task.FromException(e));
    }
  }

  private IntPtr Start()
  {
    if (disposed) throw new ObjectDisposedException(nameof(DatabaseBuilder));
    if (built) throw new InvalidOperationException("the database was built already");
    if (handle != IntPtr.Zero) return handle;
    byte[]? temp = tempDirectory == null ? null : NativeText.Path(tempDirectory, nameof(TempDirectory));
    fixed (byte* t = temp)
    {
      var options = new BuilderOptions
      {
        PageSize = pageSize,
        MemoryBudget = (ulong)Math.Max(0, memoryBudget),
        TempDir = t,
        Compression = (int)compression,
        ZstdLevel = zstdLevel,
        ZstdDictionaryBytes = (ulong)Math.Max(0, zstdDictionarySize),
      };
      IntPtr created;
      Errors.Check(NativeMethods.drydb_builder_create_with_options(&options, &created));
      handle = created;
    }
    return handle;
  }

  // Takes the builder for its one build: the native builder stays alive until EndBuild, whatever
  // Dispose does meanwhile (the C API refuses to release a builder under its build).
  private IntPtr BeginBuild()
  {
    lock (gate)
    {
      IntPtr builder = Start();
      built = true;
      building = true;
      return builder;
    }
  }

  // Ends the build BeginBuild took; releases the builder if it was disposed meanwhile.
  private void EndBuild()
  {
    lock (gate)
    {
      building = false;
      if (!disposed) return;
    }
    Release();
  }

  private void FinishBuild(int status)
  {
    // An index function's exception fails the build: it is the error the caller sees.
    foreach (IndexCallback callback in Callbacks)
    {
      if (callback.Failure != null)
        throw new InvalidOperationException($"drydb: the index function of {callback.Description} threw", callback.Failure);
    }
    Errors.Check(status);
  }

  private void ThrowIfStarted()
  {
    if (handle != IntPtr.Zero || built)
      throw new InvalidOperationException("builder options are set before the first CreateTable");
  }

  internal void ThrowIfReleased()
  {
    if (disposed || handle == IntPtr.Zero) throw new ObjectDisposedException(nameof(DatabaseBuilder));
  }

  private void Release()
  {
    IntPtr builder = Interlocked.Exchange(ref handle, IntPtr.Zero);
    if (builder != IntPtr.Zero) NativeMethods.drydb_builder_release(builder);
    foreach (IndexCallback callback in Callbacks) callback.Free();
    Callbacks.Clear();
  }

  /// <summary>Releases the native builder (and the rows it holds); during a build (on another
  /// thread), once that build returns.</summary>
  public void Dispose()
  {
    lock (gate)
    {
      disposed = true;
      built = true;
      GC.SuppressFinalize(this);
      if (building) return;  // EndBuild releases it
    }
    Release();
  }
}

/// <summary>One table of a DatabaseBuilder.</summary>
public sealed unsafe class TableBuilder
{
  private readonly DatabaseBuilder builder;
  private readonly IntPtr handle;

  internal TableBuilder(DatabaseBuilder builder, IntPtr handle, string name, KeyEncoding encoding)
  {
    this.builder = builder;
    this.handle = handle;
    Name = name;
    KeyEncoding = encoding;
  }

  /// <summary>The table's name.</summary>
  public string Name { get; }

  /// <summary>The table's key encoding.</summary>
  public KeyEncoding KeyEncoding { get; }

  /// <summary>Appends one row (any order: the builder sorts). The bytes are copied.</summary>
  /// <exception cref="KeyEncodingMismatchException">A bytes key for an int64 table, or the reverse.</exception>
  public void Append(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value)
  {
    fixed (byte* k = key)
    {
      NativeKey nk = NativeKey.Bytes(k, key.Length);
      if (KeyEncoding.Kind == KeyKinds.Uuid || KeyEncoding.Kind == KeyKinds.Ulid) nk.Kind = KeyEncoding.Kind;
      AppendCore(&nk, value);
    }
  }

  /// <summary>Appends one row.</summary>
  public void Append(ReadOnlyMemory<byte> key, ReadOnlyMemory<byte> value) => Append(key.Span, value.Span);

  /// <summary>Appends one row.</summary>
  public void Append(byte[] key, byte[] value) => Append(new ReadOnlySpan<byte>(key), new ReadOnlySpan<byte>(value));

  /// <summary>Appends one row with a text key (UTF-8).</summary>
  public void Append(string key, ReadOnlySpan<byte> value)
  {
    if (key == null) throw new ArgumentNullException(nameof(key));
    using var utf8 = new Utf8Key(key, stackalloc byte[Utf8Key.StackBytes], nameof(key));
    Append(utf8.Bytes, value);
  }

  /// <summary>Appends one row with an int64 key.</summary>
  public void Append(long key, ReadOnlySpan<byte> value)
  {
    NativeKey nk = NativeKey.Integer(key);
    AppendCore(&nk, value);
  }

  /// <summary>Appends one row with a UUID key.</summary>
  public void Append(Guid key, ReadOnlySpan<byte> value)
  {
    byte* bytes = stackalloc byte[16];
    Keys.WriteUuid(key, new Span<byte>(bytes, 16));
    NativeKey nk = new NativeKey { Kind = KeyKinds.Uuid, Data = bytes, Size = 16 };
    AppendCore(&nk, value);
  }

  private void AppendCore(NativeKey* key, ReadOnlySpan<byte> value)
  {
    builder.ThrowIfReleased();
    // Checked here, not only by the C API, whose builder errors are sticky: a key of the wrong
    // type is the caller's mistake and leaves the builder usable.
    if (key->Kind != KeyEncoding.Kind)
      throw new KeyEncodingMismatchException($"drydb: table \"{Name}\" has {KeyEncoding.Id} keys; the key given is of another type");
    fixed (byte* v = value) Errors.Check(NativeMethods.drydb_table_builder_append(handle, key, v, (nuint)value.Length));
  }

  /// <summary>Declares a secondary index whose key `factory` computes from each row's key and
  /// value (called once per row during the build, in primary-key order).</summary>
  /// <exception cref="ArgumentException">The table already has an index of that name.</exception>
  public TableBuilder AddSecondaryIndex(string name, bool isUnique, KeyEncoding encoding, SecondaryIndexFactory factory)
  {
    if (factory == null) throw new ArgumentNullException(nameof(factory));
    return AddIndex(name, isUnique, encoding, (key, value) => factory(key, value) is ReadOnlyMemory<byte> bytes ? (object)bytes : null);
  }

  /// <summary>Declares a secondary index whose typed key `factory` computes (a string, long,
  /// int, Guid, byte[] or ReadOnlyMemory&lt;byte&gt;; null leaves the row out).</summary>
  public TableBuilder AddSecondaryIndex<TIndex>(string name, bool isUnique, KeyEncoding encoding,
                                                SecondaryIndexFactory<TIndex> factory)
  {
    if (factory == null) throw new ArgumentNullException(nameof(factory));
    return AddIndex(name, isUnique, encoding, (key, value) => factory(key, value));
  }

  private TableBuilder AddIndex(string name, bool isUnique, KeyEncoding encoding,
                                Func<ReadOnlyMemory<byte>, ReadOnlyMemory<byte>, object?> factory)
  {
    if (name == null) throw new ArgumentNullException(nameof(name));
    if (encoding == null) throw new ArgumentNullException(nameof(encoding));
    builder.ThrowIfReleased();
    var callback = new IndexCallback(factory, encoding.Kind, KeyEncoding.Kind == KeyKinds.Int64, $"{Name}.{name}");
    byte[] utf8 = NativeText.Name(name, nameof(name));
    int status;
    fixed (byte* p = utf8)
    {
      status = NativeMethods.drydb_table_builder_add_index(handle, p, (nuint)utf8.Length, isUnique ? 1 : 0, encoding.Kind,
                                                           IndexCallback.FunctionPointer, callback.Context);
    }
    if (status != Status.Ok)
    {
      callback.Free();
      Errors.Throw(status);
    }
    builder.Callbacks.Add(callback);
    return this;
  }

  /// <summary>Gives the table a miss filter of `bitsPerKey` bits per row (1 .. 32; 10 answers
  /// about 99% of gets of absent keys without reading a leaf).</summary>
  public TableBuilder AddMissFilter(int bitsPerKey = 10)
  {
    builder.ThrowIfReleased();
    if (bitsPerKey <= 0) throw new ArgumentOutOfRangeException(nameof(bitsPerKey));
    Errors.Check(NativeMethods.drydb_table_builder_add_miss_filter(handle, (uint)bitsPerKey));
    return this;
  }
}

/// <summary>The C callback behind a secondary index: calls the .NET factory for each row and
/// hands its key to the build. Exceptions stay on the .NET side (Failure), ending the build.</summary>
internal sealed unsafe class IndexCallback
{
  [UnmanagedFunctionPointer(CallingConvention.Cdecl)]
  private delegate int IndexKeyFunction(IntPtr context, byte* key, nuint keySize, byte* value, nuint valueSize,
                                        NativeKey* output);

  // One delegate for every index, alive for the process: its function pointer is what the
  // C API calls; the context names the index's state.
  private static readonly IndexKeyFunction Function = Invoke;
  internal static readonly IntPtr FunctionPointer = Marshal.GetFunctionPointerForDelegate(Function);

  private readonly Func<ReadOnlyMemory<byte>, ReadOnlyMemory<byte>, object?> factory;
  private readonly int kind;
  private readonly bool int64PrimaryKey;
  internal readonly string Description;
  private GCHandle self;
  // The last key's bytes, kept until the next call (the C API copies them when the call returns).
  private IntPtr keyBuffer;
  private int keyBufferSize;
  internal Exception? Failure;

  internal IndexCallback(Func<ReadOnlyMemory<byte>, ReadOnlyMemory<byte>, object?> factory, int kind,
                         bool int64PrimaryKey, string description)
  {
    this.factory = factory;
    this.kind = kind;
    this.int64PrimaryKey = int64PrimaryKey;
    Description = description;
    self = GCHandle.Alloc(this);
  }

  internal IntPtr Context => GCHandle.ToIntPtr(self);

  internal void Free()
  {
    if (self.IsAllocated) self.Free();
    if (keyBuffer != IntPtr.Zero) Marshal.FreeHGlobal(keyBuffer);
    keyBuffer = IntPtr.Zero;
  }

  private static int Invoke(IntPtr context, byte* key, nuint keySize, byte* value, nuint valueSize, NativeKey* output)
  {
    var callback = (IndexCallback)GCHandle.FromIntPtr(context).Target!;
    try
    {
      return callback.Compute(key, keySize, value, valueSize, output);
    }
    catch (Exception e)
    {
      callback.Failure ??= e;
      return (int)DrydbErrorCode.InvalidArgument;
    }
  }

  private int Compute(byte* key, nuint keySize, byte* value, nuint valueSize, NativeKey* output)
  {
    byte[] keyCopy = new ReadOnlySpan<byte>(key, checked((int)keySize)).ToArray();
    if (int64PrimaryKey)
    {
      // The C# DryDB hands int64 keys over as 8 little-endian bytes.
      long decoded = Keys.DecodeInt64(keyCopy);
      System.Buffers.Binary.BinaryPrimitives.WriteInt64LittleEndian(keyCopy, decoded);
    }
    byte[] valueCopy = new ReadOnlySpan<byte>(value, checked((int)valueSize)).ToArray();
    object? indexKey = factory(keyCopy, valueCopy);
    switch (indexKey)
    {
      case null:
        return Status.End;
      case long l:
        *output = NativeKey.Integer(l);
        return Status.Ok;
      case int i:
        *output = NativeKey.Integer(i);
        return Status.Ok;
      case string s:
        return Hand(NativeText.Bytes(s, "index key"), KeyKinds.Bytes, output);
      case Guid g:
      {
        byte[] bytes = new byte[16];
        Keys.WriteUuid(g, bytes);
        return Hand(bytes, KeyKinds.Uuid, output);
      }
      case byte[] bytes:
        return HandBytes(bytes, output);
      case ReadOnlyMemory<byte> memory:
        return HandBytes(memory.Span, output);
      default:
        throw new ArgumentException($"drydb: an index key of type {indexKey.GetType()} (index {Description}); " +
                                    "give a string, long, int, Guid, byte[] or ReadOnlyMemory<byte>");
    }
  }

  // Bytes for the index's kind: an int64 index takes 8 little-endian bytes (the C# DryDB's
  // Int64LittleEndian encoding), a UUID or ULID index 16 bytes, a bytes index any.
  private int HandBytes(ReadOnlySpan<byte> bytes, NativeKey* output)
  {
    if (kind == KeyKinds.Int64)
    {
      if (bytes.Length != 8)
        throw new KeyEncodingMismatchException($"drydb: index {Description} has int64 keys; the factory gave {bytes.Length} bytes, not 8");
      *output = NativeKey.Integer(System.Buffers.Binary.BinaryPrimitives.ReadInt64LittleEndian(bytes));
      return Status.Ok;
    }
    return Hand(bytes, kind, output);
  }

  private int Hand(ReadOnlySpan<byte> bytes, int keyKind, NativeKey* output)
  {
    if (bytes.Length > keyBufferSize)
    {
      if (keyBuffer != IntPtr.Zero) Marshal.FreeHGlobal(keyBuffer);
      keyBufferSize = Math.Max(bytes.Length, 64);
      keyBuffer = Marshal.AllocHGlobal(keyBufferSize);
    }
    bytes.CopyTo(new Span<byte>((void*)keyBuffer, bytes.Length));
    *output = new NativeKey { Kind = keyKind, Data = (byte*)keyBuffer, Size = (nuint)bytes.Length };
    return Status.Ok;
  }
}
