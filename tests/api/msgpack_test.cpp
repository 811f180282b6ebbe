// MessagePack typed tables (drydb/msgpack.h): round trips of plain and rich
// structs under bytes and int64 keys, typed get, ranges in both orders,
// prefixes, cursors, typed secondary indexes, and values that do not decode as
// the requested type (not MessagePack, truncated, trailing bytes, another
// shape, lying lengths, deep nesting), which must give a clear error and
// never a crash.

#include "drydb/msgpack.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "support/suite.h"

namespace {

using drydb::errc;
using drydb::KeyEncoding;
using drydb::ReadOnlyDatabase;
using drydb::SortOrder;
using drydb::unbounded;
using drydb_test::built_bytes;
using drydb_test::describe;

struct Person {
  std::string name;
  int age = 0;
  MSGPACK_DEFINE(name, age)
  bool operator==(const Person&) const = default;
};

struct Address {
  std::string city;
  std::string street;
  MSGPACK_DEFINE_MAP(city, street)  // a map keyed by field name
  bool operator==(const Address&) const = default;
};

// Every kind of field a game's master data has: containers, optional (nil)
// fields, nested structs (as an array and as a map), binary and floats.
struct Character {
  std::string name;
  int64_t level = 0;
  std::vector<std::string> tags;
  std::map<std::string, int64_t> stats;
  std::optional<std::string> title;  // nil when absent
  std::optional<Address> home;
  Address birthplace;
  std::vector<Person> party;
  std::vector<char> portrait;  // MessagePack bin
  double speed = 0;
  bool playable = false;
  MSGPACK_DEFINE(name, level, tags, stats, title, home, birthplace, party, portrait, speed,
                 playable)
  bool operator==(const Character&) const = default;
};

bool is(std::error_code code, errc e) {
  return &code.category() == &drydb::error_category() && code.value() == static_cast<int>(e);
}

std::string str(std::span<const std::byte> b) {
  return drydb_test::to_string(b);
}

template <class T>
std::string packed(const T& v) {
  msgpack::sbuffer buf;
  msgpack::pack(buf, v);
  return std::string(buf.data(), buf.size());
}

// A database held in memory with the tables a test built.
struct Db {
  std::vector<std::byte> bytes;
  ReadOnlyDatabase db;

