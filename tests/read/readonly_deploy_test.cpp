// Read-only deployment: a reader needs nothing but read access to the file, writes nothing,
// and keeps serving the version it opened when the file is replaced by rename.
//
// What proves "read-only, no sidecar" even though tests run as root (for whom permission bits
// do not stop writes):
//   * inotify on the folder while a database is opened, queried and closed (mmap, pread and
//     memory):
//     no file is created, modified, renamed, deleted or has its attributes changed, and every
//     open of the database file is closed as IN_CLOSE_NOWRITE (the kernel reports
//     IN_CLOSE_WRITE for a descriptor that was open for writing);
//   * the folder lists the same entries before, during and after;
//   * pread: the descriptor open on the file has O_RDONLY access (/proc/self/fdinfo); mmap:
//     the mapping is read-only and shared ("r--s" in /proc/self/maps) and no descriptor stays
//     open; memory: neither a descriptor nor a mapping of the file stays;
//   * in a child that gives up root (setuid to nobody), the file at mode 0444 in a folder at
//     0555 opens and answers through every storage kind.
// Hot swap: a file replaced by rename (build_to_file does that) or unlinked while open keeps
// answering with the old contents, both mapped and through a page cache smaller than the file
// (so pages are read after the swap); opening again sees the new file. A file cut in place:
// pread reports errc::truncated; a file read whole at open does not see it.
#include <gtest/gtest.h>
#if !defined(_WIN32)
#include <fcntl.h>
#include <grp.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "support/fault_util.h"

