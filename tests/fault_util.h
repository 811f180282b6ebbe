// Helpers shared by corruption_test.cpp, concurrency_test.cpp and regression_test.cpp:
// a std::map model of a database, a checker that runs every query kind against an open
// database and compares each answer with the model, a map of which file bytes the format
// uses and checksum fix-ups. The temp folder, file I/O, and the fault-injecting storage and
// allocator come from support.h (shared with test_util.h).
//
// Keys are kept in the model as their *encoded* bytes (int64 keys as 8 big-endian bytes with
// the sign bit flipped), so std::map<std::string> order (char_traits<char>::compare compares
// as unsigned char) is exactly the table's memcmp order.
#pragma once

#include <gtest/gtest.h>
#include <xxhash.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "drydb/detail/coding.h"
#include "drydb/detail/format.h"
#include "drydb/drydb.h"
#include "support.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define DRYDB_TEST_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define DRYDB_TEST_SANITIZED 1
#endif
#ifndef DRYDB_TEST_SANITIZED
#define DRYDB_TEST_SANITIZED 0
#endif
// ThreadSanitizer slows single-threaded sweeps most and finds nothing in them: they thin out.
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define DRYDB_TEST_TSAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define DRYDB_TEST_TSAN 1
#endif
#ifndef DRYDB_TEST_TSAN
#define DRYDB_TEST_TSAN 0
#endif

namespace drydb_fault {

using drydb::errc;
// The helpers shared with test_util.h (support.h).
using namespace drydb_support;

// ---- small utilities ---------------------------------------------------------------------------

// splitmix64: deterministic, seedable, cheap.
struct Rng {
  uint64_t state;
  explicit Rng(uint64_t seed) : state(seed) {}
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n).
  uint64_t below(uint64_t n) { return n == 0 ? 0 : next() % n; }
  bool chance(uint64_t one_in) { return below(one_in) == 0; }
};

// Deterministic value bytes of `len` for row `seed` (so a wrong value is seen, not just a
// wrong length).
inline std::string make_value(uint64_t seed, size_t len) {
  std::string v(len, '\0');
  Rng r(seed * 0x9E37 + len);
  for (size_t i = 0; i < len; i += 8) {
    uint64_t x = r.next();
    for (size_t b = 0; b < 8 && i + b < len; ++b)
      v[i + b] = static_cast<char>((x >> (8 * b)) & 0xFF);
  }
  return v;
}

// Printable form of a key for messages.
inline std::string show(std::string_view k) {
  return drydb::escape_bytes(as_bytes(k));
}

// ---- the model ---------------------------------------------------------------------------------

using Row = std::pair<std::string, std::string>;  // encoded key, value

// A secondary index of a table in the model: its declaration, the function that gives a row's
// encoded index key (or none: the row is not in the index), and, once its table is finished,
// its entries.
struct IndexModel {
  std::string name;
  bool unique = false;
  drydb::KeyEncoding enc = drydb::KeyEncoding::bytes();
  std::function<std::optional<std::string>(const std::string& key, const std::string& value)>
      key_of;
  // (encoded index key, position of the row in its table's `sorted`), in the index's order:
  // by index key, then by primary key.
  std::vector<std::pair<std::string, size_t>> entries;

  bool is_int64() const { return enc.kind() == drydb::KeyKind::int64; }
  size_t size() const { return entries.size(); }
  // First entry with index key >= k (lower) or > k (upper).
  size_t lower(std::string_view k) const {
    return static_cast<size_t>(
        std::lower_bound(entries.begin(), entries.end(), k,
                         [](const auto& e, std::string_view x) { return e.first < x; }) -
        entries.begin());
  }
  size_t upper(std::string_view k) const {
    return static_cast<size_t>(
        std::upper_bound(entries.begin(), entries.end(), k,
                         [](std::string_view x, const auto& e) { return x < e.first; }) -
        entries.begin());
  }
};

struct TableModel {
  std::string name;
  drydb::KeyEncoding enc = drydb::KeyEncoding::bytes();
  std::map<std::string, std::string> rows;  // encoded key -> value
  // The rows in key order, filled by finish(); the checkers search it by index.
  std::vector<Row> sorted;
  // Secondary indexes, declared in this order; finish() fills their entries.
  std::vector<IndexModel> indexes;

  bool is_int64() const { return enc.kind() == drydb::KeyKind::int64; }
  void finish() {
    sorted.assign(rows.begin(), rows.end());
    for (auto& ix : indexes) {
      ix.entries.clear();
      for (size_t i = 0; i < sorted.size(); ++i)
        if (auto k = ix.key_of(sorted[i].first, sorted[i].second)) ix.entries.emplace_back(*k, i);
      std::sort(ix.entries.begin(), ix.entries.end());
    }
  }
  size_t size() const { return sorted.size(); }
  // First index with key >= k (lower) or > k (upper).
  size_t lower(std::string_view k) const {
    return static_cast<size_t>(std::lower_bound(sorted.begin(), sorted.end(), k,
                                                [](const Row& r, std::string_view x) {
                                                  return std::string_view(r.first) < x;
                                                }) -
                               sorted.begin());
  }
  size_t upper(std::string_view k) const {
    return static_cast<size_t>(std::upper_bound(sorted.begin(), sorted.end(), k,
                                                [](std::string_view x, const Row& r) {
                                                  return x < std::string_view(r.first);
                                                }) -
                               sorted.begin());
  }
  const std::string* find(std::string_view k) const {
    size_t i = lower(k);
    return i < sorted.size() && sorted[i].first == k ? &sorted[i].second : nullptr;
  }
};

