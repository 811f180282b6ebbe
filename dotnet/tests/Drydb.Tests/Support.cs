// Helpers shared by the tests: temporary folders (and a database built in one), the
// repository's paths, bounded waits and child processes, and a sorted model of a table to check
// drydb's answers against.
using System.Diagnostics;

namespace Drydb.Tests;

/// <summary>A folder deleted when the test ends.</summary>
internal sealed class TempDir : IDisposable
{
  public string Path { get; } = Directory.CreateTempSubdirectory("drydb-net-").FullName;

  public string File(string name) => System.IO.Path.Combine(Path, name);

  /// <summary>Builds the database file `name` in the folder, `fill` adding its tables and rows;
  /// the file's path.</summary>
  public string Build(string name, Action<DatabaseBuilder> fill) => Build(name, new DatabaseBuilder(), fill);

  /// <summary>Build with `builder` (its options set), disposed once built.</summary>
  public string Build(string name, DatabaseBuilder builder, Action<DatabaseBuilder> fill)
  {
    string path = File(name);
    using (builder)
    {
      fill(builder);
      builder.BuildToFile(path);
    }
    return path;
  }

  public void Dispose()
  {
    try { Directory.Delete(Path, recursive: true); } catch (IOException) { }
  }
}

/// <summary>Where the rest of the repository is: the tool, the Python package, golden files.</summary>
internal static class Repo
{
  public static string Root
  {
    get
    {
      for (var dir = new DirectoryInfo(AppContext.BaseDirectory); dir != null; dir = dir.Parent)
        if (System.IO.File.Exists(System.IO.Path.Combine(dir.FullName, "include", "drydb", "c.h"))) return dir.FullName;
      throw new InvalidOperationException("the tests run from inside the drydb repository");
    }
  }

  /// <summary>A path from an environment variable (scripts/dotnet.sh sets it), else the Release
  /// build's; the test fails, naming both, when neither exists.</summary>
  public static string Built(string variable, string relative)
  {
    string? path = Environment.GetEnvironmentVariable(variable);
    path ??= System.IO.Path.Combine(Root, relative);
    if (!System.IO.File.Exists(path) && !Directory.Exists(path))
      throw new InvalidOperationException($"{path} is missing: build drydb's Release tree first or set {variable}");
    return path;
  }

  public static string Tool => Built("DRYDB_CLI", "build/release/tools/drydb/drydb");
  public static string PythonPackage => Built("DRYDB_PYTHONPATH", "build/release/python/package");
}

/// <summary>The bound of every wait in the tests: far above what a working build needs, under a
/// loaded machine too, so that a hang fails its test instead of the run.</summary>
internal static class Bounded
{
  public static readonly TimeSpan Limit = TimeSpan.FromSeconds(60);

  /// <summary>Waits for `task` within Limit; past it the test fails, naming `what`.</summary>
  public static void Wait(Task task, string what) =>
    Assert.True(task.Wait(Limit), $"{what} did not end within {Limit.TotalSeconds} s");

  public static T Result<T>(Task<T> task, string what)
  {
    Wait(task, what);
    return task.Result;
  }

  public static void WaitAll(Task[] tasks, string what) =>
    Assert.True(Task.WaitAll(tasks, Limit), $"{what} did not end within {Limit.TotalSeconds} s");

  /// <summary>An async test's body, failing (TimeoutException) when it has not ended within Limit.</summary>
  public static Task Async(Func<Task> body) => body().WaitAsync(Limit);
}

/// <summary>A program the tests run (the drydb tool, Python) and what it gave.</summary>
internal sealed record ChildRun(int ExitCode, string Stdout, string Stderr)
{
  /// <summary>Runs `program` to its end, `stdin` written to it, its output read whole; one that
  /// has not exited within Bounded.Limit is killed and fails the test.</summary>
  public static ChildRun Of(string program, IEnumerable<string> arguments, string? stdin = null,
                            IDictionary<string, string>? environment = null)
  {
    var start = new ProcessStartInfo(program)
    {
      RedirectStandardOutput = true,
      RedirectStandardError = true,
      RedirectStandardInput = stdin != null,
      UseShellExecute = false,
    };
    foreach (string argument in arguments) start.ArgumentList.Add(argument);
    if (environment != null) foreach (var (k, v) in environment) start.Environment[k] = v;
    using var process = Process.Start(start)!;
    var stdout = process.StandardOutput.ReadToEndAsync();
    var stderr = process.StandardError.ReadToEndAsync();
    // Written beside the wait, so that a child that never reads cannot block the test.
    var input = stdin == null ? Task.CompletedTask : Task.Run(() =>
    {
      process.StandardInput.Write(stdin);
      process.StandardInput.Close();
    });
    if (!process.WaitForExit((int)Bounded.Limit.TotalMilliseconds))
    {
      process.Kill(entireProcessTree: true);
      Assert.Fail($"{program} {string.Join(' ', arguments)} did not exit within {Bounded.Limit.TotalSeconds} s");
    }
    Bounded.Wait(input, "writing its input");
    return new ChildRun(process.ExitCode, Bounded.Result(stdout, "reading its output"),
                        Bounded.Result(stderr, "reading its errors"));
  }

  public override string ToString() => $"exit {ExitCode}: {Stderr}";
}

/// <summary>Unsigned byte-wise order: drydb's key order.</summary>
internal sealed class BytesOrder : IComparer<byte[]>
{
  public static readonly BytesOrder Instance = new BytesOrder();

  public int Compare(byte[]? x, byte[]? y) => x.AsSpan().SequenceCompareTo(y.AsSpan());
}

/// <summary>A row of a model: the key as drydb stores it (so byte order is key order for every
/// encoding), the key as the test appended it, and the value.</summary>
internal sealed record ModelRow(byte[] Stored, object Key, byte[] Value);

/// <summary>A table's rows in key order.</summary>
internal sealed class Model
{
  public readonly List<ModelRow> Rows;

  public Model(IEnumerable<ModelRow> rows) =>
    Rows = rows.OrderBy(r => r.Stored, BytesOrder.Instance).ToList();

  public static byte[] StoredInt64(long key)
  {
    var bytes = new byte[8];
    System.Buffers.Binary.BinaryPrimitives.WriteUInt64BigEndian(bytes, (ulong)key ^ 0x8000_0000_0000_0000UL);
    return bytes;
  }

  /// <summary>The rows between two stored keys (null = unbounded), in order.</summary>
  public List<ModelRow> Range(byte[]? start, bool startExclusive, byte[]? end, bool endExclusive, SortOrder order)
  {
    var rows = Rows.Where(r =>
    {
      if (start != null)
      {
        int c = BytesOrder.Instance.Compare(r.Stored, start);
        if (c < 0 || (c == 0 && startExclusive)) return false;
      }
      if (end != null)
      {
        int c = BytesOrder.Instance.Compare(r.Stored, end);
        if (c > 0 || (c == 0 && endExclusive)) return false;
      }
      return true;
    }).ToList();
    if (order == SortOrder.Descending) rows.Reverse();
    return rows;
  }
}

internal static class Hex
{
  public static string Of(ReadOnlySpan<byte> bytes) => Convert.ToHexString(bytes).ToLowerInvariant();
}
