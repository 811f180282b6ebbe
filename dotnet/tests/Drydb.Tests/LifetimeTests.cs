// Disposal never frees memory a live span views: a database disposed while results, ranges or
// iterators live closes when the last one is disposed; disposed objects throw; forgotten ones
// are released by finalizers.
using System.Runtime.CompilerServices;
using System.Threading;

namespace Drydb.Tests;

public class LifetimeTests
{
  internal static string Build(TempDir dir, int rows = 1000) =>
    dir.Build("life.drydb", new DatabaseBuilder { PageSize = 512 }, builder =>
    {
      var table = builder.CreateTable("t", KeyEncoding.Int64);
      for (long i = 0; i < rows; i++) table.Append(i, BitConverter.GetBytes(i * 3));
    });

  [Fact]
  public void DisposeWaitsForLiveResultsRangesAndIterators()
  {
    using var dir = new TempDir();
    var database = ReadOnlyDatabase.Open(Build(dir), new DatabaseLoadOptions { Storage = StorageKind.Pread });
    var table = database.GetTable("t");
    var result = table.Get(7);
    var range = table.GetRange(10, 20);
    var iterator = table.CreateIterator();
    Assert.True(iterator.MoveNext());

    database.Dispose();
    Assert.True(database.IsDisposed);
    Assert.False(database.Core.IsClosed);
    // Live objects still read; new queries are refused.
    Assert.Equal(21, BitConverter.ToInt64(result.Span));
    Assert.Equal(11, range.Count);
    int n = 0;
    foreach (var value in range) Assert.Equal((10 + n++) * 3, BitConverter.ToInt64(value));
    Assert.True(iterator.MoveNext());
    Assert.Equal(1, iterator.CurrentKeyAsInt64);
    Assert.Throws<ObjectDisposedException>(() => table.Get(1));
    Assert.Throws<ObjectDisposedException>(() => table.GetRange(1, 2));
    Assert.Throws<ObjectDisposedException>(() => table.CountRange());
    Assert.Throws<ObjectDisposedException>(() => table.CreateIterator());
    Assert.Throws<ObjectDisposedException>(() => database.GetTable("t"));

    result.Dispose();
    range.Dispose();
    Assert.False(database.Core.IsClosed);
    iterator.Dispose();
    Assert.True(database.Core.IsClosed);
    // Disposed results and iterators throw; disposing again does nothing.
    Assert.Throws<ObjectDisposedException>(() => result.Span.Length);
    Assert.Throws<ObjectDisposedException>(() => iterator.MoveNext());
    result.Dispose();
    range.Dispose();
    iterator.Dispose();
    database.Dispose();
  }

  [Fact]
  public void AStaleCopyOfAResultCannotReleaseAnotherOne()
  {
    using var dir = new TempDir();
    using var database = ReadOnlyDatabase.Open(Build(dir));
    var table = database.GetTable("t");
    SingleValueResult first = table.Get(1);
    SingleValueResult copy = first;
    first.Dispose();
    using SingleValueResult second = table.Get(2);  // may reuse the first's holder
    copy.Dispose();  // stale: must not end the second's lease
    Assert.Equal(6, BitConverter.ToInt64(second.Span));
    Assert.Throws<ObjectDisposedException>(() => copy.Span.Length);
  }

  [Fact]
  public void NestedResultsOnOneThreadEachKeepTheirValue()
  {
    using var dir = new TempDir();
    using var database = ReadOnlyDatabase.Open(Build(dir));
    var table = database.GetTable("t");
    var results = new SingleValueResult[50];
    for (int i = 0; i < results.Length; i++) results[i] = table.Get(i);
    for (int i = 0; i < results.Length; i++) Assert.Equal(i * 3, BitConverter.ToInt64(results[i].Span));
    var ranges = new RangeResult[20];
    for (int i = 0; i < ranges.Length; i++) ranges[i] = table.GetRange(i, i + 10);
    for (int i = 0; i < ranges.Length; i++)
    {
      var walk = ranges[i].GetEnumerator();
      Assert.True(walk.MoveNext());
      Assert.Equal(i, walk.CurrentKeyAsInt64);
    }
    foreach (var r in results) r.Dispose();
    foreach (var r in ranges) r.Dispose();
  }

  [Fact]
  public void ResultsDisposedOnAnotherThreadStillCount()
  {
    using var dir = new TempDir();
    var database = ReadOnlyDatabase.Open(Build(dir));
    var result = database.GetTable("t").Get(5);
    database.Dispose();
    Assert.False(database.Core.IsClosed);
    Bounded.Wait(Task.Run(() => result.Dispose()), "the dispose on another thread");
    Assert.True(database.Core.IsClosed);
  }

  [MethodImpl(MethodImplOptions.NoInlining)]
  private static WeakReference ForgetAnIterator(ReadOnlyDatabase database)
  {
    var iterator = database.GetTable("t").CreateIterator();
    iterator.MoveNext();
    return new WeakReference(iterator);
  }

