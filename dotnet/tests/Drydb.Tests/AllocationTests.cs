// No managed allocation per get, range step, count or iterator step.

namespace Drydb.Tests;

public class AllocationTests
{
  [Fact]
  public void QueriesAllocateNothing()
  {
    using var dir = new TempDir();
    string path = dir.Build("alloc.drydb", builder =>
    {
      var ints = builder.CreateTable("ints", KeyEncoding.Int64);
      var text = builder.CreateTable("text", KeyEncoding.Ascii);
      for (long i = 0; i < 10000; i++)
      {
        ints.Append(i, new byte[13]);
        text.Append($"key/{i:D6}", new byte[13]);
      }
      text.AddSecondaryIndex<long>("by_len", false, KeyEncoding.Int64, (key, value) => key.Length);
    });
    using var database = ReadOnlyDatabase.Open(path);
    var t = database.GetTable("ints");
    var s = database.GetTable("text");
    var index = s.Index("by_len");

    long sink = 0;
    void Run()
    {
      for (long i = 0; i < 2000; i++)
      {
        using (var r = t.Get(i * 5)) sink += r.Span.Length;
        using (var r = s.Get("key/000123"u8)) sink += r.Span.Length;
        using (var r = s.Get("key/000124")) sink += r.Span.Length;  // a string key, encoded on the stack
        sink += t.CountRange(i, i + 8000);
        sink += s.CountRange("key/0001"u8, "key/0002"u8);
      }
      for (int i = 0; i < 20; i++)
      {
        using (var range = t.GetRange(i * 100, i * 100 + 99, sortOrder: SortOrder.Descending))
          foreach (var v in range) sink += v.Length;
        using (var range = s.GetRangeWithPrefix("key/0001"u8))
          foreach (var v in range) sink += v.Length;
        using (var range = index.GetAll(10))
        {
          int n = 0;
          foreach (var v in range) if (++n == 100) break;
          sink += n;
        }
      }
      using var it = t.CreateIterator();
      it.TrySeek(10);
      for (int i = 0; i < 5000 && it.MoveNext(); i++) sink += it.CurrentKey.Length + it.CurrentValue.Length;
    }

    Run();  // warm up: each thread's holders, tiered compilation
    Run();
    long before = GC.GetAllocatedBytesForCurrentThread();
    Run();
    long allocated = GC.GetAllocatedBytesForCurrentThread() - before;
    Assert.True(sink > 0);
    // The only allocation is the one iterator object the loop creates.
    Assert.InRange(allocated, 0, 200);
  }
}
