// The workloads, one method per store; every figure is per query (OperationsPerInvoke), and
// every query folds what it read into a checksum so nothing is optimised away.
using BenchmarkDotNet.Attributes;
using LightningDB;

namespace Drydb.Benchmarks;

/// <summary>The C# DryDB's FindByKey: one key (rank 123) again and again.</summary>
public class FindByKey
{
  [Params("dense_10k", "dense_1M")] public string Shape = "";
  private Fixture f = null!;
  private long key;
  private byte[] keyBytes = null!;

  [GlobalSetup]
  public void Setup()
  {
    f = Fixture.Get(Shape);
    int rank = Shape == "dense_1M" ? 123_456 : 123;
    key = f.IntKeys[rank];
    keyBytes = f.Keys[rank];
  }

  [Benchmark(Baseline = true, OperationsPerInvoke = Fixture.Gets)]
  public long Drydb()
  {
    long sum = 0;
    ReadOnlyTable table = f.Table;
    for (int i = 0; i < Fixture.Gets; i++)
    {
      using var result = table.Get(key);
      sum += result.Span.Length;
    }
    return sum;
  }

  [Benchmark(OperationsPerInvoke = Fixture.Gets)]
  public async Task<long> DrydbAsync()
  {
    long sum = 0;
    for (int i = 0; i < Fixture.Gets; i++)
    {
      using var result = await f.Table.GetAsync(key);
      sum += result.Span.Length;
    }
    return sum;
  }

  [Benchmark(OperationsPerInvoke = Fixture.Gets)]
  public long Lmdb()
  {
    long sum = 0;
    for (int i = 0; i < Fixture.Gets; i++) sum += f.LmdbTx.Get(f.LmdbDb, keyBytes).value.AsSpan().Length;
    return sum;
  }

  [Benchmark(OperationsPerInvoke = Fixture.Gets)]
  public long RocksDb()
  {
    long sum = 0;
    for (int i = 0; i < Fixture.Gets; i++) sum += f.Rocks.Get(keyBytes).Length;
    return sum;
  }

  [Benchmark(OperationsPerInvoke = Fixture.Gets)]
  public long Sqlite()
  {
    long sum = 0;
    f.SqlGet.Parameters[0].Value = key;
    for (int i = 0; i < Fixture.Gets; i++) sum += ((byte[])f.SqlGet.ExecuteScalar()!).Length;
    return sum;
  }
}

/// <summary>A workload run on every key shape: the fixture of the shape.</summary>
public abstract class EveryShape
{
  [Params("dense_10k", "dense_1M", "random_1M", "clustered_1M", "url_1M", "names")] public string Shape = "";
  protected Fixture f = null!;

  [GlobalSetup]
  public void Setup() => f = Fixture.Get(Shape);
}

/// <summary>Gets of present keys in a random order (the C# DryDB's RandomKeys, and drydb's key
/// shapes).</summary>
public class RandomKeys : EveryShape
{
  private int next;

  private int Start()
  {
    int start = next;
    next = (next + Fixture.Gets) % (f.GetOrder.Length - Fixture.Gets);
    return start;
  }

  [Benchmark(Baseline = true, OperationsPerInvoke = Fixture.Gets)]
  public long Drydb()
  {
    long sum = 0;
    int start = Start();
    ReadOnlyTable table = f.Table;
    if (f.IntegerKeys)
    {
      for (int i = start; i < start + Fixture.Gets; i++)
      {
        using var result = table.Get(f.QueryInts[i]);
        sum += result.Span[^1];
      }
    }
    else
    {
      for (int i = start; i < start + Fixture.Gets; i++)
      {
        using var result = table.Get(f.QueryKeys[i]);
        sum += result.Span[^1];
      }
    }
    return sum;
  }

  [Benchmark(OperationsPerInvoke = Fixture.Gets)]
  public long Lmdb()
  {
    long sum = 0;
    int start = Start();
    for (int i = start; i < start + Fixture.Gets; i++) sum += f.LmdbTx.Get(f.LmdbDb, f.QueryKeys[i]).value.AsSpan()[^1];
    return sum;
  }

  [Benchmark(OperationsPerInvoke = Fixture.Gets)]
  public long RocksDb()
  {
    long sum = 0;
    int start = Start();
    for (int i = start; i < start + Fixture.Gets; i++) sum += f.Rocks.Get(f.QueryKeys[i])[^1];
    return sum;
  }

