// Fuzz target "build": fuzzer-chosen tables, keys, values, secondary indexes, page sizes, memory
// budgets and page filters built with DatabaseBuilder::build_to_memory, then read back and checked
// against std::map models of the rows and of each index's entries. An execution costs one build
// (in memory; runs spill to /dev/shm) of at most 4 tables of 64 generated rows and the input's
// explicit ones, verify() and, for one input in two (one_in), query batteries bounded by
// kFuzzLimits; one input in four is built a second time, and a zstd dictionary is trained for
// one in four of those that choose it (the dearest part of an execution that has one).
//
// Input, read front to back (missing bytes read as zero):
//   u8   page size: 512 << (byte % 8), so 512 .. 65,536; (byte / 8) % 4 == 3 builds without
//        prefixed keys (BuildOptions::prefixed_keys = false, pages as format 2.0 wrote them)
//   u8   memory budget: one of 0, 256, 1 KiB, 4 KiB, 16 KiB, 64 KiB, 1 MiB, 256 MiB (small
//        budgets spill sorted runs to temp files and merge them; in /dev/shm where there is
//        one, so a spill costs no disk)
//   u8   how to read and the page filters: byte % 4 reads in place (as mmap does), or through a
//        page cache of 2 pages, 16 pages or the whole file (a filtered file always reads through
//        a page cache: in place it is open_memory's default one); (byte / 4) % 5 picks
//        BuildOptions::filters: none, lz4, zstd, zstd with a trained dictionary (1 KiB at most;
//        for one input in four of those, by one_in, the others zstd alone), lz4 then zstd;
//        zstd's level is (byte / 20) % 4 - 1, so -1 .. 2
//   u8   tables: 1 + byte % 4; per table:
//     u8   key encoding: byte % 7 of bytes, int64, uuid_v7, ulid, f3, f12, v (custom); the
//          miss filter: (byte / 7) % 4 of none, 1, 10 or 32 bits per key
//     u8   name: 0xFF reuses the previous table's name (errc::duplicate_name) and declares no
//          index; else the table is "t<i>" with byte % 3 secondary indexes (defined below)
//     u8   generated rows: (byte^2)/16 keys from a pattern of the encoding (deep trees cheaply),
//          at most 64 (24 under a budget below 1 KiB, where every few rows spill a run file):
//          enough for internal pages at page size 512, and a few hundred microseconds of work
//     u8   explicit rows; per row:
//       u8   key: for typed widths that many bytes follow; for variable keys byte % 48 bytes
//            follow, except 250..255: a key of max_key_length - 3 + (byte - 250) bytes (so
//            one over the limit at 254, errc::key_too_long)
//       u8   value: < 200: byte % 40 bytes follow; 200..249: a generated value around the
//            inline limit (inline_value_limit - 2 + (byte - 200) % 5) or an overflow value
//            of up to 3 pages; 250..255: a key of the wrong kind is appended instead
//            (errc::wrong_key_type)
//     per secondary index "i<j>" (declared after the table's rows), 5 bytes:
//       u8   declaration: 0xFF for the second index reuses the first's name
//            (errc::duplicate_name); else bit 0: unique; bit 1: the function gives a key of the
//            wrong kind for about one row in five (errc::wrong_key_type)
//       u8   index key encoding: byte % 7, as for tables
//       u8   index key function, (byte & 7) % 5: the row's value, its primary key (encoded), a
//            slice of the value, a slice of the key, or a hash of key and value modulo m (so
//            keys repeat: errc::duplicate_key in a unique index). Bit 3: a key or slice is cut
//            or zero-padded to a fixed-width encoding's width; else a custom fixed width
//            encoding gets it as it is (a wrong width is errc::wrong_key_type). Typed index
//            keys (int64, uuid_v7, ulid) always fit. Whole values reach errc::key_too_long
//       u8   parameter: slice offset byte % 8, length byte / 8; hash modulus m = 1 + byte
//       u8   sparse rule: 0 every row has an index key; 255 no row has (an empty index); else
//            a row whose key hashes to 0 modulo 2 + byte % 8 has none (std::nullopt)
//   rest: probe keys, 0..40 bytes each (length byte first)
// The builder's first error must be the one the model predicts: errors are sticky, so the first
// failed append or declaration; else, at build, first over the tables with indexes in order,
// the first row (in key order) whose index key is refused (wrong kind or width, too long; index
// by index), or errc::duplicate_key at the first key appended twice; then table by table, a key
// appended twice in a table without indexes, and errc::duplicate_key for a unique index whose
// key repeats. (Which of a repeated key's values the builder sees first is not
// promised, so there the errors of either are accepted.) A successful build of up to 3,000 rows
// is, for one input in four, rebuilt with the rows appended in reverse order and must give
// identical bytes (the builder is deterministic); it must verify, and (one input in two) every
// query kind on every table must agree with the model (check_table_rows), and on every index
// with its entries (check_index_entries), in place or through the page cache.
// fuzz_regression_test replays every committed input with all of these (every_check).
#pragma once

