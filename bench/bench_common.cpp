#include "bench_common.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <numeric>
#include <random>
#include <system_error>
#include <utility>

namespace drydb_bench {

std::string value_of(int64_t key) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "val%010lld", static_cast<long long>(key));
  return buf;
}

std::string string_key_of(int64_t i) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "key%013lld", static_cast<long long>(i));
  return buf;
}

std::string string_value_of(int64_t i) {
  return std::string(kStringValueSize - kValueSize, 'v') + value_of(i);
}

void store_be64(char out[8], int64_t key) {
  const auto u = static_cast<uint64_t>(key);
  for (int i = 0; i < 8; ++i)
    out[i] = static_cast<char>(u >> (56 - 8 * i));
}

namespace {

struct Scratch {
  std::mutex mu;
  std::filesystem::path dir;
  std::vector<std::function<void()>> closers;
};

Scratch& scratch() {
  static Scratch s;
  return s;
}

}  // namespace

const std::filesystem::path& scratch_dir() {
  static const std::filesystem::path dir = [] {
    std::string templ = (std::filesystem::temp_directory_path() / "drydb_bench.XXXXXX").string();
    require(::mkdtemp(templ.data()) != nullptr, "cannot make a scratch folder", templ);
    std::lock_guard lock(scratch().mu);
    scratch().dir = templ;
    return std::filesystem::path(templ);
  }();
  return dir;
}

void at_cleanup(std::function<void()> close) {
  std::lock_guard lock(scratch().mu);
  scratch().closers.push_back(std::move(close));
}

void cleanup() {
  auto& s = scratch();
  std::vector<std::function<void()>> closers;
  {
    std::lock_guard lock(s.mu);
    closers.swap(s.closers);
  }
  for (auto it = closers.rbegin(); it != closers.rend(); ++it)
    (*it)();
  if (!s.dir.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(s.dir, ec);
  }
}

uint64_t size_on_disk(const std::filesystem::path& path) {
  if (!std::filesystem::is_directory(path)) return std::filesystem::file_size(path);
  uint64_t total = 0;
  for (const auto& e : std::filesystem::directory_iterator(path))
    if (e.is_regular_file()) total += e.file_size();
  return total;
}

void die(std::string_view what, std::string_view detail) {
  std::fprintf(stderr, "drydb_bench: %.*s%s%.*s\n", static_cast<int>(what.size()), what.data(),
               detail.empty() ? "" : ": ", static_cast<int>(detail.size()), detail.data());
  std::fflush(stderr);
  std::abort();
}

void report_queries(benchmark::State& state, double queries_per_op) {
  // Each thread reports its share; kAvgThreads undoes the sum over threads, since the
  // iteration count the rate is multiplied by is already the total over all threads.
  state.counters["sec_per_query"] = benchmark::Counter(
      queries_per_op, benchmark::Counter::kIsIterationInvariantRate |
                          benchmark::Counter::kAvgThreads | benchmark::Counter::kInvert);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * queries_per_op));
}

const std::vector<std::string>& string_query_keys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> k;
    Lcg lcg;
    for (int i = 0; i < kGetsPerOp; ++i)
      k.push_back(string_key_of(lcg.next(kStringRows)));
    return k;
  }();
  return keys;
}

uint64_t string_query_checksum() {
  uint64_t sum = 0;
  Lcg lcg;
  for (int i = 0; i < kGetsPerOp; ++i)
    sum += expected_fold(lcg.next(kStringRows), kStringValueSize);
  return sum;
}

const std::vector<int64_t>& build_order(bool sorted) {
  auto ascending = []() -> const std::vector<int64_t>& {
    static const std::vector<int64_t> k = [] {
      std::vector<int64_t> v(kBuildRows);
      std::iota(v.begin(), v.end(), int64_t{0});
      return v;
    }();
    return k;
  };
  if (sorted) return ascending();
  static const std::vector<int64_t> shuffled = [&] {
    std::vector<int64_t> k = ascending();
    std::mt19937_64 rng(20240601);
    std::shuffle(k.begin(), k.end(), rng);
    return k;
  }();
  return shuffled;
}

const std::vector<std::string>& build_values() {
  static const std::vector<std::string> values = [] {
    std::vector<std::string> v;
    v.reserve(kBuildRows);
    for (int64_t k = 0; k < kBuildRows; ++k)
      v.push_back(value_of(k));
    return v;
  }();
  return values;
}

}  // namespace drydb_bench
