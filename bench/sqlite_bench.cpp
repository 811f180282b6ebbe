// SQLite (Debian libsqlite3), two ways of reading the same file:
//
//   sqlite_default  what most programs do: sqlite3_open() (read-write, SQLite's default
//                   serialized threading mode), a statement prepared, stepped and finalized per
//                   query (the C# benchmark's CsSqlite).
//   sqlite_fair     SQLite's fastest read-only setup: the URI "file:<path>?immutable=1" (no locks,
//                   no change detection), SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX (a connection
//                   per thread), PRAGMA mmap_size over the whole file (pages read from the map, not
//                   copied), and one prepared statement per query shape, reset and rebound per
//                   query.
//
// Schema: items(k INTEGER PRIMARY KEY, v BLOB NOT NULL), a rowid table: k is the rowid, so a get is
// one descent of the table's integer-keyed B-tree with the value in its leaf (the layout of the C#
// benchmark's table, and SQLite's fastest integer lookup; a WITHOUT ROWID table compares record-
// encoded keys instead). The string-key table is items(k TEXT PRIMARY KEY, v BLOB NOT NULL)
// WITHOUT ROWID: one B-tree keyed by the text, no second lookup through a rowid.
//
// Build (sqlite): PRAGMA page_size=4096 (SQLite's default, stated), cache_size 256 MiB (drydb's
// builder budget), then one transaction and one prepared INSERT reused for every row; COMMIT
// with SQLite's default journal and synchronous=FULL, as durable as drydb's fsync-and-rename.
// Count: SQLite keeps no subtree counts, so `SELECT count(*) ... WHERE k BETWEEN` walks the rows.
#include <sqlite3.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <span>
#include <string>
#include <string_view>

#include "shape_workloads.h"
#include "workloads.h"

