// The data of each workload, built once per process into each store: drydb, LMDB (LightningDB),
// RocksDB (its .NET package) and SQLite (Microsoft.Data.Sqlite), with the query keys drawn once.
//
// Shapes (as bench/shapes.h defines them for the C++ suite):
//   dense_10k, dense_1M  int64 0..N-1, the C# DryDB's workload (values "val" + 10 digits)
//   random_1M            uniform random int64, negative ones included
//   clustered_1M         int64 timestamps in bursts of 1..2048 keys 1 ns..1 us apart, gaps of
//                        1 us..90 s (log-uniform)
//   url_1M               "https://example.com/items/" and 16 hex digits
//   names                the character names of Debian's unicode-data (about 35,000)
// Every row's value is 13 bytes ("val" + the row's rank in 10 digits). Integer keys are stored
// in LMDB and RocksDB as 8 big-endian bytes with the sign bit flipped (drydb's order), in
// SQLite as INTEGER PRIMARY KEY; text keys as BLOB keys (SQLite: a WITHOUT ROWID table).
using System.Buffers.Binary;
using System.Text;
using LightningDB;
using Microsoft.Data.Sqlite;
using RocksDbSharp;

namespace Drydb.Benchmarks;

public sealed class Fixture
{
  public const int Gets = 1000, Ranges = 100, RangeRows = 100, Counts = 20, CountRows = 8000;
  private static readonly Dictionary<string, Fixture> built = new();
  private static readonly string root = Path.Combine(Path.GetTempPath(), $"drydb-dotnet-bench-{Environment.ProcessId}");

  public readonly string Name;
  public readonly bool IntegerKeys;
  public readonly long[] IntKeys = Array.Empty<long>();  // sorted, integer shapes
  public readonly byte[][] Keys;                         // sorted, as stored (encoded)
  public readonly int[] GetOrder;                        // ranks of the gets, a random order
  // The gets' keys in that order, laid out one after another (fresh arrays, allocated in
  // query order) so that reading the next query key costs no cache miss of its own.
  public readonly long[] QueryInts;
  public readonly byte[][] QueryKeys;
  public readonly int[] RangeStarts, CountStarts;        // ranks where ranges and counts start
  public readonly string DrydbPath, LmdbPath, RocksPath, SqlitePath;

  public ReadOnlyDatabase Drydb = null!;
  public ReadOnlyTable Table = null!;
  public LightningEnvironment Lmdb = null!;
  public LightningTransaction LmdbTx = null!;
  public LightningDatabase LmdbDb = null!;
  public RocksDb Rocks = null!;
  public SqliteConnection Sqlite = null!;
  public SqliteCommand SqlGet = null!, SqlRange = null!, SqlCount = null!;

  public static Fixture Get(string name)
  {
    lock (built)
    {
      if (!built.TryGetValue(name, out Fixture? f)) built[name] = f = new Fixture(name);
      return f;
    }
  }

  private Fixture(string name)
  {
    Name = name;
    var random = new Random(42);
    (IntegerKeys, IntKeys, Keys) = name switch
    {
      "dense_10k" => Ints(Enumerable.Range(0, 10_000).Select(i => (long)i)),
      "dense_1M" => Ints(Enumerable.Range(0, 1_000_000).Select(i => (long)i)),
      "random_1M" => Ints(RandomInts(random, 1_000_000)),
      "clustered_1M" => Ints(Clustered(random, 1_000_000)),
      "url_1M" => Texts(Enumerable.Range(0, 1_000_000).Select(_ => $"https://example.com/items/{random.NextInt64():x16}")),
      "names" => Texts(UnicodeNames()),
      _ => throw new ArgumentException($"unknown shape {name}"),
    };
    int n = Keys.Length;
    GetOrder = Enumerable.Range(0, n).OrderBy(_ => random.Next()).Take(Math.Min(n, 200_000)).ToArray();
    QueryInts = IntegerKeys ? GetOrder.Select(r => IntKeys[r]).ToArray() : Array.Empty<long>();
    QueryKeys = GetOrder.Select(r => (byte[])Keys[r].Clone()).ToArray();
    RangeStarts = Enumerable.Range(0, Ranges).Select(_ => random.Next(n - RangeRows)).ToArray();
    CountStarts = Enumerable.Range(0, Counts).Select(_ => random.Next(n - CountRows)).ToArray();
    string dir = Path.Combine(root, name);
    Directory.CreateDirectory(dir);
    DrydbPath = Path.Combine(dir, "data.drydb");
    LmdbPath = Path.Combine(dir, "lmdb");
    RocksPath = Path.Combine(dir, "rocks");
    SqlitePath = Path.Combine(dir, "data.sqlite");
    BuildAll();
    OpenAll();
  }

