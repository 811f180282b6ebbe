// LMDB (Debian liblmdb 0.9), in its fastest read-only setup:
//
//   - keys: the 8-byte big-endian key under LMDB's default memcmp order (every key is >= 0, so
//     that is numeric order); string keys as they are;
//   - loaded in key order with MDB_APPEND (pages filled completely, no splits) in one write
//     transaction, into a single file (MDB_NOSUBDIR);
//   - opened MDB_RDONLY | MDB_NORDAHEAD | MDB_NOLOCK (no reader table, no lock file traffic);
//     the whole file is mapped and values are read in place;
//   - every benchmark thread has one read transaction and one cursor, opened before timing and
//     kept for all its queries: a get is mdb_cursor_get(MDB_SET), a range MDB_SET_RANGE then
//     MDB_NEXT until past the last key. LMDB keeps no subtree counts: a count walks the rows.
//
// Build: one write transaction, MDB_APPEND for sorted input, plain puts for shuffled input
// (MDB_APPEND needs ascending keys), then the commit (which syncs the file).
#include <lmdb.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <map>
#include <span>
#include <string>
#include <string_view>

#include "shape_workloads.h"
#include "workloads.h"

namespace drydb_bench {
namespace {

void check_rc(int rc, std::string_view what) {
  if (rc != MDB_SUCCESS) die(what, mdb_strerror(rc));
}

constexpr size_t kMapSize = size_t{16} << 30;  // the most a file here may grow to (sparse)

MDB_val val(const void* data, size_t size) {
  return {size, const_cast<void*>(data)};
}

// Writes the rows given by `put(txn, dbi)` into <scratch>/<name>/data.mdb; returns that file.
template <class Put>
std::filesystem::path write_env(const std::string& name, Put put) {
  const auto dir = scratch_dir() / name;
  std::filesystem::create_directory(dir);
  const auto path = dir / "data.mdb";
  MDB_env* env = nullptr;
  check_rc(mdb_env_create(&env), "mdb_env_create");
  check_rc(mdb_env_set_mapsize(env, kMapSize), "mdb_env_set_mapsize");
  check_rc(mdb_env_open(env, path.c_str(), MDB_NOSUBDIR, 0644), "mdb_env_open");
  MDB_txn* txn = nullptr;
  check_rc(mdb_txn_begin(env, nullptr, 0, &txn), "mdb_txn_begin");
  MDB_dbi dbi;
  check_rc(mdb_dbi_open(txn, nullptr, 0, &dbi), "mdb_dbi_open");
  put(txn, dbi);
  check_rc(mdb_txn_commit(txn), "mdb_txn_commit");
  mdb_env_close(env);
  return path;
}

std::filesystem::path write_int_env(std::span<const int64_t> keys, const std::string& name) {
  const bool sorted = std::is_sorted(keys.begin(), keys.end());
  const auto& values = build_values();
  return write_env(name, [&](MDB_txn* txn, MDB_dbi dbi) {
    char be[8];
    for (int64_t k : keys) {
      store_be64(be, k);
      MDB_val key = val(be, 8), value = val(values[k].data(), values[k].size());
      check_rc(mdb_put(txn, dbi, &key, &value, sorted ? MDB_APPEND : 0), "mdb_put");
    }
  });
}

struct Env {
  MDB_env* env = nullptr;
  MDB_dbi dbi = 0;
};

Env open_read_only(const std::filesystem::path& path) {
  Env e;
  check_rc(mdb_env_create(&e.env), "mdb_env_create");
  check_rc(mdb_env_set_mapsize(e.env, kMapSize), "mdb_env_set_mapsize");
  check_rc(mdb_env_open(e.env, path.c_str(), MDB_NOSUBDIR | MDB_RDONLY | MDB_NORDAHEAD | MDB_NOLOCK,
                        0644),
           "mdb_env_open read-only");
  MDB_txn* txn = nullptr;
  check_rc(mdb_txn_begin(e.env, nullptr, MDB_RDONLY, &txn), "mdb_txn_begin");
  check_rc(mdb_dbi_open(txn, nullptr, 0, &e.dbi), "mdb_dbi_open");
  mdb_txn_abort(txn);  // the main database's handle outlives the transaction
  return e;
}

// The environment opened for the whole run; closed by cleanup().
const Env& open_shared(const std::filesystem::path& path) {
  auto* e = new Env(open_read_only(path));
  at_cleanup([e] {
    mdb_env_close(e->env);
    delete e;
  });
  return *e;
}

// One read transaction and cursor (per benchmark thread).
class ReadTxn {
 public:
  explicit ReadTxn(const Env& e) {
    check_rc(mdb_txn_begin(e.env, nullptr, MDB_RDONLY, &txn_), "mdb_txn_begin");
    check_rc(mdb_cursor_open(txn_, e.dbi, &cursor_), "mdb_cursor_open");
  }
  ~ReadTxn() {
    mdb_cursor_close(cursor_);
    mdb_txn_abort(txn_);
  }
  ReadTxn(const ReadTxn&) = delete;
  ReadTxn& operator=(const ReadTxn&) = delete;

