// Columnar appends (TableBuilder::append_columns, append_values; drydb/columns.h): each type
// packs to the MessagePack the spec gives for it, in its shortest form (bytes written by hand
// here); nulls of every kind leave a field nil, the array ending at its last field; the key
// column stores nil where it stands for the key; every layout (strides, 32 and 64-bit offsets,
// sliced offsets, fixed-width strings, validity bits at an offset) reads the right values; keys
// of every encoding; a bad batch names its column and first bad row and appends nothing; and
// random batches build the very file append() builds from the same rows.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "drydb/drydb.h"
#include "support/random.h"

namespace {

using drydb::ColumnType;
using drydb::ColumnView;
using drydb::errc;
using drydb::KeyEncoding;
using drydb::ReadOnlyDatabase;
using drydb::TimeUnit;

std::string hex(std::string_view s) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    if (!out.empty()) out += ' ';
    out += kDigits[c >> 4];
    out += kDigits[c & 15];
  }
  return out;
}

std::vector<std::byte> build(drydb::DatabaseBuilder& b) {
  auto file = b.build_to_memory();
  EXPECT_TRUE(file) << file.error().to_string();
  return file ? std::move(*file) : std::vector<std::byte>();
}

// The stored values of the one table "t" of a file, in key order, as hex.
std::vector<std::string> stored_values(const std::vector<std::byte>& file) {
  std::vector<std::string> out;
  auto db = ReadOnlyDatabase::open_memory(file);
  EXPECT_TRUE(db) << db.error().to_string();
  if (!db) return out;
  EXPECT_TRUE(db->verify()) << db->verify().error().to_string();
  auto t = db->table("t");
  EXPECT_TRUE(t);
  for (const auto& row : t->cursor())
    out.push_back(hex({reinterpret_cast<const char*>(row.value.data()), row.value.size()}));
  return out;
}

// The rows a one-column table ("v", no key column) stores for `column`, keys 0, 1, ...
std::vector<std::string> packed(const ColumnView& column) {
  std::vector<int64_t> keys(column.length);
  for (size_t i = 0; i < keys.size(); ++i)
    keys[i] = static_cast<int64_t>(i);
  drydb::DatabaseBuilder b;
  auto& t = b.create_table("t", KeyEncoding::int64());
  t.set_columns({"v"});
  const auto st = t.append_columns(
      ColumnView::fixed("id", ColumnType::int64, keys.data(), keys.size()), {&column, 1});
  EXPECT_TRUE(st) << st.error().to_string();
  return stored_values(build(b));
}

template <class T>
std::vector<std::string> packed_values(ColumnType type, std::vector<T> values) {
  return packed(ColumnView::fixed("v", type, values.data(), values.size()));
}

TEST(Columns, IntegersPackAsTheShortestMessagePackInteger) {
  EXPECT_EQ(
      packed_values<int64_t>(ColumnType::int64,
                             {0, 127, 128, 255, 256, 65535, 65536, 4294967295LL, 4294967296LL, -1,
                              -32, -33, -128, -129, -32768, -32769, -2147483648LL, -2147483649LL,
                              std::numeric_limits<int64_t>::min()}),
      (std::vector<std::string>{
          "91 00", "91 7f", "91 cc 80", "91 cc ff", "91 cd 01 00", "91 cd ff ff",
          "91 ce 00 01 00 00", "91 ce ff ff ff ff", "91 cf 00 00 00 01 00 00 00 00", "91 ff",
          "91 e0", "91 d0 df", "91 d0 80", "91 d1 ff 7f", "91 d1 80 00", "91 d2 ff ff 7f ff",
          "91 d2 80 00 00 00", "91 d3 ff ff ff ff 7f ff ff ff", "91 d3 80 00 00 00 00 00 00 00"}));
  EXPECT_EQ(packed_values<uint64_t>(ColumnType::uint64, {5, std::numeric_limits<uint64_t>::max()}),
            (std::vector<std::string>{"91 05", "91 cf ff ff ff ff ff ff ff ff"}));
  EXPECT_EQ(packed_values<int8_t>(ColumnType::int8, {-100, 100}),
            (std::vector<std::string>{"91 d0 9c", "91 64"}));
  EXPECT_EQ(packed_values<uint16_t>(ColumnType::uint16, {300}),
            (std::vector<std::string>{"91 cd 01 2c"}));
  EXPECT_EQ(packed_values<int32_t>(ColumnType::int32, {-40000}),
            (std::vector<std::string>{"91 d2 ff ff 63 c0"}));
  EXPECT_EQ(packed_values<uint32_t>(ColumnType::uint32, {70000}),
            (std::vector<std::string>{"91 ce 00 01 11 70"}));
  EXPECT_EQ(packed_values<int16_t>(ColumnType::int16, {-2}), (std::vector<std::string>{"91 fe"}));
  EXPECT_EQ(packed_values<uint8_t>(ColumnType::uint8, {200}),
            (std::vector<std::string>{"91 cc c8"}));
}