  public static byte[] Value(int rank) => Encoding.ASCII.GetBytes($"val{rank:D10}");

  public static byte[] EncodeInt(long key)
  {
    var bytes = new byte[8];
    BinaryPrimitives.WriteUInt64BigEndian(bytes, (ulong)key ^ 0x8000_0000_0000_0000UL);
    return bytes;
  }

  private static (bool, long[], byte[][]) Ints(IEnumerable<long> keys)
  {
    long[] sorted = keys.Distinct().OrderBy(k => k).ToArray();
    return (true, sorted, sorted.Select(EncodeInt).ToArray());
  }

  private static (bool, long[], byte[][]) Texts(IEnumerable<string> keys)
  {
    byte[][] sorted = keys.Distinct().Select(Encoding.UTF8.GetBytes)
                          .OrderBy(k => k, Comparer<byte[]>.Create((a, b) => a.AsSpan().SequenceCompareTo(b))).ToArray();
    return (false, Array.Empty<long>(), sorted);
  }

  private static IEnumerable<long> RandomInts(Random random, int n)
  {
    var seen = new HashSet<long>();
    while (seen.Count < n) seen.Add(random.NextInt64(long.MinValue, long.MaxValue));
    return seen;
  }

  private static IEnumerable<long> Clustered(Random random, int n)
  {
    long t = 1_700_000_000_000_000_000;
    int made = 0;
    while (made < n)
    {
      int burst = 1 + (int)Math.Exp(random.NextDouble() * Math.Log(2048));
      for (int i = 0; i < burst && made < n; i++, made++)
      {
        t += 1 + (long)Math.Exp(random.NextDouble() * Math.Log(1000));
        yield return t;
      }
      t += (long)Math.Exp(Math.Log(1000) + random.NextDouble() * (Math.Log(90e9) - Math.Log(1000)));
    }
  }

  private static IEnumerable<string> UnicodeNames()
  {
    const string path = "/usr/share/unicode/UnicodeData.txt";
    if (!File.Exists(path)) throw new InvalidOperationException($"{path} is missing: install Debian's unicode-data");
    foreach (string line in File.ReadLines(path))
    {
      string name = line.Split(';')[1];
      if (!name.StartsWith('<')) yield return name;
    }
  }

