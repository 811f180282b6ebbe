// The format-2.2 golden files in this folder: what each holds, as a model computed from fixed
// formulas (types and helpers in ../golden.h). make_format2_2.cpp wrote the files from this model
// with the format-2.2 builder, the library at commit c77602d (its last commit before format 2.3:
// detail::kFormatMinor = 2); tests/format/format2_compat_test.cpp opens the committed files with
// today's reader and checks every row and index entry against the same model. Never regenerate
// the files with a builder that writes another format version (the writer refuses to): they are
// the record of what format 2.2 was.
//
// Format 2.2 added prefixed keys: a page of text keys stores the prefix its keys share once
// (docs/format.md, "Prefixed keys (2.2)"). The files:
//   prefixed_keys.drydb  page size 512: URLs and paths whose keys share 20 to 40 bytes (leaves
//                        and internal pages of several levels store them prefixed), one with
//                        overflow values, a miss filter and a non-unique index whose keys
//                        share long prefixes too; keys with no shared prefix beside them; an
//                        int64 table (fixed-width keys are never prefixed)
//   long_keys.drydb      page size 2048: keys of 100 to 400 bytes under one long prefix, so
//                        that pages holding a key over 256 bytes store their keys whole and
//                        the others prefixed
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "../golden.h"

namespace drydb_format2_2 {

using namespace drydb_golden;

inline std::string digits(uint64_t v, size_t width) {
  std::string s = std::to_string(v);
  return std::string(width > s.size() ? width - s.size() : 0, '0') + s;
}

inline std::vector<TableSpec> prefixed_tables() {
  std::vector<TableSpec> out;
  {
    TableSpec t{"urls", drydb::KeyEncoding::bytes(), {}, {}, /*miss_filter_bits=*/10};
    static const char* const kDirs[] = {"img/", "js/", "css/thirdparty/", "fonts/"};
    for (uint64_t i = 0; i < 700; ++i) {
      const uint64_t n = i * 7877 % 100000;
      std::string key = std::string("https://cdn.example.com/assets/") + kDirs[i % 4] +
                        digits(n, 5) + (i % 3 == 0 ? ".min" : "") + ".bin";
      size_t len = 3 + i * 11 % 25;
      if (i % 97 == 13) len = 250 + i;  // overflow values
      t.rows.push_back({key, value_of(i, len)});
    }
    t = sorted(t);
    // The directory of the URL: few index keys, each shared by many rows, all with one prefix.
    t.indexes.push_back({"dir", false, drydb::KeyEncoding::bytes(), [](const Row& r) {
                           return std::optional<std::string>(r.key.substr(0, r.key.rfind('/') + 1));
                         }});
    out.push_back(t);
  }
  {
    TableSpec t{"paths", drydb::KeyEncoding::bytes(), {}, {}};
    for (uint64_t i = 0; i < 400; ++i)
      t.rows.push_back({"/usr/share/doc/lib" + std::string(1, static_cast<char>('a' + i % 3)) +
                            "package" + digits(i * 37 % 1000, 3) + "/copyright",
                        value_of(i, i % 9)});
    out.push_back(sorted(t));
  }
  {
    // Short keys that share nothing much: pages stored with no prefix or a short one.
    TableSpec t{"words", drydb::KeyEncoding::bytes(), {}, {}};
    for (uint64_t i = 0; i < 250; ++i) {
      std::string k;
      for (uint64_t v = i * 2654435761u % 1000003 + 1; v != 0; v /= 26)
        k += static_cast<char>('a' + v % 26);
      t.rows.push_back({k, value_of(i, 5)});
    }
    out.push_back(sorted(t));
  }
  {
    TableSpec t{"ids", drydb::KeyEncoding::int64(), {}, {}};
    for (int64_t i = 0; i < 200; ++i)
      t.rows.push_back({int64_bytes(i * 1000 - 100000), value_of(static_cast<uint64_t>(i), 7)});
    out.push_back(t);
  }
  return out;
}

inline TableSpec long_key_table() {
  TableSpec t{"archive", drydb::KeyEncoding::bytes(), {}, {}};
  const std::string prefix = "/srv/archive/" + std::string(80, 'x') + "/";
  for (uint64_t i = 0; i < 120; ++i) {
    // 100 to about 400 bytes: the prefix, a run of one letter, the row's number.
    const size_t run = 10 + i * 53 % 290;
    t.rows.push_back(
        {prefix + std::string(run, static_cast<char>('a' + i % 5)) + "/" + digits(i * 31 % 1000, 4),
         value_of(i, 20)});
  }
  return sorted(t);
}

inline std::vector<FileSpec> files() {
  return {
      {"prefixed_keys.drydb", 512, {}, prefixed_tables(), /*prefixed_pages=*/true},
      {"long_keys.drydb", 2048, {}, {long_key_table()}, /*prefixed_pages=*/true},
  };
}

}  // namespace drydb_format2_2