  static Db open(drydb::DatabaseBuilder& b) {
    auto bytes = built_bytes(b.build_to_memory());
    auto db = ReadOnlyDatabase::open_memory(bytes);
    if (!db) ADD_FAILURE() << describe(db.error());
    return Db{std::move(bytes), std::move(db).value()};
  }
  template <class T>
  drydb::MsgpackTable<T> table(std::string_view name) const {
    return drydb::as_msgpack<T>(db.table(name).value());
  }
};

const std::vector<std::pair<std::string, Person>> kPeople = {
    {"key01", {"Bob", 22}}, {"key02", {"Tom", 34}}, {"key03", {"Ann", 22}}, {"key04", {"Eve", 41}},
    {"key05", {"Tim", 34}}, {"key06", {"Amy", 29}}, {"key07", {"Joe", 22}}, {"other", {"Zed", 99}},
};

// People in a table "people" (appended in reverse order: the builder sorts)
// with a non-unique "age" index, a unique "name" index and a sparse "adult"
// index of the people over 30, keyed by primary key.
Db people_db(uint32_t page_size = 4096) {
  drydb::DatabaseBuilder b({.page_size = page_size});
  auto people = drydb::as_msgpack<Person>(b.create_table("people"));
  for (auto it = kPeople.rbegin(); it != kPeople.rend(); ++it)
    people.append(it->first, it->second);
  people.add_secondary_index("age", false, KeyEncoding::int64(),
                             [](const Person& p) { return p.age; });
  people.add_secondary_index("name", true, KeyEncoding::bytes(),
                             [](const Person& p) { return p.name; });
  people.add_secondary_index(
      "adult", false, KeyEncoding::bytes(),
      [](std::span<const std::byte> key, const Person& p) -> std::optional<drydb::IndexKey> {
        if (p.age <= 30) return std::nullopt;
        return drydb::IndexKey(key);
      });
  EXPECT_TRUE(people.status()) << describe(people.status().error());
  return Db::open(b);
}

template <class R>
std::vector<std::pair<std::string, Person>> rows_of(R&& range) {
  std::vector<std::pair<std::string, Person>> out;
  for (auto [key, person] : range)
    out.emplace_back(str(key), person);
  EXPECT_TRUE(range.status()) << describe(range.status().error());
  return out;
}

std::vector<std::pair<std::string, Person>> people_where(bool (*keep)(const std::string&,
                                                                      const Person&)) {
  std::vector<std::pair<std::string, Person>> out;
  for (const auto& [k, p] : kPeople)
    if (keep(k, p)) out.emplace_back(k, p);
  return out;
}

template <class V>
V reversed(V v) {
  std::reverse(v.begin(), v.end());
  return v;
}

// ---- round trips -------------------------------------------------------------------------------

TEST(MsgpackTable, PersonGetFoundAndMissing) {
  Db d = people_db();
  auto people = d.table<Person>("people");
  EXPECT_EQ(people.name(), "people");
  EXPECT_EQ(people.count(), kPeople.size());
  for (const auto& [key, person] : kPeople) {
    auto got = people.get(key);
    ASSERT_TRUE(got) << describe(got.error());
    ASSERT_TRUE(got->has_value()) << key;
    EXPECT_EQ(**got, person);
  }
  auto missing = people.get("key00");
  ASSERT_TRUE(missing) << describe(missing.error());
  EXPECT_FALSE(missing->has_value());
  // The values are plain MessagePack: the untyped table reads the same bytes.
  auto raw = people.untyped().get("key01");
  ASSERT_TRUE(raw && raw->has_value());
  EXPECT_EQ(raw->str(), packed(Person{"Bob", 22}));
  auto decoded = drydb::from_msgpack<Person>(raw->bytes());
  ASSERT_TRUE(decoded) << describe(decoded.error());
  EXPECT_EQ(*decoded, (Person{"Bob", 22}));
}

TEST(MsgpackTable, KeyErrorsPassThrough) {
  Db d = people_db();
  auto people = d.table<Person>("people");
  auto wrong = people.get(int64_t{1});
  ASSERT_FALSE(wrong);
  EXPECT_TRUE(is(wrong.code(), errc::wrong_key_type)) << describe(wrong.error());
  auto no_index = people.index("height");
  ASSERT_FALSE(no_index);
  EXPECT_TRUE(is(no_index.code(), errc::not_found)) << describe(no_index.error());
  auto backwards = people.get_range("key05", "key01");
  ASSERT_FALSE(backwards);
  EXPECT_TRUE(is(backwards.code(), errc::invalid_argument));
}

Character make_character(int64_t i) {
  const auto mod = [i](int64_t m) { return (i % m + m) % m; };  // 0..m-1 for negative i too
  Character c;
  c.name = "hero" + std::to_string(i);
  c.level = i * 1000003;
  for (int64_t t = 0; t < mod(4); ++t)
    c.tags.push_back("tag" + std::to_string(t));
  if (mod(3) != 0) c.stats = {{"hp", 100 + i}, {"mp", -i}, {"str", i * i}};
  if (mod(2) == 0) c.title = "the " + std::to_string(i) + "th";
  if (mod(5) != 0) c.home = Address{"city" + std::to_string(i), std::string(mod(7), 's')};
  c.birthplace = Address{"", std::string("street\0with nul", 15) + std::to_string(i)};
  for (int64_t p = 0; p < mod(3); ++p)
    c.party.push_back({"member" + std::to_string(p), static_cast<int>(p + i)});
  for (int64_t b = 0; b < mod(4) * 5; ++b)
    c.portrait.push_back(static_cast<char>(b * 37 + i));  // every byte value, 0x00 and 0xff too
  c.speed = static_cast<double>(i) / 3;
  c.playable = mod(2) == 1;
  return c;
}

TEST(MsgpackTable, RichStructUnderInt64Keys) {
  drydb::DatabaseBuilder b({.page_size = 512});  // small pages: several levels
  auto characters =
      drydb::as_msgpack<Character>(b.create_table("characters", KeyEncoding::int64()));
  for (int64_t i = -150; i <= 150; ++i)
    characters.append(i * 7, make_character(i));
  Db d = Db::open(b);
  auto table = d.table<Character>("characters");
  for (int64_t i = -150; i <= 150; ++i) {
    auto got = table.get(i * 7);
    ASSERT_TRUE(got) << describe(got.error());
    ASSERT_TRUE(got->has_value());
    EXPECT_EQ(**got, make_character(i)) << i;
  }
  auto missing = table.get(int64_t{1});
  ASSERT_TRUE(missing);
  EXPECT_FALSE(missing->has_value());

  // The keys the range yields are encoded int64 keys, in numeric order.
  auto range = table.get_range(-21, 14);
  ASSERT_TRUE(range) << describe(range.error());
  EXPECT_EQ(range->size(), 6u);
  int64_t expect = -3;
  for (auto [key, c] : *range) {
    EXPECT_EQ(drydb_test::int64_of(str(key)), expect * 7);
    EXPECT_EQ(c, make_character(expect));
    ++expect;
  }
  EXPECT_EQ(expect, 3);
  EXPECT_TRUE(range->status());
}

TEST(MsgpackTable, BinaryBytesKeys) {
  drydb::DatabaseBuilder b;
  auto t = drydb::as_msgpack<std::vector<int>>(b.create_table("vectors"));
  const std::vector<std::string> keys = {std::string("\0", 1), std::string("\0\xff", 2), "\xff",
                                         std::string("a\0b", 3)};
  for (size_t i = 0; i < keys.size(); ++i)
    t.append(drydb_test::as_bytes(keys[i]), std::vector<int>(i, static_cast<int>(i)));
  Db d = Db::open(b);
  auto table = d.table<std::vector<int>>("vectors");
  for (size_t i = 0; i < keys.size(); ++i) {
    auto got = table.get(drydb_test::as_bytes(keys[i]));
    ASSERT_TRUE(got && got->has_value());
    EXPECT_EQ(**got, std::vector<int>(i, static_cast<int>(i)));
  }
  std::vector<std::string> seen;
  for (auto [key, v] : *table.get_range(unbounded, unbounded))
    seen.push_back(str(key));
  EXPECT_EQ(seen, (std::vector<std::string>{std::string("\0", 1), std::string("\0\xff", 2),
                                            std::string("a\0b", 3), "\xff"}));
}

TEST(MsgpackTable, OverflowValues) {
  drydb::DatabaseBuilder b({.page_size = 512});
  auto t = drydb::as_msgpack<Person>(b.create_table("big"));
  for (int i = 0; i < 40; ++i)
    t.append("k" + std::to_string(100 + i), Person{std::string(300 + i * 97, 'a' + i % 26), i});
  t.add_secondary_index("age", true, KeyEncoding::int64(), [](const Person& p) { return p.age; });
  Db d = Db::open(b);
  auto table = d.table<Person>("big");
  int i = 0;
  for (auto [key, p] : *table.get_range(unbounded, unbounded)) {
    EXPECT_EQ(p, (Person{std::string(300 + i * 97, 'a' + i % 26), i}));
    ++i;
  }
  EXPECT_EQ(i, 40);
  auto by_age = table.index("age").value();
  i = 39;
  for (auto [key, p] : *by_age.get_range(unbounded, unbounded, {.order = SortOrder::descending})) {
    EXPECT_EQ(str(key), "k" + std::to_string(100 + i));
    EXPECT_EQ(p.age, i);
    EXPECT_EQ(p.name.size(), 300u + i * 97);
    --i;
  }
  EXPECT_EQ(i, -1);
}

// A failed page read is reported as such, not as a value that did not decode.
TEST(MsgpackTable, ReadErrorsStayReadErrors) {
  const auto key_of = [](int i) {
    char k[8];
    std::snprintf(k, sizeof k, "k%04d", i);
    return std::string(k);
  };
  drydb::DatabaseBuilder b({.page_size = 512});
  auto t = drydb::as_msgpack<Person>(b.create_table("people"));
  for (int i = 0; i < 300; ++i)
    t.append(key_of(i), Person{std::string(40, static_cast<char>('a' + i % 26)), i});
  const auto bytes = built_bytes(b.build_to_memory());
  auto storage = std::make_unique<drydb_test::MemoryStorage>(bytes);
  auto* reads = storage.get();
  auto db = ReadOnlyDatabase::open_storage(std::move(storage), {.page_cache_bytes = 4 * 512});
  ASSERT_TRUE(db) << describe(db.error());
  auto table = drydb::as_msgpack<Person>(db->table("people").value());
  reads->fail_every = 7;
  int in_iteration = 0;  // read failures met while iterating, the case to check
  for (int round = 0; round < 20; ++round) {
    auto range = table.get_range(unbounded, unbounded);
    if (!range) {
      EXPECT_TRUE(is(range.code(), errc::io_error)) << describe(range.error());
    } else {
      int i = 0;
      for (auto [key, p] : *range) {
        EXPECT_EQ(str(key), key_of(i));
        EXPECT_EQ(p.age, i);
        ++i;
      }
      if (!range->status()) {
        EXPECT_TRUE(is(range->status().code(), errc::io_error))
            << describe(range->status().error());
        ++in_iteration;
      } else {
        EXPECT_EQ(i, 300);
      }
    }
    auto got = table.get(key_of(round * 13));
    if (got) {
      EXPECT_EQ((*got)->age, round * 13);
    } else {
      EXPECT_TRUE(is(got.code(), errc::io_error)) << describe(got.error());
    }
  }
  EXPECT_GT(in_iteration, 0);
}

// ---- ranges, prefixes, cursors -----------------------------------------------------------------

TEST(MsgpackTable, RangesInBothOrders) {
  for (uint32_t page_size : {512u, 4096u}) {
    Db d = people_db(page_size);
    auto people = d.table<Person>("people");
    const auto key02_to_05 = people_where(
        [](const std::string& k, const Person&) { return k >= "key02" && k <= "key05"; });
    EXPECT_EQ(rows_of(*people.get_range("key02", "key05")), key02_to_05);
    EXPECT_EQ(rows_of(*people.get_range("key02", "key05", {.order = SortOrder::descending})),
              reversed(key02_to_05));
    const auto exclusive = people_where(
        [](const std::string& k, const Person&) { return k > "key02" && k < "key05"; });
    EXPECT_EQ(rows_of(*people.get_range("key02", "key05",
                                        {.start_exclusive = true, .end_exclusive = true})),
              exclusive);
    EXPECT_EQ(
        rows_of(*people.get_range(
            "key02", "key05",
            {.start_exclusive = true, .end_exclusive = true, .order = SortOrder::descending})),
        reversed(exclusive));
    EXPECT_EQ(rows_of(*people.get_range(unbounded, unbounded)), kPeople);
    EXPECT_EQ(rows_of(*people.get_range(unbounded, unbounded, {.order = SortOrder::descending})),
              reversed(kPeople));
    EXPECT_TRUE(rows_of(*people.get_range("key08", "key09")).empty());
    EXPECT_EQ(*people.count_range("key02", "key05"), 4u);

    // size() is known up front; iterating again starts over.
    auto range = people.get_range("key06", unbounded).value();
    EXPECT_EQ(range.size(), 3u);
    EXPECT_EQ(range.order(), SortOrder::ascending);
    EXPECT_EQ(rows_of(range), rows_of(range));
  }
}

TEST(MsgpackTable, EntryValueMayBeMovedFrom) {
  Db d = people_db();
  auto people = d.table<Person>("people");
  std::vector<Person> out;
  for (auto [key, person] : *people.prefix("key"))
    out.push_back(std::move(person));
  ASSERT_EQ(out.size(), 7u);
  EXPECT_EQ(out[0], (Person{"Bob", 22}));
  EXPECT_EQ(out[6], (Person{"Joe", 22}));
}

TEST(MsgpackTable, Prefix) {
  Db d = people_db();
  auto people = d.table<Person>("people");
  const auto keys = people_where([](const std::string& k, const Person&) { return k[0] == 'k'; });
  EXPECT_EQ(rows_of(*people.prefix("key0")), keys);
  EXPECT_EQ(rows_of(*people.prefix("key0", SortOrder::descending)), reversed(keys));
  EXPECT_EQ(rows_of(*people.prefix("")), kPeople);
  EXPECT_TRUE(rows_of(*people.prefix("nobody")).empty());
  for (auto entry : *people.prefix("oth")) {
    EXPECT_EQ(entry.key_str(), "other");
    EXPECT_EQ(entry.value, (Person{"Zed", 99}));
  }
}

TEST(MsgpackTable, Cursor) {
  Db d = people_db(512);
  auto people = d.table<Person>("people");
  auto c = people.cursor();
  EXPECT_FALSE(c.valid());
  auto unpositioned = c.value();
  ASSERT_FALSE(unpositioned);
  EXPECT_TRUE(is(unpositioned.code(), errc::invalid_state));

  ASSERT_TRUE(c.seek("key035"));  // a lower bound: key04
  EXPECT_EQ(str(c.key()), "key04");
  EXPECT_EQ(*c.value(), (Person{"Eve", 41}));
  ASSERT_TRUE(c.next());
  EXPECT_EQ(*c.value(), (Person{"Tim", 34}));
  ASSERT_TRUE(c.prev());
  ASSERT_TRUE(c.prev());
  EXPECT_EQ(str(c.key()), "key03");
  EXPECT_FALSE(c.seek_exact("key035"));
  EXPECT_TRUE(c.seek_exact("key02"));
  EXPECT_EQ(c.rank(), 1u);
  EXPECT_EQ(c.value()->name, "Tom");
  ASSERT_TRUE(c.last());
  EXPECT_EQ(c.value()->name, "Zed");
  EXPECT_FALSE(c.next());

  // Range-for walks from the current row to the last.
  ASSERT_TRUE(c.seek("key06"));
  const auto tail = people_where([](const std::string& k, const Person&) { return k >= "key06"; });
  EXPECT_EQ(rows_of(c), tail);
  // ... and from the first row when unpositioned.
  auto all = people.cursor();
  EXPECT_EQ(rows_of(all), kPeople);
}

// ---- secondary indexes -------------------------------------------------------------------------

TEST(MsgpackIndex, NonUniqueAge) {
  Db d = people_db(512);
  auto by_age = d.table<Person>("people").index("age").value();
  EXPECT_EQ(by_age.name(), "age");
  EXPECT_FALSE(by_age.unique());
  EXPECT_EQ(by_age.count(), kPeople.size());

  auto first22 = by_age.get(22);  // the first in primary-key order
  ASSERT_TRUE(first22 && first22->has_value());
  EXPECT_EQ(**first22, (Person{"Bob", 22}));
  auto none = by_age.get(23);
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->has_value());