  [Benchmark(OperationsPerInvoke = Fixture.Gets)]
  public long Sqlite()
  {
    long sum = 0;
    int start = Start();
    var parameter = f.SqlGet.Parameters[0];
    for (int i = start; i < start + Fixture.Gets; i++)
    {
      parameter.Value = f.SqlKey(f.GetOrder[i]);
      sum += ((byte[])f.SqlGet.ExecuteScalar()!)[^1];
    }
    return sum;
  }
}

/// <summary>The C# DryDB's ParallelSpread: 8 tasks, task t reading keys (t*1000 + 7i) mod N.</summary>
public class ParallelSpread
{
  private const int Threads = 8;
  private Fixture f = null!;

  [GlobalSetup]
  public void Setup() => f = Fixture.Get("dense_10k");

  private long Run(Func<int, long> worker)
  {
    var tasks = new Task<long>[Threads];
    for (int t = 0; t < Threads; t++)
    {
      int id = t;
      tasks[t] = Task.Run(() => worker(id));
    }
    Task.WaitAll(tasks);
    return tasks.Sum(t => t.Result);
  }

  [Benchmark(Baseline = true, OperationsPerInvoke = Threads * Fixture.Gets)]
  public long Drydb() => Run(t =>
  {
    long sum = 0;
    for (int i = 0; i < Fixture.Gets; i++)
    {
      using var result = f.Table.Get((t * 1000 + 7 * i) % 10_000);
      sum += result.Span.Length;
    }
    return sum;
  });

  [Benchmark(OperationsPerInvoke = Threads * Fixture.Gets)]
  public long Lmdb() => Run(t =>
  {
    long sum = 0;
    using var tx = f.Lmdb.BeginTransaction(TransactionBeginFlags.ReadOnly);
    for (int i = 0; i < Fixture.Gets; i++) sum += tx.Get(f.LmdbDb, f.Keys[(t * 1000 + 7 * i) % 10_000]).value.AsSpan().Length;
    return sum;
  });

  [Benchmark(OperationsPerInvoke = Threads * Fixture.Gets)]
  public long RocksDb() => Run(t =>
  {
    long sum = 0;
    for (int i = 0; i < Fixture.Gets; i++) sum += f.Rocks.Get(f.Keys[(t * 1000 + 7 * i) % 10_000]).Length;
    return sum;
  });
}

/// <summary>100-row ranges from present keys (the C# DryDB's GetRange: 1 op = 100 ranges).</summary>
public class Range100 : EveryShape
{
  [Benchmark(Baseline = true, OperationsPerInvoke = Fixture.Ranges)]
  public long Drydb()
  {
    long sum = 0;
    foreach (int start in f.RangeStarts)
    {
      using var range = f.IntegerKeys ? f.Table.GetRange(f.IntKeys[start], f.IntKeys[start + Fixture.RangeRows - 1])
                                      : f.Table.GetRange(f.Keys[start], f.Keys[start + Fixture.RangeRows - 1]);
      foreach (var value in range) sum += value[^1];
    }
    return sum;
  }

  [Benchmark(OperationsPerInvoke = Fixture.Ranges)]
  public long Lmdb()
  {
    long sum = 0;
    using var cursor = f.LmdbTx.CreateCursor(f.LmdbDb);
    foreach (int start in f.RangeStarts)
    {
      MDBResultCode code = cursor.SetRange(f.Keys[start]);
      MDBValue value = default;
      if (code == MDBResultCode.Success) (code, _, value) = cursor.GetCurrent();
      for (int n = 0; n < Fixture.RangeRows && code == MDBResultCode.Success; n++)
      {
        sum += value.AsSpan()[^1];
        (code, _, value) = cursor.Next();
      }
    }
    return sum;
  }

  [Benchmark(OperationsPerInvoke = Fixture.Ranges)]
  public long RocksDb()
  {
    long sum = 0;
    using var iterator = f.Rocks.NewIterator();
    foreach (int start in f.RangeStarts)
    {
      iterator.Seek(f.Keys[start]);
      for (int n = 0; n < Fixture.RangeRows && iterator.Valid(); n++, iterator.Next()) sum += iterator.Value()[^1];
    }
    return sum;
  }