  uint64_t get(const void* key, size_t size) {
    MDB_val k = val(key, size), v;
    return mdb_cursor_get(cursor_, &k, &v, MDB_SET) == MDB_SUCCESS ? fold(v.mv_data, v.mv_size) : 0;
  }
  // mdb_cursor_get(MDB_SET) of `key`: MDB_SUCCESS with *v, MDB_NOTFOUND, or an error code.
  int find(const void* key, size_t size, MDB_val* v) {
    MDB_val k = val(key, size);
    return mdb_cursor_get(cursor_, &k, v, MDB_SET);
  }
  // Walks the rows from `first` on while their keys are <= `last` (8-byte keys), calling f.
  template <class F>
  uint64_t walk(const char first[8], const char last[8], F f) {
    MDB_val k = val(first, 8), v;
    uint64_t acc = 0;
    for (int rc = mdb_cursor_get(cursor_, &k, &v, MDB_SET_RANGE);
         rc == MDB_SUCCESS && k.mv_size == 8 && std::memcmp(k.mv_data, last, 8) <= 0;
         rc = mdb_cursor_get(cursor_, &k, &v, MDB_NEXT))
      acc = f(acc, v);
    return acc;
  }
  // Calls f(key, value) on the rows from the first key >= `from` on, while it returns true.
  template <class F>
  void walk_from(std::string_view from, F f) {
    MDB_val k = val(from.data(), from.size()), v;
    for (int rc = mdb_cursor_get(cursor_, &k, &v, MDB_SET_RANGE); rc == MDB_SUCCESS && f(k, v);
         rc = mdb_cursor_get(cursor_, &k, &v, MDB_NEXT)) {
    }
  }
  uint64_t scan_all() {
    MDB_val k, v;
    uint64_t sum = 0;
    for (int rc = mdb_cursor_get(cursor_, &k, &v, MDB_FIRST); rc == MDB_SUCCESS;
         rc = mdb_cursor_get(cursor_, &k, &v, MDB_NEXT))
      sum += fold(v.mv_data, v.mv_size);
    return sum;
  }

 private:
  MDB_txn* txn_ = nullptr;
  MDB_cursor* cursor_ = nullptr;
};

struct Lmdb {
  static const std::filesystem::path& int_path(int64_t rows) {
    auto make = [](int64_t n) {
      return write_int_env(std::span(build_order(true)).first(n), "lmdb-" + std::to_string(n));
    };
    if (rows == kRows) {
      static const auto small = make(kRows);
      return small;
    }
    static const auto big = make(kRows1M);
    return big;
  }

  static const Env& int_env(int64_t rows) {
    if (rows == kRows) {
      static const Env& small = open_shared(int_path(kRows));
      return small;
    }
    static const Env& big = open_shared(int_path(kRows1M));
    return big;
  }

  static const Env& string_env() {
    static const Env& e = open_shared(write_env("lmdb-strings", [](MDB_txn* txn, MDB_dbi dbi) {
      for (int64_t i = 0; i < kStringRows; ++i) {
        const std::string key = string_key_of(i), value = string_value_of(i);
        MDB_val k = val(key.data(), key.size()), v = val(value.data(), value.size());
        check_rc(mdb_put(txn, dbi, &k, &v, MDB_APPEND), "mdb_put");
      }
    }));
    return e;
  }

  class Reader {
   public:
    explicit Reader(int64_t rows) : txn_(int_env(rows)) {}
    uint64_t get(int64_t key) {
      char be[8];
      store_be64(be, key);
      return txn_.get(be, 8);
    }
    uint64_t range(int64_t first, int64_t last) {
      char lo[8], hi[8];
      store_be64(lo, first);
      store_be64(hi, last);
      return txn_.walk(
          lo, hi, [](uint64_t sum, const MDB_val& v) { return sum + fold(v.mv_data, v.mv_size); });
    }
    uint64_t count(int64_t first, int64_t last) {
      char lo[8], hi[8];
      store_be64(lo, first);
      store_be64(hi, last);
      return txn_.walk(lo, hi, [](uint64_t n, const MDB_val&) { return n + 1; });
    }

   private:
    ReadTxn txn_;
  };