  const auto aged22 = people_where([](const std::string&, const Person& p) { return p.age == 22; });
  EXPECT_EQ(rows_of(*by_age.get_all(22)), aged22);
  EXPECT_TRUE(rows_of(*by_age.get_all(23)).empty());

  // Index-key order, then primary-key order; descending reverses both.
  const std::vector<std::pair<std::string, Person>> twenties_thirties = {
      {"key01", {"Bob", 22}}, {"key03", {"Ann", 22}}, {"key07", {"Joe", 22}},
      {"key06", {"Amy", 29}}, {"key02", {"Tom", 34}}, {"key05", {"Tim", 34}}};
  EXPECT_EQ(rows_of(*by_age.get_range(20, 39)), twenties_thirties);
  EXPECT_EQ(rows_of(*by_age.get_range(20, 39, {.order = SortOrder::descending})),
            reversed(twenties_thirties));
  EXPECT_EQ(rows_of(*by_age.get_range(22, 34, {.start_exclusive = true})),
            (std::vector<std::pair<std::string, Person>>{
                {"key06", {"Amy", 29}}, {"key02", {"Tom", 34}}, {"key05", {"Tim", 34}}}));
  EXPECT_EQ(*by_age.count_range(20, 39), 6u);
  EXPECT_EQ(*by_age.count_range(40, unbounded), 2u);

