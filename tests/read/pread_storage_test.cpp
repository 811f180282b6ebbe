// pread storage on real files, its read loop driven through open_pread_storage's read function
// (storage.h) so that every branch is reached: EINTR is retried and short counts continued (the
// answers stay right), a failed read is errc::io_error, a read that finds the end of the file
// early is errc::truncated. Then a file rewritten in place (same size) under a pread reader:
// pages read from the new bytes fail their checksums (errc::corruption), cached pages keep
// answering, and no answer is wrong; the same for another valid file of the same length (its
// checksums are seeded with another file identity), also one of the same rows with another
// index function (format 2.5's identity covers each index's entries). (A file cut in place:
// readonly_deploy_test.)
#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>

#include "support/fault_util.h"

namespace drydb_test {
namespace {

using drydb::OpenOptions;
using drydb::PreadFunction;
using drydb::ReadOnlyDatabase;
using drydb::StorageKind;

constexpr size_t kCachePages = 6;

// "items" (byte keys, overflow values) and "nums" (int64 keys), page size 512: about 100 pages.
DbModel make_model() {
  DbModel m = users_and_numbers(600, 1);
  m.finish();
  return m;
}

// Opens `path` through pread storage reading with `read`, with a cache of a few pages, so most
// queries read pages from the file.
drydb::result<ReadOnlyDatabase> open_through(const std::filesystem::path& path,
                                             PreadFunction read) {
  auto storage = drydb::open_pread_storage(path, std::move(read));
  if (!storage) return std::move(storage).error();
  return ReadOnlyDatabase::open_storage(std::move(*storage),
                                        {.page_cache_bytes = kCachePages * 512});
}

// Writes `bytes` over the start of the file at `path` in place (no truncation, no new inode), as a
// `cp` over a file or a tool writing into it would, under any reader that has it open.
::testing::AssertionResult write_in_place(const std::filesystem::path& path, Bytes bytes) {
  std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
  if (!file.is_open())
    return ::testing::AssertionFailure() << "open " << path << ": " << std::strerror(errno);
  if (!file.write(reinterpret_cast<const char*>(bytes.data()),
                  static_cast<std::streamsize>(bytes.size())) ||
      !file.flush())
    return ::testing::AssertionFailure() << "writing " << bytes.size() << " bytes over " << path
                                         << " failed: " << std::strerror(errno);
  return ::testing::AssertionSuccess();
}

// Every query of `m` over `db` (check_database): none gives a wrong answer, some fail, all with
// `code` and the first with `text` in its message.
void expect_errors_never_wrong(const ReadOnlyDatabase& db, const DbModel& m, errc code,
                               std::string_view text) {
  Outcome out;
  check_database(db, m, out, 5);
  EXPECT_TRUE(out.wrong.empty()) << out.wrong[0];
  EXPECT_GT(out.errors, 0u);
  EXPECT_EQ(out.codes, std::set<int>{static_cast<int>(code)}) << out.first_error;
  EXPECT_NE(out.first_error.find(text), std::string::npos) << out.first_error;
}

// Each test's file: make_model() written to a fresh folder.
class PreadStorage : public ::testing::Test {
 protected:
  TempDir dir;
  const DbModel m = make_model();
  const std::filesystem::path path = write_model_file(dir, m);
};

TEST_F(PreadStorage, RetriesInterruptedReads) {
  // Every other call is interrupted before it reads anything, so every read of the storage
  // meets EINTR once and then reads.
  auto calls = std::make_shared<std::atomic<uint64_t>>(0);
  auto interrupted = std::make_shared<std::atomic<uint64_t>>(0);
  auto db = open_through(
      path, [=](drydb::NativeFile fd, std::span<std::byte> dst, uint64_t offset) -> int64_t {
        if (calls->fetch_add(1) % 2 == 0) {
          interrupted->fetch_add(1);
          errno = EINTR;
          return -1;
        }
        return real_pread(fd, dst, offset);
      });
  ASSERT_TRUE(db) << db.error().to_string();
  expect_all_right(*db, m);
  EXPECT_TRUE(db->verify());
  EXPECT_GT(interrupted->load(), 200u) << "pages were read from the file";
  EXPECT_EQ(calls->load(), 2 * interrupted->load()) << "each interrupted read was retried once";
}

TEST_F(PreadStorage, ContinuesShortReads) {
  // Each call reads 1 to 97 bytes, so a page takes several calls, each starting where the
  // previous one stopped.
  auto calls = std::make_shared<std::atomic<uint64_t>>(0);
  auto short_counts = std::make_shared<std::atomic<uint64_t>>(0);
  auto db = open_through(
      path, [=](drydb::NativeFile fd, std::span<std::byte> dst, uint64_t offset) -> int64_t {
        const size_t most = 1 + calls->fetch_add(1) % 97;
        if (most < dst.size()) {
          short_counts->fetch_add(1);
          dst = dst.first(most);
        }
        return real_pread(fd, dst, offset);
      });
  ASSERT_TRUE(db) << db.error().to_string();
  expect_all_right(*db, m);
  EXPECT_TRUE(db->verify());
  EXPECT_GT(short_counts->load(), 1000u);
}

// A read function that fails every read touching [from, to) of the file with `err` while armed.
struct FailingRange {
  std::atomic<bool> armed{false};
  std::atomic<uint64_t> from{0}, to{0}, failed{0};
  int err = EIO;