  [Fact]
  public void AForgottenIteratorKeepsTheDatabaseOpen()
  {
    // No finalizer releases an iterator: a span it gave may still be read after the iterator
    // itself is unreachable, so a forgotten one keeps its database open instead.
    using var dir = new TempDir();
    var database = ReadOnlyDatabase.Open(Build(dir));
    WeakReference iterator = ForgetAnIterator(database);
    database.Dispose();
    for (int i = 0; i < 5; i++)
    {
      GC.Collect();
      GC.WaitForPendingFinalizers();
    }
    Assert.False(iterator.IsAlive);
    Assert.False(database.Core.IsClosed);
  }

  [Fact]
  public void AFailedSeekLeavesTheIteratorOffItsRow()
  {
    using var dir = new TempDir();
    using var database = ReadOnlyDatabase.Open(Build(dir));
    using var iterator = database.GetTable("t").CreateIterator();
    Assert.True(iterator.TrySeek(5));
    Assert.Throws<KeyEncodingMismatchException>(() => iterator.TrySeek("text"u8));
    Assert.False(iterator.IsValid);
    Assert.Throws<InvalidOperationException>(() => iterator.CurrentValue.Length);
    Assert.False(iterator.MoveNext());
    Assert.True(iterator.TrySeek(6));
    Assert.Equal(18, BitConverter.ToInt64(iterator.CurrentValue));
  }

  [Fact]
  public void ARangeDisposedMidWalkRefusesItsEnumerator()
  {
    using var dir = new TempDir();
    using var database = ReadOnlyDatabase.Open(Build(dir));
    var table = database.GetTable("t");
    var range = table.GetRange(0, 10);
    var walk = range.GetEnumerator();
    Assert.True(walk.MoveNext());
    range.Dispose();
    using var other = table.GetRange(100, 110);  // may reuse the holder
    // (A ref struct cannot go into Assert.Throws's lambda.)
    int refused = 0;
    try { _ = walk.Current.Length; } catch (ObjectDisposedException) { refused++; }
    try { _ = walk.CurrentKey.Length; } catch (ObjectDisposedException) { refused++; }
    try { walk.MoveNext(); } catch (ObjectDisposedException) { refused++; }
    Assert.Equal(3, refused);
  }

  [Fact]
  public void ThreadsSwitchingBetweenTwoDatabases()
  {
    // Each thread's holder moves from one database to the other on every get: the hand-back
    // of the old holder must not take the two databases' locks in opposite orders.
    using var dir = new TempDir();
    string a = Build(dir);
    string b = dir.File("b.drydb");
    File.Copy(a, b);
    using var first = ReadOnlyDatabase.Open(a);
    using var second = ReadOnlyDatabase.Open(b);
    var tasks = Enumerable.Range(0, 4).Select(t => Task.Run(() =>
    {
      var (x, y) = t % 2 == 0 ? (first, second) : (second, first);
      for (int i = 0; i < 20000; i++)
      {
        using var r1 = x.GetTable("t").Get(i % 1000);
        using var r2 = y.GetTable("t").Get(i % 1000);
        if (!r1.Span.SequenceEqual(r2.Span)) return false;
      }
      return true;
    })).ToArray();
    Bounded.WaitAll(tasks, "the readers of both databases (a deadlock?)");
    Assert.All(tasks, task => Assert.True(task.Result));
  }

  [MethodImpl(MethodImplOptions.NoInlining)]
  private static (WeakReference, DatabaseCore) ForgetADatabase(string path)
  {
    var database = ReadOnlyDatabase.Open(path);
    using (var result = database.GetTable("t").Get(1)) Assert.True(result.HasValue);
    return (new WeakReference(database), database.Core);
  }

  [Fact]
  public void FinalizersCloseForgottenDatabases()
  {
    using var dir = new TempDir();
    string path = Build(dir);
    // On another thread: this thread's cached holder would not keep the database alive, but
    // the test wants nothing of its own to reference it.
    var (database, core) = Bounded.Result(Task.Run(() => ForgetADatabase(path)), "the open on another thread");
    for (int i = 0; i < 10 && database.IsAlive; i++)
    {
      GC.Collect();
      GC.WaitForPendingFinalizers();
    }
    Assert.False(database.IsAlive);
    Assert.True(core.IsClosed);
  }

  [Fact]
  public void BuildersRefuseUseAfterBuildOrDispose()
  {
    using var dir = new TempDir();
    var builder = new DatabaseBuilder();
    var table = builder.CreateTable("t");
    table.Append("a", "1"u8);
    Assert.Throws<InvalidOperationException>(() => builder.PageSize = 1024);  // options come first
    builder.BuildToFile(dir.File("a.drydb"));
    Assert.Throws<InvalidOperationException>(() => builder.BuildToFile(dir.File("b.drydb")));
    Assert.Throws<InvalidOperationException>(() => builder.CreateTable("u"));
    builder.Dispose();
    Assert.Throws<ObjectDisposedException>(() => table.Append("b", "2"u8));
  }

