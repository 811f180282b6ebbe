// DatabaseBuilder and TableBuilder (builder.h): errors and their messages,
// page sizes, spilling past the memory budget, determinism, atomic files.

#include <fcntl.h>
#include <gtest/gtest.h>
#if !defined(_WIN32)
#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "support/test_util.h"

namespace drydb_test {
namespace {

using drydb::BuildOptions;
using drydb::DatabaseBuilder;
using drydb::errc;
using drydb::Key;
using drydb::KeyEncoding;
using drydb::ReadOnlyDatabase;

// The message of a failed status or result, for assertions on its content.
template <class R>
std::string message_of(const R& r) {
  return r ? std::string("<no error>") : r.error().message;
}

bool contains(const std::string& haystack, std::string_view needle) {
  return haystack.find(needle) != std::string::npos;
}

// The builder's sticky error is `code` with a message naming `what`, and building fails with it.
void expect_build_fails(DatabaseBuilder& builder, errc code, std::string_view what) {
  ASSERT_FALSE(builder.status());
  EXPECT_EQ(builder.status().code(), code);
  EXPECT_TRUE(contains(message_of(builder.status()), what)) << message_of(builder.status());
  auto bytes = builder.build_to_memory();
  ASSERT_FALSE(bytes);
  EXPECT_EQ(bytes.code(), code);
}

// Reads back every row of `model` from its table in `bytes`.
void expect_table_equals(const std::vector<std::byte>& bytes, const TableModel& model) {
  auto db = ReadOnlyDatabase::open_memory(bytes);
  ASSERT_TRUE(db) << describe(db.error());
  const auto verified = db->verify();
  EXPECT_TRUE(verified) << describe(verified.error());
  auto t = db->table(model.name);
  ASSERT_TRUE(t) << describe(t.error());
  DiffChecker c(*t, model);
  c.check_count();
  c.check_cursor_walks();
  size_t i = 0;
  for (const auto& row : model.rows)
    if (i++ % 7 == 0) c.check_get(row.first);
  EXPECT_EQ(c.failures(), 0);
}

// ---------------------------------------------------------------------------
// Options and names.

TEST(BuilderTest, RejectsInvalidPageSizes) {
  TempDir dir;
  for (uint32_t page_size : {0u, 1u, 256u, 511u, 513u, 1000u, 4095u, 65537u, 131072u, 1u << 31}) {
    SCOPED_TRACE(page_size);
    DatabaseBuilder builder({.page_size = page_size});
    ASSERT_FALSE(builder.status());
    EXPECT_EQ(builder.status().code(), errc::invalid_argument);
    EXPECT_TRUE(contains(message_of(builder.status()), std::to_string(page_size)))
        << message_of(builder.status());
    builder.create_table("t").append("k", "v");
    auto bytes = builder.build_to_memory();
    ASSERT_FALSE(bytes);
    EXPECT_EQ(bytes.code(), errc::invalid_argument);
    DatabaseBuilder file_builder({.page_size = page_size});
    auto st = file_builder.build_to_file(dir / "db.drydb");
    ASSERT_FALSE(st);
    EXPECT_TRUE(is(st.code(), errc::invalid_argument));
    EXPECT_TRUE(dir.entries().empty());
  }
}

TEST(BuilderTest, EveryValidPageSizeRoundTrips) {
  const std::vector<TableModel> tables = {random_table("t", Enc::bytes, 600, 3, 0, 200, 60),
                                          random_table("ints", Enc::int64, 600, 4, 0, 10)};
  for (uint32_t page_size = 512; page_size <= 65536; page_size *= 2) {
    SCOPED_TRACE(page_size);
    DatabaseBuilder builder({.page_size = page_size});
    EXPECT_TRUE(builder.status());
    append_all(builder, tables, page_size);
    auto bytes = builder.build_to_memory();
    ASSERT_TRUE(bytes) << describe(bytes.error());
    auto db = ReadOnlyDatabase::open_memory(*bytes);
    ASSERT_TRUE(db) << describe(db.error());
    EXPECT_EQ(db->page_size(), page_size);
    expect_table_equals(*bytes, tables[0]);
    expect_table_equals(*bytes, tables[1]);
  }
}

TEST(BuilderTest, DefaultPageSizeIs4096) {
  DatabaseBuilder builder;
  builder.create_table("t").append("k", "v");
  auto bytes = builder.build_to_memory();
  ASSERT_TRUE(bytes);
  auto db = ReadOnlyDatabase::open_memory(*bytes);
  ASSERT_TRUE(db);
  EXPECT_EQ(db->page_size(), 4096u);
}

TEST(BuilderTest, DuplicateTableName) {
  DatabaseBuilder builder;
  builder.create_table("items").append("a", "1");
  builder.create_table("other");
  auto& again = builder.create_table("items", KeyEncoding::int64());
  again.append(int64_t{1}, "x");  // ignored: the error is sticky
  expect_build_fails(builder, errc::duplicate_name, "items");
}

TEST(BuilderTest, TableNameLength) {
  {
    DatabaseBuilder builder;
    builder.create_table("");
    EXPECT_EQ(builder.status().code(), errc::invalid_argument);
    EXPECT_EQ(builder.build_to_memory().code(), errc::invalid_argument);
  }
  {
    DatabaseBuilder builder;
    builder.create_table(std::string(256, 'n'));
    EXPECT_EQ(builder.status().code(), errc::invalid_argument);
    EXPECT_EQ(builder.build_to_memory().code(), errc::invalid_argument);
  }
  {
    // 255 bytes, any bytes: fine, and found again by name.
    std::string name(255, 'n');
    name[3] = '\0';
    name[100] = '\xff';
    DatabaseBuilder builder;
    builder.create_table(name).append("k", "v");
    auto bytes = builder.build_to_memory();
    ASSERT_TRUE(bytes) << describe(bytes.error());
    auto db = ReadOnlyDatabase::open_memory(*bytes);
    ASSERT_TRUE(db) << describe(db.error());
    auto t = db->table(name);
    ASSERT_TRUE(t);
    EXPECT_EQ(t->name(), name);
    EXPECT_EQ(t->get("k")->str(), "v");
  }
}

TEST(BuilderTest, TableBuilderAccessors) {
  DatabaseBuilder builder;
  auto& t = builder.create_table("quests", KeyEncoding::int64());
  EXPECT_EQ(t.name(), "quests");
  EXPECT_EQ(t.encoding(), KeyEncoding::int64());
  EXPECT_EQ(t.rows_appended(), 0u);
  t.append(int64_t{3}, "c").append(int64_t{1}, "a").append(int64_t{2}, "b");
  EXPECT_EQ(t.rows_appended(), 3u);
  EXPECT_TRUE(t.status());
  auto& bytes_table = builder.create_table("items");
  EXPECT_EQ(bytes_table.encoding(), KeyEncoding::bytes());  // the default
  auto built = builder.build_to_memory();
  ASSERT_TRUE(built) << describe(built.error());
  auto db = ReadOnlyDatabase::open_memory(*built);
  ASSERT_TRUE(db);
  ASSERT_EQ(db->tables().size(), 2u);
  EXPECT_EQ(db->tables()[0].name(), "quests");  // file order is creation order
  EXPECT_EQ(db->tables()[1].name(), "items");
  EXPECT_EQ(db->table("quests")->count(), 3u);
}

// A builder moved elsewhere keeps its tables and their TableBuilder handles.
TEST(BuilderTest, MovedBuilderKeepsTables) {
  DatabaseBuilder first({.page_size = 512});
  auto& t = first.create_table("t");
  t.append("b", "2");
  DatabaseBuilder second = std::move(first);
  t.append("a", "1");
  auto bytes = second.build_to_memory();
  ASSERT_TRUE(bytes) << describe(bytes.error());
  expect_table_equals(*bytes, make_table("t", Enc::bytes, {{"a", "1"}, {"b", "2"}}));
}

// ---------------------------------------------------------------------------
// Key errors.

TEST(BuilderTest, DuplicateKeyNamesTableAndKey) {
  {
    DatabaseBuilder builder;
    builder.create_table("fine").append("k1", "x");
    auto& items = builder.create_table("items");
    items.append("k1", "a").append("zeta", "z").append("k2", "b").append("k1", "a");
    EXPECT_TRUE(builder.status()) << "duplicates are found when the rows are sorted";
    auto bytes = builder.build_to_memory();
    ASSERT_FALSE(bytes);
    EXPECT_EQ(bytes.code(), errc::duplicate_key);
    EXPECT_TRUE(contains(bytes.error().message, "'items'")) << bytes.error().message;
    EXPECT_TRUE(contains(bytes.error().message, "'k1'")) << bytes.error().message;
    EXPECT_FALSE(contains(bytes.error().message, "fine")) << bytes.error().message;
  }
  {
    DatabaseBuilder builder;
    auto& q = builder.create_table("quests", KeyEncoding::int64());
    q.append(int64_t{-42}, "a").append(int64_t{7}, "b").append(int64_t{-42}, "c");
    auto bytes = builder.build_to_memory();
    ASSERT_FALSE(bytes);
    EXPECT_EQ(bytes.code(), errc::duplicate_key);
    EXPECT_TRUE(contains(bytes.error().message, "quests")) << bytes.error().message;
    EXPECT_TRUE(contains(bytes.error().message, "-42")) << bytes.error().message;
  }
  {
    // A custom encoding's keys print through its formatter.
    DatabaseBuilder builder;
    auto& c = builder.create_table("hexed", encoding_of(Enc::fixed4));
    c.append(std::string("\x01\x02\x03\x04", 4), "a")
        .append(std::string("\x01\x02\x03\x04", 4), "a");
    auto bytes = builder.build_to_memory();
    ASSERT_FALSE(bytes);
    EXPECT_EQ(bytes.code(), errc::duplicate_key);
    EXPECT_TRUE(contains(bytes.error().message, "hexed")) << bytes.error().message;
    EXPECT_TRUE(contains(bytes.error().message, "0x01020304")) << bytes.error().message;
  }
  {
    const drydb::Uuid u = drydb::Uuid::parse("017f22e2-79b0-7cc3-98c4-dc0c0c07398f").value();
    DatabaseBuilder builder;
    builder.create_table("ids", KeyEncoding::uuid_v7()).append(u, "a").append(u, "b");
    auto bytes = builder.build_to_memory();
    ASSERT_FALSE(bytes);
    EXPECT_EQ(bytes.code(), errc::duplicate_key);
    EXPECT_TRUE(contains(bytes.error().message, "017f22e2-79b0-7cc3-98c4-dc0c0c07398f"))
        << bytes.error().message;
  }
}

// The duplicate sits in two different spilled runs and is found by the merge.
TEST(BuilderTest, DuplicateKeyFoundDuringSpillMerge) {
  TempDir dir;
  DatabaseBuilder builder({.page_size = 512, .memory_budget = 64 << 10, .temp_dir = dir.path()});
  auto& t = builder.create_table("spilled");
  Rng rng(1);
  std::vector<std::string> keys;
  for (int i = 0; i < 800; ++i)  // ~90 KiB of rows: over the budget
    keys.push_back("key-" + std::to_string(100000 + i));
  std::shuffle(keys.begin(), keys.end(), rng);
  for (const auto& k : keys)
    t.append(k, std::string(100, 'v'));
  t.append(keys[5], "again");  // ~90 KiB after the first copy: another run
  EXPECT_TRUE(builder.status()) << message_of(builder.status());
  auto bytes = builder.build_to_memory();
  ASSERT_FALSE(bytes);
  EXPECT_TRUE(is(bytes.code(), errc::duplicate_key)) << describe(bytes.error());
  EXPECT_TRUE(contains(bytes.error().message, "spilled")) << bytes.error().message;
  EXPECT_TRUE(contains(bytes.error().message, keys[5])) << bytes.error().message;
  EXPECT_TRUE(dir.entries().empty()) << "spill files left behind";
}

TEST(BuilderTest, KeyTooLongNamesTableAndKey) {
  for (uint32_t page_size : {512u, 4096u}) {
    SCOPED_TRACE(page_size);
    const uint32_t limit = drydb::detail::max_key_length(page_size);
    {
      // At the limit: fine, at both ends of the key order.
      DatabaseBuilder builder({.page_size = page_size});
      auto& t = builder.create_table("t");
      TableModel model = make_table("t", Enc::bytes);
      model.rows[std::string(limit, 'a')] = "a";
      model.rows[std::string(limit, '\xff')] = std::string(300, 'f');
      model.rows[std::string(limit, '\0')] = "";
      model.rows["short"] = "s";
      for (const auto& [k, v] : model.rows)
        t.append(k, v);
      auto bytes = builder.build_to_memory();
      ASSERT_TRUE(bytes) << describe(bytes.error());
      expect_table_equals(*bytes, model);
      auto db = ReadOnlyDatabase::open_memory(*bytes);
      ASSERT_TRUE(db);
      EXPECT_EQ(db->table("t")->info().max_key_length, limit);
    }
    {
      DatabaseBuilder builder({.page_size = page_size});
      builder.create_table("ok").append("a", "b");
      auto& t = builder.create_table("long_keys");
      t.append("fine", "v");
      const std::string key = "LONGKEY" + std::string(limit + 1 - 7, 'x');
      ASSERT_EQ(key.size(), limit + 1);
      t.append(key, "v");
      ASSERT_FALSE(t.status());
      EXPECT_EQ(t.status().code(), errc::key_too_long);
      const std::string msg = message_of(t.status());
      EXPECT_TRUE(contains(msg, "long_keys")) << msg;
      EXPECT_TRUE(contains(msg, "LONGKEYxxxx")) << msg;
      EXPECT_TRUE(contains(msg, std::to_string(limit))) << msg;
      auto bytes = builder.build_to_memory();
      ASSERT_FALSE(bytes);
      EXPECT_EQ(bytes.code(), errc::key_too_long);
    }
  }
  {
    // A custom variable-width encoding has the same limit.
    DatabaseBuilder builder({.page_size = 512});
    builder.create_table("custom", encoding_of(Enc::var)).append(std::string(65, 'k'), "v");
    EXPECT_EQ(builder.status().code(), errc::key_too_long);
    EXPECT_TRUE(contains(message_of(builder.status()), "custom"));
  }
}

#if !defined(_WIN32)
// The largest peak resident set of this process so far, in bytes.
uint64_t peak_rss_bytes() {
  struct rusage u {};
  ::getrusage(RUSAGE_SELF, &u);
  return static_cast<uint64_t>(u.ru_maxrss) * 1024;
}

// A value of 4 GiB, a span over a mapping that is never touched (MAP_NORESERVE: no memory or
// swap is committed), is refused with value_too_large before any of it is read or copied.
#endif
TEST(BuilderTest, ValueOf4GiBIsValueTooLarge) {
#if defined(_WIN32)
  GTEST_SKIP() << "POSIX only: the 4 GiB value is an untouched mmap(MAP_NORESERVE), measured "
                  "by getrusage";
#else
  if constexpr (sizeof(size_t) < 8) GTEST_SKIP() << "a 4 GiB span needs a 64-bit address space";
  const size_t size = size_t{1} << 32;
  ASSERT_EQ(size, drydb::detail::kMaxValueLength + 1);
  void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) GTEST_SKIP() << "cannot reserve 4 GiB of address space: " << errno;
  const std::span<const std::byte> huge(static_cast<const std::byte*>(p), size);
  const uint64_t rss_before = peak_rss_bytes();
  {
    TempDir dir;
    const auto target = dir / "db.drydb";
    ASSERT_TRUE(write_file(target, std::vector<std::byte>(7, std::byte{'x'})));
    DatabaseBuilder builder;
    auto& t = builder.create_table("blobs");
    t.append("small", "v");
    t.append("huge", huge);
    EXPECT_EQ(t.status().code(), errc::value_too_large);
    const std::string msg = message_of(t.status());
    EXPECT_TRUE(contains(msg, "blobs")) << msg;
    EXPECT_TRUE(contains(msg, "huge")) << msg;
    EXPECT_TRUE(contains(msg, "4 GiB or more")) << msg;
    // Sticky: the build returns it and leaves the target as it was.
    EXPECT_EQ(builder.build_to_file(target).code(), errc::value_too_large);
    EXPECT_EQ(read_file(target), std::vector<std::byte>(7, std::byte{'x'}));
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"db.drydb"});
  }
  EXPECT_LT(peak_rss_bytes() - rss_before, uint64_t{64} << 20) << "the value was read or copied";
  ::munmap(p, size);
