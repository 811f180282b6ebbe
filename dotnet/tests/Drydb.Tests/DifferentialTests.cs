// Every query against a sorted model, over random tables of each key encoding: tiny and
// ordinary pages, empty and one-row tables, values that overflow their page, unique and
// non-unique indexes, both orders and every bound kind.

namespace Drydb.Tests;

public class DifferentialTests
{
  public static IEnumerable<object[]> Shapes()
  {
    foreach (int rows in new[] { 0, 1, 9, 400, 3000 })
      foreach (int pageSize in new[] { 512, 4096 })
        foreach (bool integerKeys in new[] { false, true })
          yield return new object[] { rows, pageSize, integerKeys };
  }

  [Theory]
  [MemberData(nameof(Shapes))]
  public void EveryQueryMatchesTheModel(int rowCount, int pageSize, bool integerKeys)
  {
    var random = new Random(rowCount * 31 + pageSize + (integerKeys ? 7 : 0));
    var rows = new Dictionary<string, ModelRow>();
    while (rows.Count < rowCount)
    {
      ModelRow row = integerKeys ? IntegerRow(random) : TextRow(random);
      rows[Hex.Of(row.Stored)] = row;
    }
    var model = new Model(rows.Values);

    using var dir = new TempDir();
    string path = dir.Build("t.drydb", new DatabaseBuilder { PageSize = pageSize }, builder =>
    {
      var table = builder.CreateTable("t", integerKeys ? KeyEncoding.Int64LittleEndian : KeyEncoding.Ascii);
      foreach (ModelRow row in rows.Values.OrderBy(_ => random.Next()))
      {
        if (integerKeys) table.Append((long)row.Key, row.Value);
        else table.Append((byte[])row.Key, row.Value);
      }
      // Non-unique: the value's first byte; unique: a function of the primary key.
      table.AddSecondaryIndex("by_first", false, KeyEncoding.Ascii, (key, value) => value.Slice(0, 1).ToArray());
      table.AddSecondaryIndex("by_key", true, KeyEncoding.Int64LittleEndian,
                              (key, value) => UniqueIndexKey(key.Span, integerKeys));
    });

    using var database = ReadOnlyDatabase.Open(path);
    var t = database.GetTable("t");
    Assert.Equal(rowCount, t.Count);
    Assert.Equal(rowCount, t.CountRange());

    CheckGets(t, model, random, integerKeys);
    CheckRanges(t, model, random, integerKeys);
    if (!integerKeys) CheckPrefixes(t, model, random);
    CheckIterators(t, model, random, integerKeys);
    CheckIndexes(t, model, random, integerKeys);
  }

  private static ModelRow TextRow(Random random)
  {
    // Shared prefixes of several lengths, as real keys have.
    string key = random.Next(4) switch
    {
      0 => $"user/{random.Next(100):D3}/{random.Next(1000)}",
      1 => $"item:{random.Next(50)}",
      2 => $"user/{random.Next(10)}",
      _ => new string((char)('a' + random.Next(26)), 1 + random.Next(3)),
    };
    return new ModelRow(Encoding.UTF8.GetBytes(key), Encoding.UTF8.GetBytes(key), Value(random));
  }

  private static ModelRow IntegerRow(Random random)
  {
    long key = random.Next(3) switch
    {
      0 => random.NextInt64(-1000, 1000),
      1 => random.NextInt64(),
      _ => -random.NextInt64(),
    };
    return new ModelRow(Model.StoredInt64(key), key, Value(random));
  }

  private static byte[] Value(Random random)
  {
    // Now and then a value larger than a 512-byte page (an overflow value).
    int size = random.Next(20) == 0 ? 1500 + random.Next(3000) : 1 + random.Next(40);
    var value = new byte[size];
    random.NextBytes(value);
    value[0] = (byte)('a' + random.Next(6));
    return value;
  }

  private static long UniqueIndexKey(ReadOnlySpan<byte> key, bool integerKeys)
  {
    // Any injective function of the key: the int64's bit pattern reversed, or the text's hash
    // with its length (collisions are not possible at these sizes for distinct keys of a run;
    // the build would refuse them as duplicates).
    if (integerKeys) return ~System.Buffers.Binary.BinaryPrimitives.ReadInt64LittleEndian(key);
    long h = 1469598103934665603;
    foreach (byte b in key) h = (h ^ b) * 1099511628211;
    return h;
  }

