// RocksDB (Debian librocksdb 7.8), in its fastest read-only setup for data built once:
//
//   - keys: the 8-byte big-endian key (every key is >= 0, so bytewise order is numeric order);
//     string keys as they are;
//   - table: block-based, no compression, 4 KiB blocks, kDataBlockBinaryAndHash (a hash index in
//     every data block: a point get finds its key's restart interval by hash instead of a binary
//     search over the restarts; block_restart_interval stays at its default 16, where 1 gave
//     about 10% faster gets in one trial here), a full Bloom filter (NewBloomFilterPolicy(10),
//     whole-key filtering), an LRU block cache of 512 MiB that holds every block of every file;
//   - loaded as one level: the rows are written in order by SstFileWriter and the file is handed
//     to IngestExternalFile (moved, not copied) of an empty DB, so a read consults one file, no
//     memtable and no level above it;
//   - opened with DB::OpenForReadOnly, max_open_files = -1 (every table reader, with its index
//     and filter, opened once and kept);
//   - reads: ReadOptions with verify_checksums = false; gets into a PinnableSlice (no copy of the
//     value out of the cached block); ranges and counts by an iterator bounded by
//     iterate_upper_bound (RocksDB has no O(log n) count: a count walks the rows).
//
// Debian builds librocksdb with assertions enabled (it imports __assert_fail; upstream's release
// builds define NDEBUG), so these figures are somewhat slower than a release build of RocksDB
// would give. docs/benchmarks.md says so beside them.
//
// Build: SstFileWriter needs sorted keys, so shuffled input is sorted in memory first (timed, as a
// user would have to); then the ingest into an empty DB, which syncs the file.
#include <rocksdb/cache.h>
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/iterator.h>
#include <rocksdb/options.h>
#include <rocksdb/slice.h>
#include <rocksdb/sst_file_writer.h>
#include <rocksdb/table.h>
#include <rocksdb/version.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "shape_workloads.h"
#include "workloads.h"

namespace drydb_bench {
namespace {

void check_status(const rocksdb::Status& s, std::string_view what) {
  if (!s.ok()) die(what, s.ToString());
}

// A fresh block cache per call: each opened DB has its own.
rocksdb::Options make_options() {
  rocksdb::Options o;
  o.create_if_missing = true;
  o.compression = rocksdb::kNoCompression;
  o.bottommost_compression = rocksdb::kDisableCompressionOption;
  o.max_open_files = -1;
  rocksdb::BlockBasedTableOptions t;
  t.block_size = 4096;
  t.data_block_index_type = rocksdb::BlockBasedTableOptions::kDataBlockBinaryAndHash;
  t.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  t.whole_key_filtering = true;
  t.block_cache = rocksdb::NewLRUCache(size_t{512} << 20);
  o.table_factory.reset(rocksdb::NewBlockBasedTableFactory(t));
  return o;
}

rocksdb::ReadOptions read_options() {
  rocksdb::ReadOptions r;
  r.verify_checksums = false;
  return r;
}

struct Be64 {
  char bytes[8];
  explicit Be64(int64_t key) { store_be64(bytes, key); }
  rocksdb::Slice slice() const { return {bytes, 8}; }
};

// Writes `put(writer)`'s rows to one SST file, ingests it into a new DB in <scratch>/<name>/db
// and closes that.
template <class Put>
void write_db(const std::string& name, Put put) {
  const auto dir = scratch_dir() / name;
  std::filesystem::create_directory(dir);
  const std::string sst = (dir / "load.sst").string();
  const rocksdb::Options options = make_options();
  rocksdb::SstFileWriter writer(rocksdb::EnvOptions(), options);
  check_status(writer.Open(sst), "SstFileWriter::Open");
  put(writer);
  rocksdb::ExternalSstFileInfo info;
  check_status(writer.Finish(&info), "SstFileWriter::Finish");

  rocksdb::DB* db = nullptr;
  check_status(rocksdb::DB::Open(options, (dir / "db").string(), &db), "DB::Open");
  rocksdb::IngestExternalFileOptions ingest;
  ingest.move_files = true;
  check_status(db->IngestExternalFile({sst}, ingest), "IngestExternalFile");
  check_status(db->Close(), "DB::Close");
  delete db;
}

void write_int_db(std::span<const int64_t> keys, const std::string& name) {
  std::vector<int64_t> sorted;
  if (!std::is_sorted(keys.begin(), keys.end())) {
    sorted.assign(keys.begin(), keys.end());
    std::sort(sorted.begin(), sorted.end());
    keys = sorted;
  }
  const auto& values = build_values();
  write_db(name, [&](rocksdb::SstFileWriter& w) {
    for (int64_t k : keys)
      check_status(w.Put(Be64(k).slice(), values[k]), "SstFileWriter::Put");
  });
}

rocksdb::DB* open_read_only(const std::filesystem::path& dir) {
  rocksdb::DB* db = nullptr;
  check_status(rocksdb::DB::OpenForReadOnly(make_options(), (dir / "db").string(), &db),
               "DB::OpenForReadOnly");
  return db;
}

// The DB opened read-only for the whole run; closed by cleanup().
rocksdb::DB* open_shared(const std::string& name) {
  rocksdb::DB* db = open_read_only(scratch_dir() / name);
  at_cleanup([db] { delete db; });
  return db;
}

struct RocksDb {
  static rocksdb::DB* int_db(int64_t rows) {
    auto make = [](int64_t n) {
      const std::string name = "rocksdb-" + std::to_string(n);
      write_int_db(std::span(build_order(true)).first(n), name);
      return open_shared(name);
    };
    if (rows == kRows) {
      static rocksdb::DB* const small = make(kRows);
      return small;
    }
    static rocksdb::DB* const big = make(kRows1M);
    return big;
  }