inline IndexModel make_index(std::string name, bool unique, drydb::KeyEncoding enc,
                             decltype(IndexModel::key_of) key_of) {
  IndexModel ix;
  ix.name = std::move(name);
  ix.unique = unique;
  ix.enc = enc;
  ix.key_of = std::move(key_of);
  return ix;
}

inline TableModel make_table(std::string name, drydb::KeyEncoding enc) {
  TableModel t;
  t.name = std::move(name);
  t.enc = enc;
  return t;
}

struct DbModel {
  uint32_t page_size = 512;
  std::vector<TableModel> tables;
  void finish() {
    for (auto& t : tables)
      t.finish();
  }
  const TableModel* find(std::string_view name) const {
    for (const auto& t : tables)
      if (t.name == name) return &t;
    return nullptr;
  }
};

// A Key for an encoded model key, of the kind the table takes. For bytes (and custom) tables
// the Key references `enc`, which must outlive it; typed keys are copied into the Key.
inline drydb::Key key_of(const TableModel& t, std::string_view enc) {
  return drydb_support::typed_key(t.enc.kind(), enc);
}

// A custom encoding of the given fixed width ("test.fixedN"), registered once per process.
inline drydb::KeyEncoding fixed_width_encoding(uint32_t width) {
  static std::mutex mu;
  std::lock_guard lock(mu);
  const std::string id = "test.fixed" + std::to_string(width);
  if (auto found = drydb::KeyEncoding::find(id)) return *found;
  drydb::CustomKeyEncoding c;
  c.id = id;
  c.fixed_width = width;
  auto reg = drydb::register_key_encoding(std::move(c));
  if (!reg) {
    ADD_FAILURE() << reg.error().to_string();
    return drydb::KeyEncoding::bytes();
  }
  return *reg;
}

// build_to_memory of the model (with its secondary indexes); records a test failure and returns no
// bytes when the build fails.
inline std::vector<std::byte> build_memory(const DbModel& m) {
  drydb::DatabaseBuilder b({.page_size = m.page_size});
  for (const auto& t : m.tables) {
    auto& tb = b.create_table(t.name, t.enc);
    for (const auto& [k, v] : t.rows)
      tb.append(key_of(t, k), v);
    for (const auto& ix : t.indexes)
      tb.add_secondary_index(ix.name, ix.unique, ix.enc,
                             [fn = ix.key_of, kind = ix.enc.kind()](
                                 Bytes key, Bytes value) -> std::optional<drydb::IndexKey> {
                               auto k = fn(std::string(to_view(key)), std::string(to_view(value)));
                               if (!k) return std::nullopt;
                               return drydb::IndexKey(drydb_support::typed_key(kind, *k));
                             });
  }
  return built_bytes(b.build_to_memory());
}

// ---- the checker -------------------------------------------------------------------------------

// What a batch of queries found: answers that matched the model, answers that were errors,
// and answers that were wrong (data that differs from the model without an error).
struct Outcome {
  uint64_t correct = 0;
  uint64_t errors = 0;
  std::vector<std::string> wrong;
  std::set<int> codes;  // error codes seen
  std::string first_error;

  void error(const drydb::Error& e) {
    if (errors == 0) first_error = e.to_string();
    ++errors;
    codes.insert(e.code.value());
  }
  void error(const drydb::status& s) { error(s.error()); }
  void mismatch(std::string what) {
    if (wrong.size() < 20)
      wrong.push_back(std::move(what));
    else if (wrong.size() == 20)
      wrong.push_back("... (more)");
  }
  bool detected() const { return errors > 0; }
  void merge(const Outcome& o) {
    correct += o.correct;
    if (errors == 0 && o.errors) first_error = o.first_error;
    errors += o.errors;
    codes.insert(o.codes.begin(), o.codes.end());
    for (const auto& w : o.wrong)
      mismatch(w);
  }
};

// One end of a range in the model: unbounded, or an encoded key.
struct Bound {
  bool bounded = false;
  std::string key;
  static Bound none() { return {}; }
  static Bound at(std::string k) { return {true, std::move(k)}; }
};

inline std::string show_key(const TableModel& t, std::string_view k) {
  return t.is_int64() && k.size() == 8 ? std::to_string(int64_of(k)) : show(k);
}

inline std::string describe(const TableModel& t, const Bound& s, const Bound& e,
                            const drydb::RangeOptions& o) {
  auto b = [&](const Bound& x) { return x.bounded ? show_key(t, x.key) : std::string("*"); };
  return t.name + " [" + b(s) + (o.start_exclusive ? " excl" : " incl") + ", " + b(e) +
         (o.end_exclusive ? " excl" : " incl") +
         (o.order == drydb::SortOrder::descending ? "] desc" : "] asc");
}