  private static byte[] StoredOf(object key, bool integerKeys) =>
    integerKeys ? Model.StoredInt64((long)key) : (byte[])key;

  private static void CheckGets(ReadOnlyTable t, Model model, Random random, bool integerKeys)
  {
    foreach (ModelRow row in model.Rows.Take(300))
    {
      using SingleValueResult got = integerKeys ? t.Get((long)row.Key) : t.Get((byte[])row.Key);
      Assert.True(got.HasValue);
      Assert.True(got.Span.SequenceEqual(row.Value));
    }
    var present = new HashSet<string>(model.Rows.Select(r => Hex.Of(r.Stored)));
    for (int i = 0; i < 300; i++)
    {
      ModelRow probe = integerKeys ? IntegerRow(random) : TextRow(random);
      using SingleValueResult got = integerKeys ? t.Get((long)probe.Key) : t.Get((byte[])probe.Key);
      Assert.Equal(present.Contains(Hex.Of(probe.Stored)), got.HasValue);
      if (!got.HasValue) Assert.True(got.Span.IsEmpty);
    }
  }

  /// <summary>A random bound: a key from the table, a key near it, or none.</summary>
  private static object? RandomBound(Model model, Random random, bool integerKeys)
  {
    int choice = random.Next(5);
    if (choice == 0 || model.Rows.Count == 0) return null;
    if (choice <= 2 && model.Rows.Count > 0) return model.Rows[random.Next(model.Rows.Count)].Key;
    return (integerKeys ? IntegerRow(random) : TextRow(random)).Key;
  }

  private static void CheckRanges(ReadOnlyTable t, Model model, Random random, bool integerKeys)
  {
    for (int i = 0; i < 150; i++)
    {
      object? start = RandomBound(model, random, integerKeys), end = RandomBound(model, random, integerKeys);
      bool sx = random.Next(2) == 0, ex = random.Next(2) == 0;
      var order = random.Next(2) == 0 ? SortOrder.Ascending : SortOrder.Descending;
      byte[]? s = start == null ? null : StoredOf(start, integerKeys);
      byte[]? e = end == null ? null : StoredOf(end, integerKeys);
      if (s != null && e != null && BytesOrder.Instance.Compare(s, e) > 0)
      {
        Assert.ThrowsAny<ArgumentException>(() => Range(t, start, end, sx, ex, order, integerKeys).Dispose());
        Assert.ThrowsAny<ArgumentException>(() => Count(t, start, end, sx, ex, integerKeys));
        continue;
      }
      List<ModelRow> expected = model.Range(s, sx, e, ex, order);
      using RangeResult range = Range(t, start, end, sx, ex, order, integerKeys);
      Assert.Equal(expected.Count, range.Count);
      int n = 0;
      foreach (var row in range)
      {
        Assert.True(row.SequenceEqual(expected[n].Value));
        n++;
      }
      Assert.Equal(expected.Count, n);
      // The enumerator's keys, on a second walk of the same range.
      var walk = range.GetEnumerator();
      for (n = 0; walk.MoveNext(); n++) Assert.True(walk.CurrentKey.SequenceEqual(expected[n].Stored));
      Assert.Equal(expected.Count, n);
      Assert.Equal(expected.Count, Count(t, start, end, sx, ex, integerKeys));
    }
  }

  private static RangeResult Range(ReadOnlyTable t, object? start, object? end, bool sx, bool ex, SortOrder order,
                                   bool integerKeys) =>
    integerKeys ? t.GetRange((long?)start, (long?)end, sx, ex, order)
                : t.GetRange((byte[]?)start ?? KeyRange.Unbound, (byte[]?)end ?? KeyRange.Unbound, sx, ex, order);

  private static long Count(ReadOnlyTable t, object? start, object? end, bool sx, bool ex, bool integerKeys) =>
    integerKeys ? t.CountRange((long?)start, (long?)end, sx, ex)
                : t.CountRange((byte[]?)start ?? KeyRange.Unbound, (byte[]?)end ?? KeyRange.Unbound, sx, ex);

