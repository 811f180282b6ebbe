// Page filters (page_filter.h): every query kind over zstd, zstd with a
// trained dictionary, lz4, a custom keyed filter and two-filter chains in both
// orders, through every storage path; file sizes, determinism, the registry,
// and damaged filtered pages.

#include <gtest/gtest.h>
#include <zstd.h>

#include <climits>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "support/test_util.h"

namespace drydb_test {
namespace {

using drydb::errc;
using drydb::PageFilter;
using drydb::ReadOnlyDatabase;

// A keyed test filter with authentication: XOR with a key-seeded stream, then
// an 8-byte FNV-1a tag over key and plaintext. Decoding with another key (or
// damaged bytes) fails the tag: errc::corruption.
class KeyedFilter final : public PageFilter {
 public:
  explicit KeyedFilter(uint64_t key) : key_(key) {}
  std::string_view id() const noexcept override { return "test-keyed"; }
  size_t max_encoded_size(size_t n) const noexcept override { return n + 8; }
  drydb::result<size_t> encode(std::span<const std::byte> in,
                               std::span<std::byte> out) const override {
    uint64_t s = key_;
    for (size_t i = 0; i < in.size(); ++i)
      out[i] = in[i] ^ std::byte{static_cast<uint8_t>(next(s))};
    drydb::detail::store_u64(out.data() + in.size(), tag(in));
    return in.size() + 8;
  }
  drydb::result<size_t> decode(std::span<const std::byte> in,
                               std::span<std::byte> out) const override {
    if (in.size() < 8 || in.size() - 8 > out.size())
      return drydb::Error(errc::corruption, "test-keyed: bad length");
    const size_t n = in.size() - 8;
    uint64_t s = key_;
    for (size_t i = 0; i < n; ++i)
      out[i] = in[i] ^ std::byte{static_cast<uint8_t>(next(s))};
    if (drydb::detail::load_u64(in.data() + n) != tag(out.first(n)))
      return drydb::Error(errc::corruption, "test-keyed: authentication failed");
    return n;
  }

  static drydb::PageFilterRegistration registration(uint64_t key) {
    return {"test-keyed",
            [key](std::span<const std::byte>) -> drydb::result<std::shared_ptr<const PageFilter>> {
              return std::shared_ptr<const PageFilter>(std::make_shared<KeyedFilter>(key));
            }};
  }

