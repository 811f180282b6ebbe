// What the fuzz targets share (tests/fuzz/*_target.h): how a finding is reported, a byte reader
// for fuzz input, the custom key encodings a fuzzed file may name, checksum fix-ups so mutated
// bytes get past the checksums to the structure checks behind them, and the query battery.
//
// The query battery (check_table) runs every query kind of a table — get, get_range with every
// bound kind in both orders, count_range, count, prefix, cursor walks both ways, seek,
// seek_exact, seek_rank — and compares each answer with a model: a sorted list of rows. Where
// the rows come from is the caller's business: the rows appended to a builder (build target), or
// the rows a verified file's forward walk yields (open and page targets; a file that passes
// verify() must answer every other query consistently with its own walk, and without errors).
//
// Secondary indexes: the index battery (IndexChecker) runs every index query kind — count, get,
// get_all, get_range with every bound kind in both orders, count_range, prefix, cursor walks
// both ways with each entry's row(), seek, seek_exact, seek_rank — against a model: the sorted
// (index key, primary key) entries, with the table's rows. The build target models each index
// from its index key function; the open and page targets take a verified file's own index walk
// (and poke_index runs every index query kind, unchecked, on every opened file). The build
// target also builds with page filters (lz4, zstd, zstd with a dictionary, lz4 then zstd); the
// open corpus holds files with indexes and with zstd and lz4 pages. Still to come: filtered
// pages and indexes in the page target's base file (page_target.h).
//
// Everything here is header-only and free of GoogleTest, so the same code runs under libFuzzer
// (tests/fuzz/*_fuzzer.cpp) and as a unit test that replays committed inputs
// (tests/fuzz_regression_test.cpp). A failed expectation calls drydb_fuzz::fail(), which
// aborts under libFuzzer (so it keeps the input) and which the unit test redirects to a test
// failure.
#pragma once

#include <xxhash.h>

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

#include "../key_space.h"
#include "drydb/detail/coding.h"
#include "drydb/detail/format.h"
#include "drydb/drydb.h"