  private static void CheckPrefixes(ReadOnlyTable t, Model model, Random random)
  {
    var prefixes = new List<byte[]> { Encoding.UTF8.GetBytes("user/"), Encoding.UTF8.GetBytes("zz"), Array.Empty<byte>() };
    foreach (ModelRow row in model.Rows.Take(40))
    {
      byte[] key = (byte[])row.Key;
      prefixes.Add(key.AsSpan(0, random.Next(key.Length + 1)).ToArray());
    }
    foreach (byte[] prefix in prefixes)
    {
      foreach (SortOrder order in new[] { SortOrder.Ascending, SortOrder.Descending })
      {
        var expected = model.Rows.Where(r => r.Stored.AsSpan().StartsWith(prefix)).ToList();
        if (order == SortOrder.Descending) expected.Reverse();
        using RangeResult range = t.GetRangeWithPrefix(prefix, order);
        Assert.Equal(expected.Count, range.Count);
        int n = 0;
        var walk = range.GetEnumerator();
        for (; walk.MoveNext(); n++)
        {
          Assert.True(walk.CurrentKey.SequenceEqual(expected[n].Stored));
          Assert.True(walk.Current.SequenceEqual(expected[n].Value));
        }
        Assert.Equal(expected.Count, n);
      }
    }
  }

  private static void CheckIterators(ReadOnlyTable t, Model model, Random random, bool integerKeys)
  {
    using (var forward = t.CreateIterator())
    {
      int n = 0;
      while (forward.MoveNext())
      {
        Assert.True(forward.CurrentKey.SequenceEqual(model.Rows[n].Stored));
        Assert.True(forward.CurrentValue.SequenceEqual(model.Rows[n].Value));
        Assert.Equal(n, forward.Rank);
        n++;
      }
      Assert.Equal(model.Rows.Count, n);
      Assert.False(forward.MoveNext());  // stays past the end
      Assert.False(forward.IsValid);
    }
    using (var backward = t.CreateIterator(IteratorDirection.Backward))
    {
      int n = model.Rows.Count;
      while (backward.MoveNext())
      {
        n--;
        Assert.True(backward.CurrentKey.SequenceEqual(model.Rows[n].Stored));
      }
      Assert.Equal(0, n);
    }
    using var it = t.CreateIterator();
    for (int i = 0; i < 60 && model.Rows.Count > 0; i++)
    {
      int at = random.Next(model.Rows.Count);
      ModelRow row = model.Rows[at];
      Assert.True(integerKeys ? it.TrySeek((long)row.Key) : it.TrySeek((byte[])row.Key));
      Assert.True(it.CurrentValue.SequenceEqual(row.Value));
      Assert.Equal(at, it.Rank);
      // An absent key leaves the iterator where it was.
      ModelRow probe = integerKeys ? IntegerRow(random) : TextRow(random);
      if (model.Rows.All(r => !r.Stored.AsSpan().SequenceEqual(probe.Stored)))
      {
        Assert.False(integerKeys ? it.TrySeek((long)probe.Key) : it.TrySeek((byte[])probe.Key));
        Assert.True(it.CurrentKey.SequenceEqual(row.Stored));
        // Seek: the first row at or after the probe.
        int lower = model.Rows.FindIndex(r => BytesOrder.Instance.Compare(r.Stored, probe.Stored) >= 0);
        bool found = integerKeys ? it.Seek((long)probe.Key) : it.Seek((byte[])probe.Key);
        Assert.Equal(lower >= 0, found);
        if (found) Assert.True(it.CurrentKey.SequenceEqual(model.Rows[lower].Stored));
      }
      Assert.True(it.SeekRank(at));
      bool more = it.MoveNext();
      Assert.Equal(at + 1 < model.Rows.Count, more);
      if (more) Assert.True(it.CurrentKey.SequenceEqual(model.Rows[at + 1].Stored));
    }
    Assert.Equal(model.Rows.Count > 0, it.SeekToFirst());
    Assert.Equal(model.Rows.Count > 0, it.SeekToLast());
    if (model.Rows.Count > 0) Assert.True(it.CurrentKey.SequenceEqual(model.Rows[^1].Stored));
    Assert.False(it.SeekRank(model.Rows.Count));
  }