#endif
}

TEST(BuilderTest, WrongKeyKindOnAppend) {
  struct Case {
    const char* what;
    KeyEncoding encoding;
    Key key;
  };
  const Case cases[] = {
      {"int on bytes", KeyEncoding::bytes(), Key(int64_t{1})},
      {"text on int64", KeyEncoding::int64(), Key("1")},
      {"8 raw bytes on int64", KeyEncoding::int64(), Key("12345678")},
      {"Ulid on uuid_v7", KeyEncoding::uuid_v7(), Key(kSampleUlid)},
      {"text on uuid_v7", KeyEncoding::uuid_v7(), Key("0123456789abcdef")},
      {"Uuid on ulid", KeyEncoding::ulid(), Key(kSampleUuid)},
      {"int on ulid", KeyEncoding::ulid(), Key(5)},
      {"Uuid on bytes", KeyEncoding::bytes(), Key(kSampleUuid)},
      {"int on custom", encoding_of(Enc::var), Key(int64_t{1})},
      {"3 bytes on fixed4", encoding_of(Enc::fixed4), Key("abc")},
      {"5 bytes on fixed4", encoding_of(Enc::fixed4), Key("abcde")},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.what);
    DatabaseBuilder builder;
    auto& t = builder.create_table("typed", tc.encoding);
    t.append(tc.key, "v");
    expect_build_fails(builder, errc::wrong_key_type, "typed");
  }
}

