// The README's usage example, compiled and run. The block between the markers
// below must equal the README's (the first test checks it), so the README
// never shows code that does not build.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "drydb/drydb.h"

namespace {

std::vector<std::string> used;

void use(std::string_view s) {
  used.emplace_back(s);
}
void use(std::span<const std::byte> b) {
  used.emplace_back(reinterpret_cast<const char*>(b.data()), b.size());
}
void use(std::span<const std::byte> k, std::span<const std::byte> v) {
  use(k);
  use(v);
}
int fail(const drydb::Error& e) {
  ADD_FAILURE() << e.message;
  return 1;
}

int readme_usage() {
  // clang-format off
  // BEGIN README USAGE
  // Build: rows in any order; the builder sorts, spills to disk past its memory budget, and
  // writes the file atomically (temp file, fsync, rename).
  drydb::DatabaseBuilder builder({.page_size = 4096});
  auto& items = builder.create_table("items", drydb::KeyEncoding::bytes());    // memcmp order
  items.append("key1", "value1").append("key3", "value3").append("key2", "value2");
  auto& quests = builder.create_table("quests", drydb::KeyEncoding::int64());  // numeric order
  quests.append(int64_t{1}, "first quest");
  if (auto st = builder.build_to_file("items.drydb"); !st) return fail(st.error());

  // Read: open() maps the file; every query is thread-safe.
  auto db = drydb::ReadOnlyDatabase::open("items.drydb").value();
  auto table = db.table("items").value();
  auto v = table.get("key1");                 // result<Value>: an error, or found / not found
  if (v && v->has_value()) use(v->str());     // zero-copy view, valid while `v` lives
  auto r = table.get_range("key1", "key3", {.start_exclusive = false, .end_exclusive = true,
                                            .order = drydb::SortOrder::descending});
  for (auto [key, value] : *r) use(value);    // key2, key1; r->size() is known up front
  auto tail = table.get_range("key1", drydb::unbounded);  // open ends
  auto n = table.count_range("key1", "key3");  // two descents, whatever the range's size
  table.count();                              // O(1)
  auto keys = table.prefix("key", drydb::SortOrder::ascending);
  auto it = table.cursor();                   // seek (lower bound), seek_exact, first, last
  for (bool ok = it.seek("key0"); ok; ok = it.next()) use(it.key(), it.value());
  // END README USAGE
  // clang-format on
  return 0;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Lines with their indentation removed, so the test's extra indent does not matter.
std::string dedent(const std::string& text) {
  std::istringstream in(text);
  std::string line, out;
  while (std::getline(in, line)) {
    size_t first = line.find_first_not_of(' ');
    out += (first == std::string::npos ? "" : line.substr(first)) + "\n";
  }
  return out;
}

TEST(Readme, UsageBlockMatchesThisTest) {
  const char* root = std::getenv("DRYDB_SOURCE_DIR");
  ASSERT_NE(root, nullptr) << "DRYDB_SOURCE_DIR must point at the source tree";
  const std::string readme = read_file(std::string(root) + "/README.md");
  const std::string self = read_file(std::string(root) + "/tests/api/readme_test.cpp");
  size_t marker = readme.find("<!-- readme-usage");
  ASSERT_NE(marker, std::string::npos);
  size_t open = readme.find("```cpp\n", marker) + 7;
  size_t close = readme.find("```", open);
  size_t begin = self.find("// BEGIN README USAGE\n") + 22;
  size_t end = self.find("  // END README USAGE");
  EXPECT_EQ(dedent(readme.substr(open, close - open)), dedent(self.substr(begin, end - begin)));
}

TEST(Readme, UsageRuns) {
  auto dir = std::filesystem::temp_directory_path() / "drydb_readme_test";
  std::filesystem::create_directories(dir);
  auto cwd = std::filesystem::current_path();
  std::filesystem::current_path(dir);
  used.clear();
  EXPECT_EQ(readme_usage(), 0);
  std::filesystem::current_path(cwd);
  std::filesystem::remove_all(dir);
  // get key1; the descending range [key1, key3) gives value2 then value1; the
  // cursor from "key0" walks key1..key3 with their values.
  EXPECT_EQ(used, (std::vector<std::string>{"value1", "value2", "value1", "key1", "value1", "key2",
                                            "value2", "key3", "value3"}));
}

}  // namespace
