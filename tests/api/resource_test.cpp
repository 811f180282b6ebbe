// Resource bounds, measured (not timed), each in a forked child so that nothing else the test
// binary did counts: peak resident memory (VmHWM of /proc/self/status, reset through
// /proc/self/clear_refs before the measured part, so the figure is the peak of that part).
//
//   Gets        1,000,000 random gets over a 1,000,000-row file read through pread with a
//               1 MiB page cache, from a cold cache just after open, raise the peak resident
//               memory by at most the cache + 8 MiB. (The increase includes filling the cache,
//               and the internal pages, which are held outside the cache's budget: about
//               90 KiB here.)
//   Build       a build of 10,000,000 rows (appended in random order, so they are sorted and
//               spilled) with a 64 MiB memory budget peaks below 3x the budget.
//
// Under sanitizers these tests are skipped: their runtimes own the allocator (ASan keeps freed
// memory in quarantine), so resident memory says nothing about drydb there.
#include <gtest/gtest.h>
#if !defined(_WIN32)
#include <sys/wait.h>
#include <unistd.h>
#endif

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>

#include "support/fault_util.h"

namespace drydb_test {
namespace {

#if defined(_WIN32)
// The measure is Linux's (fork, /proc/self/status, /proc/self/clear_refs): Windows has none.
TEST(Resource, MillionGetsStayWithinCachePlus8MiB) {
  GTEST_SKIP() << "POSIX only: measured in a forked child through /proc/self/status";
}
TEST(Resource, TenMillionRowBuildStaysUnder3xBudget) {
  GTEST_SKIP() << "POSIX only: measured in a forked child through /proc/self/status";
}
#else

using drydb::DatabaseBuilder;
using drydb::ReadOnlyDatabase;

// A field of /proc/self/status in KiB ("VmHWM", "VmRSS"), or -1.
int64_t status_kib(const char* field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  const std::string want = std::string(field) + ":";
  while (std::getline(in, line))
    if (line.rfind(want, 0) == 0) return std::stoll(line.substr(want.size()));
  return -1;
}

// Resets the peak resident size to the current one (Linux 4.0+); false if the kernel refuses.
bool reset_peak() {
  std::ofstream out("/proc/self/clear_refs");
  out << "5";
  out.close();
  return static_cast<bool>(out);
}

struct Measured {
  int64_t before_kib = 0;  // VmRSS when the measured part starts (the peak is reset to it)
  int64_t peak_kib = 0;    // VmHWM at its end
  int64_t after_kib = 0;   // VmRSS at its end
  int64_t count = 0;       // work done (gets answered, rows built)
  int64_t errors = 0;      // wrong answers or failures
  bool reset = false;      // whether the peak could be reset
  double seconds = 0;
};

// Runs `work` in a forked child between two readings of the peak; the child reports back
// through a pipe. `work` returns (count, errors).
template <class Setup, class Work>
Measured in_child(Setup setup, Work work) {
  int fds[2];
  Measured m;
  if (::pipe(fds) != 0) {
    ADD_FAILURE() << "pipe";
    return m;
  }
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    Measured r;
    auto state = setup();
    r.reset = reset_peak();
    r.before_kib = status_kib("VmRSS");
    const auto t0 = std::chrono::steady_clock::now();
    const auto [count, errors] = work(state);
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.peak_kib = status_kib("VmHWM");
    r.after_kib = status_kib("VmRSS");
    r.count = count;
    r.errors = errors;
    const ssize_t n = ::write(fds[1], &r, sizeof r);
    ::_exit(n == static_cast<ssize_t>(sizeof r) ? 0 : 1);
  }
  ::close(fds[1]);
  const ssize_t n = ::read(fds[0], &m, sizeof m);
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  EXPECT_EQ(n, static_cast<ssize_t>(sizeof m)) << "the child did not report";
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the child failed";
  return m;
}

std::string value_of(int64_t k) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "v%012lld", static_cast<long long>(k));  // 13 bytes
  return buf;
}

void print(const char* what, const Measured& m) {
  std::printf(
      "[ %s ] %lld in %.1f s: resident %.1f MiB before, peak %.1f MiB (+%.1f MiB), "
      "%.1f MiB after%s\n",
      what, static_cast<long long>(m.count), m.seconds, m.before_kib / 1024.0, m.peak_kib / 1024.0,
      (m.peak_kib - m.before_kib) / 1024.0, m.after_kib / 1024.0,
      m.reset ? "" : " (peak not reset: it includes what came before)");
}

