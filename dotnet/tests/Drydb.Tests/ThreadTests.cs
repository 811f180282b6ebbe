// Many threads read one database at once, each with its own results, ranges and iterators.
using System.Threading;

namespace Drydb.Tests;

public class ThreadTests
{
  [Theory]
  [InlineData(StorageKind.Mmap)]
  [InlineData(StorageKind.Pread)]
  public void EightThreadsReadOneDatabase(StorageKind storage)
  {
    using var dir = new TempDir();
    const int rows = 20000;
    string path = LifetimeTests.Build(dir, rows);
    using var database = ReadOnlyDatabase.Open(path, new DatabaseLoadOptions { Storage = storage, CacheSize = 64 * 512 });
    var table = database.GetTable("t");
    var errors = new System.Collections.Concurrent.ConcurrentQueue<string>();
    Parallel.For(0, 8, new ParallelOptions { MaxDegreeOfParallelism = 8 }, worker =>
    {
      var random = new Random(worker);
      for (int i = 0; i < 3000; i++)
      {
        long key = random.Next(rows + 100);
        using (var result = table.Get(key))
        {
          if (result.HasValue != key < rows || (result.HasValue && BitConverter.ToInt64(result.Span) != key * 3))
            errors.Enqueue($"get {key}");
        }
        if (i % 50 == 0)
        {
          using var range = table.GetRange(key, key + 20);
          long expect = key;
          foreach (var value in range)
            if (BitConverter.ToInt64(value) != expect++ * 3) errors.Enqueue($"range {key}");
          if (table.CountRange(key, key + 20) != Math.Max(0, Math.Min(rows - 1, key + 20) - key + 1))
            errors.Enqueue($"count {key}");
          using var it = table.CreateIterator();
          if (key < rows && (!it.TrySeek(key) || it.CurrentKeyAsInt64 != key)) errors.Enqueue($"seek {key}");
        }
      }
    });
    Assert.Empty(errors);
  }

  [Fact]
  public void DisposeDuringReadsNeverFreesAViewedPage()
  {
    using var dir = new TempDir();
    string path = LifetimeTests.Build(dir, 5000);
    for (int round = 0; round < 20; round++)
    {
      var database = ReadOnlyDatabase.Open(path);
      var table = database.GetTable("t");
      int reading = 0;  // readers that have read a value: the dispose comes while all read
      var readers = Enumerable.Range(0, 4).Select(worker => Task.Run(() =>
      {
        for (long i = 0; ; i++)
        {
          try
          {
            using var result = table.Get(i % 5000);
            // The value stays readable until the result is disposed, whatever Dispose does.
            if (BitConverter.ToInt64(result.Span) != i % 5000 * 3) return false;
            if (i == 0) Interlocked.Increment(ref reading);
          }
          catch (ObjectDisposedException)
          {
            return true;
          }
        }
      })).ToArray();
      bool started = SpinWait.SpinUntil(() => Volatile.Read(ref reading) == readers.Length, Bounded.Limit);
      database.Dispose();  // whatever happened: the readers stop at the dispose
      Bounded.WaitAll(readers, "the readers");
      Assert.True(started, "the readers did not all read before the dispose");
      Assert.All(readers, r => Assert.True(r.Result));
      Assert.True(database.Core.IsClosed);
    }
  }
}