TEST(Columns, FloatsBooleansTextAndBytes) {
  EXPECT_EQ(
      packed_values<double>(ColumnType::float64, {1.5, -0.0}),
      (std::vector<std::string>{"91 cb 3f f8 00 00 00 00 00 00", "91 cb 80 00 00 00 00 00 00 00"}));
  EXPECT_EQ(packed_values<float>(ColumnType::float32, {1.5f}),
            (std::vector<std::string>{"91 ca 3f c0 00 00"}));
  EXPECT_EQ(packed_values<uint8_t>(ColumnType::boolean, {0, 1, 2}),
            (std::vector<std::string>{"91 c2", "91 c3", "91 c3"}));

  const std::string data =
      "ab" + std::string(31, 'x') + std::string(32, 'y') + std::string(256, 'z');
  const int32_t offsets[] = {0, 2, 33, 65, 321};
  const auto text = packed(ColumnView::strings("v", ColumnType::text, offsets, data.data(), 4));
  ASSERT_EQ(text.size(), 4u);
  EXPECT_EQ(text[0], "91 a2 61 62");
  EXPECT_EQ(text[1].substr(0, 8), "91 bf 78");         // fixstr of 31
  EXPECT_EQ(text[2].substr(0, 11), "91 d9 20 79");     // str 8 of 32
  EXPECT_EQ(text[3].substr(0, 14), "91 da 01 00 7a");  // str 16 of 256
  const auto bin = packed(ColumnView::strings("v", ColumnType::bytes, offsets, data.data(), 2));
  EXPECT_EQ(bin, (std::vector<std::string>{"91 c4 02 61 62", bin[1]}));
  EXPECT_EQ(bin[1].substr(0, 11), "91 c4 1f 78");
}

TEST(Columns, TimestampsTakeTheShortestOfTheirThreeForms) {
  const std::vector<int64_t> nanos = {0,              // 32-bit: seconds only
                                      1'500'000'000,  // 64-bit: 1 s and 500,000,000 ns
                                      -1};  // 96-bit: before the epoch, -1 s + 999,999,999 ns
  EXPECT_EQ(packed(ColumnView::timestamps("v", nanos.data(), nanos.size(), TimeUnit::nanosecond)),
            (std::vector<std::string>{"91 d6 ff 00 00 00 00", "91 d7 ff 77 35 94 00 00 00 00 01",
                                      "91 c7 0c ff 3b 9a c9 ff ff ff ff ff ff ff ff ff"}));
  const int64_t ms[] = {-1, 1000};
  EXPECT_EQ(packed(ColumnView::timestamps("v", ms, 2, TimeUnit::millisecond)),
            (std::vector<std::string>{"91 c7 0c ff 3b 8b 87 c0 ff ff ff ff ff ff ff ff",
                                      "91 d6 ff 00 00 00 01"}));
  // 2^32 s needs the 64-bit form; 2^34 s the 96-bit one.
  const int64_t us[] = {1}, s[] = {int64_t{1} << 32, int64_t{1} << 34};
  EXPECT_EQ(packed(ColumnView::timestamps("v", us, 1, TimeUnit::microsecond)),
            (std::vector<std::string>{"91 d7 ff 00 00 0f a0 00 00 00 00"}));
  EXPECT_EQ(packed(ColumnView::timestamps("v", s, 2, TimeUnit::second)),
            (std::vector<std::string>{"91 d7 ff 00 00 00 01 00 00 00 00",
                                      "91 c7 0c ff 00 00 00 00 00 00 00 04 00 00 00 00"}));
}

