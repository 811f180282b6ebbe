// Unit tests of the drydb tool's own parsers and codecs: the strict JSON
// parser, the CSV/TSV reader, MessagePack (checked against msgpack-cxx), the
// text helpers, the build's records, and the session's word splitting and commands.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "commands/build_keys.h"
#include "commands/shell.h"
#include "common.h"
#include "io/input.h"
#include "io/json.h"
#include "io/keys.h"
#include "io/msgpack.h"
#include "io/records.h"
#include "io/render.h"
#include "io/text.h"

#include <msgpack.hpp>

namespace drydb::cli {
namespace {

std::string to_json_text(std::string_view text) {
  JsonDocument doc;
  EXPECT_TRUE(doc.parse(text)) << text << ": " << doc.error();
  std::string out;
  append_json(out, doc, 0);
  return out;
}

std::string json_error(std::string_view text) {
  JsonDocument doc;
  EXPECT_FALSE(doc.parse(text)) << text;
  return doc.error();
}

TEST(Json, ParsesEveryKindOfValue) {
  EXPECT_EQ(to_json_text(R"( {"a" : 1, "b":[true,false,null], "c":{"d":-0.5e+3}, "e":""} )"),
            R"({"a":1,"b":[true,false,null],"c":{"d":-0.5e+3},"e":""})");
  EXPECT_EQ(to_json_text("[]"), "[]");
  EXPECT_EQ(to_json_text("{}"), "{}");
  EXPECT_EQ(to_json_text("\"x\""), "\"x\"");
  EXPECT_EQ(to_json_text("0"), "0");
}

TEST(Json, DecodesEscapesAndSurrogatePairs) {
  JsonDocument doc;
  ASSERT_TRUE(doc.parse(R"("a\"b\\c\/d\b\f\n\r\t\u0041\u00e9\u20ac\ud83d\ude00")"));
  EXPECT_EQ(doc.root().text, "a\"b\\c/d\b\f\n\r\tA\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80");
}

TEST(Json, RefusesWhatRfc8259Refuses) {
  for (const char* bad : {"",
                          "{",
                          "[1,]",
                          "{\"a\":1,}",
                          "{'a':1}",
                          "01",
                          "1.",
                          ".5",
                          "1e",
                          "+1",
                          "NaN",
                          "Infinity",
                          "tru",
                          "nul",
                          "\"abc",
                          "\"a\tb\"",
                          "\"\\x41\"",
                          "\"\\u12\"",
                          "\"\\ud800\"",
                          "\"\\udc00\"",
                          "\"\\ud800\\u0041\"",
                          "{\"a\" 1}",
                          "{1:2}",
                          "[1 2]",
                          "1 2",
                          "{} x",
                          "\"\xff\"",
                          "\"\xc0\x80\"",
                          "\"\xed\xa0\x80\""})
    json_error(bad);
  EXPECT_NE(json_error("{\"a\":1,\"b\":2,\"a\":3}").find("duplicate member name \"a\""),
            std::string::npos);
  EXPECT_NE(json_error("[1, x]").find("column 5"), std::string::npos);
  EXPECT_NE(json_error("{\"a\":1} x").find("column 9: unexpected text"), std::string::npos);
  EXPECT_NE(json_error("\"a\" x").find("column 5: unexpected text"), std::string::npos);
  EXPECT_NE(json_error("[\"\xff\"]").find("column 3: invalid UTF-8"), std::string::npos);
  std::string deep(200, '[');
  EXPECT_NE(json_error(deep).find("nested too deeply"), std::string::npos);
}

TEST(Json, KeepsNumbersAsWritten) {
  // The text of each number is the input's, and integers of any size parse.
  EXPECT_EQ(to_json_text("[1.50,-0.0,1E+2,123456789012345678901234,18446744073709551615]"),
            "[1.50,-0.0,1E+2,123456789012345678901234,18446744073709551615]");
  JsonDocument doc;
  ASSERT_TRUE(doc.parse("[1,1.0,1e0,-7]"));
  EXPECT_TRUE(doc.node(1).integer);
  EXPECT_FALSE(doc.node(2).integer);
  EXPECT_FALSE(doc.node(3).integer);
  EXPECT_TRUE(doc.node(4).integer);
  EXPECT_NE(json_error("[1e400]").find("column 2: bad number"), std::string::npos);
  EXPECT_NE(json_error("[00]").find("column 2: bad number"), std::string::npos);
}

TEST(Json, FindsMembers) {
  JsonDocument doc;
  ASSERT_TRUE(doc.parse(R"({"x":[1,{"y":2}],"name":"n","z":null})"));
  auto m = doc.member(0, "name");
  ASSERT_TRUE(m);
  EXPECT_EQ(doc.node(*m).text, "n");
  EXPECT_TRUE(doc.member(0, "z"));
  EXPECT_FALSE(doc.member(0, "y"));  // only direct members
}

// ---- CSV ----------------------------------------------------------------------------------------

struct TempFile {
  std::string path;
  explicit TempFile(const std::string& content) {
    char name[] = "/tmp/drydb_cli_unit_XXXXXX";
    const int fd = mkstemp(name);
    EXPECT_GE(fd, 0);
    EXPECT_EQ(write(fd, content.data(), content.size()), static_cast<ssize_t>(content.size()));
    close(fd);
    path = name;
  }
  ~TempFile() { std::remove(path.c_str()); }
};

struct CsvResult {
  std::vector<std::vector<std::string>> records;
  std::vector<uint64_t> lines;
  std::vector<std::string> errors;
};

CsvResult read_csv(const std::string& content, char delimiter = ',') {
  TempFile f(content);
  InputSource src(f.path);
  CsvReader reader(src, delimiter, kDefaultMaxRecord);
  CsvResult r;
  std::vector<std::string_view> fields;
  uint64_t line;
  std::string error;
  while (reader.next(&fields, &line, &error)) {
    r.lines.push_back(line);
    if (!error.empty()) {
      r.errors.push_back(std::to_string(line) + ": " + error);
      continue;
    }
    r.records.emplace_back(fields.begin(), fields.end());
  }
  return r;
}

TEST(Csv, ReadsRfc4180) {
  auto r =
      read_csv("a,b,c\r\n1,\"x,y\",\"he said \"\"hi\"\"\"\n\"multi\nline\",,\"\"\nlast,row,end");
  ASSERT_TRUE(r.errors.empty()) << r.errors[0];
  ASSERT_EQ(r.records.size(), 4u);
  EXPECT_EQ(r.records[1], (std::vector<std::string>{"1", "x,y", "he said \"hi\""}));
  EXPECT_EQ(r.records[2], (std::vector<std::string>{"multi\nline", "", ""}));
  EXPECT_EQ(r.records[3], (std::vector<std::string>{"last", "row", "end"}));
  EXPECT_EQ(r.lines, (std::vector<uint64_t>{1, 2, 3, 5}));
}

TEST(Csv, SkipsBlankLinesAndABom) {
  auto r = read_csv("\xEF\xBB\xBFk,v\n\n1,2\n\r\n3,4\n");
  ASSERT_TRUE(r.errors.empty());
  ASSERT_EQ(r.records.size(), 3u);
  EXPECT_EQ(r.records[0][0], "k");
  EXPECT_EQ(r.lines, (std::vector<uint64_t>{1, 3, 5}));
}

TEST(Csv, ReportsMalformedRecordsAndGoesOn) {
  auto r = read_csv("k,v\na\"b,1\n\"x\"y,2\nok,3\n\"open,4\n");
  EXPECT_EQ(r.records.size(), 2u);  // the header and ok,3
  ASSERT_EQ(r.errors.size(), 3u);
  EXPECT_NE(r.errors[0].find("2: field 1: a quote inside an unquoted field"), std::string::npos);
  EXPECT_NE(r.errors[1].find("3: field 1: text after the closing quote"), std::string::npos);
  EXPECT_NE(r.errors[2].find("5: unterminated quoted field"), std::string::npos);
}

TEST(Csv, ReadsOtherDelimitersAndLongRecords) {
  auto r = read_csv("0041;LATIN CAPITAL LETTER A;Lu;;\n", ';');
  ASSERT_EQ(r.records.size(), 1u);
  EXPECT_EQ(r.records[0].size(), 5u);
  // A record longer than the reader's chunk, quoted, with doubled quotes.
  std::string big(3 << 20, 'x');
  big[1000] = '"';
  std::string quoted_big = big;
  size_t pos = 0;
  while ((pos = quoted_big.find('"', pos)) != std::string::npos)
    quoted_big.insert(pos, 1, '"'), pos += 2;
  auto r2 = read_csv("k\t\"" + quoted_big + "\"\nz\tq\n", '\t');
  ASSERT_TRUE(r2.errors.empty());
  ASSERT_EQ(r2.records.size(), 2u);
  EXPECT_EQ(r2.records[0][1], big);
  EXPECT_EQ(r2.records[1][0], "z");
}

// A CSV/TSV output field gives back the bytes it was written for, whatever they are; a form
// that is not exactly one valid member is text.
TEST(Csv, FieldFormsRoundTrip) {
  const std::string msgpack_map("\x81\xa1\x61\x01", 4);  // {"a":1}
  for (std::string bytes :
       {std::string(), std::string("plain"), std::string("\xff\xfe"), std::string("\\xff\\xfe"),
        std::string("\0\xff", 2), msgpack_map, std::string("{\"base64\":\"//4=\"}"),
        std::string("{ \"msgpack\" : null }"), std::string("{\"a\":1}")}) {
    const std::string field = delimited_bytes(bytes);
    std::string back;
    if (decoded_field(field, &back))
      EXPECT_EQ(back, bytes) << field;
    else
      EXPECT_EQ(field, bytes);
  }
  EXPECT_EQ(delimited_bytes("\xff\xfe"), "{\"base64\":\"//4=\"}");
  EXPECT_EQ(delimited_bytes(msgpack_map), "{\"msgpack\":{\"a\":1}}");
  std::string out = "untouched";
  for (std::string_view text :
       {"{\"base64\":\"//4=\",\"x\":1}", "{\"base64\":\"not base64\"}", "{\"base64\":1}",
        "{\"hex\":\"ff\"}", "{\"base64\":\"//4=\"", "[1]",
        // Only the exact text the output writes is a form: not another spelling of one.
        "{ \"base64\":\"//4=\"}", "{\"base64\": \"//4=\"}", "{\"msgpack\": {\"a\":1}}",
        "{\"msgpack\":{\"a\" :1}}", "{\"msgpack\":1}", "{\"base64\":\"cGxhaW4=\"}"})
    EXPECT_FALSE(decoded_field(text, &out)) << text;
  EXPECT_EQ(out, "untouched");
}

TEST(Lines, SplitsJsonLines) {
  TempFile f("{\"a\":1}\r\n\n  \n{\"a\":2}");
  InputSource src(f.path);
  LineReader reader(src, kDefaultMaxRecord);
  std::string_view l;
  uint64_t n;
  ASSERT_TRUE(reader.next(&l, &n));
  EXPECT_EQ(l, "{\"a\":1}");
  EXPECT_EQ(n, 1u);
  ASSERT_TRUE(reader.next(&l, &n));
  EXPECT_EQ(l, "{\"a\":2}");
  EXPECT_EQ(n, 4u);
  EXPECT_FALSE(reader.next(&l, &n));
}

// ---- MessagePack --------------------------------------------------------------------------------

std::string pack_json(std::string_view json) {
  JsonDocument doc;
  EXPECT_TRUE(doc.parse(json)) << doc.error();
  std::string out, err;
  MsgpackWriter w(&out);
  EXPECT_TRUE(json_to_msgpack(doc, 0, w, &err)) << json << ": " << err;
  return out;
}

TEST(Msgpack, RoundTripsJson) {
  for (const char* j :
       {R"({"a":1,"b":-1,"c":-33,"d":255,"e":65536,"f":-2147483649,"g":1.5,"h":"text","i":[]})",
        R"({"d":0.1,"e":5e-324,"f":1.7976931348623157e308,"g":18446744073709551616})",
        R"([null,true,false,{"nested":{"deep":[1,2,3]}},9223372036854775807,-9223372036854775808])",
        R"({"u":18446744073709551615,"big":1.0e300,"neg":-0.25})"}) {
    std::string json;
    ASSERT_TRUE(msgpack_to_json(pack_json(j), &json)) << j;
    EXPECT_EQ(pack_json(json), pack_json(j)) << json;
  }
  std::string json;
  // Floats stay floats, even with integral values or a negative zero.
  ASSERT_TRUE(msgpack_to_json(pack_json(R"({"x":2.0,"y":1e3,"z":-0.0})"), &json));
  EXPECT_EQ(json, R"({"x":2.0,"y":1000.0,"z":-0.0})");
}

// What a JSON number becomes in MessagePack (docs/cli.md, "JSON numbers"): an integer in the
// int64 or uint64 range stays one; any other number is the double nearest its text, unless that
// loses more than rounding does: an overflow to infinity, a nonzero number rounding to 0, an
// integer outside both ranges that no double is exactly. Those are refused, naming the column
// and the field, whatever the nesting.
TEST(Msgpack, RefusesNumbersItCannotHold) {
  struct Held {
    const char* text;
    const char* bytes;  // the MessagePack, in hex
  };
  for (const Held& h : std::vector<Held>{
           {"0", "00"},
           {"-0", "00"},
           {"-1", "ff"},
           {"9223372036854775807", "cf7fffffffffffffff"},
           {"-9223372036854775808", "d38000000000000000"},
           {"9223372036854775808", "cf8000000000000000"},
           {"18446744073709551615", "cfffffffffffffffff"},
           // Outside both ranges, but a double exactly: 2^64, -2^63 - 2048, 10^22, 2^70.
           {"18446744073709551616", "cb43f0000000000000"},
           {"-9223372036854777856", "cbc3e0000000000001"},
           {"10000000000000000000000", "cb4480f0cf064dd592"},
           {"1180591620717411303424", "cb4450000000000000"},
           // The double nearest the text: 0.1 is no double exactly, and that is no loss.
           {"0.1", "cb3fb999999999999a"},
           {"1.0", "cb3ff0000000000000"},
           {"1e3", "cb408f400000000000"},
           {"-0.0", "cb8000000000000000"},
           {"0e-500", "cb0000000000000000"},
           {"0.000e999", "cb0000000000000000"},
           // Subnormals, down to the smallest double, and what rounds up to it.
           {"5e-324", "cb0000000000000001"},
           {"2.4703282292062328e-324", "cb0000000000000001"},
           {"-4.9406564584124654e-324", "cb8000000000000001"},
           {"2.2250738585072014e-308", "cb0010000000000000"},
           {"1e-310", "cb000012688b70e62b"},
           // The largest double, and what rounds down to it.
           {"1.7976931348623157e308", "cb7fefffffffffffff"},
           {"1.7976931348623158e308", "cb7fefffffffffffff"},
       }) {
    SCOPED_TRACE(h.text);
    const std::string json = std::string("[") + h.text + "]";
    EXPECT_EQ(to_hex(pack_json(json)), std::string("91") + h.bytes);
  }
  struct Refused {
    const char* json;
    const char* error;
  };
  for (const Refused& r : std::vector<Refused>{
           {R"({"v":4.9e-325})",
            "column 6, field v: the number 4.9e-325 is not zero, but it rounds to 0 as a double "
            "(the smallest double is 4.9e-324)"},
           {R"({"v":-2.4703282292062327e-324})",
            "column 6, field v: the number -2.4703282292062327e-324 is not zero, but it rounds "
            "to 0 as a double (the smallest double is 4.9e-324)"},
           {R"({"v":0.0000e-999,"w":1e-400})",
            "column 22, field w: the number 1e-400 is not zero, but it rounds to 0 as a double "
            "(the smallest double is 4.9e-324)"},
           {R"({"v":18446744073709551617})",
            "column 6, field v: the integer 18446744073709551617 is outside the int64 and uint64 "
            "ranges, and no double is exactly it (the nearest is 18446744073709551616)"},
           {R"({"v":-9223372036854775809})",
            "column 6, field v: the integer -9223372036854775809 is outside the int64 and uint64 "
            "ranges, and no double is exactly it (the nearest is -9223372036854775808)"},
           {R"({"a":{"b":[1,2,123456789012345678901234]}})",
            "column 16, field a.b[2]: the integer 123456789012345678901234 is outside the int64 "
            "and uint64 ranges, and no double is exactly it (the nearest is "
            "123456789012345685803008)"},
           {R"([0,{"x y":[[1e-999]]}])",
            "column 13, field [1].x y[0][0]: the number 1e-999 is not zero, but it rounds to 0 "
            "as a double (the smallest double is 4.9e-324)"},
       }) {
    SCOPED_TRACE(r.json);
    JsonDocument doc;
    ASSERT_TRUE(doc.parse(r.json)) << doc.error();
    std::string out, err;
    MsgpackWriter w(&out);
    EXPECT_FALSE(json_to_msgpack(doc, 0, w, &err));
    EXPECT_EQ(err, r.error);
  }
  // An integer too long for a double: the message shows its start and its length.
  JsonDocument doc;
  ASSERT_TRUE(doc.parse("[1" + std::string(400, '0') + "]"));
  std::string out, err;
  MsgpackWriter w(&out);
  EXPECT_FALSE(json_to_msgpack(doc, 0, w, &err));
  EXPECT_EQ(err,
            "column 2, field [0]: the integer 100000000000000000000000... (401 characters) is "
            "outside the int64 and uint64 ranges and beyond the range of a double");
  // The record's own refusal with --omit-empty, which writes its members one by one.
  JsonRecord rec;
  ASSERT_TRUE(rec.doc.parse(R"({"n":null,"m":{"k":[1e-400]}})"));
  out.clear();
  EXPECT_FALSE(rec.to_msgpack(w, true, &err));
  EXPECT_EQ(err,
            "column 21, field m.k[0]: the number 1e-400 is not zero, but it rounds to 0 as a "
            "double (the smallest double is 4.9e-324)");
}

TEST(Msgpack, RefusesMalformedOrPartialInput) {
  std::string out;
  EXPECT_FALSE(msgpack_to_json("", &out));
  EXPECT_FALSE(msgpack_to_json("text", &out));  // not a map or array
  EXPECT_FALSE(
      msgpack_to_json("\x81\xa1"
                      "a",
                      &out));                                   // value missing
  EXPECT_FALSE(msgpack_to_json("\x90\x01", &out));              // trailing bytes
  EXPECT_FALSE(msgpack_to_json("\xdd\xff\xff\xff\xff", &out));  // 4 billion elements, no bytes
  EXPECT_FALSE(msgpack_to_json("\x91\xc1", &out));              // never-used byte
  std::string deep(300, '\x91');
  deep += '\x01';
  EXPECT_FALSE(msgpack_to_json(deep, &out));
  EXPECT_TRUE(out.empty());
}

TEST(Msgpack, ShowsBinExtAndOddKeys) {
  std::string out;
  // {1: bin "ab", "e": ext(5, "x"), "f": float32 0.5, "s": str "\xff"}
  const std::string bytes(
      "\x84\x01\xc4\x02"
      "ab"
      "\xa1"
      "e\xd4\x05x"
      "\xa1"
      "f\xca\x3f\x00\x00\x00"
      "\xa1"
      "s\xa1\xff",
      22);
  ASSERT_TRUE(msgpack_to_json(bytes, &out));
  EXPECT_EQ(
      out,
      R"({"1":{"base64":"YWI="},"e":{"ext":5,"base64":"eA=="},"f":0.5,"s":{"base64":"/w=="}})");
  std::string exact;
  EXPECT_FALSE(msgpack_to_exact_json(bytes, &exact));
  EXPECT_TRUE(msgpack_to_exact_json(pack_json(R"({"a":[1,"x"]})"), &exact));
}

// A map key that is a str but not UTF-8 shows as its {"base64":...} form quoted, as a key of
// another type does: JSON object keys are strings.
TEST(Msgpack, ANonUtf8MapKeyIsAQuotedString) {
  std::string out;
  const std::string bytes("\x81\xa1\xff\x01", 4);  // {str "\xff": 1}
  ASSERT_TRUE(msgpack_to_json(bytes, &out));
  EXPECT_EQ(out, R"({"{\"base64\":\"/w==\"}":1})");
}

TEST(Msgpack, FindsFields) {
  const std::string m = pack_json(R"({"n":-5,"s":"str","f":0.5,"b":true,"z":null,"a":[1]})");
  EXPECT_EQ(msgpack_field(m, "n").kind, Scalar::integer);
  EXPECT_EQ(msgpack_field(m, "n").i, -5);
  EXPECT_EQ(msgpack_field(m, "s").s, "str");
  EXPECT_EQ(msgpack_field(m, "f").kind, Scalar::floating);
  EXPECT_EQ(msgpack_field(m, "b").kind, Scalar::boolean);
  EXPECT_EQ(msgpack_field(m, "z").kind, Scalar::null);
  EXPECT_EQ(msgpack_field(m, "a").kind, Scalar::other);
  EXPECT_EQ(msgpack_field(m, "missing").kind, Scalar::missing);
  EXPECT_EQ(msgpack_field("\x81\xa1", "n").kind, Scalar::missing);  // truncated
}

TEST(Msgpack, EncodesAsMsgpackCxxDoes) {
  msgpack::sbuffer ref;
  msgpack::packer<msgpack::sbuffer> pk(ref);
  std::string ours;
  MsgpackWriter w(&ours);
  for (int64_t v : {int64_t{0},          int64_t{127},
                    int64_t{128},        int64_t{255},
                    int64_t{256},        int64_t{65535},
                    int64_t{65536},      int64_t{4294967295},
                    int64_t{4294967296}, int64_t{-1},
                    int64_t{-32},        int64_t{-33},
                    int64_t{-128},       int64_t{-129},
                    int64_t{-32768},     int64_t{-32769},
                    int64_t{INT32_MIN},  int64_t{INT32_MIN} - 1,
                    INT64_MIN,           INT64_MAX}) {
    pk.pack(v);
    w.integer(v);
  }
  pk.pack(UINT64_MAX);
  w.uinteger(UINT64_MAX);
  for (size_t n : {0, 31, 32, 255, 256, 65535, 65536}) {
    const std::string s(n, 's');
    pk.pack(s);
    w.str(s);
  }
  pk.pack(2.5);
  w.float64(2.5);
  for (uint32_t n : {0u, 15u, 16u, 65535u, 65536u}) {
    pk.pack_array(n);
    w.array_header(n);
    pk.pack_map(n);
    w.map_header(n);
  }
  pk.pack_nil();
  w.nil();
  pk.pack(true);
  w.boolean(true);
  EXPECT_EQ(ours, std::string(ref.data(), ref.size()));
}

TEST(Msgpack, ReadsWhatMsgpackCxxWrites) {
  msgpack::sbuffer buf;
  msgpack::packer<msgpack::sbuffer> pk(buf);
  pk.pack_map(4);
  pk.pack(std::string("id"));
  pk.pack(int64_t{-70000});
  pk.pack(std::string("tags"));
  pk.pack(std::vector<std::string>{"a", "b"});
  pk.pack(std::string("score"));
  pk.pack(0.125);
  pk.pack(std::string("ok"));
  pk.pack(false);
  std::string json;
  ASSERT_TRUE(msgpack_to_json(std::string_view(buf.data(), buf.size()), &json));
  EXPECT_EQ(json, R"({"id":-70000,"tags":["a","b"],"score":0.125,"ok":false})");
  std::string exact;
  EXPECT_TRUE(msgpack_to_exact_json(std::string_view(buf.data(), buf.size()), &exact));
}

// ---- records ------------------------------------------------------------------------------------

// The text scalar_text gives for a field, or "(none)" when it has none.
std::string text_of(const Scalar& s) {
  std::string buf;
  std::string_view text;
  return scalar_text(s, &buf, &text) ? std::string(text) : "(none)";
}

// Two fields are the same: kind, value (a float to the bit) and text.
void expect_same_field(const Scalar& got, const Scalar& want, const std::string& what) {
  ASSERT_EQ(got.kind, want.kind) << what;
  switch (got.kind) {
    case Scalar::boolean:
      EXPECT_EQ(got.b, want.b) << what;
      break;
    case Scalar::integer:
      EXPECT_EQ(got.i, want.i) << what;
      break;
    case Scalar::unsigned_integer:
      EXPECT_EQ(got.u, want.u) << what;
      break;
    case Scalar::floating:
      EXPECT_EQ(std::bit_cast<uint64_t>(got.d), std::bit_cast<uint64_t>(want.d))
          << what << ": " << got.d << " vs " << want.d;
      break;
    case Scalar::string:
      EXPECT_EQ(got.s, want.s) << what;
      break;
    default:
      break;
  }
  EXPECT_EQ(text_of(got), text_of(want)) << what;
}

// Checks stored_field(column, omit_empty) against msgpack_field over the bytes
// to_msgpack(omit_empty) writes, for each column and one the record lacks; adds
// the kinds seen to *kinds and returns how many fields were compared.
int compare_stored_fields(const Record& r, const std::vector<Column>& columns,
                          const std::string& what, std::set<Scalar::Kind>* kinds) {
  int compared = 0;
  for (bool omit_empty : {false, true}) {
    std::string bytes;
    MsgpackWriter w(&bytes);
    std::string err;
    EXPECT_TRUE(r.to_msgpack(w, omit_empty, &err)) << what << ": " << err;
    std::vector<Column> all = columns;
    all.push_back(Column{"absent"});
    for (const Column& c : all) {
      const Scalar stored = r.stored_field(c, omit_empty);
      expect_same_field(stored, msgpack_field(bytes, c.name),
                        what + " ." + c.name + (omit_empty ? " (omit empty)" : ""));
      kinds->insert(stored.kind);
      ++compared;
    }
  }
  return compared;
}

std::vector<Column> member_columns(const JsonDocument& doc) {
  std::vector<Column> columns;
  for (uint32_t c = 1, k = 0; k < doc.root().size; ++k) {
    columns.push_back(Column{std::string(doc.node(c).text)});
    c = doc.node(doc.node(c).next).next;
  }
  return columns;
}

TEST(Records, JsonStoredFieldIsWhatMsgpackFieldReadsBack) {
  std::vector<std::string> records = {
      R"({"zero":0,"negzero":-0,"one":1.0,"frac":1.50,"exp":1e3,"negexp":-2.5E-3})",
      R"({"max":9223372036854775807,"min":-9223372036854775808,"over":9223372036854775808})",
      R"({"umax":18446744073709551615,"uover":18446744073709551616})",
      R"({"under":-9223372036854777856,"tiny":5e-324,"max_double":1.7976931348623157e308})",
      R"({"zero_exp":0e-500,"negfloatzero":-0.0,"big":1237940039285380274899124224})",
      R"({"t":true,"f":false,"n":null,"e":"","s":"text","u":"caf\u00e9 \ud83d\ude00"})",
      R"({"arr":[1,[2,[3]]],"obj":{"a":{"b":null}},"ea":[],"eo":{},"after":"x"})",
      // A nested member named like a top-level one, and a top-level name only nested.
      R"({"inner":{"s":1,"only_nested":2},"s":"outer","list":[{"s":3}]})",
      R"({"":"empty name","sp ace":" ","quote\"d":"\"","nul":"a\u0000b"})",
      R"({"n1":null,"n2":null,"e1":"","v":7})",
      R"({})",
  };
  // Nesting as deep as a record may go, before the field asked for.
  std::string deep = R"({"deep":)";
  for (uint32_t k = 1; k < JsonDocument::kMaxDepth; ++k)
    deep += '[';
  deep += std::string(JsonDocument::kMaxDepth - 1, ']') + R"(,"last":"found"})";
  records.push_back(deep);