  // A typed index cursor: the entry's index key through untyped().
  auto c = by_age.cursor();
  ASSERT_TRUE(c.seek(30));
  EXPECT_EQ(str(c.key()), "key02");
  EXPECT_EQ(drydb_test::int64_of(str(c.untyped().index_key())), 34);
  EXPECT_EQ(c.value()->name, "Tom");
  ASSERT_TRUE(c.next());
  EXPECT_EQ(c.value()->name, "Tim");
  EXPECT_TRUE(c.seek_exact(41));
  EXPECT_EQ(c.value()->name, "Eve");
  std::vector<std::string> from_41;
  for (auto [key, person] : c)
    from_41.push_back(person.name);
  EXPECT_EQ(from_41, (std::vector<std::string>{"Eve", "Zed"}));
  EXPECT_TRUE(c.status());
}

TEST(MsgpackIndex, UniqueName) {
  Db d = people_db();
  auto by_name = d.table<Person>("people").index("name").value();
  EXPECT_TRUE(by_name.unique());
  auto tom = by_name.get("Tom");
  ASSERT_TRUE(tom && tom->has_value());
  EXPECT_EQ((*tom)->age, 34);
  auto nobody = by_name.get("Nobody");
  ASSERT_TRUE(nobody);
  EXPECT_FALSE(nobody->has_value());
  std::vector<std::string> t_names;
  for (auto [key, person] : *by_name.prefix("T"))
    t_names.push_back(person.name + "@" + str(key));
  EXPECT_EQ(t_names, (std::vector<std::string>{"Tim@key05", "Tom@key02"}));
  auto a_to_j = by_name.get_range("A", "J", {.order = SortOrder::descending});
  std::vector<std::string> names;
  for (auto [key, person] : *a_to_j)
    names.push_back(person.name);
  EXPECT_EQ(names, (std::vector<std::string>{"Eve", "Bob", "Ann", "Amy"}));
}

TEST(MsgpackIndex, SparseIndexGetsTheKey) {
  Db d = people_db();
  auto adults = d.table<Person>("people").index("adult").value();
  const auto over30 = people_where([](const std::string&, const Person& p) { return p.age > 30; });
  EXPECT_EQ(adults.count(), over30.size());
  EXPECT_EQ(rows_of(*adults.get_range(unbounded, unbounded)), over30);
  auto eve = adults.get("key04");
  ASSERT_TRUE(eve && eve->has_value());
  EXPECT_EQ((*eve)->name, "Eve");
  auto bob = adults.get("key01");  // 22: not in the index
  ASSERT_TRUE(bob);
  EXPECT_FALSE(bob->has_value());
}