 private:
  static uint64_t next(uint64_t& s) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
  }
  uint64_t tag(std::span<const std::byte> data) const {
    uint64_t h = 1469598103934665603ull ^ key_;
    for (std::byte b : data)
      h = (h ^ static_cast<uint8_t>(b)) * 1099511628211ull;
    return h;
  }
  uint64_t key_;
};

constexpr uint64_t kKey = 0x5eed'1234'abcd'9876ull;

struct FilterCase {
  const char* name;
  std::function<std::vector<std::shared_ptr<PageFilter>>()> make;
};

const FilterCase kCases[] = {
    {"lz4", [] { return std::vector<std::shared_ptr<PageFilter>>{drydb::filters::lz4()}; }},
    {"zstd", [] { return std::vector<std::shared_ptr<PageFilter>>{drydb::filters::zstd()}; }},
    {"zstd_dictionary",
     [] {
       return std::vector<std::shared_ptr<PageFilter>>{
           drydb::filters::zstd({.level = 3, .dictionary_bytes = 8 << 10})};
     }},
    {"keyed",
     [] { return std::vector<std::shared_ptr<PageFilter>>{std::make_shared<KeyedFilter>(kKey)}; }},
    {"lz4_then_keyed",
     [] {
       return std::vector<std::shared_ptr<PageFilter>>{drydb::filters::lz4(),
                                                       std::make_shared<KeyedFilter>(kKey)};
     }},
    {"keyed_then_zstd_dictionary",
     [] {
       return std::vector<std::shared_ptr<PageFilter>>{
           std::make_shared<KeyedFilter>(kKey),
           drydb::filters::zstd({.level = 1, .dictionary_bytes = 4 << 10})};
     }},
};

drydb::OpenOptions keyed_options(drydb::OpenOptions o = {}) {
  o.filters.push_back(KeyedFilter::registration(kKey));
  return o;
}

enum class Path { mapped, cached_small, pread_file, mmap_file, loaded_file };

class FilterQueries : public ::testing::TestWithParam<std::tuple<int, Path>> {};

TEST_P(FilterQueries, EveryQueryMatchesTheModel) {
  const auto [case_index, path] = GetParam();
  const FilterCase& fc = kCases[case_index];
  SCOPED_TRACE(fc.name);
  // Overflow values (over 128 bytes at 512-byte pages) and deep trees.
  const DbModel m = {.page_size = 512,
                     .tables = {random_table("b", Enc::bytes, 1500, 11, 0, 400),
                                random_table("i", Enc::int64, 1500, 12, 0, 40)}};
  const auto file = build_memory(m, {.filters = fc.make()}, 1);
  ASSERT_FALSE(file.empty());

  TempDir dir;
  drydb::result<ReadOnlyDatabase> db = drydb::Error(errc::invalid_state, "unset");
  switch (path) {
    case Path::mapped:
      db = ReadOnlyDatabase::open_memory(file, keyed_options());
      break;
    case Path::cached_small:
      db = ReadOnlyDatabase::open_storage(std::make_unique<MemoryStorage>(file),
                                          keyed_options({.page_cache_bytes = 4 * 512}));
      break;
    case Path::pread_file:
    case Path::mmap_file:
    case Path::loaded_file:
      ASSERT_TRUE(write_file(dir.path() / "f.drydb", file));
      db = ReadOnlyDatabase::open(
          dir.path() / "f.drydb",
          keyed_options({.storage = path == Path::pread_file  ? drydb::StorageKind::pread
                                    : path == Path::mmap_file ? drydb::StorageKind::mmap
                                                              : drydb::StorageKind::memory}));
      break;
  }
  ASSERT_TRUE(db) << describe(db.error());
  auto st = db->verify();
  ASSERT_TRUE(st) << describe(st.error());

  for (auto [model, enc] :
       {std::pair{&m.tables[0], Enc::bytes}, std::pair{&m.tables[1], Enc::int64}}) {
    auto table = db->table(model->name);
    ASSERT_TRUE(table);
    EXPECT_GE(table->info().depth, 3u);
    DiffChecker c(*table, *model);
    c.check_count();
    c.check_every_get();
    c.check_whole_table();
    std::vector<std::string> bounds;
    size_t i = 0;
    for (const auto& row : model->rows)
      if (i++ % 97 == 0) bounds.push_back(row.first);
    bounds.push_back(min_key(enc));
    bounds.push_back(max_key(enc));
    for (size_t a = 0; a < bounds.size(); ++a) {
      c.check_seek(bounds[a]);
      c.check_pair(bounds[a], bounds[(a * 7 + 3) % bounds.size()]);
    }
    if (enc == Enc::bytes)
      for (const auto& b : bounds)
        c.check_prefix(b.substr(0, 1));
    EXPECT_EQ(c.failures(), 0);
  }
}

std::string filter_case_name(const ::testing::TestParamInfo<std::tuple<int, Path>>& info) {
  static const char* kPaths[] = {"mapped", "cached_small", "pread_file", "mmap_file",
                                 "loaded_file"};
  return std::string(kCases[std::get<0>(info.param)].name) + "_" +
         kPaths[static_cast<int>(std::get<1>(info.param))];
}

INSTANTIATE_TEST_SUITE_P(
    Filters, FilterQueries,
    ::testing::Combine(::testing::Range(0, static_cast<int>(std::size(kCases))),
                       ::testing::Values(Path::mapped, Path::cached_small, Path::pread_file,
                                         Path::mmap_file, Path::loaded_file)),
    filter_case_name);

// The reference rows (int64 keys, "val%010d" values): compressible.
std::vector<std::byte> reference_file(std::vector<std::shared_ptr<PageFilter>> filters,
                                      int rows = 10000) {
  drydb::DatabaseBuilder b({.page_size = 4096, .filters = std::move(filters)});
  auto& t = b.create_table("t", drydb::KeyEncoding::int64());
  char value[32];
  for (int i = 0; i < rows; ++i) {
    std::snprintf(value, sizeof value, "val%010d", i);
    t.append(i, value);
  }
  return built_bytes(b.build_to_memory());
}

TEST(Filters, CompressionShrinksAndBuildsAreDeterministic) {
  const size_t plain = reference_file({}).size();
  for (int c : {0, 1, 2}) {
    SCOPED_TRACE(kCases[c].name);
    const auto a = reference_file(kCases[c].make());
    const auto b = reference_file(kCases[c].make());
    EXPECT_LT(a.size(), plain / 2) << a.size() << " vs " << plain;
    EXPECT_EQ(a, b);  // byte-identical for the same input and options
    auto db = ReadOnlyDatabase::open_memory(a).value();
    EXPECT_EQ(db.table("t")->get(1234)->str(), "val0000001234");
  }
}

// A trained dictionary is kept only when it pays for its own bytes, so it never makes a file
// larger than plain zstd when every page is in the sample (files up to 32 MiB).
TEST(Filters, DictionaryNeverCostsMoreThanItSaves) {
  for (uint32_t page_size : {512u, 4096u}) {
    auto build = [&](size_t dictionary_bytes) {
      drydb::DatabaseBuilder b(
          {.page_size = page_size,
           .filters = {drydb::filters::zstd({.level = 3, .dictionary_bytes = dictionary_bytes})}});
      auto& t = b.create_table("t");
      for (int i = 0; i < 5000; ++i)
        t.append("item:" + std::to_string(i * 7919 % 100000),
                 "{\"name\":\"item " + std::to_string(i) +
                     "\",\"kind\":\"weapon\",\"level\":" + std::to_string(i % 60) + "}");
      return built_bytes(b.build_to_memory());
    };
    const auto plain = build(0), with_dict = build(16 << 10);
    std::printf("page %u: zstd %zu bytes, zstd with dictionary %zu bytes\n", page_size,
                plain.size(), with_dict.size());
    EXPECT_LE(with_dict.size(), plain.size());
    auto db = ReadOnlyDatabase::open_memory(with_dict).value();
    EXPECT_TRUE(db.verify());
    EXPECT_EQ(db.table("t")->count(), 5000u);
  }
}

TEST(Filters, SecondaryIndexesReadThroughFilters) {
  drydb::DatabaseBuilder b({.page_size = 512, .filters = {drydb::filters::zstd()}});
  auto& t = b.create_table("t", drydb::KeyEncoding::int64());
  for (int i = 0; i < 2000; ++i)
    t.append(i, "group" + std::to_string(i % 10));
  t.add_secondary_index("group", false, drydb::KeyEncoding::bytes(),
                        [](std::span<const std::byte>, std::span<const std::byte> v)
                            -> std::optional<drydb::IndexKey> { return drydb::IndexKey(v); });
  const auto file = built_bytes(b.build_to_memory());
  auto db = ReadOnlyDatabase::open_storage(std::make_unique<MemoryStorage>(file),
                                           {.page_cache_bytes = 2048})
                .value();
  ASSERT_TRUE(db.verify());
  auto ix = db.table("t")->index("group").value();
  int64_t expected = 7;
  for (auto [k, v] : *ix.get_all("group7")) {
    EXPECT_EQ(int64_of(to_view(k)), expected);
    EXPECT_EQ(to_view(v), "group7");
    expected += 10;
  }
  EXPECT_EQ(expected, 2007);
  EXPECT_EQ(*ix.count_range("group2", "group4"), 600u);
}

TEST(Filters, KeysAndRegistry) {
  const auto file = reference_file({std::make_shared<KeyedFilter>(kKey)}, 2000);
  // Without a factory for the filter: a clear error naming it.
  auto none = ReadOnlyDatabase::open_memory(file);
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().code, errc::unknown_filter);
  EXPECT_NE(none.error().message.find("test-keyed"), std::string::npos);
  // The wrong key opens (the catalog is not filtered) but no page decodes.
  drydb::OpenOptions wrong;
  wrong.filters.push_back(KeyedFilter::registration(kKey + 1));
  auto db = ReadOnlyDatabase::open_memory(file, wrong).value();
  auto v = db.table("t")->get(5);
  ASSERT_FALSE(v);
  EXPECT_EQ(v.error().code, errc::corruption);
  EXPECT_NE(v.error().message.find("authentication"), std::string::npos) << v.error().message;
  EXPECT_FALSE(db.verify());
  // Registered process-wide, the filter is found without OpenOptions.
  ASSERT_TRUE(drydb::register_page_filter("test-keyed", KeyedFilter::registration(kKey).factory));
  auto dup = drydb::register_page_filter("test-keyed", KeyedFilter::registration(kKey).factory);
  EXPECT_EQ(dup.error().code, errc::duplicate_name);
  EXPECT_EQ(
      drydb::register_page_filter("zstd", KeyedFilter::registration(kKey).factory).error().code,
      errc::duplicate_name);
  EXPECT_EQ(drydb::register_page_filter("", KeyedFilter::registration(kKey).factory).error().code,
            errc::invalid_argument);
  auto registered = ReadOnlyDatabase::open_memory(file).value();
  EXPECT_EQ(registered.table("t")->get(5)->str(), "val0000000005");
}

