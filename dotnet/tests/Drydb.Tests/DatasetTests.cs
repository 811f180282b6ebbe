// Sharded datasets from .NET: a file cut into shards by the drydb tool answers as the file does,
// and a live dataset follows CURRENT while pins keep their generation.

namespace Drydb.Tests;

public class DatasetTests
{
  private static void Tool(params string[] arguments)
  {
    var run = ChildRun.Of(Repo.Tool, arguments);
    Assert.True(run.ExitCode == 0, $"drydb {string.Join(' ', arguments)}: {run.Stderr}");
  }

  private static string BuildFile(TempDir dir, string name, string tag, int rows = 3000) =>
    dir.Build(name, new DatabaseBuilder { PageSize = 1024 }, builder =>
    {
      var t = builder.CreateTable("t", KeyEncoding.Int64);
      for (long i = -rows / 2; i < rows / 2; i++) t.Append(i * 7, Encoding.UTF8.GetBytes($"{tag} {i * 7}"));
      var names = builder.CreateTable("names");
      for (int i = 0; i < 500; i++) names.Append($"name/{i % 13}/{i}", Encoding.UTF8.GetBytes($"{tag} n{i}"));
    });

  [Fact]
  public void ADatasetAnswersAsItsFile()
  {
    using var dir = new TempDir();
    string file = BuildFile(dir, "whole.drydb", "v1");
    string folder = dir.File("ds");
    Tool("shard", "split", file, "-n", "3", "-o", folder);

    using var database = ReadOnlyDatabase.Open(file);
    using var dataset = ShardedDataset.Open(folder);
    Assert.Equal(3, dataset.ShardCount);
    Assert.Equal(new[] { "t", "names" }, dataset.TableNames);
    dataset.Verify();
    foreach (string name in dataset.TableNames)
    {
      ReadOnlyTable whole = database.GetTable(name);
      ShardedTable sharded = dataset.GetTable(name);
      Assert.Same(whole.KeyEncoding, sharded.KeyEncoding);
      Assert.Equal(whole.Count, sharded.Count);
      Assert.Equal(Rows(whole.GetRange(KeyRange.Unbound, KeyRange.Unbound)), Rows(sharded.GetRange(KeyRange.Unbound, KeyRange.Unbound)));
      Assert.Equal(Rows(whole.GetRange(KeyRange.Unbound, KeyRange.Unbound, sortOrder: SortOrder.Descending)),
                   Rows(sharded.GetRange(KeyRange.Unbound, KeyRange.Unbound, sortOrder: SortOrder.Descending)));
    }
    var t = dataset.GetTable("t");
    var random = new Random(3);
    for (int i = 0; i < 300; i++)
    {
      long a = random.Next(-12000, 12000), b = random.Next(-12000, 12000);
      (long lo, long hi) = a <= b ? (a, b) : (b, a);
      bool sx = random.Next(2) == 0, ex = random.Next(2) == 0;
      var order = random.Next(2) == 0 ? SortOrder.Ascending : SortOrder.Descending;
      Assert.Equal(Rows(database.GetTable("t").GetRange(lo, hi, sx, ex, order)), Rows(t.GetRange(lo, hi, sx, ex, order)));
      Assert.Equal(database.GetTable("t").CountRange(lo, hi, sx, ex), t.CountRange(lo, hi, sx, ex));
      using var got = t.Get(a);
      Assert.Equal(a % 7 == 0 && a >= -10500 && a < 10500, got.HasValue);
      if (got.HasValue) Assert.Equal($"v1 {a}", Encoding.UTF8.GetString(got.Span));
    }
    var names = dataset.GetTable("names");
    Assert.Equal(Rows(database.GetTable("names").GetRangeWithPrefix("name/7/", SortOrder.Descending)),
                 Rows(names.GetRangeWithPrefix("name/7/", SortOrder.Descending)));
    Assert.Throws<KeyNotFoundException>(() => dataset.GetTable("missing"));
    Assert.Throws<KeyEncodingMismatchException>(() => t.Get("text"));
  }

  private static List<string> Rows(RangeResult range)
  {
    using (range)
    {
      var rows = new List<string>();
      var walk = range.GetEnumerator();
      while (walk.MoveNext()) rows.Add(Hex.Of(walk.CurrentKey) + "=" + Encoding.UTF8.GetString(walk.Current));
      Assert.Equal(range.Count, rows.Count);
      return rows;
    }
  }

  [Fact]
  public void ALiveDatasetFollowsCurrentWhilePinsKeepTheirGeneration()
  {
    using var dir = new TempDir();
    string folder = dir.File("ds");
    Tool("shard", "split", BuildFile(dir, "v1.drydb", "v1"), "-n", "2", "-o", folder);
    var live = LiveDataset.Open(folder, new DatabaseLoadOptions { Storage = StorageKind.Memory });
    long first = live.Generation;

    ShardedDataset old = live.Pin();
    Assert.Equal(first, old.Generation);
    var value = old.GetTable("t").Get(70);
    var walk = old.GetTable("t").GetRange(0, 700);

    Tool("shard", "split", BuildFile(dir, "v2.drydb", "v2"), "-n", "3", "-o", folder);
    long second = Directory.GetDirectories(folder, "gen-*").Select(d => long.Parse(Path.GetFileName(d)[4..])).Max();
    Tool("shard", "publish", folder, second.ToString());
    Assert.True(live.Refresh());
    Assert.Equal(second, live.Generation);
    Assert.False(live.Refresh());
    Assert.Equal(1, live.RetiredGenerations);

    using (ShardedDataset now = live.Pin())
    {
      Assert.Equal(3, now.ShardCount);
      using var newer = now.GetTable("t").Get(70);
      Assert.Equal("v2 70", Encoding.UTF8.GetString(newer.Span));
    }
    // The old pin's views and walk are still generation 1's.
    Assert.Equal("v1 70", Encoding.UTF8.GetString(value.Span));
    int rows = 0;
    foreach (var row in walk)
    {
      Assert.StartsWith("v1 ", Encoding.UTF8.GetString(row));
      rows++;
    }
    Assert.Equal(101, rows);

    // Disposing the live dataset waits for its pins; the old generation goes with the last one.
    live.Dispose();
    Assert.Throws<ObjectDisposedException>(() => live.Pin());
    Assert.Equal("v1 70", Encoding.UTF8.GetString(value.Span));
    old.Dispose();
    Assert.False(old.Core.IsClosed);  // the value and the range still view it
    value.Dispose();
    walk.Dispose();
    Assert.True(old.Core.IsClosed);
  }
}