TEST(Resource, MillionGetsStayWithinCachePlus8MiB) {
  if (DRYDB_TEST_SANITIZED) GTEST_SKIP() << "resident memory is the sanitizer runtime's";
  constexpr int64_t kRows = 1'000'000;
  constexpr size_t kCache = size_t{1} << 20;
  TempDir dir;
  const auto path = dir / "million.drydb";
  {
    // Built in a child too: the builder's memory is gone before the reader's child forks.
    const Measured built = in_child([] { return 0; },
                                    [&](int) -> std::pair<int64_t, int64_t> {
                                      DatabaseBuilder b({.page_size = 4096});
                                      auto& t = b.create_table("t", drydb::KeyEncoding::int64());
                                      for (int64_t k = 0; k < kRows; ++k)
                                        t.append(k, value_of(k));
                                      return {kRows, b.build_to_file(path) ? 0 : 1};
                                    });
    ASSERT_EQ(built.errors, 0);
  }
  auto open = [&] {
    auto db = ReadOnlyDatabase::open(
        path, {.storage = drydb::StorageKind::pread, .page_cache_bytes = kCache});
    if (!db) {
      std::fprintf(stderr, "open: %s\n", db.error().message.c_str());
      ::_exit(1);
    }
    return std::move(*db);
  };
  const Measured m = in_child(open, [&](const ReadOnlyDatabase& db) -> std::pair<int64_t, int64_t> {
    auto t = db.table("t").value();
    drydb_test::Rng rng(7);
    int64_t errors = 0, gets = 0;
    for (int64_t i = 0; i < kRows; ++i, ++gets) {
      const int64_t k = static_cast<int64_t>(rng() % kRows);
      auto v = t.get(k);
      if (!v || !*v || v->str() != value_of(k)) ++errors;
    }
    return {gets, errors};
  });
  print("1,000,000 gets, 1 MiB cache, pread", m);
  RecordProperty("gets_peak_increase_kib", std::to_string(m.peak_kib - m.before_kib));
  EXPECT_EQ(m.count, kRows);
  EXPECT_EQ(m.errors, 0);
  EXPECT_LE(m.peak_kib - m.before_kib, static_cast<int64_t>(kCache / 1024) + 8 * 1024);
}

TEST(Resource, TenMillionRowBuildStaysUnder3xBudget) {
  if (DRYDB_TEST_SANITIZED) GTEST_SKIP() << "resident memory is the sanitizer runtime's";
  constexpr int64_t kRows = 10'000'000;
  constexpr size_t kBudget = size_t{64} << 20;
  TempDir dir;
  const Measured m = in_child(
      [] { return 0; },
      [&](int) -> std::pair<int64_t, int64_t> {
        DatabaseBuilder b({.page_size = 4096, .memory_budget = kBudget, .temp_dir = dir.path()});
        auto& t = b.create_table("t", drydb::KeyEncoding::int64());
        // Every key once, in a scrambled order (an odd multiplier modulo a power of two).
        constexpr uint64_t kMask = (uint64_t{1} << 24) - 1;  // 16.7M >= kRows
        int64_t appended = 0;
        for (uint64_t i = 0; appended < kRows; ++i) {
          const uint64_t k = (i * 0x9E3779B1ull) & kMask;
          if (k >= static_cast<uint64_t>(kRows)) continue;
          t.append(static_cast<int64_t>(k), value_of(static_cast<int64_t>(k)));
          ++appended;
        }
        const auto st = b.build_to_file(dir / "ten-million.drydb");
        if (!st) std::fprintf(stderr, "build: %s\n", st.error().message.c_str());
        return {appended, st ? 0 : 1};
      });
  print("10,000,000-row build, 64 MiB budget", m);
  RecordProperty("build_peak_increase_kib", std::to_string(m.peak_kib - m.before_kib));
  EXPECT_EQ(m.errors, 0);
  EXPECT_EQ(m.count, kRows);
  EXPECT_LT(m.peak_kib - m.before_kib, static_cast<int64_t>(3 * kBudget / 1024));
  // And the file is right: every row, in order (a walk), through a small cache.
  auto db = ReadOnlyDatabase::open(dir / "ten-million.drydb", {.storage = drydb::StorageKind::pread,
                                                               .page_cache_bytes = 4 << 20});
  ASSERT_TRUE(db) << db.error().to_string();
  auto t = db->table("t").value();
  EXPECT_EQ(t.count(), static_cast<uint64_t>(kRows));
  int64_t expect = 0, bad = 0;
  for (auto [key, value] : t.cursor()) {
    if (int64_of(to_view(key)) != expect || to_view(value) != value_of(expect)) ++bad;
    ++expect;
  }
  EXPECT_EQ(expect, kRows);
  EXPECT_EQ(bad, 0);
}

#endif  // defined(_WIN32)

}  // namespace
}  // namespace drydb_test