  private void BuildAll()
  {
    using (var builder = new DatabaseBuilder { PageSize = 4096 })
    {
      var table = builder.CreateTable("items", IntegerKeys ? KeyEncoding.Int64 : KeyEncoding.Ascii);
      for (int r = 0; r < Keys.Length; r++)
      {
        if (IntegerKeys) table.Append(IntKeys[r], Value(r));
        else table.Append(Keys[r], Value(r));
      }
      builder.BuildToFile(DrydbPath);
    }

    Directory.CreateDirectory(LmdbPath);
    using (var env = new LightningEnvironment(LmdbPath, new EnvironmentConfiguration { MapSize = 1L << 31 }))
    {
      env.Open();
      using var tx = env.BeginTransaction();
      using var db = tx.OpenDatabase(configuration: new DatabaseConfiguration { Flags = DatabaseOpenFlags.Create });
      for (int r = 0; r < Keys.Length; r++) tx.Put(db, Keys[r], Value(r));
      tx.Commit();
    }

    var options = new DbOptions().SetCreateIfMissing(true);
    using (var rocks = RocksDb.Open(options, RocksPath))
    {
      for (int start = 0; start < Keys.Length; start += 10_000)
      {
        using var batch = new WriteBatch();
        for (int r = start; r < Math.Min(Keys.Length, start + 10_000); r++) batch.Put(Keys[r], Value(r));
        rocks.Write(batch);
      }
      rocks.CompactRange(Array.Empty<byte>(), null);
    }

    using (var sql = new SqliteConnection($"Data Source={SqlitePath}"))
    {
      sql.Open();
      Execute(sql, "PRAGMA page_size = 4096");
      Execute(sql, IntegerKeys ? "CREATE TABLE items (k INTEGER NOT NULL PRIMARY KEY, v BLOB NOT NULL)"
                               : "CREATE TABLE items (k BLOB NOT NULL PRIMARY KEY, v BLOB NOT NULL) WITHOUT ROWID");
      using var tx = sql.BeginTransaction();
      using var insert = sql.CreateCommand();
      insert.CommandText = "INSERT INTO items VALUES ($k, $v)";
      var k = insert.Parameters.Add("$k", IntegerKeys ? SqliteType.Integer : SqliteType.Blob);
      var v = insert.Parameters.Add("$v", SqliteType.Blob);
      insert.Prepare();
      for (int r = 0; r < Keys.Length; r++)
      {
        k.Value = IntegerKeys ? IntKeys[r] : Keys[r];
        v.Value = Value(r);
        insert.ExecuteNonQuery();
      }
      tx.Commit();
    }
    SqliteConnection.ClearAllPools();
  }

  private static void Execute(SqliteConnection sql, string text)
  {
    using var command = sql.CreateCommand();
    command.CommandText = text;
    command.ExecuteNonQuery();
  }

  private void OpenAll()
  {
    Drydb = ReadOnlyDatabase.Open(DrydbPath);
    Table = Drydb.GetTable("items");
    Lmdb = new LightningEnvironment(LmdbPath, new EnvironmentConfiguration { MapSize = 1L << 31 });
    Lmdb.Open(EnvironmentOpenFlags.ReadOnly | EnvironmentOpenFlags.NoLock | EnvironmentOpenFlags.NoThreadLocalStorage);
    LmdbTx = Lmdb.BeginTransaction(TransactionBeginFlags.ReadOnly);
    LmdbDb = LmdbTx.OpenDatabase();
    Rocks = RocksDb.OpenReadOnly(new DbOptions(), RocksPath, false);
    // SQLite at its fastest read-only setup: immutable, statements prepared once.
    Sqlite = new SqliteConnection($"Data Source=file:{SqlitePath}?immutable=1;Mode=ReadOnly");
    Sqlite.Open();
    SqlGet = Prepare("SELECT v FROM items WHERE k = $a", 1);
    SqlRange = Prepare("SELECT k, v FROM items WHERE k >= $a ORDER BY k LIMIT " + RangeRows, 1);
    SqlCount = Prepare("SELECT COUNT(*) FROM items WHERE k >= $a AND k <= $b", 2);
  }

  private SqliteCommand Prepare(string text, int parameters)
  {
    var command = Sqlite.CreateCommand();
    command.CommandText = text;
    command.Parameters.Add("$a", IntegerKeys ? SqliteType.Integer : SqliteType.Blob);
    if (parameters > 1) command.Parameters.Add("$b", IntegerKeys ? SqliteType.Integer : SqliteType.Blob);
    command.Prepare();
    return command;
  }

  /// <summary>A SQLite parameter value for the key of rank r.</summary>
  public object SqlKey(int r) => IntegerKeys ? IntKeys[r] : Keys[r];
}