TEST(Filters, BadFilterOptionsAreErrors) {
  drydb::DatabaseBuilder b({.filters = {nullptr}});
  EXPECT_EQ(b.status().error().code, errc::invalid_argument);
  // A zstd dictionary over the maximum is refused before the build allocates it (it used to
  // throw std::bad_alloc, or abort without exceptions), and by prepare() called directly.
  for (size_t bytes :
       {drydb::filters::kMaxZstdDictionaryBytes + 1, size_t{99999999999999}, SIZE_MAX}) {
    SCOPED_TRACE(bytes);
    auto filter = drydb::filters::zstd({.level = 3, .dictionary_bytes = bytes});
    drydb::DatabaseBuilder big({.filters = {filter}});
    ASSERT_FALSE(big.status());
    EXPECT_EQ(big.status().error().code, errc::invalid_argument);
    EXPECT_NE(big.status().error().message.find("zstd dictionary_bytes " + std::to_string(bytes) +
                                                " is over the maximum of 33554432 bytes (32 MiB)"),
              std::string::npos)
        << big.status().error().message;
    auto& t = big.create_table("t", drydb::KeyEncoding::int64());
    for (int i = 0; i < 2000; ++i)
      t.append(i, "value " + std::to_string(i));
    auto built = big.build_to_memory();
    ASSERT_FALSE(built);
    EXPECT_EQ(built.error().code, errc::invalid_argument);
    const std::string page(512, 'x');
    const std::span<const std::byte> one(reinterpret_cast<const std::byte*>(page.data()),
                                         page.size());
    const std::vector<std::span<const std::byte>> sample(8, one);
    auto prepared = filter->prepare(sample);
    ASSERT_FALSE(prepared);
    EXPECT_EQ(prepared.error().code, errc::invalid_argument);
  }
  // The maximum itself is taken (and trains what the sample allows).
  drydb::DatabaseBuilder max({.page_size = 512,
                              .filters = {drydb::filters::zstd(
                                  {.dictionary_bytes = drydb::filters::kMaxZstdDictionaryBytes})}});
  EXPECT_TRUE(max.status());
  auto& t = max.create_table("t", drydb::KeyEncoding::int64());
  for (int i = 0; i < 2000; ++i)
    t.append(i, "value " + std::to_string(i));
  const auto file = built_bytes(max.build_to_memory());
  auto db = ReadOnlyDatabase::open_memory(file).value();
  EXPECT_TRUE(db.verify());
  EXPECT_EQ(db.table("t")->get(1999)->str(), "value 1999");
}

