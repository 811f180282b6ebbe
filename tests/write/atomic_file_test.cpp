// drydb::AtomicFile (atomic_file.h): written whole or not at all, leftovers of dead writers
// removed, symlinks followed, what is not a regular file refused.
#include "drydb/atomic_file.h"

#include <gtest/gtest.h>
#if !defined(_WIN32)
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

#include <filesystem>
#include <string>
#include <string_view>

#include "support/suite.h"

namespace drydb_test {
namespace {

using drydb::AtomicFile;

std::string text_of(const std::filesystem::path& path) {
  const auto bytes = read_file(path);
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

std::span<const std::byte> bytes_of(std::string_view s) {
  return std::as_bytes(std::span(s.data(), s.size()));
}

TEST(AtomicFile, CommitReplacesTheTargetWithWhatWasWritten) {
  TempDir dir;
  const auto target = dir / "out.txt";
  ASSERT_TRUE(write_file(target, bytes_of("old")));
#if !defined(_WIN32)
  ASSERT_EQ(::chmod(target.c_str(), 0640), 0);
#endif
  auto file = AtomicFile::create(target);
  ASSERT_TRUE(file) << file.error().message;
  EXPECT_EQ(file->target(), target);
  ASSERT_TRUE(file->write_at(0, bytes_of("new ")));
#if defined(_WIN32)
  ASSERT_TRUE(file->write_at(4, bytes_of("text")));
#else
  // Through the descriptor too, as a stream of the caller's would write.
  ASSERT_EQ(::pwrite(file->fd(), "text", 4, 4), 4);
#endif
  EXPECT_EQ(text_of(target), "old");    // nothing seen before the commit
  EXPECT_EQ(dir.entries().size(), 2u);  // the target and the temp file beside it
  ASSERT_TRUE(file->commit());
  EXPECT_EQ(text_of(target), "new text");
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"out.txt"});
#if !defined(_WIN32)  // Windows files have no mode bits to keep
  struct stat st;
  ASSERT_EQ(::stat(target.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);  // the replaced file's permissions
#endif
}

TEST(AtomicFile, WithoutCommitTheTargetIsUntouchedAndTheTempFileGoes) {
  TempDir dir;
  const auto target = dir / "out.txt";
  ASSERT_TRUE(write_file(target, bytes_of("old")));
  {
    auto file = AtomicFile::create(target);
    ASSERT_TRUE(file);
    ASSERT_TRUE(file->write_at(0, bytes_of("half")));
    AtomicFile moved = std::move(*file);  // the moved-to file owns the temp file
  }
  EXPECT_EQ(text_of(target), "old");
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"out.txt"});
  // A new target: nothing is left at all.
  { ASSERT_TRUE(AtomicFile::create(dir / "new.txt")); }
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"out.txt"});
}

// A dead writer's temp file (no lock on it) is removed by the next writer to the same target;
// a live one's (locked) is kept, and so are other names.
TEST(AtomicFile, LeftoversOfDeadWritersAreRemoved) {
#if defined(_WIN32)
  GTEST_SKIP() << "POSIX only: the live writer's lock is taken here with flock(2)";
#else
  TempDir dir;
  const auto dead = dir / ".out.txt.tmp-DeAd01";
  const auto live = dir / ".out.txt.tmp-LiVe01";
  const auto other = dir / ".other.txt.tmp-DeAd01";
  for (const auto& p : {dead, live, other})
    ASSERT_TRUE(write_file(p, bytes_of("half")));
  const int fd = ::open(live.c_str(), O_RDWR);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX), 0);
  auto file = AtomicFile::create(dir / "out.txt");
  ASSERT_TRUE(file);
  EXPECT_FALSE(std::filesystem::exists(dead));
  EXPECT_TRUE(std::filesystem::exists(live));
  EXPECT_TRUE(std::filesystem::exists(other));
  ASSERT_TRUE(file->commit());
  ::close(fd);
#endif
}

TEST(AtomicFile, ASymlinkStaysAndItsTargetIsReplaced) {
#if defined(_WIN32)
  GTEST_SKIP() << "POSIX only: making a symbolic link needs a privilege on Windows";
#else
  TempDir dir;
  ASSERT_TRUE(write_file(dir / "real.txt", bytes_of("old")));
  std::filesystem::create_symlink("real.txt", dir / "link.txt");
  auto file = AtomicFile::create(dir / "link.txt");
  ASSERT_TRUE(file);
  EXPECT_EQ(file->target(), dir / "real.txt");
  ASSERT_TRUE(file->write_at(0, bytes_of("new")));
  ASSERT_TRUE(file->commit());
  EXPECT_TRUE(std::filesystem::is_symlink(dir / "link.txt"));
  EXPECT_EQ(text_of(dir / "real.txt"), "new");
#endif
}

TEST(AtomicFile, WhatIsNotARegularFileIsRefused) {
  TempDir dir;
#if defined(_WIN32)  // no FIFO in Windows' file system
  const char* const names[] = {"folder"};
#else
  ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0600), 0);
  const char* const names[] = {"fifo", "folder"};
#endif
  std::filesystem::create_directory(dir / "folder");
  for (const char* name : names) {
    auto file = AtomicFile::create(dir / name);
    ASSERT_FALSE(file) << name;
    EXPECT_EQ(file.error().code, drydb::errc::invalid_argument) << file.error().message;
  }
  auto missing = AtomicFile::create(dir / "no-such-folder" / "out.txt");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, drydb::errc::io_error);
}

}  // namespace
}  // namespace drydb_test