// Expected rows of a range: indexes [*lo, *hi) of t.sorted; false when start > end (an
// error is expected).
inline bool model_range(const TableModel& t, const Bound& s, const Bound& e,
                        const drydb::RangeOptions& o, size_t* lo, size_t* hi) {
  if (t.sorted.size() != t.rows.size()) ADD_FAILURE() << t.name << ": model not finished";
  *lo = 0;
  *hi = 0;
  if (s.bounded && e.bounded && s.key > e.key) return false;
  *lo = !s.bounded ? 0 : (o.start_exclusive ? t.upper(s.key) : t.lower(s.key));
  *hi = !e.bounded ? t.size() : (o.end_exclusive ? t.lower(e.key) : t.upper(e.key));
  if (*hi < *lo) *hi = *lo;
  return true;
}

inline drydb::KeyBound key_bound(const TableModel& t, const Bound& b) {
  if (!b.bounded) return drydb::unbounded;
  return drydb::KeyBound(key_of(t, b.key));
}

inline bool same(std::span<const std::byte> a, std::string_view b) {
  return a.size() == b.size() && (b.empty() || std::memcmp(a.data(), b.data(), b.size()) == 0);
}

// Iterates a Range and compares every row with t.sorted[lo, hi) (walked in the range's
// order). Counts an error if the range stopped on one. `what` describes the query (lazily).
template <class What>
void check_range_rows(drydb::Range& r, const TableModel& t, size_t lo, size_t hi, bool descending,
                      const What& what, Outcome& out) {
  const size_t n = hi - lo;
  if (r.size() != n) {
    out.mismatch(what() + ": size " + std::to_string(r.size()) + ", expected " + std::to_string(n));
    return;
  }
  size_t i = 0;
  for (auto entry : r) {
    if (i >= n) {
      out.mismatch(what() + ": more rows than expected");
      return;
    }
    if (!r.status()) break;  // the value read failed; reported below
    const Row& want = t.sorted[descending ? hi - 1 - i : lo + i];
    if (!same(entry.key, want.first) || !same(entry.value, want.second)) {
      out.mismatch(what() + ": row " + std::to_string(i) + " is " +
                   show_key(t, to_view(entry.key)) +
                   (same(entry.key, want.first) ? " with a wrong value" : "") + ", expected " +
                   show_key(t, want.first));
      return;
    }
    ++i;
  }
  if (!r.status()) return out.error(r.status());
  if (i != n) {
    out.mismatch(what() + ": iteration gave " + std::to_string(i) + " rows, expected " +
                 std::to_string(n) + ", with no error");
    return;
  }
  ++out.correct;
}

inline void check_get(const drydb::ReadOnlyTable& table, const TableModel& t, std::string_view k,
                      Outcome& out) {
  auto v = table.get(key_of(t, k));
  if (!v) return out.error(v.error());
  const std::string* want = t.find(k);
  if (want == nullptr) {
    if (v->has_value())
      return out.mismatch(t.name + ": get " + show_key(t, k) + " found an absent key");
  } else if (!v->has_value()) {
    return out.mismatch(t.name + ": get " + show_key(t, k) + " missed a present key");
  } else if (!same(v->bytes(), *want)) {
    return out.mismatch(t.name + ": get " + show_key(t, k) + " returned a wrong value of " +
                        std::to_string(v->size()) + " bytes, expected " +
                        std::to_string(want->size()));
  }
  ++out.correct;
}

// A range query that failed: the right answer when the model has start > end (`valid` is
// false) and the error is invalid_argument, an error otherwise.
inline void range_failed(const drydb::Error& e, bool valid, Outcome& out) {
  if (!valid && e.code == errc::invalid_argument)
    ++out.correct;
  else
    out.error(e);
}

inline void check_range(const drydb::ReadOnlyTable& table, const TableModel& t, const Bound& s,
                        const Bound& e, drydb::RangeOptions o, Outcome& out) {
  size_t lo, hi;
  const bool valid = model_range(t, s, e, o, &lo, &hi);
  auto what = [&] { return "get_range " + describe(t, s, e, o); };
  auto r = table.get_range(key_bound(t, s), key_bound(t, e), o);
  if (!r) return range_failed(r.error(), valid, out);
  if (!valid) return out.mismatch(what() + ": accepted start > end");
  check_range_rows(*r, t, lo, hi, o.order == drydb::SortOrder::descending, what, out);
}

inline void check_count(const drydb::ReadOnlyTable& table, const TableModel& t, const Bound& s,
                        const Bound& e, drydb::RangeOptions o, Outcome& out) {
  size_t lo, hi;
  const bool valid = model_range(t, s, e, o, &lo, &hi);
  auto c = table.count_range(key_bound(t, s), key_bound(t, e), o);
  if (!c) return range_failed(c.error(), valid, out);
  if (!valid) return out.mismatch("count_range " + describe(t, s, e, o) + ": accepted start > end");
  if (*c != hi - lo)
    return out.mismatch("count_range " + describe(t, s, e, o) + " = " + std::to_string(*c) +
                        ", expected " + std::to_string(hi - lo));
  ++out.correct;
}

