// Replays the committed inputs of the fuzz targets (tests/fuzz/): every seed of
// tests/fuzz/corpus/<target>/ and every input of tests/fuzz/regressions/<target>/ (inputs that
// once made a target fail) goes through the same code libFuzzer runs, here under the plain,
// ASan+UBSan and TSan builds with g++ or clang, so a fixed finding stays fixed without clang's
// libFuzzer. A finding of the harness (a wrong answer, an unexpected error) is a test failure;
// a crash or sanitizer report fails the test binary.
//
// Each input must also end as this test expects of it (kExpected below: opened and verified,
// built, or refused with a given code), so an input that no longer reaches what it was made for
// after a change of the format or of a target's base file fails here instead of passing as
// some other input.
//
// A finding goes into regressions/<target>/ with its fix. Findings so far:
//   page/empty-catalog-read-memcpy-null: a header whose catalog length is 0 made open read an
//   empty catalog into a null pointer (memcpy, UB); now corruption before any read. (Its first
//   byte picks the catalog, the page target's last choice: 0x44 with the base's 69 pages.)
//   open/leaf-record-offset-past-last: a leaf's record offsets rose past its last offset, and
//   the page check read a key length past the page before it failed the record; now an offset
//   past the last one is corruption before the record is read.
//   open/catalog-directory-size-wraps: a filtered file whose header gives 2^62 + 12 pages made
//   the page directory's size in bytes wrap, pass the catalog's length check, and resize the
//   directory to 2^62 entries (std::length_error); now compared by division: corruption.
//   open/index-group-escape-not-ff: with checksums fixed, a non-unique index of byte keys held
//   a tree key whose escaped zero read 00 FE where the format writes 00 FF; it read back as
//   index key 00 00 00 and sorted before that key's other entries, so a get of 00 00 00 missed
//   it and answered the second; verify() passed the file. Now verify() accepts only the written
//   form of a group (detail::is_index_group): corruption.
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
#include <map>
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

// What each input must end as (fuzz_support.h's last_outcome), by "<target>/<kind>/<name>".
// Every regression is listed; a corpus seed not listed must give its target's usual outcome
// (kUsual).
const std::map<std::string, std::string> kExpected = {
    // Not-quite files.
    {"open/corpus/empty_file", "refused: truncated file"},
    {"open/corpus/header_only", "refused: unsupported format version or feature"},
    {"open/regressions/leaf-record-offset-past-last", "unverified: corrupt file"},
    {"open/regressions/catalog-directory-size-wraps", "refused: corrupt file"},
    {"open/regressions/index-group-escape-not-ff", "unverified: corrupt file"},
    {"page/regressions/empty-catalog-read-memcpy-null", "refused: corrupt file"},
    // Builds that must fail, each with its error.
    {"build/corpus/error_duplicate_key", "refused: duplicate key"},
    {"build/corpus/error_duplicate_name", "refused: duplicate name"},
    {"build/corpus/error_index_duplicate_key", "refused: duplicate key"},
    {"build/corpus/error_index_duplicate_name", "refused: duplicate name"},
    {"build/corpus/error_index_key_too_long", "refused: key too long"},
    {"build/corpus/error_index_wrong_kind", "refused: wrong key type for the table's encoding"},
    {"build/corpus/error_index_wrong_width", "refused: wrong key type for the table's encoding"},
    {"build/corpus/error_key_too_long", "refused: key too long"},
    {"build/corpus/error_wrong_kind", "refused: wrong key type for the table's encoding"},
    {"build/regressions/miss_filter_with_page_filters", "built"},
    {"build/regressions/prefix_longer_than_a_fixed_width_index", "built"},
    // Errors of two tables: the index functions of every table run before any tree is written.
    {"build/regressions/index-errors-before-unique-repeats",
     "refused: wrong key type for the table's encoding"},
};
const std::map<std::string, std::string> kUsual = {
    {"open", "verified"}, {"page", "verified"}, {"page_index", "verified"}, {"build", "built"}};

// Runs every input of the target's folders and checks how each ended; returns how many ran.
size_t replay(const char* target, Target run) {
  drydb_fuzz::fail_handler = [](const std::string& what) { ADD_FAILURE() << what; };
  drydb_fuzz::record_outcomes = true;
  drydb_fuzz::every_check = true;  // not only those one_in() draws for the input
  size_t ran = 0;
  for (const char* kind : {"corpus", "regressions"})
    for (const fs::path& p : inputs(kind, target)) {
      const std::string name = std::string(target) + "/" + kind + "/" + p.filename().string();
      SCOPED_TRACE(name);
      const std::vector<uint8_t> data = read_all(p);
      drydb_fuzz::last_outcome = "(no outcome)";
      run(data.data(), data.size());
      ++ran;
      const auto listed = kExpected.find(name);
      if (listed == kExpected.end() && std::string(kind) == "regressions") {
        ADD_FAILURE() << "a regression input with no expected outcome in kExpected";
        continue;
      }
      EXPECT_EQ(drydb_fuzz::last_outcome,
                listed != kExpected.end() ? listed->second : kUsual.at(target));
    }
  return ran;
}

