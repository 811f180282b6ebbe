// UUID and ULID tables (16-byte keys, as spans or Guids) answer every query against a model,
// and int64 indexes take a factory's 8 little-endian bytes (the C# DryDB's Int64LittleEndian).

namespace Drydb.Tests;

public class KeyKindTests
{
  [Theory]
  [InlineData(false)]
  [InlineData(true)]
  public void SixteenByteKeysAnswerAsTheModel(bool ulid)
  {
    var random = new Random(ulid ? 2 : 1);
    var guids = Enumerable.Range(0, 2000).Select(_ => Guid.NewGuid()).Distinct().ToList();
    var rows = guids.Select(g =>
    {
      var stored = new byte[16];
      if (ulid) random.NextBytes(stored);
      else Keys.WriteUuid(g, stored);
      return new ModelRow(stored, g, BitConverter.GetBytes(random.Next()));
    }).ToList();
    var model = new Model(rows);
    using var dir = new TempDir();
    string path = dir.Build("k.drydb", new DatabaseBuilder { PageSize = 512 }, builder =>
    {
      var table = builder.CreateTable("t", ulid ? KeyEncoding.Ulid : KeyEncoding.Uuidv7);
      foreach (ModelRow row in rows)
      {
        if (ulid) table.Append(row.Stored, row.Value);
        else table.Append((Guid)row.Key, row.Value);  // a Guid goes in as its RFC 9562 bytes
      }
    });
    using var database = ReadOnlyDatabase.Open(path);
    var t = database.GetTable("t");
    Assert.Same(ulid ? KeyEncoding.Ulid : KeyEncoding.Uuidv7, t.KeyEncoding);
    foreach (ModelRow row in model.Rows.Take(200))
    {
      using var got = t.Get(row.Stored);
      Assert.True(got.Span.SequenceEqual(row.Value));
      if (!ulid)
      {
        using var byGuid = t.Get((Guid)row.Key);
        Assert.True(byGuid.Span.SequenceEqual(row.Value));
      }
    }
    for (int i = 0; i < 100; i++)
    {
      int a = random.Next(model.Rows.Count), b = random.Next(a, model.Rows.Count);
      var order = i % 2 == 0 ? SortOrder.Ascending : SortOrder.Descending;
      var want = model.Range(model.Rows[a].Stored, true, model.Rows[b].Stored, false, order);
      using var range = t.GetRange(model.Rows[a].Stored, model.Rows[b].Stored, startKeyExclusive: true, sortOrder: order);
      Assert.Equal(want.Count, range.Count);
      var walk = range.GetEnumerator();
      for (int n = 0; walk.MoveNext(); n++) Assert.True(walk.CurrentKey.SequenceEqual(want[n].Stored));
      Assert.Equal(want.Count, t.CountRange(model.Rows[a].Stored, model.Rows[b].Stored, startKeyExclusive: true));
    }
    using var it = t.CreateIterator();
    Assert.True(it.TrySeek(model.Rows[500].Stored));
    Assert.True(it.MoveNext());
    Assert.True(it.CurrentKey.SequenceEqual(model.Rows[501].Stored));
    using var many = t.GetMany(model.Rows.Take(10).Select(r => r.Stored).ToList());
    Assert.True(many[9].SequenceEqual(model.Rows[9].Value));
    Assert.ThrowsAny<ArgumentException>(() => t.Get("short"u8));  // not 16 bytes
  }

  [Fact]
  public void Int64IndexesTakeLittleEndianBytes()
  {
    using var dir = new TempDir();
    string path = dir.Build("i.drydb", builder =>
    {
      var table = builder.CreateTable("t");
      for (int i = 0; i < 100; i++) table.Append($"k{i:D3}", BitConverter.GetBytes((long)(i % 7 - 3)));
      // The value is the index key's 8 little-endian bytes.
      table.AddSecondaryIndex("by_value", false, KeyEncoding.Int64LittleEndian, (key, value) => value);
    });
    using var database = ReadOnlyDatabase.Open(path);
    var index = database.GetTable("t").Index("by_value");
    Assert.Equal(Enumerable.Range(0, 100).Count(i => i % 7 - 3 == -2), index.CountRange(-2L, -2L));
    using var range = index.GetRange(null, -3L);
    Assert.Equal(Enumerable.Range(0, 100).Count(i => i % 7 == 0), range.Count);

    using var bad = new DatabaseBuilder();
    var t2 = bad.CreateTable("t");
    t2.Append("a", "1234"u8);
    t2.AddSecondaryIndex("by_value", false, KeyEncoding.Int64LittleEndian, (key, value) => value);
    var failed = Assert.Throws<InvalidOperationException>(() => bad.BuildToMemory());
    Assert.IsType<KeyEncodingMismatchException>(failed.InnerException);
  }
}
