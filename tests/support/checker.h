// The one checker of the tests and fuzz targets (free of GoogleTest): asks a drydb table or
// secondary index the questions its model (model.h) can answer and compares every answer.
//
// Each check_* function runs one query kind and records into an Outcome: a right answer adds to
// `correct`, an error (a query that failed) to `errors`, an answer that differs from the model
// with no error to `wrong`. What counts as a failure is the caller's: the unit suites and the
// fuzz targets want neither errors nor wrong answers (and set Outcome's callbacks to report each
// as found), the fault suites accept errors (a corruption or injected failure detected) but never
// a wrong answer. The two refusals the API promises are right answers: errc::invalid_argument for
// a range whose start is after its end, errc::wrong_key_type for prefix() on typed keys.
//
// The batteries at the end pick the queries: check_table (every query kind over probe bounds,
// or a slice of them for sweeps over many files), check_bounds (around the bounds a test
// chooses: every pair, every end kind, both orders), check_sampled and check_index_sampled
// (bounded work with random picks, for fuzz inputs).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "drydb/drydb.h"
#include "keys.h"
#include "model.h"
#include "random.h"

namespace drydb_test {

// ---- what the checks found ---------------------------------------------------------------------

struct Outcome {
  uint64_t correct = 0;            // answers that matched the model
  uint64_t errors = 0;             // answers that were errors
  uint64_t rows = 0;               // rows and index entries compared one by one
  std::vector<std::string> wrong;  // answers that differ from the model (the first 20)
  std::set<int> codes;             // error codes seen
  std::string first_error;
  // When set, called with the description of each wrong answer or error as it is found.
  std::function<void(const std::string&)> on_wrong, on_error;