// A zstd level outside zstd's own range (ZSTD_minCLevel() .. ZSTD_maxCLevel()) is refused by the
// builder, as invalid_argument naming the level; zstd itself would have clamped it and the file
// would have recorded a level no compression used. The range's ends are taken.
TEST(Filters, ZstdLevelsOutsideZstdsRangeAreRefused) {
  for (int level : {1000, ZSTD_maxCLevel() + 1, ZSTD_minCLevel() - 1, INT_MIN, INT_MAX}) {
    SCOPED_TRACE(level);
    drydb::DatabaseBuilder b({.filters = {drydb::filters::zstd({.level = level})}});
    ASSERT_FALSE(b.status());
    EXPECT_EQ(b.status().error().code, errc::invalid_argument);
    EXPECT_NE(b.status().error().message.find("zstd level " + std::to_string(level) +
                                              " is outside zstd's range"),
              std::string::npos)
        << b.status().error().message;
    auto& t = b.create_table("t", drydb::KeyEncoding::int64());
    t.append(1, "one");
    auto built = b.build_to_memory();
    ASSERT_FALSE(built);
    EXPECT_EQ(built.error().code, errc::invalid_argument);
  }
  for (int level : {ZSTD_minCLevel(), -7, 0, 22, ZSTD_maxCLevel()}) {
    SCOPED_TRACE(level);
    drydb::DatabaseBuilder b({.filters = {drydb::filters::zstd({.level = level})}});
    EXPECT_TRUE(b.status());
    auto& t = b.create_table("t", drydb::KeyEncoding::int64());
    for (int i = 0; i < 200; ++i)
      t.append(i, "value " + std::to_string(i));
    const auto file = built_bytes(b.build_to_memory());
    auto db = ReadOnlyDatabase::open_memory(file).value();
    EXPECT_EQ(db.table("t")->get(199)->str(), "value 199");
  }
}