// The first error sticks: later calls are ignored and build returns it.
TEST(BuilderTest, ErrorsAreSticky) {
  DatabaseBuilder builder({.page_size = 512});
  auto& t = builder.create_table("t", KeyEncoding::int64());
  t.append(int64_t{1}, "ok");
  t.append("text", "wrong kind");
  t.append(int64_t{2}, "ignored");
  builder.create_table("t");  // a duplicate name, also ignored
  ASSERT_FALSE(builder.status());
  EXPECT_EQ(builder.status().code(), errc::wrong_key_type);
  EXPECT_EQ(t.status().code(), errc::wrong_key_type);
  auto bytes = builder.build_to_memory();
  EXPECT_EQ(bytes.code(), errc::wrong_key_type);
  // Still the same error afterwards.
  EXPECT_EQ(builder.build_to_memory().code(), errc::wrong_key_type);
}

// An index function that returns an Error fails the build with it: its code (any category), its
// message after the table, index and row; a file at the target is left as it was.
TEST(BuilderTest, AnIndexFunctionsErrorFailsTheBuild) {
  TempDir dir;
  const auto target = dir / "db.drydb";
  {
    DatabaseBuilder old;
    old.create_table("before").append("k", "v");
    ASSERT_TRUE(old.build_to_file(target));
  }
  const auto before = read_file(target);
  const std::error_code own = std::make_error_code(std::errc::result_out_of_range);
  for (bool to_file : {false, true}) {
    SCOPED_TRACE(to_file ? "build_to_file" : "build_to_memory");
    DatabaseBuilder builder({.page_size = 512});
    auto& t = builder.create_table("items", KeyEncoding::int64());
    std::vector<int64_t> called;
    t.add_secondary_index(
        "even", /*unique=*/false, KeyEncoding::bytes(),
        [&](std::span<const std::byte> key,
            std::span<const std::byte>) -> drydb::result<std::optional<drydb::IndexKey>> {
          const int64_t k = drydb::ordered_to_int64(drydb::detail::load_be64(key.data()));
          called.push_back(k);
          if (k == 7) return drydb::Error(own, "seven is not allowed");
          if (k % 2 != 0) return std::nullopt;
          return drydb::IndexKey("even");
        });
    for (int64_t k = 10; k > 0; --k)
      t.append(k, "v");
    ASSERT_TRUE(builder.status());  // the function runs at build time
    drydb::status st;
    if (to_file) {
      st = builder.build_to_file(target);
    } else if (auto bytes = builder.build_to_memory(); !bytes) {
      st = std::move(bytes).error();
    }
    ASSERT_FALSE(st);
    EXPECT_EQ(st.code(), own);
    EXPECT_EQ(st.error().message,
              "table 'items', index 'even': the index function failed for row '7': seven is not "
              "allowed");
    // Called in primary-key order, up to the row that failed.
    EXPECT_EQ(called, (std::vector<int64_t>{1, 2, 3, 4, 5, 6, 7}));
    EXPECT_EQ(read_file(target), before);
  }
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"db.drydb"}) << "a temp file was left";
}