inline void check_prefix(const drydb::ReadOnlyTable& table, const TableModel& t,
                         const std::string& p, drydb::SortOrder order, Outcome& out) {
  auto r = table.prefix(as_bytes(p), order);
  if (t.enc.kind() != drydb::KeyKind::bytes) {
    if (!r && r.code() == errc::wrong_key_type)
      ++out.correct;
    else if (!r)
      out.error(r.error());
    else
      out.mismatch(t.name + ": prefix accepted on a table of typed keys");
    return;
  }
  if (!r) return out.error(r.error());
  size_t lo = t.lower(p), hi = lo;
  while (hi < t.size() && t.sorted[hi].first.starts_with(p))
    ++hi;
  check_range_rows(
      *r, t, lo, hi, order == drydb::SortOrder::descending,
      [&] { return t.name + ": prefix " + show(p); }, out);
}

// Cursor walks over every row, forward (first/next) or backward (last/prev), reading every
// key and value. A walk longer than the table is reported as wrong (it would be a loop).
inline void check_walk(const drydb::ReadOnlyTable& table, const TableModel& t, bool forward,
                       Outcome& out) {
  auto c = table.cursor();
  bool ok = forward ? c.first() : c.last();
  const size_t n = t.size();
  size_t i = 0;
  auto what = [&] { return t.name + (forward ? ": forward walk" : ": backward walk"); };
  for (; ok; ok = forward ? c.next() : c.prev()) {
    if (i >= n) return out.mismatch(what() + ": more rows than the table has");
    const size_t at = forward ? i : n - 1 - i;
    const Row& want = t.sorted[at];
    auto key = c.key();
    auto value = c.value();
    if (!c.status()) break;
    if (!same(key, want.first) || !same(value, want.second))
      return out.mismatch(what() + ": row " + std::to_string(i) + " is " +
                          show_key(t, to_view(key)) +
                          (same(key, want.first) ? " with a wrong value" : "") + ", expected " +
                          show_key(t, want.first));
    if (c.rank() != at)
      return out.mismatch(what() + ": row " + std::to_string(i) + " has rank " +
                          std::to_string(c.rank()));
    ++i;
  }
  if (!c.status()) return out.error(c.status());
  if (i != n)
    return out.mismatch(what() + ": ended after " + std::to_string(i) + " of " + std::to_string(n) +
                        " rows with no error");
  ++out.correct;
}

// seek (lower bound) and seek_exact at `k`, then a few steps back across whatever leaf
// boundary is near, reading values.
inline void check_seek(const drydb::ReadOnlyTable& table, const TableModel& t, std::string_view k,
                       Outcome& out) {
  auto what = [&] { return t.name + ": seek " + show_key(t, k); };
  auto c = table.cursor();
  bool ok = c.seek(key_of(t, k));
  if (!c.status()) return out.error(c.status());
  size_t at = t.lower(k);
  if (ok != (at < t.size())) return out.mismatch(what() + ": wrong validity");
  if (ok) {
    if (!same(c.key(), t.sorted[at].first) || c.rank() != at)
      return out.mismatch(what() + ": wrong row");
    for (int step = 0; step < 3; ++step) {
      bool moved = c.prev();
      if (!c.status()) return out.error(c.status());
      if (at == 0) {
        if (moved) return out.mismatch(what() + ": prev moved past the first row");
        break;
      }
      --at;
      if (!moved) return out.mismatch(what() + ": prev stopped early with no error");
      auto key = c.key();
      auto value = c.value();
      if (!c.status()) return out.error(c.status());
      if (!same(key, t.sorted[at].first) || !same(value, t.sorted[at].second))
        return out.mismatch(what() + ": prev gave a wrong row");
    }
  }
  auto c2 = table.cursor();
  bool exact = c2.seek_exact(key_of(t, k));
  if (!c2.status()) return out.error(c2.status());
  const std::string* want = t.find(k);
  if (exact != (want != nullptr)) return out.mismatch(what() + ": seek_exact disagrees");
  if (exact) {
    auto value = c2.value();
    if (!c2.status()) return out.error(c2.status());
    if (!same(value, *want)) return out.mismatch(what() + ": seek_exact gave a wrong value");
  }
  ++out.correct;
}

// Interesting bounds of a table: unbounded, first/middle/last keys, keys just after them (in
// the gap to the next key), and a key below every key. Probes of fixed-width tables have the
// table's width (the next key as a big-endian number; all zeros below everything).
inline std::vector<Bound> probe_bounds(const TableModel& t) {
  const size_t width = t.enc.fixed_width();
  std::vector<Bound> out{Bound::none()};
  if (t.sorted.empty()) {
    out.push_back(Bound::at(width ? std::string(width, 'k') : std::string("k")));
    return out;
  }
  auto add_near = [&](size_t i) {
    const std::string& k = t.sorted[i].first;
    out.push_back(Bound::at(k));
    std::string next;
    if (drydb_support::next_key(width, k, &next)) out.push_back(Bound::at(std::move(next)));
  };
  add_near(0);
  add_near(t.size() / 3);
  add_near(t.size() - 1);
  out.push_back(Bound::at(std::string(width, '\0')));
  return out;
}

inline constexpr uint64_t kEveryQuery = ~uint64_t{0};