  [Benchmark(OperationsPerInvoke = Fixture.Ranges)]
  public long Sqlite()
  {
    long sum = 0;
    var parameter = f.SqlRange.Parameters[0];
    foreach (int start in f.RangeStarts)
    {
      parameter.Value = f.SqlKey(start);
      using var reader = f.SqlRange.ExecuteReader();
      while (reader.Read()) sum += ((byte[])reader.GetValue(1))[^1];
    }
    return sum;
  }
}

/// <summary>Counts of 8,000-row ranges (the C# DryDB's CountRange).</summary>
public class Count8000 : EveryShape
{
  [Benchmark(Baseline = true, OperationsPerInvoke = Fixture.Counts)]
  public long Drydb()
  {
    long sum = 0;
    foreach (int start in f.CountStarts)
    {
      int end = start + Fixture.CountRows - 1;
      sum += f.IntegerKeys ? f.Table.CountRange(f.IntKeys[start], f.IntKeys[end]) : f.Table.CountRange(f.Keys[start], f.Keys[end]);
    }
    return sum;
  }

  [Benchmark(OperationsPerInvoke = Fixture.Counts)]
  public long Lmdb()
  {
    long sum = 0;
    using var cursor = f.LmdbTx.CreateCursor(f.LmdbDb);
    foreach (int start in f.CountStarts)
    {
      byte[] end = f.Keys[start + Fixture.CountRows - 1];
      MDBResultCode code = cursor.SetRange(f.Keys[start]);
      MDBValue key = default;
      if (code == MDBResultCode.Success) (code, key, _) = cursor.GetCurrent();
      while (code == MDBResultCode.Success && key.AsSpan().SequenceCompareTo(end) <= 0)
      {
        sum++;
        (code, key, _) = cursor.Next();
      }
    }
    return sum;
  }

  [Benchmark(OperationsPerInvoke = Fixture.Counts)]
  public long RocksDb()
  {
    long sum = 0;
    using var iterator = f.Rocks.NewIterator();
    foreach (int start in f.CountStarts)
    {
      byte[] end = f.Keys[start + Fixture.CountRows - 1];
      for (iterator.Seek(f.Keys[start]); iterator.Valid() && iterator.Key().AsSpan().SequenceCompareTo(end) <= 0; iterator.Next())
        sum++;
    }
    return sum;
  }

  [Benchmark(OperationsPerInvoke = Fixture.Counts)]
  public long Sqlite()
  {
    long sum = 0;
    foreach (int start in f.CountStarts)
    {
      f.SqlCount.Parameters[0].Value = f.SqlKey(start);
      f.SqlCount.Parameters[1].Value = f.SqlKey(start + Fixture.CountRows - 1);
      sum += (long)f.SqlCount.ExecuteScalar()!;
    }
    return sum;
  }
}

/// <summary>Open the file and read one key (the C# DryDB's OpenAndFirstRead).</summary>
public class OpenAndFirstRead
{
  private Fixture f = null!;

  [GlobalSetup]
  public void Setup() => f = Fixture.Get("dense_10k");

  [Benchmark(Baseline = true)]
  public long Drydb()
  {
    using var database = ReadOnlyDatabase.Open(f.DrydbPath);
    using var result = database.GetTable("items").Get(123);
    return result.Span.Length;
  }

  [Benchmark]
  public long Lmdb()
  {
    using var env = new LightningEnvironment(f.LmdbPath, new EnvironmentConfiguration { MapSize = 1L << 31 });
    env.Open(EnvironmentOpenFlags.ReadOnly | EnvironmentOpenFlags.NoLock);
    using var tx = env.BeginTransaction(TransactionBeginFlags.ReadOnly);
    using var db = tx.OpenDatabase();
    return tx.Get(db, f.Keys[123]).value.AsSpan().Length;
  }

  [Benchmark]
  public long RocksDb()
  {
    using var db = RocksDbSharp.RocksDb.OpenReadOnly(new RocksDbSharp.DbOptions(), f.RocksPath, false);
    return db.Get(f.Keys[123]).Length;
  }

  [Benchmark]
  public long Sqlite()
  {
    using var sql = new Microsoft.Data.Sqlite.SqliteConnection($"Data Source=file:{f.SqlitePath}?immutable=1;Mode=ReadOnly;Pooling=False");
    sql.Open();
    using var command = sql.CreateCommand();
    command.CommandText = "SELECT v FROM items WHERE k = 123";
    return ((byte[])command.ExecuteScalar()!).Length;
  }
}
