// Files are shared across languages: what the C++ library, the drydb tool and the Python package
// build, .NET reads, and what .NET builds, the tool reads, with identical rows.

namespace Drydb.Tests;

public class CrossLanguageTests
{
  private static string Run(string program, IEnumerable<string> arguments, string? stdin = null,
                            IDictionary<string, string>? environment = null)
  {
    var run = ChildRun.Of(program, arguments, stdin, environment);
    Assert.True(run.ExitCode == 0, $"{program} {string.Join(' ', arguments)} exited {run.ExitCode}: {run.Stderr}");
    return run.Stdout;
  }

  /// <summary>The tool's rows of a table (or of one of its indexes): `drydb scan --hex -f tsv`.</summary>
  private static List<string> ToolRows(string path, string table, string? index = null)
  {
    var arguments = new List<string> { "scan", path, "-t", table, "--hex", "-f", "tsv" };
    if (index != null) arguments.AddRange(new[] { "-x", index });
    return Run(Repo.Tool, arguments).Split('\n', StringSplitOptions.RemoveEmptyEntries).Skip(1).ToList();
  }

  private static string HexKey(ReadOnlySpan<byte> stored, KeyEncoding encoding)
  {
    if (encoding != KeyEncoding.Int64) return Hex.Of(stored);
    long key = (long)(System.Buffers.Binary.BinaryPrimitives.ReadUInt64BigEndian(stored) ^ 0x8000_0000_0000_0000UL);
    return key < 0 ? "-" + ((ulong)(-(key + 1)) + 1).ToString("x") : key.ToString("x");
  }

  /// <summary>.NET's rows of a table, in the tool's tsv form.</summary>
  private static List<string> DotnetRows(ReadOnlyTable table, SecondaryIndex? index = null)
  {
    var rows = new List<string>();
    using RangeResult range = index != null ? index.GetRange(KeyRange.Unbound, KeyRange.Unbound)
                                            : table.GetRange(KeyRange.Unbound, KeyRange.Unbound);
    var walk = range.GetEnumerator();
    while (walk.MoveNext())
    {
      string row = $"{HexKey(walk.CurrentKey, table.KeyEncoding)}\t{Hex.Of(walk.Current)}";
      if (index != null) row = $"{HexKey(walk.CurrentIndexKey, index.KeyEncoding)}\t{row}";
      rows.Add(row);
    }
    return rows;
  }

  /// <summary>Every table and index of the file, as .NET and the tool read it, are the same.</summary>
  private static void AssertSameAsTool(string path)
  {
    using var database = ReadOnlyDatabase.Open(path);
    Assert.NotEmpty(database.TableNames);
    foreach (string name in database.TableNames)
    {
      var table = database.GetTable(name);
      Assert.Equal(ToolRows(path, name), DotnetRows(table));
      foreach (string indexName in table.IndexNames)
        Assert.Equal(ToolRows(path, name, indexName), DotnetRows(table, table.Index(indexName)));
    }
    database.Verify();
  }

  [Theory]
  [InlineData("format2.5/placed_runs.drydb")]
  [InlineData("format2.5/placed_runs_lz4.drydb")]
  [InlineData("format2.4/identity.drydb")]
  [InlineData("format2.4/identity_lz4.drydb")]
  [InlineData("format2.3/column_lists.drydb")]
  [InlineData("format2/indexes.drydb")]
  [InlineData("format2.2/long_keys.drydb")]
  public void FilesOfTheCppLibrary(string golden)
  {
    string path = Path.Combine(Repo.Root, "tests", "data", golden);
    Assert.True(File.Exists(path), path);
    AssertSameAsTool(path);
  }