  void error(const drydb::Error& e) { error(std::string(), e); }
  void error(const drydb::status& s) { error(s.error()); }
  void error(const std::string& query, const drydb::Error& e) {
    const std::string what = query.empty() ? describe(e) : query + " failed: " + describe(e);
    if (errors == 0) first_error = what;
    ++errors;
    codes.insert(e.code.value());
    if (on_error) on_error(what);
  }
  void mismatch(std::string what) {
    if (on_wrong) on_wrong(what);
    if (wrong.size() < 20)
      wrong.push_back(std::move(what));
    else if (wrong.size() == 20)
      wrong.push_back("... (more)");
  }
  bool detected() const { return errors > 0; }
  bool clean() const { return errors == 0 && wrong.empty(); }
  void merge(const Outcome& o) {
    correct += o.correct;
    rows += o.rows;
    if (errors == 0 && o.errors) first_error = o.first_error;
    errors += o.errors;
    codes.insert(o.codes.begin(), o.codes.end());
    for (const auto& w : o.wrong)
      mismatch(w);
  }
};

// Bounds on the work of a check. The defaults check everything; the fuzz targets bound it, so
// one input cannot take seconds.
struct Limits {
  static constexpr size_t kAll = std::numeric_limits<size_t>::max();
  size_t walk_rows = kAll;   // rows a walk compares before it stops (a DAG-shaped tree repeats)
  size_t range_rows = kAll;  // rows compared at the start of each range (besides its size)
  size_t gets = kAll;        // sampled batteries: model keys looked up one by one
  size_t probes = 6;         // check_index_sampled: extra probe keys it takes at most
  size_t pairs = kAll;       // sampled batteries: bound pairs whose count and range are checked
};

// One end of a range in the model: unbounded, or an encoded key.
struct Bound {
  bool bounded = false;
  std::string key;
  static Bound none() { return {}; }
  static Bound at(std::string k) { return {true, std::move(k)}; }
};

inline const char* order_name(drydb::SortOrder o) {
  return o == drydb::SortOrder::descending ? "desc" : "asc";
}

inline std::string describe(const std::string& what, drydb::KeyKind kind, const Bound& s,
                            const Bound& e, const drydb::RangeOptions& o) {
  auto b = [&](const Bound& x) { return x.bounded ? show_key(kind, x.key) : std::string("*"); };
  return what + " [" + b(s) + (o.start_exclusive ? " excl" : " incl") + ", " + b(e) +
         (o.end_exclusive ? " excl" : " incl") + "] " + order_name(o.order);
}
inline std::string describe(const TableModel& t, const Bound& s, const Bound& e,
                            const drydb::RangeOptions& o) {
  return describe(t.name, t.kind(), s, e, o);
}
inline std::string describe(const TableModel& t, const IndexModel& ix, const Bound& s,
                            const Bound& e, const drydb::RangeOptions& o) {
  return describe(t.name + "." + ix.name, ix.kind(), s, e, o);
}

// Model positions [*lo, *hi) of a range over `m` (a TableModel or an IndexModel); false when
// start > end (an error is expected).
template <class M>
bool model_range(const M& m, const Bound& s, const Bound& e, const drydb::RangeOptions& o,
                 size_t* lo, size_t* hi) {
  *lo = 0;
  *hi = 0;
  if (s.bounded && e.bounded && s.key > e.key) return false;
  *lo = !s.bounded ? 0 : (o.start_exclusive ? m.upper(s.key) : m.lower(s.key));
  *hi = !e.bounded ? m.size() : (o.end_exclusive ? m.lower(e.key) : m.upper(e.key));
  if (*hi < *lo) *hi = *lo;
  return true;
}

template <class M>
drydb::KeyBound key_bound(const M& m, const Bound& b) {
  if (!b.bounded) return drydb::unbounded;
  return drydb::KeyBound(key_of(m, b.key));
}

// A range query that failed: the right answer when the model has start > end (`valid` is
// false) and the error is invalid_argument, an error otherwise.
inline void range_failed(const std::string& what, const drydb::Error& e, bool valid, Outcome& out) {
  if (!valid && is(e.code, drydb::errc::invalid_argument))
    ++out.correct;
  else
    out.error(what, e);
}

// The three range queries every tree answers alike, a table (`q`, modelled by a TableModel `m`)
// or a secondary index (an IndexModel); `name` names it in messages. check_rows(range, lo, hi,
// descending, what) compares the rows of a range with model positions [lo, hi).

// count_range.
template <class Q, class M>
void check_count_of(const Q& q, const M& m, const std::string& name, const Bound& s, const Bound& e,
                    drydb::RangeOptions o, Outcome& out) {
  size_t lo, hi;
  const bool valid = model_range(m, s, e, o, &lo, &hi);
  auto what = [&] { return "count_range " + describe(name, m.kind(), s, e, o); };
  auto c = q.count_range(key_bound(m, s), key_bound(m, e), o);
  if (!c) return range_failed(what(), c.error(), valid, out);
  if (!valid) return out.mismatch(what() + ": accepted start > end");
  if (*c != hi - lo)
    return out.mismatch(what() + " = " + std::to_string(*c) + ", expected " +
                        std::to_string(hi - lo));
  ++out.correct;
}

// get_range.
template <class Q, class M, class CheckRows>
void check_range_of(const Q& q, const M& m, const std::string& name, const Bound& s, const Bound& e,
                    drydb::RangeOptions o, Outcome& out, const CheckRows& check_rows) {
  size_t lo, hi;
  const bool valid = model_range(m, s, e, o, &lo, &hi);
  const std::function<std::string()> what = [&] {
    return "get_range " + describe(name, m.kind(), s, e, o);
  };
  auto r = q.get_range(key_bound(m, s), key_bound(m, e), o);
  if (!r) return range_failed(what(), r.error(), valid, out);
  if (!valid) return out.mismatch(what() + ": accepted start > end");
  check_rows(*r, lo, hi, o.order == drydb::SortOrder::descending, what);
}

// prefix: the rows whose key starts with p; refused (errc::wrong_key_type) by typed keys.
template <class Q, class M, class CheckRows>
void check_prefix_of(const Q& q, const M& m, const std::string& name, const std::string& p,
                     drydb::SortOrder order, Outcome& out, const CheckRows& check_rows) {
  const std::function<std::string()> what = [&] {
    return name + ": prefix " + show(p) + " " + order_name(order);
  };
  auto r = q.prefix(as_bytes(p), order);
  if (m.kind() != drydb::KeyKind::bytes) {
    if (!r && is(r.code(), drydb::errc::wrong_key_type))
      ++out.correct;
    else if (!r)
      out.error(what(), r.error());
    else
      out.mismatch(what() + " accepted on typed keys");
    return;
  }
  if (!r) return out.error(what(), r.error());
  const size_t lo = m.lower(p);
  size_t hi = lo;
  while (hi < m.size() && m.key(hi).starts_with(p))
    ++hi;
  check_rows(*r, lo, hi, order == drydb::SortOrder::descending, what);
}

// ---- tables ------------------------------------------------------------------------------------

inline std::string show_key(const TableModel& t, std::string_view k) {
  return show_key(t.kind(), k);
}

// count() and info().rows.
inline void check_table_count(const drydb::ReadOnlyTable& table, const TableModel& t,
                              Outcome& out) {
  if (table.count() != t.size())
    return out.mismatch(t.name + ": count() " + std::to_string(table.count()) + ", expected " +
                        std::to_string(t.size()));
  if (table.info().rows != t.size())
    return out.mismatch(t.name + ": info().rows " + std::to_string(table.info().rows) +
                        ", expected " + std::to_string(t.size()));
  ++out.correct;
}

inline void check_get(const drydb::ReadOnlyTable& table, const TableModel& t, std::string_view k,
                      Outcome& out) {
  auto what = [&] { return t.name + ": get " + show_key(t, k); };
  auto v = table.get(key_of(t, k));
  if (!v) return out.error(what(), v.error());
  const std::string* want = t.find(k);
  if (want == nullptr) {
    if (v->has_value()) return out.mismatch(what() + " found an absent key");
    if (v->size() != 0) return out.mismatch(what() + ": absent but has bytes");
  } else if (!v->has_value()) {
    return out.mismatch(what() + " missed a present key");
  } else if (!same(v->bytes(), *want)) {
    return out.mismatch(what() + " returned a wrong value of " + std::to_string(v->size()) +
                        " bytes, expected " + std::to_string(want->size()));
  }
  ++out.correct;
}

// A get of every row of the model.
inline void check_every_get(const drydb::ReadOnlyTable& table, const TableModel& t, Outcome& out) {
  for (const auto& row : t.sorted)
    check_get(table, t, row.first, out);
}

// Iterates `r` (a Range or an IndexRange) and compares its size, empty() and every row (the first
// lim.range_rows) with the model's `n` rows: wrong(entry, i) tells what is wrong with the range's
// row i ("" when it is the model's). Counts an error if the range stopped on one. `what`
// describes the query (lazily).
template <class R, class Wrong, class What>
void check_rows(R& r, size_t n, const Wrong& wrong, const What& what, Outcome& out,
                const Limits& lim) {
  if (r.size() != n)
    return out.mismatch(what() + ": size " + std::to_string(r.size()) + ", expected " +
                        std::to_string(n));
  if (r.empty() != (n == 0)) return out.mismatch(what() + ": empty() disagrees with size()");
  size_t i = 0;
  for (auto entry : r) {
    if (i >= lim.range_rows) break;
    if (i >= n) return out.mismatch(what() + ": more rows than expected");
    if (!r.status()) break;  // the value read failed; reported below
    if (const std::string w = wrong(entry, i); !w.empty())
      return out.mismatch(what() + ": row " + std::to_string(i) + " is " + w);
    ++i;
    ++out.rows;
  }
  if (!r.status()) return out.error(what(), r.status().error());
  if (i < std::min(n, lim.range_rows))
    return out.mismatch(what() + ": iteration gave " + std::to_string(i) + " rows, expected " +
                        std::to_string(n) + ", with no error");
  ++out.correct;
}

// check_rows of a Range against t.sorted[lo, hi), walked in the range's order.
template <class What>
void check_range_rows(drydb::Range& r, const TableModel& t, size_t lo, size_t hi, bool descending,
                      const What& what, Outcome& out, const Limits& lim = {}) {
  const auto wrong = [&](const auto& entry, size_t i) -> std::string {
    const Row& want = t.sorted[descending ? hi - 1 - i : lo + i];
    if (same(entry.key, want.first) && same(entry.value, want.second)) return {};
    return show_key(t, to_view(entry.key)) +
           (same(entry.key, want.first) ? " with a wrong value" : "") + ", expected " +
           show_key(t, want.first);
  };
  check_rows(r, hi - lo, wrong, what, out, lim);
}

inline void check_range(const drydb::ReadOnlyTable& table, const TableModel& t, const Bound& s,
                        const Bound& e, drydb::RangeOptions o, Outcome& out,
                        const Limits& lim = {}) {
  check_range_of(table, t, t.name, s, e, o, out,
                 [&](auto& r, size_t lo, size_t hi, bool desc, const auto& what) {
                   check_range_rows(r, t, lo, hi, desc, what, out, lim);
                 });
}

// count_range.
inline void check_count(const drydb::ReadOnlyTable& table, const TableModel& t, const Bound& s,
                        const Bound& e, drydb::RangeOptions o, Outcome& out) {
  check_count_of(table, t, t.name, s, e, o, out);
}

// prefix: the rows whose key starts with p; refused (errc::wrong_key_type) by a table of typed
// keys.
inline void check_prefix(const drydb::ReadOnlyTable& table, const TableModel& t,
                         const std::string& p, drydb::SortOrder order, Outcome& out,
                         const Limits& lim = {}) {
  check_prefix_of(table, t, t.name, p, order, out,
                  [&](auto& r, size_t lo, size_t hi, bool desc, const auto& what) {
                    check_range_rows(r, t, lo, hi, desc, what, out, lim);
                  });
}

// A cursor walk over every row (the first lim.walk_rows), forward (first/next) or backward
// (last/prev), checking each row's key, value and rank; the cursor must not be valid after it.
// A walk longer than the table is reported as wrong (it would be a loop).
inline void check_walk(const drydb::ReadOnlyTable& table, const TableModel& t, bool forward,
                       Outcome& out, const Limits& lim = {}) {
  auto c = table.cursor();
  bool ok = forward ? c.first() : c.last();
  const size_t n = t.size();
  size_t i = 0;
  auto what = [&] { return t.name + (forward ? ": forward walk" : ": backward walk"); };
  for (; ok; ok = forward ? c.next() : c.prev()) {
    if (i >= n) return out.mismatch(what() + ": more rows than the table has");
    if (i >= lim.walk_rows) {
      ++out.correct;
      return;
    }
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
    ++out.rows;
  }
  if (!c.status()) return out.error(what(), c.status().error());
  if (i != n)
    return out.mismatch(what() + ": ended after " + std::to_string(i) + " of " + std::to_string(n) +
                        " rows with no error");
  if (c.valid()) return out.mismatch(what() + ": the cursor is valid after the walk");
  ++out.correct;
}

// Whether the cursor is on row `at` of the model (key, value and rank); an error is recorded
// and false returned when reading the row failed.
inline bool on_row(drydb::Cursor& c, const TableModel& t, size_t at) {
  auto key = c.key();
  auto value = c.value();
  return c.status() && c.rank() == at && same(key, t.sorted[at].first) &&
         same(value, t.sorted[at].second);
}

// seek (the lower bound of k) and `steps` moves each way from there (next on the cursor, prev on
// a copy of it), checking each row; then seek_exact at k on the moved cursor, its answer,
// validity and value.
inline void check_seek(const drydb::ReadOnlyTable& table, const TableModel& t, std::string_view k,
                       Outcome& out, int steps = 3) {
  auto what = [&] { return t.name + ": seek " + show_key(t, k); };
  auto c = table.cursor();
  const bool ok = c.seek(key_of(t, k));
  if (!c.status()) return out.error(what(), c.status().error());
  const size_t at = t.lower(k);
  if (ok != (at < t.size())) return out.mismatch(what() + ": wrong validity");
  if (ok) {
    if (!on_row(c, t, at)) {
      if (!c.status()) return out.error(what(), c.status().error());
      return out.mismatch(what() + ": wrong row");
    }
    drydb::Cursor back = c;
    for (int s = 1; s <= steps; ++s) {
      const bool moved = c.next();
      if (!c.status()) return out.error(what() + ": next", c.status().error());
      if (moved != (at + s < t.size())) return out.mismatch(what() + ": next has wrong validity");
      if (!moved) break;
      if (!on_row(c, t, at + s)) {
        if (!c.status()) return out.error(what() + ": next", c.status().error());
        return out.mismatch(what() + ": next gave a wrong row");
      }
    }
    for (int s = 1; s <= steps; ++s) {
      const bool moved = back.prev();
      if (!back.status()) return out.error(what() + ": prev", back.status().error());
      if (moved != (at >= static_cast<size_t>(s)))
        return out.mismatch(what() + (moved ? ": prev moved past the first row"
                                            : ": prev stopped early with no error"));
      if (!moved) break;
      if (!on_row(back, t, at - s)) {
        if (!back.status()) return out.error(what() + ": prev", back.status().error());
        return out.mismatch(what() + ": prev gave a wrong row");
      }
    }
  }
  // seek_exact on the cursor that has moved: positioning is independent of where it was.
  drydb::Cursor& exact = c;
  const bool found = exact.seek_exact(key_of(t, k));
  if (!exact.status()) return out.error(what(), exact.status().error());
  const std::string* want = t.find(k);
  if (found != (want != nullptr)) return out.mismatch(what() + ": seek_exact disagrees");
  if (exact.valid() != (at < t.size())) return out.mismatch(what() + ": seek_exact validity");
  if (found) {
    auto value = exact.value();
    if (!exact.status()) return out.error(what(), exact.status().error());
    if (!same(value, *want)) return out.mismatch(what() + ": seek_exact gave a wrong value");
  }
  ++out.correct;
}

inline void check_seek_rank(const drydb::ReadOnlyTable& table, const TableModel& t, uint64_t r,
                            Outcome& out) {
  auto what = [&] { return t.name + ": seek_rank " + std::to_string(r); };
  auto c = table.cursor();
  const bool ok = c.seek_rank(r);
  if (!c.status()) return out.error(what(), c.status().error());
  if (ok != (r < t.size())) return out.mismatch(what() + ": wrong validity");
  if (ok && !on_row(c, t, static_cast<size_t>(r))) {
    if (!c.status()) return out.error(what(), c.status().error());
    return out.mismatch(what() + ": wrong row");
  }
  ++out.correct;
}

// Up to `steps` moves one way of cursor `c` from position `at` of `size` (a table's rows or an
// index's entries), checking after each its validity and, through on_at(position), what it is on.
// False at the first wrong answer or error, which is recorded in `out` (the `thing` it was on,
// "row" or "entry", named in the message).
template <class Cursor, class OnAt, class What>
bool check_steps(Cursor& c, size_t at, size_t size, int steps, bool forward, OnAt on_at,
                 const char* thing, const What& what, Outcome& out) {
  for (int s = 0; s < steps; ++s) {
    const bool moved = forward ? c.next() : c.prev();
    if (!c.status()) {
      out.error(what(), c.status().error());
      return false;
    }
    const bool expect = forward ? at + 1 < size : at > 0;
    if (moved != expect) {
      out.mismatch(what() + ": walk validity");
      return false;
    }
    if (!moved) break;
    at = forward ? at + 1 : at - 1;
    if (!on_at(at)) {
      if (!c.status())
        out.error(what(), c.status().error());
      else
        out.mismatch(what() + ": walk reached a wrong " + thing + " at " + std::to_string(at));
      return false;
    }
  }
  return true;
}

// A cursor positioned by seek(k) when there is a k, else by seek_rank(rank); then `steps` moves
// one way, checking each row's key, value and rank and the cursor's validity.
inline void check_cursor(const drydb::ReadOnlyTable& table, const TableModel& t,
                         const std::optional<std::string>& k, uint64_t rank, int steps,
                         bool forward, Outcome& out) {
  auto what = [&] {
    return t.name + ": cursor from " +
           (k ? "seek " + show_key(t, *k) : "rank " + std::to_string(rank));
  };
  auto c = table.cursor();
  const size_t start = k ? t.lower(*k) : static_cast<size_t>(std::min<uint64_t>(rank, t.size()));
  const bool ok = k ? c.seek(key_of(t, *k)) : c.seek_rank(rank);
  if (!c.status()) return out.error(what(), c.status().error());
  if (ok != (start < t.size())) return out.mismatch(what() + ": wrong validity");
  if (!ok) {
    ++out.correct;
    return;
  }
  size_t at = start;
  if (!on_row(c, t, at)) {
    if (!c.status()) return out.error(what(), c.status().error());
    return out.mismatch(what() + ": wrong first row");
  }
  if (!check_steps(
          c, at, t.size(), steps, forward, [&](size_t i) { return on_row(c, t, i); }, "row", what,
          out))
    return;
  ++out.correct;
}

// Range-for over a cursor positioned at the middle row (the first lim.range_rows rows).
inline void check_cursor_range_for(const drydb::ReadOnlyTable& table, const TableModel& t,
                                   Outcome& out, const Limits& lim = {}) {
  auto what = [&] { return t.name + ": range-for over a cursor"; };
  auto c = table.cursor();
  const size_t from = t.size() / 2;
  if (!c.seek_rank(from)) {
    if (!c.status()) return out.error(what(), c.status().error());
    if (from < t.size()) return out.mismatch(what() + ": seek_rank to the middle failed");
    ++out.correct;
    return;
  }
  size_t i = from;
  for (auto entry : c) {
    if (i >= t.size() || i - from >= lim.range_rows) break;
    if (!same(entry.key, t.sorted[i].first) || !same(entry.value, t.sorted[i].second))
      return out.mismatch(what() + ": row " + std::to_string(i) + " is wrong");
    ++i;
  }
  if (!c.status()) return out.error(what(), c.status().error());
  if (i - from < std::min(t.size() - from, lim.range_rows))
    return out.mismatch(what() + ": ended at row " + std::to_string(i) + " with no error");
  ++out.correct;
}

// ---- secondary indexes -------------------------------------------------------------------------
// Each check compares one answer of a secondary index with `ix`, the index's model, and the rows
// it names with `t`, its table's model.

inline std::string show_index_key(const IndexModel& ix, std::string_view k) {
  return show_key(ix.kind(), k);
}

// Whether (key, value) is the row of entry i.
inline bool is_entry_row(const TableModel& t, const IndexModel& ix, size_t i, Bytes key,
                         Bytes value) {
  const Row& row = t.sorted[ix.entries[i].second];
  return same(key, row.first) && same(value, row.second);
}

inline std::string entry_name(const TableModel& t, const IndexModel& ix, size_t i) {
  return std::to_string(i) + " (" + show_index_key(ix, ix.entries[i].first) + " -> " +
         show_key(t, t.sorted[ix.entries[i].second].first) + ")";
}

// check_rows of an IndexRange against the rows of ix.entries[lo, hi), in the range's order.
template <class What>
void check_index_rows(drydb::IndexRange& r, const TableModel& t, const IndexModel& ix, size_t lo,
                      size_t hi, bool descending, const What& what, Outcome& out,
                      const Limits& lim = {}) {
  const auto wrong = [&](const auto& entry, size_t i) -> std::string {
    const size_t at = descending ? hi - 1 - i : lo + i;
    if (is_entry_row(t, ix, at, entry.key, entry.value)) return {};
    return show_key(t, to_view(entry.key)) + ", expected entry " + entry_name(t, ix, at);
  };
  check_rows(r, hi - lo, wrong, what, out, lim);
}

inline void check_index_count_all(const drydb::SecondaryIndex& index, const TableModel& t,
                                  const IndexModel& ix, Outcome& out) {
  if (index.count() != ix.size())
    return out.mismatch(t.name + "." + ix.name + ": count() " + std::to_string(index.count()) +
                        ", expected " + std::to_string(ix.size()));
  ++out.correct;
}

// get: the first row (in primary-key order) of index key k, or none.
inline void check_index_get(const drydb::SecondaryIndex& index, const TableModel& t,
                            const IndexModel& ix, std::string_view k, Outcome& out) {
  auto what = [&] { return t.name + "." + ix.name + ": get " + show_index_key(ix, k); };
  auto row = index.get(key_of(ix, k));
  if (!row) return out.error(what(), row.error());
  const size_t at = ix.lower(k);
  const bool want = at < ix.size() && ix.entries[at].first == k;
  if (row->has_value() != want)
    return out.mismatch(what() + (want ? " missed a present key" : " found an absent key"));
  if (want && !is_entry_row(t, ix, at, row->key(), row->value()))
    return out.mismatch(what() + " returned row " + show_key(t, to_view(row->key())) +
                        ", expected entry " + entry_name(t, ix, at));
  if (!want && (!row->key().empty() || !row->value().empty()))
    return out.mismatch(what() + ": absent but has bytes");
  ++out.correct;
}

// get_all: every row of index key k, in primary-key order.
inline void check_index_get_all(const drydb::SecondaryIndex& index, const TableModel& t,
                                const IndexModel& ix, std::string_view k, Outcome& out,
                                const Limits& lim = {}) {
  auto what = [&] { return t.name + "." + ix.name + ": get_all " + show_index_key(ix, k); };
  auto r = index.get_all(key_of(ix, k));
  if (!r) return out.error(what(), r.error());
  check_index_rows(*r, t, ix, ix.lower(k), ix.upper(k), false, what, out, lim);
}

inline void check_index_range(const drydb::SecondaryIndex& index, const TableModel& t,
                              const IndexModel& ix, const Bound& s, const Bound& e,
                              drydb::RangeOptions o, Outcome& out, const Limits& lim = {}) {
  check_range_of(index, ix, t.name + "." + ix.name, s, e, o, out,
                 [&](auto& r, size_t lo, size_t hi, bool desc, const auto& what) {
                   check_index_rows(r, t, ix, lo, hi, desc, what, out, lim);
                 });
}

inline void check_index_count(const drydb::SecondaryIndex& index, const TableModel& t,
                              const IndexModel& ix, const Bound& s, const Bound& e,
                              drydb::RangeOptions o, Outcome& out) {
  check_count_of(index, ix, t.name + "." + ix.name, s, e, o, out);
}

// prefix: the rows whose index key starts with p; refused (errc::wrong_key_type) by an index of
// typed keys.
inline void check_index_prefix(const drydb::SecondaryIndex& index, const TableModel& t,
                               const IndexModel& ix, const std::string& p, drydb::SortOrder order,
                               Outcome& out, const Limits& lim = {}) {
  check_prefix_of(index, ix, t.name + "." + ix.name, p, order, out,
                  [&](auto& r, size_t lo, size_t hi, bool desc, const auto& what) {
                    check_index_rows(r, t, ix, lo, hi, desc, what, out, lim);
                  });
}

// Whether the index cursor is on entry i (rank, index key and row); false also when reading it
// failed (the caller tells the two apart by the cursor's status).
inline bool on_entry(drydb::IndexCursor& c, const TableModel& t, const IndexModel& ix, size_t i) {
  auto index_key = c.index_key();
  auto key = c.key();
  auto value = c.value();
  return c.status() && c.rank() == i && same(index_key, ix.entries[i].first) &&
         is_entry_row(t, ix, i, key, value);
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
    ok = c.seek_exact(key_of(ix, *k));
    if (!c.status()) return out.error(what(), c.status().error());
    if (ok != (at < ix.size() && ix.entries[at].first == *k))
      return out.mismatch(what() + ": seek_exact disagrees");
    ok = c.valid();
  } else {
    at = rank;
    ok = c.seek_rank(rank);
    if (!c.status()) return out.error(what(), c.status().error());
  }
  if (ok != (at < ix.size())) return out.mismatch(what() + ": wrong validity");
  if (!ok) {
    ++out.correct;
    return;
  }
  if (!on_entry(c, t, ix, at)) {
    if (!c.status()) return out.error(what(), c.status().error());
    return out.mismatch(what() + ": wrong first entry");
  }
  drydb::Row held = c.row();
  const size_t held_at = at;
  if (!c.status()) return out.error(what(), c.status().error());
  if (!check_steps(
          c, at, ix.size(), steps, forward, [&](size_t i) { return on_entry(c, t, ix, i); },
          "entry", what, out))
    return;
  if (!held.has_value() || !is_entry_row(t, ix, held_at, held.key(), held.value()))
    return out.mismatch(what() + ": a Row taken from the cursor changed as it moved");
  ++out.correct;
}