namespace drydb_fuzz {

namespace fmt = drydb::detail;
using drydb::errc;
using Bytes = std::span<const std::byte>;
using Row = std::pair<std::string, std::string>;  // encoded key, value

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

inline std::string show(std::string_view s) {
  return drydb::escape_bytes(std::as_bytes(std::span(s.data(), s.size())));
}
inline std::string code_of(const drydb::Error& e) {
  // Not e.to_string(): a code outside drydb's category would call into another category.
  return e.message + " (code " + std::to_string(e.code.value()) + ")";
}
inline bool is(std::error_code c, errc e) {
  return &c.category() == &drydb::error_category() && c.value() == static_cast<int>(e);
}

// ---- input ------------------------------------------------------------------------------------

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

// splitmix64, for derived data (generated rows, sampling) that must not cost input bytes.
struct Rng {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  uint64_t below(uint64_t n) { return n ? next() % n : 0; }
};

// ---- key encodings ----------------------------------------------------------------------------

// The custom encodings fuzzed files may name (short ids, so mutations find them): "f3" (3-byte
// keys stored in the prefix), "f12" (12-byte keys stored whole), "v" (variable length). The
// built-ins are bytes, int64, uuid_v7 and ulid.
inline void register_encodings() {
  static const bool done = [] {
    for (auto [id, width] : {std::pair<const char*, uint32_t>{"f3", 3}, {"f12", 12}, {"v", 0}}) {
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

// The typed Key a caller passes for encoded key `k` in a table of keys of `kind`. Keys of typed
// kinds must have their width (the caller ensures it); bytes keys borrow `k`.
inline drydb::Key typed_key(drydb::KeyKind kind, const std::string& k) {
  switch (kind) {
    case drydb::KeyKind::int64:
      return drydb::Key(
          drydb::ordered_to_int64(fmt::load_be64(reinterpret_cast<const std::byte*>(k.data()))));
    case drydb::KeyKind::uuid: {
      drydb::Uuid u{};
      std::memcpy(u.bytes.data(), k.data(), 16);
      return drydb::Key(u);
    }
    case drydb::KeyKind::ulid: {
      drydb::Ulid u{};
      std::memcpy(u.bytes.data(), k.data(), 16);
      return drydb::Key(u);
    }
    default:
      return drydb::Key(std::as_bytes(std::span(k.data(), k.size())));
  }
}

// Keys of typed kinds have one width; a bytes key of any length may be asked of any table.
inline size_t typed_width(drydb::KeyKind kind) {
  switch (kind) {
    case drydb::KeyKind::int64:
      return 8;
    case drydb::KeyKind::uuid:
    case drydb::KeyKind::ulid:
      return 16;
    default:
      return 0;
  }
}

// ---- checksums --------------------------------------------------------------------------------

inline uint64_t xxh3(const std::byte* p, size_t n) {
  return XXH3_64bits(p, n);
}

inline void fix_header_checksum(std::span<std::byte> f) {
  if (f.size() < fmt::header::kSize) return;
  fmt::store_u64(f.data() + fmt::header::kHeaderChecksumOff,
                 xxh3(f.data(), fmt::header::kHeaderChecksumOff));
}

// Recomputes every checksum of a (possibly mutated) file as the builder would have: each page
// that starts with a leaf or internal type gets its page checksum, each overflow run its run
// checksum (over what of it the file holds), then the catalog's and the header's. Page sizes
// and lengths are taken from the header as they are, so a nonsense header fixes nothing.
inline void fix_all_checksums(std::span<std::byte> f) {
  if (f.size() < fmt::header::kSize) return;
  const uint64_t ps = fmt::load_u32(f.data() + fmt::header::kPageSizeOff);
  if (!fmt::valid_page_size(ps)) return fix_header_checksum(f);
  uint64_t pages = fmt::load_u64(f.data() + fmt::header::kPageCountOff);
  pages = std::min<uint64_t>(pages, f.size() / ps);
  for (uint64_t p = 1; p < pages;) {
    std::byte* page = f.data() + p * ps;
    const auto type = static_cast<fmt::PageType>(page[fmt::page::kTypeOff]);
    if (type == fmt::PageType::overflow) {
      const uint64_t len = fmt::load_u32(page + fmt::overflow::kLengthOff);
      const uint64_t avail = f.size() - p * ps - 8;
      fmt::store_u64(page, xxh3(page + 8, std::min<uint64_t>(8 + len, avail)));
      p += std::max<uint64_t>(1, fmt::overflow::pages_for(len, static_cast<uint32_t>(ps)));
    } else {
      fmt::store_u64(page, xxh3(page + 8, ps - 8));
      ++p;
    }
  }
  const uint64_t cat_off = fmt::load_u64(f.data() + fmt::header::kPageCountOff) * ps;
  const uint64_t cat_len = fmt::load_u64(f.data() + fmt::header::kCatalogLengthOff);
  if (cat_off / ps == fmt::load_u64(f.data() + fmt::header::kPageCountOff) && cat_off <= f.size() &&
      cat_len <= f.size() - cat_off)
    fmt::store_u64(f.data() + fmt::header::kCatalogChecksumOff, xxh3(f.data() + cat_off, cat_len));
  fix_header_checksum(f);
}

// ---- storage ----------------------------------------------------------------------------------

// Caller memory read through read_at only (mapped() is empty), so pages go through the page
// cache: the path pread files and custom loaders take.
class CachedMemory final : public drydb::Storage {
 public:
  explicit CachedMemory(Bytes b) : b_(b) {}
  uint64_t size() const override { return b_.size(); }
  drydb::status read_at(uint64_t off, std::span<std::byte> dst) const override {
    if (off > b_.size() || dst.size() > b_.size() - off)
      return drydb::Error(errc::truncated, "read past the end");
    if (!dst.empty()) std::memcpy(dst.data(), b_.data() + off, dst.size());
    return {};
  }

 private:
  Bytes b_;
};

// Opens `bytes` in place (open_memory) or through a page cache of `cache_bytes`.
inline drydb::result<drydb::ReadOnlyDatabase> open_bytes(Bytes bytes, bool cached,
                                                         size_t cache_bytes = 2048) {
  if (!cached) return drydb::ReadOnlyDatabase::open_memory(bytes);
  return drydb::ReadOnlyDatabase::open_storage(std::make_unique<CachedMemory>(bytes),
                                               {.page_cache_bytes = cache_bytes});
}

// ---- the query battery ------------------------------------------------------------------------

// Bounds on the work per table, so one input cannot take seconds.
struct Limits {
  size_t walk_rows = 20000;  // rows a walk reads before giving up (a DAG-shaped tree repeats)
  size_t gets = 64;          // model keys looked up one by one (besides the probes)
  size_t range_rows = 6;     // rows compared at the start of each range
  size_t probes = 6;         // bound keys besides the caller's; ranges use every pair
};

// One end of a range in the model.
struct Bound {
  bool bounded = false;
  std::string key;
};

// Calls fn(start, end, options) for every pair of `bounds` (both ways round) with one
// combination of exclusive ends and order each, chosen at random; the pairs of equal bounds and
// those involving bounds[0] (the open end) get all eight: the edge cases (empty ranges, single
// rows, whole walks).
template <class Fn>
void for_each_bound_pair(const std::vector<Bound>& bounds, Rng& rng, Fn&& fn) {
  for (size_t i = 0; i < bounds.size(); ++i)
    for (size_t j = 0; j < bounds.size(); ++j) {
      const bool all = i == j || i == 0 || j == 0;
      const int pick = static_cast<int>(rng.below(8));
      for (int flags = 0; flags < 8; ++flags) {
        if (!all && flags != pick) continue;
        const drydb::RangeOptions o{
            .start_exclusive = (flags & 1) != 0,
            .end_exclusive = (flags & 2) != 0,
            .order = (flags & 4) ? drydb::SortOrder::descending : drydb::SortOrder::ascending};
        fn(bounds[i], bounds[j], o);
      }
    }
}

// The neighbours of k in a key space of `width` (0 = variable); false past either end.
inline bool successor(size_t width, const std::string& k, std::string* out) {
  return drydb_support::next_key(width, k, out);
}
inline bool predecessor(size_t width, const std::string& k, std::string* out) {
  return drydb_support::previous_key(width, k, out);
}

inline std::string as_string(Bytes b) {
  return std::string(reinterpret_cast<const char*>(b.data()), b.size());
}
inline bool same(Bytes a, std::string_view b) {
  return a.size() == b.size() && (b.empty() || std::memcmp(a.data(), b.data(), b.size()) == 0);
}

// Compares one table's answers with `rows` (sorted by key, distinct). Every answer must be
// right and no query may fail, except the two refusals the API promises: errc::wrong_key_type
// for prefix() on a table of typed keys, errc::invalid_argument for a range whose start is
// after its end. `extra` are more keys to probe (present or not); they must have the typed
// width of the table's kind (the caller filters).
class TableChecker {
 public:
  TableChecker(const drydb::ReadOnlyTable& table, const std::vector<Row>& rows, std::string context,
               const Limits& limits = {})
      : t_(table),
        rows_(rows),
        kind_(table.encoding().kind()),
        width_(table.encoding().fixed_width()),
        ctx_(std::move(context)),
        lim_(limits) {}

  void run(const std::vector<std::string>& extra, uint64_t seed) {
    Rng rng{seed};
    if (t_.count() != rows_.size())
      return bad("count() " + std::to_string(t_.count()) + ", model " +
                 std::to_string(rows_.size()));
    walk(true);
    walk(false);
    const size_t n = rows_.size();
    const size_t gets = std::min(n, lim_.gets);
    for (size_t j = 0; j < gets; ++j)
      get(rows_[gets == n ? j : rng.below(n)].first);
    std::vector<std::string> probes = probe_keys(extra, rng);
    for (const auto& k : probes) {
      get(k);
      seek(k);
    }
    for (uint64_t r : {uint64_t{0}, uint64_t{n / 2}, uint64_t{n ? n - 1 : 0}, uint64_t{n},
                       uint64_t{n + 1}, rng.below(n + 1), ~uint64_t{0}})
      seek_rank(r);
    std::vector<Bound> bounds{Bound{}};
    for (const auto& k : probes)
      bounds.push_back(Bound{true, k});
    for_each_bound_pair(bounds, rng,
                        [&](const Bound& b, const Bound& e, const drydb::RangeOptions& o) {
                          count_range(b, e, o);
                          range(b, e, o);
                        });
    for (const auto& k : probes) {
      const size_t len = rng.below(k.size() + 1);
      prefix(k.substr(0, len),
             rng.below(2) ? drydb::SortOrder::descending : drydb::SortOrder::ascending);
    }
    prefix(std::string(), drydb::SortOrder::descending);
    if (n > 0) iterate_cursor();
  }

 private:
  void bad(const std::string& what) { fail(ctx_ + ": " + what); }
  void error(const char* query, const drydb::Error& e) {
    bad(std::string(query) + " failed: " + code_of(e));
  }

  bool usable(const std::string& k) const {
    const size_t w = typed_width(kind_);
    return w == 0 || k.size() == w;
  }
  drydb::Key key(const std::string& k) const { return typed_key(kind_, k); }
  size_t lower(std::string_view k) const {
    return static_cast<size_t>(
        std::lower_bound(rows_.begin(), rows_.end(), k,
                         [](const Row& r, std::string_view x) { return r.first < x; }) -
        rows_.begin());
  }
  size_t upper(std::string_view k) const {
    return static_cast<size_t>(
        std::upper_bound(rows_.begin(), rows_.end(), k,
                         [](std::string_view x, const Row& r) { return x < r.first; }) -
        rows_.begin());
  }

  // Keys to aim at: the first, middle and last rows and their neighbours in the key space, the
  // smallest and a large key, and `extra` (all of the table's typed width).
  std::vector<std::string> probe_keys(const std::vector<std::string>& extra, Rng& rng) const {
    std::vector<std::string> out;
    auto add = [&](const std::string& k) {
      if (usable(k) && out.size() < lim_.probes + extra.size()) out.push_back(k);
    };
    const size_t key_width = typed_width(kind_) ? typed_width(kind_) : width_;
    std::string tmp;
    if (!rows_.empty()) {
      const size_t picks[] = {0, rows_.size() / 2, rows_.size() - 1, rng.below(rows_.size())};
      for (size_t i : picks) {
        add(rows_[i].first);
        if (successor(key_width, rows_[i].first, &tmp)) add(tmp);
        if (i == 0 && predecessor(key_width, rows_[i].first, &tmp)) add(tmp);
      }
    }
    add(std::string(key_width, '\0'));
    add(std::string(key_width ? key_width : 20, '\xff'));
    for (const auto& k : extra)
      if (usable(k)) out.push_back(k);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }

  void walk(bool forward) {
    drydb::Cursor c = t_.cursor();
    const size_t n = rows_.size();
    size_t i = 0;
    for (bool ok = forward ? c.first() : c.last(); ok; ok = forward ? c.next() : c.prev()) {
      if (i >= n) return bad(std::string(forward ? "forward" : "backward") + " walk runs long");
      if (i >= lim_.walk_rows) return;
      const size_t at = forward ? i : n - 1 - i;
      if (c.rank() != at)
        return bad("walk: rank " + std::to_string(c.rank()) + " at row " + std::to_string(at));
      auto k = c.key();
      auto v = c.value();
      if (!c.status()) return error("walk value", c.status().error());
      if (!same(k, rows_[at].first) || !same(v, rows_[at].second))
        return bad("walk: row " + std::to_string(at) + " is " + show(as_string(k)) + ", model " +
                   show(rows_[at].first));
      ++i;
    }
    if (!c.status()) return error("walk", c.status().error());
    if (i != n && i < lim_.walk_rows)
      bad("walk ended after " + std::to_string(i) + " of " + std::to_string(n) + " rows");
  }

  void get(const std::string& k) {
    if (!usable(k)) return;
    auto v = t_.get(key(k));
    if (!v) return error("get", v.error());
    const size_t i = lower(k);
    const bool want = i < rows_.size() && rows_[i].first == k;
    if (v->has_value() != want) return bad("get " + show(k) + " found=" + std::to_string(!want));
    if (want && !same(v->bytes(), rows_[i].second))
      return bad("get " + show(k) + ": wrong value of " + std::to_string(v->size()) + " bytes");
    if (!want && v->size() != 0) bad("get " + show(k) + ": absent but has bytes");
  }

  void seek(const std::string& k) {
    if (!usable(k)) return;
    drydb::Cursor c = t_.cursor();
    const bool ok = c.seek(key(k));
    if (!c.status()) return error("seek", c.status().error());
    size_t at = lower(k);
    if (ok != (at < rows_.size())) return bad("seek " + show(k) + ": wrong validity");
    if (ok) {
      if (c.rank() != at || !same(c.key(), rows_[at].first) || !same(c.value(), rows_[at].second))
        return bad("seek " + show(k) + ": wrong row");
      drydb::Cursor back = c;
      for (int s = 0; s < 3; ++s) {
        const bool fwd = c.next(), bwd = back.prev();
        if (!c.status()) return error("next after seek", c.status().error());
        if (!back.status()) return error("prev after seek", back.status().error());
        const size_t up = at + 1 + s;
        if (fwd != (up < rows_.size())) return bad("next after seek " + show(k));
        if (fwd && (!same(c.key(), rows_[up].first) || !same(c.value(), rows_[up].second)))
          return bad("next after seek " + show(k) + ": wrong row");
        if (bwd != (at >= static_cast<size_t>(s) + 1)) return bad("prev after seek " + show(k));
        if (bwd && (!same(back.key(), rows_[at - 1 - s].first) ||
                    !same(back.value(), rows_[at - 1 - s].second)))
          return bad("prev after seek " + show(k) + ": wrong row");
      }
    }
    drydb::Cursor e = t_.cursor();
    const bool exact = e.seek_exact(key(k));
    if (!e.status()) return error("seek_exact", e.status().error());
    if (exact != (at < rows_.size() && rows_[at].first == k))
      bad("seek_exact " + show(k) + " = " + std::to_string(exact));
  }

  void seek_rank(uint64_t r) {
    drydb::Cursor c = t_.cursor();
    const bool ok = c.seek_rank(r);
    if (!c.status()) return error("seek_rank", c.status().error());
    if (ok != (r < rows_.size())) return bad("seek_rank " + std::to_string(r) + ": wrong validity");
    if (ok &&
        (c.rank() != r || !same(c.key(), rows_[r].first) || !same(c.value(), rows_[r].second)))
      bad("seek_rank " + std::to_string(r) + ": wrong row");
  }

  drydb::KeyBound kb(const Bound& b, drydb::Key* storage) const {
    if (!b.bounded) return drydb::unbounded;
    *storage = key(b.key);
    return drydb::KeyBound(*storage);
  }
  // Model rows [lo, hi) of a range; false when start > end (an error is due).
  bool model_range(const Bound& s, const Bound& e, const drydb::RangeOptions& o, size_t* lo,
                   size_t* hi) const {
    if (s.bounded && e.bounded && s.key > e.key) return false;
    *lo = !s.bounded ? 0 : (o.start_exclusive ? upper(s.key) : lower(s.key));
    *hi = !e.bounded ? rows_.size() : (o.end_exclusive ? lower(e.key) : upper(e.key));
    if (*hi < *lo) *hi = *lo;
    return true;
  }
  std::string what(const Bound& s, const Bound& e, const drydb::RangeOptions& o) const {
    auto b = [](const Bound& x) { return x.bounded ? show(x.key) : std::string("*"); };
    return "[" + b(s) + (o.start_exclusive ? " excl, " : " incl, ") + b(e) +
           (o.end_exclusive ? " excl" : " incl") +
           (o.order == drydb::SortOrder::descending ? "] desc" : "] asc");
  }

  void count_range(const Bound& s, const Bound& e, const drydb::RangeOptions& o) {
    size_t lo = 0, hi = 0;
    const bool valid = model_range(s, e, o, &lo, &hi);
    drydb::Key ks(""), ke("");
    auto c = t_.count_range(kb(s, &ks), kb(e, &ke), o);
    if (!c) {
      if (!valid && is(c.code(), errc::invalid_argument)) return;
      return error(("count_range " + what(s, e, o)).c_str(), c.error());
    }
    if (!valid) return bad("count_range " + what(s, e, o) + " accepted start > end");
    if (*c != hi - lo)
      bad("count_range " + what(s, e, o) + " = " + std::to_string(*c) + ", model " +
          std::to_string(hi - lo));
  }

  void check_rows(drydb::Range& r, size_t lo, size_t hi, bool desc, const std::string& w) {
    if (r.size() != hi - lo)
      return bad(w + ": size " + std::to_string(r.size()) + ", model " + std::to_string(hi - lo));
    size_t i = 0;
    for (auto entry : r) {
      if (i >= lim_.range_rows) break;
      const Row& want = rows_[desc ? hi - 1 - i : lo + i];
      if (!r.status()) break;
      if (!same(entry.key, want.first) || !same(entry.value, want.second))
        return bad(w + ": row " + std::to_string(i) + " is " + show(as_string(entry.key)) +
                   ", model " + show(want.first));
      ++i;
    }
    if (!r.status()) return error(w.c_str(), r.status().error());
    if (i < std::min(hi - lo, lim_.range_rows)) bad(w + ": ended early");
  }

  void range(const Bound& s, const Bound& e, const drydb::RangeOptions& o) {
    size_t lo = 0, hi = 0;
    const bool valid = model_range(s, e, o, &lo, &hi);
    drydb::Key ks(""), ke("");
    auto r = t_.get_range(kb(s, &ks), kb(e, &ke), o);
    const std::string w = "get_range " + what(s, e, o);
    if (!r) {
      if (!valid && is(r.code(), errc::invalid_argument)) return;
      return error(w.c_str(), r.error());
    }
    if (!valid) return bad(w + " accepted start > end");
    check_rows(*r, lo, hi, o.order == drydb::SortOrder::descending, w);
  }

  void prefix(const std::string& p, drydb::SortOrder order) {
    auto r = t_.prefix(std::as_bytes(std::span(p.data(), p.size())), order);
    const std::string w = "prefix " + show(p);
    if (kind_ != drydb::KeyKind::bytes) {
      if (r || !is(r.code(), errc::wrong_key_type)) bad(w + " on typed keys did not refuse");
      return;
    }
    if (!r) return error(w.c_str(), r.error());
    const size_t lo = lower(p);
    size_t hi = lo;
    while (hi < rows_.size() && rows_[hi].first.compare(0, p.size(), p) == 0)
      ++hi;
    check_rows(*r, lo, hi, order == drydb::SortOrder::descending, w);
  }

  // Range-for over a cursor from a middle row.
  void iterate_cursor() {
    drydb::Cursor c = t_.cursor();
    const size_t from = rows_.size() / 2;
    if (!c.seek_rank(from)) return bad("seek_rank to the middle failed");
    size_t i = from;
    for (auto entry : c) {
      if (i >= rows_.size() || i - from >= lim_.range_rows) break;
      if (!same(entry.key, rows_[i].first)) return bad("range-for over a cursor: wrong row");
      ++i;
    }
  }

  drydb::ReadOnlyTable t_;
  const std::vector<Row>& rows_;
  drydb::KeyKind kind_;
  size_t width_;
  std::string ctx_;
  Limits lim_;
};

// One entry of a secondary index in the model: (encoded index key, primary key).
using IndexEntry = std::pair<std::string, std::string>;

// Compares one secondary index's answers with `entries` (sorted: by index key, then by primary
// key; for a unique index no index key repeats) and each entry's row with `rows`, the table's
// model (sorted by key): count, get (the first row of an index key), get_all, get_range and
// count_range with every bound kind in both orders, prefix, cursor walks both ways (rank, index
// key, row() kept across moves), seek with steps both ways, seek_exact and seek_rank. As with
// TableChecker no query may fail, except prefix() on typed index keys (errc::wrong_key_type)
// and a range whose start is after its end (errc::invalid_argument). `extra` are more index
// keys to probe; at most Limits::probes of them are used (those of the index's typed width).
class IndexChecker {
 public:
  IndexChecker(const drydb::SecondaryIndex& index, const std::vector<Row>& rows,
               const std::vector<IndexEntry>& entries, std::string context,
               const Limits& limits = {})
      : ix_(index),
        entries_(entries),
        kind_(index.encoding().kind()),
        width_(index.encoding().fixed_width()),
        ctx_(std::move(context)),
        lim_(limits) {
    values_.reserve(entries.size());
    for (const auto& [ik, pk] : entries) {
      auto it = std::lower_bound(rows.begin(), rows.end(), pk,
                                 [](const Row& r, const std::string& k) { return r.first < k; });
      if (it == rows.end() || it->first != pk) {
        bad("model: the entry of " + show(ik) + " names no row " + show(pk));
        values_.push_back(&empty_);
      } else {
        values_.push_back(&it->second);
      }
    }
  }

  void run(const std::vector<std::string>& extra, uint64_t seed) {
    Rng rng{seed};
    const size_t n = entries_.size();
    if (ix_.count() != n)
      return bad("count() " + std::to_string(ix_.count()) + ", model " + std::to_string(n));
    walk(true);
    walk(false);
    // get and get_all of the index keys of some entries (all of them when few).
    const size_t gets = std::min(n, lim_.gets);
    for (size_t j = 0; j < gets; ++j) {
      const std::string& k = entries_[gets == n ? j : rng.below(n)].first;
      get(k);
      if (j % 4 == 0) get_all(k);
    }
    const std::vector<std::string> probes = probe_keys(extra, rng);
    for (const auto& k : probes) {
      get(k);
      get_all(k);
      seek(k);
    }
    for (uint64_t r : {uint64_t{0}, uint64_t{n / 2}, uint64_t{n ? n - 1 : 0}, uint64_t{n},
                       rng.below(n + 1), ~uint64_t{0}})
      seek_rank(r);
    std::vector<Bound> bounds{Bound{}};
    for (const auto& k : probes)
      bounds.push_back(Bound{true, k});
    for_each_bound_pair(bounds, rng,
                        [&](const Bound& b, const Bound& e, const drydb::RangeOptions& o) {
                          count_range(b, e, o);
                          range(b, e, o);
                        });
    for (const auto& k : probes)
      prefix(k.substr(0, rng.below(k.size() + 1)),
             rng.below(2) ? drydb::SortOrder::descending : drydb::SortOrder::ascending);
    prefix(std::string(), drydb::SortOrder::ascending);
  }

 private:
  void bad(const std::string& what) { fail(ctx_ + ": " + what); }
  void error(const std::string& query, const drydb::Error& e) {
    bad(query + " failed: " + code_of(e));
  }
  bool usable(const std::string& k) const {
    const size_t w = typed_width(kind_);
    return w == 0 || k.size() == w;
  }
  drydb::Key key(const std::string& k) const { return typed_key(kind_, k); }
  size_t lower(std::string_view k) const {
    return static_cast<size_t>(
        std::lower_bound(entries_.begin(), entries_.end(), k,
                         [](const IndexEntry& e, std::string_view x) { return e.first < x; }) -
        entries_.begin());
  }
  size_t upper(std::string_view k) const {
    return static_cast<size_t>(
        std::upper_bound(entries_.begin(), entries_.end(), k,
                         [](std::string_view x, const IndexEntry& e) { return x < e.first; }) -
        entries_.begin());
  }
  // Whether (primary key, value) is the row of entry i.
  bool is_row(size_t i, Bytes pk, Bytes value) const {
    return same(pk, entries_[i].second) && same(value, *values_[i]);
  }
  std::string entry_name(size_t i) const {
    return std::to_string(i) + " (" + show(entries_[i].first) + " -> " + show(entries_[i].second) +
           ")";
  }

  // Index keys to aim at: those of the first, middle, last and a random entry and their
  // neighbours in the key space, the smallest and a large key, and up to Limits::probes of
  // `extra` (of the typed width, for typed index keys).
  std::vector<std::string> probe_keys(const std::vector<std::string>& extra, Rng& rng) const {
    std::vector<std::string> out;
    auto add = [&](const std::string& k) {
      if (usable(k)) out.push_back(k);
    };
    const size_t key_width = typed_width(kind_) ? typed_width(kind_) : width_;
    std::string tmp;
    if (!entries_.empty()) {
      const size_t n = entries_.size();
      for (size_t i : {size_t{0}, n / 2, n - 1, static_cast<size_t>(rng.below(n))}) {
        add(entries_[i].first);
        if (successor(key_width, entries_[i].first, &tmp)) add(tmp);
        if (predecessor(key_width, entries_[i].first, &tmp)) add(tmp);
      }
    }
    add(std::string(key_width, '\0'));
    add(std::string(key_width ? key_width : 20, '\xff'));
    size_t taken = 0;
    for (const auto& k : extra)
      if (usable(k) && taken < lim_.probes) {
        out.push_back(k);
        ++taken;
      }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }

  // The whole index through a cursor, checking rank, index key and row of each entry; a Row
  // taken from an early entry must keep its bytes while the walk moves on (and pages evict).
  void walk(bool forward) {
    const char* way = forward ? "forward walk" : "backward walk";
    drydb::IndexCursor c = ix_.cursor();
    const size_t n = entries_.size();
    drydb::Row kept;
    size_t kept_at = 0;
    size_t i = 0;
    for (bool ok = forward ? c.first() : c.last(); ok; ok = forward ? c.next() : c.prev()) {
      if (i >= n) return bad(std::string(way) + " runs long");
      if (i >= lim_.walk_rows) return;
      const size_t at = forward ? i : n - 1 - i;
      if (c.rank() != at)
        return bad(std::string(way) + ": rank " + std::to_string(c.rank()) + " at entry " +
                   std::to_string(at));
      const auto ik = as_string(c.index_key());
      const auto pk = c.key();
      const auto v = c.value();
      if (!c.status()) return error(way, c.status().error());
      if (ik != entries_[at].first || !is_row(at, pk, v))
        return bad(std::string(way) + ": entry " + entry_name(at) + " is " + show(ik) + " -> " +
                   show(as_string(pk)));
      if (i == 1 || i % 64 == 0) {
        drydb::Row row = c.row();
        if (!c.status()) return error(std::string(way) + " row()", c.status().error());
        if (!row.has_value() || !is_row(at, row.key(), row.value()))
          return bad(std::string(way) + ": row() of entry " + entry_name(at) + " is wrong");
        if (i == 1) {
          kept = std::move(row);
          kept_at = at;
        }
      }
      ++i;
    }
    if (!c.status()) return error(way, c.status().error());
    if (i != n && i < lim_.walk_rows)
      return bad(std::string(way) + " ended after " + std::to_string(i) + " of " +
                 std::to_string(n) + " entries");
    if (kept.has_value() && !is_row(kept_at, kept.key(), kept.value()))
      bad(std::string(way) + ": a Row kept from entry " + entry_name(kept_at) + " changed");
  }

  void get(const std::string& k) {
    if (!usable(k)) return;
    auto r = ix_.get(key(k));
    if (!r) return error("get " + show(k), r.error());
    const size_t i = lower(k);
    const bool want = i < entries_.size() && entries_[i].first == k;
    if (r->has_value() != want)
      return bad("get " + show(k) + ": found=" + std::to_string(r->has_value()));
    if (want && !is_row(i, r->key(), r->value()))
      return bad("get " + show(k) + ": row " + show(as_string(r->key())) + ", model entry " +
                 entry_name(i));
    if (!want && (!r->key().empty() || !r->value().empty()))
      bad("get " + show(k) + ": absent but has bytes");
  }

  void get_all(const std::string& k) {
    if (!usable(k)) return;
    auto r = ix_.get_all(key(k));
    const std::string w = "get_all " + show(k);
    if (!r) return error(w, r.error());
    check_rows(*r, lower(k), upper(k), false, w);
  }

  void seek(const std::string& k) {
    if (!usable(k)) return;
    const size_t n = entries_.size();
    const size_t at = lower(k);
    drydb::IndexCursor c = ix_.cursor();
    const bool ok = c.seek(key(k));
    if (!c.status()) return error("seek " + show(k), c.status().error());
    if (ok != (at < n)) return bad("seek " + show(k) + ": wrong validity");
    if (ok) {
      if (c.rank() != at || as_string(c.index_key()) != entries_[at].first ||
          !is_row(at, c.key(), c.value()))
        return bad("seek " + show(k) + ": not at entry " + entry_name(at));
      drydb::IndexCursor back = ix_.cursor();
      if (!back.seek_rank(at)) return bad("seek_rank " + std::to_string(at) + " failed");
      for (size_t s = 0; s < 3; ++s) {
        const bool fwd = c.next(), bwd = back.prev();
        if (!c.status()) return error("next after seek", c.status().error());
        if (!back.status()) return error("prev after seek_rank", back.status().error());
        const size_t up = at + 1 + s;
        if (fwd != (up < n)) return bad("next after seek " + show(k) + ": wrong validity");
        if (fwd && !is_row(up, c.key(), c.value()))
          return bad("next after seek " + show(k) + ": not at entry " + entry_name(up));
        if (bwd != (at >= s + 1)) return bad("prev after seek " + show(k) + ": wrong validity");
        if (bwd && !is_row(at - 1 - s, back.key(), back.value()))
          return bad("prev after seek " + show(k) + ": not at entry " + entry_name(at - 1 - s));
      }
    }
    drydb::IndexCursor e = ix_.cursor();
    const bool exact = e.seek_exact(key(k));
    if (!e.status()) return error("seek_exact " + show(k), e.status().error());
    const bool want = at < n && entries_[at].first == k;
    if (exact != want) return bad("seek_exact " + show(k) + " = " + std::to_string(exact));
    if (e.valid() != (at < n)) return bad("seek_exact " + show(k) + ": wrong validity");
    if (exact) {
      drydb::Row row = e.row();
      e.next();  // the Row outlives the cursor's moves
      if (!row.has_value() || !is_row(at, row.key(), row.value()))
        bad("seek_exact " + show(k) + ": row() is not entry " + entry_name(at));
    }
  }

  void seek_rank(uint64_t r) {
    drydb::IndexCursor c = ix_.cursor();
    const bool ok = c.seek_rank(r);
    if (!c.status()) return error("seek_rank", c.status().error());
    if (ok != (r < entries_.size()))
      return bad("seek_rank " + std::to_string(r) + ": wrong validity");
    if (ok && (c.rank() != r || as_string(c.index_key()) != entries_[r].first ||
               !is_row(r, c.key(), c.value())))
      bad("seek_rank " + std::to_string(r) + ": not at entry " + entry_name(r));
  }

  drydb::KeyBound kb(const Bound& b, drydb::Key* storage) const {
    if (!b.bounded) return drydb::unbounded;
    *storage = key(b.key);
    return drydb::KeyBound(*storage);
  }
  // Model entries [lo, hi) of a range; false when start > end (an error is due).
  bool model_range(const Bound& s, const Bound& e, const drydb::RangeOptions& o, size_t* lo,
                   size_t* hi) const {
    if (s.bounded && e.bounded && s.key > e.key) return false;
    *lo = !s.bounded ? 0 : (o.start_exclusive ? upper(s.key) : lower(s.key));
    *hi = !e.bounded ? entries_.size() : (o.end_exclusive ? lower(e.key) : upper(e.key));
    if (*hi < *lo) *hi = *lo;
    return true;
  }
  static std::string what(const Bound& s, const Bound& e, const drydb::RangeOptions& o) {
    auto b = [](const Bound& x) { return x.bounded ? show(x.key) : std::string("*"); };
    return "[" + b(s) + (o.start_exclusive ? " excl, " : " incl, ") + b(e) +
           (o.end_exclusive ? " excl" : " incl") +
           (o.order == drydb::SortOrder::descending ? "] desc" : "] asc");
  }

  void count_range(const Bound& s, const Bound& e, const drydb::RangeOptions& o) {
    size_t lo = 0, hi = 0;
    const bool valid = model_range(s, e, o, &lo, &hi);
    drydb::Key ks(""), ke("");
    auto c = ix_.count_range(kb(s, &ks), kb(e, &ke), o);
    const std::string w = "count_range " + what(s, e, o);
    if (!c) {
      if (!valid && is(c.code(), errc::invalid_argument)) return;
      return error(w, c.error());
    }
    if (!valid) return bad(w + " accepted start > end");
    if (*c != hi - lo) bad(w + " = " + std::to_string(*c) + ", model " + std::to_string(hi - lo));
  }

  void range(const Bound& s, const Bound& e, const drydb::RangeOptions& o) {
    size_t lo = 0, hi = 0;
    const bool valid = model_range(s, e, o, &lo, &hi);
    drydb::Key ks(""), ke("");
    auto r = ix_.get_range(kb(s, &ks), kb(e, &ke), o);
    const std::string w = "get_range " + what(s, e, o);
    if (!r) {
      if (!valid && is(r.code(), errc::invalid_argument)) return;
      return error(w, r.error());
    }
    if (!valid) return bad(w + " accepted start > end");
    check_rows(*r, lo, hi, o.order == drydb::SortOrder::descending, w);
  }

  void prefix(const std::string& p, drydb::SortOrder order) {
    auto r = ix_.prefix(std::as_bytes(std::span(p.data(), p.size())), order);
    const std::string w = "prefix " + show(p);
    if (kind_ != drydb::KeyKind::bytes) {
      if (r || !is(r.code(), errc::wrong_key_type)) bad(w + " on typed index keys did not refuse");
      return;
    }
    if (!r) return error(w, r.error());
    const size_t lo = lower(p);
    size_t hi = lo;
    while (hi < entries_.size() && entries_[hi].first.compare(0, p.size(), p) == 0)
      ++hi;
    check_rows(*r, lo, hi, order == drydb::SortOrder::descending, w);
  }

  // The size of a range and its first Limits::range_rows rows (and its last one, when that is
  // further): each the row of the model's entry.
  void check_rows(drydb::IndexRange& r, size_t lo, size_t hi, bool desc, const std::string& w) {
    if (r.size() != hi - lo)
      return bad(w + ": size " + std::to_string(r.size()) + ", model " + std::to_string(hi - lo));
    size_t i = 0;
    for (auto entry : r) {
      if (i >= lim_.range_rows) break;
      const size_t at = desc ? hi - 1 - i : lo + i;
      if (!r.status()) break;
      if (!is_row(at, entry.key, entry.value))
        return bad(w + ": row " + std::to_string(i) + " is " + show(as_string(entry.key)) +
                   ", model entry " + entry_name(at));
      ++i;
    }
    if (!r.status()) return error(w, r.status().error());
    if (i < std::min(hi - lo, lim_.range_rows)) bad(w + ": ended early");
  }

  drydb::SecondaryIndex ix_;
  const std::vector<IndexEntry>& entries_;
  std::vector<const std::string*> values_;  // the value of each entry's row
  const std::string empty_;
  drydb::KeyKind kind_;
  size_t width_;
  std::string ctx_;
  Limits lim_;
};

// ---- untrusted files --------------------------------------------------------------------------

// Runs every query kind on every table of a database opened from untrusted bytes, answers
// unchecked: only crashes, hangs and sanitizer findings count. Bounded work.
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
  for (const auto& s : bounds)
    for (const auto& e : bounds) {
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
// cursor walks both ways with each entry's row resolved. Bounded work.
inline void poke_index(const drydb::SecondaryIndex& ix, const std::vector<std::string>& keys,
                       const Limits& lim) {
  const auto kind = ix.encoding().kind();
  (void)ix.count();
  drydb::IndexCursor c = ix.cursor();
  size_t steps = 0;
  for (bool ok = c.first(); ok && steps < lim.walk_rows; ok = c.next(), ++steps) {
    (void)c.value();
    (void)c.index_key();
    (void)c.row();
  }
  steps = 0;
  for (bool ok = c.last(); ok && steps < lim.walk_rows; ok = c.prev(), ++steps)
    (void)c.key();
  std::vector<drydb::KeyBound> bounds{drydb::KeyBound(drydb::unbounded)};
  for (const auto& k : keys) {
    if (typed_width(kind) != 0 && k.size() != typed_width(kind)) continue;
    const drydb::Key key = typed_key(kind, k);
    if (auto row = ix.get(key); row && *row) (void)row->value();
    (void)c.seek_exact(key);
    bounds.emplace_back(key);
  }
  for (const auto& s : bounds)
    for (const auto& e : bounds)
      for (auto order : {drydb::SortOrder::ascending, drydb::SortOrder::descending}) {
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
    Row row{as_string(c.key()), as_string(v)};
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
    IndexEntry e{as_string(c.index_key()), as_string(c.key())};
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
// `focus`, when given, names the tables worth querying (those an input changed); the others
// are only verified.
inline bool exercise_database(const drydb::ReadOnlyDatabase& db,
                              const std::vector<std::string>& keys, const std::string& context,
                              uint64_t seed, const Limits& lim = {},
                              const std::vector<std::string>* focus = nullptr) {
  std::vector<drydb::ReadOnlyTable> tables;
  for (const auto& t : db.tables())
    if (!focus || std::find(focus->begin(), focus->end(), t.name()) != focus->end())
      tables.push_back(t);
  for (const auto& t : tables) {
    if (!db.table(t.name())) fail(context + ": table '" + std::string(t.name()) + "' not found");
    std::vector<std::string> probes = keys;
    std::vector<Row> rows;
    (void)walk_rows(t, 3, &rows);  // the first rows, however the walk ends
    for (const auto& r : rows)
      probes.push_back(r.first);
    poke_table(t, probes, lim);
    for (const auto& ix : t.indexes())
      poke_index(ix, keys, lim);
  }
  (void)db.table("no such table");
  const bool verified = static_cast<bool>(db.verify());
  if (!verified) return false;
  for (const auto& t : tables) {
    const std::string ctx = context + ", verified table '" + std::string(t.name()) + "'";
    std::vector<Row> rows;
    if (t.count() > lim.walk_rows) continue;  // too large to model within the budget
    if (!walk_rows(t, lim.walk_rows, &rows)) {
      fail(ctx + ": the forward walk fails or is out of order after verify() passed");
      continue;
    }
    TableChecker(t, rows, ctx, lim).run(keys, seed);
    for (const auto& ix : t.indexes()) {
      const std::string ictx = ctx + ", index '" + std::string(ix.name()) + "'";
      std::vector<IndexEntry> entries;
      if (ix.count() > lim.walk_rows) continue;
      if (!walk_entries(ix, lim.walk_rows, &entries)) {
        fail(ictx + ": the forward walk fails or is out of order after verify() passed");
        continue;
      }
      IndexChecker(ix, rows, entries, ictx, lim).run(keys, seed);
    }
  }
  return true;
}

}  // namespace drydb_fuzz
