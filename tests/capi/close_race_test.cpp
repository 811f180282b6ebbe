// drydb_db_close (and drydb_dataset_close) from one thread while other threads run the calls that
// take no holder (counts, get_copy, verify, name and count accessors, lookups of tables and
// indexes, holder creation) on the same database: close waits for the calls in flight, the calls
// that start after it refuse as on a closed handle, and nothing reads freed memory (the suite
// runs under ASan and TSan too). The threads meet at a latch before each close, so every close
// lands among running queries; no sleep decides the order.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <latch>
#include <string>
#include <thread>
#include <vector>

#include "drydb/c.h"

#if DRYDB_TEST_DATASETS
#include "dataset/generation_builder.h"
#endif

namespace {

constexpr int64_t kRows = 2000;
constexpr int kQueriers = 3;
constexpr int kRounds = 40;

// An index key per row: its key modulo 10, as an int64.
int index_of_row(void*, const void* key, size_t key_size, const void*, size_t, drydb_key* out) {
  int64_t k = 0;
  if (drydb_decode_int64_key(key, key_size, &k) != DRYDB_OK) return DRYDB_INVALID_ARGUMENT;
  *out = drydb_key_int64(k % 10);
  return DRYDB_OK;
}

std::string value_of(int64_t k) {
  return "value-" + std::to_string(k);
}

// Builds the test's database (table "items", int64 keys 0..kRows-1, index "tens") at `path`.
void build(const std::string& path) {
  drydb_builder* b = nullptr;
  ASSERT_EQ(drydb_builder_create(512, &b), DRYDB_OK);
  drydb_table_builder* t = nullptr;
  ASSERT_EQ(drydb_builder_create_table(b, "items", 5, DRYDB_KEY_INT64, &t), DRYDB_OK);
  for (int64_t k = 0; k < kRows; ++k) {
    const drydb_key key = drydb_key_int64(k);
    const std::string v = value_of(k);
    ASSERT_EQ(drydb_table_builder_append(t, &key, v.data(), v.size()), DRYDB_OK);
  }
  ASSERT_EQ(drydb_table_builder_add_index(t, "tens", 4, 0, DRYDB_KEY_INT64, index_of_row, nullptr),
            DRYDB_OK);
  ASSERT_EQ(drydb_builder_build_to_file(b, path.c_str()), DRYDB_OK);
  ASSERT_EQ(drydb_builder_release(b), DRYDB_OK);
}

// What one querier saw: how many rounds of calls ended well, and the first unexpected status.
struct QuerierOutcome {
  int64_t rounds = 0;
  int refused = DRYDB_OK;  // the status that ended its calls (the close's refusal)
  std::string unexpected;  // empty unless a call answered what it must not
};

// One round of holder-less calls on `db`'s table "items" (found by `table`, looked up anew too)
// and its index; DRYDB_OK while every answer is right, the first refusal's status, or
// DRYDB_CORRUPTION with `unexpected` set for a wrong answer.
int query_round(const drydb_db* db, const drydb_table* table, const drydb_index* index,
                int64_t round, std::string* unexpected) {
  const auto fail = [&](const std::string& what, int rc) {
    *unexpected = what + ": " + drydb_status_name(rc) + " " + drydb_last_error_message();
    return DRYDB_CORRUPTION;
  };
  // Any call may be the first to meet the close; it must refuse as on a closed handle.
  const auto refused = [](int rc) { return rc == DRYDB_INVALID_ARGUMENT; };
  int rc;

  const int64_t k = (round * 7919) % kRows;
  const drydb_key key = drydb_key_int64(k);
  char buf[32];
  size_t size = 0;
  rc = drydb_table_get_copy(table, &key, buf, sizeof buf, &size);
  if (refused(rc)) return rc;
  if (rc != DRYDB_OK || std::string(buf, size) != value_of(k)) return fail("get_copy", rc);

  uint64_t count = 0;
  const drydb_bound lo = {DRYDB_INCLUSIVE, drydb_key_int64(100)};
  const drydb_bound hi = {DRYDB_EXCLUSIVE, drydb_key_int64(1100)};
  rc = drydb_table_count_range(table, &lo, &hi, &count);
  if (refused(rc)) return rc;
  if (rc != DRYDB_OK || count != 1000) return fail("count_range", rc);

  rc = drydb_table_count(table, &count);
  if (refused(rc)) return rc;
  if (rc != DRYDB_OK || count != static_cast<uint64_t>(kRows)) return fail("count", rc);

  const char* name = nullptr;
  rc = drydb_table_name(table, &name, &size);
  if (refused(rc)) return rc;
  if (rc != DRYDB_OK || std::string(name, size) != "items") return fail("name", rc);

  size_t tables = 0;
  rc = drydb_db_table_count(db, &tables);
  if (refused(rc)) return rc;
  if (rc != DRYDB_OK || tables != 1) return fail("table_count", rc);

  const drydb_table* found = nullptr;
  rc = drydb_db_table(db, "items", 5, &found);
  if (refused(rc)) return rc;
  if (rc != DRYDB_OK || found != table) return fail("db_table", rc);

  const drydb_index* found_index = nullptr;
  rc = drydb_table_index(table, "tens", 4, &found_index);
  if (refused(rc)) return rc;
  if (rc != DRYDB_OK || found_index != index) return fail("table_index", rc);

  const drydb_bound three = {DRYDB_INCLUSIVE, drydb_key_int64(3)};
  rc = drydb_index_count_range(index, &three, &three, &count);
  if (refused(rc)) return rc;
  if (rc != DRYDB_OK || count != static_cast<uint64_t>(kRows / 10))
    return fail("index count_range", rc);

  if (round % 8 == 0) {
    rc = drydb_db_verify(db);
    if (refused(rc)) return rc;
    if (rc != DRYDB_OK) return fail("verify", rc);
  }

  // A holder made and released within the round: its creation holds the database, so close
  // either waits for it or refuses it; while it lives, close refuses (DRYDB_INVALID_STATE).
  drydb_value* value = nullptr;
  rc = drydb_value_create(const_cast<drydb_db*>(db), &value);
  if (refused(rc)) return rc;
  if (rc != DRYDB_OK) return fail("value_create", rc);
  const void* data = nullptr;
  rc = drydb_table_get(table, &key, value, &data, &size);
  if (rc != DRYDB_OK || std::string(static_cast<const char*>(data), size) != value_of(k))
    return fail("get", rc);
  rc = drydb_value_release(value);
  if (rc != DRYDB_OK) return fail("value_release", rc);
  return DRYDB_OK;
}

// A path of this test's own under the temp folder: ctest runs the tests of this file in
// processes of their own, side by side.
std::filesystem::path scratch(const std::string& what) {
  const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = std::string(test->test_suite_name()) + "." + test->name();
  for (char& c : name)
    if (c == '/') c = '_';
  return std::filesystem::path(::testing::TempDir()) / ("drydb_" + name + "_" + what);
}

class CloseRace : public ::testing::TestWithParam<int32_t> {};

TEST_P(CloseRace, CloseWaitsForCallsInFlightAndLaterCallsRefuse) {
  const std::string path = scratch("db.drydb").string();
  ASSERT_NO_FATAL_FAILURE(build(path));
  drydb_open_options options{};
  options.storage = GetParam();

  for (int round = 0; round < kRounds; ++round) {
    drydb_db* db = nullptr;
    ASSERT_EQ(drydb_db_open(path.c_str(), &options, &db), DRYDB_OK) << drydb_last_error_message();
    const drydb_table* table = nullptr;
    ASSERT_EQ(drydb_db_table(db, "items", 5, &table), DRYDB_OK);
    const drydb_index* index = nullptr;
    ASSERT_EQ(drydb_table_index(table, "tens", 4, &index), DRYDB_OK);

    std::latch querying(kQueriers);
    std::vector<QuerierOutcome> outcomes(kQueriers);
    std::vector<std::thread> queriers;
    for (int q = 0; q < kQueriers; ++q)
      queriers.emplace_back([&, q] {
        QuerierOutcome& out = outcomes[q];
        for (int64_t r = 0;; ++r) {
          const int rc = query_round(db, table, index, r + q, &out.unexpected);
          if (rc != DRYDB_OK) {
            out.refused = rc;
            if (r == 0) querying.count_down();  // a first round that failed frees the closer too
            return;
          }
          if (r == 0) querying.count_down();
          out.rounds = r + 1;
        }
      });
    // Every querier has answered a round and is querying when close is called.
    querying.wait();
    // A querier's value holder, live for part of each round, makes close refuse (and leave the
    // database open): close again until it finds none. Each refusal is bounded by a round.
    int close_rc = DRYDB_INVALID_STATE;
    for (int tries = 0; tries < 1000000 && close_rc == DRYDB_INVALID_STATE; ++tries)
      close_rc = drydb_db_close(db);
    for (std::thread& t : queriers)
      t.join();

    ASSERT_EQ(close_rc, DRYDB_OK) << drydb_last_error_message();
    for (const QuerierOutcome& out : outcomes) {
      EXPECT_EQ(out.unexpected, "");
      EXPECT_GE(out.rounds, 1);
      EXPECT_EQ(out.refused, DRYDB_INVALID_ARGUMENT);
    }
    // After close, every call refuses (the handles' memory is not reused yet).
    uint64_t count = 0;
    EXPECT_EQ(drydb_table_count(table, &count), DRYDB_INVALID_ARGUMENT);
    EXPECT_EQ(drydb_db_verify(db), DRYDB_INVALID_ARGUMENT);
    if (::testing::Test::HasFailure()) break;
  }
  std::filesystem::remove(path);
}

INSTANTIATE_TEST_SUITE_P(Storage, CloseRace,
                         ::testing::Values(DRYDB_STORAGE_MMAP, DRYDB_STORAGE_PREAD,
                                           DRYDB_STORAGE_MEMORY),
                         [](const auto& info) {
                           return info.param == DRYDB_STORAGE_MMAP    ? std::string("mmap")
                                  : info.param == DRYDB_STORAGE_PREAD ? std::string("pread")
                                                                      : std::string("memory");
                         });

// A close that finds a holder made meanwhile refuses and leaves the database open.
TEST(CloseRefusal, ACloseWithALiveHolderLeavesTheDatabaseOpen) {
  const std::string path = scratch("db.drydb").string();
  ASSERT_NO_FATAL_FAILURE(build(path));
  drydb_db* db = nullptr;
  ASSERT_EQ(drydb_db_open(path.c_str(), nullptr, &db), DRYDB_OK);
  drydb_value* value = nullptr;
  ASSERT_EQ(drydb_value_create(db, &value), DRYDB_OK);
  EXPECT_EQ(drydb_db_close(db), DRYDB_INVALID_STATE);
  const drydb_table* table = nullptr;
  ASSERT_EQ(drydb_db_table(db, "items", 5, &table), DRYDB_OK);
  uint64_t count = 0;
  EXPECT_EQ(drydb_table_count(table, &count), DRYDB_OK);
  EXPECT_EQ(count, static_cast<uint64_t>(kRows));
  ASSERT_EQ(drydb_value_release(value), DRYDB_OK);
  EXPECT_EQ(drydb_db_close(db), DRYDB_OK);
  EXPECT_EQ(drydb_db_close(db), DRYDB_INVALID_ARGUMENT);
  std::filesystem::remove(path);
}

#if DRYDB_TEST_DATASETS
// The same race on a sharded dataset: drydb_dataset_close while other threads count, copy,
// route keys, verify and look up its table.
int dataset_round(const drydb_dataset* ds, const drydb_sharded_table* table, int64_t round,
                  std::string* unexpected) {
  const auto fail = [&](const std::string& what, int rc) {
    *unexpected = what + ": " + drydb_status_name(rc) + " " + drydb_last_error_message();
    return DRYDB_CORRUPTION;
  };
  const auto refused = [](int rc) { return rc == DRYDB_INVALID_ARGUMENT; };
  int rc;
  const int64_t k = (round * 7919) % kRows;
  const drydb_key key = drydb_key_int64(k);
  char buf[32];
  size_t size = 0;
  rc = drydb_sharded_table_get_copy(table, &key, buf, sizeof buf, &size);
  if (refused(rc)) return rc;
  if (rc != DRYDB_OK || std::string(buf, size) != value_of(k)) return fail("get_copy", rc);
  uint64_t count = 0;
  const drydb_bound lo = {DRYDB_INCLUSIVE, drydb_key_int64(100)};
  const drydb_bound hi = {DRYDB_EXCLUSIVE, drydb_key_int64(1100)};
  rc = drydb_sharded_table_count_range(table, &lo, &hi, &count);
  if (refused(rc)) return rc;
  if (rc != DRYDB_OK || count != 1000) return fail("count_range", rc);
  uint32_t shard = 0;
  rc = drydb_sharded_table_shard_of(table, &key, &shard);
  if (refused(rc)) return rc;
  if (rc != DRYDB_OK || shard >= 2) return fail("shard_of", rc);
  const drydb_sharded_table* found = nullptr;
  rc = drydb_dataset_table(ds, "items", 5, &found);
  if (refused(rc)) return rc;
  if (rc != DRYDB_OK || found != table) return fail("dataset_table", rc);
  if (round % 8 == 0) {
    rc = drydb_dataset_verify(ds);
    if (refused(rc)) return rc;
    if (rc != DRYDB_OK) return fail("verify", rc);
  }
  return DRYDB_OK;
}

TEST(DatasetCloseRace, CloseWaitsForCallsInFlightAndLaterCallsRefuse) {
  const std::filesystem::path root = scratch("dataset");
  std::filesystem::remove_all(root);
  drydb_test::ShardedTable t = drydb_test::sharded_table("items", drydb::KeyEncoding::int64());
  for (int64_t k = 0; k < kRows; ++k)
    t.rows[drydb_test::int64_key(k)] = value_of(k);
  t.partitioning.splits.push_back(drydb_test::int64_key(kRows / 2));
  ASSERT_NO_FATAL_FAILURE(drydb_test::build_generation(root, 1, {t}, 2));

  for (int round = 0; round < kRounds / 2; ++round) {
    drydb_dataset* ds = nullptr;
    ASSERT_EQ(drydb_dataset_open(root.string().c_str(), nullptr, &ds), DRYDB_OK)
        << drydb_last_error_message();
    const drydb_sharded_table* table = nullptr;
    ASSERT_EQ(drydb_dataset_table(ds, "items", 5, &table), DRYDB_OK);
    std::latch querying(kQueriers);
    std::vector<QuerierOutcome> outcomes(kQueriers);
    std::vector<std::thread> queriers;
    for (int q = 0; q < kQueriers; ++q)
      queriers.emplace_back([&, q] {
        QuerierOutcome& out = outcomes[q];
        for (int64_t r = 0;; ++r) {
          const int rc = dataset_round(ds, table, r + q, &out.unexpected);
          if (r == 0) querying.count_down();
          if (rc != DRYDB_OK) {
            out.refused = rc;
            return;
          }
          out.rounds = r + 1;
        }
      });
    querying.wait();
    const int close_rc = drydb_dataset_close(ds);  // no holders here: it cannot be refused
    for (std::thread& th : queriers)
      th.join();
    ASSERT_EQ(close_rc, DRYDB_OK) << drydb_last_error_message();
    for (const QuerierOutcome& out : outcomes) {
      EXPECT_EQ(out.unexpected, "");
      EXPECT_GE(out.rounds, 1);
      EXPECT_EQ(out.refused, DRYDB_INVALID_ARGUMENT);
    }
    uint64_t count = 0;
    EXPECT_EQ(drydb_sharded_table_count(table, &count), DRYDB_INVALID_ARGUMENT);
    if (::testing::Test::HasFailure()) break;
  }
  std::filesystem::remove_all(root);
}
#endif

}  // namespace