  // A builder of `rows` rows in table "t" whose index "by_value" holds the build at its first row
  // (setting `entered`) until `go` is set.
  private static DatabaseBuilder HeldBuilder(int rows, ManualResetEventSlim entered, ManualResetEventSlim go)
  {
    var builder = new DatabaseBuilder();
    TableBuilder table = builder.CreateTable("t");
    for (int i = 0; i < rows; i++) table.Append($"k{i:D6}", System.Text.Encoding.UTF8.GetBytes($"v{i}"));
    table.AddSecondaryIndex<byte[]>("by_value", isUnique: true, KeyEncoding.Ascii, (key, value) =>
    {
      if (!entered.IsSet)
      {
        entered.Set();
        Assert.True(go.Wait(Bounded.Limit), "the test did not let the build go on");
      }
      return value.ToArray();
    });
    return builder;
  }

  private static void CheckWhole(ReadOnlyDatabase database, int rows)
  {
    ReadOnlyTable table = database.GetTable("t");
    Assert.Equal(rows, table.Count);
    Assert.Equal(rows, table.Index("by_value").Count);
    using var last = table.Get($"k{rows - 1:D6}");
    Assert.Equal($"v{rows - 1}", System.Text.Encoding.UTF8.GetString(last.Span));
  }

  [Fact]
  public void DisposeDuringBuildToFileAsyncLetsTheBuildFinish()
  {
    using var dir = new TempDir();
    string path = dir.File("held.drydb");
    using var entered = new ManualResetEventSlim();
    using var go = new ManualResetEventSlim();
    var builder = HeldBuilder(2000, entered, go);
    Task build = builder.BuildToFileAsync(path).AsTask();
    Assert.True(entered.Wait(Bounded.Limit), "the build did not reach the index function");
    builder.Dispose();  // the build runs in native code: the native builder must outlive it
    builder.Dispose();
    Assert.Throws<ObjectDisposedException>(() => builder.Tables[0].Append("x", "y"u8));
    go.Set();
    Bounded.Wait(build, "the build");
    using var database = ReadOnlyDatabase.Open(path);
    CheckWhole(database, 2000);
  }

  [Fact]
  public void DisposeDuringBuildToStreamAsyncLetsTheBuildFinish()
  {
    using var entered = new ManualResetEventSlim();
    using var go = new ManualResetEventSlim();
    var builder = HeldBuilder(2000, entered, go);
    var stream = new MemoryStream();
    Task build = builder.BuildToStreamAsync(stream).AsTask();
    Assert.True(entered.Wait(Bounded.Limit), "the build did not reach the index function");
    builder.Dispose();
    go.Set();
    Bounded.Wait(build, "the build");
    using var database = ReadOnlyDatabase.Open(stream.ToArray());
    CheckWhole(database, 2000);
  }

  // The ordinary shape: the builder disposed as the method returns its build's task, before the
  // build has begun or while it runs.
  private static ValueTask BuildAndReturn(string path)
  {
    using var builder = new DatabaseBuilder();
    TableBuilder table = builder.CreateTable("t");
    for (int i = 0; i < 2000; i++) table.Append($"k{i:D6}", System.Text.Encoding.UTF8.GetBytes($"v{i}"));
    table.AddSecondaryIndex<byte[]>("by_value", isUnique: true, KeyEncoding.Ascii, (key, value) => value.ToArray());
    return builder.BuildToFileAsync(path);
  }

  private static ValueTask BuildToStreamAndReturn(Stream stream)
  {
    using var builder = new DatabaseBuilder();
    TableBuilder table = builder.CreateTable("t");
    for (int i = 0; i < 2000; i++) table.Append($"k{i:D6}", System.Text.Encoding.UTF8.GetBytes($"v{i}"));
    table.AddSecondaryIndex<byte[]>("by_value", isUnique: true, KeyEncoding.Ascii, (key, value) => value.ToArray());
    return builder.BuildToStreamAsync(stream);
  }

  [Fact]
  public void ABuildReturnedFromAUsingBlockIsWhole()
  {
    using var dir = new TempDir();
    string path = dir.File("returned.drydb");
    Bounded.Wait(BuildAndReturn(path).AsTask(), "the build");
    using (var database = ReadOnlyDatabase.Open(path)) CheckWhole(database, 2000);
    var stream = new MemoryStream();
    Bounded.Wait(BuildToStreamAndReturn(stream).AsTask(), "the build to a stream");
    using (var database = ReadOnlyDatabase.Open(stream.ToArray())) CheckWhole(database, 2000);
  }

  [Fact]
  public void ABuildCancelledBeforeItStartsLeavesTheBuilderUsable()
  {
    using var dir = new TempDir();
    using var builder = new DatabaseBuilder();
    builder.CreateTable("t").Append("a", "1"u8);
    ValueTask cancelled = builder.BuildToFileAsync(dir.File("never.drydb"), new CancellationToken(canceled: true));
    Assert.True(cancelled.IsCanceled);
    Assert.False(File.Exists(dir.File("never.drydb")));
    builder.BuildToFile(dir.File("a.drydb"));
    using var database = ReadOnlyDatabase.Open(dir.File("a.drydb"));
    Assert.Equal(1, database.GetTable("t").Count);
  }
}