// Every 7th byte of the stored pages, flipped. Each page is decoded with the file's filter
// before and after: a flip that changes what the page decodes to (or makes it fail) must be
// detected (by open or verify); one that leaves the decoded page the same (a match offset that
// finds equal bytes, a bit the decoder ignores) must change no answer. Never a crash or a wrong
// answer. The keyed filter authenticates every byte, so none of its flips may go unseen.
TEST(Filters, DamagedFilteredPagesAreDetected) {
  namespace d = drydb::detail;
  const TableModel model = random_table("t", Enc::bytes, 300, 21, 0, 200);
  for (int c : {0, 1, 3}) {
    SCOPED_TRACE(kCases[c].name);
    const auto filters = kCases[c].make();
    ASSERT_EQ(filters.size(), 1u);
    const auto file = build_memory({.page_size = 512, .tables = {model}}, {.filters = filters}, 1);
    ASSERT_FALSE(file.empty());
    const size_t data_end = file.size() - d::load_u64(file.data() + 32);
    // The page directory ends the catalog (no miss filters or column lists here): page p's
    // stored bytes are [offset, offset + stored) and decode to `decoded` bytes.
    const uint64_t pages = d::load_u64(file.data() + d::header::kPageCountOff) - 1;
    const std::byte* dir = file.data() + file.size() - pages * 16;
    struct Stored {
      uint64_t offset;
      uint32_t stored, decoded;
    };
    std::vector<Stored> stored;
    for (uint64_t p = 0; p < pages; ++p)
      stored.push_back({d::load_u64(dir + p * 16), d::load_u32(dir + p * 16 + 8),
                        d::load_u32(dir + p * 16 + 12)});
    // Pages are packed from byte 64 to the catalog, in page order.
    uint64_t next = 64;
    for (const auto& s : stored) {
      ASSERT_EQ(s.offset, next);
      next += s.stored;
    }
    ASSERT_EQ(next, data_end);
    auto decode = [&](const std::vector<std::byte>& f, const Stored& s) {
      std::vector<std::byte> out(512);
      auto n = filters[0]->decode(std::span(f).subspan(s.offset, s.stored), out);
      if (!n) return std::vector<std::byte>();  // no page at all: differs from every page
      out.resize(*n);
      return out;
    };

    int detected = 0, harmless = 0;
    size_t page = 0;
    for (size_t off = 64; off < data_end; off += 7) {
      while (off >= stored[page].offset + stored[page].stored)
        ++page;
      auto copy = file;
      copy[off] ^= std::byte{0x10};
      const bool page_changed = decode(copy, stored[page]) != decode(file, stored[page]);
      auto db = ReadOnlyDatabase::open_memory(copy, keyed_options());
      if (!db || !db->verify()) {
        ++detected;
        EXPECT_TRUE(page_changed) << "a flip at " << off << " that leaves page " << page + 1
                                  << " as it was is reported as damage";
        continue;
      }
      EXPECT_FALSE(page_changed) << "a flip at " << off << " changed page " << page + 1
                                 << " and went undetected";
      DiffChecker check(*db->table("t"), model);
      check.check_every_get();
      check.check_cursor_walks();
      EXPECT_EQ(check.failures(), 0) << "a flip at " << off << " changed an answer silently";
      ++harmless;
    }
    EXPECT_GT(detected, 0);
    if (c == 3) {
      EXPECT_EQ(harmless, 0) << "the keyed filter authenticates every byte";
    }
    std::printf("%s: %d flips detected, %d left their page as it was\n", kCases[c].name, detected,
                harmless);
  }
}

}  // namespace
}  // namespace drydb_test