// ---------------------------------------------------------------------------
// Building once.

TEST(BuilderTest, BuildingTwiceIsInvalidState) {
  TempDir dir;
  {
    DatabaseBuilder builder;
    builder.create_table("t").append("k", "v");
    ASSERT_TRUE(builder.build_to_memory());
    auto again = builder.build_to_memory();
    ASSERT_FALSE(again);
    EXPECT_EQ(again.code(), errc::invalid_state);
    EXPECT_TRUE(is(builder.build_to_file(dir / "x.drydb").code(), errc::invalid_state));
    EXPECT_FALSE(std::filesystem::exists(dir / "x.drydb"));
  }
  {
    DatabaseBuilder builder;
    builder.create_table("t").append("k", "v");
    ASSERT_TRUE(builder.build_to_file(dir / "y.drydb"));
    EXPECT_EQ(builder.build_to_memory().code(), errc::invalid_state);
    EXPECT_TRUE(is(builder.build_to_file(dir / "y.drydb").code(), errc::invalid_state));
  }
  {
    // Appending after a build is refused too.
    DatabaseBuilder builder;
    auto& t = builder.create_table("t");
    t.append("k", "v");
    ASSERT_TRUE(builder.build_to_memory());
    t.append("late", "v");
    EXPECT_EQ(builder.status().code(), errc::invalid_state);
    EXPECT_EQ(t.rows_appended(), 1u);  // the late row was not taken
  }
}

