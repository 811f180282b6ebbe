// The binding matches the C API: each imported function is an export of libdrydb_c.so, and the
// structs have the C layout's sizes (x86-64 and arm64).
using System.Reflection;
using System.Runtime.InteropServices;
using Drydb.Native;

namespace Drydb.Tests;

public class NativeBindingTests
{
  [Fact]
  public void EveryImportIsAnExport()
  {
    IntPtr library = NativeLibrary.Load(Path.Combine(AppContext.BaseDirectory, "libdrydb_c.so"));
    var imports = typeof(NativeMethods).GetMethods(BindingFlags.Static | BindingFlags.NonPublic | BindingFlags.Public)
                                       .Select(m => m.Name).Where(n => n.StartsWith("drydb_")).Distinct().ToList();
    Assert.True(imports.Count > 60, $"{imports.Count} imports");
    Assert.All(imports, name => Assert.True(NativeLibrary.TryGetExport(library, name, out _), name));
    string header = File.ReadAllText(Path.Combine(Repo.Root, "include", "drydb", "c.h"));
    Assert.All(imports, name => Assert.Contains($" {name}(", header));
  }

  [Fact]
  public void StructsHaveTheCLayout()
  {
    Assert.Equal(32, Marshal.SizeOf<NativeKey>());
    Assert.Equal(40, Marshal.SizeOf<NativeBound>());
    Assert.Equal(16, Marshal.SizeOf<NativeView>());
    Assert.Equal(16, Marshal.SizeOf<OpenOptions>());
    Assert.Equal(48, Marshal.SizeOf<BuilderOptions>());
    Assert.Equal(8, (int)Marshal.OffsetOf<NativeKey>(nameof(NativeKey.Data)));
    Assert.Equal(8, (int)Marshal.OffsetOf<NativeBound>(nameof(NativeBound.Key)));
    Assert.Equal(24, (int)Marshal.OffsetOf<BuilderOptions>(nameof(BuilderOptions.Compression)));
  }
}