  class StringReader {
   public:
    StringReader() : txn_(string_env()) {}
    uint64_t get(std::string_view key) { return txn_.get(key.data(), key.size()); }
    uint64_t scan_all() { return txn_.scan_all(); }

   private:
    ReadTxn txn_;
  };

  // The key shapes: every key as its encoded bytes (for integers, big-endian with the sign bit
  // flipped, so memcmp order is numeric order), loaded with MDB_APPEND.
  static const Env& shape_env(const Shape& shape) {
    static std::map<std::string, const Env*> envs;
    const Env*& e = envs[shape.name];
    if (e == nullptr)
      e = &open_shared(write_env("lmdb-shape-" + shape.name, [&](MDB_txn* txn, MDB_dbi dbi) {
        for (int64_t r = 0; r < shape.rows(); ++r) {
          const std::string_view key = shape.key_bytes(static_cast<size_t>(r));
          const std::string value = value_of(r);
          MDB_val k = val(key.data(), key.size()), v = val(value.data(), value.size());
          check_rc(mdb_put(txn, dbi, &k, &v, MDB_APPEND), "mdb_put");
        }
      }));
    return *e;
  }

  class ShapeReader {
   public:
    explicit ShapeReader(const Shape& shape)
        : path_(scratch_dir() / ("lmdb-shape-" + shape.name) / "data.mdb"),
          txn_(shape_env(shape)) {}
    uint64_t get(const ShapeKey& k) {
      MDB_val v;
      const int rc = txn_.find(k.bytes.data(), k.bytes.size(), &v);
      if (rc == MDB_NOTFOUND) return 0;
      return rc == MDB_SUCCESS ? shape_fold(v.mv_data, v.mv_size) : kShapeFailed;
    }
    uint64_t scan(const ShapeKey& from, int64_t n) {
      uint64_t sum = 0;
      txn_.walk_from(from.bytes, [&](const MDB_val&, const MDB_val& v) {
        sum += shape_fold(v.mv_data, v.mv_size);
        return --n > 0;
      });
      return sum;
    }
    uint64_t count(const ShapeKey& lo, const ShapeKey& hi) {
      uint64_t n = 0;
      txn_.walk_from(lo.bytes, [&](const MDB_val& k, const MDB_val&) {
        if (std::string_view(static_cast<const char*>(k.mv_data), k.mv_size) > hi.bytes)
          return false;
        ++n;
        return true;
      });
      return n;
    }
    uint64_t file_bytes() const { return size_on_disk(path_); }

   private:
    std::filesystem::path path_;
    ReadTxn txn_;
  };

  // Create and open the environment, one read transaction: the main database, one get; close.
  static uint64_t open_and_first_read() {
    const auto& path = int_path(kRows);
    MDB_env* env = nullptr;
    check_rc(mdb_env_create(&env), "mdb_env_create");
    check_rc(mdb_env_open(env, path.c_str(), MDB_NOSUBDIR | MDB_RDONLY | MDB_NORDAHEAD | MDB_NOLOCK,
                          0644),
             "mdb_env_open read-only");
    MDB_txn* txn = nullptr;
    check_rc(mdb_txn_begin(env, nullptr, MDB_RDONLY, &txn), "mdb_txn_begin");
    MDB_dbi dbi;
    check_rc(mdb_dbi_open(txn, nullptr, 0, &dbi), "mdb_dbi_open");
    char be[8];
    store_be64(be, kFindKey);
    MDB_val k = val(be, 8), v;
    const uint64_t r = mdb_get(txn, dbi, &k, &v) == MDB_SUCCESS ? fold(v.mv_data, v.mv_size) : 0;
    mdb_txn_abort(txn);
    mdb_env_close(env);
    return r;
  }

  static void build(std::span<const int64_t> keys, const std::string& name) {
    write_int_env(keys, name);
  }

  static Built inspect(const std::string& name) {
    const auto path = scratch_dir() / name / "data.mdb";
    const Env e = open_read_only(path);
    MDB_stat st;
    const uint64_t rows = mdb_env_stat(e.env, &st) == MDB_SUCCESS ? st.ms_entries : 0;
    mdb_env_close(e.env);
    return {rows, size_on_disk(path)};
  }
};

}  // namespace

void register_lmdb() {
  register_all<Lmdb>("lmdb");
  benchmark::AddCustomContext("lmdb", MDB_VERSION_STRING);
}

void register_lmdb_large_shapes() {
  register_shapes<Lmdb>("lmdb", false, false, large_shapes());
  benchmark::AddCustomContext("lmdb", MDB_VERSION_STRING);
}

}  // namespace drydb_bench