// A 3-column table keyed by text, rows "a" .. of the given columns.
std::vector<std::string> rows_of(std::span<const ColumnView> columns, size_t rows,
                                 std::optional<uint32_t> key_column = std::nullopt) {
  std::string keys;
  std::vector<int32_t> offsets{0};
  for (size_t i = 0; i < rows; ++i) {
    keys += static_cast<char>('a' + i);
    offsets.push_back(static_cast<int32_t>(keys.size()));
  }
  drydb::DatabaseBuilder b;
  auto& t = b.create_table("t");
  t.set_columns({"k", "x", "y"}, key_column);
  const auto st = t.append_columns(
      ColumnView::strings("key", ColumnType::text, offsets.data(), keys.data(), rows), columns);
  EXPECT_TRUE(st) << st.error().to_string();
  return stored_values(build(b));
}

TEST(Columns, NullsOfEveryKindLeaveTheFieldNilAndTheArrayEndsAtItsLastField) {
  const int64_t xs[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  const double ys[] = {1.5, NAN, 2.5, 1.5, 1.5, 1.5, 1.5, 1.5, 1.5, NAN};
  // Validity bits from bit 3: rows 1 and 9 null (bits 4 and 12 clear).
  const uint8_t validity[] = {0b1110'1111, 0b1110'1111};
  ColumnView x = ColumnView::fixed("x", ColumnType::int64, xs, 10);
  x.validity = validity;
  x.validity_bit = 3;
  ColumnView y = ColumnView::fixed("y", ColumnType::float64, ys, 10);
  const uint8_t mask[] = {0, 0, 1, 0, 0, 0, 0, 0, 0, 0};
  y.null_mask = mask;
  y.missing_sentinels = true;  // NaN: rows 1 and 9
  const ColumnView both[] = {x, y};
  const auto rows = rows_of(both, 10);
  EXPECT_EQ(rows[0], "93 c0 01 cb 3f f8 00 00 00 00 00 00");
  EXPECT_EQ(rows[1], "90");        // x and y null: nothing but the key, which is not a column
  EXPECT_EQ(rows[2], "92 c0 03");  // y masked: the array ends at x
  EXPECT_EQ(rows[9], "90");
  // Without missing_sentinels a NaN is a value.
  const ColumnView only_y[] = {ColumnView::fixed("y", ColumnType::float64, ys, 2)};
  EXPECT_EQ(rows_of(only_y, 2)[1], "93 c0 c0 cb 7f f8 00 00 00 00 00 00");
  // NaT.
  const int64_t when[] = {std::numeric_limits<int64_t>::min(), 0};
  ColumnView t = ColumnView::timestamps("x", when, 2, TimeUnit::nanosecond);
  t.missing_sentinels = true;
  const ColumnView only_t[] = {t};
  EXPECT_EQ(rows_of(only_t, 2), (std::vector<std::string>{"90", "92 c0 d6 ff 00 00 00 00"}));
}

TEST(Columns, TheKeyColumnStoresNilWhereItStandsForTheKey) {
  // Column k is the key column: equal text is nil, other text and other types (bytes too) are
  // kept.
  const char text[] = "abxd";
  const int32_t offsets[] = {0, 1, 2, 3, 4};
  const ColumnView k[] = {ColumnView::strings("k", ColumnType::text, offsets, text, 4)};
  // The array reaches the key column, or the row would not hold the key.
  EXPECT_EQ(rows_of(k, 4, 0), (std::vector<std::string>{"91 c0", "91 c0", "91 a1 78", "91 c0"}));
  EXPECT_EQ(rows_of(k, 4, 2), (std::vector<std::string>{"93 a1 61 c0 c0", "93 a1 62 c0 c0",
                                                        "93 a1 78 c0 c0", "93 a1 64 c0 c0"}));
  // A bytes field is kept even where it holds the key's bytes: a nil reads back as text (a
  // bytes key column used to read back as str).
  const ColumnView kb[] = {ColumnView::strings("k", ColumnType::bytes, offsets, text, 4)};
  EXPECT_EQ(rows_of(kb, 4, 0),
            (std::vector<std::string>{"91 c4 01 61", "91 c4 01 62", "91 c4 01 78", "91 c4 01 64"}));
  const int64_t n[] = {7, 8};
  const ColumnView kn[] = {ColumnView::fixed("k", ColumnType::int64, n, 2)};
  EXPECT_EQ(rows_of(kn, 2, 0), (std::vector<std::string>{"91 07", "91 08"}));
  // Without a column at the key's position, nil stands for the key.
  const int64_t x[] = {5};
  const ColumnView only_x[] = {ColumnView::fixed("x", ColumnType::int64, x, 1)};
  EXPECT_EQ(rows_of(only_x, 1, 0), (std::vector<std::string>{"92 c0 05"}));

  // An int64 table: a text key column equal to the decimal key is nil; an integer one is kept.
  const int64_t ids[] = {-5, 12};
  const char id_text[] = "-512";
  const int32_t id_offsets[] = {0, 2, 4};
  drydb::DatabaseBuilder b;
  auto& t = b.create_table("t", KeyEncoding::int64());
  t.set_columns({"id", "n"}, 0);
  const ColumnView cols[] = {ColumnView::strings("id", ColumnType::text, id_offsets, id_text, 2),
                             ColumnView::fixed("n", ColumnType::int64, ids, 2)};
  ASSERT_TRUE(t.append_columns(ColumnView::fixed("id", ColumnType::int64, ids, 2), cols));
  EXPECT_EQ(stored_values(build(b)), (std::vector<std::string>{"92 c0 fb", "92 c0 0c"}));
}

TEST(Columns, EveryLayoutReadsTheRightValues) {
  // Strided: an array of {int64, double} records.
  struct Record {
    int64_t a;
    double b;
  };
  const Record records[] = {{1, 0.5}, {2, 1.5}};
  const ColumnView strided[] = {
      ColumnView::fixed("x", ColumnType::int64, &records[0].a, 2, sizeof(Record)),
      ColumnView::fixed("y", ColumnType::float64, &records[0].b, 2, sizeof(Record))};
  EXPECT_EQ(rows_of(strided, 2), (std::vector<std::string>{"93 c0 01 cb 3f e0 00 00 00 00 00 00",
                                                           "93 c0 02 cb 3f f8 00 00 00 00 00 00"}));
  // 64-bit offsets that start past 0 (a slice of a larger array).
  const char data[] = "xxhiyo";
  const int64_t wide[] = {2, 4, 6};
  const ColumnView sliced[] = {ColumnView::strings("x", ColumnType::text, wide, data, 2)};
  EXPECT_EQ(rows_of(sliced, 2), (std::vector<std::string>{"92 c0 a2 68 69", "92 c0 a2 79 6f"}));
  // Fixed-width strings: NumPy's "S3" (trailing zeros trimmed), Arrow's fixed-size binary (kept).
  const char fixed[] = "ab\0cde";
  const ColumnView trimmed[] = {
      ColumnView::fixed_width_strings("x", ColumnType::text, fixed, 3, 2, true),
      ColumnView::fixed_width_strings("y", ColumnType::bytes, fixed, 3, 2, false)};
  EXPECT_EQ(rows_of(trimmed, 2), (std::vector<std::string>{"93 c0 a2 61 62 c4 03 61 62 00",
                                                           "93 c0 a3 63 64 65 c4 03 63 64 65"}));
  // A column the list names but the batch lacks is nil; columns in any order.
  const int64_t ys[] = {9};
  const ColumnView y_only[] = {ColumnView::fixed("y", ColumnType::int64, ys, 1)};
  EXPECT_EQ(rows_of(y_only, 1), (std::vector<std::string>{"93 c0 c0 09"}));
}

// A builder with one table "t" of `encoding` and a column list {"v"}, and an append of one
// int64 value per key.
struct OneColumn {
  explicit OneColumn(KeyEncoding encoding, uint32_t page_size = 4096)
      : b(drydb::BuildOptions{.page_size = page_size}), t(b.create_table("t", encoding)) {
    t.set_columns({"v"});
  }
  drydb::status append(const ColumnView& keys) {
    values.assign(keys.length, 1);
    const ColumnView v = ColumnView::fixed("v", ColumnType::int64, values.data(), values.size());
    return t.append_columns(keys, {&v, 1});
  }
  drydb::DatabaseBuilder b;
  drydb::TableBuilder& t;
  std::vector<int64_t> values;
};

TEST(Columns, KeysOfEveryEncoding) {
  {  // int64 tables take any integer column.
    OneColumn c(KeyEncoding::int64());
    const int32_t small[] = {-3, 4};
    const uint64_t big[] = {uint64_t{1} << 62};
    ASSERT_TRUE(c.append(ColumnView::fixed("id", ColumnType::int32, small, 2)));
    ASSERT_TRUE(c.append(ColumnView::fixed("id", ColumnType::uint64, big, 1)));
    const auto file = build(c.b);
    auto db = ReadOnlyDatabase::open_memory(file);
    ASSERT_TRUE(db);
    EXPECT_TRUE(db->table("t")->get(int64_t{-3}));
    EXPECT_TRUE(db->table("t")->get(int64_t{4}));
    EXPECT_TRUE(db->table("t")->get(int64_t{1} << 62));
  }
  {  // bytes tables take text and bytes.
    OneColumn c(KeyEncoding::bytes());
    const char data[] = "k1k2";
    const int32_t offsets[] = {0, 2, 4};
    ASSERT_TRUE(c.append(ColumnView::strings("id", ColumnType::text, offsets, data, 1)));
    ASSERT_TRUE(c.append(ColumnView::strings("id", ColumnType::bytes, offsets + 1, data, 1)));
    const auto file = build(c.b);
    auto db = ReadOnlyDatabase::open_memory(file);
    ASSERT_TRUE(db);
    EXPECT_TRUE(db->table("t")->get("k1"));
    EXPECT_TRUE(db->table("t")->get("k2"));
  }
  {  // UUID tables take 16 bytes or the text.
    OneColumn c(KeyEncoding::uuid_v7());
    const std::string text = "0190a5f4-7c3e-7b1a-8c2d-3e4f5a6b7c8d";
    const int32_t offsets[] = {0, static_cast<int32_t>(text.size())};
    ASSERT_TRUE(c.append(ColumnView::strings("id", ColumnType::text, offsets, text.data(), 1)));
    const std::string raw(16, '\x01');
    ASSERT_TRUE(c.append(
        ColumnView::fixed_width_strings("id", ColumnType::bytes, raw.data(), 16, 1, false)));
    const auto file = build(c.b);
    auto db = ReadOnlyDatabase::open_memory(file);
    ASSERT_TRUE(db);
    EXPECT_EQ(db->table("t")->count(), 2u);
    EXPECT_TRUE(db->table("t")->get(*drydb::Uuid::parse(text)));
  }
}

// Appends `keys` (with values) to a fresh table and expects it refused with `code` and a
// message holding every one of `words`; the table then takes a good batch and builds.
void expect_refused(KeyEncoding encoding, const ColumnView& keys, errc code,
                    std::vector<std::string> words, uint32_t page_size = 4096) {
  OneColumn c(encoding, page_size);
  const auto st = c.append(keys);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code, code) << st.error().to_string();
  for (const auto& w : words)
    EXPECT_NE(st.error().message.find(w), std::string::npos)
        << st.error().message << " lacks " << w;
  EXPECT_EQ(c.t.rows_appended(), 0u);
  EXPECT_TRUE(c.t.status());
  EXPECT_TRUE(c.b.status());
}

