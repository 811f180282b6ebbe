// The read path allocates nothing per query: gets, range steps, counts and
// cursor steps run with a counting global operator new (every form, the page
// cache's aligned one included) in this test binary.
#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "drydb/drydb.h"

namespace {
std::atomic<uint64_t> g_allocations{0};
std::atomic<uint64_t> g_aligned{0};  // of them, the aligned forms (page cache memory)

void* counted(size_t n) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(n ? n : 1);
}
void* counted_aligned(size_t n, std::align_val_t a) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  g_aligned.fetch_add(1, std::memory_order_relaxed);
  const size_t align = static_cast<size_t>(a);
#if defined(_WIN32)  // no aligned_alloc in Windows' C runtime: its own pair
  return _aligned_malloc(n ? n : 1, align);
#else
  return std::aligned_alloc(align, (n + align - 1) / align * align);  // a multiple of align
#endif
}
void free_aligned(void* p) {
#if defined(_WIN32)
  _aligned_free(p);
#else
  std::free(p);
#endif
}
}  // namespace

// The replacements below pair malloc with free; g++ cannot see that the
// replaced operator new is malloc and warns on each delete.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

// Every form of operator new, so no allocation escapes the count: the plain and nothrow ones,
// and the aligned ones the page cache uses for page memory.
void* operator new(size_t n) {
  if (void* p = counted(n)) return p;
  std::abort();
}
void* operator new[](size_t n) {
  return operator new(n);
}
void* operator new(size_t n, const std::nothrow_t&) noexcept {
  return counted(n);
}
void* operator new[](size_t n, const std::nothrow_t&) noexcept {
  return counted(n);
}
void* operator new(size_t n, std::align_val_t a) {
  if (void* p = counted_aligned(n, a)) return p;
  std::abort();
}
void* operator new[](size_t n, std::align_val_t a) {
  return operator new(n, a);
}
void* operator new(size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return counted_aligned(n, a);
}
void* operator new[](size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return counted_aligned(n, a);
}
void operator delete(void* p, std::align_val_t) noexcept {
  free_aligned(p);
}
void operator delete[](void* p, std::align_val_t) noexcept {
  free_aligned(p);
}
void operator delete(void* p, size_t, std::align_val_t) noexcept {
  free_aligned(p);
}
void operator delete[](void* p, size_t, std::align_val_t) noexcept {
  free_aligned(p);
}
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept {
  free_aligned(p);
}
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept {
  free_aligned(p);
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
  std::free(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept {
  std::free(p);
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete[](void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, size_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, size_t) noexcept {
  std::free(p);
}

namespace {

std::string value_of(int64_t i) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "val%010lld", static_cast<long long>(i));
  return buf;
}

class AllocationTest : public ::testing::TestWithParam<drydb::StorageKind> {
 protected:
  static constexpr int64_t kRows = 10'000;

  void SetUp() override {
    // One file per test and process: ctest runs the parameters in parallel.
    path_ = ::testing::TempDir() + "drydb_alloc_test_" +
            std::to_string(static_cast<int>(GetParam())) + "_" + std::to_string(::getpid()) +
            ".drydb";
    drydb::DatabaseBuilder builder({.page_size = 4096});
    auto& items = builder.create_table("items", drydb::KeyEncoding::int64());
    auto& words = builder.create_table("words", drydb::KeyEncoding::bytes());
    for (int64_t i = 0; i < kRows; ++i) {
      items.append(i, value_of(i));
      words.append("word" + std::to_string(i), i % 100 == 0 ? std::string(3000, 'x') : "v");
    }
    ASSERT_TRUE(builder.build_to_file(path_));
  }
  void TearDown() override { std::remove(path_.c_str()); }

  std::string path_;
};

TEST_P(AllocationTest, QueriesAllocateNothingOnceWarm) {
  // A cache that holds the file: once pages are resident, no query allocates.
  auto db =
      drydb::ReadOnlyDatabase::open(path_, {.storage = GetParam(), .page_cache_bytes = 64 << 20});
  ASSERT_TRUE(db);
  auto items = db->table("items").value();
  auto words = db->table("words").value();
  // get_many's keys and values: the caller's memory, made before counting.
  std::vector<drydb::Key> int_keys, word_keys;
  std::vector<std::string> word_names;
  for (int64_t k = 0; k < kRows; k += 13) {
    int_keys.emplace_back(k);
    word_names.push_back("word" + std::to_string(k));
  }
  for (const auto& w : word_names)
    word_keys.emplace_back(w);
  std::vector<drydb::Value> int_values(int_keys.size()), word_values(word_keys.size());
  auto run = [&] {
    uint64_t sum = 0;
    for (int64_t k = 0; k < kRows; k += 7)
      sum += items.get(k)->size();
    for (auto [key, value] : *items.get_range(int64_t{2000}, int64_t{2099}))
      sum += value.size();
    for (auto [key, value] :
         *items.get_range(int64_t{5000}, int64_t{5500}, {.order = drydb::SortOrder::descending}))
      sum += value.size();
    sum += *items.count_range(int64_t{1000}, int64_t{8999});
    for (auto [key, value] : *words.prefix("word12"))
      sum += value.size();
    auto cursor = words.cursor();
    for (bool ok = cursor.first(); ok; ok = cursor.next())
      sum += cursor.value().size();
    for (bool ok = cursor.last(); ok; ok = cursor.prev())
      sum += cursor.key().size();
    sum += words.get("word500")->size();  // an overflow value
    EXPECT_TRUE(items.get_many(int_keys, int_values));
    EXPECT_TRUE(words.get_many(word_keys, word_values));
    for (const auto& v : int_values)
      sum += v.size();
    for (const auto& v : word_values)  // word0, word1300, ...: overflow values among them
      sum += v.size();
    return sum;
  };
  const uint64_t aligned_before = g_aligned.load();
  const uint64_t warm = run();  // loads pages (allocates in the cached modes)
  // The count sees page memory: pread loads pages into the cache's aligned blocks; mmap and
  // memory read pages in place and allocate none.
  if (GetParam() == drydb::StorageKind::pread) {
    EXPECT_GT(g_aligned.load(), aligned_before);
  } else {
    EXPECT_EQ(g_aligned.load(), aligned_before);
  }
  // get_many answered what get answers (checked outside the counted run).
  for (size_t i = 0; i < int_keys.size(); ++i) {
    ASSERT_TRUE(int_values[i].has_value());
    EXPECT_EQ(int_values[i].str(), items.get(int_keys[i])->str());
    ASSERT_TRUE(word_values[i].has_value());
    EXPECT_EQ(word_values[i].str(), words.get(word_keys[i])->str());
  }
  const uint64_t before = g_allocations.load();
  const uint64_t again = run();
  EXPECT_EQ(g_allocations.load() - before, 0u) << "queries allocated";
  EXPECT_EQ(warm, again);
}

INSTANTIATE_TEST_SUITE_P(Storage, AllocationTest,
                         ::testing::Values(drydb::StorageKind::mmap, drydb::StorageKind::pread,
                                           drydb::StorageKind::memory),
                         [](const auto& info) {
                           return info.param == drydb::StorageKind::mmap    ? "mmap"
                                  : info.param == drydb::StorageKind::pread ? "pread"
                                                                            : "memory";
                         });

}  // namespace
