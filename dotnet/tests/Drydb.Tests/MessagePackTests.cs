// MessagePack typed tables: the C# DryDB README's example, an index on a typed member, and the
// values as the drydb tool reads them.
using Drydb.MessagePack;
using MessagePack;

namespace Drydb.Tests;

[MessagePackObject]
public class Person
{
  [Key(0)]
  public string Name { get; set; } = "";

  [Key(1)]
  public int Age { get; set; }
}

public class MessagePackTests
{
  [Fact]
  public void TypedTablesRoundTrip()
  {
    using var dir = new TempDir();
    string path = dir.Build("people.drydb", builder =>
    {
      var tableBuilder = builder.CreateTable("items", KeyEncoding.Ascii).AsMessagePackSerializable<Person>();
      tableBuilder.Append("key01", new Person { Name = "Bob", Age = 22 });
      tableBuilder.Append("key02", new Person { Name = "Tom", Age = 34 });
      tableBuilder.Append("key03", new Person { Name = "Ann", Age = 22 });
      tableBuilder.AddSecondaryIndex("age", false, KeyEncoding.Int64LittleEndian, (key, person) => (long)person.Age);
    });
    using var database = ReadOnlyDatabase.Open(path);
    var table = database.GetTable("items").AsMessagePackSerializable<Person>();
    Person? bob = table.Get("key01");
    Assert.NotNull(bob);
    Assert.Equal(("Bob", 22), (bob!.Name, bob.Age));
    Assert.Null(table.Get("missing"));
    Assert.Equal(new[] { "Bob", "Tom", "Ann" }, table.GetRange((string?)null, null).Select(p => p.Name));
    Assert.Equal(new[] { "Ann", "Tom" }, table.GetRange("key02", null, sortOrder: SortOrder.Descending).Select(p => p.Name));
    Assert.Equal(new[] { "Bob", "Ann" }, table.GetAll("age", 22).Select(p => p.Name));
    Assert.Equal(new[] { "Tom" }, database.GetTable<Person>("items").GetAll("age", 34).Select(p => p.Name));

    // A [MessagePackObject] with [Key(n)] members is a MessagePack array; the tool shows it so.
    var run = ChildRun.Of(Repo.Tool, new[] { "get", path, "-t", "items", "key02", "-f", "jsonl" });
    Assert.Equal(0, run.ExitCode);
    Assert.Contains("[\"Tom\",34]", run.Stdout);
  }
}
