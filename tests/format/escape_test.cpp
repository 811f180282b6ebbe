// drydb/escape.h: hex digits and the escaped forms of bytes that the library's messages, a
// dataset's manifest and the drydb tool share, against the C library's spellings.
#include "drydb/escape.h"

#include <gtest/gtest.h>

#include <cctype>
#include <cstdio>
#include <string>

namespace {

TEST(Escape, HexValueOfEveryByte) {
  for (int c = 0; c < 256; ++c) {
    const char ch = static_cast<char>(c);
    int expected = -1;
    if (std::isxdigit(c)) expected = std::stoi(std::string(1, ch), nullptr, 16);
    EXPECT_EQ(drydb::hex_value(ch), expected) << c;
  }
}

TEST(Escape, HexOfEveryByteIsPrintfs) {
  std::string all, expected;
  for (int c = 0; c < 256; ++c) {
    all += static_cast<char>(c);
    char buf[3];
    std::snprintf(buf, sizeof buf, "%02x", c);
    expected += buf;
  }
  EXPECT_EQ(drydb::to_hex(all), expected);
  EXPECT_EQ(drydb::to_hex(""), "");
  for (size_t i = 0; i < expected.size(); i += 2)
    EXPECT_EQ(drydb::hex_value(expected[i]) * 16 + drydb::hex_value(expected[i + 1]),
              static_cast<int>(i / 2));
}

TEST(Escape, QuoteForMessageEscapesAndCuts) {
  EXPECT_EQ(drydb::quote_for_message(""), "\"\"");
  EXPECT_EQ(drydb::quote_for_message("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(drydb::quote_for_message(std::string("\x00\x1f\x7f\xff", 4)),
            "\"\\x00\\x1f\\x7f\\xff\"");
  const std::string sixty_four(64, 'x');
  EXPECT_EQ(drydb::quote_for_message(sixty_four), "\"" + sixty_four + "\"");
  EXPECT_EQ(drydb::quote_for_message(sixty_four + "y"), "\"" + sixty_four + "...\"");
  // Printable ASCII is kept as it is.
  std::string printable;
  for (char c = 0x20; c < 0x7f; ++c)
    if (c != '"' && c != '\\') printable += c;
  EXPECT_EQ(drydb::quote_for_message(printable.substr(0, 60)),
            "\"" + printable.substr(0, 60) + "\"");
  EXPECT_EQ(drydb::quote_for_message(printable.substr(60)), "\"" + printable.substr(60) + "\"");
}

TEST(Escape, JsonStringEscapesEveryControlCharacter) {
  for (int c = 0; c < 0x20; ++c) {
    std::string out;
    drydb::append_json_string(out, std::string(1, static_cast<char>(c)));
    std::string expected;
    switch (c) {
      case '\n':
        expected = "\\n";
        break;
      case '\r':
        expected = "\\r";
        break;
      case '\t':
        expected = "\\t";
        break;
      case '\b':
        expected = "\\b";
        break;
      case '\f':
        expected = "\\f";
        break;
      default: {
        char buf[7];
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        expected = buf;
      }
    }
    EXPECT_EQ(out, "\"" + expected + "\"") << c;
  }
}

TEST(Escape, JsonStringKeepsTextAndEscapesQuotes) {
  std::string out = "x";  // appends
  drydb::append_json_string(out, std::string("a\"\\\n\x01\x7f\xc3\xa9", 8));
  EXPECT_EQ(out, "x\"a\\\"\\\\\\n\\u0001\x7f\xc3\xa9\"");
  out.clear();
  drydb::append_json_string(out, "");
  EXPECT_EQ(out, "\"\"");
}

}  // namespace