namespace drydb_bench {
namespace {

void check_rc(sqlite3* db, int rc, std::string_view what) {
  if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW)
    die(what, db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
}

void exec(sqlite3* db, const char* sql) {
  check_rc(db, sqlite3_exec(db, sql, nullptr, nullptr, nullptr), sql);
}

sqlite3_stmt* prepare(sqlite3* db, const char* sql) {
  sqlite3_stmt* s = nullptr;
  check_rc(db, sqlite3_prepare_v2(db, sql, -1, &s, nullptr), sql);
  return s;
}

uint64_t fold_column(sqlite3_stmt* s) {
  const void* data = sqlite3_column_blob(s, 0);  // before sqlite3_column_bytes, as documented
  return fold(data, static_cast<size_t>(sqlite3_column_bytes(s, 0)));
}

uint64_t shape_fold_column(sqlite3_stmt* s) {
  const void* data = sqlite3_column_blob(s, 0);
  return shape_fold(data, static_cast<size_t>(sqlite3_column_bytes(s, 0)));
}

// "file:<path>?immutable=1" with the path's URI-special characters escaped.
std::string immutable_uri(const std::filesystem::path& path) {
  std::string uri = "file:";
  for (char c : path.string()) {
    if (c == '%' || c == '?' || c == '#') {
      static const char hex[] = "0123456789ABCDEF";
      uri += '%';
      uri += hex[static_cast<unsigned char>(c) >> 4];
      uri += hex[c & 15];
    } else {
      uri += c;
    }
  }
  return uri + "?immutable=1";
}

sqlite3* open_default(const std::filesystem::path& path) {
  sqlite3* db = nullptr;
  int rc = sqlite3_open(path.c_str(), &db);
  check_rc(db, rc, "sqlite3_open");
  return db;
}

sqlite3* open_fair(const std::filesystem::path& path) {
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(immutable_uri(path).c_str(), &db,
                           SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nullptr);
  check_rc(db, rc, "sqlite3_open_v2 immutable");
  exec(db, "PRAGMA mmap_size=1073741824");  // 1 GiB: more than any file here
  return db;
}

// Writes <scratch>/<name>/items.sqlite, one table items(k, v) keyed by integers (the rowid table)
// or by text (WITHOUT ROWID), in one transaction: insert_rows(insert, add_row) binds each row to
// the INSERT's ?1 (key) and ?2 (value), then calls add_row(). Returns the file.
template <class InsertRows>
std::filesystem::path write_items(const std::string& name, bool text_keys, InsertRows insert_rows) {
  const auto dir = scratch_dir() / name;
  std::filesystem::create_directory(dir);
  const auto path = dir / "items.sqlite";
  sqlite3* db = nullptr;
  check_rc(db,
           sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr),
           "sqlite3_open_v2 create");
  exec(db, "PRAGMA page_size=4096");
  exec(db, "PRAGMA cache_size=-262144");
  exec(db, text_keys ? "CREATE TABLE items(k TEXT PRIMARY KEY, v BLOB NOT NULL) WITHOUT ROWID"
                     : "CREATE TABLE items(k INTEGER PRIMARY KEY, v BLOB NOT NULL)");
  exec(db, "BEGIN");
  sqlite3_stmt* insert = prepare(db, "INSERT INTO items(k, v) VALUES(?1, ?2)");
  insert_rows(insert, [&] {
    check_rc(db, sqlite3_step(insert), "INSERT");
    sqlite3_reset(insert);
  });
  sqlite3_finalize(insert);
  exec(db, "COMMIT");
  check_rc(db, sqlite3_close(db), "sqlite3_close");
  return path;
}

// Writes the rows of `keys` (values from build_values()) or, when `keys` is empty, the string
// table; returns the file.
std::filesystem::path write_file(std::span<const int64_t> keys, bool strings,
                                 const std::string& name) {
  return write_items(name, strings, [&](sqlite3_stmt* insert, auto add_row) {
    if (strings) {
      for (int64_t i = 0; i < kStringRows; ++i) {
        const std::string key = string_key_of(i), value = string_value_of(i);
        sqlite3_bind_text(insert, 1, key.data(), static_cast<int>(key.size()), SQLITE_TRANSIENT);
        sqlite3_bind_blob(insert, 2, value.data(), static_cast<int>(value.size()),
                          SQLITE_TRANSIENT);
        add_row();
      }
    } else {
      const auto& values = build_values();
      for (int64_t k : keys) {
        const std::string& v = values[k];
        sqlite3_bind_int64(insert, 1, k);
        sqlite3_bind_blob(insert, 2, v.data(), static_cast<int>(v.size()), SQLITE_STATIC);
        add_row();
      }
    }
  });
}

const std::filesystem::path& int_file(int64_t rows) {
  auto make = [](int64_t n) {
    return write_file(std::span(build_order(true)).first(n), false, "sqlite-" + std::to_string(n));
  };
  if (rows == kRows) {
    static const auto small = make(kRows);
    return small;
  }
  static const auto big = make(kRows1M);
  return big;
}

const std::filesystem::path& string_file() {
  static const auto path = write_file({}, true, "sqlite-strings");
  return path;
}

// The file of a key shape: items(k INTEGER PRIMARY KEY, v BLOB) for integer shapes (the rowid
// table), items(k TEXT PRIMARY KEY, v BLOB) WITHOUT ROWID for text; rows in key order, one
// transaction.
const std::filesystem::path& shape_file(const Shape& shape) {
  static std::map<std::string, std::filesystem::path> files;
  auto& path = files[shape.name];
  if (!path.empty()) return path;
  path = write_items(
      "sqlite-shape-" + shape.name, !shape.int_keys, [&](sqlite3_stmt* insert, auto add_row) {
        for (int64_t r = 0; r < shape.rows(); ++r) {
          const std::string value = value_of(r);
          if (shape.int_keys) {
            sqlite3_bind_int64(insert, 1, shape.ints[r]);
          } else {
            const std::string& key = shape.keys[r];
            sqlite3_bind_text(insert, 1, key.data(), static_cast<int>(key.size()), SQLITE_STATIC);
          }
          sqlite3_bind_blob(insert, 2, value.data(), static_cast<int>(value.size()),
                            SQLITE_TRANSIENT);
          add_row();
        }
      });
  return path;
}

// One query shape on a connection: prepared per use (default) or once, then reset (fair).
template <bool kFair>
class Query {
 public:
  Query(sqlite3* db, const char* sql) : db_(db), sql_(sql) {
    if (kFair) stmt_ = prepare(db_, sql_);
  }
  ~Query() { sqlite3_finalize(stmt_); }
  Query(const Query&) = delete;
  Query& operator=(const Query&) = delete;

