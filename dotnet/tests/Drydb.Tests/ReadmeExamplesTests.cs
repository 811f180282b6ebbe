// The C# DryDB README's examples, written against Drydb: what a DryDB user's code does after
// changing its package and using line.

namespace Drydb.Tests;

public class ReadmeExamplesTests
{
  // An example's `path` (where the README writes "bin.drydb") is a file in a folder of its own.
  private static Task InTempDir(Func<string, Task> example) => Bounded.Async(async () =>
  {
    using var dir = new TempDir();
    await example(dir.File("bin.drydb"));
  });

  [Fact]
  public Task CreateOpenGetRangeCount() => InTempDir(CreateOpenGetRangeCountExample);

  private static async Task CreateOpenGetRangeCountExample(string path)
  {
    var builder = new DatabaseBuilder
    {
      // The smallest unit of data loaded into memory
      PageSize = 4096,
    };
    var table1 = builder.CreateTable("items", KeyEncoding.Ascii);
    table1.Append("key1", "value1"u8.ToArray());
    table1.Append("key2", "value2"u8.ToArray());
    table1.Append("key3", "value3"u8.ToArray());
    table1.Append("key4", "value4"u8.ToArray());
    var table2 = builder.CreateTable("quests", KeyEncoding.Int64LittleEndian);
    table2.Append(1, "hoge"u8.ToArray());
    await builder.BuildToFileAsync(path);
    builder.Dispose();

    using var database = await ReadOnlyDatabase.OpenAsync(path, new DatabaseLoadOptions { CacheSize = 32 * 4096 });
    var table = database.GetTable("items");

    using (var result = table.Get("key1"))
    {
      Assert.True(result.IsExists);
      Assert.True(result.Span.SequenceEqual("value1"u8));
    }
    using (var result = table.Get("key1"u8))
      Assert.True(result.Span.SequenceEqual("value1"u8));

    using (var range = table.GetRange(startKey: "key1"u8, endKey: "key3"u8, startKeyExclusive: false,
                                      endKeyExclusive: false, sortOrder: SortOrder.Ascending))
      Assert.Equal(3, range.Count);
    using (var range = table.GetRange("key1"u8, KeyRange.Unbound))
      Assert.Equal(4, range.Count);
    using (var range = table.GetRange("key1"u8, KeyRange.Unbound, startKeyExclusive: true))
      Assert.Equal(3, range.Count);
    using (var range = table.GetRange(KeyRange.Unbound, "key999"u8))
      Assert.Equal(4, range.Count);
    using (var range = table.GetRange(KeyRange.Unbound, "key3"u8, endKeyExclusive: true))
      Assert.Equal(new[] { "value1", "value2" }, range.ToList().Select(v => Encoding.UTF8.GetString(v)));

    Assert.Equal(3, table.CountRange("key1", "key3"));

    using var value1 = await table.GetAsync("key1");
    Assert.True(value1.Span.SequenceEqual("value1"u8));
    using var range1 = await table.GetRangeAsync("key1", "key3");
    Assert.Equal(3, range1.Count);
    Assert.Equal(4, await table.CountRangeAsync());

    using var quest = database.GetTable("quests").Get(1);
    Assert.True(quest.Span.SequenceEqual("hoge"u8));
  }

  [Fact]
  public Task SecondaryIndex() => InTempDir(SecondaryIndexExample);