// The whole index through a cursor (the first lim.walk_rows entries), checking rank, index key
// and row of each entry, and row() of some; a Row taken from an early entry must keep its bytes
// while the walk moves on (and pages evict).
inline void check_index_walk(const drydb::SecondaryIndex& index, const TableModel& t,
                             const IndexModel& ix, bool forward, Outcome& out,
                             const Limits& lim = {}) {
  auto what = [&] {
    return t.name + "." + ix.name + (forward ? ": forward walk" : ": backward walk");
  };
  auto c = index.cursor();
  const size_t n = ix.size();
  drydb::Row kept;
  size_t kept_at = 0;
  size_t i = 0;
  for (bool ok = forward ? c.first() : c.last(); ok; ok = forward ? c.next() : c.prev()) {
    if (i >= n) return out.mismatch(what() + " runs long");
    if (i >= lim.walk_rows) break;
    const size_t at = forward ? i : n - 1 - i;
    if (!on_entry(c, t, ix, at)) {
      if (!c.status()) return out.error(what(), c.status().error());
      return out.mismatch(what() + ": entry " + std::to_string(i) + " is not " +
                          entry_name(t, ix, at));
    }
    if (i == 1 || i % 64 == 0) {
      drydb::Row row = c.row();
      if (!c.status()) return out.error(what() + ": row()", c.status().error());
      if (!row.has_value() || !is_entry_row(t, ix, at, row.key(), row.value()))
        return out.mismatch(what() + ": row() of entry " + entry_name(t, ix, at) + " is wrong");
      if (i == 1) {
        kept = std::move(row);
        kept_at = at;
      }
    }
    ++i;
    ++out.rows;
  }
  if (!c.status()) return out.error(what(), c.status().error());
  if (i != n && i < lim.walk_rows)
    return out.mismatch(what() + " ended after " + std::to_string(i) + " of " + std::to_string(n) +
                        " entries");
  if (kept.has_value() && !is_entry_row(t, ix, kept_at, kept.key(), kept.value()))
    return out.mismatch(what() + ": a Row kept from entry " + entry_name(t, ix, kept_at) +
                        " changed");
  ++out.correct;
}

