// Text that cannot reach native code whole is refused, never cut or replaced: a path or name with
// an embedded NUL (C would end it there), and a key, bound, prefix or name holding a lone
// surrogate (UTF-8 has no encoding for it; a lenient encoder would make it U+FFFD, another key).
using System.Threading;

namespace Drydb.Tests;

public class TextInputTests
{
  private static void Refused(string parameter, Action call)
  {
    var e = Assert.ThrowsAny<ArgumentException>(call);
    Assert.Equal(parameter, e.ParamName);
  }

  private static void RefusedAsync(string parameter, Func<Task> call)
  {
    Task task = call();
    Assert.True(((IAsyncResult)task).AsyncWaitHandle.WaitOne(Bounded.Limit), "the call did not end");
    Assert.True(task.IsFaulted, "the call was not refused");
    var e = Assert.IsAssignableFrom<ArgumentException>(task.Exception!.InnerException);
    Assert.Equal(parameter, e.ParamName);
  }

  private static string BuildFile(TempDir dir)
  {
    return dir.Build("text.drydb", builder =>
    {
      var t = builder.CreateTable("t", KeyEncoding.Utf8);
      t.Append("\uFFFD", "replacement"u8);
      t.Append("a", "1"u8);
      t.Append(new string('x', 300) + "\uFFFD", "long"u8);
      t.AddSecondaryIndex<string>("by_value", isUnique: false, KeyEncoding.Utf8,
                                  (key, value) => Encoding.UTF8.GetString(key.Span));
    });
  }

  [Fact]
  public void PathsWithANulAreRefused()
  {
    using var dir = new TempDir();
    string victim = BuildFile(dir);
    byte[] before = File.ReadAllBytes(victim);

    // A build to "victim\0.new" would replace victim.
    var builder = new DatabaseBuilder();
    builder.CreateTable("t").Append("b", "2"u8);
    Refused("path", () => builder.BuildToFile(victim + "\0.new"));
    RefusedAsync("path", () => builder.BuildToFileAsync(victim + "\0.new").AsTask());
    Assert.Equal(before, File.ReadAllBytes(victim));
    builder.BuildToFile(dir.File("b.drydb"));  // the refusals left the builder unbuilt
    builder.Dispose();
    Refused("value", () => new DatabaseBuilder().TempDirectory = dir.Path + "\0x");

    Refused("path", () => ReadOnlyDatabase.Open(victim + "\0y"));
    Refused("path", () => ReadOnlyDatabase.OpenFile(victim + "\0y"));
    RefusedAsync("path", () => ReadOnlyDatabase.OpenAsync(victim + "\0y").AsTask());
    RefusedAsync("path", () => ReadOnlyDatabase.OpenFileAsync(victim + "\0y").AsTask());
    Refused("path", () => ShardedDataset.Open(dir.Path + "\0y"));
    Refused("path", () => LiveDataset.Open(dir.Path + "\0y"));
    // A lone surrogate has no UTF-8 either: refused, not read as another file's name.
    Refused("path", () => ReadOnlyDatabase.Open(dir.File("\uD800.drydb")));
  }

  [Fact]
  public void NamesWithANulAreRefused()
  {
    using var dir = new TempDir();
    using var database = ReadOnlyDatabase.Open(BuildFile(dir));
    Refused("name", () => database.GetTable("t\0x"));
    Refused("name", () => database.TryGetTable("t\0x", out _));
    ReadOnlyTable t = database.GetTable("t");
    Refused("name", () => t.Index("by_value\0x"));

    using var builder = new DatabaseBuilder();
    Refused("name", () => builder.CreateTable("t\0x"));
    Refused("name", () => builder.CreateTable("\uDC00"));
    var table = builder.CreateTable("t");
    Refused("name", () => table.AddSecondaryIndex("i\0x", false, KeyEncoding.Ascii, (k, v) => v));
    Refused("name", () => table.AddSecondaryIndex<string>("i\0x", false, KeyEncoding.Ascii, (k, v) => "x"));
    table.Append("a", "1"u8);  // the refusals left the builder usable
    builder.BuildToFile(dir.File("names.drydb"));
  }

  [Fact]
  public void DatasetNamesWithANulAreRefused()
  {
    using var dir = new TempDir();
    string file = BuildFile(dir);
    string folder = dir.File("ds");
    var run = ChildRun.Of(Repo.Tool, new[] { "shard", "split", file, "-n", "2", "-o", folder });
    Assert.True(run.ExitCode == 0, run.Stderr);
    using var dataset = ShardedDataset.Open(folder);
    Refused("name", () => dataset.GetTable("t\0x"));
    using var live = LiveDataset.Open(folder);
    using var pinned = live.Pin();
    Refused("name", () => pinned.GetTable("t\0x"));
    Assert.Equal(3, dataset.GetTable("t").Count);
  }

  [Fact]
  public void LoneSurrogatesInKeysAreRefused()
  {
    using var dir = new TempDir();
    using var database = ReadOnlyDatabase.Open(BuildFile(dir));
    ReadOnlyTable t = database.GetTable("t");
    SecondaryIndex index = t.Index("by_value");
    string longLone = new string('x', 300) + "\uD800";  // past the stack buffer
    foreach (string lone in new[] { "\uD800", "\uDC00", "a\uD83D", longLone })
    {
      Refused("key", () => t.Get(lone));
      Refused("key", () => t.GetAsync(lone));
      Refused("startKey", () => t.GetRange(lone, null));
      Refused("endKey", () => t.GetRange("a", lone));
      Refused("startKey", () => t.CountRange(lone, null));
      Refused("endKey", () => t.CountRange(null, lone));
      Refused("prefix", () => t.GetRangeWithPrefix(lone));
      Refused("key", () => index.GetAll(lone));
      Refused("key", () => index.Get(lone));
      Refused("keys", () => t.GetMany(new[] { "a", lone }));
      using var iterator = t.CreateIterator();
      Refused("key", () => iterator.Seek(lone));
      Refused("key", () => iterator.TrySeek(lone));
    }
    // The replacement character itself is a key like any other.
    using var found = t.Get("\uFFFD");
    Assert.Equal("replacement", Encoding.UTF8.GetString(found.Span));
    // A valid pair is a key like any other.
    using var pair = t.Get("\uD83D\uDE00");
    Assert.False(pair.HasValue);
  }

  [Fact]
  public void LoneSurrogatesInBuiltKeysAreRefused()
  {
    using var dir = new TempDir();
    using (var builder = new DatabaseBuilder())
    {
      var t = builder.CreateTable("t", KeyEncoding.Utf8);
      Refused("key", () => t.Append("\uD800", "v"u8));
      Refused("key", () => t.Append(new string('x', 300) + "\uDC00", "v"u8));
      t.Append("a", "1"u8);  // still usable
      builder.BuildToFile(dir.File("ok.drydb"));
    }
    // An index function's string key: the build fails, the cause an ArgumentException.
    using (var builder = new DatabaseBuilder())
    {
      var t = builder.CreateTable("t", KeyEncoding.Utf8);
      t.Append("a", "1"u8);
      t.AddSecondaryIndex<string>("i", false, KeyEncoding.Utf8, (key, value) => "\uD800");
      var e = Assert.Throws<InvalidOperationException>(() => builder.BuildToFile(dir.File("never.drydb")));
      Assert.IsAssignableFrom<ArgumentException>(e.InnerException);
      Assert.False(File.Exists(dir.File("never.drydb")));
    }
  }
}