  private static async Task SecondaryIndexExample(string path)
  {
    using (var builder = new DatabaseBuilder())
    {
      var table1 = builder.CreateTable("items", KeyEncoding.Ascii);
      table1.Append("key1", "value1"u8.ToArray());
      table1.Append("key2", "value2"u8.ToArray());
      table1.Append("key3", "value3"u8.ToArray());
      table1.Append("key4", "value4"u8.ToArray());
      table1.AddSecondaryIndex("category", isUnique: false, KeyEncoding.Ascii, (key, value) =>
      {
        if (key.Span.SequenceEqual("key1"u8) || key.Span.SequenceEqual("key3"u8)) return "category1";
        return "category2";
      });
      await builder.BuildToFileAsync(path);
    }
    using var database = await ReadOnlyDatabase.OpenFileAsync(path);
    var table = database.GetTable("items");
    using (var all = table.Index("category").GetAll("category1"u8))
      Assert.Equal(new[] { "value1", "value3" }, all.ToList().Select(v => Encoding.UTF8.GetString(v)));
    using (var range = table.Index("category").GetRange("category1"u8, "category2"u8))
      Assert.Equal(4, range.Count);
    using (var all = await table.Index("category").GetAllAsync("category1"u8.ToArray()))
      Assert.Equal(2, all.Count);
    using (var range = await table.Index("category").GetRangeAsync("category2", null))
      Assert.Equal(new[] { "value2", "value4" }, range.ToList().Select(v => Encoding.UTF8.GetString(v)));
  }

  [Fact]
  public Task RangeIterator() => InTempDir(RangeIteratorExample);

  private static async Task RangeIteratorExample(string path)
  {
    using (var builder = new DatabaseBuilder())
    {
      var items = builder.CreateTable("items");
      for (int i = 1; i <= 5; i++) items.Append($"key0{i}", Encoding.UTF8.GetBytes($"value0{i}"));
      builder.BuildToFile(path);
    }
    using var database = ReadOnlyDatabase.Open(path);
    var table = database.GetTable("items");
    using var iterator = table.CreateIterator();
    Assert.True(iterator.MoveNext());
    Assert.True(iterator.CurrentKey.SequenceEqual("key01"u8));
    Assert.True(iterator.CurrentValue.SequenceEqual("value01"u8));
    Assert.True(iterator.TrySeek("key03"u8));
    Assert.True(iterator.CurrentKey.SequenceEqual("key03"u8));
    Assert.True(iterator.CurrentValue.SequenceEqual("value03"u8));
    Assert.True(await iterator.TrySeekAsync("key03"u8.ToArray()));
    Assert.True(iterator.Current.SequenceEqual("value03"u8));
    iterator.MoveNext();
    Assert.True(iterator.Current.SequenceEqual("value04"u8));
    await iterator.MoveNextAsync();
    Assert.True(iterator.Current.SequenceEqual("value05"u8));
    // foreach loops from the current position to the end (a foreach calls MoveNext first).
    Assert.True(iterator.TrySeek("key02"u8));
    var rest = new System.Collections.Generic.List<string>();
    foreach (var value in iterator) rest.Add(Encoding.UTF8.GetString(value));
    Assert.Equal(new[] { "value03", "value04", "value05" }, rest);
  }

  [Fact]
  public void DocsDotnetExample()
  {
    // docs/dotnet.md's example, as written there.
    using var dir = new TempDir();
    string path = dir.File("items.drydb");
    using (var builder = new DatabaseBuilder { PageSize = 4096 })
    {
      var items = builder.CreateTable("items", KeyEncoding.Ascii);
      items.Append("key1", "value1"u8);
      items.Append("key2", "value2"u8);
      items.AddSecondaryIndex("first", isUnique: false, KeyEncoding.Ascii, (key, value) => value.Slice(0, 1));
      builder.BuildToFile(path);
    }
    using var database = ReadOnlyDatabase.Open(path);
    var table = database.GetTable("items");
    using (var result = table.Get("key1"u8))
    {
      Assert.True(result.IsExists);
      Assert.Equal("value1", Encoding.UTF8.GetString(result.Span));
    }
    using (var range = table.GetRange("key1"u8, KeyRange.Unbound, sortOrder: SortOrder.Descending))
    {
      Assert.Equal(2, range.Count);
      Assert.Equal(new[] { "value2", "value1" }, range.ToList().Select(v => Encoding.UTF8.GetString(v)));
    }
    Assert.Equal(1, table.CountRange("key1", "key2", endKeyExclusive: true));
    using var iterator = table.CreateIterator();
    Assert.True(iterator.TrySeek("key2"u8));
    Assert.Equal("value2", Encoding.UTF8.GetString(iterator.CurrentValue));
    using (var first = table.Index("first").GetAll("v"u8)) Assert.Equal(2, first.Count);
  }
}