#include <array>
#include <filesystem>
#include <map>

#include "fuzz_support.h"

namespace drydb_fuzz {

struct Append {
  std::string key, value;
  bool wrong_kind = false;  // append a key of the wrong kind instead
};

// A secondary index as the input defines it; index_key_of() is its index key function.
struct IndexDef {
  std::string name;
  bool unique = false;
  bool wrong_kind = false;  // about one row in five gets a key of the wrong kind
  bool fit = false;         // keys and slices cut or padded to a fixed width
  bool duplicate_name = false;
  drydb::KeyEncoding enc = drydb::KeyEncoding::bytes();
  unsigned function = 0;  // value, primary key, value slice, key slice, hash
  uint8_t param = 0;
  uint8_t sparse = 0;
};

struct BuildTable {
  std::string name;
  uint32_t miss_filter_bits = 0;  // 0 = none
  drydb::KeyEncoding enc = drydb::KeyEncoding::bytes();
  std::vector<Append> appended;  // in append order
  std::map<std::string, std::string> model;
  // Values of later appends of a key already in the model (errc::duplicate_key).
  std::map<std::string, std::vector<std::string>> repeats;
  std::vector<IndexDef> indexes;
  bool duplicate = false;
};

inline uint64_t hash_of(std::string_view s, uint64_t seed) {
  return XXH3_64bits_withSeed(s.data(), s.size(), seed);
}

// What an index key function gives for one row: no key, a key (encoded bytes), or a key of the
// wrong kind.
struct IndexOut {
  enum Kind { none, key, wrong_kind } kind = none;
  std::string bytes;
};

// The index key of row (pk, v) (pk encoded) under `d`: the one function both the builder (through
// builder_function) and the model use.
inline IndexOut index_key_of(const IndexDef& d, const std::string& pk, const std::string& v) {
  const uint64_t h = hash_of(pk, 1);
  if (d.sparse == 0xFF || (d.sparse != 0 && h % (2 + d.sparse % 8) == 0)) return {};
  if (d.wrong_kind && (h >> 16) % 5 == 0) return {IndexOut::wrong_kind, {}};
  const size_t typed = typed_width(d.enc.kind());
  const size_t width = typed ? typed : d.enc.fixed_width();
  std::string k;
  switch (d.function) {
    case 0:
      k = v;
      break;
    case 1:
      k = pk;
      break;
    case 2:
    case 3: {
      const std::string& from = d.function == 2 ? v : pk;
      const size_t off = d.param % 8;
      if (off < from.size()) k = from.substr(off, d.param / 8);
      break;
    }
    default: {
      const uint64_t m = 1 + uint64_t{d.param};
      const uint64_t x = hash_of(pk + '/' + v, 2) % m;
      if (width == 0) {
        k = std::string(x % 3, '\0') + std::to_string(x);  // 0x00 bytes: escaped in the index
      } else {
        uint64_t e = x;
        if (d.enc.kind() == drydb::KeyKind::int64)
          e = drydb::int64_to_ordered(static_cast<int64_t>(x) - static_cast<int64_t>(m / 2));
        k.assign(width, '\0');
        for (size_t b = 0; b < width && b < 8; ++b)
          k[width - 1 - b] = static_cast<char>(e >> (8 * b));
      }
      break;
    }
  }
  if (width != 0 && (typed != 0 || d.fit)) k.resize(width, '\0');
  return {IndexOut::key, std::move(k)};
}

inline drydb::IndexKeyFunction builder_function(const IndexDef& d) {
  return [d](Bytes pk, Bytes v) -> std::optional<drydb::IndexKey> {
    const IndexOut out = index_key_of(d, to_string(pk), to_string(v));
    switch (out.kind) {
      case IndexOut::none:
        return std::nullopt;
      case IndexOut::wrong_kind:
        if (d.enc.kind() == drydb::KeyKind::int64) return drydb::IndexKey("text");
        return drydb::IndexKey(int64_t{7});
      default:
        return drydb::IndexKey(typed_key(d.enc.kind(), out.bytes));
    }
  };
}

// The error the builder gives for index key `out` of a row: errc::ok if none.
inline errc index_key_error(const IndexDef& d, const IndexOut& out, uint32_t max_key) {
  if (out.kind == IndexOut::none) return errc::ok;
  if (out.kind == IndexOut::wrong_kind) return errc::wrong_key_type;
  const size_t width = d.enc.fixed_width();
  if (width != 0 && out.bytes.size() != width) return errc::wrong_key_type;
  // A non-unique index's tree key: group(key) ++ 8-byte rank (docs/format.md).
  size_t tree_key = out.bytes.size();
  if (!d.unique) {
    tree_key = width != 0
                   ? width
                   : out.bytes.size() + 2 +
                         static_cast<size_t>(std::count(out.bytes.begin(), out.bytes.end(), '\0'));
    tree_key += 8;
  }
  return tree_key > max_key ? errc::key_too_long : errc::ok;
}

// The entries of index `d` over a table's rows, sorted as the index answers.
inline std::vector<IndexEntry> index_entries(const IndexDef& d, const std::vector<Row>& rows) {
  std::vector<IndexEntry> out;
  for (const auto& [pk, v] : rows) {
    IndexOut o = index_key_of(d, pk, v);
    if (o.kind == IndexOut::key) out.emplace_back(std::move(o.bytes), pk);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The page filter chain of choice c (see the input layout). A filter that trains a dictionary
// keeps it, so that choice gets new filters for every build; the others are made once per
// process (each zstd filter's compression context is a few hundred KiB allocated and cleared,
// page faults included under ASan, which once cost as much as the rest of a small build).
inline std::vector<std::shared_ptr<drydb::PageFilter>> make_filters(unsigned c, int level) {
  if (c == 3) return {drydb::filters::zstd({.level = level, .dictionary_bytes = 1024})};
  static std::map<std::pair<unsigned, int>, std::vector<std::shared_ptr<drydb::PageFilter>>> made;
  auto [it, fresh] = made.try_emplace({c, level});
  if (!fresh) return it->second;
  switch (c) {
    case 1:
      it->second = {drydb::filters::lz4()};
      break;
    case 2:
      it->second = {drydb::filters::zstd({.level = level})};
      break;
    case 4:
      it->second = {drydb::filters::lz4(), drydb::filters::zstd({.level = level})};
      break;
    default:
      break;
  }
  return it->second;
}

// Key number i of a generated sequence for a key encoding: ordered as i for fixed widths,
// shuffled and of mixed lengths (with long shared stems) for variable ones.
inline std::string generated_key(const drydb::KeyEncoding& enc, uint64_t i, uint64_t salt) {
  const size_t width = enc.fixed_width();
  if (width == 0) {
    std::string k = (i % 3 == 0) ? "stem/stem/stem/" : (i % 3 == 1 ? "s" : "");
    k += std::to_string(i * 7919 % 100003 + salt);
    return k;
  }
  std::string k(width, '\0');
  uint64_t v = (i + salt) * 2654435761ull;
  if (enc.kind() == drydb::KeyKind::int64)
    v = drydb::int64_to_ordered(static_cast<int64_t>(i * 13) - 5000);
  for (size_t b = 0; b < width && b < 8; ++b)
    k[width - 1 - b] = static_cast<char>(v >> (8 * b));
  if (width > 8) k[0] = static_cast<char>(salt);
  return k;
}

inline std::string generated_value(uint64_t seed, size_t len) {
  std::string v(len, '\0');
  Rng r{seed};
  for (size_t i = 0; i < len; i += 8) {
    const uint64_t x = r.next();
    for (size_t b = 0; b < 8 && i + b < len; ++b)
      v[i + b] = static_cast<char>(x >> (8 * b));
  }
  return v;
}

// Where builds spill their runs: /dev/shm (memory) where it is a folder, else the system's temp
// folder.
inline const std::filesystem::path& spill_dir() {
  static const std::filesystem::path dir = [] {
    std::error_code ec;
    return std::filesystem::is_directory("/dev/shm", ec) ? std::filesystem::path("/dev/shm")
                                                         : std::filesystem::path();
  }();
  return dir;
}

inline void run_build(const uint8_t* data, size_t size) {
  register_encodings();
  Input in(data, size);
  const uint8_t page_byte = in.u8();
  const uint32_t page_size = 512u << (page_byte % 8);
  const bool prefixed_keys = (page_byte / 8) % 4 != 3;
  static constexpr size_t kBudgets[] = {0, 256, 1024, 4096, 16384, 65536, 1 << 20, 256u << 20};
  const size_t budget = kBudgets[in.u8() % 8];
  const uint8_t read_byte = in.u8();
  const uint8_t read_choice = read_byte % 4;
  unsigned filter_choice = (read_byte / 4) % 5;
  // Training a dictionary costs 10 to 20 times the rest of an execution (zstd's trainer
  // allocates and clears megabytes): one input in four that chooses it trains one, the others
  // compress with zstd alone.
  if (filter_choice == 3 && !one_in(4, data, size)) filter_choice = 2;
  const int zstd_level = static_cast<int>((read_byte / 20) % 4) - 1;
  const unsigned table_count = 1 + in.u8() % 4;
  const uint32_t max_key = fmt::max_key_length(page_size);
  const uint32_t inline_limit = fmt::inline_value_limit(page_size);

  std::vector<BuildTable> tables;
  // The builder's first error as the model predicts it: one code, or (see the header) any of a
  // few.
  std::vector<errc> expected;
  std::string expected_why;
  auto failing = [&] { return !expected.empty(); };
  auto expect_any = [&](std::vector<errc> codes, const std::string& why) {
    if (!failing()) {
      expected = std::move(codes);
      expected_why = why;
    }
  };
  auto expect = [&](errc e, const std::string& why) { expect_any({e}, why); };
  uint64_t total_rows = 0;
  for (unsigned ti = 0; ti < table_count; ++ti) {
    BuildTable t;
    const uint8_t encoding_byte = in.u8();
    t.enc = encoding_number(encoding_byte);
    t.miss_filter_bits = std::array<uint32_t, 4>{0, 1, 10, 32}[(encoding_byte / 7) % 4];
    const uint8_t name_byte = in.u8();
    t.name = "t" + std::to_string(ti);
    unsigned index_count = name_byte % 3;
    if (name_byte == 0xFF && ti > 0) {
      t.name = tables.back().name;
      t.duplicate = true;
      index_count = 0;
    }
    const size_t width = t.enc.fixed_width();
    const uint8_t gen = in.u8();
    // Rows cost time in every build, check and walk; and spilling a temp file per run: small
    // budgets get fewer generated rows. 64 rows still give a tree of several leaves under an
    // internal page at page size 512.
    const uint64_t cap = budget < 1024 ? 24 : 64;
    const uint64_t generated = std::min<uint64_t>(uint64_t{gen} * gen / 16, cap);
    for (uint64_t i = 0; i < generated; ++i)
      t.appended.push_back(
          {generated_key(t.enc, i, ti), generated_value(i * 31 + ti, (i * 7) % 24)});
    const unsigned explicit_rows = in.u8();
    for (unsigned r = 0; r < explicit_rows && !in.empty(); ++r) {
      std::string k;
      if (width) {
        k = in.bytes(width);
        k.resize(width, '\0');
      } else {
        const uint8_t l = in.u8();
        if (l >= 250) {
          k = std::to_string(r) + std::string(max_key, 'K');
          k.resize(max_key - 3 + (l - 250u));
        } else {
          k = in.bytes(l % 48);
        }
      }
      const uint8_t vb = in.u8();
      std::string v;
      if (vb < 200) {
        v = in.bytes(vb % 40);
      } else if (vb < 250) {
        const unsigned c = vb - 200u;
        const size_t len =
            c % 2 == 0 ? inline_limit - 2 + c % 5 : inline_limit + 1 + (c * 977u) % (3 * page_size);
        v = generated_value(c + r, len);
      } else {
        t.appended.push_back({std::string(), std::string(), true});
        continue;
      }
      t.appended.push_back({std::move(k), std::move(v)});
    }
    for (unsigned j = 0; j < index_count; ++j) {
      IndexDef d;
      const uint8_t decl = in.u8();
      d.name = "i" + std::to_string(j);
      if (decl == 0xFF && j > 0) {
        d.name = t.indexes.front().name;
        d.duplicate_name = true;
      }
      d.unique = (decl & 1) != 0;
      d.wrong_kind = (decl & 2) != 0;
      d.enc = encoding_number(in.u8());
      const uint8_t fn = in.u8();
      d.function = (fn & 7) % 5;
      d.fit = (fn & 8) != 0;
      d.param = in.u8();
      d.sparse = in.u8();
      t.indexes.push_back(std::move(d));
    }
    total_rows += t.appended.size();
    tables.push_back(std::move(t));
  }
  std::vector<std::string> probes;
  while (!in.empty())
    probes.push_back(in.bytes(in.u8() % 41));

  // Appends every table's rows, in order or reversed, and declares its indexes; predicts the
  // first error of the appends and declarations on the way.
  auto build = [&](bool reversed) -> drydb::result<std::vector<std::byte>> {
    drydb::DatabaseBuilder b({.page_size = page_size,
                              .memory_budget = budget,
                              .temp_dir = spill_dir(),
                              .filters = make_filters(filter_choice, zstd_level),
                              .prefixed_keys = prefixed_keys});
    for (auto& t : tables) {
      auto& tb = b.create_table(t.name, t.enc);
      if (t.duplicate && !reversed) expect(errc::duplicate_name, "table name reused");
      if (t.miss_filter_bits != 0) tb.add_miss_filter(t.miss_filter_bits);
      const size_t n = t.appended.size();
      for (size_t j = 0; j < n; ++j) {
        const auto& [k, v, wrong_kind] = t.appended[reversed ? n - 1 - j : j];
        if (wrong_kind) {
          // The wrong kind of key for this table: an int64 key for byte keys, text otherwise.
          if (t.enc.kind() == drydb::KeyKind::bytes)
            tb.append(int64_t{7}, v);
          else
            tb.append("text", v);
          if (!reversed) expect(errc::wrong_key_type, "a key of the wrong kind");
          continue;
        }
        tb.append(typed_key(t.enc.kind(), k), v);
        if (reversed) continue;
        if (k.size() > max_key) {
          expect(errc::key_too_long, "key of " + std::to_string(k.size()) + " bytes");
        } else if (!t.model.emplace(k, v).second) {
          t.repeats[k].push_back(v);
        }
      }
      for (const IndexDef& d : t.indexes) {
        tb.add_secondary_index(d.name, d.unique, d.enc, builder_function(d));
        if (d.duplicate_name && !reversed)
          expect(errc::duplicate_name, "index name reused in table " + t.name);
      }
    }
    return b.build_to_memory();
  };
  auto built = build(false);
  if (!built)
    note_refused(built.error());
  else if (record_outcomes)
    last_outcome = "built";
  // The errors found at build time. First every table with indexes, in order, runs its rows
  // through its index functions (the file's identity covers the entries, so they are all made
  // before any page is written); then the tables are written in order, where a table without
  // indexes meets a key appended twice and a unique index a repeated key.
  auto rows_through_indexes = [&](const auto& t) {
    // Rows in key order, each through every index in order; a key appended twice stops the
    // table, its first copy (either of its values) having gone through the indexes.
    auto first_index_error = [&](const std::string& k, const std::string& v) {
      for (const IndexDef& d : t.indexes)
        if (errc e = index_key_error(d, index_key_of(d, k, v), max_key); e != errc::ok) return e;
      return errc::ok;
    };
    for (const auto& [k, v] : t.model) {
      auto rep = t.repeats.find(k);
      const errc e = first_index_error(k, v);
      if (rep == t.repeats.end()) {
        if (e != errc::ok) expect(e, "table " + t.name + ": an index key refused, row " + show(k));
      } else {
        std::vector<errc> any{e != errc::ok ? e : errc::duplicate_key};
        for (const auto& other : rep->second) {
          const errc o = first_index_error(k, other);
          any.push_back(o != errc::ok ? o : errc::duplicate_key);
        }
        expect_any(std::move(any), "table " + t.name + ": key " + show(k) + " appended twice");
      }
      if (failing()) break;
    }
  };
  for (const auto& t : tables) {
    if (failing()) break;
    if (!t.indexes.empty()) rows_through_indexes(t);
  }
  for (const auto& t : tables) {
    if (failing()) break;
    if (t.indexes.empty()) rows_through_indexes(t);
    if (failing()) break;
    const std::vector<Row> rows(t.model.begin(), t.model.end());
    for (const IndexDef& d : t.indexes) {
      if (!d.unique) continue;
      const auto entries = index_entries(d, rows);
      for (size_t i = 1; i < entries.size(); ++i)
        if (entries[i].first == entries[i - 1].first) {
          expect(errc::duplicate_key, "table " + t.name + ", unique index " + d.name + ": key " +
                                          show(entries[i].first) + " repeats");
          break;
        }
      if (failing()) break;
    }
  }
  if (failing()) {
    auto codes = [&] {
      std::string s;
      for (errc e : expected)
        s += (s.empty() ? "" : " or ") + std::to_string(static_cast<int>(e));
      return s;
    };
    if (built) return fail("build: succeeded, but the model expects " + expected_why);
    for (errc e : expected)
      if (is(built.code(), e)) return;
    return fail("build: failed with " + code_of(built.error()) + "; the model expects " +
                expected_why + " (code " + codes() + ")");
  }
  if (!built) return fail("build failed: " + code_of(built.error()));
  const std::vector<std::byte>& file = *built;
  // The reverse-order rebuild doubles the cost of an execution: one input in four is rebuilt.
  if (total_rows <= 3000 && one_in(4, data, size)) {
    auto again = build(true);
    if (!again) return fail("rebuild in reverse order failed: " + code_of(again.error()));
    if (*again != file) return fail("build: appending in another order changed the file's bytes");
  }
  // The query batteries against the model (check_table_rows, check_index_entries), the larger
  // part of an execution's time, for one input in two; the others check what the file says of
  // itself (verify(), tables, encodings, row counts, indexes) and the build's errors.
  const bool batteries = one_in(2, data, size);
  const size_t caches[] = {0, 2 * size_t{page_size}, 16 * size_t{page_size}, file.size()};
  {
    const bool cached = read_choice != 0;
    auto db = open_bytes(file, cached, caches[read_choice]);
    std::string how = cached ? "build, page cache" : "build, in place";
    if (filter_choice != 0) how += ", filters " + std::to_string(filter_choice);
    if (!db) return fail(how + ": open failed: " + code_of(db.error()));
    if (auto st = db->verify(); !st) return fail(how + ": verify failed: " + code_of(st.error()));
    if (db->page_size() != page_size) return fail(how + ": wrong page size");
    if (db->tables().size() != tables.size()) return fail(how + ": wrong number of tables");
    if (db->table("no such table").code() != errc::not_found)
      return fail(how + ": an unknown table is not errc::not_found");
    for (const auto& t : tables) {
      auto table = db->table(t.name);
      if (!table) return fail(how + ": table " + t.name + " missing");
      if (table->encoding() != t.enc) return fail(how + ": table " + t.name + ": wrong encoding");
      const std::vector<Row> rows(t.model.begin(), t.model.end());
      const auto info = table->info();
      if (info.rows != rows.size() || (rows.empty() != (info.depth == 0)))
        return fail(how + ": table " + t.name + ": info() disagrees with the model");
      if (batteries) check_table_rows(*table, rows, probes, size, how + ", table " + t.name);
      if (table->indexes().size() != t.indexes.size())
        return fail(how + ": table " + t.name + ": " + std::to_string(table->indexes().size()) +
                    " indexes, model " + std::to_string(t.indexes.size()));
      if (table->index("no such index").code() != errc::not_found)
        return fail(how + ": table " + t.name + ": an unknown index is not errc::not_found");
      for (size_t j = 0; j < t.indexes.size(); ++j) {
        const IndexDef& d = t.indexes[j];
        const std::string ctx = how + ", table " + t.name + ", index " + d.name;
        auto ix = table->index(d.name);
        if (!ix) return fail(ctx + ": missing: " + code_of(ix.error()));
        if (ix->name() != d.name || ix->unique() != d.unique || ix->encoding() != d.enc ||
            table->indexes()[j].name() != d.name)
          return fail(ctx + ": wrong name, kind or encoding");
        const std::vector<IndexEntry> entries = index_entries(d, rows);
        if (batteries) check_index_entries(*ix, rows, entries, probes, size + j, ctx);
      }
    }
  }
}

}  // namespace drydb_fuzz