namespace drydb_test {
namespace {

using drydb::OpenOptions;
using drydb::ReadOnlyDatabase;
using drydb::StorageKind;

DbModel make_model(int version, int rows) {
  DbModel m;
  m.page_size = 512;
  TableModel t = make_table("t", drydb::KeyEncoding::bytes());
  for (int i = 0; i < rows; ++i) {
    char k[32];
    std::snprintf(k, sizeof k, "key/%05d", i);
    size_t len = static_cast<size_t>(i % 30);
    if (i % 50 == 7) len = 700;  // overflow runs too
    t.rows.emplace(k, "v" + std::to_string(version) + ":" + make_value(i * 10 + version, len));
  }
  m.tables = {t};
  m.finish();
  return m;
}

void build_file(const DbModel& m, const std::filesystem::path& path) {
  drydb::DatabaseBuilder b({.page_size = m.page_size});
  for (const auto& t : m.tables) {
    auto& tb = b.create_table(t.name, t.enc);
    for (const auto& [k, v] : t.rows)
      tb.append(key_of(t, k), v);
  }
  const auto st = b.build_to_file(path);
  ASSERT_TRUE(st) << st.error().to_string();
}

std::string as_text(std::span<const std::byte> b) {
  return std::string(reinterpret_cast<const char*>(b.data()), b.size());
}

[[maybe_unused]] const char* kind_name(StorageKind k) {  // unused on Windows
  return k == StorageKind::mmap ? "mmap" : k == StorageKind::pread ? "pread" : "memory";
}

// ---- read-only access ------------------------------------------------------------------------

#if defined(_WIN32)
TEST(ReadOnlyDeploy, OpensReadOnlyAndWritesNothing) {
  GTEST_SKIP() << "Linux only: watched through inotify and /proc/self, and a child that drops "
                  "root (fork, setuid)";
}
#else

struct Inotify {
  int fd = -1;
  explicit Inotify(const std::filesystem::path& dir) {
    fd = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (fd >= 0 && ::inotify_add_watch(fd, dir.c_str(), IN_ALL_EVENTS) < 0) {
      ::close(fd);
      fd = -1;
    }
  }
  ~Inotify() {
    if (fd >= 0) ::close(fd);
  }
  // Every event so far: (mask, name).
  std::vector<std::pair<uint32_t, std::string> > events() const {
    std::vector<std::pair<uint32_t, std::string> > out;
    alignas(inotify_event) char buf[8192];
    for (;;) {
      const ssize_t n = ::read(fd, buf, sizeof buf);
      if (n <= 0) break;
      for (char* p = buf; p < buf + n;) {
        const auto* e = reinterpret_cast<const inotify_event*>(p);
        out.emplace_back(e->mask, e->len ? std::string(e->name) : std::string());
        p += sizeof(inotify_event) + e->len;
      }
    }
    return out;
  }
};

// The descriptors of this process open on `path`, with their fdinfo flags.
std::vector<std::pair<int, unsigned> > descriptors_on(const std::filesystem::path& path) {
  std::vector<std::pair<int, unsigned> > out;
  std::error_code ec;
  const auto want = std::filesystem::canonical(path, ec);
  for (auto it = std::filesystem::directory_iterator("/proc/self/fd", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    std::error_code rec;
    const auto target = std::filesystem::read_symlink(it->path(), rec);
    if (rec || target != want) continue;
    const int fd = std::stoi(it->path().filename().string());
    std::ifstream info("/proc/self/fdinfo/" + std::to_string(fd));
    std::string line;
    unsigned flags = ~0u;
    while (std::getline(info, line))
      if (line.rfind("flags:", 0) == 0)
        flags = static_cast<unsigned>(std::stoul(line.substr(6), nullptr, 8));
    out.emplace_back(fd, flags);
  }
  return out;
}

// The permission fields ("r--s") of this process's mappings of `path`.
std::vector<std::string> mappings_of(const std::filesystem::path& path) {
  std::vector<std::string> out;
  std::error_code ec;
  const std::string want = std::filesystem::canonical(path, ec).string();
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line))
    if (line.size() > want.size() &&
        line.compare(line.size() - want.size(), want.size(), want) == 0)
      out.push_back(line.substr(line.find(' ') + 1, 4));
  return out;
}

TEST(ReadOnlyDeploy, OpensReadOnlyAndWritesNothing) {
  TempDir dir;
  const auto path = dir / "db.drydb";
  const DbModel model = make_model(1, 400);
  build_file(model, path);
  ASSERT_EQ(::chmod(path.c_str(), 0444), 0);
  ASSERT_EQ(::chmod(dir.path().c_str(), 0555), 0);
  const auto listing = dir.entries();

  for (StorageKind kind : {StorageKind::mmap, StorageKind::pread, StorageKind::memory}) {
    SCOPED_TRACE(kind_name(kind));
    Inotify watch(dir.path());
    ASSERT_GE(watch.fd, 0) << "inotify is not available";
    {
      auto db = ReadOnlyDatabase::open(path, {.storage = kind, .page_cache_bytes = 4 * 512});
      ASSERT_TRUE(db) << db.error().to_string();
      expect_database_correct(*db, model, 100);
      EXPECT_TRUE(db->verify());
      EXPECT_EQ(dir.entries(), listing) << "a file appeared beside the database";
      const auto fds = descriptors_on(path);
      const auto maps = mappings_of(path);
      if (kind == StorageKind::pread) {
        ASSERT_EQ(fds.size(), 1u) << "one descriptor on the file while open";
        EXPECT_EQ(fds[0].second & O_ACCMODE, static_cast<unsigned>(O_RDONLY))
            << "flags " << std::oct << fds[0].second;
        EXPECT_NE(fds[0].second & O_CLOEXEC, 0u)
            << "the descriptor would leak into exec'd children";
        EXPECT_TRUE(maps.empty());
      } else if (kind == StorageKind::mmap) {
        EXPECT_TRUE(fds.empty()) << "the mapping needs no open descriptor";
        ASSERT_EQ(maps.size(), 1u);
        EXPECT_EQ(maps[0], "r--s") << "the file is mapped read-only and shared";
      } else {
        EXPECT_TRUE(fds.empty()) << "a loaded file needs no open descriptor";
        EXPECT_TRUE(maps.empty()) << "a loaded file is not mapped";
      }
    }
    EXPECT_TRUE(descriptors_on(path).empty()) << "a descriptor outlived the database";
    EXPECT_TRUE(mappings_of(path).empty()) << "a mapping outlived the database";
    EXPECT_EQ(dir.entries(), listing);
    int opens = 0, closes_nowrite = 0;
    for (const auto& [mask, name] : watch.events()) {
      EXPECT_EQ(mask & (IN_CREATE | IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE | IN_MOVED_FROM |
                        IN_MOVED_TO | IN_DELETE),
                0u)
          << "event " << std::hex << mask << " on '" << name << "'";
      if (name == "db.drydb" && (mask & IN_OPEN)) ++opens;
      if (name == "db.drydb" && (mask & IN_CLOSE_NOWRITE)) ++closes_nowrite;
    }
    EXPECT_GE(opens, 1);
    EXPECT_EQ(closes_nowrite, opens) << "every open of the file closes as read-only";
  }

  // Without root's override of permission bits: a child running as nobody reads the 0444 file
  // in the 0555 folder through both storage kinds.
  if (::geteuid() == 0) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      if (::setgroups(0, nullptr) != 0 || ::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(3);
      if (::access(path.c_str(), W_OK) == 0) ::_exit(4);  // really without write permission
      for (StorageKind kind : {StorageKind::mmap, StorageKind::pread, StorageKind::memory}) {
        auto db = ReadOnlyDatabase::open(path, {.storage = kind});
        if (!db) {
          std::fprintf(stderr, "as nobody (%s): %s\n", kind_name(kind), db.error().message.c_str());
          ::_exit(5);
        }
        Outcome out;
        check_database(*db, model, out);
        if (!out.wrong.empty() || out.errors != 0 || !db->verify()) ::_exit(6);
      }
      ::_exit(0);
    }
    ASSERT_GT(pid, 0);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_NE(WEXITSTATUS(status), 3) << "could not drop root";
    EXPECT_NE(WEXITSTATUS(status), 4) << "nobody can write the file";
    EXPECT_EQ(WEXITSTATUS(status), 0) << "reading as nobody failed";
  }
  EXPECT_EQ(dir.entries(), listing);
  ASSERT_EQ(::chmod(dir.path().c_str(), 0755), 0);  // so that TempDir can clean up
}
#endif  // defined(_WIN32)

