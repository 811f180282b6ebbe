// Builds a database with the Drydb package, reads it back, and reads the file named on the
// command line (a file the drydb tool built). Exits 1 on any wrong answer.
using System.Text;
using Drydb;

string dir = Path.Combine(Path.GetTempPath(), $"drydb-consumer-{Environment.ProcessId}");
Directory.CreateDirectory(dir);
try
{
    string path = Path.Combine(dir, "items.drydb");
    using (var builder = new DatabaseBuilder { PageSize = 4096 })
    {
        var items = builder.CreateTable("items", KeyEncoding.Ascii);
        for (int i = 0; i < 1000; i++) items.Append($"item/{i:D4}", Encoding.UTF8.GetBytes($"value {i}"));
        builder.BuildToFile(path);
    }

    using var database = ReadOnlyDatabase.Open(path);
    var table = database.GetTable("items");
    using (var result = table.Get("item/0042"u8))
        Check(result.IsExists && Encoding.UTF8.GetString(result.Span) == "value 42", "get");
    using (var range = table.GetRange("item/0100"u8, "item/0199"u8))
        Check(range.Count == 100, "range");
    Check(table.CountRange("item/0500", null) == 500, "count");

    if (args.Length > 0)
    {
        using var toolFile = ReadOnlyDatabase.Open(args[0]);
        foreach (string name in toolFile.TableNames)
            Console.WriteLine($"{name}: {toolFile.GetTable(name).Count} rows");
        using var row = toolFile.GetTable(toolFile.TableNames[0]).Get("k2");
        Check(row.IsExists && Encoding.UTF8.GetString(row.Span) == "two", "the tool's file");
    }
    Console.WriteLine("consumer: ok");
}
finally
{
    Directory.Delete(dir, recursive: true);
}

static void Check(bool ok, string what)
{
    if (ok) return;
    Console.Error.WriteLine($"consumer: wrong answer: {what}");
    Environment.Exit(1);
}
