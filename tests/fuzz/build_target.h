// Fuzz target "build": fuzzer-chosen tables, keys, values, page sizes and memory budgets built
// with DatabaseBuilder::build_to_memory, then read back and checked against std::map.
//
// Input, read front to back (missing bytes read as zero):
//   u8   page size: 512 << (byte % 8), so 512 .. 65,536
//   u8   memory budget: one of 0, 256, 1 KiB, 4 KiB, 16 KiB, 64 KiB, 1 MiB, 256 MiB (small
//        budgets spill sorted runs to temp files and merge them)
//   u8   how to read: in place (as mmap does), or through a page cache of 2 pages, 16 pages or
//        the whole file (byte % 4)
//   u8   tables: 1 + byte % 4; per table:
//     u8   key encoding: byte % 7 of bytes, int64, uuid_v7, ulid, f3, f12, v (custom)
//     u8   name: 0xFF reuses the previous table's name (errc::duplicate_name), else "t<i>"
//     u8   generated rows: (byte^2)/16 keys from a pattern of the encoding (deep trees cheaply;
//          at most 150 under a budget below 1 KiB, 1,000 below 16 KiB: spills cost files)
//     u8   explicit rows; per row:
//       u8   key: for typed widths that many bytes follow; for variable keys byte % 48 bytes
//            follow, except 250..255: a key of max_key_length - 3 + (byte - 250) bytes (so
//            one over the limit at 254, errc::key_too_long)
//       u8   value: < 200: byte % 40 bytes follow; 200..249: a generated value around the
//            inline limit (inline_value_limit - 2 + (byte - 200) % 5) or an overflow value
//            of up to 3 pages; 250..255: a key of the wrong kind is appended instead
//            (errc::wrong_key_type)
//   rest: probe keys, 0..40 bytes each (length byte first)
// The builder's first error must be the one the model predicts (errors are sticky: the first
// failed append, or errc::duplicate_key at build when a key repeats). A successful build of up
// to 3,000 rows is rebuilt with the rows appended in reverse order and must give identical bytes
// (the builder is deterministic); it must verify, and every query kind on every table must agree
// with the model (TableChecker), in place or through the page cache.
//
// Secondary indexes and page filters: add fuzzer-chosen index definitions per table (with a
// model of their entries) and a filter chain to the options here, once they exist.
#pragma once

#include <map>

#include "fuzz_support.h"

namespace drydb_fuzz {

struct Append {
  std::string key, value;
  bool wrong_kind = false;  // append a key of the wrong kind instead
};

struct BuildTable {
  std::string name;
  drydb::KeyEncoding enc = drydb::KeyEncoding::bytes();
  std::vector<Append> appended;  // in append order
  std::map<std::string, std::string> model;
  bool duplicate = false;
};

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

inline void run_build(const uint8_t* data, size_t size) {
  register_encodings();
  Input in(data, size);
  const uint32_t page_size = 512u << (in.u8() % 8);
  static constexpr size_t kBudgets[] = {0, 256, 1024, 4096, 16384, 65536, 1 << 20, 256u << 20};
  const size_t budget = kBudgets[in.u8() % 8];
  const uint8_t read_choice = in.u8() % 4;
  const unsigned table_count = 1 + in.u8() % 4;
  const uint32_t max_key = fmt::max_key_length(page_size);
  const uint32_t inline_limit = fmt::inline_value_limit(page_size);

  std::vector<BuildTable> tables;
  drydb::Error expected;  // the builder's first error, as the model predicts it
  bool failing = false;
  bool duplicate_key = false;
  std::string duplicate_table;
  auto expect = [&](errc e, const std::string& why) {
    if (!failing) {
      failing = true;
      expected = drydb::Error(e, why);
    }
  };
  uint64_t total_rows = 0;
  for (unsigned ti = 0; ti < table_count; ++ti) {
    BuildTable t;
    t.enc = encoding_number(in.u8());
    const uint8_t name_byte = in.u8();
    t.name = "t" + std::to_string(ti);
    if (name_byte == 0xFF && ti > 0) {
      t.name = tables.back().name;
      t.duplicate = true;
    }
    const size_t width = t.enc.fixed_width();
    const uint8_t gen = in.u8();
    // Spilling costs a temp file per run: small budgets get fewer generated rows.
    const uint64_t cap = budget < 1024 ? 150 : budget < 16384 ? 1000 : 5000;
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
    total_rows += t.appended.size();
    tables.push_back(std::move(t));
  }
  std::vector<std::string> probes;
  while (!in.empty())
    probes.push_back(in.bytes(in.u8() % 41));

  // Appends every table's rows, in order or reversed; predicts the first error on the way.
  auto build = [&](bool reversed) -> drydb::result<std::vector<std::byte>> {
    drydb::DatabaseBuilder b({.page_size = page_size, .memory_budget = budget});
    for (auto& t : tables) {
      auto& tb = b.create_table(t.name, t.enc);
      if (t.duplicate && !reversed) expect(errc::duplicate_name, "table name reused");
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
          duplicate_key = true;
        }
      }
    }
    return b.build_to_memory();
  };
  auto built = build(false);
  if (duplicate_key) expect(errc::duplicate_key, "a key appended twice");
  if (failing) {
    if (built) return fail("build: succeeded, but the model expects " + expected.message);
    if (!is(built.code(), static_cast<errc>(expected.code.value())))
      return fail("build: failed with " + code_of(built.error()) + "; the model expects " +
                  expected.message + " (code " + std::to_string(expected.code.value()) + ")");
    return;
  }
  if (!built) return fail("build failed: " + code_of(built.error()));
  const std::vector<std::byte>& file = *built;
  if (total_rows <= 3000) {
    auto again = build(true);
    if (!again) return fail("rebuild in reverse order failed: " + code_of(again.error()));
    if (*again != file) return fail("build: appending in another order changed the file's bytes");
  }
  const size_t caches[] = {0, 2 * size_t{page_size}, 16 * size_t{page_size}, file.size()};
  {
    const bool cached = read_choice != 0;
    auto db = open_bytes(file, cached, caches[read_choice]);
    const std::string how = cached ? "build, page cache" : "build, in place";
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
      TableChecker(*table, rows, how + ", table " + t.name).run(probes, size);
      // Secondary indexes: check each index of the table against its model here.
    }
  }
}

}  // namespace drydb_fuzz