TEST(MsgpackIndex, UniqueViolationFailsTheBuild) {
  drydb::DatabaseBuilder b;
  auto people = drydb::as_msgpack<Person>(b.create_table("people"));
  people.append("a", Person{"Bob", 1}).append("b", Person{"Bob", 2});
  people.add_secondary_index("name", true, KeyEncoding::bytes(),
                             [](const Person& p) { return p.name; });
  auto built = b.build_to_memory();
  ASSERT_FALSE(built);
  EXPECT_TRUE(is(built.code(), errc::duplicate_key)) << describe(built.error());
}

TEST(MsgpackIndex, FunctionsSeeEveryRowInKeyOrder) {
  drydb::DatabaseBuilder b;
  auto t = drydb::as_msgpack<Person>(b.create_table("people"));
  for (const auto& [k, p] : kPeople)
    t.append(k, p);
  int calls = 0;
  std::vector<std::string> seen;
  t.add_secondary_index("age", false, KeyEncoding::int64(), [&](const Person& p) {
    ++calls;
    return p.age;
  });
  t.add_secondary_index("name", true, KeyEncoding::bytes(),
                        [&](std::span<const std::byte> key, const Person& p) {
                          seen.push_back(str(key) + "=" + p.name);
                          return p.name;
                        });
  Db d = Db::open(b);
  EXPECT_EQ(calls, static_cast<int>(kPeople.size()));
  ASSERT_EQ(seen.size(), kPeople.size());
  EXPECT_EQ(seen.front(), "key01=Bob");  // primary-key order
  EXPECT_EQ(seen.back(), "other=Zed");
}

// ---- values that are not the requested type ----------------------------------------------------

// Values that are not a Person, each under its own key.
const std::vector<std::pair<std::string, std::string>>& bad_values() {
  static const auto* values = [] {
    auto* v = new std::vector<std::pair<std::string, std::string>>;
    v->emplace_back("bad:empty", "");
    v->emplace_back("bad:never-used-byte", "\xc1");  // 0xc1 is no MessagePack type
    v->emplace_back("bad:text", "hello world");      // the fixint 'h', then 10 more bytes
    v->emplace_back("bad:string", packed(std::string("Bob")));  // a str where an array is due
    v->emplace_back("bad:int-name", packed(std::make_tuple(42, 42)));  // [42, 42]
    v->emplace_back("bad:age-overflow", packed(std::make_tuple(std::string("Bob"), 1LL << 40)));
    v->emplace_back("bad:map", packed(std::map<std::string, int>{{"age", 1}}));
    const std::string whole = packed(Person{"Bartholomew", 22});
    v->emplace_back("bad:truncated", whole.substr(0, whole.size() - 3));
    v->emplace_back("bad:trailing", whole + "\x01");
    v->emplace_back("bad:two-objects", whole + whole);
    // Headers that claim more than the value holds: an array32 of 2^32-1
    // elements, a map32 of 2^32-1 entries, a str32 and a bin32 of 4 GiB.
    v->emplace_back("bad:huge-array", std::string("\xdd\xff\xff\xff\xff\x01", 6));
    v->emplace_back("bad:huge-map", std::string("\xdf\xff\xff\xff\xff\x01\x01", 7));
    v->emplace_back("bad:huge-str", std::string("\xdb\xff\xff\xff\xff"
                                                "abc",
                                                8));
    v->emplace_back("bad:huge-bin", std::string("\xc6\xff\xff\xff\xff"
                                                "abc",
                                                8));
    v->emplace_back("bad:short-array", std::string("\x93\xa3"
                                                   "Bob",
                                                   5));                 // 3 elements, 1 given
    v->emplace_back("bad:deep", std::string(100000, '\x91') + '\x90');  // [[[[...]]]]
    return v;
  }();
  return *values;
}

// A table "people" of good rows (key1..key4) and the bad values, all raw,
// with an index on the first byte of the primary key, built untyped.
Db mixed_db() {
  drydb::DatabaseBuilder b({.page_size = 512});
  auto& t = b.create_table("people");
  for (int i = 1; i <= 4; ++i)
    t.append("key" + std::to_string(i), packed(Person{"P" + std::to_string(i), i}));
  for (const auto& [k, v] : bad_values())
    t.append(k, v);
  t.add_secondary_index("initial", false, KeyEncoding::bytes(),
                        [](std::span<const std::byte> key, std::span<const std::byte>) {
                          return drydb::IndexKey(key.first(1));
                        });
  return Db::open(b);
}

void expect_decode_error(const drydb::Error& e, const std::string& key, std::string_view index) {
  EXPECT_TRUE(is(e.code, errc::corruption)) << describe(e);
  EXPECT_NE(e.message.find("table 'people'"), std::string::npos) << e.message;
  EXPECT_NE(e.message.find("key '" + key + "'"), std::string::npos) << e.message;
  if (!index.empty()) {
    EXPECT_NE(e.message.find("index '" + std::string(index) + "'"), std::string::npos) << e.message;
  }
}

