// What the fuzz targets share (tests/fuzz/*_target.h): how a finding is reported, a byte reader
// for fuzz input, the custom key encodings a fuzzed file may name, checksum fix-ups so mutated
// bytes get past the checksums to the structure checks behind them, the unchecked queries run on
// every file, and the checked ones run on every file that verifies.
//
// The checked queries are the one checker of every suite (../support/checker.h) with bounded
// work (kFuzzLimits): check_sampled runs every query kind of a table (get, get_range with every
// bound kind in both orders, count_range, count, prefix, cursor walks both ways, seek,
// seek_exact, seek_rank, range-for over a cursor) against a model (../support/model.h), and
// check_index_sampled every query kind of a secondary index (count, get, get_all, get_range with
// every bound kind in both orders, count_range, prefix, cursor walks both ways with each entry's
// row(), seek, seek_exact, seek_rank). Where the model comes from is the caller's business: the
// rows appended to a builder and each index's key function (build target), or the rows and
// index entries a verified file's forward walks yield (open and page targets; a file that passes
// verify() must answer every other query consistently with its own walks, and without errors).
// The build target also builds with page filters (lz4, zstd, zstd with a dictionary, lz4 then
// zstd); the open corpus holds files with indexes and with zstd and lz4 pages; the page_index
// target replaces pages of index trees (page_target.h).
//
// Everything here is header-only and free of GoogleTest, so the same code runs under libFuzzer
// (tests/fuzz/*_fuzzer.cpp) and as a unit test that replays committed inputs
// (tests/api/fuzz_regression_test.cpp). A finding calls drydb_fuzz::fail(), which aborts under
// libFuzzer (so it keeps the input) and which the unit test redirects to a test failure.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "../support/checker.h"
#include "../support/checksums.h"
#include "../support/keys.h"
#include "../support/model.h"
#include "../support/random.h"
#include "../support/storage.h"
#include "drydb/detail/coding.h"
#include "drydb/detail/format.h"
#include "drydb/drydb.h"

namespace drydb_fuzz {

namespace fmt = drydb::detail;
using drydb::errc;
// The one model, checker, storage and random generator (../support/).
using namespace drydb_test;

// ---- reporting --------------------------------------------------------------------------------

[[noreturn]] inline void abort_with(const std::string& what) {
  std::fprintf(stderr, "drydb fuzz: %s\n", what.c_str());
  std::abort();
}
// Where findings go: abort_with under libFuzzer; the replaying unit test swaps in its own.
inline void (*fail_handler)(const std::string&) = [](const std::string& w) { abort_with(w); };
inline void fail(const std::string& what) {
  fail_handler(what);
}

inline std::string code_of(const drydb::Error& e) {
  return describe(e);
}

// What the target made of its last input, which the replay test (fuzz_regression_test) compares
// with what it expects of each committed input: "verified" (the file opened and verify()
// passed), "built" (the build succeeded), "refused: <code>" (open or the build failed) or
// "unverified: <code>" (the file opened, verify() failed). Kept only when the replay test sets
// record_outcomes: under libFuzzer the extra verify() would only cost time.
inline bool record_outcomes = false;
inline std::string last_outcome;
inline void note_refused(const drydb::Error& e) {
  if (record_outcomes) last_outcome = "refused: " + e.code.message();
}
inline void note_opened(const drydb::ReadOnlyDatabase& db) {
  if (!record_outcomes) return;
  const auto st = db.verify();
  last_outcome = st ? "verified" : "unverified: " + st.error().code.message();
}

// ---- input ------------------------------------------------------------------------------------

// Set by the replay test (fuzz_regression_test): every committed input then gets every check,
// including those an execution under libFuzzer gets only when one_in() picks its input.
inline bool every_check = false;

// Whether this input is among the one in n that get a check too dear for every execution (query
// batteries, the open target's page cache, the build target's reverse-order rebuild and
// dictionary training; each target's comment says which, how often): by a hash of its bytes,
// so each mutation draws again. Always, under every_check.
inline bool one_in(uint64_t n, const uint8_t* data, size_t size) {
  return every_check || XXH3_64bits_withSeed(data, size, 0x6f6e65) % n == 0;
}

// Reads fuzz input front to back; past the end every read gives zeros (so every input is a
// complete, deterministic request).
class Input {
 public:
  Input(const uint8_t* data, size_t size) : p_(data), n_(size) {}
  bool empty() const { return i_ >= n_; }
  size_t remaining() const { return i_ < n_ ? n_ - i_ : 0; }
  uint8_t u8() { return i_ < n_ ? p_[i_++] : 0; }
  uint16_t u16() { return static_cast<uint16_t>(u8() | (u8() << 8)); }
  uint32_t u32() { return u16() | (uint32_t{u16()} << 16); }
  uint64_t u64() { return u32() | (uint64_t{u32()} << 32); }
  // Up to n bytes (fewer at the end of the input).
  std::string bytes(size_t n) {
    n = std::min(n, remaining());
    std::string s(reinterpret_cast<const char*>(p_ + i_), n);
    i_ += n;
    return s;
  }
  std::string rest() { return bytes(remaining()); }