TEST(Columns, BadKeysAreRefusedNamingTheColumnAndRow) {
  const double floats[] = {1.0};
  expect_refused(KeyEncoding::int64(), ColumnView::fixed("id", ColumnType::float64, floats, 1),
                 errc::wrong_key_type, {"'id'", "floats", "int64"});
  const char text[] = "abc";
  const int32_t offsets[] = {0, 1, 2, 3};
  expect_refused(KeyEncoding::int64(),
                 ColumnView::strings("id", ColumnType::text, offsets, text, 3),
                 errc::wrong_key_type, {"'id'"});
  const int64_t ints[] = {1, 2, 3};
  expect_refused(KeyEncoding::bytes(), ColumnView::fixed("id", ColumnType::int64, ints, 3),
                 errc::wrong_key_type, {"'id'", "text or bytes"});
  const uint64_t huge[] = {1, std::numeric_limits<uint64_t>::max()};
  expect_refused(KeyEncoding::int64(), ColumnView::fixed("id", ColumnType::uint64, huge, 2),
                 errc::invalid_argument, {"'id'", "row 1", "18446744073709551615"});
  ColumnView nulls = ColumnView::fixed("id", ColumnType::int64, ints, 3);
  const uint8_t mask[] = {0, 0, 1};
  nulls.null_mask = mask;
  expect_refused(KeyEncoding::int64(), nulls, errc::invalid_argument, {"'id'", "row 2", "null"});
  const std::string long_key(200, 'k');
  const int32_t long_offsets[] = {0, 1, 200};
  expect_refused(KeyEncoding::bytes(),
                 ColumnView::strings("id", ColumnType::text, long_offsets, long_key.data(), 2),
                 errc::key_too_long, {"'id'", "row 1", "199 bytes"}, 512);
  const char bad_uuid[] = "not-a-uuid";
  const int32_t uuid_offsets[] = {0, 10};
  expect_refused(KeyEncoding::uuid_v7(),
                 ColumnView::strings("id", ColumnType::text, uuid_offsets, bad_uuid, 1),
                 errc::invalid_argument, {"'id'", "row 0"});
  expect_refused(KeyEncoding::uuid_v7(),
                 ColumnView::fixed_width_strings("id", ColumnType::bytes, text, 3, 1, false),
                 errc::wrong_key_type, {"'id'", "row 0", "16 bytes"});
  const int32_t backwards[] = {0, 2, 1};
  expect_refused(KeyEncoding::bytes(),
                 ColumnView::strings("id", ColumnType::text, backwards, text, 2),
                 errc::invalid_argument, {"'id'", "row 1", "offsets"});
}