// ---------------------------------------------------------------------------
// Spilling past the memory budget.

// 200k unsorted rows through a 64 KiB budget: runs spill to temp_dir, merge,
// and read back equal to the model; nothing is left in temp_dir; the bytes
// equal an in-memory build of the same rows.
TEST(BuilderTest, SpillsAndMergesPastTheMemoryBudget) {
  TempDir dir;
  DbModel m = {
      .page_size = 4096,
      .tables = {make_table("rows", Enc::bytes), random_table("ints", Enc::int64, 20000, 5, 4, 4)}};
  TableModel& model = m.tables[0];
  Rng rng(2024);
  while (model.rows.size() < 200000) {
    std::string k = "row:" + std::to_string(rng.between(0, 999999999));
    model.rows.emplace(k, value_for(k, rng, 0, 24));
  }
  std::vector<std::byte> spilled;
  {
    DatabaseBuilder builder({.page_size = 4096, .memory_budget = 64 << 10, .temp_dir = dir.path()});
    append_all(builder, m.tables, 99);
    ASSERT_TRUE(builder.status()) << describe(builder.status().error());
    auto bytes = builder.build_to_memory();
    ASSERT_TRUE(bytes) << describe(bytes.error());
    spilled = std::move(*bytes);
    EXPECT_TRUE(dir.entries().empty()) << "spill files left behind";
  }
  EXPECT_TRUE(dir.entries().empty()) << "spill files left behind";
  expect_table_equals(spilled, m.tables[0]);
  expect_table_equals(spilled, m.tables[1]);
  // The budget changes how the rows are sorted, not the file.
  const auto in_memory = build_memory(m, {}, 7);
  EXPECT_TRUE(in_memory == spilled) << "a spilled build differs from an in-memory one";
}

// Past the budget the builder really writes to temp_dir: an unusable temp_dir
// fails the build with an I/O error naming the folder.
TEST(BuilderTest, SpillingPastTheBudgetWritesToTempDir) {
  TempDir dir;
  const std::filesystem::path missing = dir / "does-not-exist";
  DatabaseBuilder builder({.memory_budget = 64 << 10, .temp_dir = missing});
  append_all(builder, {random_table("t", Enc::bytes, 5000, 8, 50, 100)}, 1);  // ~500 KiB
  auto bytes = builder.build_to_memory();
  ASSERT_FALSE(bytes) << "a build over its budget never spilled";
  EXPECT_TRUE(is(bytes.code(), errc::io_error)) << describe(bytes.error());
  EXPECT_TRUE(contains(bytes.error().message, "does-not-exist")) << bytes.error().message;
  EXPECT_FALSE(std::filesystem::exists(missing));
}

// Rows that fit the budget are never spilled, so temp_dir is never touched.
TEST(BuilderTest, InputUnderTheBudgetNeverSpills) {
  TempDir dir;
  const std::filesystem::path missing = dir / "does-not-exist";
  TableModel model = make_table("t", Enc::bytes);
  for (int i = 0; i < 500; ++i)
    model.rows["key" + std::to_string(1000 + i)] = "value";  // 500 rows of ~12 bytes: ~6 KiB
  for (size_t budget : {size_t{64} << 10, size_t{256} << 20}) {
    SCOPED_TRACE(budget);
    DatabaseBuilder builder({.memory_budget = budget, .temp_dir = missing});
    append_all(builder, {model}, 1);
    EXPECT_TRUE(builder.status()) << message_of(builder.status());
    auto bytes = builder.build_to_memory();
    ASSERT_TRUE(bytes) << describe(bytes.error());
    expect_table_equals(*bytes, model);
  }
  EXPECT_FALSE(std::filesystem::exists(missing));
}

// ---------------------------------------------------------------------------
// Determinism.

TEST(BuilderTest, SameInputSameBytesWhateverTheOrder) {
  TableModel text = random_table("text", Enc::bytes, 3000, 1, 0, 60);
  text.rows["overflowing"] = std::string(5000, 'o');
  text.rows["empty"] = "";
  DbModel m = {.tables = {text, random_table("ints", Enc::int64, 2000, 2, 8, 8),
                          random_table("uuids", Enc::uuid, 500, 3, 0, 30),
                          random_table("ulids", Enc::ulid, 500, 4, 0, 30),
                          random_table("custom", Enc::fixed4, 500, 5, 0, 30),
                          make_table("empty", Enc::bytes)}};
  for (uint32_t page_size : {512u, 4096u}) {
    SCOPED_TRACE(page_size);
    m.page_size = page_size;
    const auto a = build_memory(m, {}, 1);
    const auto b = build_memory(m, {}, 2);
    ASSERT_FALSE(a.empty());
    EXPECT_TRUE(a == b) << "two append orders gave different bytes";
    // Sorted input (the builder's no-sort fast path) gives the same bytes too.
    DatabaseBuilder sorted({.page_size = page_size});
    for (const auto& t : m.tables)
      add_table(sorted, t);
    auto c = sorted.build_to_memory();
    ASSERT_TRUE(c) << describe(c.error());
    EXPECT_TRUE(a == *c) << "sorted input gave different bytes";

    // build_to_file writes exactly build_to_memory's bytes.
    TempDir dir;
    DatabaseBuilder to_file({.page_size = page_size});
    append_all(to_file, m.tables, 3);
    ASSERT_TRUE(to_file.build_to_file(dir / "db.drydb"));
    EXPECT_TRUE(read_file(dir / "db.drydb") == a) << "build_to_file differs from build_to_memory";
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"db.drydb"});
  }
}