  private static void CheckIndexes(ReadOnlyTable t, Model model, Random random, bool integerKeys)
  {
    Assert.Equal(new[] { "by_first", "by_key" }, t.IndexNames);
    SecondaryIndex byFirst = t.Index("by_first");
    Assert.False(byFirst.IsUnique);
    Assert.Equal(model.Rows.Count, byFirst.Count);
    foreach (char c in "abcdefg")
    {
      byte[] k = { (byte)c };
      var expected = model.Rows.Where(r => r.Value[0] == c).ToList();  // primary-key order
      foreach (SortOrder order in new[] { SortOrder.Ascending, SortOrder.Descending })
      {
        using RangeResult all = byFirst.GetAll(k, order);
        var want = order == SortOrder.Ascending ? expected : Enumerable.Reverse(expected).ToList();
        Assert.Equal(want.Count, all.Count);
        var walk = all.GetEnumerator();
        for (int n = 0; walk.MoveNext(); n++)
        {
          Assert.True(walk.CurrentKey.SequenceEqual(want[n].Stored));
          Assert.True(walk.Current.SequenceEqual(want[n].Value));
          Assert.True(walk.CurrentIndexKey.SequenceEqual(k));
        }
      }
      Assert.Equal(expected.Count, byFirst.CountRange(k, k));
      using SingleValueResult first = byFirst.Get(k);
      Assert.Equal(expected.Count > 0, first.HasValue);
      if (expected.Count > 0) Assert.True(first.Span.SequenceEqual(expected[0].Value));
    }
    // A range of index keys: index-key order, then primary-key order.
    var byIndex = model.Rows.OrderBy(r => r.Value[0]).ThenBy(r => r.Stored, BytesOrder.Instance).ToList();
    using (RangeResult range = byFirst.GetRange("b"u8, "d"u8, startKeyExclusive: false, endKeyExclusive: true))
    {
      var want = byIndex.Where(r => r.Value[0] >= 'b' && r.Value[0] < 'd').ToList();
      Assert.Equal(want.Count, range.Count);
      int n = 0;
      foreach (var value in range) Assert.True(value.SequenceEqual(want[n++].Value));
    }

    SecondaryIndex byKey = t.Index("by_key");
    Assert.True(byKey.IsUnique);
    Assert.Same(KeyEncoding.Int64LittleEndian, byKey.KeyEncoding);
    var unique = model.Rows.Select(r => (Index: UniqueIndexKey(AppendedKey(r, integerKeys), integerKeys), Row: r))
                           .OrderBy(x => x.Index).ToList();
    foreach (var (index, row) in unique.Take(100))
    {
      using SingleValueResult got = byKey.Get(index);
      Assert.True(got.HasValue);
      Assert.True(got.Span.SequenceEqual(row.Value));
    }
    for (int i = 0; i < 30 && unique.Count > 1; i++)
    {
      long a = unique[random.Next(unique.Count)].Index, b = unique[random.Next(unique.Count)].Index;
      (long lo, long hi) = a <= b ? (a, b) : (b, a);
      var want = unique.Where(x => x.Index > lo && x.Index <= hi).Reverse().ToList();
      using RangeResult range = byKey.GetRange(lo, hi, startKeyExclusive: true, sortOrder: SortOrder.Descending);
      Assert.Equal(want.Count, range.Count);
      int n = 0;
      foreach (var value in range) Assert.True(value.SequenceEqual(want[n++].Row.Value));
      Assert.Equal(want.Count, byKey.CountRange(lo, hi, startKeyExclusive: true));
    }
    Assert.Throws<KeyNotFoundException>(() => t.Index("nope"));
  }

  private static byte[] AppendedKey(ModelRow row, bool integerKeys)
  {
    if (!integerKeys) return (byte[])row.Key;
    var bytes = new byte[8];
    System.Buffers.Binary.BinaryPrimitives.WriteInt64LittleEndian(bytes, (long)row.Key);
    return bytes;
  }
}