  // The statement, ready to step, with `params` bound to ?1, ?2, ...; done() ends the use.
  template <class... Int>
  sqlite3_stmt* start(Int... params) {
    if (!kFair) stmt_ = prepare(db_, sql_);
    int at = 0;
    (sqlite3_bind_int64(stmt_, ++at, params), ...);
    return stmt_;
  }
  // Runs the query (start, then done) and returns the sum of fold_column() over its rows.
  template <class... Int>
  uint64_t fold_rows(Int... params) {
    sqlite3_stmt* s = start(params...);
    uint64_t sum = 0;
    while (sqlite3_step(s) == SQLITE_ROW)
      sum += fold_column(s);
    done();
    return sum;
  }
  void done() {
    if (kFair) {
      sqlite3_reset(stmt_);
    } else {
      sqlite3_finalize(stmt_);
      stmt_ = nullptr;
    }
  }

 private:
  sqlite3* db_;
  const char* sql_;
  sqlite3_stmt* stmt_ = nullptr;
};

class Connection {
 public:
  Connection(const std::filesystem::path& path, bool fair)
      : db_(fair ? open_fair(path) : open_default(path)) {}
  ~Connection() { sqlite3_close(db_); }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  sqlite3* get() const { return db_; }

 private:
  sqlite3* db_;
};

template <bool kFair>
struct Sqlite {
  class Reader {
   public:
    explicit Reader(int64_t rows)
        : db_(int_file(rows), kFair),
          get_(db_.get(), "SELECT v FROM items WHERE k = ?1"),
          range_(db_.get(), "SELECT v FROM items WHERE k BETWEEN ?1 AND ?2"),
          count_(db_.get(), "SELECT count(*) FROM items WHERE k BETWEEN ?1 AND ?2") {}

    uint64_t get(int64_t key) {
      sqlite3_stmt* s = get_.start(key);
      const uint64_t r = sqlite3_step(s) == SQLITE_ROW ? fold_column(s) : 0;
      get_.done();
      return r;
    }
    uint64_t range(int64_t first, int64_t last) { return range_.fold_rows(first, last); }
    uint64_t count(int64_t first, int64_t last) {
      sqlite3_stmt* s = count_.start(first, last);
      const uint64_t n = sqlite3_step(s) == SQLITE_ROW ? sqlite3_column_int64(s, 0) : 0;
      count_.done();
      return n;
    }

   private:
    Connection db_;
    Query<kFair> get_, range_, count_;
  };

  class StringReader {
   public:
    StringReader()
        : db_(string_file(), kFair), get_(db_.get(), "SELECT v FROM items WHERE k = ?1") {}
    uint64_t get(std::string_view key) {
      sqlite3_stmt* s = get_.start();
      sqlite3_bind_text(s, 1, key.data(), static_cast<int>(key.size()), SQLITE_STATIC);
      const uint64_t r = sqlite3_step(s) == SQLITE_ROW ? fold_column(s) : 0;
      get_.done();
      return r;
    }
    uint64_t scan_all() { return Query<kFair>(db_.get(), "SELECT v FROM items").fold_rows(); }

   private:
    Connection db_;
    Query<kFair> get_;
  };