 private:
  const uint8_t* p_;
  size_t n_;
  size_t i_ = 0;
};

// ---- key encodings ----------------------------------------------------------------------------

// The custom encodings fuzzed files may name (short ids, so mutations find them): "f3" (3-byte
// keys stored in the prefix), "f12" (12-byte keys stored whole), "v" (variable length); and
// "format2.fixed12" (12 bytes), which the format-2.0 golden files of the open corpus name
// (tests/data/format2). The built-ins are bytes, int64, uuid_v7 and ulid.
inline void register_encodings() {
  static const bool done = [] {
    for (auto [id, width] : {std::pair<const char*, uint32_t>{"f3", 3},
                             {"f12", 12},
                             {"v", 0},
                             {"format2.fixed12", 12}}) {
      if (drydb::KeyEncoding::find(id)) continue;
      drydb::CustomKeyEncoding c;
      c.id = id;
      c.fixed_width = width;
      if (!drydb::register_key_encoding(std::move(c))) abort_with("cannot register an encoding");
    }
    return true;
  }();
  (void)done;
}

// The encodings a built table may have, by number.
inline drydb::KeyEncoding encoding_number(unsigned n) {
  register_encodings();
  static const char* const kIds[] = {"bytes", "int64", "uuid_v7", "ulid", "f3", "f12", "v"};
  return drydb::KeyEncoding::find(kIds[n % 7]).value();
}
inline constexpr unsigned kEncodings = 7;

// ---- checksums --------------------------------------------------------------------------------

// One set of checksum fix-ups for the tests and the targets (support/checksums.h).
using drydb_test::fix_all_checksums;
using drydb_test::fix_catalog_checksum;
using drydb_test::fix_header_checksum;
using drydb_test::xxh3;

// ---- storage ----------------------------------------------------------------------------------

// The reads (pages and runs the page cache loads) of every database open_bytes opened through a
// page cache, added up as each closes: the measure of an execution's work that the replay test
// bounds (fuzz_regression_test, WorkPerInput), since with a cache of a few pages nearly every
// page a query touches is a read.
inline uint64_t cached_reads = 0;

// A MemoryStorage that adds its reads to cached_reads when its database closes.
class CountedStorage final : public MemoryStorage {
 public:
  using MemoryStorage::MemoryStorage;
  ~CountedStorage() override { cached_reads += reads.load(); }
};

// Opens `bytes` in place (open_memory: the path mapped files take) or through a page cache of
// `cache_bytes` (a MemoryStorage: the path pread files and custom loaders take).
inline drydb::result<drydb::ReadOnlyDatabase> open_bytes(Bytes bytes, bool cached,
                                                         size_t cache_bytes = 2048) {
  if (!cached) return drydb::ReadOnlyDatabase::open_memory(bytes);
  return drydb::ReadOnlyDatabase::open_storage(std::make_unique<CountedStorage>(bytes),
                                               {.page_cache_bytes = cache_bytes});
}

// ---- the checked queries ----------------------------------------------------------------------

// Bounds on the work per table and per index, so that an execution costs well under a
// millisecond: rows a walk reads before giving up (a DAG-shaped tree repeats), rows compared at
// the start of each range, model keys looked up one by one (besides the probes), extra probe
// keys an index takes, and bound pairs (of about a dozen probes, so of some 200 combinations)
// whose count_range and get_range are checked, chosen at random by the input's seed: few per
// execution, as the bound pairs were the larger part of a battery's time, and the executions
// together draw them all.
inline constexpr Limits kFuzzLimits{
    .walk_rows = 20000, .range_rows = 6, .gets = 8, .probes = 6, .pairs = 8};

// One entry of a secondary index as a walk or a key function gives it: (encoded index key,
// primary key).
using IndexEntry = std::pair<std::string, std::string>;

// An Outcome whose every wrong answer and error is a finding, named with `context`.
inline Outcome findings(const std::string& context) {
  Outcome out;
  out.on_wrong = out.on_error = [context](const std::string& what) { fail(context + ": " + what); };
  return out;
}

// Every query kind of `table` against the rows `rows` (sorted by key, distinct); every answer
// must be right and no query may fail, except the refusals the API promises. `extra` are more
// keys to probe (present or not; those not of a typed table's width are left out).
inline void check_table_rows(const drydb::ReadOnlyTable& table, const std::vector<Row>& rows,
                             const std::vector<std::string>& extra, uint64_t seed,
                             const std::string& context, const Limits& lim = kFuzzLimits) {
  const TableModel t = table_of(std::string(table.name()), table.encoding(), rows);
  Outcome out = findings(context);
  check_sampled(table, t, extra, seed, out, lim);
}

// Every query kind of `index` against `entries` (sorted by index key, then primary key; no index
// key repeats in a unique index), each naming a row of table model `t` (table_of the table's
// rows, made once for all of its indexes), as check_table_rows.
inline void check_index_entries(const drydb::SecondaryIndex& index, const TableModel& t,
                                const std::vector<IndexEntry>& entries,
                                const std::vector<std::string>& extra, uint64_t seed,
                                const std::string& context, const Limits& lim = kFuzzLimits) {
  IndexModel ix = make_index(std::string(index.name()), index.unique(), index.encoding(), nullptr);
  std::string missing;
  if (!index_of_entries(t, &ix, entries, &missing))
    return fail(context + ": model: an entry names no row " + show(missing));
  Outcome out = findings(context);
  check_index_sampled(index, t, ix, extra, seed, out, lim);
}

// As above, with the table's rows (sorted by key) instead of their model.
inline void check_index_entries(const drydb::SecondaryIndex& index, const std::vector<Row>& rows,
                                const std::vector<IndexEntry>& entries,
                                const std::vector<std::string>& extra, uint64_t seed,
                                const std::string& context, const Limits& lim = kFuzzLimits) {
  check_index_entries(index, table_of("table", drydb::KeyEncoding::bytes(), rows), entries, extra,
                      seed, context, lim);
}

// ---- untrusted files --------------------------------------------------------------------------

// The pairs (start, end) of n bounds, by position: every one or, past `limit`, `limit` of them
// at random.
inline std::vector<std::pair<size_t, size_t>> sampled_pairs(size_t n, Rng& rng, size_t limit) {
  std::vector<std::pair<size_t, size_t>> pairs;
  for (size_t s = 0; s < n; ++s)
    for (size_t e = 0; e < n; ++e)
      pairs.emplace_back(s, e);
  if (pairs.size() > limit) {
    for (size_t k = 0; k < limit; ++k)
      std::swap(pairs[k], pairs[k + rng.below(pairs.size() - k)]);
    pairs.resize(limit);
  }
  return pairs;
}

// Runs every query kind on every table of a database opened from untrusted bytes, answers
// unchecked: only crashes, hangs and sanitizer findings count. Bounded work: full walks both
// ways (to walk_rows), lim.pairs bound pairs.
inline void poke_table(const drydb::ReadOnlyTable& t, const std::vector<std::string>& keys,
                       const Limits& lim) {
  const auto kind = t.encoding().kind();
  (void)t.info();
  (void)t.count();
  drydb::Cursor c = t.cursor();
  size_t steps = 0;
  for (bool ok = c.first(); ok && steps < lim.walk_rows; ok = c.next(), ++steps)
    (void)c.value();
  steps = 0;
  for (bool ok = c.last(); ok && steps < lim.walk_rows; ok = c.prev(), ++steps)
    (void)c.value();
  for (uint64_t r : {uint64_t{0}, t.count() / 2, t.count() - 1, t.count(), ~uint64_t{0}})
    if (c.seek_rank(r)) (void)c.value();
  std::vector<drydb::Key> probes;
  for (const auto& k : keys)
    if (typed_width(kind) == 0 || k.size() == typed_width(kind))
      probes.push_back(typed_key(kind, k));
  std::vector<drydb::KeyBound> bounds{drydb::KeyBound(drydb::unbounded)};
  for (const auto& k : probes) {
    if (auto v = t.get(k); v && *v) (void)v->bytes();
    if (c.seek(k)) (void)c.value();
    (void)c.next();
    (void)c.prev();
    (void)c.seek_exact(k);
    bounds.emplace_back(k);
  }
  Rng rng{keys.size() + t.count()};
  for (const auto& [si, ei] : sampled_pairs(bounds.size(), rng, lim.pairs)) {
    const auto &s = bounds[si], &e = bounds[ei];
    const uint64_t flags = rng.below(8);
    drydb::RangeOptions o{
        .start_exclusive = (flags & 1) != 0,
        .end_exclusive = (flags & 2) != 0,
        .order = (flags & 4) ? drydb::SortOrder::descending : drydb::SortOrder::ascending};
    (void)t.count_range(s, e, o);
    auto r = t.get_range(s, e, o);
    if (!r) continue;
    size_t i = 0;
    for (auto entry : *r) {
      (void)entry;
      if (++i >= lim.range_rows) break;
    }
  }
  for (const auto& k : keys)
    for (auto order : {drydb::SortOrder::ascending, drydb::SortOrder::descending}) {
      auto r = t.prefix(std::as_bytes(std::span(k.data(), k.size())), order);
      if (!r) continue;
      size_t i = 0;
      for (auto entry : *r) {
        (void)entry;
        if (++i >= lim.range_rows) break;
      }
    }
}

// Every query kind on one secondary index of a database from untrusted bytes, answers
// unchecked (as poke_table): gets, whole-index and bounded ranges both ways, counts, prefixes,
// cursor walks both ways with the rows of some entries resolved. Bounded work, as poke_table's.
inline void poke_index(const drydb::SecondaryIndex& ix, const std::vector<std::string>& keys,
                       const Limits& lim) {
  const auto kind = ix.encoding().kind();
  (void)ix.count();
  drydb::IndexCursor c = ix.cursor();
  size_t steps = 0;
  // Resolving an entry's row (key(), value(), row()) is a descent of the table's tree, through
  // a page cache of two pages a load and check of each of its pages: the walks resolve the
  // first entries and every eighth, so that each leaf of the index still sends some to rows.
  auto resolved = [&](size_t step) { return step < lim.range_rows || step % 8 == 0; };
  for (bool ok = c.first(); ok && steps < lim.walk_rows; ok = c.next(), ++steps) {
    (void)c.index_key();
    if (resolved(steps)) (void)c.row();
  }
  steps = 0;
  for (bool ok = c.last(); ok && steps < lim.walk_rows; ok = c.prev(), ++steps) {
    (void)c.index_key();
    if (resolved(steps)) (void)c.key();
  }
  std::vector<drydb::KeyBound> bounds{drydb::KeyBound(drydb::unbounded)};
  for (const auto& k : keys) {
    if (typed_width(kind) != 0 && k.size() != typed_width(kind)) continue;
    const drydb::Key key = typed_key(kind, k);
    if (auto row = ix.get(key); row && *row) (void)row->value();
    (void)c.seek_exact(key);
    bounds.emplace_back(key);
  }
  Rng rng{keys.size() + ix.count()};
  for (const auto& [si, ei] : sampled_pairs(bounds.size(), rng, lim.pairs))
    for (auto order : {drydb::SortOrder::ascending, drydb::SortOrder::descending}) {
      const auto &s = bounds[si], &e = bounds[ei];
      (void)ix.count_range(s, e, {.start_exclusive = true, .order = order});
      auto r = ix.get_range(s, e, {.end_exclusive = true, .order = order});
      if (!r) continue;
      size_t i = 0;
      for (auto entry : *r) {
        (void)entry;
        if (++i >= lim.range_rows) break;
      }
    }
  for (const auto& k : keys) {
    auto r = ix.prefix(std::as_bytes(std::span(k.data(), k.size())));
    if (!r) continue;
    size_t i = 0;
    for (auto entry : *r) {
      (void)entry;
      if (++i >= lim.range_rows) break;
    }
  }
}

// The rows a forward walk yields, or false when the walk fails, runs past `cap` rows or gives
// keys that do not strictly increase.
inline bool walk_rows(const drydb::ReadOnlyTable& t, size_t cap, std::vector<Row>* out) {
  out->clear();
  drydb::Cursor c = t.cursor();
  for (bool ok = c.first(); ok; ok = c.next()) {
    if (out->size() >= cap) return false;
    auto v = c.value();
    if (!c.status()) return false;
    Row row{to_string(c.key()), to_string(v)};
    if (!out->empty() && !(out->back().first < row.first)) return false;
    out->push_back(std::move(row));
  }
  return static_cast<bool>(c.status());
}

// The entries a forward walk of an index yields, or false when the walk fails, runs past `cap`
// entries or gives entries out of order (by index key, then primary key; index keys distinct
// in a unique index).
inline bool walk_entries(const drydb::SecondaryIndex& ix, size_t cap,
                         std::vector<IndexEntry>* out) {
  out->clear();
  drydb::IndexCursor c = ix.cursor();
  for (bool ok = c.first(); ok; ok = c.next()) {
    if (out->size() >= cap) return false;
    IndexEntry e{to_string(c.index_key()), to_string(c.key())};
    if (!c.status()) return false;
    if (!out->empty() && (ix.unique() ? !(out->back().first < e.first) : !(out->back() < e)))
      return false;
    out->push_back(std::move(e));
  }
  return static_cast<bool>(c.status());
}

// Queries every table of a database read from untrusted bytes. When verify() passes, the file
// is a valid database as far as drydb can tell, so every table must answer every query
// consistently with its own forward walk, with no error; otherwise the queries only must not
// crash. `keys` are extra probe keys (from the fuzz input). Returns whether verify passed.
//
// `focus`, when given, names the trees worth querying (those an input changed): "t" for table
// t's primary tree (then its indexes too: their entries name its rows), "t/ix" for its index ix
// alone (then the table is walked for the index's model, but not queried). The others are only
// verified. Without `batteries`, a file that verifies gets only its forward walks checked (they
// must succeed, in order, and each index entry name a row), not the query batteries against
// them (check_sampled, check_index_sampled), the dearest part of an execution.
inline bool exercise_database(const drydb::ReadOnlyDatabase& db,
                              const std::vector<std::string>& keys, const std::string& context,
                              uint64_t seed, const Limits& lim = kFuzzLimits,
                              const std::vector<std::string>* focus = nullptr,
                              bool batteries = true) {
  auto focused = [&](const std::string& name) {
    return !focus || std::find(focus->begin(), focus->end(), name) != focus->end();
  };
  struct Chosen {
    drydb::ReadOnlyTable table;
    bool whole;                                  // the table and every index
    std::vector<drydb::SecondaryIndex> indexes;  // those to query
  };
  std::vector<Chosen> tables;
  for (const auto& t : db.tables()) {
    const std::string name(t.name());
    Chosen c{t, focused(name), {}};
    for (const auto& ix : t.indexes())
      if (c.whole || focused(name + "/" + std::string(ix.name()))) c.indexes.push_back(ix);
    if (c.whole || !c.indexes.empty()) tables.push_back(std::move(c));
  }
  for (const auto& [t, whole, indexes] : tables) {
    if (!db.table(t.name())) fail(context + ": table '" + std::string(t.name()) + "' not found");
    if (whole) {
      std::vector<std::string> probes = keys;
      std::vector<Row> rows;
      (void)walk_rows(t, 3, &rows);  // the first rows, however the walk ends
      for (const auto& r : rows)
        probes.push_back(r.first);
      poke_table(t, probes, lim);
    }
    for (const auto& ix : indexes)
      poke_index(ix, keys, lim);
  }
  (void)db.table("no such table");
  const bool verified = static_cast<bool>(db.verify());
  if (!verified) return false;
  for (const auto& [t, whole, indexes] : tables) {
    const std::string ctx = context + ", verified table '" + std::string(t.name()) + "'";
    std::vector<Row> rows;
    if (t.count() > lim.walk_rows) continue;  // too large to model within the budget
    if (!walk_rows(t, lim.walk_rows, &rows)) {
      fail(ctx + ": the forward walk fails or is out of order after verify() passed");
      continue;
    }
    if (whole && batteries) check_table_rows(t, rows, keys, seed, ctx, lim);
    if (indexes.empty()) continue;
    const TableModel rows_model = table_of("table", drydb::KeyEncoding::bytes(), rows);
    for (const auto& ix : indexes) {
      const std::string ictx = ctx + ", index '" + std::string(ix.name()) + "'";
      std::vector<IndexEntry> entries;
      if (ix.count() > lim.walk_rows) continue;
      if (!walk_entries(ix, lim.walk_rows, &entries)) {
        fail(ictx + ": the forward walk fails or is out of order after verify() passed");
        continue;
      }
      if (batteries) {
        check_index_entries(ix, rows_model, entries, keys, seed, ictx, lim);
      } else {  // each entry must still name a row
        IndexModel model = make_index(std::string(ix.name()), ix.unique(), ix.encoding(), nullptr);
        std::string missing;
        if (!index_of_entries(rows_model, &model, entries, &missing))
          fail(ictx + ": model: an entry names no row " + show(missing));
      }
    }
  }
  return true;
}

}  // namespace drydb_fuzz