// seek (the lower bound of k) with 3 steps each way (next on it, prev on a cursor positioned by
// seek_rank there), then seek_exact on the moved cursor: its answer and validity, and its row()
// outliving a move.
inline void check_index_seek(const drydb::SecondaryIndex& index, const TableModel& t,
                             const IndexModel& ix, const std::string& k, Outcome& out) {
  auto what = [&] { return t.name + "." + ix.name + ": seek " + show_index_key(ix, k); };
  const size_t n = ix.size();
  const size_t at = ix.lower(k);
  auto c = index.cursor();
  const bool ok = c.seek(key_of(ix, k));
  if (!c.status()) return out.error(what(), c.status().error());
  if (ok != (at < n)) return out.mismatch(what() + ": wrong validity");
  if (ok) {
    if (!on_entry(c, t, ix, at)) {
      if (!c.status()) return out.error(what(), c.status().error());
      return out.mismatch(what() + ": not at entry " + entry_name(t, ix, at));
    }
    auto back = index.cursor();
    if (!back.seek_rank(at)) {
      if (!back.status()) return out.error(what() + ": seek_rank", back.status().error());
      return out.mismatch(what() + ": seek_rank " + std::to_string(at) + " failed");
    }
    for (size_t s = 0; s < 3; ++s) {
      const bool fwd = c.next(), bwd = back.prev();
      if (!c.status()) return out.error(what() + ": next", c.status().error());
      if (!back.status()) return out.error(what() + ": prev", back.status().error());
      const size_t up = at + 1 + s;
      if (fwd != (up < n)) return out.mismatch(what() + ": next has wrong validity");
      if (fwd && !on_entry(c, t, ix, up)) {
        if (!c.status()) return out.error(what() + ": next", c.status().error());
        return out.mismatch(what() + ": next is not at entry " + entry_name(t, ix, up));
      }
      if (bwd != (at >= s + 1)) return out.mismatch(what() + ": prev has wrong validity");
      if (bwd && !on_entry(back, t, ix, at - 1 - s)) {
        if (!back.status()) return out.error(what() + ": prev", back.status().error());
        return out.mismatch(what() + ": prev is not at entry " + entry_name(t, ix, at - 1 - s));
      }
    }
  }
  // seek_exact on the cursor that has moved: positioning is independent of where it was.
  drydb::IndexCursor& e = c;
  const bool exact = e.seek_exact(key_of(ix, k));
  if (!e.status()) return out.error(what() + ": seek_exact", e.status().error());
  const bool want = at < n && ix.entries[at].first == k;
  if (exact != want) return out.mismatch(what() + ": seek_exact = " + std::to_string(exact));
  if (e.valid() != (at < n)) return out.mismatch(what() + ": seek_exact has wrong validity");
  if (exact) {
    drydb::Row row = e.row();
    e.next();  // the Row outlives the cursor's moves
    if (!row.has_value() || !is_entry_row(t, ix, at, row.key(), row.value()))
      return out.mismatch(what() + ": seek_exact's row() is not entry " + entry_name(t, ix, at));
  }
  ++out.correct;
}