// ---- hot swap --------------------------------------------------------------------------------

TEST(ReadOnlyDeploy, RenameOverAnOpenFileKeepsTheOldVersion) {
#if defined(_WIN32)
  GTEST_SKIP() << "POSIX only: Windows cannot replace or delete a file that is open or mapped "
                  "(docs/errors.md)";
#else
  TempDir dir;
  const auto path = dir / "db.drydb";
  const DbModel v1 = make_model(1, 600), v2 = make_model(2, 900);
  build_file(v1, path);
  // Open both ways; the pread database's cache holds 4 of about 70 pages, so most pages are
  // read from the file after it is replaced.
  auto mapped = ReadOnlyDatabase::open(path, {.storage = StorageKind::mmap});
  auto cached =
      ReadOnlyDatabase::open(path, {.storage = StorageKind::pread, .page_cache_bytes = 4 * 512});
  ASSERT_TRUE(mapped && cached);
  // Touch a little of each before the swap.
  ASSERT_TRUE(mapped->table("t")->get("key/00001"));
  ASSERT_TRUE(cached->table("t")->get("key/00001"));

  build_file(v2, path);  // build_to_file: temp file, fsync, rename over the open file
  for (auto* db : {&*mapped, &*cached}) {
    expect_database_correct(*db, v1, 1000);
    EXPECT_TRUE(db->verify());
  }
  auto fresh = ReadOnlyDatabase::open(path);
  ASSERT_TRUE(fresh);
  expect_database_correct(*fresh, v2, 1000);

  // A plain rename(2) of another file over it, and an unlink: the same.
  const auto other = dir / "incoming.drydb";
  build_file(v1, other);
  auto before =
      ReadOnlyDatabase::open(path, {.storage = StorageKind::pread, .page_cache_bytes = 4 * 512});
  ASSERT_TRUE(before);
  ASSERT_EQ(::rename(other.c_str(), path.c_str()), 0);
  expect_database_correct(*before, v2, 1000);
  expect_database_correct(*ReadOnlyDatabase::open(path), v1, 1000);
  auto gone =
      ReadOnlyDatabase::open(path, {.storage = StorageKind::pread, .page_cache_bytes = 4 * 512});
  ASSERT_TRUE(gone);
  ASSERT_EQ(::unlink(path.c_str()), 0);
  expect_database_correct(*gone, v1, 1000);
  expect_database_correct(*fresh, v2, 1000);  // still the version it opened
  EXPECT_EQ(ReadOnlyDatabase::open(path).code(), errc::io_error);
#endif
}

// ---- a file cut in place under a reader ------------------------------------------------------

// A file truncated in place while a pread database reads it (what a `truncate` or an
// interrupted `cp` over it does): pages read before the cut keep answering, every read of a
// page past the new end reports errc::truncated (never a crash, never a wrong row), verify()
// reports it, and opening the cut file again is refused. Through mmap the same cut would raise
// SIGBUS on first touch of a cut page (docs/errors.md).
TEST(ReadOnlyDeploy, TruncatedUnderAPreadReaderReportsTruncated) {
  TempDir dir;
  const auto path = dir / "db.drydb";
  const int rows = 3000;
  const DbModel m = make_model(1, rows);
  build_file(m, path);
  const uint64_t full = std::filesystem::file_size(path);
  // A cache of 4 pages: nearly every page is read from the file when first reached.
  auto db =
      ReadOnlyDatabase::open(path, {.storage = StorageKind::pread, .page_cache_bytes = 4 * 512});
  ASSERT_TRUE(db);
  auto t = db->table("t");
  ASSERT_TRUE(t);
  drydb::Cursor c = t->cursor();
  ASSERT_TRUE(c.first());
  const auto& want = m.tables[0].rows;
  auto it = want.begin();
  int read = 0;
  for (; read < 100; ++read, ++it) {
    ASSERT_TRUE(c.valid()) << c.status().error().to_string();
    ASSERT_EQ(as_text(c.key()), it->first);
    c.next();
  }
  // Cut the file to its first 16 pages: the rows read so far lie in them, most do not.
  const uint64_t cut = 16 * 512;
  ASSERT_LT(cut * 4, full);
  std::filesystem::resize_file(path, cut);

  // The scan goes on until it reaches a page past the cut, then stops with `truncated`; every
  // row it returned is the right one.
  for (; c.valid(); c.next(), ++it, ++read) {
    ASSERT_NE(it, want.end());
    ASSERT_EQ(as_text(c.key()), it->first);
  }
  EXPECT_LT(read, rows);
  ASSERT_FALSE(c.status());
  EXPECT_EQ(c.status().code(), errc::truncated) << c.status().error().to_string();
  EXPECT_NE(c.status().error().message.find("shorter than when it was opened"), std::string::npos)
      << c.status().error().message;

  // A get of the last key (its leaf is past the cut) and verify() say the same; a get whose
  // pages lie before the cut, once re-read from the file, still answers.
  const auto last = t->get(std::prev(want.end())->first);
  EXPECT_EQ(last.code(), errc::truncated);
  const auto first = t->get(want.begin()->first);
  ASSERT_TRUE(first) << first.error().to_string();
  const auto checked = db->verify();
  ASSERT_FALSE(checked);
  EXPECT_EQ(checked.code(), errc::truncated) << checked.error().to_string();
  EXPECT_EQ(ReadOnlyDatabase::open(path, {.storage = StorageKind::pread}).code(), errc::truncated);
}