TEST(Columns, BadColumnsAreRefusedAndTheBatchAppendsNothing) {
  drydb::DatabaseBuilder b;
  auto& t = b.create_table("t", KeyEncoding::int64());
  const int64_t ids[] = {1, 2, 3};
  const ColumnView keys = ColumnView::fixed("id", ColumnType::int64, ids, 3);
  const ColumnView x = ColumnView::fixed("x", ColumnType::int64, ids, 3);
  auto refused = [&](std::span<const ColumnView> columns, std::vector<std::string> words) {
    const auto st = t.append_columns(keys, columns);
    ASSERT_FALSE(st);
    EXPECT_EQ(st.error().code, errc::invalid_argument);
    for (const auto& w : words)
      EXPECT_NE(st.error().message.find(w), std::string::npos)
          << st.error().message << " lacks " << w;
    EXPECT_EQ(t.rows_appended(), 0u);
    EXPECT_TRUE(b.status());
  };
  refused({&x, 1}, {"table 't'", "no column list"});
  t.set_columns({"x", "y"});
  const ColumnView short_y = ColumnView::fixed("y", ColumnType::int64, ids, 2);
  const ColumnView two[] = {x, short_y};
  refused(two, {"'y'", "2 rows", "3"});
  const ColumnView z = ColumnView::fixed("z", ColumnType::int64, ids, 3);
  const ColumnView with_z[] = {x, z};
  refused(with_z, {"'z'", "not in the table's column list"});
  const ColumnView twice[] = {x, x};
  refused(twice, {"'x'", "twice"});
  const ColumnView no_values = ColumnView::fixed("y", ColumnType::int64, nullptr, 3);
  const ColumnView missing[] = {x, no_values};
  refused(missing, {"'y'", "no values"});

  // The builder goes on: a good batch appends, and the build holds exactly its rows.
  ASSERT_TRUE(t.append_columns(keys, {&x, 1}));
  EXPECT_EQ(t.rows_appended(), 3u);
  const auto file = build(b);
  auto db = ReadOnlyDatabase::open_memory(file);
  ASSERT_TRUE(db);
  EXPECT_EQ(db->table("t")->count(), 3u);
  // After the build, a batch is refused as append() is.
  const auto late = t.append_columns(keys, {&x, 1});
  ASSERT_FALSE(late);
  EXPECT_EQ(late.error().code, errc::invalid_state);
}