inline void check_index_seek_rank(const drydb::SecondaryIndex& index, const TableModel& t,
                                  const IndexModel& ix, uint64_t r, Outcome& out) {
  auto what = [&] { return t.name + "." + ix.name + ": seek_rank " + std::to_string(r); };
  auto c = index.cursor();
  const bool ok = c.seek_rank(r);
  if (!c.status()) return out.error(what(), c.status().error());
  if (ok != (r < ix.size())) return out.mismatch(what() + ": wrong validity");
  if (ok && !on_entry(c, t, ix, static_cast<size_t>(r))) {
    if (!c.status()) return out.error(what(), c.status().error());
    return out.mismatch(what() + ": not at entry " + entry_name(t, ix, static_cast<size_t>(r)));
  }
  ++out.correct;
}

// ---- batteries ---------------------------------------------------------------------------------

// count_range and get_range of one combination of ends and order.
inline void check_range_and_count(const drydb::ReadOnlyTable& table, const TableModel& t,
                                  const Bound& s, const Bound& e, drydb::RangeOptions o,
                                  Outcome& out) {
  check_count(table, t, s, e, o, out);
  check_range(table, t, s, e, o, out);
}

inline constexpr drydb::SortOrder kBothOrders[] = {drydb::SortOrder::ascending,
                                                   drydb::SortOrder::descending};