  [Fact]
  public void FileOfTheTool()
  {
    using var dir = new TempDir();
    string path = dir.File("tool.drydb");
    var lines = new StringBuilder();
    for (int i = -300; i < 700; i++) lines.Append($"{{\"id\":{i},\"name\":\"n{i % 37}\",\"tag\":\"t{i % 5}\"}}\n");
    File.WriteAllText(dir.File("rows.jsonl"), lines.ToString());
    Run(Repo.Tool, new[] { "build", path, "-i", dir.File("rows.jsonl"), "-q", "--page-size", "1024", "--compress", "zstd",
                           "--table", "people", "--key", "id", "--key-encoding", "int64", "--index", "tag=tag" });
    AssertSameAsTool(path);
    using var database = ReadOnlyDatabase.Open(path);
    Assert.Equal(new[] { "people" }, database.TableNames);
    var people = database.GetTable("people");
    Assert.Equal(1000, people.Count);
    Assert.Equal(Enumerable.Range(-300, 1000).Count(i => i % 5 == 3), people.Index("tag").CountRange("t3", "t3"));
  }

  [Fact]
  public void FileOfThePythonPackage()
  {
    using var dir = new TempDir();
    string path = dir.File("py.drydb");
    const string script = @"
import sys, uuid, drydb
b = drydb.Builder(page_size=1024, compression='lz4')
t = b.create_table('people', 'int64')
t.append_many((i, b'person %d' % i) for i in range(-50, 1000))
t.add_index('by_tail', key=lambda k, v: v[-1:])
w = b.create_table('words', 'bytes')
w.append_many((('w%05d' % i).encode(), bytes([i % 256]) * (i % 700)) for i in range(3000))
b.build(sys.argv[1])
";
    Run("/usr/bin/python3", new[] { "-c", script, path },
        environment: new Dictionary<string, string> { ["PYTHONPATH"] = Repo.PythonPackage });
    AssertSameAsTool(path);
    using var database = ReadOnlyDatabase.Open(path);
    using var row = database.GetTable("people").Get(-7);
    Assert.Equal("person -7", Encoding.UTF8.GetString(row.Span));
  }

  [Fact]
  public void FileOfDotnetReadByTheTool()
  {
    using var dir = new TempDir();
    var random = new Random(5);
    var expected = new SortedDictionary<long, byte[]>();
    string path = dir.Build("net.drydb", new DatabaseBuilder { PageSize = 2048, Compression = Compression.Zstd, ZstdLevel = 5 }, builder =>
    {
      var table = builder.CreateTable("scores", KeyEncoding.Int64);
      for (int i = 0; i < 2000; i++)
      {
        long key = random.NextInt64(-100000, 100000);
        if (expected.ContainsKey(key)) continue;
        var value = Encoding.UTF8.GetBytes($"score {key} {new string('x', random.Next(3000) < 30 ? 3000 : 5)}");
        expected[key] = value;
        table.Append(key, value);
      }
      table.AddSecondaryIndex<string>("parity", false, KeyEncoding.Ascii, (key, value) => value.Length % 2 == 0 ? "even" : "odd");
      table.AddMissFilter(10);
      var names = builder.CreateTable("names", KeyEncoding.Utf8);
      names.Append("é", "accent"u8);
      names.Append("z", "plain"u8);
    });
    Run(Repo.Tool, new[] { "verify", path });
    AssertSameAsTool(path);
    // The dump holds every row as .NET wrote it.
    var dumped = Run(Repo.Tool, new[] { "dump", path, "-t", "scores" }).Split('\n', StringSplitOptions.RemoveEmptyEntries)
                   .Select(line => System.Text.Json.JsonDocument.Parse(line).RootElement)
                   .Where(row => row.TryGetProperty("key", out _) && row.TryGetProperty("value", out _))
                   .Select(row => (row.GetProperty("key").GetInt64(), row.GetProperty("value").GetString()))
                   .ToList();
    Assert.Equal(expected.Select(kv => (kv.Key, (string?)Encoding.UTF8.GetString(kv.Value))).ToList(), dumped);
    string info = Run(Repo.Tool, new[] { "info", path, "-t", "scores" });
    Assert.Contains("zstd", info);
  }
}