  PreadFunction function() {
    return [this](drydb::NativeFile fd, std::span<std::byte> dst, uint64_t offset) -> int64_t {
      if (armed.load() && offset < to.load() && offset + dst.size() > from.load()) {
        failed.fetch_add(1);
        errno = err;
        return -1;
      }
      return real_pread(fd, dst, offset);
    };
  }
};

TEST_F(PreadStorage, FailedReadIsIoErrorAndNotRemembered) {
  const auto bytes = read_file(path);
  const FileMap map = map_file(bytes);
  FailingRange fault;
  auto db = open_through(path, fault.function());
  ASSERT_TRUE(db) << db.error().to_string();

  // One leaf page fails: the queries that need it report io_error with the system's message;
  // every other answer is right.
  uint64_t leaf = 0;
  for (uint64_t p = map.page_count; p-- > 1;)
    if (map.page_type[p] == static_cast<uint8_t>(drydb::detail::PageType::leaf)) {
      leaf = p;
      break;
    }
  ASSERT_NE(leaf, 0u);
  fault.from = leaf * map.page_size;
  fault.to = (leaf + 1) * map.page_size;
  fault.armed = true;
  {
    Outcome out;
    std::string message;
    out.on_error = [&](const std::string& what) {
      if (message.empty()) message = what;
    };
    check_database(*db, m, out, 5);
    EXPECT_TRUE(out.wrong.empty()) << out.wrong[0];
    EXPECT_GT(out.errors, 0u);
    EXPECT_GT(out.correct, 100u);
    EXPECT_EQ(out.codes, std::set<int>{static_cast<int>(errc::io_error)}) << out.first_error;
    EXPECT_NE(message.find(std::strerror(EIO)), std::string::npos) << message;
    EXPECT_GT(fault.failed.load(), 0u);
    const auto checked = db->verify();
    EXPECT_EQ(checked.code(), errc::io_error);
  }
  // The disk recovers: the same database answers every query (the failure was not cached).
  fault.armed = false;
  expect_all_right(*db, m);
  EXPECT_TRUE(db->verify());
}

TEST_F(PreadStorage, OpenFailsWithIoErrorWhenTheHeaderCannotBeRead) {
  FailingRange fault;
  fault.to = 1;
  fault.armed = true;
  EXPECT_EQ(open_through(path, fault.function()).code(), errc::io_error);
}

TEST_F(PreadStorage, EndOfFileDuringAReadIsTruncated) {
  // The file "ends" at `end`: reads there return 0, a read across it returns the bytes before
  // it (a short count) and then 0, as a file cut under the reader would.
  auto end = std::make_shared<std::atomic<uint64_t>>(~uint64_t{0});
  auto db = open_through(
      path, [=](drydb::NativeFile fd, std::span<std::byte> dst, uint64_t offset) -> int64_t {
        const uint64_t e = end->load();
        if (offset >= e) return 0;
        if (offset + dst.size() > e) dst = dst.first(e - offset);
        return real_pread(fd, dst, offset);
      });
  ASSERT_TRUE(db) << db.error().to_string();
  // Halfway into page 20, so reads of page 20 see a short count then the end.
  end->store(20 * 512 + 256);
  expect_errors_never_wrong(*db, m, errc::truncated, "shorter than when it was opened");
  EXPECT_EQ(db->verify().code(), errc::truncated);
}

TEST_F(PreadStorage, ACountLargerThanTheReadIsAnError) {
  auto db = open_through(
      path, [](drydb::NativeFile fd, std::span<std::byte> dst, uint64_t offset) -> int64_t {
        const int64_t n = real_pread(fd, dst, offset);
        return n > 0 ? n + 1 : n;
      });
  EXPECT_EQ(db.code(), errc::io_error);
}

// ---- a file rewritten in place under a reader --------------------------------------------------

// The file's bytes rewritten in place with other bytes of the same length (a `cp` of another
// file over it, a tool writing into it) while a pread database reads it: pages still in the
// cache keep their old bytes and answer; every page read after the rewrite fails its checksum
// and is reported as corruption; no answer is wrong.
TEST_F(PreadStorage, RewrittenInPlaceIsCorruptionNeverAWrongAnswer) {
  const auto original = read_file(path);
  const FileMap map = map_file(original);
  auto db = ReadOnlyDatabase::open(
      path, {.storage = StorageKind::pread, .page_cache_bytes = kCachePages * 512});
  ASSERT_TRUE(db);
  auto nums = db->table("nums");
  ASSERT_TRUE(nums);
  const TableModel& want = *m.find("nums");
  drydb::Cursor c = nums->cursor();
  ASSERT_TRUE(c.first());
  auto it = want.sorted.begin();
  for (int i = 0; i < 20; ++i, ++it, c.next()) {
    ASSERT_TRUE(c.valid()) << c.status().error().to_string();
    ASSERT_EQ(to_view(c.key()), it->first);
  }

  // Every byte of every page after the header changes; the length stays.
  std::vector<std::byte> rewritten = original;
  for (uint64_t i = map.page_size; i < map.catalog_offset; ++i)
    rewritten[i] ^= std::byte{0xA5};
  ASSERT_TRUE(write_in_place(path, rewritten));
  ASSERT_EQ(std::filesystem::file_size(path), original.size());

  // The cursor goes on over rows of its cached leaf, right ones, and stops with corruption at
  // the first leaf it reads from the rewritten file.
  for (; c.valid(); c.next(), ++it) {
    ASSERT_NE(it, want.sorted.end());
    ASSERT_EQ(to_view(c.key()), it->first);
  }
  EXPECT_NE(it, want.sorted.end()) << "the walk met a page read after the rewrite";
  EXPECT_EQ(c.status().code(), errc::corruption) << c.status().error().to_string();

  expect_errors_never_wrong(*db, m, errc::corruption, "checksum");
  EXPECT_EQ(db->verify().code(), errc::corruption);
}

// Another valid drydb file of the same length copied over the file in place under a pread reader
// (the same tables, keys and value lengths, other values or other keys): every page of it is a
// valid page with a valid checksum in that file, but the file identity (format 2.4) seeds the
// checksums, so pages read after the copy fail theirs here: errors, never an answer from the
// other file, never a key that exists reported missing. `path` holds `first`'s file.
void expect_other_file_refused(const std::filesystem::path& path, const DbModel& first,
                               const DbModel& second) {
  auto other = build_database(second);
  ASSERT_TRUE(other) << other.error().to_string();
  ASSERT_EQ(other->size(), std::filesystem::file_size(path)) << "the files must be of one length";
  auto db = ReadOnlyDatabase::open(
      path, {.storage = StorageKind::pread, .page_cache_bytes = kCachePages * 512});
  ASSERT_TRUE(db);
  expect_all_right(*db, first);  // some pages now in the cache
  ASSERT_TRUE(write_in_place(path, *other));
  expect_errors_never_wrong(*db, first, errc::corruption, "checksum");
  // The same file's own bytes written over it change nothing.
  auto again = ReadOnlyDatabase::open(
      path, {.storage = StorageKind::pread, .page_cache_bytes = kCachePages * 512});
  ASSERT_TRUE(again);
  expect_all_right(*again, second);
  const auto same = read_file(path);
  ASSERT_TRUE(write_in_place(path, same));
  expect_all_right(*again, second);
}

TEST_F(PreadStorage, AnotherFileWithOtherValuesCopiedInPlaceIsRefused) {
  DbModel other = m;
  for (TableModel& t : other.tables)
    for (auto& [key, value] : t.rows)
      for (char& ch : value)
        ch = static_cast<char>(ch ^ 0x01);  // same lengths, other bytes
  other.finish();
  expect_other_file_refused(path, m, other);
}

TEST_F(PreadStorage, AnotherFileWithOtherKeysCopiedInPlaceIsRefused) {
  DbModel other = m;
  for (TableModel& t : other.tables) {
    Rows moved;
    for (auto& [key, value] : t.rows) {
      // Every key's first byte changed alike: other keys, in the same order, of the same
      // lengths, so the pages fall as the first file's do.
      std::string k = key;
      k.front() = static_cast<char>(k.front() ^ 0x40);
      moved.emplace(std::move(k), value);
    }
    ASSERT_EQ(moved.size(), t.rows.size());
    t.rows = std::move(moved);
  }
  other.finish();
  expect_other_file_refused(path, m, other);
}

// The same rows with another index function copied over the file in place under a pread reader:
// "nums" has an index of 40 keys, row i under key (i + shift) % 40, 15 rows each, so both files'
// index trees have their pages alike and the files one length. Before format 2.5 the identity
// knew an index's name, uniqueness and encoding but not its entries: both files had one identity,
// the other file's index pages passed their checksums here, and the index answered its keys with
// the other file's rows. The identity now covers each index's entries.
TEST_F(PreadStorage, TheSameRowsWithAnotherIndexFunctionCopiedInPlaceIsRefused) {
  const auto with_index = [](int64_t shift) {
    DbModel x = users_and_numbers(600, 1);
    x.tables[1].indexes.push_back(make_index(
        "group", false, drydb::KeyEncoding::int64(),
        [shift](const std::string& key, const std::string&) -> std::optional<std::string> {
          return int64_key(((int64_of(key) - 1) / 5 + shift) % 40);
        }));
    x.finish();
    return x;
  };
  const DbModel first = with_index(0), second = with_index(1);
  auto first_file = build_database(first);
  auto second_file = build_database(second);
  ASSERT_TRUE(first_file && second_file);
  EXPECT_NE(drydb::detail::load_u64(first_file->data() + drydb::detail::header::kIdentityOff),
            drydb::detail::load_u64(second_file->data() + drydb::detail::header::kIdentityOff));
  ASSERT_TRUE(write_file(path, *first_file));
  auto db = ReadOnlyDatabase::open(
      path, {.storage = StorageKind::pread, .page_cache_bytes = kCachePages * 512});
  ASSERT_TRUE(db);
  auto index = db->table("nums")->index("group");
  ASSERT_TRUE(index);
  const TableModel& nums = *first.find("nums");
  const IndexModel& group = nums.indexes.front();
  // Every index key's rows through get and get_all: right before the copy, never wrong after it.
  const auto ask_every_key = [&](Outcome& out) {
    for (int64_t k = 0; k < 40; ++k) {
      check_index_get(*index, nums, group, int64_key(k), out);
      check_index_get_all(*index, nums, group, int64_key(k), out);
    }
  };
  Outcome before;
  ask_every_key(before);
  EXPECT_TRUE(before.clean()) << before.first_error;
  ASSERT_TRUE(write_in_place(path, *second_file));
  Outcome after;
  ask_every_key(after);
  EXPECT_TRUE(after.wrong.empty())
      << after.wrong.size() << " wrong answers, the first: " << after.wrong[0];
  EXPECT_GT(after.errors, 0u);
  EXPECT_EQ(after.codes, std::set<int>{static_cast<int>(errc::corruption)}) << after.first_error;
  EXPECT_NE(after.first_error.find("checksum"), std::string::npos) << after.first_error;
  EXPECT_EQ(db->verify().code(), errc::corruption);
}

}  // namespace
}  // namespace drydb_test