// Every input kExpected names is there.
TEST(FuzzRegression, EveryExpectedInputExists) {
  for (const auto& [name, outcome] : kExpected) {
    const fs::path n(name);  // target/kind/file, stored as tests/fuzz/kind/target/file
    const fs::path target = n.parent_path().parent_path(), kind = n.parent_path().filename();
    EXPECT_TRUE(fs::is_regular_file(source_dir() / "tests" / "fuzz" / kind / target / n.filename()))
        << name;
  }
}

// Each target's input cap, from scripts/fuzz.sh's `declare -A max_len=([open]=65536 ...)`.
std::map<std::string, size_t> max_lens() {
  std::ifstream in(source_dir() / "scripts" / "fuzz.sh");
  std::string line;
  std::map<std::string, size_t> out;
  while (std::getline(in, line)) {
    if (line.rfind("declare -A max_len=(", 0) != 0) continue;
    for (size_t at = line.find('['); at != std::string::npos; at = line.find('[', at + 1)) {
      const size_t close = line.find("]=", at);
      if (close == std::string::npos) break;
      out[line.substr(at + 1, close - at - 1)] = std::stoul(line.substr(close + 2));
    }
  }
  return out;
}

// Every committed input fits its target's input cap (libFuzzer cuts a longer one), and the open
// corpus holds, byte for byte, at least one golden file of every format version in tests/data
// (make_corpus copies those that fit), so the reader's handling of what every earlier builder
// wrote is fuzzed from the start.
TEST(FuzzRegression, CorpusHoldsGoldenFilesOfEveryVersion) {
  const auto caps = max_lens();
  ASSERT_EQ(caps.size(), 5u) << "scripts/fuzz.sh's max_len line not found";
  for (const char* target : {"open", "page", "page_index", "build", "manifest"})
    for (const char* kind : {"corpus", "regressions"})
      for (const fs::path& p : inputs(kind, target))
        EXPECT_LE(fs::file_size(p), caps.at(target)) << p;
  std::vector<std::vector<uint8_t>> open_seeds;
  for (const fs::path& p : inputs("corpus", "open"))
    open_seeds.push_back(read_all(p));
  size_t versions = 0;
  for (const auto& e : fs::directory_iterator(source_dir() / "tests" / "data")) {
    if (!e.is_directory() || e.path().filename().string().rfind("format", 0) != 0) continue;
    ++versions;
    size_t seeded = 0;
    for (const auto& f : fs::directory_iterator(e.path()))
      if (f.path().extension() == ".drydb" &&
          std::find(open_seeds.begin(), open_seeds.end(), read_all(f.path())) != open_seeds.end())
        ++seeded;
    EXPECT_GE(seeded, 1u) << "no golden file of " << e.path().filename() << " in corpus/open";
  }
  EXPECT_GE(versions, 5u);
}

// The work of one execution, counted in the page cache's reads (fuzz_support.h's cached_reads)
// with each page and page_index seed read through the target's cache of two pages: every
// query kind runs on the tables the input changed, with walks and samples bounded (kFuzzLimits),
// so an execution stays well under a millisecond and the targets make thousands a second.
// (Unbounded ranges, every index of every table and bases of 400 to 500 rows a table once took
// 16,000 to 18,000 reads for the largest seeds, and the targets 15 to 30 executions a second;
// now about 550 and 3,800.)
size_t max_cached_reads(const char* target, Target run) {
  drydb_fuzz::fail_handler = [](const std::string& what) { ADD_FAILURE() << what; };
  drydb_fuzz::every_check = true;
  size_t most = 0;
  for (const fs::path& p : inputs("corpus", target)) {
    std::vector<uint8_t> data = read_all(p);
    data.resize(std::max<size_t>(data.size(), 2));
    data[1] |= 2 | 4;  // through the page cache of two pages
    drydb_fuzz::cached_reads = 0;
    run(data.data(), data.size());
    most = std::max<size_t>(most, drydb_fuzz::cached_reads);
  }
  return most;
}

TEST(FuzzRegression, WorkPerInput) {
  EXPECT_LE(max_cached_reads("page", drydb_fuzz::run_page), 1000u);
  EXPECT_LE(max_cached_reads("page_index", drydb_fuzz::run_page_index), 5000u);
}

TEST(FuzzRegression, OpenTarget) {
  EXPECT_GE(replay("open", drydb_fuzz::run_open), 5u);
}

TEST(FuzzRegression, PageTarget) {
  EXPECT_GE(replay("page", drydb_fuzz::run_page), 10u);
}

TEST(FuzzRegression, PageIndexTarget) {
  EXPECT_GE(replay("page_index", drydb_fuzz::run_page_index), 5u);
}

TEST(FuzzRegression, BuildTarget) {
  EXPECT_GE(replay("build", drydb_fuzz::run_build), 10u);
}

}  // namespace
