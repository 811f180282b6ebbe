// drydb_bench: registers the benchmarks of every store compiled in, runs them, then closes every
// store and removes the scratch folder.
//
//   build/bench/bench/drydb_bench --benchmark_filter='^RandomKeys/'
//     --benchmark_enable_random_interleaving=true --benchmark_repetitions=5
//
//   build/bench/bench/drydb_bench --shapes_100M --benchmark_filter='_random_100M/'
//     only the 100M-row integer shapes, in the stores that run them (workloads.h); one shape
//     per run, as each took 12 GB of memory (shapes.h)
//
// scripts/bench.sh runs the whole suite and writes docs/benchmarks.md from its JSON.
#include <benchmark/benchmark.h>

#include <cstring>

#include "workloads.h"

namespace {

// Removes --shapes_100M from argv (Google Benchmark rejects flags it does not know); whether it
// was there.
bool take_large_shapes_flag(int& argc, char** argv) {
  bool found = false;
  int kept = 0;
  for (int i = 0; i < argc; ++i) {
    if (i > 0 && std::strcmp(argv[i], "--shapes_100M") == 0)
      found = true;
    else
      argv[kept++] = argv[i];
  }
  argc = kept;
  argv[kept] = nullptr;  // as argv ends
  return found;
}

}  // namespace

int main(int argc, char** argv) {
  const bool large_shapes = take_large_shapes_flag(argc, argv);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;

  if (large_shapes) {
    drydb_bench::register_drydb_large_shapes();
    drydb_bench::register_vector_large_shapes();
#ifdef DRYDB_BENCH_HAVE_LMDB
    drydb_bench::register_lmdb_large_shapes();
#endif
  } else {
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
  }

  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  drydb_bench::cleanup();
  return 0;
}