// Every query kind over one table: full walks both ways (reading every key and value), a get
// of every key and of absent keys, seeks with steps back, count_range and get_range in both
// orders over pairs of probe bounds with every exclusivity, and prefixes in both orders.
//
// With subset == kEveryQuery every bound combination is run (counts, and ranges in both
// orders). Otherwise the walks and gets are still complete but only a slice of the bound
// combinations, chosen by `subset`, is run (8 counts, 4 ranges, 2 seeks, 1 prefix), so a sweep
// over many corrupted files covers all combinations across its files at a fraction of the cost.
inline void check_table(const drydb::ReadOnlyTable& table, const TableModel& t, Outcome& out,
                        uint64_t subset = kEveryQuery) {
  const bool all = subset == kEveryQuery;
  if (table.count() != t.size())
    out.mismatch(t.name + ": count() " + std::to_string(table.count()) + ", expected " +
                 std::to_string(t.size()));
  check_walk(table, t, true, out);
  check_walk(table, t, false, out);
  for (const auto& row : t.sorted)
    check_get(table, t, row.first, out);
  auto bounds = probe_bounds(t);
  for (size_t i = 0; i < bounds.size(); ++i)
    if (bounds[i].bounded) {
      check_get(table, t, bounds[i].key, out);
      if (all || i % bounds.size() == subset % bounds.size() ||
          i % bounds.size() == (subset + 3) % bounds.size())
        check_seek(table, t, bounds[i].key, out);
    }
  uint64_t combo = 0;
  for (size_t i = 0; i < bounds.size(); ++i)
    for (size_t j = 0; j < bounds.size(); ++j)
      for (int flags = 0; flags < 4; ++flags, ++combo) {
        drydb::RangeOptions o{.start_exclusive = (flags & 1) != 0,
                              .end_exclusive = (flags & 2) != 0};
        if (all || combo % 32 == subset % 32) check_count(table, t, bounds[i], bounds[j], o, out);
        if (all) {
          check_range(table, t, bounds[i], bounds[j], o, out);
          o.order = drydb::SortOrder::descending;
          check_range(table, t, bounds[i], bounds[j], o, out);
        } else if (combo % 64 == subset % 64) {
          o.order = (combo / 64 + subset / 64) % 2 ? drydb::SortOrder::descending
                                                   : drydb::SortOrder::ascending;
          check_range(table, t, bounds[i], bounds[j], o, out);
        }
      }
  if (t.enc.kind() == drydb::KeyKind::bytes && !t.sorted.empty()) {
    const std::string& mid = t.sorted[t.size() / 2].first;
    const size_t lens[] = {0, 1, mid.size() / 2, mid.size()};
    for (size_t l = 0; l < 4; ++l)
      for (auto order : {drydb::SortOrder::ascending, drydb::SortOrder::descending})
        if (all || (l * 2 + (order == drydb::SortOrder::descending)) == subset % 8)
          check_prefix(table, t, mid.substr(0, lens[l]), order, out);
  } else if (t.enc.kind() != drydb::KeyKind::bytes) {
    check_prefix(table, t, "", drydb::SortOrder::ascending, out);
  }
}

// Every table of the model, through `db`. A missing table counts as wrong.
inline void check_database(const drydb::ReadOnlyDatabase& db, const DbModel& m, Outcome& out,
                           uint64_t subset = kEveryQuery) {
  if (db.tables().size() != m.tables.size()) out.mismatch("wrong number of tables");
  for (const auto& t : m.tables) {
    auto table = db.table(t.name);
    if (!table) {
      out.mismatch("table " + t.name + " is missing: " + table.error().to_string());
      continue;
    }
    check_table(*table, t, out, subset);
  }
}

// ---- the index checker -------------------------------------------------------------------------
// Each check compares one answer of a secondary index with `ix`, the index's model, and the rows
// it names with `t`, its table's model; one right answer adds 1 to out.correct.

inline std::string show_index_key(const IndexModel& ix, std::string_view k) {
  return ix.is_int64() && k.size() == 8 ? std::to_string(int64_of(k)) : show(k);
}

inline drydb::Key index_key_of(const IndexModel& ix, std::string_view k) {
  return drydb_support::typed_key(ix.enc.kind(), k);
}

inline drydb::KeyBound index_bound(const IndexModel& ix, const Bound& b) {
  if (!b.bounded) return drydb::unbounded;
  return drydb::KeyBound(index_key_of(ix, b.key));
}

inline std::string describe(const TableModel& t, const IndexModel& ix, const Bound& s,
                            const Bound& e, const drydb::RangeOptions& o) {
  auto b = [&](const Bound& x) { return x.bounded ? show_index_key(ix, x.key) : std::string("*"); };
  return t.name + "." + ix.name + " [" + b(s) + (o.start_exclusive ? " excl" : " incl") + ", " +
         b(e) + (o.end_exclusive ? " excl" : " incl") +
         (o.order == drydb::SortOrder::descending ? "] desc" : "] asc");
}

// Expected entries of an index range: [*lo, *hi) of ix.entries; false when start > end.
inline bool model_range(const IndexModel& ix, const Bound& s, const Bound& e,
                        const drydb::RangeOptions& o, size_t* lo, size_t* hi) {
  *lo = 0;
  *hi = 0;
  if (s.bounded && e.bounded && s.key > e.key) return false;
  *lo = !s.bounded ? 0 : (o.start_exclusive ? ix.upper(s.key) : ix.lower(s.key));
  *hi = !e.bounded ? ix.size() : (o.end_exclusive ? ix.lower(e.key) : ix.upper(e.key));
  if (*hi < *lo) *hi = *lo;
  return true;
}

