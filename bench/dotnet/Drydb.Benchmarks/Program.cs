// drydb's .NET benchmarks: `dotnet run -c Release -- --filter '*'` (scripts/bench.sh --dotnet
// runs them all). In-process (no rebuild per benchmark), short runs, allocations reported.
using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Diagnosers;
using BenchmarkDotNet.Exporters;
using BenchmarkDotNet.Jobs;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;
using BenchmarkDotNet.Toolchains.InProcess.Emit;

var config = ManualConfig.CreateEmpty()
  .AddJob(Job.Default.WithToolchain(InProcessEmitToolchain.Instance)
             .WithWarmupCount(3).WithIterationCount(7).WithLaunchCount(1)
             .WithIterationTime(Perfolizer.Horology.TimeInterval.FromMilliseconds(200)))
  .AddDiagnoser(MemoryDiagnoser.Default)
  .AddColumnProvider(DefaultColumnProviders.Instance)
  .AddExporter(MarkdownExporter.GitHub)
  .AddExporter(BenchmarkDotNet.Exporters.Json.JsonExporter.Full)
  .AddLogger(BenchmarkDotNet.Loggers.ConsoleLogger.Default)
  .WithSummaryStyle(SummaryStyle.Default.WithRatioStyle(RatioStyle.Trend))
  .WithOptions(ConfigOptions.JoinSummary);
BenchmarkSwitcher.FromAssembly(typeof(Drydb.Benchmarks.Fixture).Assembly).Run(args, config);