  // The key shapes, as the fair setup reads them.
  class ShapeReader {
   public:
    explicit ShapeReader(const Shape& shape)
        : int_keys_(shape.int_keys),
          path_(shape_file(shape)),
          db_(path_, kFair),
          get_(db_.get(), "SELECT v FROM items WHERE k = ?1"),
          scan_(db_.get(), "SELECT v FROM items WHERE k >= ?1 ORDER BY k LIMIT ?2"),
          count_(db_.get(), "SELECT count(*) FROM items WHERE k BETWEEN ?1 AND ?2") {}
    uint64_t get(const ShapeKey& k) {
      sqlite3_stmt* s = get_.start();
      bind(s, 1, k);
      const int rc = sqlite3_step(s);
      const uint64_t r = rc == SQLITE_ROW    ? shape_fold_column(s)
                         : rc == SQLITE_DONE ? 0
                                             : kShapeFailed;
      get_.done();
      return r;
    }
    uint64_t scan(const ShapeKey& from, int64_t n) {
      sqlite3_stmt* s = scan_.start();
      bind(s, 1, from);
      sqlite3_bind_int64(s, 2, n);
      uint64_t sum = 0;
      int rc;
      while ((rc = sqlite3_step(s)) == SQLITE_ROW)
        sum += shape_fold_column(s);
      scan_.done();
      return rc == SQLITE_DONE ? sum : kShapeFailed;
    }
    uint64_t count(const ShapeKey& lo, const ShapeKey& hi) {
      sqlite3_stmt* s = count_.start();
      bind(s, 1, lo);
      bind(s, 2, hi);
      const uint64_t n = sqlite3_step(s) == SQLITE_ROW ? sqlite3_column_int64(s, 0) : kShapeFailed;
      count_.done();
      return n;
    }
    uint64_t file_bytes() const { return size_on_disk(path_); }

   private:
    void bind(sqlite3_stmt* s, int at, const ShapeKey& k) const {
      if (int_keys_)
        sqlite3_bind_int64(s, at, k.i);
      else
        sqlite3_bind_text(s, at, k.bytes.data(), static_cast<int>(k.bytes.size()), SQLITE_STATIC);
    }
    bool int_keys_;
    std::filesystem::path path_;
    Connection db_;
    Query<kFair> get_, scan_, count_;
  };

  // Open, prepare, get key 123, finalize, close.
  static uint64_t open_and_first_read() {
    Connection db(int_file(kRows), kFair);
    sqlite3_stmt* s = prepare(db.get(), "SELECT v FROM items WHERE k = ?1");
    sqlite3_bind_int64(s, 1, kFindKey);
    const uint64_t r = sqlite3_step(s) == SQLITE_ROW ? fold_column(s) : 0;
    sqlite3_finalize(s);
    return r;
  }

  static void build(std::span<const int64_t> keys, const std::string& name) {
    write_file(keys, false, name);
  }

  static Built inspect(const std::string& name) {
    const auto path = scratch_dir() / name / "items.sqlite";
    Connection db(path, false);
    sqlite3_stmt* s = prepare(db.get(), "SELECT count(*) FROM items");
    const uint64_t rows = sqlite3_step(s) == SQLITE_ROW ? sqlite3_column_int64(s, 0) : 0;
    sqlite3_finalize(s);
    return {rows, size_on_disk(path)};
  }
};

}  // namespace

void register_sqlite() {
  register_int_reads<Sqlite<false>>("sqlite_default");
  register_int_reads<Sqlite<true>>("sqlite_fair");
  register_string_reads<Sqlite<false>>("sqlite_default");
  register_string_reads<Sqlite<true>>("sqlite_fair");
  register_open<Sqlite<false>>("sqlite_default");
  register_open<Sqlite<true>>("sqlite_fair");
  register_build<Sqlite<false>>("sqlite");
  register_shapes<Sqlite<true>>("sqlite_fair");
  benchmark::AddCustomContext("sqlite", sqlite3_libversion());
}

}  // namespace drydb_bench