  static rocksdb::DB* string_db() {
    static rocksdb::DB* const db = [] {
      write_db("rocksdb-strings", [](rocksdb::SstFileWriter& w) {
        for (int64_t i = 0; i < kStringRows; ++i)
          check_status(w.Put(string_key_of(i), string_value_of(i)), "SstFileWriter::Put");
      });
      return open_shared("rocksdb-strings");
    }();
    return db;
  }

  class Reader {
   public:
    explicit Reader(int64_t rows) : db_(int_db(rows)), cf_(db_->DefaultColumnFamily()) {}
    uint64_t get(int64_t key) {
      const Be64 k(key);
      uint64_t r = 0;
      if (db_->Get(ro_, cf_, k.slice(), &value_).ok()) r = fold(value_.data(), value_.size());
      value_.Reset();
      return r;
    }
    uint64_t range(int64_t first, int64_t last) {
      return walk(first, last, [](uint64_t sum, const rocksdb::Slice& v) {
        return sum + fold(v.data(), v.size());
      });
    }
    uint64_t count(int64_t first, int64_t last) {
      return walk(first, last, [](uint64_t n, const rocksdb::Slice&) { return n + 1; });
    }

   private:
    template <class F>
    uint64_t walk(int64_t first, int64_t last, F f) {
      const Be64 lo(first), hi(last + 1);
      const rocksdb::Slice upper = hi.slice();
      rocksdb::ReadOptions ro = ro_;
      ro.iterate_upper_bound = &upper;
      std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, cf_));
      uint64_t acc = 0;
      for (it->Seek(lo.slice()); it->Valid(); it->Next())
        acc = f(acc, it->value());
      return it->status().ok() ? acc : 0;
    }

    rocksdb::DB* db_;
    rocksdb::ColumnFamilyHandle* cf_;
    rocksdb::ReadOptions ro_ = read_options();
    rocksdb::PinnableSlice value_;
  };

