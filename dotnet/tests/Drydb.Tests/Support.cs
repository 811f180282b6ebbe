// Helpers shared by the tests: temporary folders, the repository's paths, and a sorted model of
// a table to check drydb's answers against.
using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;

namespace Drydb.Tests;

/// <summary>A folder deleted when the test ends.</summary>
internal sealed class TempDir : IDisposable
{
  public string Path { get; } = Directory.CreateTempSubdirectory("drydb-net-").FullName;

  public string File(string name) => System.IO.Path.Combine(Path, name);

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
