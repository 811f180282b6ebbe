// A RangeResult walks once at a time: a second walk started while one is under way (a nested
// foreach, ToList inside a foreach) ends the first, which throws at its next step instead of going
// on over the second's rows.
using System.Threading;

namespace Drydb.Tests;

public class RangeWalkTests
{
  private const int Rows = 200;

  private static string BuildFile(TempDir dir) =>
    dir.Build("walks.drydb", new DatabaseBuilder { PageSize = 512 }, builder =>
    {
      var t = builder.CreateTable("t");
      for (int i = 0; i < Rows; i++) t.Append($"k{i:D4}", Encoding.UTF8.GetBytes($"value {i}"));
      t.AddSecondaryIndex<string>("all", isUnique: false, KeyEncoding.Ascii, (key, value) => "same");
    });

  // Walks `result` with a nested walk after the outer's first row: the outer must refuse its next
  // step, the inner must see every row.
  private static void CheckNested(RangeResult result, int rows)
  {
    int outer = 0, inner = 0;
    var e = Assert.Throws<InvalidOperationException>(() =>
    {
      foreach (ReadOnlySpan<byte> value in result)
      {
        outer++;
        foreach (ReadOnlySpan<byte> other in result) inner++;
      }
    });
    Assert.Contains("walk", e.Message);
    Assert.Equal(1, outer);
    Assert.Equal(rows, inner);
    // ToList (a walk of its own) inside a walk: the same.
    int steps = 0;
    Assert.Throws<InvalidOperationException>(() =>
    {
      foreach (ReadOnlySpan<byte> value in result)
      {
        steps++;
        Assert.Equal(rows, result.ToList().Count);
      }
    });
    Assert.Equal(1, steps);
    // Walks one after the other are each whole.
    Assert.Equal(rows, result.ToList().Count);
    int again = 0;
    foreach (ReadOnlySpan<byte> value in result) again++;
    Assert.Equal(rows, again);
  }

  [Theory]
  [InlineData(StorageKind.Mmap)]
  [InlineData(StorageKind.Pread)]
  public void ANestedWalkEndsTheOuterOne(StorageKind storage)
  {
    using var dir = new TempDir();
    using var database = ReadOnlyDatabase.Open(BuildFile(dir), new DatabaseLoadOptions { Storage = storage });
    ReadOnlyTable t = database.GetTable("t");
    using (var range = t.GetRange(KeyRange.Unbound, KeyRange.Unbound)) CheckNested(range, Rows);
    using (var range = t.GetRange("k0000", "k0099", sortOrder: SortOrder.Descending)) CheckNested(range, 100);
    using (var prefix = t.GetRangeWithPrefix("k01")) CheckNested(prefix, 100);
    using (var all = t.Index("all").GetAll("same")) CheckNested(all, Rows);
    using (var indexRange = t.Index("all").GetRange(KeyRange.Unbound, KeyRange.Unbound)) CheckNested(indexRange, Rows);
  }

  [Fact]
  public void ANestedWalkOfADatasetRangeEndsTheOuterOne()
  {
    using var dir = new TempDir();
    string folder = dir.File("ds");
    var run = ChildRun.Of(Repo.Tool, new[] { "shard", "split", BuildFile(dir), "-n", "3", "-o", folder });
    Assert.True(run.ExitCode == 0, run.Stderr);
    using var dataset = ShardedDataset.Open(folder);
    ShardedTable t = dataset.GetTable("t");
    using (var range = t.GetRange(KeyRange.Unbound, KeyRange.Unbound)) CheckNested(range, Rows);
    using (var prefix = t.GetRangeWithPrefix("k01")) CheckNested(prefix, 100);
  }

  [Fact]
  public void AnEnumeratorOfAnEndedWalkRefusesItsCurrentRow()
  {
    using var dir = new TempDir();
    using var database = ReadOnlyDatabase.Open(BuildFile(dir));
    using var range = database.GetTable("t").GetRange(KeyRange.Unbound, KeyRange.Unbound);
    var first = range.GetEnumerator();
    Assert.True(first.MoveNext());
    var second = range.GetEnumerator();
    Assert.True(second.MoveNext());
    Assert.Equal("value 0", Encoding.UTF8.GetString(second.Current));
    int refused = 0;
    try { _ = first.Current.Length; } catch (InvalidOperationException) { refused++; }
    try { _ = first.CurrentKey.Length; } catch (InvalidOperationException) { refused++; }
    try { first.MoveNext(); } catch (InvalidOperationException) { refused++; }
    Assert.Equal(3, refused);
    Assert.True(second.MoveNext());
    Assert.Equal("value 1", Encoding.UTF8.GetString(second.Current));
  }
}