// Whether (key, value) is the row of entry i.
inline bool is_entry_row(const TableModel& t, const IndexModel& ix, size_t i,
                         std::span<const std::byte> key, std::span<const std::byte> value) {
  const Row& row = t.sorted[ix.entries[i].second];
  return same(key, row.first) && same(value, row.second);
}

// Iterates an IndexRange and compares every row with the rows of ix.entries[lo, hi) (in the
// range's order).
template <class What>
void check_index_rows(drydb::IndexRange& r, const TableModel& t, const IndexModel& ix, size_t lo,
                      size_t hi, bool descending, const What& what, Outcome& out) {
  const size_t n = hi - lo;
  if (r.size() != n)
    return out.mismatch(what() + ": size " + std::to_string(r.size()) + ", expected " +
                        std::to_string(n));
  size_t i = 0;
  for (auto entry : r) {
    if (i >= n) return out.mismatch(what() + ": more rows than expected");
    if (!r.status()) break;
    const size_t at = descending ? hi - 1 - i : lo + i;
    if (!is_entry_row(t, ix, at, entry.key, entry.value))
      return out.mismatch(what() + ": row " + std::to_string(i) + " is " +
                          show_key(t, to_view(entry.key)) + ", expected " +
                          show_key(t, t.sorted[ix.entries[at].second].first));
    ++i;
  }
  if (!r.status()) return out.error(r.status());
  if (i != n)
    return out.mismatch(what() + ": iteration gave " + std::to_string(i) + " rows, expected " +
                        std::to_string(n) + ", with no error");
  ++out.correct;
}

// get: the first row (in primary-key order) of index key k, or none.
inline void check_index_get(const drydb::SecondaryIndex& index, const TableModel& t,
                            const IndexModel& ix, std::string_view k, Outcome& out) {
  auto row = index.get(index_key_of(ix, k));
  if (!row) return out.error(row.error());
  const size_t at = ix.lower(k);
  const bool want = at < ix.size() && ix.entries[at].first == k;
  auto what = [&] { return t.name + "." + ix.name + ": get " + show_index_key(ix, k); };
  if (row->has_value() != want)
    return out.mismatch(what() + (want ? " missed a present key" : " found an absent key"));
  if (want && !is_entry_row(t, ix, at, row->key(), row->value()))
    return out.mismatch(what() + " returned row " + show_key(t, to_view(row->key())) +
                        ", expected " + show_key(t, t.sorted[ix.entries[at].second].first));
  ++out.correct;
}

// get_all: every row of index key k, in primary-key order.
inline void check_index_get_all(const drydb::SecondaryIndex& index, const TableModel& t,
                                const IndexModel& ix, std::string_view k, Outcome& out) {
  auto r = index.get_all(index_key_of(ix, k));
  if (!r) return out.error(r.error());
  check_index_rows(
      *r, t, ix, ix.lower(k), ix.upper(k), false,
      [&] { return t.name + "." + ix.name + ": get_all " + show_index_key(ix, k); }, out);
}

inline void check_index_range(const drydb::SecondaryIndex& index, const TableModel& t,
                              const IndexModel& ix, const Bound& s, const Bound& e,
                              drydb::RangeOptions o, Outcome& out) {
  size_t lo, hi;
  const bool valid = model_range(ix, s, e, o, &lo, &hi);
  auto r = index.get_range(index_bound(ix, s), index_bound(ix, e), o);
  if (!r) return range_failed(r.error(), valid, out);
  auto what = [&] { return "get_range " + describe(t, ix, s, e, o); };
  if (!valid) return out.mismatch(what() + ": accepted start > end");
  check_index_rows(*r, t, ix, lo, hi, o.order == drydb::SortOrder::descending, what, out);
}

inline void check_index_count(const drydb::SecondaryIndex& index, const TableModel& t,
                              const IndexModel& ix, const Bound& s, const Bound& e,
                              drydb::RangeOptions o, Outcome& out) {
  size_t lo, hi;
  const bool valid = model_range(ix, s, e, o, &lo, &hi);
  auto c = index.count_range(index_bound(ix, s), index_bound(ix, e), o);
  if (!c) return range_failed(c.error(), valid, out);
  if (!valid)
    return out.mismatch("count_range " + describe(t, ix, s, e, o) + ": accepted start > end");
  if (*c != hi - lo)
    return out.mismatch("count_range " + describe(t, ix, s, e, o) + " = " + std::to_string(*c) +
                        ", expected " + std::to_string(hi - lo));
  ++out.correct;
}

// prefix: the rows whose index key starts with p; refused (errc::wrong_key_type) by an index of
// typed keys.
inline void check_index_prefix(const drydb::SecondaryIndex& index, const TableModel& t,
                               const IndexModel& ix, const std::string& p, drydb::SortOrder order,
                               Outcome& out) {
  auto r = index.prefix(as_bytes(p), order);
  if (ix.enc.kind() != drydb::KeyKind::bytes) {
    if (!r && r.code() == errc::wrong_key_type)
      ++out.correct;
    else if (!r)
      out.error(r.error());
    else
      out.mismatch(t.name + "." + ix.name + ": prefix accepted on typed index keys");
    return;
  }
  if (!r) return out.error(r.error());
  const size_t lo = ix.lower(p);
  size_t hi = lo;
  while (hi < ix.size() && ix.entries[hi].first.starts_with(p))
    ++hi;
  check_index_rows(
      *r, t, ix, lo, hi, order == drydb::SortOrder::descending,
      [&] { return t.name + "." + ix.name + ": prefix " + show(p); }, out);
}

