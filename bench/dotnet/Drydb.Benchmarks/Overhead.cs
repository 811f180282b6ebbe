// Where a .NET get's time goes: the public Get beside the C API's get called directly (the
// difference is the package's own work: the holder lease and the result struct), and a trivial
// C function called with and without the GC transition (the cost of the P/Invoke itself). The
// C++ get's time on the same data comes from drydb_bench (docs/benchmarks.md).
using System.Runtime.InteropServices;
using BenchmarkDotNet.Attributes;
using Drydb.Native;

namespace Drydb.Benchmarks;

public unsafe class Overhead
{
  [DllImport("drydb_c", EntryPoint = "drydb_status_name")]
  private static extern byte* StatusName(int status);

  [DllImport("drydb_c", EntryPoint = "drydb_status_name"), SuppressGCTransition]
  private static extern byte* StatusNameNoTransition(int status);

  private Fixture f = null!;
  private IntPtr holder;

  [GlobalSetup]
  public void Setup()
  {
    f = Fixture.Get("dense_10k");
    IntPtr created;
    if (NativeMethods.drydb_value_create(f.Drydb.Core.Handle, &created) != 0) throw new InvalidOperationException();
    holder = created;
  }

  [GlobalCleanup]
  public void Cleanup() => NativeMethods.drydb_value_release(holder);

  [Benchmark(Baseline = true, OperationsPerInvoke = Fixture.Gets)]
  public long PublicGet()
  {
    long sum = 0;
    for (int i = 0; i < Fixture.Gets; i++)
    {
      using var result = f.Table.Get(f.QueryInts[i]);
      sum += result.Span[^1];
    }
    return sum;
  }

  [Benchmark(OperationsPerInvoke = Fixture.Gets)]
  public long CApiGet()
  {
    long sum = 0;
    IntPtr table = f.Table.Handle;
    for (int i = 0; i < Fixture.Gets; i++)
    {
      NativeKey key = NativeKey.Integer(f.QueryInts[i]);
      byte* data;
      nuint size;
      NativeMethods.drydb_table_get(table, &key, holder, &data, &size);
      sum += data[size - 1];
    }
    return sum;
  }

  [Benchmark(OperationsPerInvoke = Fixture.Gets)]
  public long TrivialCall()
  {
    long sum = 0;
    for (int i = 0; i < Fixture.Gets; i++) sum += (long)StatusName(i & 7);
    return sum;
  }

  [Benchmark(OperationsPerInvoke = Fixture.Gets)]
  public long TrivialCallNoTransition()
  {
    long sum = 0;
    for (int i = 0; i < Fixture.Gets; i++) sum += (long)StatusNameNoTransition(i & 7);
    return sum;
  }
}