TEST(Columns, AppendValuesTakesWholeValues) {
  drydb::DatabaseBuilder b;
  auto& t = b.create_table("t", KeyEncoding::int64());
  const int64_t ids[] = {1, 2, 3};
  const char data[] = "onetwo";
  const int32_t offsets[] = {0, 3, 6, 6};
  ColumnView values = ColumnView::strings("body", ColumnType::bytes, offsets, data, 3);
  const uint8_t mask[] = {0, 1, 0};
  values.null_mask = mask;
  ASSERT_TRUE(t.append_values(ColumnView::fixed("id", ColumnType::int64, ids, 3), values));
  const ColumnView ints = ColumnView::fixed("body", ColumnType::int64, ids, 3);
  const auto refused = t.append_values(ColumnView::fixed("id", ColumnType::int64, ids, 3), ints);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("'body'"), std::string::npos);
  const auto file = build(b);
  auto db = ReadOnlyDatabase::open_memory(file);
  ASSERT_TRUE(db);
  auto table = db->table("t");
  EXPECT_EQ(table->get(int64_t{1})->str(), "one");
  EXPECT_EQ(table->get(int64_t{2})->str(), "");  // null: empty
  EXPECT_EQ(table->get(int64_t{3})->str(), "");

  // With a column list, each value must be a row of it.
  drydb::DatabaseBuilder listed;
  auto& l = listed.create_table("t", KeyEncoding::int64());
  l.set_columns({"a"});
  const char rows[] = "\x91\x01\x92\x01\x02";
  const int32_t row_offsets[] = {0, 2, 5};
  const auto st =
      l.append_values(ColumnView::fixed("id", ColumnType::int64, ids, 2),
                      ColumnView::strings("row", ColumnType::bytes, row_offsets, rows, 2));
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("row 1"), std::string::npos) << st.error().message;
  EXPECT_EQ(l.rows_appended(), 0u);
}