// ---------------------------------------------------------------------------
// build_to_file is atomic.

TEST(BuilderTest, BuildToFileReplacesAnExistingFileWhole) {
  TempDir dir;
  const auto path = dir / "db.drydb";
  // A larger file there first, so a partial overwrite would leave a tail.
  const std::string junk(1 << 20, 'J');
  ASSERT_TRUE(write_file(path, as_bytes(junk)));
  const TableModel model = random_table("t", Enc::bytes, 1000, 6, 0, 40);
  DatabaseBuilder builder({.page_size = 512});
  append_all(builder, {model}, 1);
  ASSERT_TRUE(builder.build_to_file(path));
  const auto expected = build_memory({.page_size = 512, .tables = {model}}, {}, 2);
  EXPECT_TRUE(read_file(path) == expected);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"db.drydb"});
  for (auto kind : {drydb::StorageKind::mmap, drydb::StorageKind::pread}) {
    auto db = ReadOnlyDatabase::open(path, {.storage = kind});
    ASSERT_TRUE(db) << describe(db.error());
    DiffChecker c(db->table("t").value(), model);
    c.check_cursor_walks();
    EXPECT_EQ(c.failures(), 0);
  }
  // A relative path (no folder part) works too.
  std::error_code ec;
  const auto old_cwd = std::filesystem::current_path(ec);
  std::filesystem::current_path(dir.path(), ec);
  ASSERT_FALSE(ec);
  DatabaseBuilder relative({.page_size = 512});
  append_all(relative, {model}, 3);
  EXPECT_TRUE(relative.build_to_file("relative.drydb"));
  std::filesystem::current_path(old_cwd, ec);
  EXPECT_TRUE(read_file(dir / "relative.drydb") == expected);
}

TEST(BuilderTest, FailedBuildLeavesTheTargetUntouched) {
  TempDir dir;
  const auto path = dir / "db.drydb";
  const auto old_bytes = build_one(make_table("t", Enc::bytes, {{"old", "database"}}), 4096);
  ASSERT_TRUE(write_file(path, old_bytes));
  {
    // The duplicate is found while the file is being written.
    DatabaseBuilder builder({.page_size = 512});
    auto& t = builder.create_table("t");
    for (int i = 0; i < 5000; ++i)
      t.append("key" + std::to_string(i), std::string(50, 'x'));
    t.append("key4999", "again");
    auto st = builder.build_to_file(path);
    ASSERT_FALSE(st);
    EXPECT_TRUE(is(st.code(), errc::duplicate_key));
    EXPECT_TRUE(read_file(path) == old_bytes) << "the target changed";
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"db.drydb"}) << "a temp file was left";
  }
  {
    // An error recorded before building.
    DatabaseBuilder builder({.page_size = 1000});
    builder.create_table("t").append("k", "v");
    EXPECT_TRUE(is(builder.build_to_file(path).code(), errc::invalid_argument));
    EXPECT_TRUE(read_file(path) == old_bytes);
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"db.drydb"});
  }
  // The old database still opens and answers.
  auto db = ReadOnlyDatabase::open(path);
  ASSERT_TRUE(db) << describe(db.error());
  EXPECT_EQ(db->table("t")->get("old")->str(), "database");
}

// A symlink target stays a symlink: the file it names is the one replaced (a dangling link's
// target is made). A FIFO, a folder or a device node at the target is refused, never replaced.
TEST(BuilderTest, BuildThroughSymlinksAndRefusingOtherFiles) {
#if defined(_WIN32)
  GTEST_SKIP() << "POSIX only: symbolic links (a privilege on Windows), FIFOs and /dev/null";
#else
  TempDir dir;
  const TableModel rows = make_table("t", Enc::bytes, {{"k", "v"}});
  auto build_to = [&](const std::filesystem::path& p) {
    DatabaseBuilder builder({.page_size = 512});
    append_all(builder, {rows}, 1);
    return builder.build_to_file(p);
  };
  const auto expected = build_one(rows, 512);
  ASSERT_TRUE(write_file(dir / "real.drydb", std::vector<std::byte>(3)));
  std::filesystem::create_symlink("real.drydb", dir / "link.drydb");
  std::filesystem::create_symlink("link.drydb", dir / "link2.drydb");
  ASSERT_TRUE(build_to(dir / "link2.drydb")) << "through two links";
  EXPECT_TRUE(std::filesystem::is_symlink(dir / "link.drydb"));
  EXPECT_TRUE(std::filesystem::is_symlink(dir / "link2.drydb"));
  EXPECT_TRUE(read_file(dir / "real.drydb") == expected);
  std::filesystem::create_symlink("new.drydb", dir / "dangling.drydb");
  ASSERT_TRUE(build_to(dir / "dangling.drydb"));
  EXPECT_TRUE(std::filesystem::is_symlink(dir / "dangling.drydb"));
  EXPECT_TRUE(read_file(dir / "new.drydb") == expected);

  ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0600), 0);
  std::filesystem::create_directory(dir / "folder");
  std::filesystem::create_symlink("fifo", dir / "to-fifo");
  for (const char* name : {"fifo", "folder", "to-fifo"}) {
    auto st = build_to(dir / name);
    ASSERT_FALSE(st) << name;
    EXPECT_TRUE(is(st.code(), errc::invalid_argument)) << name << ": " << describe(st.error());
    EXPECT_TRUE(contains(st.error().message, "not a regular file")) << st.error().message;
  }
  EXPECT_EQ(std::filesystem::status(dir / "fifo").type(), std::filesystem::file_type::fifo);
  EXPECT_TRUE(std::filesystem::is_directory(dir / "folder"));
  EXPECT_EQ(dir.entries(),
            (std::vector<std::string>{"dangling.drydb", "fifo", "folder", "link.drydb",
                                      "link2.drydb", "new.drydb", "real.drydb", "to-fifo"}))
      << "a temp file was left";
  // A device node: /dev/null, when this process could replace it (as root).
  if (::access("/dev", W_OK) == 0) {
    auto st = build_to("/dev/null");
    EXPECT_TRUE(is(st.code(), errc::invalid_argument));
    EXPECT_EQ(std::filesystem::status("/dev/null").type(), std::filesystem::file_type::character);
  }