TEST(MsgpackMalformed, GetGivesAClearError) {
  Db d = mixed_db();
  auto people = d.table<Person>("people");
  for (const auto& [key, value] : bad_values()) {
    SCOPED_TRACE(key);
    auto got = people.get(key);
    ASSERT_FALSE(got);
    expect_decode_error(got.error(), key, "");
    auto direct = drydb::from_msgpack<Person>(drydb_test::as_bytes(value));
    ASSERT_FALSE(direct);
    EXPECT_TRUE(is(direct.code(), errc::corruption));
  }
  // Each says what is wrong.
  auto message = [&](const char* key) { return people.get(key).error().message; };
  EXPECT_NE(message("bad:empty").find("is empty"), std::string::npos);
  EXPECT_NE(message("bad:never-used-byte").find("is not MessagePack"), std::string::npos);
  EXPECT_NE(message("bad:text").find("10 bytes after its MessagePack object"), std::string::npos);
  EXPECT_NE(message("bad:string").find("is a MessagePack str whose shape does not convert to"),
            std::string::npos);
  EXPECT_NE(message("bad:string").find("Person"), std::string::npos);
  EXPECT_NE(message("bad:int-name").find("MessagePack array"), std::string::npos);
  EXPECT_NE(message("bad:truncated").find("is truncated"), std::string::npos);
  EXPECT_NE(message("bad:huge-array").find("array size overflow"), std::string::npos);
  EXPECT_NE(message("bad:huge-str").find("is truncated"), std::string::npos);
  EXPECT_NE(message("bad:deep").find("deeper than 256"), std::string::npos);
  // Good rows are unaffected.
  EXPECT_EQ(**people.get("key2"), (Person{"P2", 2}));
}

TEST(MsgpackMalformed, RangeStopsBeforeTheBadRow) {
  Db d = mixed_db();
  auto people = d.table<Person>("people");
  for (const auto& [key, value] : bad_values()) {
    SCOPED_TRACE(key);
    for (auto order : {SortOrder::ascending, SortOrder::descending}) {
      auto range = people.get_range(key, key, {.order = order}).value();
      EXPECT_EQ(range.size(), 1u);
      for (auto [k, p] : range)
        ADD_FAILURE() << "a bad row decoded: " << str(k);
      ASSERT_FALSE(range.status());
      expect_decode_error(range.status().error(), key, "");
    }
  }
  // The rows before the bad one are seen: key4..key1, then the last bad key.
  auto down = people.get_range(unbounded, unbounded, {.order = SortOrder::descending}).value();
  std::vector<std::string> seen;
  for (auto [k, p] : down)
    seen.push_back(p.name);
  EXPECT_EQ(seen, (std::vector<std::string>{"P4", "P3", "P2", "P1"}));
  ASSERT_FALSE(down.status());
  expect_decode_error(down.status().error(), "bad:two-objects", "");
  // Iterating again starts over, and stops at the same row.
  seen.clear();
  for (auto [k, p] : down)
    seen.push_back(p.name);
  EXPECT_EQ(seen.size(), 4u);
  EXPECT_FALSE(down.status());
}

TEST(MsgpackMalformed, PrefixAndCursorStopWithTheError) {
  Db d = mixed_db();
  auto people = d.table<Person>("people");
  auto bad = people.prefix("bad:").value();
  for (auto [k, p] : bad)
    ADD_FAILURE() << "a bad row decoded: " << str(k);
  ASSERT_FALSE(bad.status());
  expect_decode_error(bad.status().error(), "bad:age-overflow", "");  // the first in key order

  auto c = people.cursor();
  ASSERT_TRUE(c.seek("key"));
  std::vector<std::string> names;
  for (auto [k, p] : c)
    names.push_back(p.name);
  EXPECT_EQ(names, (std::vector<std::string>{"P1", "P2", "P3", "P4"}));
  EXPECT_TRUE(c.status());  // the end, not an error

  ASSERT_TRUE(c.seek("bad:string"));
  auto v = c.value();
  ASSERT_FALSE(v);
  expect_decode_error(v.error(), "bad:string", "");
  for (auto [k, p] : c)
    ADD_FAILURE() << "a bad row decoded: " << str(k);
  ASSERT_FALSE(c.status());
  expect_decode_error(c.status().error(), "bad:string", "");
  // A positioning call clears the error.
  ASSERT_TRUE(c.seek("key1"));
  EXPECT_TRUE(c.status());
  EXPECT_EQ(c.value()->name, "P1");
}

TEST(MsgpackMalformed, IndexQueriesNameTheIndex) {
  Db d = mixed_db();
  auto by_initial = d.table<Person>("people").index("initial").value();
  auto good = by_initial.get_all("k");
  ASSERT_TRUE(good);
  EXPECT_EQ(good->size(), 4u);
  EXPECT_EQ(rows_of(*good).size(), 4u);

  auto first_bad = by_initial.get("b");
  ASSERT_FALSE(first_bad);
  expect_decode_error(first_bad.error(), "bad:age-overflow", "initial");

  auto all = by_initial.get_range(unbounded, unbounded, {.order = SortOrder::descending}).value();
  int rows = 0;
  for ([[maybe_unused]] auto [k, p] : all)
    ++rows;
  EXPECT_EQ(rows, 4);  // key4..key1, then the first bad row in descending order
  ASSERT_FALSE(all.status());
  expect_decode_error(all.status().error(), "bad:two-objects", "initial");

  auto c = by_initial.cursor();
  ASSERT_TRUE(c.seek("b"));
  auto v = c.value();
  ASSERT_FALSE(v);
  expect_decode_error(v.error(), "bad:age-overflow", "initial");
}

TEST(MsgpackMalformed, RichStructShapes) {
  // Valid MessagePack of nearly the right shape: each is refused.
  drydb::DatabaseBuilder b;
  auto& t = b.create_table("people");
  const Character good = make_character(4);
  t.append("good", packed(good));
  // tags as a map, stats as an array, an address that is a string.
  t.append("tags-map",
           packed(std::make_tuple(good.name, good.level, std::map<std::string, int>{{"a", 1}})));
  t.append("stats-array",
           packed(std::make_tuple(good.name, good.level, good.tags, std::vector<int>{1, 2})));
  t.append("home-string", packed(std::make_tuple(good.name, good.level, good.tags, good.stats,
                                                 msgpack::type::nil_t(), std::string("home"))));
  t.append("level-float", packed(std::make_tuple(good.name, 1.5)));
  Db d = Db::open(b);
  auto table = d.table<Character>("people");
  EXPECT_EQ(**table.get("good"), good);
  for (const char* key : {"tags-map", "stats-array", "home-string", "level-float"}) {
    SCOPED_TRACE(key);
    auto got = table.get(key);
    ASSERT_FALSE(got);
    expect_decode_error(got.error(), key, "");
    EXPECT_NE(got.error().message.find("Character"), std::string::npos) << got.error().message;
  }
  // A shorter array is accepted: missing trailing fields keep their defaults
  // (how msgpack-cxx lets a struct grow new fields at its end).
  drydb::DatabaseBuilder b2;
  b2.create_table("people").append("short", packed(std::make_tuple(std::string("Old"))));
  Db d2 = Db::open(b2);
  EXPECT_EQ(**d2.table<Person>("people").get("short"), (Person{"Old", 0}));
}

