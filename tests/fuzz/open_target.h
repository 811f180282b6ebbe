// Fuzz target "open": arbitrary bytes as a database file.
//
// The bytes are opened as given in place (open_memory: the path mapped files take), then again
// with every checksum recomputed (see fix_all_checksums), in place and (one input in three,
// by one_in) through a small page cache, so that mutations get past the checksums to the
// header, catalog and page checks behind them (in place only when that changed a byte). Each
// opened database gets every query kind on every table and index (exercise_database); a file
// that passes verify() must have forward walks that succeed in order (of each table, and of each
// index, whose entries must name rows) and, for one input in two, answer every query
// consistently with those walks. fuzz_regression_test replays every committed input with all of
// these (every_check). The corpus holds small files of today's builder and the golden files
// every format version's builder wrote (tests/data, those under the 64 KiB input cap). An
// execution costs one to three opens and, for each file that opens, walks and sampled queries
// bounded by kFuzzLimits; most mutated inputs are refused at the header or catalog.
#pragma once

#include "fuzz_support.h"

namespace drydb_fuzz {

inline void run_open(const uint8_t* data, size_t size) {
  register_encodings();
  const Bytes raw(reinterpret_cast<const std::byte*>(data), size);
  // A few probe keys that are not in typical files, of every typed width.
  const std::vector<std::string> keys{std::string("k"), std::string(8, '\0'),
                                      std::string(8, '\x80'), std::string(16, '\x01')};
  const uint64_t seed = size;
  // The query batteries on files that verify (against their own walks) for one input in two.
  const bool batteries = one_in(2, data, size);
  auto as_given = open_bytes(raw, false);
  if (as_given) {
    note_opened(*as_given);
    exercise_database(*as_given, keys, "open: as given", seed, kFuzzLimits, nullptr, batteries);
  } else {
    note_refused(as_given.error());
  }
  std::vector<std::byte> fixed(raw.begin(), raw.end());
  fix_all_checksums(fixed);
  // Bytes whose checksums were all right already (every seed, and mutations the checksums do
  // not cover) were just exercised in place as given: only the page cache's path is new.
  const bool changed = !std::equal(fixed.begin(), fixed.end(), raw.begin(), raw.end());
  if (changed)
    if (auto db = open_bytes(fixed, false))
      exercise_database(*db, keys, "open: checksums fixed", seed, kFuzzLimits, nullptr, batteries);
  // The page cache, for one input in three (a third open and exercise of the file): two pages,
  // or (every third input) enough for the whole file, where pages are never evicted and reads
  // take no references.
  if (!one_in(3, data, size)) return;
  const size_t cache = size % 3 == 0 ? size + 1 : 1024;
  if (auto db = open_bytes(fixed, true, cache))
    exercise_database(*db, keys, "open: checksums fixed, page cache", seed, kFuzzLimits, nullptr,
                      batteries);
}

}  // namespace drydb_fuzz
