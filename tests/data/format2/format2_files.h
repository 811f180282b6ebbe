// The format-2.0 golden files in this folder: what each holds, as a model computed from fixed
// formulas. make_format2.cpp wrote the files from this model with the format-2.0 builder;
// tests/format/format2_compat_test.cpp opens the committed files with today's reader and checks
// every row and index entry against the same model, so files of format 2.0 stay readable by every
// later reader. Never regenerate the files with a builder that writes another format version:
// they are the record of what format 2.0 was.
//
// The files (page size 512, so the trees are several levels deep and overflow runs appear):
//   keys.drydb        tables of every key encoding: bytes (variable-length, with empty and
//                     zero-byte keys, empty, short, long and overflow values), int64 (negative
//                     and positive, dense and sparse), uuid_v7, ulid, a custom 12-byte
//                     encoding "format2.fixed12"; an empty table and a one-row table
//   indexes.drydb     one table with a unique bytes index, a non-unique int64 index, a sparse
//                     non-unique bytes index whose keys hold zero bytes
//   zstd.drydb        keys.drydb's tables with zstd page filtering
//   lz4.drydb         keys.drydb's tables with lz4, then zstd with a trained dictionary
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "../golden.h"

namespace drydb_format2 {

// The model's types and helpers (Row, TableSpec, FileSpec, typed_key, ...), shared by the golden
// files of every version.
using namespace drydb_golden;

// The custom encoding of keys.drydb, registered once per process.
inline drydb::KeyEncoding fixed12_encoding() {
  static const drydb::KeyEncoding enc = [] {
    if (auto found = drydb::KeyEncoding::find("format2.fixed12")) return *found;
    drydb::CustomKeyEncoding c;
    c.id = "format2.fixed12";
    c.fixed_width = 12;
    return drydb::register_key_encoding(std::move(c)).value();
  }();
  return enc;
}

inline std::vector<TableSpec> key_tables() {
  std::vector<TableSpec> out;
  {
    TableSpec t{"bytes", drydb::KeyEncoding::bytes(), {}, {}};
    t.rows.push_back({"", "the empty key"});
    t.rows.push_back({std::string("\0", 1), ""});
    t.rows.push_back({std::string("a\0b", 3), "zero byte inside"});
    for (uint64_t i = 0; i < 400; ++i) {
      std::string key = "item/" + std::to_string(i * 7919 % 100000);
      if (i % 50 == 3)
        key += std::string(50, static_cast<char>('a' + i % 26));  // near the limit (64)
      size_t len = i * 37 % 60;
      if (i % 41 == 5) len = 200 + i * 13;  // overflow values, up to a few pages
      t.rows.push_back({key, value_of(i, len)});
    }
    t.rows.push_back({std::string(3, '\xff'), "all FF"});
    out.push_back(sorted(t));
  }
  {
    TableSpec t{"int64", drydb::KeyEncoding::int64(), {}, {}};
    for (int64_t i = -300; i < 300; ++i)  // dense around zero
      t.rows.push_back({int64_bytes(i), value_of(static_cast<uint64_t>(i + 1000), 8)});
    for (int64_t i = 1; i <= 200; ++i)  // sparse, both signs, the extremes
      t.rows.push_back(
          {int64_bytes(i * 1'000'000'007 * (i % 2 ? 1 : -1)), value_of(i, i % 5 == 0 ? 300 : 13)});
    t.rows.push_back({int64_bytes(INT64_MIN), "min"});
    t.rows.push_back({int64_bytes(INT64_MAX), "max"});
    out.push_back(sorted(t));
  }
  {
    TableSpec t{"uuid", drydb::KeyEncoding::uuid_v7(), {}, {}};
    for (uint64_t i = 0; i < 300; ++i) {
      std::string k = be64(0x0190'0000'0000'7000ull + (i << 20) + i) +
                      be64(0x8000'0000'0000'0000ull | (i * 0x9E3779B97F4A7C15ull >> 2));
      // Version 7 (byte 6 high nibble), variant 10 (byte 8 top bits).
      k[6] = static_cast<char>(0x70 | (k[6] & 0x0F));
      k[8] = static_cast<char>(0x80 | (k[8] & 0x3F));
      t.rows.push_back({k, value_of(i, 16)});
    }
    out.push_back(sorted(t));
  }
  {
    TableSpec t{"ulid", drydb::KeyEncoding::ulid(), {}, {}};
    for (uint64_t i = 0; i < 300; ++i)
      t.rows.push_back({be64(0x0190'0000'0000'0000ull + i * 977) + be64(i * 0xD1B54A32D192ED03ull),
                        value_of(i, 20)});
    out.push_back(sorted(t));
  }
  {
    TableSpec t{"fixed12", fixed12_encoding(), {}, {}};
    for (uint64_t i = 0; i < 300; ++i)
      t.rows.push_back(
          {be64(i * 0x9E3779B97F4A7C15ull) + std::string(4, static_cast<char>(i)), value_of(i, 5)});
    out.push_back(sorted(t));
  }
  out.push_back(TableSpec{"empty", drydb::KeyEncoding::bytes(), {}, {}});
  out.push_back(
      TableSpec{"one", drydb::KeyEncoding::int64(), {{int64_bytes(42), "the only row"}}, {}});
  return out;
}

inline TableSpec index_table() {
  TableSpec t{"people", drydb::KeyEncoding::bytes(), {}, {}};
  for (uint64_t i = 0; i < 500; ++i)
    t.rows.push_back({"person/" + std::to_string(100000 + i * 7), value_of(i, 10 + i % 30)});
  t = sorted(t);
  // Index keys come from the key's number, so they are known without the value.
  auto number = [](const Row& r) { return std::stoull(r.key.substr(7)); };
  t.indexes.push_back({"email", true, drydb::KeyEncoding::bytes(), [number](const Row& r) {
                         return std::optional<std::string>(
                             "user" + std::to_string(number(r) * 3 % 100003) + "@example.com");
                       }});
  t.indexes.push_back({"age", false, drydb::KeyEncoding::int64(), [number](const Row& r) {
                         return std::optional<std::string>(
                             int64_bytes(static_cast<int64_t>(number(r) % 83) - 20));
                       }});
  t.indexes.push_back({"team", false, drydb::KeyEncoding::bytes(),
                       [number](const Row& r) -> std::optional<std::string> {
                         const uint64_t n = number(r);
                         if (n % 4 == 0) return std::nullopt;  // sparse
                         return std::string("team") + std::string(1, '\0') +
                                static_cast<char>('A' + n % 9);
                       }});
  return t;
}

inline std::vector<FileSpec> files() {
  return {
      {"keys.drydb", 512, {}, key_tables()},
      {"indexes.drydb", 512, {}, {index_table()}},
      {"zstd.drydb", 512, {drydb::filters::zstd()}, key_tables()},
      {"lz4.drydb",
       512,
       {drydb::filters::lz4(), drydb::filters::zstd({.dictionary_bytes = 4096})},
       key_tables()},
  };
}

}  // namespace drydb_format2
