// Replays the committed inputs of the fuzz targets (tests/fuzz/): every seed of
// tests/fuzz/corpus/<target>/ and every input of tests/fuzz/regressions/<target>/ (inputs that
// once made a target fail) goes through the same code libFuzzer runs, here under the plain,
// ASan+UBSan and TSan builds with g++ or clang, so a fixed finding stays fixed without clang's
// libFuzzer. A finding of the harness (a wrong answer, an unexpected error) is a test failure;
// a crash or sanitizer report fails the test binary.
//
// A finding goes into regressions/<target>/ with its fix. Findings so far:
//   page/empty-catalog-read-memcpy-null: a header whose catalog length is 0 made open read an
//   empty catalog into a null pointer (memcpy, UB); now corruption before any read.
//   open/leaf-record-offset-past-last: a leaf's record offsets rose past its last offset, and
//   the page check read a key length past the page before it failed the record; now an offset
//   past the last one is corruption before the record is read.
//   build/prefix_longer_than_a_fixed_width_index: a prefix query longer than the width of a
//   non-unique index of fixed-width keys matched the rank bytes its tree keys go on with (seven
//   entries of key 00 00 00 for the prefix of five zero bytes); now such a prefix matches nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz/build_target.h"
#include "fuzz/open_target.h"
#include "fuzz/page_target.h"

namespace {

namespace fs = std::filesystem;

// ctest sets DRYDB_SOURCE_DIR; run by hand, the binary finds the tree from this file's path.
fs::path source_dir() {
  const char* dir = std::getenv("DRYDB_SOURCE_DIR");
  return dir ? fs::path(dir) : fs::path(__FILE__).parent_path().parent_path().parent_path();
}

// The files of tests/fuzz/<kind>/<target>/, sorted.
std::vector<fs::path> inputs(const char* kind, const char* target) {
  std::vector<fs::path> out;
  std::error_code ec;
  const fs::path dir = source_dir() / "tests" / "fuzz" / kind / target;
  for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator();
       it.increment(ec))
    if (it->is_regular_file()) out.push_back(it->path());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<uint8_t> read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)),
                              std::istreambuf_iterator<char>());
}

using Target = void (*)(const uint8_t*, size_t);

// Runs every input of the target's folders of these kinds; returns how many ran.
size_t replay(const char* target, Target run,
              std::initializer_list<const char*> kinds = {"corpus", "regressions"}) {
  drydb_fuzz::fail_handler = [](const std::string& what) { ADD_FAILURE() << what; };
  size_t ran = 0;
  for (const char* kind : kinds)
    for (const fs::path& p : inputs(kind, target)) {
      SCOPED_TRACE(p.string());
      const std::vector<uint8_t> data = read_all(p);
      run(data.data(), data.size());
      ++ran;
    }
  return ran;
}

TEST(FuzzRegression, OpenTarget) {
  EXPECT_GE(replay("open", drydb_fuzz::run_open), 5u);
}

TEST(FuzzRegression, PageTarget) {
  EXPECT_GE(replay("page", drydb_fuzz::run_page), 10u);
}

TEST(FuzzRegression, BuildTarget) {
  EXPECT_GE(replay("build", drydb_fuzz::run_build), 10u);
}

}  // namespace
