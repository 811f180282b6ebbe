// GetMany answers as one get per key, in the keys' order, repeats and absent keys included.

namespace Drydb.Tests;

public class GetManyTests
{
  [Fact]
  public void GetManyMatchesGets()
  {
    using var dir = new TempDir();
    string path = dir.Build("many.drydb", new DatabaseBuilder { PageSize = 512 }, builder =>
    {
      var ints = builder.CreateTable("ints", KeyEncoding.Int64);
      var text = builder.CreateTable("text");
      for (long i = 0; i < 5000; i += 2)
      {
        ints.Append(i, Encoding.UTF8.GetBytes($"i{i}"));
        text.Append($"k{i}", Encoding.UTF8.GetBytes($"t{i}"));
      }
    });
    var database = ReadOnlyDatabase.Open(path);
    var random = new Random(9);
    long[] keys = Enumerable.Range(0, 700).Select(_ => (long)random.Next(-10, 5100)).Append(4).Append(4).ToArray();
    var many = database.GetTable("ints").GetMany(keys);
    Assert.Equal(keys.Length, many.Count);
    for (int i = 0; i < keys.Length; i++)
    {
      using var one = database.GetTable("ints").Get(keys[i]);
      Assert.Equal(one.HasValue, many.HasValue(i));
      Assert.True(one.Span.SequenceEqual(many[i]));
    }
    string[] names = keys.Select(k => $"k{k}").ToArray();
    using (var byName = database.GetTable("text").GetMany(names))
    {
      for (int i = 0; i < names.Length; i++)
        Assert.Equal(keys[i] >= 0 && keys[i] < 5000 && keys[i] % 2 == 0 ? $"t{keys[i]}" : "", Encoding.UTF8.GetString(byName[i]));
    }
    using (var none = database.GetTable("ints").GetMany(ReadOnlySpan<long>.Empty)) Assert.Equal(0, none.Count);
    Assert.Throws<KeyEncodingMismatchException>(() => database.GetTable("ints").GetMany(names));
    Assert.Throws<ArgumentOutOfRangeException>(() => many.HasValue(keys.Length));

    // The database stays open while the result lives.
    database.Dispose();
    Assert.False(database.Core.IsClosed);
    Assert.Equal("i4", Encoding.UTF8.GetString(many[keys.Length - 1]));
    many.Dispose();
    Assert.True(database.Core.IsClosed);
    Assert.Throws<ObjectDisposedException>(() => many[0].Length);
  }
}