// A cursor positioned by seek_exact(k) (its answer checked), or by seek_rank(rank) when there
// is no k; then `steps` moves one way, checking each entry's rank, index key and row; a Row
// taken at the start must keep its bytes through the moves.
inline void check_index_cursor(const drydb::SecondaryIndex& index, const TableModel& t,
                               const IndexModel& ix, const std::optional<std::string>& k,
                               uint64_t rank, int steps, bool forward, Outcome& out) {
  auto what = [&] {
    return t.name + "." + ix.name + ": cursor from " +
           (k ? "seek " + show_index_key(ix, *k) : "rank " + std::to_string(rank));
  };
  auto c = index.cursor();
  size_t at;
  bool ok;
  if (k) {
    at = ix.lower(*k);
    ok = c.seek_exact(index_key_of(ix, *k));
    if (!c.status()) return out.error(c.status());
    if (ok != (at < ix.size() && ix.entries[at].first == *k))
      return out.mismatch(what() + ": seek_exact disagrees");
    ok = c.valid();
  } else {
    at = rank;
    ok = c.seek_rank(rank);
    if (!c.status()) return out.error(c.status());
  }
  if (ok != (at < ix.size())) return out.mismatch(what() + ": wrong validity");
  if (!ok) {
    ++out.correct;
    return;
  }
  auto check_here = [&](size_t i) {
    auto key = c.key();
    auto value = c.value();
    if (!c.status()) return false;
    return c.rank() == i && same(c.index_key(), ix.entries[i].first) &&
           is_entry_row(t, ix, i, key, value);
  };
  if (!check_here(at)) {
    if (!c.status()) return out.error(c.status());
    return out.mismatch(what() + ": wrong first entry");
  }
  drydb::Row held = c.row();
  const size_t held_at = at;
  if (!c.status()) return out.error(c.status());
  for (int s = 0; s < steps; ++s) {
    const bool moved = forward ? c.next() : c.prev();
    if (!c.status()) return out.error(c.status());
    const bool expect = forward ? at + 1 < ix.size() : at > 0;
    if (moved != expect) return out.mismatch(what() + ": walk validity");
    if (!moved) break;
    at = forward ? at + 1 : at - 1;
    if (!check_here(at)) {
      if (!c.status()) return out.error(c.status());
      return out.mismatch(what() + ": walk reached a wrong entry at " + std::to_string(at));
    }
  }
  if (!held.has_value() || !is_entry_row(t, ix, held_at, held.key(), held.value()))
    return out.mismatch(what() + ": a Row taken from the cursor changed as it moved");
  ++out.correct;
}

// No wrong answer (all of them listed), no error, and at least `min_correct` right answers.
inline void expect_all_correct(const Outcome& out, uint64_t min_correct = 1) {
  EXPECT_TRUE(out.wrong.empty()) << out.wrong.size() << " wrong answers:\n  " << [&] {
    std::string s;
    for (const auto& w : out.wrong)
      s += w + "\n  ";
    return s;
  }();
  EXPECT_EQ(out.errors, 0u) << "first error: " << out.first_error;
  EXPECT_GE(out.correct, min_correct);
}

// check_database of `m` through `db` (the queries `subset` picks), then expect_all_correct.
inline void expect_database_correct(const drydb::ReadOnlyDatabase& db, const DbModel& m,
                                    uint64_t min_correct, uint64_t subset = kEveryQuery) {
  Outcome out;
  check_database(db, m, out, subset);
  expect_all_correct(out, min_correct);
}

// ---- page memory -------------------------------------------------------------------------------

// Opens a database with open(&alloc) (a CountingAllocator for its page memory) and runs
// body(db, alloc); then, with the database gone, expects every block of page memory returned
// exactly once, as it was allocated.
template <class Open, class Body>
void with_counted_pages(Open open, Body body) {
  CountingAllocator alloc;
  {
    auto db = open(&alloc);
    ASSERT_TRUE(db) << db.error().to_string();
    body(*db, alloc);
  }
  EXPECT_EQ(alloc.live_blocks(), 0u) << "page memory leaked";
  EXPECT_EQ(alloc.bad_frees(), 0u) << "page memory freed twice or never allocated";
  EXPECT_EQ(alloc.size_mismatches(), 0u);
}

// with_counted_pages of `bytes` opened through a page cache of `cache_bytes` (open_cached).
template <class Body>
void with_counted_cache(std::span<const std::byte> bytes, size_t cache_bytes, Body body) {
  with_counted_pages(
      [&](drydb::PageAllocator* alloc) { return open_cached(bytes, cache_bytes, alloc); }, body);
}

// ---- the file's bytes --------------------------------------------------------------------------

// What a byte of a drydb file is, from the format (detail/format.h).
enum class ByteUse : uint8_t {
  header,            // page 0, bytes 0..63: checksummed header
  header_padding,    // page 0, bytes 64..page_size-1: zero, read by nothing
  tree_page,         // a leaf or internal page: all of it is under its checksum
  overflow,          // an overflow run's header and value: under the run's checksum
  overflow_padding,  // after an overflow run's value, to the end of its last page: unused
  catalog,           // the catalog: under the catalog checksum in the header
};