// Both ends bounded by (s, e): the four inclusive/exclusive combinations, both orders.
inline void check_pair(const drydb::ReadOnlyTable& table, const TableModel& t, const std::string& s,
                       const std::string& e, Outcome& out) {
  for (bool se : {false, true})
    for (bool ee : {false, true})
      for (auto order : kBothOrders)
        check_range_and_count(table, t, Bound::at(s), Bound::at(e),
                              {.start_exclusive = se, .end_exclusive = ee, .order = order}, out);
}

// One end bounded by b and the other unbounded, every combination.
inline void check_single(const drydb::ReadOnlyTable& table, const TableModel& t,
                         const std::string& b, Outcome& out) {
  for (bool x : {false, true})
    for (auto order : kBothOrders) {
      check_range_and_count(table, t, Bound::at(b), Bound::none(),
                            {.start_exclusive = x, .order = order}, out);
      check_range_and_count(table, t, Bound::none(), Bound::at(b),
                            {.end_exclusive = x, .order = order}, out);
    }
}

inline void check_unbounded(const drydb::ReadOnlyTable& table, const TableModel& t, Outcome& out) {
  for (auto order : kBothOrders)
    check_range_and_count(table, t, Bound::none(), Bound::none(), {.order = order}, out);
}

// At every bound a get, the one-ended ranges and a seek; ranges between every two bounds (both
// ways round); and the unbounded ranges.
inline void check_bounds(const drydb::ReadOnlyTable& table, const TableModel& t,
                         const std::vector<std::string>& bounds, Outcome& out) {
  for (const auto& a : bounds) {
    check_get(table, t, a, out);
    check_single(table, t, a, out);
    check_seek(table, t, a, out);
    for (const auto& b : bounds)
      check_pair(table, t, a, b, out);
  }
  check_unbounded(table, t, out);
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
    if (next_key(width, k, &next)) out.push_back(Bound::at(std::move(next)));
  };
  add_near(0);
  add_near(t.size() / 3);
  add_near(t.size() - 1);
  out.push_back(Bound::at(std::string(width, '\0')));
  return out;
}