// ---- build-time failures -----------------------------------------------------------------------

TEST(MsgpackBuild, IndexOnARowThatIsNotATFailsTheBuild) {
  drydb::DatabaseBuilder b;
  auto people = drydb::as_msgpack<Person>(b.create_table("people"));
  people.append("key01", Person{"Bob", 22});
  people.untyped().append("key02", "not a person");
  people.add_secondary_index("age", false, KeyEncoding::int64(),
                             [](const Person& p) { return p.age; });
  auto built = b.build_to_memory();
  ASSERT_FALSE(built);
  // The build fails with the decode error itself (IndexKeyFunction's error channel).
  EXPECT_TRUE(is(built.code(), errc::corruption)) << describe(built.error());
  EXPECT_EQ(built.error().message.rfind("table 'people', index 'age': the index function failed "
                                        "for row 'key02': the value has ",
                                        0),
            0u)
      << built.error().message;
  ASSERT_FALSE(people.status());
  EXPECT_TRUE(is(people.status().code(), errc::corruption)) << describe(people.status().error());
  EXPECT_NE(people.status().error().message.find(
                "table 'people' (index 'age'): the value of key 'key02'"),
            std::string::npos)
      << people.status().error().message;
}

TEST(MsgpackBuild, AThrowingIndexFunctionFailsTheBuild) {
  drydb::DatabaseBuilder b;
  auto people = drydb::as_msgpack<Person>(b.create_table("people"));
  people.append("key01", Person{"Bob", 22}).append("key02", Person{"", 0});
  people.add_secondary_index("name", true, KeyEncoding::bytes(), [](const Person& p) {
    if (p.name.empty()) throw std::runtime_error("a person without a name");
    return p.name;
  });
  auto built = b.build_to_memory();
  ASSERT_FALSE(built);
  EXPECT_TRUE(is(built.code(), errc::invalid_argument)) << describe(built.error());
  EXPECT_NE(built.error().message.find("the function threw: a person without a name"),
            std::string::npos)
      << built.error().message;
  ASSERT_FALSE(people.status());
  EXPECT_NE(people.status().error().message.find("a person without a name"), std::string::npos);
  EXPECT_NE(people.status().error().message.find("key 'key02'"), std::string::npos);
}

struct Unpackable {
  int v = 0;
  template <class Packer>
  void msgpack_pack(Packer&) const {
    throw std::runtime_error("cannot pack");
  }
  void msgpack_unpack(const msgpack::object&) {}
};

TEST(MsgpackBuild, AValueThatFailsToPackFailsTheBuild) {
  drydb::DatabaseBuilder b;
  auto t = drydb::as_msgpack<Unpackable>(b.create_table("things", KeyEncoding::int64()));
  t.append(1, Unpackable{});
  ASSERT_FALSE(t.status());
  EXPECT_NE(t.status().error().message.find("table 'things': the value of key '1' could not be "
                                            "packed as MessagePack: cannot pack"),
            std::string::npos)
      << t.status().error().message;
  auto built = b.build_to_memory();
  ASSERT_FALSE(built);
}

TEST(MsgpackBuild, KeyErrorsAreTheTableBuilders) {
  drydb::DatabaseBuilder b;
  auto t = drydb::as_msgpack<Person>(b.create_table("people", KeyEncoding::int64()));
  t.append("text", Person{});
  ASSERT_FALSE(t.status());
  EXPECT_TRUE(is(t.status().code(), errc::wrong_key_type));
}

}  // namespace

// ---- tables with a column list (TableBuilder::set_columns) ------------------------------------

struct Player {
  std::string id;  // the key column
  std::string name;
  std::optional<int64_t> score;  // nil when absent: the row leaves the column out
  MSGPACK_DEFINE_MAP(id, name, score)
  bool operator==(const Player&) const = default;
};

