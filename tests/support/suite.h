// What the GoogleTest suites share on top of the GoogleTest-free support (keys.h, random.h,
// storage.h, model.h, checker.h, which the fuzz targets use too): a checked build, custom
// fixed-width encodings, a per-test temp folder, whole-file reads and writes, and expectations on
// what the checker found.
#pragma once

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "checker.h"
#include "drydb/drydb.h"
#include "keys.h"
#include "model.h"
#include "random.h"
#include "storage.h"

namespace drydb_test {

// ---- errors, builds and encodings ---------------------------------------------------------------

// The bytes of a build; when the build failed, a test failure and no bytes.
inline std::vector<std::byte> built_bytes(drydb::result<std::vector<std::byte>> bytes) {
  if (!bytes) {
    ADD_FAILURE() << "build failed: " << describe(bytes.error());
    return {};
  }
  return std::move(*bytes);
}

// A custom encoding of the given fixed width ("test.fixedN"), registered once per process.
inline drydb::KeyEncoding fixed_width_encoding(uint32_t width) {
  static std::mutex mu;
  std::lock_guard lock(mu);
  const std::string id = "test.fixed" + std::to_string(width);
  if (auto found = drydb::KeyEncoding::find(id)) return *found;
  drydb::CustomKeyEncoding c;
  c.id = id;
  c.fixed_width = width;
  auto reg = drydb::register_key_encoding(std::move(c));
  if (!reg) {
    ADD_FAILURE() << reg.error().to_string();
    return drydb::KeyEncoding::bytes();
  }
  return *reg;
}

// ---- files -------------------------------------------------------------------------------------

// A fresh, empty folder for one test (named after it, the process and a serial number, so no two
// folders alive at once share a name), removed when the object dies.
class TempDir {
 public:
  TempDir() {
    static std::atomic<uint64_t> serial{0};
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = std::string("drydb-") + (info ? info->test_suite_name() : "x") + "-" +
                       (info ? info->name() : "x") + "-" + std::to_string(::getpid()) + "-" +
                       std::to_string(serial.fetch_add(1));
    for (auto& c : name)
      if (c == '/') c = '_';
    path_ = std::filesystem::temp_directory_path() / name;
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
    std::filesystem::create_directories(path_, ec);
    EXPECT_FALSE(ec) << "cannot create " << path_ << ": " << ec.message();
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(std::string_view name) const { return path_ / name; }

  // Names of the entries in the folder, sorted.
  std::vector<std::string> entries() const {
    std::vector<std::string> out;
    std::error_code ec;
    for (auto it = std::filesystem::directory_iterator(path_, ec);
         !ec && it != std::filesystem::directory_iterator(); it.increment(ec))
      out.push_back(it->path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
  }

 private:
  std::filesystem::path path_;
};

inline bool write_file(const std::filesystem::path& path, Bytes bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  out.close();
  return static_cast<bool>(out);
}

inline std::vector<std::byte> read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> out(chars.size());
  if (!chars.empty()) std::memcpy(out.data(), chars.data(), chars.size());
  return out;
}

// Runs `check` on `file` opened in memory, then written to a temp folder and opened by mmap and by
// pread with a page cache of `cache_bytes`, each under a trace naming the storage.
template <class Check>
void check_in_memory_and_files(Bytes file, size_t cache_bytes, Check check) {
  {
    SCOPED_TRACE("memory");
    auto db = drydb::ReadOnlyDatabase::open_memory(file);
    ASSERT_TRUE(db) << db.error().to_string();
    check(*db);
  }
  TempDir dir;
  const auto path = dir / "t.drydb";
  ASSERT_TRUE(write_file(path, file)) << path;
  for (const auto storage : {drydb::StorageKind::mmap, drydb::StorageKind::pread}) {
    SCOPED_TRACE(storage == drydb::StorageKind::mmap
                     ? "mmap"
                     : "pread, a cache of " + std::to_string(cache_bytes) + " bytes");
    auto db =
        drydb::ReadOnlyDatabase::open(path, {.storage = storage, .page_cache_bytes = cache_bytes});
    ASSERT_TRUE(db) << db.error().to_string();
    check(*db);
  }
}

// build_database of the model (rows appended in key order, or shuffled by `shuffle_seed`);
// records a test failure and returns no bytes when the build fails.
inline std::vector<std::byte> build_memory(const DbModel& m, drydb::BuildOptions options = {},
                                           std::optional<uint64_t> shuffle_seed = std::nullopt) {
  return built_bytes(build_database(m, std::move(options), shuffle_seed));
}

// Removes `dir` and what it holds when the process exits normally, for folders whose files must
// outlive every static (a TempDir that is never destroyed would be left behind in the temp folder
// by every run).
inline void remove_at_exit(std::filesystem::path dir) {
  static std::mutex mu;
  static std::vector<std::filesystem::path> dirs;
  // Registered after `dirs` was made, so it runs before `dirs` is destroyed.
  static const bool registered = std::atexit([] {
                                   std::lock_guard lock(mu);
                                   for (const auto& d : dirs) {
                                     std::error_code ec;
                                     std::filesystem::remove_all(d, ec);
                                   }
                                 }) == 0;
  if (!registered) ADD_FAILURE() << "cannot register the removal of " << dir << " at exit";
  std::lock_guard lock(mu);
  dirs.push_back(std::move(dir));
}

// A model with its file, built in memory and written to a temp folder, for suites whose tests
// share one file.
struct ModelFile {
  DbModel model;
  std::vector<std::byte> file;
  std::unique_ptr<TempDir> dir;
  std::filesystem::path path;
};

// The ModelFile of `m`, finished here, written as `name`; it lives for the process, so tests may
// hold views of it from any thread.
inline const ModelFile& model_file_for_process(DbModel m, std::string_view name = "db.drydb") {
  auto* x = new ModelFile;
  x->model = std::move(m);
  x->model.finish();
  x->file = build_memory(x->model);
  x->dir = std::make_unique<TempDir>();
  x->path = *x->dir / name;
  if (!write_file(x->path, x->file)) ADD_FAILURE() << "cannot write " << x->path;
  remove_at_exit(x->dir->path());
  return *x;
}

// ---- walks
// ----------------------------------------------------------------------------------------

// How many rows a walk of `rows` (a cursor or a range) yields; the walk itself is what some tests
// check, so the rows are read one by one (std::ranges::distance of a sized range would not).
template <class Rows>
uint64_t count_rows(Rows&& rows) {
  uint64_t n = 0;
  for (auto&& row : rows) {
    (void)row;
    ++n;
  }
  return n;
}

// ---- expectations on the checker ----------------------------------------------------------------

// Makes `out` report each wrong answer and error as a test failure as it is found (the first
// `most`, prefixed with `context`), for checks that expect neither.
inline void report_failures(Outcome& out, std::string context, int most = 12) {
  auto report = [context = std::move(context), most, seen = 0](const std::string& what) mutable {
    if (++seen <= most) ADD_FAILURE() << context << ": " << what;
  };
  out.on_wrong = report;
  out.on_error = report;
}

// No wrong answer (all of them listed), no error, and at least `min_correct` right answers.
inline void expect_all_correct(const Outcome& out, uint64_t min_correct = 1) {
  EXPECT_TRUE(out.wrong.empty()) << out.wrong.size() << " wrong answers:\n  " << [&] {
    std::string s;
    for (const auto& w : out.wrong)
      s += w + "\n  ";
    return s;
  }();
  EXPECT_EQ(out.errors, 0u) << "first error: " << out.first_error;
  EXPECT_GE(out.correct, min_correct);
}

// check_database of `m` through `db` (the queries `subset` picks), then expect_all_correct.
inline void expect_database_correct(const drydb::ReadOnlyDatabase& db, const DbModel& m,
                                    uint64_t min_correct, uint64_t subset = kEveryQuery) {
  Outcome out;
  check_database(db, m, out, subset);
  expect_all_correct(out, min_correct);
}

}  // namespace drydb_test