inline constexpr uint64_t kEveryQuery = ~uint64_t{0};

// count_range and get_range over every ordered pair of `bounds` with every exclusivity. With
// subset == kEveryQuery all of them run (each range in both orders); otherwise only the slice
// `subset` picks: one count in 32 and one range in 64, its order alternating with subset / 64.
inline void check_bound_pairs(const drydb::ReadOnlyTable& table, const TableModel& t,
                              const std::vector<Bound>& bounds, Outcome& out,
                              uint64_t subset = kEveryQuery) {
  const bool all = subset == kEveryQuery;
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
}

// Every query kind over one table: count(), full walks both ways (reading every key and value),
// a get of every key and of absent keys, seeks with steps both ways, count_range and get_range
// in both orders over pairs of probe bounds with every exclusivity, and prefixes in both orders.
//
// With subset == kEveryQuery every bound combination is run (counts, and ranges in both
// orders). Otherwise the walks and gets are still complete but only a slice of the bound
// combinations, chosen by `subset`, is run (8 counts, 4 ranges, 2 seeks, 1 prefix), so a sweep
// over many corrupted files covers all combinations across its files at a fraction of the cost.
inline void check_table(const drydb::ReadOnlyTable& table, const TableModel& t, Outcome& out,
                        uint64_t subset = kEveryQuery) {
  const bool all = subset == kEveryQuery;
  check_table_count(table, t, out);
  check_walk(table, t, true, out);
  check_walk(table, t, false, out);
  check_every_get(table, t, out);
  auto bounds = probe_bounds(t);
  for (size_t i = 0; i < bounds.size(); ++i)
    if (bounds[i].bounded) {
      check_get(table, t, bounds[i].key, out);
      if (all || i % bounds.size() == subset % bounds.size() ||
          i % bounds.size() == (subset + 3) % bounds.size())
        check_seek(table, t, bounds[i].key, out);
    }
  check_bound_pairs(table, t, bounds, out, subset);
  if (t.kind() == drydb::KeyKind::bytes && !t.sorted.empty()) {
    const std::string& mid = t.sorted[t.size() / 2].first;
    const size_t lens[] = {0, 1, mid.size() / 2, mid.size()};
    for (size_t l = 0; l < 4; ++l)
      for (auto order : kBothOrders)
        if (all || (l * 2 + (order == drydb::SortOrder::descending)) == subset % 8)
          check_prefix(table, t, mid.substr(0, lens[l]), order, out);
  } else if (t.kind() != drydb::KeyKind::bytes) {
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
      out.mismatch("table " + t.name + " is missing: " + describe(table.error()));
      continue;
    }
    check_table(*table, t, out, subset);
  }
}

// Calls fn(start, end, options) for every pair of `bounds` (both ways round) with one
// combination of exclusive ends and order each, chosen at random; the pairs of equal bounds and
// those involving bounds[0] (the open end) get all eight: the edge cases (empty ranges, single
// rows, whole walks). With more of those calls than `limit`, `limit` of them chosen at random
// (each a count and a range in the batteries, so every query kind still runs).
template <class Fn>
void for_each_bound_pair(const std::vector<Bound>& bounds, Rng& rng, Fn&& fn,
                         size_t limit = Limits::kAll) {
  struct Call {
    size_t start, end;
    int flags;
  };
  std::vector<Call> calls;
  for (size_t i = 0; i < bounds.size(); ++i)
    for (size_t j = 0; j < bounds.size(); ++j) {
      const bool all = i == j || i == 0 || j == 0;
      const int pick = static_cast<int>(rng.below(8));
      for (int flags = 0; flags < 8; ++flags)
        if (all || flags == pick) calls.push_back({i, j, flags});
    }
  if (calls.size() > limit) {
    for (size_t k = 0; k < limit; ++k)
      std::swap(calls[k], calls[k + rng.below(calls.size() - k)]);
    calls.resize(limit);
  }
  for (const Call& c : calls) {
    const drydb::RangeOptions o{
        .start_exclusive = (c.flags & 1) != 0,
        .end_exclusive = (c.flags & 2) != 0,
        .order = (c.flags & 4) ? drydb::SortOrder::descending : drydb::SortOrder::ascending};
    fn(bounds[c.start], bounds[c.end], o);
  }
}

// Whether k may be asked of a tree of keys of `kind`: typed kinds take keys of their width only.
inline bool usable_key(drydb::KeyKind kind, const std::string& k) {
  const size_t w = typed_width(kind);
  return w == 0 || k.size() == w;
}

