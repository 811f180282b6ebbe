// docs/format.md carries a worked hexdump of a tiny database; this test
// rebuilds that database and compares every byte, so the document and the
// code cannot drift apart.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "drydb/drydb.h"

namespace {

// The example of docs/format.md, "Worked example".
std::vector<std::byte> build_example() {
  drydb::DatabaseBuilder builder({.page_size = 512});
  auto& items = builder.create_table("items", drydb::KeyEncoding::bytes());
  items.append("key2", "value2");
  items.append("key1", "value1");
  items.append("key3", "");
  return builder.build_to_memory().value();
}

// `hexdump -C` layout: 16 bytes a line, "*" for lines equal to the one above,
// and a last line with the total length.
std::string hexdump(const std::vector<std::byte>& bytes) {
  std::string out;
  std::string previous;
  bool starred = false;
  char buf[128];
  for (size_t off = 0; off < bytes.size(); off += 16) {
    std::string hex, ascii;
    for (size_t i = 0; i < 16; ++i) {
      if (i == 8) hex += ' ';
      if (off + i < bytes.size()) {
        auto c = static_cast<unsigned char>(bytes[off + i]);
        std::snprintf(buf, sizeof buf, "%02x ", c);
        hex += buf;
        ascii += (c >= 0x20 && c < 0x7f) ? static_cast<char>(c) : '.';
      } else {
        hex += "   ";
      }
    }
    std::string line = hex + " |" + ascii + "|";
    if (line == previous && off + 16 < bytes.size()) {
      if (!starred) out += "*\n";
      starred = true;
      continue;
    }
    starred = false;
    previous = line;
    std::snprintf(buf, sizeof buf, "%08zx  ", off);
    out += buf + line + "\n";
  }
  std::snprintf(buf, sizeof buf, "%08zx\n", bytes.size());
  return out + buf;
}

// The fenced block that follows the line "<!-- worked-example-hexdump -->".
std::string documented_hexdump() {
  const char* root = std::getenv("DRYDB_SOURCE_DIR");
  std::ifstream in(std::string(root ? root : ".") + "/docs/format.md");
  std::stringstream doc;
  doc << in.rdbuf();
  const std::string text = doc.str();
  const std::string marker = "<!-- worked-example-hexdump -->";
  size_t at = text.find(marker);
  if (at == std::string::npos) return {};
  size_t open = text.find("```\n", at);
  size_t close = text.find("```", open + 4);
  if (open == std::string::npos || close == std::string::npos) return {};
  return text.substr(open + 4, close - open - 4);
}

TEST(FormatDoc, WorkedExampleMatchesTheBuilder) {
  const std::string expected = documented_hexdump();
  ASSERT_FALSE(expected.empty()) << "docs/format.md has no worked-example hexdump block "
                                    "(is DRYDB_SOURCE_DIR set?)";
  const std::string actual = hexdump(build_example());
  EXPECT_EQ(expected, actual) << "docs/format.md is out of date; the builder writes:\n" << actual;
}

TEST(FormatDoc, WorkedExampleReadsBack) {
  auto bytes = build_example();
  auto db = drydb::ReadOnlyDatabase::open_memory(bytes).value();
  ASSERT_TRUE(db.verify());
  auto items = db.table("items").value();
  EXPECT_EQ(items.get("key1")->str(), "value1");
  EXPECT_EQ(items.get("key2")->str(), "value2");
  auto key3 = items.get("key3");
  EXPECT_TRUE(key3->has_value());
  EXPECT_EQ(key3->size(), 0u);
  EXPECT_EQ(items.count(), 3u);
}

}  // namespace