  class StringReader {
   public:
    StringReader() : db_(string_db()), cf_(db_->DefaultColumnFamily()) {}
    uint64_t get(std::string_view key) {
      uint64_t r = 0;
      if (db_->Get(ro_, cf_, rocksdb::Slice(key.data(), key.size()), &value_).ok())
        r = fold(value_.data(), value_.size());
      value_.Reset();
      return r;
    }
    uint64_t scan_all() {
      std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro_, cf_));
      uint64_t sum = 0;
      for (it->SeekToFirst(); it->Valid(); it->Next())
        sum += fold(it->value().data(), it->value().size());
      return it->status().ok() ? sum : 0;
    }

   private:
    rocksdb::DB* db_;
    rocksdb::ColumnFamilyHandle* cf_;
    rocksdb::ReadOptions ro_ = read_options();
    rocksdb::PinnableSlice value_;
  };

  // The key shapes: every key as its encoded bytes (integers big-endian with the sign bit
  // flipped: bytewise order is numeric order).
  static rocksdb::DB* shape_db(const Shape& shape) {
    static std::map<std::string, rocksdb::DB*> dbs;
    rocksdb::DB*& db = dbs[shape.name];
    if (db == nullptr) {
      const std::string name = "rocksdb-shape-" + shape.name;
      write_db(name, [&](rocksdb::SstFileWriter& w) {
        for (int64_t r = 0; r < shape.rows(); ++r)
          check_status(w.Put(rocksdb::Slice(shape.key_bytes(static_cast<size_t>(r))), value_of(r)),
                       "SstFileWriter::Put");
      });
      db = open_shared(name);
    }
    return db;
  }

  class ShapeReader {
   public:
    explicit ShapeReader(const Shape& shape)
        : dir_(scratch_dir() / ("rocksdb-shape-" + shape.name) / "db"),
          db_(shape_db(shape)),
          cf_(db_->DefaultColumnFamily()) {}
    uint64_t get(const ShapeKey& k) {
      const rocksdb::Status st =
          db_->Get(ro_, cf_, rocksdb::Slice(k.bytes.data(), k.bytes.size()), &value_);
      const uint64_t r = st.ok()           ? shape_fold(value_.data(), value_.size())
                         : st.IsNotFound() ? 0
                                           : kShapeFailed;
      value_.Reset();
      return r;
    }
    uint64_t scan(const ShapeKey& from, int64_t n) {
      std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro_, cf_));
      uint64_t sum = 0;
      for (it->Seek(rocksdb::Slice(from.bytes.data(), from.bytes.size())); it->Valid() && n > 0;
           it->Next(), --n)
        sum += shape_fold(it->value().data(), it->value().size());
      return it->status().ok() ? sum : kShapeFailed;
    }
    uint64_t count(const ShapeKey& lo, const ShapeKey& hi) {
      // The first key after hi: hi followed by a zero byte.
      std::string past(hi.bytes);
      past.push_back('\0');
      const rocksdb::Slice upper(past);
      rocksdb::ReadOptions ro = ro_;
      ro.iterate_upper_bound = &upper;
      std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, cf_));
      uint64_t n = 0;
      for (it->Seek(rocksdb::Slice(lo.bytes.data(), lo.bytes.size())); it->Valid(); it->Next())
        ++n;
      return it->status().ok() ? n : kShapeFailed;
    }
    // The DB's table (.sst) files.
    uint64_t file_bytes() const {
      uint64_t bytes = 0;
      for (const auto& e : std::filesystem::directory_iterator(dir_))
        if (e.path().extension() == ".sst") bytes += e.file_size();
      return bytes;
    }

   private:
    std::filesystem::path dir_;
    rocksdb::DB* db_;
    rocksdb::ColumnFamilyHandle* cf_;
    rocksdb::ReadOptions ro_ = read_options();
    rocksdb::PinnableSlice value_;
  };

  // OpenForReadOnly (a new, empty block cache), one get, close.
  static uint64_t open_and_first_read() {
    (void)int_db(kRows);
    std::unique_ptr<rocksdb::DB> db(
        open_read_only(scratch_dir() / ("rocksdb-" + std::to_string(kRows))));
    rocksdb::PinnableSlice v;
    const Be64 k(kFindKey);
    if (!db->Get(read_options(), db->DefaultColumnFamily(), k.slice(), &v).ok()) return 0;
    return fold(v.data(), v.size());
  }

  static void build(std::span<const int64_t> keys, const std::string& name) {
    write_int_db(keys, name);
  }

  // Rows counted by a full walk; bytes = the DB's table (.sst) files.
  static Built inspect(const std::string& name) {
    const auto dir = scratch_dir() / name;
    std::unique_ptr<rocksdb::DB> db(open_read_only(dir));
    std::unique_ptr<rocksdb::Iterator> it(db->NewIterator(read_options()));
    uint64_t rows = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next())
      ++rows;
    if (!it->status().ok()) rows = 0;
    it.reset();
    uint64_t bytes = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir / "db"))
      if (e.path().extension() == ".sst") bytes += e.file_size();
    return {rows, bytes};
  }
};

}  // namespace

void register_rocksdb() {
  register_all<RocksDb>("rocksdb");
  benchmark::AddCustomContext(
      "rocksdb", std::to_string(ROCKSDB_MAJOR) + "." + std::to_string(ROCKSDB_MINOR) + "." +
                     std::to_string(ROCKSDB_PATCH) + " (Debian build, assertions enabled)");
}

}  // namespace drydb_bench