#endif
}

TEST(BuilderTest, BuildIntoMissingFolderFailsWithIoError) {
  TempDir dir;
  const auto folder = dir / "no" / "such";
  DatabaseBuilder builder;
  builder.create_table("t").append("k", "v");
  auto st = builder.build_to_file(folder / "db.drydb");
  ASSERT_FALSE(st);
  EXPECT_TRUE(is(st.code(), errc::io_error)) << describe(st.error());
  const std::string missing =
      (std::filesystem::path("no") / "such").string();  // no\such on Windows
  EXPECT_TRUE(contains(st.error().message, missing)) << st.error().message;
  EXPECT_FALSE(std::filesystem::exists(dir / "no"));
  EXPECT_TRUE(dir.entries().empty());
}

#if defined(_WIN32)
// The full disks below are made by a child process's file size limit or a tmpfs mounted in its
// own mount namespace: Linux's means.
TEST(BuilderTest, FileSizeLimitFailsTheBuildAndKeepsTheTarget) {
  GTEST_SKIP() << "POSIX only: a forked child's RLIMIT_FSIZE";
}
TEST(BuilderTest, FullFileSystemFailsTheBuildAndKeepsTheTarget) {
  GTEST_SKIP() << "Linux only: a tmpfs mounted in a mount namespace of a forked child";
}
TEST(BuilderTest, ReadOnlyFileSystemFailsTheBuildAndKeepsTheTarget) {
  GTEST_SKIP() << "Linux only: a tmpfs mounted in a mount namespace of a forked child";
}
#else
// ---------------------------------------------------------------------------
// Full disks: a build that cannot write all of its file fails with io_error, leaves the file at
// the target as it was and no temp file beside it. Each runs in a child process, which lowers
// its own file size limit or mounts a small tmpfs in a mount namespace of its own.

// Runs body() in a forked child and returns the text it returned, or how the child ended.
std::string in_child(const std::function<std::string()>& body) {
  int fds[2];
  if (::pipe(fds) != 0) return "pipe failed";
  const pid_t pid = ::fork();
  if (pid < 0) return "fork failed";
  if (pid == 0) {
    ::close(fds[0]);
    const std::string report = body();
    for (size_t done = 0; done < report.size();) {
      const ssize_t n = ::write(fds[1], report.data() + done, report.size() - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    ::_exit(0);  // no destructors or gtest teardown in the child
  }
  ::close(fds[1]);
  std::string report;
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;)
    report.append(buf, static_cast<size_t>(n));
  ::close(fds[0]);
  int wstatus = 0;
  ::waitpid(pid, &wstatus, 0);
  if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0)
    return "the child ended with wait status " + std::to_string(wstatus) + " after: " + report;
  return report;
}

// 6,000 rows of 400-byte values: a file of about 2.6 MB.
const TableModel& big_rows() {
  static const TableModel m = random_table("t", Enc::bytes, 6000, 17, 400, 400);
  return m;
}

// Builds big_rows() to `target` (spilling to `spill_dir` when given) and describes the outcome,
// the target's bytes against `previous`, and the folder's entries, one per line.
std::string build_and_describe(const std::filesystem::path& target,
                               const std::vector<std::byte>& previous,
                               const std::filesystem::path& spill_dir = {}) {
  BuildOptions options{.page_size = 4096};
  if (!spill_dir.empty()) {
    options.memory_budget = 1 << 20;  // runs larger than the limit below
    options.temp_dir = spill_dir;
  }
  DatabaseBuilder builder(options);
  append_all(builder, {big_rows()}, 1);
  const auto st = builder.build_to_file(target);
  std::string out = st ? "built\n" : describe(st.error()) + "\n";
  out += read_file(target) == previous ? "target untouched\n" : "target changed\n";
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(target.parent_path(), ec))
    out += e.path().filename().string() + " ";
  return out;
}

std::vector<std::byte> previous_database() {
  return build_one(make_table("t", Enc::bytes, {{"old", "database"}}), 4096);
}

