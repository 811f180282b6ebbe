// drydb_bench: registers the benchmarks of every store compiled in, runs them, then closes every
// store and removes the scratch folder.
//
//   build/bench/bench/drydb_bench --benchmark_filter='^RandomKeys/'
//     --benchmark_enable_random_interleaving=true --benchmark_repetitions=5
//
// scripts/bench.sh runs the whole suite and writes docs/benchmarks.md from its JSON.
#include <benchmark/benchmark.h>

#include "workloads.h"

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;

  drydb_bench::register_drydb();
  drydb_bench::register_baselines();
#ifdef DRYDB_BENCH_HAVE_SQLITE
  drydb_bench::register_sqlite();
#endif
#ifdef DRYDB_BENCH_HAVE_ROCKSDB
  drydb_bench::register_rocksdb();
#endif
#ifdef DRYDB_BENCH_HAVE_LMDB
  drydb_bench::register_lmdb();
#endif
#ifdef DRYDB_BENCH_HAVE_DATASET
  drydb_bench::register_sharded();
#endif
#ifdef DRYDB_BENCH_HAVE_ABSL
  drydb_bench::register_absl();
#endif
#ifdef DRYDB_BENCH_HAVE_MARISA
  drydb_bench::register_marisa();
#endif
#ifdef DRYDB_BENCH_HAVE_HAT_TRIE
  drydb_bench::register_hat_trie();
#endif

  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  drydb_bench::cleanup();
  return 0;
}
