// Column lists (TableBuilder::set_columns, format 2.3): the list and the key's position come back
// from the file exactly, announced by required feature bit 3 only when some table has one; values
// are the rows as appended; set_columns refuses bad lists and append refuses every value that is
// not one well-formed MessagePack array of at most as many fields as columns (every marker kind,
// truncations, hostile counts); verify() finds a stored row that is not (behind a valid
// checksum), while queries still answer; a catalog whose list is malformed fails open.
#include <gtest/gtest.h>

#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "drydb/detail/catalog.h"
#include "drydb/detail/format.h"
#include "drydb/drydb.h"
#include "support/checksums.h"

namespace {

namespace fmt = drydb::detail;
using drydb::errc;
using drydb::Key;
using drydb::KeyEncoding;
using drydb::ReadOnlyDatabase;

// MessagePack written by hand: this suite checks the library's own reading of it.
std::string str(std::string_view s) {
  EXPECT_LT(s.size(), 32u);
  return std::string(1, static_cast<char>(0xa0 | s.size())) + std::string(s);
}
const std::string kNil = "\xc0";
std::string array(const std::vector<std::string>& fields) {
  EXPECT_LT(fields.size(), 16u);
  std::string out(1, static_cast<char>(0x90 | fields.size()));
  for (const auto& f : fields)
    out += f;
  return out;
}

// The header's required features but the file identity, which every file of this builder has.
uint32_t required_features(std::span<const std::byte> file) {
  return fmt::load_u32(file.data() + fmt::header::kRequiredFeaturesOff) &
         ~fmt::kFeatureFileIdentity;
}

std::vector<std::byte> build_people() {
  drydb::DatabaseBuilder b(drydb::BuildOptions{.page_size = 512});
  auto& people = b.create_table("people");
  people.set_columns({"id", "name", "score"}, 0);
  people.append("17", array({kNil, str("Ada"), str("9.5")}));
  people.append("18", array({str("0018"), str("Bob")}));  // the key column as written; no score
  people.append("19", array({}));
  auto& ids = b.create_table("ids", KeyEncoding::int64());
  ids.set_columns({"a", "id"}, 1);
  ids.append(int64_t{-5}, array({str("x"), kNil}));
  b.create_table("plain").append("k", "not a row");
  auto& listed_empty = b.create_table("listed_empty");
  listed_empty.set_columns({"only"});
  auto file = b.build_to_memory();
  EXPECT_TRUE(file) << file.error().to_string();
  return file ? std::move(*file) : std::vector<std::byte>();
}

TEST(ColumnList, TheListAndTheKeyColumnComeBackFromTheFile) {
  const auto file = build_people();
  ASSERT_FALSE(file.empty());
  EXPECT_EQ(required_features(file) & fmt::kFeatureColumnLists, fmt::kFeatureColumnLists);
  EXPECT_EQ(fmt::load_u16(file.data() + fmt::header::kMinorOff), fmt::kFormatMinor);
  auto db = ReadOnlyDatabase::open_memory(file);
  ASSERT_TRUE(db) << db.error().to_string();
  ASSERT_TRUE(db->verify()) << db->verify().error().to_string();

  auto people = db->table("people");
  ASSERT_TRUE(people);
  EXPECT_EQ(std::vector<std::string>(people->columns().begin(), people->columns().end()),
            (std::vector<std::string>{"id", "name", "score"}));
  EXPECT_EQ(people->key_column(), std::optional<uint32_t>(0));
  // Values are the rows as appended.
  EXPECT_EQ(people->get("17")->str(), array({kNil, str("Ada"), str("9.5")}));
  EXPECT_EQ(people->get("18")->str(), array({str("0018"), str("Bob")}));
  EXPECT_EQ(people->get("19")->str(), array({}));

  auto ids = db->table("ids");
  ASSERT_TRUE(ids);
  EXPECT_EQ(ids->columns().size(), 2u);
  EXPECT_EQ(ids->key_column(), std::optional<uint32_t>(1));
  EXPECT_EQ(ids->encoding().column_text((*ids->cursor().begin()).key), "-5");

  auto plain = db->table("plain");
  ASSERT_TRUE(plain);
  EXPECT_TRUE(plain->columns().empty());
  EXPECT_EQ(plain->key_column(), std::nullopt);

  auto listed_empty = db->table("listed_empty");
  ASSERT_TRUE(listed_empty);
  EXPECT_EQ(listed_empty->count(), 0u);
  ASSERT_EQ(listed_empty->columns().size(), 1u);
  EXPECT_EQ(listed_empty->columns()[0], "only");
  EXPECT_EQ(listed_empty->key_column(), std::nullopt);
}

TEST(ColumnList, ColumnTextIsTheKeyAsARowHoldsIt) {
  const std::string raw("a\0\xff", 3);
  EXPECT_EQ(KeyEncoding::bytes().column_text(std::as_bytes(std::span(raw))), raw);
  std::byte k[8];
  drydb::encode_int64_key(-42, k);
  EXPECT_EQ(KeyEncoding::int64().column_text(k), "-42");
}

TEST(ColumnList, AFileWithoutListsDoesNotAnnounceThem) {
  drydb::DatabaseBuilder b(drydb::BuildOptions{.page_size = 512});
  b.create_table("t").append("k", array({str("v")}));
  auto file = b.build_to_memory();
  ASSERT_TRUE(file);
  EXPECT_EQ(required_features(*file) & fmt::kFeatureColumnLists, 0u);
}

// The build's error after `declare` on a fresh table, or nullopt when it builds.
template <class Declare>
std::optional<drydb::Error> build_error(Declare declare) {
  drydb::DatabaseBuilder b(drydb::BuildOptions{.page_size = 512});
  auto& t = b.create_table("t");
  declare(t);
  auto file = b.build_to_memory();
  if (file) return std::nullopt;
  return file.error();
}

TEST(ColumnList, SetColumnsRefusesBadLists) {
  struct Case {
    const char* what;
    std::vector<std::string> names;
    std::optional<uint32_t> key_column;
    errc code;
  };
  const std::vector<Case> cases = {
      {"no columns", {}, std::nullopt, errc::invalid_argument},
      {"an empty name", {"a", ""}, std::nullopt, errc::invalid_argument},
      {"a name over 255 bytes", {std::string(256, 'n')}, std::nullopt, errc::invalid_argument},
      {"a name twice", {"a", "b", "a"}, std::nullopt, errc::duplicate_name},
      {"a key column outside", {"a", "b"}, 2, errc::invalid_argument},
      {"65,535 columns", std::vector<std::string>(fmt::kMaxColumns), std::nullopt,
       errc::invalid_argument},
  };
  for (const Case& c : cases) {
    auto err = build_error([&](drydb::TableBuilder& t) { t.set_columns(c.names, c.key_column); });
    ASSERT_TRUE(err) << c.what;
    EXPECT_EQ(err->code, c.code) << c.what << ": " << err->to_string();
  }
  auto late = build_error([](drydb::TableBuilder& t) {
    t.append("k", array({}));
    t.set_columns({"a"});
  });
  ASSERT_TRUE(late);
  EXPECT_EQ(late->code, errc::invalid_argument) << late->to_string();
  // 255 bytes is the longest name; 65,534 the most columns.
  std::vector<std::string> many(fmt::kMaxColumns - 1);
  for (size_t i = 0; i < many.size(); ++i)
    many[i] = std::to_string(i);
  EXPECT_FALSE(build_error([&](drydb::TableBuilder& t) {
    t.set_columns({std::string(255, 'n')});
    t.append("k", array({str("v")}));
  }));
  drydb::DatabaseBuilder b(drydb::BuildOptions{.page_size = 512});
  b.create_table("t").set_columns(many, 65'533).append("k", array({}));
  auto file = b.build_to_memory();
  ASSERT_TRUE(file) << file.error().to_string();
  auto db = ReadOnlyDatabase::open_memory(*file);
  ASSERT_TRUE(db) << db.error().to_string();
  EXPECT_EQ(db->table("t")->columns().size(), many.size());
  EXPECT_EQ(db->table("t")->columns().back(), "65533");
  EXPECT_EQ(db->table("t")->key_column(), std::optional<uint32_t>(65'533));
}

// Every kind of MessagePack object, well formed: a row holding all of them is taken.
std::vector<std::string> every_kind() {
  using namespace std::string_literals;
  return {
      "\xc0"s,
      "\xc2"s,
      "\xc3"s,
      "\x05"s,
      "\xe0"s,  // nil, bools, fixints
      "\xcc\xff"s,
      "\xcd\x01\x00"s,
      "\xce\x00\x01\x00\x00"s,  // uint 8/16/32
      "\xcf"s + std::string(8, '\x01'),
      "\xd0\x80"s,
      "\xd1\x80\x00"s,  // uint 64, int 8/16
      "\xd2"s + std::string(4, '\x01'),
      "\xd3"s + std::string(8, '\x01'),
      "\xca"s + std::string(4, '\0'),
      "\xcb"s + std::string(8, '\0'),  // floats
      "\xa3"
      "abc"s,
      "\xd9\x02"
      "ab"s,
      "\xda\x00\x01"
      "a"s,
      "\xdb\x00\x00\x00\x01"
      "a"s,
      "\xc4\x01\x00"s,
      "\xc5\x00\x02\x00\x00"s,
      "\xc6\x00\x00\x00\x00"s,  // bin 8/16/32
      "\xc7\x01\x05\x00"s,
      "\xc8\x00\x00\x05"s,
      "\xc9\x00\x00\x00\x01\x05\x00"s,  // ext 8/16/32
      "\xd4\x01\x00"s,
      "\xd5\x01" + std::string(2, 'x'),
      "\xd6\x01" + std::string(4, 'x'),
      "\xd7\x01" + std::string(8, 'x'),
      "\xd8\x01" + std::string(16, 'x'),  // fixext
      "\x92\x01\x91\x90"s,
      "\x81\xa1k\x80"s,  // nested array, map
      "\xdc\x00\x01\x01"s,
      "\xdd\x00\x00\x00\x01\x01"s,  // array 16/32
      "\xde\x00\x01\x01\x02"s,
      "\xdf\x00\x00\x00\x01\x01\x02"s,  // map 16/32
  };
}

std::string array16(const std::vector<std::string>& fields) {
  std::string out = "\xdc";
  out += static_cast<char>(fields.size() >> 8);
  out += static_cast<char>(fields.size() & 0xff);
  for (const auto& f : fields)
    out += f;
  return out;
}

TEST(ColumnList, AppendTakesRowsOfEveryKindOfField) {
  const auto kinds = every_kind();
  std::vector<std::string> names;
  for (size_t i = 0; i < kinds.size(); ++i)
    names.push_back("c" + std::to_string(i));
  drydb::DatabaseBuilder b(drydb::BuildOptions{.page_size = 512});
  auto& t = b.create_table("t");
  t.set_columns(names);
  t.append("all", array16(kinds));
  t.append("fewer", array16({kinds.begin(), kinds.begin() + 3}));
  auto file = b.build_to_memory();
  ASSERT_TRUE(file) << file.error().to_string();
  auto db = ReadOnlyDatabase::open_memory(*file);
  ASSERT_TRUE(db);
  EXPECT_TRUE(db->verify()) << db->verify().error().to_string();
  EXPECT_EQ(db->table("t")->get("all")->str(), array16(kinds));
}

TEST(ColumnList, AppendRefusesValuesThatAreNotRowsOfTheColumns) {
  using namespace std::string_literals;
  const std::vector<std::pair<const char*, std::string>> bad = {
      {"empty", ""},
      {"a map", "\x81\xa1k\x01"s},
      {"a string", "\xa1x"s},
      {"nil", "\xc0"s},
      {"more fields than columns", array({str("a"), str("b"), str("c"), str("d")})},
      {"array 16 with its count cut", "\xdc\x00"s},
      {"array 32 claiming 2^32-1 fields", "\xdd\xff\xff\xff\xff\x01"s},
      {"a field cut short", array({"\xa5"
                                   "ab"s})},
      {"a str 32 longer than the value", array({"\xdb\x7f\xff\xff\xff"
                                                "a"s})},
      {"a map field missing its value", array({"\x81\x01"s})},
      {"a nested array cut short", array({"\x93\x01"s})},
      {"a fixext cut short", array({"\xd8\x01\x00"s})},
      {"an int 64 cut short", array({"\xd3\x00\x00"s})},
      {"the unused marker 0xc1", array({"\xc1"s})},
      {"bytes after the array", array({str("a")}) + "\x00"s},
      {"two arrays", array({}) + array({})},
  };
  for (const auto& [what, bytes] : bad) {
    const std::string& value = bytes;  // (a lambda may not capture a structured binding in C++20)
    auto err = build_error([&](drydb::TableBuilder& t) {
      t.set_columns({"a", "b", "c"}, 0);
      t.append("k", value);
    });
    ASSERT_TRUE(err) << what;
    EXPECT_EQ(err->code, errc::invalid_argument) << what << ": " << err->to_string();
    EXPECT_NE(err->message.find("column list"), std::string::npos) << err->message;
  }
}

TEST(ColumnList, VerifyFindsAStoredValueThatIsNotARow) {
  using namespace std::string_literals;
  drydb::DatabaseBuilder b(drydb::BuildOptions{.page_size = 512});
  auto& t = b.create_table("t");
  t.set_columns({"a", "b", "c"});
  for (int i = 0; i < 40; ++i)
    t.append("key" + std::to_string(100 + i), array({str("v" + std::to_string(i)), kNil}));
  // A value over the inline limit, kept in an overflow run, is checked too.
  const std::string long_row = "\x91\xdb\x00\x00\x02\x58"s + std::string(600, 'x');
  t.append("long", long_row);
  auto built = b.build_to_memory();
  ASSERT_TRUE(built) << built.error().to_string();
  const std::vector<std::byte> file = std::move(*built);
  auto find = [&](const std::string& needle) {
    const auto* begin = reinterpret_cast<const char*>(file.data());
    const std::string_view all(begin, file.size());
    const size_t at = all.find(needle);
    EXPECT_NE(at, std::string_view::npos);
    EXPECT_EQ(all.find(needle, at + 1), std::string_view::npos);
    return at;
  };
  struct Case {
    const char* key;
    size_t offset;
    std::byte now;
    const char* problem;
  };
  const Case cases[] = {
      {"key107", find(array({str("v7"), kNil})), std::byte{0x82}, "not a MessagePack array"},
      {"long", find(long_row.substr(0, 8)), std::byte{0x92}, "cut short"},
  };
  for (const Case& c : cases) {
    std::vector<std::byte> copy = file;
    copy[c.offset] = c.now;
    drydb_test::fix_all_checksums(copy);
    auto db = ReadOnlyDatabase::open_memory(copy);
    ASSERT_TRUE(db) << db.error().to_string();
    // Queries answer with the bytes stored; verify() finds the row.
    auto v = db->table("t")->get(c.key);
    ASSERT_TRUE(v && v->has_value()) << c.key;
    EXPECT_EQ(v->bytes()[0], c.now);
    auto checked = db->verify();
    ASSERT_FALSE(checked) << c.key;
    EXPECT_EQ(checked.code(), errc::corruption);
    EXPECT_NE(checked.error().message.find(std::string("'") + c.key + "'"), std::string::npos)
        << checked.error().message;
    EXPECT_NE(checked.error().message.find(c.problem), std::string::npos)
        << checked.error().message;
  }
  // Untouched, the file verifies.
  auto db = ReadOnlyDatabase::open_memory(file);
  ASSERT_TRUE(db);
  EXPECT_TRUE(db->verify()) << db->verify().error().to_string();
}

// `file` with its catalog replaced by `catalog` and its header's features by `features`.
std::vector<std::byte> with_catalog(std::vector<std::byte> file, const fmt::Catalog& catalog,
                                    uint32_t features) {
  const uint64_t ps = fmt::load_u32(file.data() + fmt::header::kPageSizeOff);
  const uint64_t pages = fmt::load_u64(file.data() + fmt::header::kPageCountOff);
  const std::vector<std::byte> cat = fmt::encode_catalog(catalog);
  file.resize(pages * ps);
  file.insert(file.end(), cat.begin(), cat.end());
  fmt::store_u64(file.data() + fmt::header::kFileLengthOff, file.size());
  fmt::store_u64(file.data() + fmt::header::kCatalogLengthOff, cat.size());
  fmt::store_u32(file.data() + fmt::header::kRequiredFeaturesOff, features);
  drydb_test::fix_catalog_checksum(file);
  return file;
}

TEST(ColumnList, MalformedListsInTheCatalogFailOpen) {
  const std::vector<std::byte> file = build_people();
  ASSERT_FALSE(file.empty());
  const uint64_t ps = fmt::load_u32(file.data() + fmt::header::kPageSizeOff);
  const uint64_t pages = fmt::load_u64(file.data() + fmt::header::kPageCountOff);
  const uint32_t features = fmt::load_u32(file.data() + fmt::header::kRequiredFeaturesOff);
  auto decoded = fmt::decode_catalog(std::span(file).subspan(pages * ps), uint32_t(ps), pages,
                                     fmt::header::kSize, pages * ps, features);
  ASSERT_TRUE(decoded) << decoded.error().to_string();
  const fmt::Catalog good = *decoded;
  {  // Re-encoded as it is, it opens: the splice itself is sound.
    auto db = ReadOnlyDatabase::open_memory(with_catalog(file, good, features));
    ASSERT_TRUE(db) << db.error().to_string();
    EXPECT_EQ(db->table("people")->key_column(), std::optional<uint32_t>(0));
  }
  struct Case {
    const char* what;
    void (*change)(fmt::Catalog&);
    uint32_t features_off = 0;
  };
  const Case cases[] = {
      {"a key column outside the list",
       [](fmt::Catalog& c) { c.tables[0].columns.key_column = 3; }},
      {"a name twice", [](fmt::Catalog& c) { c.tables[0].columns.names[2] = "id"; }},
      {"an empty name", [](fmt::Catalog& c) { c.tables[0].columns.names[1].clear(); }},
      {"a name over 255 bytes",
       [](fmt::Catalog& c) { c.tables[0].columns.names[1] = std::string(256, 'n'); }},
      {"no lists under the feature bit",
       [](fmt::Catalog& c) {
         for (auto& t : c.tables)
           t.columns = {};
       }},
      {"lists without the feature bit", [](fmt::Catalog&) {}, fmt::kFeatureColumnLists},
  };
  for (const Case& c : cases) {
    fmt::Catalog changed = good;
    c.change(changed);
    // encode_catalog writes lists only when some table has one; force the bytes when the
    // case removes them all but keeps the bit.
    std::vector<std::byte> bad = with_catalog(file, changed, features & ~c.features_off);
    if (!changed.has_column_lists()) {
      const std::vector<std::byte> zeros(2 * changed.tables.size());  // every count 0
      bad.insert(bad.end(), zeros.begin(), zeros.end());
      fmt::store_u64(bad.data() + fmt::header::kFileLengthOff, bad.size());
      fmt::store_u64(bad.data() + fmt::header::kCatalogLengthOff, bad.size() - pages * ps);
      drydb_test::fix_catalog_checksum(bad);
    }
    auto db = ReadOnlyDatabase::open_memory(bad);
    ASSERT_FALSE(db) << c.what;
    EXPECT_EQ(db.code(), errc::corruption) << c.what << ": " << db.error().to_string();
  }
  {  // 65,535 columns: one more than a list may have (0xFFFF is "no key column").
    fmt::Catalog changed = good;
    changed.tables[0].columns.names.resize(fmt::kMaxColumns);
    for (size_t i = 3; i < changed.tables[0].columns.names.size(); ++i)
      changed.tables[0].columns.names[i] = "c" + std::to_string(i);
    auto db = ReadOnlyDatabase::open_memory(with_catalog(file, changed, features));
    ASSERT_FALSE(db);
    EXPECT_EQ(db.code(), errc::corruption) << db.error().to_string();
  }
  // Every cut of the list's bytes: the catalog's checksum fixed, open fails cleanly.
  const std::vector<std::byte> whole = with_catalog(file, good, features);
  const uint64_t cat_len = fmt::load_u64(whole.data() + fmt::header::kCatalogLengthOff);
  for (uint64_t cut = 1; cut < 40; ++cut) {
    std::vector<std::byte> copy(whole.begin(), whole.end() - cut);
    fmt::store_u64(copy.data() + fmt::header::kFileLengthOff, copy.size());
    fmt::store_u64(copy.data() + fmt::header::kCatalogLengthOff, cat_len - cut);
    drydb_test::fix_catalog_checksum(copy);
    auto db = ReadOnlyDatabase::open_memory(copy);
    ASSERT_FALSE(db) << cut;
    EXPECT_EQ(db.code(), errc::corruption) << cut << ": " << db.error().to_string();
  }
}

// Column lists after the page directory of a filtered file and the miss filter descriptors: the
// catalog's last parts, each sized by what comes before it.
TEST(ColumnList, FollowTheDirectoryAndTheMissFilters) {
  drydb::DatabaseBuilder b(
      drydb::BuildOptions{.page_size = 512, .filters = {drydb::filters::lz4()}});
  auto& t = b.create_table("t", KeyEncoding::int64());
  t.set_columns({"id", "v"}, 0);
  for (int64_t i = 0; i < 300; ++i)
    t.append(i, array({kNil, str("v" + std::to_string(i % 10))}));
  t.add_miss_filter(10);
  b.create_table("plain").append("k", "v");
  auto file = b.build_to_memory();
  ASSERT_TRUE(file) << file.error().to_string();
  EXPECT_EQ(required_features(*file),
            fmt::kFeatureFilteredPages | fmt::kFeatureMissFilters | fmt::kFeatureColumnLists);
  auto db = ReadOnlyDatabase::open_memory(*file);
  ASSERT_TRUE(db) << db.error().to_string();
  EXPECT_TRUE(db->verify()) << db->verify().error().to_string();
  EXPECT_EQ(db->table("t")->columns().size(), 2u);
  EXPECT_EQ(db->table("t")->info().miss_filter_bits_per_key, 10u);
  EXPECT_TRUE(db->table("plain")->columns().empty());
  EXPECT_EQ(db->table("t")->get(int64_t{17})->str(), array({kNil, str("v7")}));
  EXPECT_FALSE(db->table("t")->get(int64_t{1000})->has_value());
}

}  // namespace
