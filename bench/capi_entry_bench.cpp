// The cost of entering the C API from a caller that uses AVX: gets through drydb_table_get (int64
// keys 0..9,999, 13-byte values, 4 KiB pages, keys in a pseudo-random order) called cleanly, and
// called with the upper halves of the vector registers dirty, as .NET's JIT (and any program
// built for AVX) leaves them. On Intel CPUs a library that runs SSE code in that state pays on
// every instruction (a get from .NET took 8x the C call's time); the C API clears the state at
// entry, so the two must take the same time. A trivial call (drydb_status_name) tells the
// call's own share, and get_copy the share of holding the database for a call.
//
//   build/bench/bench/drydb_capi_entry_bench --benchmark_repetitions=5
//     --benchmark_enable_random_interleaving=true
//
// On a CPU without AVX the dirty variants skip (they report an error row).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "drydb/c.h"

namespace {

constexpr int64_t kRows = 10000;
constexpr int kGets = 1000;  // per iteration

#if defined(__x86_64__)
bool cpu_has_avx() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx") != 0;
}
// Writes a 256-bit register and leaves it so: the upper state stays dirty until a vzeroupper.
// (A compiler inserts vzeroupper after code it compiles for AVX; it knows nothing of this asm.)
inline void dirty_upper_state() {
  __asm__ volatile("vpcmpeqd %%ymm15, %%ymm15, %%ymm15" ::: "xmm15");
}
#else
bool cpu_has_avx() {
  return false;
}
inline void dirty_upper_state() {}
#endif

// The database (built once into the system's temp folder) and the gets' keys.
struct Fixture {
  drydb_db* db = nullptr;
  const drydb_table* table = nullptr;
  drydb_value* value = nullptr;
  std::vector<int64_t> keys;

  Fixture() {
    const std::string path =
        (std::filesystem::temp_directory_path() / "drydb_capi_entry_bench.drydb").string();
    drydb_builder* b = nullptr;
    drydb_table_builder* t = nullptr;
    if (drydb_builder_create(4096, &b) != DRYDB_OK ||
        drydb_builder_create_table(b, "items", 5, DRYDB_KEY_INT64, &t) != DRYDB_OK)
      fail();
    char v[14];
    for (int64_t i = 0; i < kRows; ++i) {
      std::snprintf(v, sizeof v, "value%08lld", static_cast<long long>(i));
      const drydb_key k = drydb_key_int64(i);
      if (drydb_table_builder_append(t, &k, v, 13) != DRYDB_OK) fail();
    }
    if (drydb_builder_build_to_file(b, path.c_str()) != DRYDB_OK) fail();
    drydb_builder_release(b);
    if (drydb_db_open(path.c_str(), nullptr, &db) != DRYDB_OK ||
        drydb_db_table(db, "items", 5, &table) != DRYDB_OK ||
        drydb_value_create(db, &value) != DRYDB_OK)
      fail();
    std::filesystem::remove(path);  // the mapping stays
    uint64_t x = 42;
    for (int i = 0; i < kGets; ++i) {
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      keys.push_back(static_cast<int64_t>((x >> 33) % kRows));
    }
  }

  [[noreturn]] static void fail() {
    std::fprintf(stderr, "drydb_capi_entry_bench: %s\n", drydb_last_error_message());
    std::exit(1);
  }
};

Fixture& fixture() {
  static Fixture f;
  return f;
}

template <bool kDirty>
void CApiGet(benchmark::State& state) {
  if (kDirty && !cpu_has_avx()) {
    state.SkipWithError("no AVX on this CPU");
    return;
  }
  Fixture& f = fixture();
  uint64_t sum = 0;
  for (auto _ : state) {
    for (int64_t k : f.keys) {
      if constexpr (kDirty) dirty_upper_state();
      const drydb_key key = drydb_key_int64(k);
      const void* data;
      size_t size;
      if (drydb_table_get(f.table, &key, f.value, &data, &size) == DRYDB_OK)
        sum += static_cast<const unsigned char*>(data)[size - 1];
    }
  }
  benchmark::DoNotOptimize(sum);
  state.SetItemsProcessed(state.iterations() * kGets);
}

// drydb_table_get_copy: a call that takes no holder, so it holds the database for its length
// (one store and a full fence on its thread's own line; docs/c-api.md, "Closing while other
// threads query").
void CApiGetCopy(benchmark::State& state) {
  Fixture& f = fixture();
  uint64_t sum = 0;
  unsigned char buf[16];
  for (auto _ : state) {
    for (int64_t k : f.keys) {
      const drydb_key key = drydb_key_int64(k);
      size_t size;
      if (drydb_table_get_copy(f.table, &key, buf, sizeof buf, &size) == DRYDB_OK)
        sum += buf[size - 1];
    }
  }
  benchmark::DoNotOptimize(sum);
  state.SetItemsProcessed(state.iterations() * kGets);
}

template <bool kDirty>
void TrivialCall(benchmark::State& state) {
  if (kDirty && !cpu_has_avx()) {
    state.SkipWithError("no AVX on this CPU");
    return;
  }
  uintptr_t sum = 0;
  for (auto _ : state) {
    for (int i = 0; i < kGets; ++i) {
      if constexpr (kDirty) dirty_upper_state();
      sum += reinterpret_cast<uintptr_t>(drydb_status_name(i & 7));
    }
  }
  benchmark::DoNotOptimize(sum);
  state.SetItemsProcessed(state.iterations() * kGets);
}

BENCHMARK_TEMPLATE(CApiGet, false)->Name("CApiGet/clean");
BENCHMARK_TEMPLATE(CApiGet, true)->Name("CApiGet/dirty_upper");
BENCHMARK(CApiGetCopy)->Name("CApiGetCopy/clean");
BENCHMARK_TEMPLATE(TrivialCall, false)->Name("TrivialCall/clean");
BENCHMARK_TEMPLATE(TrivialCall, true)->Name("TrivialCall/dirty_upper");

}  // namespace

BENCHMARK_MAIN();
