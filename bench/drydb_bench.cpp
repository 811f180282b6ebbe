// drydb itself: the files are built with 4 KiB pages and opened with the defaults
// (StorageKind::mmap: unfiltered pages are read in place, no copy, no page cache); the store
// drydb_mem reads the key-shape files with StorageKind::memory instead. The stores
// drydb_lz4, drydb_zstd and drydb_zstd_dict are the same files with filtered pages, which are
// decoded once into the page cache (64 MiB by default: every file here stays resident). The
// store os_floor is the operating system's share of OpenAndFirstRead (see OsFloor).
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "drydb/drydb.h"
#include "shape_readers.h"
#include "shape_workloads.h"
#include "workloads.h"

namespace drydb_bench {
namespace {

struct DrydbFile {
  std::filesystem::path path;
  drydb::ReadOnlyDatabase db;
  drydb::ReadOnlyTable table;
};

DrydbFile& open_file(const std::filesystem::path& path, const drydb::OpenOptions& options = {}) {
  auto db = drydb::ReadOnlyDatabase::open(path, options);
  require(db.has_value(), "drydb open", db ? "" : db.error().message);
  auto table = db->table("items");
  require(table.has_value(), "drydb table", table ? "" : table.error().message);
  // The table handle stays valid when the database is moved (it points to state the database
  // owns).
  auto* f = new DrydbFile{path, std::move(*db), *table};
  at_cleanup([f] { delete f; });
  return *f;
}

// The key-shape queries over the table ShapeFile(shape) opened; its file's size as file_bytes.
template <DrydbFile& (*ShapeFile)(const Shape&)>
class FileShapeReader : public DrydbShapeQueries {
 public:
  explicit FileShapeReader(const Shape& shape)
      : DrydbShapeQueries(shape, ShapeFile(shape).table), file_(ShapeFile(shape)) {}
  uint64_t file_bytes() const { return size_on_disk(file_.path); }

 private:
  DrydbFile& file_;
};

std::filesystem::path finish(drydb::DatabaseBuilder& builder, const std::string& name) {
  const auto dir = scratch_dir() / name;
  std::filesystem::create_directory(dir);
  const auto path = dir / "items.drydb";
  auto st = builder.build_to_file(path);
  require(st.has_value(), "drydb build", st ? "" : st.error().message);
  return path;
}

enum class Filter { none, lz4, zstd, zstd_dict };

template <Filter F>
drydb::BuildOptions build_options() {
  drydb::BuildOptions o{.page_size = kPageSize};
  if (F == Filter::lz4) o.filters = {drydb::filters::lz4()};
  if (F == Filter::zstd) o.filters = {drydb::filters::zstd()};
  if (F == Filter::zstd_dict) o.filters = {drydb::filters::zstd({.dictionary_bytes = 16 << 10})};
  return o;
}

// Bits per key of the miss filter the shape tables of the store "drydb_mf" carry
// (TableBuilder::add_miss_filter); the size RocksDB's bloom filter is given.
inline constexpr uint32_t kMissFilterBits = 10;

// F: the page filters; kMissFilter: whether the key-shape tables have a miss filter.
template <Filter F, bool kMissFilter = false>
struct Drydb {
  static constexpr const char* kPrefix = F == Filter::none   ? "drydb-"
                                         : F == Filter::lz4  ? "drydb_lz4-"
                                         : F == Filter::zstd ? "drydb_zstd-"
                                                             : "drydb_zstd_dict-";

  static void build(std::span<const int64_t> keys, const std::string& name) {
    const auto& values = build_values();
    drydb::DatabaseBuilder builder(build_options<F>());
    auto& items = builder.create_table("items", drydb::KeyEncoding::int64());
    for (int64_t k : keys)
      items.append(k, values[k]);
    finish(builder, name);
  }

  static Built inspect(const std::string& name) {
    const auto path = scratch_dir() / name / "items.drydb";
    auto db = drydb::ReadOnlyDatabase::open(path);
    if (!db) return {0, 0};
    auto table = db->table("items");
    return {table ? table->count() : 0, size_on_disk(path)};
  }

  static DrydbFile& int_file(int64_t rows) {
    auto make = [](int64_t n) -> DrydbFile& {
      const std::string name = kPrefix + std::to_string(n);
      build(std::span(build_order(true)).first(n), name);
      return open_file(scratch_dir() / name / "items.drydb");
    };
    if (rows == kRows) {
      static DrydbFile& small = make(kRows);
      return small;
    }
    static DrydbFile& big = make(kRows1M);
    return big;
  }

  static DrydbFile& string_file() {
    static DrydbFile& f = []() -> DrydbFile& {
      drydb::DatabaseBuilder builder(build_options<F>());
      auto& items = builder.create_table("items", drydb::KeyEncoding::bytes());
      for (int64_t i = 0; i < kStringRows; ++i)
        items.append(string_key_of(i), string_value_of(i));
      return open_file(finish(builder, std::string(kPrefix) + "strings"));
    }();
    return f;
  }

  class Reader {
   public:
    explicit Reader(int64_t rows) : table_(int_file(rows).table) {}
    uint64_t get(int64_t key) {
      auto v = table_.get(key);
      return v && v->has_value() ? fold(v->bytes()) : 0;
    }
    uint64_t range(int64_t first, int64_t last) {
      auto r = table_.get_range(first, last);
      if (!r) return 0;
      uint64_t sum = 0;
      for (auto e : *r)
        sum += fold(e.value);
      return sum;
    }
    uint64_t count(int64_t first, int64_t last) {
      auto n = table_.count_range(first, last);
      return n ? *n : 0;
    }

   private:
    drydb::ReadOnlyTable table_;
  };