// Every query kind over one table, with bounded work (lim) and random picks (seed): count(),
// walks both ways, gets of model keys (lim.gets at most), then at probe keys (the first, middle,
// last and a random row and their neighbours, the smallest and a large key, and `extra`, those
// of the table's typed width) a get and a seek; seek_rank at the ends, the middle and past them;
// count_range and get_range over pairs of probes (for_each_bound_pair); prefixes of the probes;
// range-for over a cursor. The count is checked first: when it is wrong, nothing else is.
inline void check_sampled(const drydb::ReadOnlyTable& table, const TableModel& t,
                          const std::vector<std::string>& extra, uint64_t seed, Outcome& out,
                          const Limits& lim = {}) {
  Rng rng{seed};
  const uint64_t wrong_before = out.wrong.size();
  check_table_count(table, t, out);
  if (out.wrong.size() != wrong_before) return;
  check_walk(table, t, true, out, lim);
  check_walk(table, t, false, out, lim);
  const size_t n = t.size();
  const size_t gets = std::min(n, lim.gets);
  for (size_t j = 0; j < gets; ++j)
    check_get(table, t, t.sorted[gets == n ? j : rng.below(n)].first, out);
  std::vector<std::string> probes;
  auto add = [&](const std::string& k) {
    if (usable_key(t.kind(), k) && probes.size() < lim.probes + extra.size()) probes.push_back(k);
  };
  const size_t width = t.width();
  std::string tmp;
  if (n > 0) {
    const size_t picks[] = {0, n / 2, n - 1, static_cast<size_t>(rng.below(n))};
    for (size_t i : picks) {
      add(t.sorted[i].first);
      if (next_key(width, t.sorted[i].first, &tmp)) add(tmp);
      if (i == 0 && previous_key(width, t.sorted[i].first, &tmp)) add(tmp);
    }
  }
  add(std::string(width, '\0'));
  add(std::string(width ? width : 20, '\xff'));
  for (const auto& k : extra)
    if (usable_key(t.kind(), k)) probes.push_back(k);
  std::sort(probes.begin(), probes.end());
  probes.erase(std::unique(probes.begin(), probes.end()), probes.end());
  for (const auto& k : probes) {
    check_get(table, t, k, out);
    check_seek(table, t, k, out);
  }
  for (uint64_t r : {uint64_t{0}, uint64_t{n / 2}, uint64_t{n ? n - 1 : 0}, uint64_t{n},
                     uint64_t{n + 1}, rng.below(n + 1), ~uint64_t{0}})
    check_seek_rank(table, t, r, out);
  std::vector<Bound> bounds{Bound::none()};
  for (const auto& k : probes)
    bounds.push_back(Bound::at(k));
  for_each_bound_pair(
      bounds, rng,
      [&](const Bound& b, const Bound& e, drydb::RangeOptions o) {
        check_count(table, t, b, e, o, out);
        check_range(table, t, b, e, o, out, lim);
      },
      lim.pairs);
  for (const auto& k : probes) {
    const size_t len = rng.below(k.size() + 1);
    check_prefix(table, t, k.substr(0, len),
                 rng.below(2) ? drydb::SortOrder::descending : drydb::SortOrder::ascending, out,
                 lim);
  }
  check_prefix(table, t, std::string(), drydb::SortOrder::descending, out, lim);
  if (n > 0) check_cursor_range_for(table, t, out, lim);
}

// Every query kind over one secondary index, as check_sampled: count(), walks both ways (with
// row()), get and get_all of the index keys of some entries (lim.gets at most), then at probe
// index keys (of the first, middle, last and a random entry and their neighbours, the smallest
// and a large key, and up to lim.probes of `extra`) get, get_all and seek; seek_rank; count_range
// and get_range over pairs of probes; prefixes. The count is checked first: when it is wrong,
// nothing else is.
inline void check_index_sampled(const drydb::SecondaryIndex& index, const TableModel& t,
                                const IndexModel& ix, const std::vector<std::string>& extra,
                                uint64_t seed, Outcome& out, const Limits& lim = {}) {
  Rng rng{seed};
  const size_t n = ix.size();
  const uint64_t wrong_before = out.wrong.size();
  check_index_count_all(index, t, ix, out);
  if (out.wrong.size() != wrong_before) return;
  check_index_walk(index, t, ix, true, out, lim);
  check_index_walk(index, t, ix, false, out, lim);
  const size_t gets = std::min(n, lim.gets);
  for (size_t j = 0; j < gets; ++j) {
    const std::string& k = ix.entries[gets == n ? j : rng.below(n)].first;
    check_index_get(index, t, ix, k, out);
    if (j % 4 == 0) check_index_get_all(index, t, ix, k, out, lim);
  }
  std::vector<std::string> probes;
  auto add = [&](const std::string& k) {
    if (usable_key(ix.kind(), k)) probes.push_back(k);
  };
  const size_t width = ix.width();
  std::string tmp;
  if (n > 0) {
    for (size_t i : {size_t{0}, n / 2, n - 1, static_cast<size_t>(rng.below(n))}) {
      add(ix.entries[i].first);
      if (next_key(width, ix.entries[i].first, &tmp)) add(tmp);
      if (previous_key(width, ix.entries[i].first, &tmp)) add(tmp);
    }
  }
  add(std::string(width, '\0'));
  add(std::string(width ? width : 20, '\xff'));
  size_t taken = 0;
  for (const auto& k : extra)
    if (usable_key(ix.kind(), k) && taken < lim.probes) {
      probes.push_back(k);
      ++taken;
    }
  std::sort(probes.begin(), probes.end());
  probes.erase(std::unique(probes.begin(), probes.end()), probes.end());
  for (const auto& k : probes) {
    check_index_get(index, t, ix, k, out);
    check_index_get_all(index, t, ix, k, out, lim);
    check_index_seek(index, t, ix, k, out);
  }
  for (uint64_t r : {uint64_t{0}, uint64_t{n / 2}, uint64_t{n ? n - 1 : 0}, uint64_t{n},
                     rng.below(n + 1), ~uint64_t{0}})
    check_index_seek_rank(index, t, ix, r, out);
  std::vector<Bound> bounds{Bound::none()};
  for (const auto& k : probes)
    bounds.push_back(Bound::at(k));
  for_each_bound_pair(
      bounds, rng,
      [&](const Bound& b, const Bound& e, drydb::RangeOptions o) {
        check_index_count(index, t, ix, b, e, o, out);
        check_index_range(index, t, ix, b, e, o, out, lim);
      },
      lim.pairs);
  for (const auto& k : probes)
    check_index_prefix(index, t, ix, k.substr(0, rng.below(k.size() + 1)),
                       rng.below(2) ? drydb::SortOrder::descending : drydb::SortOrder::ascending,
                       out, lim);
  check_index_prefix(index, t, ix, std::string(), drydb::SortOrder::ascending, out, lim);
}

}  // namespace drydb_test