// A typed builder over a table with a column list stores each packed map as the row of the
// columns (the key column nil when it holds the key's text, trailing absent columns left out);
// typed reads, index functions at build time and index reads see the maps again.
TEST(MsgpackColumns, TypedRowsRoundTripThroughTheColumnList) {
  drydb::DatabaseBuilder b;
  auto& untyped = b.create_table("players");
  untyped.set_columns({"id", "name", "score"}, 0);
  auto players = drydb::as_msgpack<Player>(untyped);
  const std::vector<Player> rows = {
      {"p1", "Ada", 10}, {"p2", "Bob", std::nullopt}, {"p3", "Cy", -3}};
  for (const Player& p : rows)
    players.append(p.id, p);
  // The key column holding something else than the key's text is stored as it is.
  players.append("p4", Player{"P-4", "Dee", 7});
  players.add_secondary_index("name", true, KeyEncoding::bytes(),
                              [](const Player& p) { return p.name; });
  ASSERT_TRUE(players.status()) << describe(players.status().error());
  Db db = Db::open(b);
  ASSERT_TRUE(db.db.verify()) << describe(db.db.verify().error());

  auto raw = db.db.table("players").value();
  EXPECT_EQ(raw.columns().size(), 3u);
  // The rows as stored: arrays, the key column nil, no trailing nil for p2's score.
  EXPECT_EQ(str(raw.get("p1")->bytes()),
            packed(std::make_tuple(msgpack::type::nil_t(), std::string("Ada"), 10)));
  EXPECT_EQ(str(raw.get("p2")->bytes()),
            packed(std::make_tuple(msgpack::type::nil_t(), std::string("Bob"))));
  EXPECT_EQ(str(raw.get("p4")->bytes()),
            packed(std::make_tuple(std::string("P-4"), std::string("Dee"), 7)));

  auto typed = db.table<Player>("players");
  for (const Player& p : rows) {
    auto got = typed.get(p.id);
    ASSERT_TRUE(got) << describe(got.error());
    EXPECT_EQ(*got, p);
  }
  EXPECT_EQ(typed.get("p4").value(), (Player{"P-4", "Dee", 7}));
  auto by_name = typed.index("name");
  ASSERT_TRUE(by_name);
  EXPECT_EQ(by_name->get("Cy").value(), rows[2]);
  std::vector<std::string> ids;
  for (auto [key, p] : *typed.get_range(unbounded, unbounded))
    ids.push_back(p.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"p1", "p2", "p3", "P-4"}));
  // As a generic map, a row holds just its present columns.
  auto as_map = drydb::as_msgpack<std::map<std::string, std::string>>(raw).get("p2");
  ASSERT_TRUE(as_map) << describe(as_map.error());
  EXPECT_EQ(as_map->value(), (std::map<std::string, std::string>{{"id", "p2"}, {"name", "Bob"}}));
}

// int64 keys: the key column's nil stands for the key's decimal text.
TEST(MsgpackColumns, AnInt64KeyColumnReadsAsItsDecimalText) {
  drydb::DatabaseBuilder b;
  auto& t = b.create_table("scores", KeyEncoding::int64());
  t.set_columns({"when", "id"}, 1);
  t.append(int64_t{-12}, packed(std::make_tuple(std::string("today"), msgpack::type::nil_t())));
  Db db = Db::open(b);
  auto row = db.table<std::map<std::string, std::string>>("scores").get(int64_t{-12});
  ASSERT_TRUE(row) << describe(row.error());
  EXPECT_EQ(row->value(), (std::map<std::string, std::string>{{"id", "-12"}, {"when", "today"}}));
}

TEST(MsgpackColumns, AFieldThatIsNotAColumnFailsTheBuild) {
  drydb::DatabaseBuilder b;
  auto& t = b.create_table("players");
  t.set_columns({"id", "name"}, 0);
  auto players = drydb::as_msgpack<Player>(t);
  players.append("p1", Player{"p1", "Ada", 10});  // `score` is not a column
  EXPECT_FALSE(players.status());
  EXPECT_NE(players.status().error().message.find("'score' that is not a column"),
            std::string::npos)
      << describe(players.status().error());
  EXPECT_TRUE(is(players.status().code(), errc::invalid_argument));
  EXPECT_FALSE(b.build_to_memory());
}

// A type that is not map-shaped does not convert from a row's map: a clear error, as for any
// other shape.
TEST(MsgpackColumns, AnArrayShapedTypeGetsAShapeError) {
  drydb::DatabaseBuilder b;
  auto& t = b.create_table("people");
  t.set_columns({"name", "age"});
  t.append("k", packed(std::make_tuple(std::string("Bob"), 22)));
  Db db = Db::open(b);
  auto got = db.table<Person>("people").get("k");
  ASSERT_FALSE(got);
  EXPECT_TRUE(is(got.code(), errc::corruption));
  EXPECT_NE(got.error().message.find("is a MessagePack map whose shape does not convert"),
            std::string::npos)
      << describe(got.error());
}

// The key column is always stored: its nil, which stands for the key, is kept when the trailing
// absent columns are left out, and a map without the key column reads back with it.
TEST(MsgpackColumns, TheKeyColumnIsAlwaysStored) {
  using Fields = std::map<std::string, std::string>;
  drydb::DatabaseBuilder b;
  auto& t = b.create_table("t");
  t.set_columns({"name", "note", "id", "extra"}, 2);
  auto typed = drydb::as_msgpack<Fields>(t);
  typed.append("k1", Fields{{"name", "a"}, {"id", "k1"}});
  typed.append("k2", Fields{{"name", "b"}});                   // no key column
  typed.append("k3", Fields{{"extra", "e"}});                  // none, and a later column
  typed.append("k4", Fields{{"name", "d"}, {"id", "other"}});  // something else than the key
  ASSERT_TRUE(typed.status()) << describe(typed.status().error());
  Db db = Db::open(b);
  auto raw = db.db.table("t").value();
  const auto nil = msgpack::type::nil_t();
  EXPECT_EQ(str(raw.get("k1")->bytes()), packed(std::make_tuple(std::string("a"), nil, nil)));
  EXPECT_EQ(str(raw.get("k2")->bytes()), packed(std::make_tuple(std::string("b"), nil, nil)));
  EXPECT_EQ(str(raw.get("k3")->bytes()), packed(std::make_tuple(nil, nil, nil, std::string("e"))));
  EXPECT_EQ(str(raw.get("k4")->bytes()),
            packed(std::make_tuple(std::string("d"), nil, std::string("other"))));
  auto rows = db.table<Fields>("t");
  EXPECT_EQ(rows.get("k1").value(), (Fields{{"name", "a"}, {"id", "k1"}}));
  EXPECT_EQ(rows.get("k2").value(), (Fields{{"name", "b"}, {"id", "k2"}}));
  EXPECT_EQ(rows.get("k3").value(), (Fields{{"extra", "e"}, {"id", "k3"}}));
  EXPECT_EQ(rows.get("k4").value(), (Fields{{"name", "d"}, {"id", "other"}}));
}