// Random batches, in random layouts, spilling through a small budget: the file is byte for byte
// the one append() builds from the same rows packed by hand (int64 fields 0 .. 127 are one
// byte, text under 32 bytes a fixstr).
TEST(Columns, RandomBatchesBuildTheFileAppendBuilds) {
  drydb_test::Rng rng(31);
  for (int round = 0; round < 4; ++round) {
    const drydb::BuildOptions options{.page_size = 512, .memory_budget = 16 << 10};
    drydb::DatabaseBuilder by_columns(options), by_rows(options);
    auto& tc = by_columns.create_table("t", KeyEncoding::int64());
    auto& tr = by_rows.create_table("t", KeyEncoding::int64());
    tc.set_columns({"n", "s"});
    tr.set_columns({"n", "s"});
    std::vector<int64_t> all_keys(3000);
    for (size_t i = 0; i < all_keys.size(); ++i)
      all_keys[i] = static_cast<int64_t>(i * 7919 % 100003) - 50000;
    size_t next = 0;
    while (next < all_keys.size()) {
      const size_t n = std::min(all_keys.size() - next, static_cast<size_t>(rng.between(0, 700)));
      // Keys as int32 (all fit), values strided, text by 64-bit offsets from a random base.
      std::vector<int32_t> keys(n);
      std::vector<int64_t> pairs(2 * n);
      std::vector<uint8_t> n_null(n), validity((n + 16) / 8 + 1, 0);
      const size_t bit0 = rng.below(8);
      std::string text = std::string(rng.below(5), '#');
      std::vector<int64_t> offsets{static_cast<int64_t>(text.size())};
      for (size_t i = 0; i < n; ++i) {
        keys[i] = static_cast<int32_t>(all_keys[next + i]);
        pairs[2 * i] = static_cast<int64_t>(rng.below(128));
        n_null[i] = rng.chance(5);
        const bool s_valid = !rng.chance(4);
        if (s_valid) validity[(bit0 + i) / 8] |= static_cast<uint8_t>(1u << ((bit0 + i) % 8));
        text += std::string(rng.below(31), static_cast<char>('a' + rng.below(26)));
        offsets.push_back(static_cast<int64_t>(text.size()));
        // The row append() gets.
        std::vector<std::string> fields = {
            n_null[i] ? std::string("\xc0") : std::string(1, static_cast<char>(pairs[2 * i]))};
        if (s_valid) {
          const size_t len = static_cast<size_t>(offsets[i + 1] - offsets[i]);
          fields.push_back(std::string(1, static_cast<char>(0xa0 | len)) +
                           text.substr(static_cast<size_t>(offsets[i]), len));
        }
        while (!fields.empty() && fields.back() == "\xc0")
          fields.pop_back();
        std::string row(1, static_cast<char>(0x90 | fields.size()));
        for (const auto& f : fields)
          row += f;
        tr.append(int64_t{keys[i]}, row);
      }
      ColumnView nv = ColumnView::fixed("n", ColumnType::int64, pairs.data(), n, 16);
      nv.null_mask = n_null.data();
      ColumnView sv = ColumnView::strings("s", ColumnType::text, offsets.data(), text.data(), n);
      sv.validity = validity.data();
      sv.validity_bit = bit0;
      const ColumnView columns[] = {sv, nv};
      ASSERT_TRUE(
          tc.append_columns(ColumnView::fixed("id", ColumnType::int32, keys.data(), n), columns));
      next += n;
    }
    EXPECT_EQ(tc.rows_appended(), all_keys.size());
    const auto a = build(by_columns), b = build(by_rows);
    ASSERT_FALSE(a.empty());
    EXPECT_EQ(a, b) << "round " << round;
    EXPECT_EQ(stored_values(a).size(), all_keys.size());
  }
}

}  // namespace