  std::set<Scalar::Kind> kinds;
  int compared = 0;
  for (const std::string& text : records) {
    JsonRecord r;
    ASSERT_TRUE(r.doc.parse(text)) << text << ": " << r.doc.error();
    compared += compare_stored_fields(r, member_columns(r.doc), text.substr(0, 60), &kinds);
  }
  EXPECT_GT(compared, 100);
  EXPECT_EQ(kinds, (std::set<Scalar::Kind>{Scalar::missing, Scalar::null, Scalar::boolean,
                                           Scalar::integer, Scalar::unsigned_integer,
                                           Scalar::floating, Scalar::string, Scalar::other}));
}

TEST(Records, JsonStoredFieldValues) {
  JsonRecord r;
  ASSERT_TRUE(r.doc.parse(
      R"({"negzero":-0,"one":1.0,"frac":1.50,"exp":1e3,"max":9223372036854775807,)"
      R"("over":9223372036854775808,"uover":18446744073709551616,"under":-9223372036854777856,)"
      R"("tiny":5e-324,"negfloatzero":-0.0,)"
      R"("n":null,"e":"","a":[1],"o":{},"t":true,"s":"x"})"));
  struct Case {
    const char* name;
    Scalar::Kind kind;
    const char* text;  // scalar_text: the value's own form, not the number as written
  };
  for (const Case& c : std::vector<Case>{{"negzero", Scalar::integer, "0"},
                                         {"one", Scalar::floating, "1"},
                                         {"frac", Scalar::floating, "1.5"},
                                         {"exp", Scalar::floating, "1000"},
                                         {"max", Scalar::integer, "9223372036854775807"},
                                         {"over", Scalar::unsigned_integer, "9223372036854775808"},
                                         {"uover", Scalar::floating, "1.8446744073709552e+19"},
                                         {"under", Scalar::floating, "-9.223372036854778e+18"},
                                         {"tiny", Scalar::floating, "5e-324"},
                                         {"negfloatzero", Scalar::floating, "-0"},
                                         {"n", Scalar::null, "(none)"},
                                         {"e", Scalar::string, ""},
                                         {"a", Scalar::other, "(none)"},
                                         {"o", Scalar::other, "(none)"},
                                         {"t", Scalar::boolean, "true"},
                                         {"s", Scalar::string, "x"},
                                         {"absent", Scalar::missing, "(none)"}}) {
    const Scalar s = r.stored_field(Column{c.name}, false);
    EXPECT_EQ(s.kind, c.kind) << c.name;
    EXPECT_EQ(text_of(s), c.text) << c.name;
  }
  EXPECT_EQ(r.stored_field(Column{"max"}, false).i, INT64_MAX);
  EXPECT_EQ(r.stored_field(Column{"over"}, false).u, uint64_t{1} << 63);
  EXPECT_EQ(r.stored_field(Column{"tiny"}, false).d, 5e-324);
  EXPECT_TRUE(std::signbit(r.stored_field(Column{"negfloatzero"}, false).d));
  // A number that rounds to the smallest double is kept as it; one that rounds to zero, which
  // the parser takes, is refused when stored (Msgpack.RefusesNumbersItCannotHold).
  {
    JsonRecord u;
    ASSERT_TRUE(u.doc.parse(R"({"c":2.5e-324,"d":-2.4703282292062328e-324})"));
    EXPECT_EQ(u.stored_field(Column{"c"}, false).d, 5e-324);
    EXPECT_EQ(u.stored_field(Column{"d"}, false).d, -5e-324);
    ASSERT_TRUE(u.doc.parse(R"({"a":1e-400})"));
    std::string bytes, err;
    MsgpackWriter w(&bytes);
    EXPECT_FALSE(u.to_msgpack(w, false, &err));
    EXPECT_EQ(err,
              "column 6, field a: the number 1e-400 is not zero, but it rounds to 0 as a double "
              "(the smallest double is 4.9e-324)");
  }
  // --omit-empty leaves out nulls and empty strings, nothing else.
  EXPECT_EQ(r.stored_field(Column{"n"}, true).kind, Scalar::missing);
  EXPECT_EQ(r.stored_field(Column{"e"}, true).kind, Scalar::missing);
  EXPECT_EQ(r.stored_field(Column{"o"}, true).kind, Scalar::other);
  EXPECT_EQ(r.stored_field(Column{"negzero"}, true).kind, Scalar::integer);
  // A number past a double's range is refused by the parser, so no record holds one;
  // msgpack_number, which json_to_msgpack and stored_field share, makes it an infinity, which
  // number_loss refuses.
  EXPECT_FALSE(JsonDocument().parse(R"({"huge":1e400})"));
  EXPECT_FALSE(JsonDocument().parse(R"({"neghuge":-1e400})"));
  for (const char* text : {"1e400", "-1e400"}) {
    JsonNode n;
    n.type = JsonType::number;
    n.text = text;
    const Scalar s = msgpack_number(n);
    EXPECT_EQ(s.kind, Scalar::floating) << text;
    EXPECT_EQ(s.d, text[0] == '-' ? -HUGE_VAL : HUGE_VAL) << text;
    EXPECT_TRUE(s.s.empty()) << text;
    EXPECT_FALSE(holds_number(n, s)) << text;
    EXPECT_EQ(number_loss(n, s),
              fmt::format("the number {} is beyond the range of a double", text));
  }
  // field(), for keys, keeps a number's text as written; stored_field has none.
  EXPECT_EQ(text_of(r.field(Column{"frac"})), "1.50");
  EXPECT_EQ(r.field(Column{"frac"}).d, 1.5);
  EXPECT_EQ(text_of(r.field(Column{"negzero"})), "-0");
}

// The header of the CSV record tests, and fields of records under it: a padded code, text with a
// space, an empty column and a number as written; all fields empty; a lone space and -0.
const std::vector<std::string> kCsvHeader = {"code", "name", "empty", "num"};
const std::vector<std::vector<std::string_view>> kCsvSampleFields = {
    {"0041", "LATIN A", "", "1.50"}, {"", "", "", ""}, {"x", " ", "", "-0"}};

// A record under kCsvHeader of each of `rows`, every field read as text.
std::vector<CsvRecord> csv_records(const std::vector<std::vector<std::string_view>>& rows) {
  std::vector<CsvRecord> out(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    out[i].header = &kCsvHeader;
    out[i].fields = out[i].text_fields = rows[i];
  }
  return out;
}

TEST(Records, CsvStoredFieldIsWhatMsgpackFieldReadsBack) {
  const std::vector<std::string>& header = kCsvHeader;
  std::vector<Column> columns;
  for (size_t i = 0; i < header.size(); ++i)
    columns.push_back(Column{header[i], i});
  std::set<Scalar::Kind> kinds;
  int compared = 0;
  auto rows = kCsvSampleFields;
  rows.push_back({"<*>", "a,b \"q\"", "", "1e400"});  // a number beyond a double's range
  for (const CsvRecord& r : csv_records(rows)) {
    const std::vector<std::string_view>& fields = r.fields;
    compared += compare_stored_fields(r, columns, std::string(fields[0]), &kinds);
    for (size_t i = 0; i < header.size(); ++i) {
      EXPECT_EQ(r.stored_field(columns[i], false).kind, Scalar::string);
      EXPECT_EQ(r.stored_field(columns[i], false).s, fields[i]);
      EXPECT_EQ(r.stored_field(columns[i], true).kind,
                fields[i].empty() ? Scalar::missing : Scalar::string);
    }
  }
  EXPECT_EQ(compared, 4 * 2 * 5);
  EXPECT_EQ(kinds, (std::set<Scalar::Kind>{Scalar::missing, Scalar::string}));
}

// A CSV record as a row of its columns (a table with a column list): stored_field is what
// msgpack_row_field reads back of to_row for every column but the key's (an index on the key
// column reads the key), row_to_map gives the map to_msgpack writes (minus what omit_empty
// leaves out), and map_to_row turns that map back into the same row.
TEST(Records, CsvRowsReadBackAsTheirFieldsAndMaps) {
  const std::vector<std::string>& header = kCsvHeader;
  const RowColumns bytes_key{header, 0, KeyEncoding::bytes()};
  int compared = 0;
  auto rows = kCsvSampleFields;
  rows.push_back({"<*>", "a,b \"q\"", "", ""});
  for (const CsvRecord& r : csv_records(rows)) {
    const std::string key(r.fields[0]);
    for (bool omit_empty : {false, true}) {
      const std::string what = key + (omit_empty ? " (omit empty)" : "");
      std::string row, map, again, err, want_map;
      MsgpackWriter w(&row);
      r.to_row(w, omit_empty, 0, key);
      for (size_t i = 1; i < header.size(); ++i) {
        expect_same_field(r.stored_field(Column{header[i], i}, omit_empty),
                          msgpack_row_field(row, static_cast<uint32_t>(i)), what + " " + header[i]);
        ++compared;
      }
      EXPECT_EQ(msgpack_row_field(row, 0).kind, Scalar::missing) << what;  // the key's nil
      ASSERT_TRUE(row_to_map(row, bytes_key, as_bytes(key), &map)) << what;
      MsgpackWriter mw(&want_map);
      if (omit_empty && key.empty()) {
        // An empty key is still the row's key: the row keeps its column, which omit_empty
        // leaves out of a map of the record (here every other field is empty too).
        mw.map_header(1);
        mw.str("code");
        mw.str("");
      } else {
        std::string err;
        EXPECT_TRUE(r.to_msgpack(mw, omit_empty, &err)) << err;
      }
      EXPECT_EQ(map, want_map) << what;
      ASSERT_TRUE(map_to_row(map, bytes_key, as_bytes(key), &again, &err)) << what << ": " << err;
      // A map can not tell a missing trailing empty field from one left out: without
      // omit_empty the row keeps its empty strings, which the map keeps too.
      EXPECT_EQ(again, row) << what;
    }
  }
  EXPECT_EQ(compared, 4 * 2 * 3);
}

// The key column: nil when the field is the key's column text, else the field as it is; a row
// that does not fit, and a map with a field that is no column, are refused.
TEST(Records, RowKeyColumnAndMisfits) {
  const std::vector<std::string> header = {"id", "v"};
  const RowColumns int_key{header, 0, KeyEncoding::int64()};
  std::byte k65[8];
  encode_int64_key(65, k65);
  CsvRecord r;
  r.header = &header;
  for (auto [field, nil] :
       std::vector<std::pair<std::string_view, bool>>{{"65", true}, {"0041", false}}) {
    r.fields = r.text_fields = {field, "x"};
    std::string row, map;
    MsgpackWriter w(&row);
    r.to_row(w, false, 0, "65");
    EXPECT_EQ(static_cast<uint8_t>(row[1]) == 0xc0, nil) << field;
    ASSERT_TRUE(row_to_map(row, int_key, k65, &map));
    std::string json;
    ASSERT_TRUE(msgpack_to_json(map, &json));
    EXPECT_EQ(json, R"({"id":")" + std::string(field) + R"(","v":"x"})");
  }
  std::string map, err, out;
  EXPECT_FALSE(row_to_map("\x81\xa1k\x01", int_key, k65, &out));     // a map
  EXPECT_FALSE(row_to_map("\x93\x01\x02\x03", int_key, k65, &out));  // 3 fields, 2 columns
  EXPECT_FALSE(row_to_map("\x92\x01", int_key, k65, &out));          // truncated
  MsgpackWriter w(&map);
  w.map_header(1);
  w.str("other");
  w.integer(1);
  EXPECT_FALSE(map_to_row(map, int_key, k65, &out, &err));
  EXPECT_NE(err.find("the map has a field 'other' that is not a column"), std::string::npos) << err;
  EXPECT_FALSE(map_to_row("\x91\x01", int_key, k65, &out, &err));  // not a map
}

// ---- text, keys, rendering, session words -------------------------------------------------------

TEST(Text, EscapesForDisplayAndParsesBack) {
  const std::string raw("caf\xc3\xa9\\\x01\xff\n", 9);
  const std::string shown = escape_display(raw);
  EXPECT_EQ(shown, "caf\xc3\xa9\\\\\\x01\\xff\\x0a");
  EXPECT_EQ(parse_key_text(KeyEncoding::bytes(), shown, false), raw);
}

TEST(Text, HexBase64AndHelpers) {
  EXPECT_EQ(to_hex("\x01\xab"), "01ab");
  EXPECT_EQ(from_hex("0x01AB"), std::string("\x01\xab"));
  EXPECT_FALSE(from_hex("abc"));
  EXPECT_FALSE(from_hex("zz"));
  for (const char* s : {"", "f", "fo", "foo", "foob", "fooba", "foobar"})
    EXPECT_EQ(from_base64(to_base64(s)), std::string(s));
  EXPECT_EQ(to_base64("foobar"), "Zm9vYmFy");
  EXPECT_FALSE(from_base64("Zm9=v"));
  EXPECT_FALSE(from_base64("Zg=a"));
  EXPECT_FALSE(from_base64("Zh=="));  // non-zero padding bits
  EXPECT_EQ(group_digits(1234567), "1,234,567");
  EXPECT_EQ(group_digits(12), "12");
  EXPECT_EQ(truncate_display("abcdefghij", 8), "abcde...");
  EXPECT_EQ(truncate_display("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 4),
            "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9");
  EXPECT_TRUE(glob_match("<*>", "<control>"));
  EXPECT_FALSE(glob_match("<*>", "LATIN"));
  EXPECT_TRUE(printable_text("a\tb\n"));
  EXPECT_FALSE(printable_text("a\x01"));
  EXPECT_FALSE(printable_text("\xc2\x85"));  // a C1 control
}

// UTF-8 as RFC 3629 defines it: simdjson's check (valid_utf8) and the offset of the first bad
// byte (the tool's decoder) agree on every kind of sequence, good and bad, anywhere in a text
// long enough for the SIMD path.
TEST(Text, Utf8IsCheckedAsRfc3629Says) {
  struct Case {
    std::string bytes;
    bool valid;
  };
  const std::vector<Case> cases{
      {"", true},
      {"a", true},
      {"\x7f", true},
      {"\xc2\x80", true},
      {"\xdf\xbf", true},
      {"\xe0\xa0\x80", true},
      {"\xed\x9f\xbf", true},
      {"\xee\x80\x80", true},
      {"\xef\xbf\xbf", true},
      {"\xf0\x90\x80\x80", true},
      {"\xf4\x8f\xbf\xbf", true},
      {"\x80", false},              // a lone continuation byte
      {"\xc0\x80", false},          // overlong NUL
      {"\xc1\xbf", false},          // overlong
      {"\xe0\x80\x80", false},      // overlong
      {"\xf0\x80\x80\x80", false},  // overlong
      {"\xed\xa0\x80", false},      // a surrogate (U+D800)
      {"\xed\xbf\xbf", false},      // a surrogate (U+DFFF)
      {"\xf4\x90\x80\x80", false},  // past U+10FFFF
      {"\xf5\x80\x80\x80", false},  // no such lead byte
      {"\xff", false},
      {"\xc3", false},          // cut short
      {"\xe2\x82", false},      // cut short
      {"\xe2\x28\xa1", false},  // a bad continuation
  };
  for (const Case& c : cases) {
    for (size_t at : {size_t{0}, size_t{1}, size_t{63}, size_t{200}}) {
      const std::string text = std::string(at, 'x') + c.bytes + std::string(70, 'y');
      SCOPED_TRACE(testing::Message() << "case " << to_hex(c.bytes) << " at " << at);
      EXPECT_EQ(valid_utf8(text), c.valid);
      EXPECT_EQ(invalid_utf8_offset(text), c.valid ? std::string_view::npos : at);
    }
  }
}

TEST(Text, HexDumpsLikeHexdumpC) {
  EXPECT_EQ(hex_dump("Hello\x01", 0),
            "00000000  48 65 6c 6c 6f 01                                 |Hello.|\n");
  const std::string dump = hex_dump(std::string(40, 'a'), 16);
  EXPECT_NE(dump.find("... (24 more bytes)"), std::string::npos);
}

TEST(Keys, ParseAndDisplayEachEncoding) {
  const std::string k = parse_key_text(KeyEncoding::int64(), "-42", false);
  EXPECT_EQ(display_key(KeyEncoding::int64(), as_bytes(k), false), "-42");
  EXPECT_EQ(display_key(KeyEncoding::int64(), as_bytes(k), true), "-2a");
  EXPECT_EQ(parse_key_text(KeyEncoding::int64(), "0x2603", false),
            parse_key_text(KeyEncoding::int64(), "9731", false));
  EXPECT_EQ(parse_key_text(KeyEncoding::int64(), "2603", true),
            parse_key_text(KeyEncoding::int64(), "9731", false));
  EXPECT_THROW(parse_key_text(KeyEncoding::int64(), "12abc", false), CliError);
  EXPECT_THROW(parse_key_text(KeyEncoding::int64(), "0x8000000000000000", false), CliError);
  EXPECT_EQ(parse_key_text(KeyEncoding::int64(), "-0x8000000000000000", false),
            parse_key_text(KeyEncoding::int64(), "-9223372036854775808", false));
  const std::string u =
      parse_key_text(KeyEncoding::uuid_v7(), "0190a7e4-5b6c-7d8e-9f00-112233445566", false);
  EXPECT_EQ(display_key(KeyEncoding::uuid_v7(), as_bytes(u), false),
            "0190a7e4-5b6c-7d8e-9f00-112233445566");
  EXPECT_THROW(parse_key_text(KeyEncoding::uuid_v7(), "not-a-uuid", false), CliError);
  EXPECT_THROW(parse_key_text(KeyEncoding::ulid(), "00", true), CliError);
  std::string json;
  append_json_key(json, KeyEncoding::bytes(), as_bytes(std::string_view("\xff", 1)));
  EXPECT_EQ(json, R"({"base64":"/w=="})");
}

TEST(Render, ValuesByKind) {
  EXPECT_EQ(value_line("plain text", false), "plain text");
  EXPECT_EQ(value_line("two\nlines", false), "two\\x0alines");
  EXPECT_EQ(value_line(pack_json(R"({"a":1})"), false), R"({"a":1})");
  EXPECT_EQ(value_block(std::string("\x00\x01", 2), false, 0),
            "(binary, 2 bytes)\n00000000  00 01                                             |..|");
  std::string j;
  append_json_value(j, pack_json(R"({"a":1})"));
  EXPECT_EQ(j, R"({"msgpack":{"a":1}})");
  j.clear();
  append_json_value(j, std::string("\xff\x00", 2));
  EXPECT_EQ(j, R"({"base64":"/wA="})");
  std::string f;
  append_delimited_field(f, "a,\"b\"", ',');
  EXPECT_EQ(f, "\"a,\"\"b\"\"\"");
}

TEST(Session, SplitsCommandLines) {
  auto w = split_command_line(R"(get  "LATIN A" 'x y' a\ b \"q "*" * k\x41 "say \"hi\"")");
  ASSERT_EQ(w.size(), 9u);
  EXPECT_EQ(w[0].text, "get");
  EXPECT_EQ(w[1].text, "LATIN A");
  EXPECT_TRUE(w[1].quoted);
  EXPECT_EQ(w[2].text, "x y");
  EXPECT_EQ(w[3].text, "a b");
  EXPECT_EQ(w[4].text, "\"q");
  EXPECT_TRUE(w[5].quoted);
  EXPECT_EQ(w[5].text, "*");
  EXPECT_FALSE(w[6].quoted);
  EXPECT_EQ(w[7].text, "k\\x41");
  EXPECT_EQ(w[8].text, "say \"hi\"");
  EXPECT_THROW(split_command_line("get \"open"), CliError);
  // A backslash pair never escapes what follows it: "z\\" is the key text z\\ (a backslash).
  w = split_command_line(R"(get "z\\" y\\ "a\\\"b")");
  ASSERT_EQ(w.size(), 4u);
  EXPECT_EQ(w[1].text, R"(z\\)");
  EXPECT_EQ(w[2].text, R"(y\\)");
  EXPECT_EQ(w[3].text, R"(a\\"b)");
}

// The message of the CliError that parsing `line` throws; empty when it throws none.
std::string parse_error(ShellCommands& commands, const std::string& line) {
  try {
    commands.parse(split_command_line(line));
  } catch (const CliError& e) {
    EXPECT_EQ(e.code(), kExitUsage) << line;
    return e.what();
  }
  return {};
}

TEST(Session, ParsesCommandsThroughTheirDefinitions) {
  ShellCommands commands;
  auto line = commands.parse(split_command_line(R"(RANGE "--desc" * --desc --limit 3)"));
  EXPECT_EQ(line.command, "range");
  ASSERT_EQ(line.query.args.size(), 2u);
  EXPECT_EQ(line.query.args[0].text, "--desc");  // quoted: a key, never an option
  EXPECT_EQ(line.query.args[1].text, "*");
  EXPECT_FALSE(line.query.args[1].quoted);  // an open end
  EXPECT_TRUE(line.query.desc);
  EXPECT_EQ(line.query.limit, 3u);

  // Words of one dash are arguments; a quoted "*" stays quoted (the key *), and so does "".
  line = commands.parse(split_command_line(R"(index -x count -5 "*")"));
  EXPECT_EQ(line.command, "index count");
  EXPECT_EQ(line.query.index, "-x");
  ASSERT_EQ(line.query.args.size(), 2u);
  EXPECT_EQ(line.query.args[0].text, "-5");
  EXPECT_TRUE(line.query.args[1].quoted);
  line = commands.parse(split_command_line(R"(get "")"));
  ASSERT_EQ(line.query.args.size(), 1u);
  EXPECT_EQ(line.query.args[0].text, "");

  // An index may be named as a command is.
  line = commands.parse(split_command_line("index get get 7 --hex"));
  EXPECT_EQ(line.command, "index get");
  EXPECT_EQ(line.query.index, "get");
  EXPECT_TRUE(line.query.hex);

  // The positional [offset] [limit] and the options set the same fields; a parse starts afresh.
  line = commands.parse(split_command_line("scan 4 2"));
  EXPECT_EQ(line.query.offset, 4u);
  EXPECT_EQ(line.query.limit, 2u);
  line = commands.parse(split_command_line("keys --offset 1"));
  EXPECT_EQ(line.command, "keys");
  EXPECT_EQ(line.query.offset, 1u);
  EXPECT_FALSE(line.query.limit.has_value());
  EXPECT_FALSE(line.query.desc);

  line = commands.parse(split_command_line("Use prices"));
  EXPECT_EQ(line.command, "use");
  EXPECT_EQ(line.text, "prices");
  EXPECT_EQ(commands.parse(split_command_line("index")).command, "indexes");
  EXPECT_EQ(commands.parse(split_command_line("Q")).command, "quit");
  EXPECT_EQ(commands.parse({}).command, "");
}

TEST(Session, ErrorsNameTheCommandAndTheWord) {
  ShellCommands commands;
  EXPECT_EQ(parse_error(commands, "frob 1"),
            "Unknown command: frob\nType 'help' for available commands.");
  EXPECT_EQ(parse_error(commands, "get --desc"), "get: unknown option --desc (see 'help get')");
  EXPECT_EQ(parse_error(commands, "index k range a b --limit=x --bogus=1"),
            "index range: unknown option --bogus (see 'help index range')");
  EXPECT_EQ(parse_error(commands, "scan -1"),
            "scan: offset: expected a non-negative integer, not '-1' (see 'help scan')");
  EXPECT_EQ(parse_error(commands, "prefix a --limit \"-x\""),
            "prefix: --limit: expected a non-negative integer, not '-x' (see 'help prefix')");
  EXPECT_EQ(parse_error(commands, "range a"), "range: end is required (see 'help range')");
  EXPECT_EQ(parse_error(commands, "index k frob"),
            "unknown index command 'frob': use get, scan, range, prefix, count or all");
  EXPECT_EQ(parse_error(commands, "help frob"),
            "help: no command 'frob'; type 'help' for the list");
}

TEST(Session, EveryCommandHasHelp) {
  ShellCommands commands;
  const std::vector<std::string> names = commands.command_names();
  for (const char* name : {"get", "scan", "range", "prefix", "count", "keys", "values", "tables",
                           "info", "stats", "use", "indexes", "index", "help", "quit", "exit"})
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
  const std::string list = commands.parse(split_command_line("help")).text;
  for (const std::string& name : names) {
    const auto help = commands.parse(split_command_line("help " + name));
    EXPECT_EQ(help.command, "help");
    EXPECT_NE(help.text.find("Usage: "), std::string::npos) << name;
    EXPECT_EQ(commands.parse(split_command_line(name + " --help")).text, help.text) << name;
  }
  EXPECT_EQ(commands.index_command_names(),
            (std::vector<std::string>{"get", "scan", "range", "prefix", "count", "all"}));
  for (const std::string& name : commands.index_command_names()) {
    const auto help = commands.parse(split_command_line("help index " + name));
    EXPECT_NE(help.text.find("Usage: index <name> " + name), std::string::npos) << name;
    EXPECT_EQ(commands.parse(split_command_line("index i " + name + " --help")).text, help.text);
    EXPECT_NE(list.find("\n  index <name> " + name), std::string::npos) << name;
  }
}

}  // namespace
}  // namespace drydb::cli