// RLIMIT_FSIZE with SIGXFSZ ignored: a write past the limit fails with EFBIG, as on a full disk,
// with no root and no mount needed.
TEST(BuilderTest, FileSizeLimitFailsTheBuildAndKeepsTheTarget) {
  TempDir dir;
  const auto target = dir / "db.drydb";
  const auto previous = previous_database();
  ASSERT_TRUE(write_file(target, previous));
  for (const bool spill : {false, true}) {
    // Spilled runs (to the same folder) hit the limit before the file does.
    SCOPED_TRACE(spill ? "spilling" : "in memory");
    const std::string report = in_child([&] {
      std::signal(SIGXFSZ, SIG_IGN);
      const rlimit limit{256 << 10, 256 << 10};
      if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) return std::string("setrlimit failed");
      return build_and_describe(target, previous, spill ? dir.path() : std::filesystem::path());
    });
    EXPECT_TRUE(contains(report, "(drydb:7)")) << report;  // io_error
    EXPECT_TRUE(contains(report, std::strerror(EFBIG))) << report;
    EXPECT_TRUE(contains(report, spill ? std::string("cannot write a spill file")
                                       : "cannot write '" + (dir / ".db.drydb.tmp-").string()))
        << report;
    EXPECT_TRUE(report.ends_with("\ntarget untouched\ndb.drydb ")) << report;
    EXPECT_TRUE(read_file(target) == previous);
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"db.drydb"});
  }
  // Without the limit the same build succeeds: the limit was the cause.
  EXPECT_TRUE(contains(in_child([&] { return build_and_describe(target, previous); }), "built"));
}

// Makes this process's own mount namespace (as root, or as a user through a user namespace) and
// mounts a tmpfs of `size` at `at`. Returns why it cannot, or "".
std::string mount_small_tmpfs(const std::filesystem::path& at, const char* size) {
  const uid_t uid = ::geteuid();
  const gid_t gid = ::getegid();
  if (::unshare(CLONE_NEWNS) != 0) {
    if (::unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0)
      return std::string("no mount namespace: ") + std::strerror(errno);
    auto put = [](const char* file, const std::string& text) {
      const int fd = ::open(file, O_WRONLY | O_CLOEXEC);
      const bool ok =
          fd >= 0 && ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
      if (fd >= 0) ::close(fd);
      return ok;
    };
    put("/proc/self/setgroups", "deny");
    if (!put("/proc/self/uid_map", std::to_string(uid) + " " + std::to_string(uid) + " 1") ||
        !put("/proc/self/gid_map", std::to_string(gid) + " " + std::to_string(gid) + " 1"))
      return "cannot map ids in a user namespace";
  }
  // Private, so the mount never shows outside this process.
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
    return std::string("cannot make mounts private: ") + std::strerror(errno);
  const std::string options = std::string("size=") + size;
  if (::mount("tmpfs", at.c_str(), "tmpfs", 0, options.c_str()) != 0)
    return std::string("cannot mount a tmpfs: ") + std::strerror(errno);
  return "";
}

// build_and_describe over the previous database in a child (whose mount namespace keeps the
// mount to itself), on a 512 KiB tmpfs mounted at `small` (a folder it makes) once the previous
// file is there and `adjust()` has changed the mount (it returns why it could not, or ""). The
// child's report, or "skip: why" where the test may not mount.
template <class Adjust>
std::string build_on_small_tmpfs(const std::filesystem::path& small, Adjust adjust) {
  std::filesystem::create_directory(small);
  const auto target = small / "db.drydb";
  const auto previous = previous_database();
  return in_child([&] {
    if (std::string why = mount_small_tmpfs(small, "512k"); !why.empty()) return "skip: " + why;
    if (!write_file(target, previous)) return std::string("cannot write the previous file");
    if (std::string why = adjust(); !why.empty()) return "skip: " + why;
    return build_and_describe(target, previous);
  });
}

// A small tmpfs that fills during the build: ENOSPC. Reported as skipped where the test may not
// mount one.
TEST(BuilderTest, FullFileSystemFailsTheBuildAndKeepsTheTarget) {
  TempDir dir;
  const auto small = dir / "small";
  const std::string report = build_on_small_tmpfs(small, [] { return std::string(); });
  if (report.starts_with("skip: ")) GTEST_SKIP() << report.substr(6);
  EXPECT_TRUE(contains(report, "(drydb:7)")) << report;  // io_error
  EXPECT_TRUE(contains(report, std::strerror(ENOSPC))) << report;
  EXPECT_TRUE(report.ends_with("\ntarget untouched\ndb.drydb ")) << report;
  EXPECT_TRUE(std::filesystem::is_empty(small)) << "the tmpfs showed outside the child";
}

// A read-only file system (root ignores file modes, so a mount is the way to refuse writes):
// the temp file cannot be created, io_error naming the folder and EROFS; the target stays.
TEST(BuilderTest, ReadOnlyFileSystemFailsTheBuildAndKeepsTheTarget) {
  TempDir dir;
  const auto small = dir / "small";
  const std::string report = build_on_small_tmpfs(small, [&] {
    if (::mount(nullptr, small.c_str(), nullptr, MS_REMOUNT | MS_RDONLY, nullptr) != 0)
      return std::string("cannot remount read-only: ") + std::strerror(errno);
    return std::string();
  });
  if (report.starts_with("skip: ")) GTEST_SKIP() << report.substr(6);
  EXPECT_TRUE(contains(report, "cannot create a temp file in '" + small.string() + "'")) << report;
  EXPECT_TRUE(contains(report, std::strerror(EROFS))) << report;
  EXPECT_TRUE(contains(report, "(drydb:7)")) << report;  // io_error
  EXPECT_TRUE(report.ends_with("\ntarget untouched\ndb.drydb ")) << report;
}

#endif  // defined(_WIN32)

}  // namespace
}  // namespace drydb_test
