// Misuse is an ArgumentException, a file problem a DrydbException with its code, an unknown
// name a KeyNotFoundException.

namespace Drydb.Tests;

public class ErrorTests
{
  [Fact]
  public void FileProblemsCarryTheirCode()
  {
    using var dir = new TempDir();
    var missing = Assert.Throws<DrydbException>(() => ReadOnlyDatabase.Open(dir.File("none.drydb")));
    Assert.Equal(DrydbErrorCode.IoError, missing.Code);
    Assert.Contains("none.drydb", missing.Message);

    File.WriteAllBytes(dir.File("junk.drydb"), new byte[8192]);
    var junk = Assert.Throws<DrydbException>(() => ReadOnlyDatabase.Open(dir.File("junk.drydb")));
    Assert.Equal(DrydbErrorCode.BadMagic, junk.Code);

    string good = LifetimeTests.Build(dir);
    byte[] bytes = File.ReadAllBytes(good);
    var cut = Assert.Throws<DrydbException>(() => ReadOnlyDatabase.Open(bytes.AsSpan(0, bytes.Length / 2)));
    Assert.True(cut.Code is DrydbErrorCode.Truncated or DrydbErrorCode.Corruption, cut.Code.ToString());

    // A flipped byte in a leaf: found by the first read of that page, or by Verify.
    bytes[bytes.Length - 700] ^= 0x40;
    using var database = ReadOnlyDatabase.Open(bytes);
    var corrupt = Assert.Throws<DrydbException>(() => database.Verify());
    Assert.Equal(DrydbErrorCode.Corruption, corrupt.Code);
  }

  [Fact]
  public void ARangeGivesTheRowsBeforeACorruptPageThenThrows()
  {
    using var dir = new TempDir();
    byte[] bytes = File.ReadAllBytes(LifetimeTests.Build(dir));
    // Row 600's value (1800 as 8 little-endian bytes) is in one leaf only: flip a byte of it.
    byte[] value = BitConverter.GetBytes(600L * 3);
    int at = bytes.AsSpan().IndexOf(value);
    Assert.True(at > 0);
    Assert.Equal(-1, bytes.AsSpan(at + 1).IndexOf(value));
    bytes[at] ^= 0x40;

    using var database = ReadOnlyDatabase.Open(bytes);
    var table = database.GetTable("t");
    using var range = table.GetRange((long?)null, null);
    var seen = new List<long>();
    var error = Assert.Throws<DrydbException>(() =>
    {
      foreach (var row in range) seen.Add(BitConverter.ToInt64(row) / 3);
    });
    Assert.Equal(DrydbErrorCode.Corruption, error.Code);
    // Every row up to the corrupt leaf, in order (more than a batch of them), and none after.
    Assert.InRange(seen.Count, RangeResult.Enumerator.BatchRows + 1, 600);
    for (int i = 0; i < seen.Count; i++) Assert.Equal(i, seen[i]);
  }

  [Fact]
  public void MisuseIsAnArgumentException()
  {
    using var dir = new TempDir();
    using var database = ReadOnlyDatabase.Open(LifetimeTests.Build(dir));
    var table = database.GetTable("t");
    Assert.Throws<KeyEncodingMismatchException>(() => table.Get("text"));
    Assert.Throws<KeyEncodingMismatchException>(() => table.GetRangeWithPrefix("p"u8));
    var reversed = Assert.ThrowsAny<ArgumentException>(() => table.GetRange(10, 5));
    Assert.Equal(DrydbErrorCode.InvalidArgument, ((DrydbArgumentException)reversed).Code);
    Assert.Throws<ArgumentNullException>(() => table.Get((string)null!));
    Assert.Throws<ArgumentNullException>(() => database.GetTable(null!));
    Assert.Throws<KeyNotFoundException>(() => database.GetTable("missing"));
    Assert.False(database.TryGetTable("missing", out _));
    using var iterator = table.CreateIterator();
    Assert.Throws<InvalidOperationException>(() => iterator.CurrentKey.Length);  // not on a row
    Assert.Throws<ArgumentOutOfRangeException>(() => iterator.SeekRank(-1));
  }

  [Fact]
  public void BuildErrors()
  {
    using var dir = new TempDir();
    using (var builder = new DatabaseBuilder())
    {
      var table = builder.CreateTable("t", KeyEncoding.Ascii);
      Assert.Throws<KeyEncodingMismatchException>(() => table.Append(5L, "x"u8));
      table.Append("a", "1"u8);
      table.Append("a", "2"u8);
      var duplicate = Assert.Throws<DrydbArgumentException>(() => builder.BuildToFile(dir.File("d.drydb")));
      Assert.Equal(DrydbErrorCode.DuplicateKey, duplicate.Code);
      Assert.False(File.Exists(dir.File("d.drydb")));
    }
    using (var builder = new DatabaseBuilder())
    {
      builder.CreateTable("t");
      var duplicate = Assert.ThrowsAny<DrydbArgumentException>(() => builder.CreateTable("t"));
      Assert.Equal(DrydbErrorCode.DuplicateName, duplicate.Code);
    }
    using (var builder = new DatabaseBuilder { PageSize = 1000 })
    {
      var bad = Assert.Throws<DrydbArgumentException>(() => builder.CreateTable("t"));
      Assert.Equal(DrydbErrorCode.InvalidArgument, bad.Code);
    }
    using (var builder = new DatabaseBuilder())
    {
      var table = builder.CreateTable("t");
      table.Append("a", "1"u8);
      table.Append("b", "2"u8);
      table.AddSecondaryIndex("u", true, KeyEncoding.Ascii, (key, value) => "same");
      var duplicate = Assert.Throws<DrydbArgumentException>(() => builder.BuildToMemory());
      Assert.Equal(DrydbErrorCode.DuplicateKey, duplicate.Code);
    }
    using (var builder = new DatabaseBuilder())
    {
      var table = builder.CreateTable("t");
      table.Append("a", "1"u8);
      table.AddSecondaryIndex<string>("boom", false, KeyEncoding.Ascii, (key, value) => throw new FormatException("bad row"));
      var failed = Assert.Throws<InvalidOperationException>(() => builder.BuildToMemory());
      Assert.IsType<FormatException>(failed.InnerException);
    }
  }
}