  class StringReader {
   public:
    StringReader() : table_(string_file().table) {}
    uint64_t get(std::string_view key) {
      auto v = table_.get(key);
      return v && v->has_value() ? fold(v->bytes()) : 0;
    }
    uint64_t scan_all() {
      uint64_t sum = 0;
      for (auto e : *table_.get_range(drydb::unbounded, drydb::unbounded))
        sum += fold(e.value);
      return sum;
    }

   private:
    drydb::ReadOnlyTable table_;
  };

  // The table of a key shape: int64 keys for integer shapes, byte keys for text.
  static DrydbFile& shape_file(const Shape& shape) {
    static std::map<std::string, DrydbFile*> files;
    DrydbFile*& f = files[shape.name];
    if (f == nullptr) {
      drydb::DatabaseBuilder builder(build_options<F>());
      auto& items = builder.create_table("items", shape_key_encoding(shape));
      append_shape_rows(items, shape);
      if (kMissFilter) items.add_miss_filter(kMissFilterBits);
      f = &open_file(finish(
          builder, std::string(kPrefix) + (kMissFilter ? "mf-shape-" : "shape-") + shape.name));
    }
    return *f;
  }

  using ShapeReader = FileShapeReader<&shape_file>;

  static uint64_t open_and_first_read() {
    auto db = drydb::ReadOnlyDatabase::open(int_file(kRows).path);
    if (!db) return 0;
    auto table = db->table("items");
    if (!table) return 0;
    auto v = table->get(kFindKey);
    return v && v->has_value() ? fold(v->bytes()) : 0;
  }
};

// The "drydb" store's key-shape files opened again with another storage kind than mmap:
//   drydb_mem    StorageKind::memory (read whole at open into memory advised to be backed by
//                huge pages): what the same read path gains from fewer TLB misses;
//   drydb_pread  StorageKind::pread: leaves read through the kernel's page cache into drydb's
//                (the default bound, 64 MiB), internal pages kept once read. Only at 100M rows,
//                where the file is 32 times that bound.
template <drydb::StorageKind Storage>
struct DrydbStoredAs {
  static DrydbFile& shape_file(const Shape& shape) {
    static std::map<std::string, DrydbFile*> files;
    DrydbFile*& f = files[shape.name];
    if (f == nullptr)
      f = &open_file(Drydb<Filter::none>::shape_file(shape).path, {.storage = Storage});
    return *f;
  }

  using ShapeReader = FileShapeReader<&shape_file>;
};
using DrydbInMemory = DrydbStoredAs<drydb::StorageKind::memory>;
using DrydbPread = DrydbStoredAs<drydb::StorageKind::pread>;

// os_floor: what opening any memory-mapped file and reading a few of its pages costs on this
// machine, whatever reads them: open, fstat, mmap, one byte from each of the 4 pages drydb's
// open + first get touches (header, first leaf, root, catalog), munmap, close. Only
// OpenAndFirstRead; the floor under every store that maps its file (drydb, LMDB).
struct OsFloor {
  using Reader = Drydb<Filter::none>::Reader;
  static uint64_t open_and_first_read() {
    const auto& path = Drydb<Filter::none>::int_file(kRows).path;
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    struct stat st;
    if (::fstat(fd, &st) != 0 || st.st_size < 4 * static_cast<off_t>(kPageSize)) {
      ::close(fd);
      return 0;
    }
    const auto size = static_cast<size_t>(st.st_size);
    void* base = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
    ::close(fd);
    if (base == MAP_FAILED) return 0;
    const auto* bytes = static_cast<const unsigned char*>(base);
    unsigned sum = 0;
    for (size_t offset : {size_t{0}, size_t{kPageSize}, size - 2 * kPageSize, size - 1})
      sum += bytes[offset];
    benchmark::DoNotOptimize(sum);
    ::munmap(base, size);
    return expected_fold(kFindKey, kValueSize);  // nothing to look up: the floor only
  }
};

}  // namespace

// Filtered stores: the workloads that tell what filtering costs once pages are cached (gets and
// ranges at both sizes), what it costs to open, and what it saves (file_bytes of the builds).
template <Filter F>
void register_filtered(const std::string& store) {
  using S = Drydb<F>;
  add("RandomKeysNoRepeat", store, bm_random_keys<S, kRows, true>);
  add("Range", store, bm_range<S, kRows, kRangeFirst, kRangeLast>);
  add("RandomKeysNoRepeat_1M", store, bm_random_keys<S, kRows1M, true>);
  add("Range_1M", store, bm_range<S, kRows1M, kRange1MFirst, kRange1MLast>);
  register_open<S>(store);
  add("Build_1M_sorted", store, bm_build<S, true>)->Iterations(1);
}

void register_drydb() {
  register_int_reads<Drydb<Filter::none>>("drydb");
  register_string_reads<Drydb<Filter::none>>("drydb");
  register_open<Drydb<Filter::none>>("drydb");
  register_build<Drydb<Filter::none>>("drydb");
  register_shapes<Drydb<Filter::none>>("drydb", /*batched=*/true);
  register_shapes<Drydb<Filter::none, true>>("drydb_mf", /*batched=*/true, /*point_only=*/true);
  register_shapes<DrydbInMemory>("drydb_mem", /*batched=*/true);
  register_open<OsFloor>("os_floor");
  register_filtered<Filter::lz4>("drydb_lz4");
  register_filtered<Filter::zstd>("drydb_zstd");
  register_filtered<Filter::zstd_dict>("drydb_zstd_dict");
}

void register_drydb_large_shapes() {
  register_shapes<Drydb<Filter::none>>("drydb", /*batched=*/true, false, large_shapes());
  register_shapes<DrydbPread>("drydb_pread", /*batched=*/true, false, large_shapes());
}

}  // namespace drydb_bench