inline const char* use_name(ByteUse u) {
  switch (u) {
    case ByteUse::header:
      return "header";
    case ByteUse::header_padding:
      return "header padding";
    case ByteUse::tree_page:
      return "tree page";
    case ByteUse::overflow:
      return "overflow run";
    case ByteUse::overflow_padding:
      return "overflow padding";
    case ByteUse::catalog:
      return "catalog";
  }
  return "?";
}

struct FileMap {
  uint32_t page_size = 0;
  uint64_t page_count = 0;
  uint64_t catalog_offset = 0;
  std::vector<ByteUse> use;         // per byte
  std::vector<uint64_t> run_start;  // per page: the first page of its overflow run, or the page
  std::vector<uint8_t> page_type;   // per page: format PageType of the run's first page
};

// Classifies every byte of a valid file by walking its pages in order (each page is a leaf or
// internal page or starts an overflow run, whose following pages hold its value).
inline FileMap map_file(std::span<const std::byte> f) {
  using namespace drydb::detail;
  FileMap m;
  m.page_size = load_u32(f.data() + header::kPageSizeOff);
  m.page_count = load_u64(f.data() + header::kPageCountOff);
  m.catalog_offset = m.page_count * m.page_size;
  m.use.assign(f.size(), ByteUse::catalog);
  m.run_start.assign(m.page_count, 0);
  m.page_type.assign(m.page_count, 0);
  std::fill(m.use.begin(), m.use.begin() + header::kSize, ByteUse::header);
  std::fill(m.use.begin() + header::kSize, m.use.begin() + m.page_size, ByteUse::header_padding);
  for (uint64_t p = 1; p < m.page_count;) {
    const std::byte* page = f.data() + p * m.page_size;
    const auto type = static_cast<uint8_t>(page[page::kTypeOff]);
    if (type == static_cast<uint8_t>(PageType::overflow)) {
      const uint64_t len = load_u32(page + overflow::kLengthOff);
      const uint64_t pages = overflow::pages_for(len, m.page_size);
      const uint64_t begin = p * m.page_size, used = begin + overflow::kHeaderSize + len;
      const uint64_t end = (p + pages) * m.page_size;
      std::fill(m.use.begin() + static_cast<long>(begin), m.use.begin() + static_cast<long>(used),
                ByteUse::overflow);
      std::fill(m.use.begin() + static_cast<long>(used), m.use.begin() + static_cast<long>(end),
                ByteUse::overflow_padding);
      for (uint64_t q = p; q < p + pages; ++q) {
        m.run_start[q] = p;
        m.page_type[q] = type;
      }
      p += pages;
    } else {
      std::fill(m.use.begin() + static_cast<long>(p * m.page_size),
                m.use.begin() + static_cast<long>((p + 1) * m.page_size), ByteUse::tree_page);
      m.run_start[p] = p;
      m.page_type[p] = type;
      ++p;
    }
  }
  return m;
}

inline uint64_t xxh3(const std::byte* p, size_t n) {
  return XXH3_64bits(p, n);
}

inline void fix_header_checksum(std::span<std::byte> f) {
  using namespace drydb::detail;
  store_u64(f.data() + header::kHeaderChecksumOff, xxh3(f.data(), header::kHeaderChecksumOff));
}

inline void fix_catalog_checksum(std::span<std::byte> f) {
  using namespace drydb::detail;
  const uint64_t ps = load_u32(f.data() + header::kPageSizeOff);
  const uint64_t off = load_u64(f.data() + header::kPageCountOff) * ps;
  const uint64_t len = load_u64(f.data() + header::kCatalogLengthOff);
  if (off > f.size() || len > f.size() - off) return;
  store_u64(f.data() + header::kCatalogChecksumOff, xxh3(f.data() + off, len));
  fix_header_checksum(f);
}

// After bytes at `offset` were changed, recomputes the checksum that covers them (using the
// original file's map `m`), so the change reaches the structural checks behind the checksum.
inline void fix_checksum_at(std::span<std::byte> f, const FileMap& m, uint64_t offset) {
  using namespace drydb::detail;
  switch (m.use[offset]) {
    case ByteUse::header:
      if (offset < header::kHeaderChecksumOff) fix_header_checksum(f);
      return;
    case ByteUse::catalog:
      fix_catalog_checksum(f);
      return;
    case ByteUse::tree_page: {
      std::byte* p = f.data() + (offset / m.page_size) * m.page_size;
      if (offset % m.page_size >= 8) store_u64(p, xxh3(p + 8, m.page_size - 8));
      return;
    }
    case ByteUse::overflow: {
      const uint64_t start = m.run_start[offset / m.page_size] * m.page_size;
      if (offset - start < 8) return;
      std::byte* p = f.data() + start;
      const uint64_t len = load_u32(p + overflow::kLengthOff);  // possibly the changed length
      if (start + overflow::kHeaderSize + len > f.size()) return;
      store_u64(p, xxh3(p + 8, overflow::kHeaderSize - 8 + len));
      return;
    }
    default:
      return;
  }
}

}  // namespace drydb_fault