// A file read whole at open (StorageKind::memory) answers from its copy: a page overwritten and
// the file cut in place to a few pages after open, every query still gets the right answer and
// verify() passes, where an open of the changed file is refused as truncated.
TEST(ReadOnlyDeploy, ALoadedFileIsUntouchedByChangesAfterOpen) {
  TempDir dir;
  const auto path = dir / "db.drydb";
  const DbModel m = make_model(1, 3000);
  build_file(m, path);
  auto db = ReadOnlyDatabase::open(path, {.storage = StorageKind::memory});
  ASSERT_TRUE(db) << db.error().to_string();
  {
    std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
    const std::string junk(512, '\x5A');
    file.seekp(8 * 512);
    ASSERT_TRUE(file.write(junk.data(), static_cast<std::streamsize>(junk.size())));
  }
  std::filesystem::resize_file(path, 16 * 512);
  expect_database_correct(*db, m, 1000);
  EXPECT_TRUE(db->verify());
  EXPECT_EQ(ReadOnlyDatabase::open(path, {.storage = StorageKind::memory}).code(), errc::truncated);
}

// Memory the system will not give for a file read whole at open is errc::out_of_memory from
// open, never a crash: in a child whose address space is capped 64 MiB above what it uses, a
// 1 GiB file (sparse: it takes no disk) cannot be loaded. Skipped where the cap is not enforced:
// qemu-user accepts the setrlimit and maps whatever is asked (the emulator reserves its guest's
// memory itself), so an anonymous mapping of twice the headroom proves the cap first.
TEST(ReadOnlyDeploy, ALoadTheSystemCannotHoldIsOutOfMemory) {
#if defined(_WIN32)
  GTEST_SKIP() << "POSIX only: the load runs in a forked child under an RLIMIT_AS cap";
#else
  TempDir dir;
  const auto path = dir / "big.drydb";
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::ftruncate(fd, off_t{1} << 30), 0);
  ::close(fd);
  const pid_t pid = ::fork();
  if (pid == 0) {
    long pages = 0;
    FILE* statm = std::fopen("/proc/self/statm", "r");
    if (statm == nullptr || std::fscanf(statm, "%ld", &pages) != 1) ::_exit(3);
    std::fclose(statm);
    const rlim_t cap = static_cast<rlim_t>(pages) * static_cast<rlim_t>(::sysconf(_SC_PAGESIZE)) +
                       (rlim_t{64} << 20);
    const struct rlimit limit = {cap, cap};
    if (::setrlimit(RLIMIT_AS, &limit) != 0) ::_exit(4);
    void* beyond = ::mmap(nullptr, size_t{128} << 20, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (beyond != MAP_FAILED) ::_exit(7);
    auto db = ReadOnlyDatabase::open(path, {.storage = StorageKind::memory});
    if (db) ::_exit(5);
    if (db.code() != errc::out_of_memory) {
      std::fprintf(stderr, "%s\n", db.error().to_string().c_str());
      ::_exit(6);
    }
    ::_exit(0);
  }
  ASSERT_GT(pid, 0);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 7)
    GTEST_SKIP() << "the address space cap is not enforced here (qemu-user ignores RLIMIT_AS)";
  EXPECT_EQ(WEXITSTATUS(status), 0) << "3, 4: the cap was not set; 5: the load succeeded; "
                                       "6: another error (on stderr)";
#endif
}

}  // namespace
}  // namespace drydb_test