namespace {

// for_each_encoded_key gives the bytes append_columns appends, or the first bad key's error
// before any call.
TEST(Columns, EncodedKeysAreTheKeysAppendColumnsAppends) {
  const int32_t ints[] = {-1, 5};
  std::vector<std::string> seen;
  auto collect = [&](size_t i, std::span<const std::byte> key) {
    EXPECT_EQ(i, seen.size());
    seen.emplace_back(reinterpret_cast<const char*>(key.data()), key.size());
  };
  ASSERT_TRUE(drydb::for_each_encoded_key(ColumnView::fixed("id", ColumnType::int32, ints, 2),
                                          KeyEncoding::int64(), collect));
  EXPECT_EQ(hex(seen[0]), "7f ff ff ff ff ff ff ff");
  EXPECT_EQ(hex(seen[1]), "80 00 00 00 00 00 00 05");
  seen.clear();
  const char text[] = "abc";
  const int32_t offsets[] = {0, 1, 3};
  ASSERT_TRUE(
      drydb::for_each_encoded_key(ColumnView::strings("id", ColumnType::text, offsets, text, 2),
                                  KeyEncoding::bytes(), collect));
  EXPECT_EQ(seen, (std::vector<std::string>{"a", "bc"}));
  seen.clear();
  ColumnView with_null = ColumnView::fixed("id", ColumnType::int32, ints, 2);
  const uint8_t mask[] = {0, 1};
  with_null.null_mask = mask;
  const auto st = drydb::for_each_encoded_key(with_null, KeyEncoding::int64(), collect);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().message, "key column 'id' (int32), row 1: no key (null)");
  EXPECT_TRUE(seen.empty());
}

}  // namespace
