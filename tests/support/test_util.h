// Helpers of the builder, table and filter suites: the encodings they exercise, random tables of
// the one model (support/model.h) per encoding, the shape of a built tree, and the bounds worth
// aiming at; DiffChecker runs the one checker (support/checker.h) over a table and its model with
// each wrong answer a test failure.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "drydb/detail/coding.h"
#include "drydb/detail/format.h"
#include "drydb/detail/node.h"
#include "drydb/drydb.h"
#include "names.h"
#include "suite.h"

namespace drydb_test {

// ---- key encodings ----------------------------------------------------------

// The encodings the suites exercise: the four built-ins and three custom ones.
enum class Enc { bytes, int64, uuid, ulid, fixed4, fixed12, var };

inline constexpr std::array<const char*, 7> kEncNames = {
    "bytes", "int64", "uuid_v7", "ulid", "custom_fixed4", "custom_fixed12", "custom_var"};
static_assert(names_every_value(kEncNames, Enc::var));

inline const char* enc_name(Enc e) {
  return name_in(kEncNames, e);
}

// A key of each typed kind but int64, for tests that pass one where another is due: RFC 9562's
// example v7 UUID and the ULID spec's example.
inline const drydb::Uuid kSampleUuid =
    drydb::Uuid::parse("017f22e2-79b0-7cc3-98c4-dc0c0c07398f").value();
inline const drydb::Ulid kSampleUlid = drydb::Ulid::parse("01ARZ3NDEKTSV4RRFFQ69G5FAV").value();

// Lower-case hex of the key bytes: the display form of the custom encodings,
// so tests can tell that messages go through the encoding's formatter.
inline std::string hex_of(Bytes b) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "0x";
  for (std::byte c : b) {
    out += kHex[std::to_integer<unsigned>(c) >> 4];
    out += kHex[std::to_integer<unsigned>(c) & 15];
  }
  return out;
}

// Custom encodings, registered once per process (register_key_encoding refuses
// an id twice).
inline drydb::KeyEncoding register_custom(std::string id, uint32_t width, bool hex) {
  drydb::CustomKeyEncoding spec;
  spec.id = std::move(id);
  spec.fixed_width = width;
  if (hex) spec.format = hex_of;
  return drydb::register_key_encoding(std::move(spec)).value();
}

inline drydb::KeyEncoding custom_encoding(Enc e) {
  static const drydb::KeyEncoding fixed4 = register_custom("test.fixed4", 4, true);
  static const drydb::KeyEncoding fixed12 = fixed_width_encoding(12);
  static const drydb::KeyEncoding var = register_custom("test.var", 0, true);
  switch (e) {
    case Enc::fixed4:
      return fixed4;
    case Enc::fixed12:
      return fixed12;
    default:
      return var;
  }
}

inline drydb::KeyEncoding encoding_of(Enc e) {
  switch (e) {
    case Enc::bytes:
      return drydb::KeyEncoding::bytes();
    case Enc::int64:
      return drydb::KeyEncoding::int64();
    case Enc::uuid:
      return drydb::KeyEncoding::uuid_v7();
    case Enc::ulid:
      return drydb::KeyEncoding::ulid();
    default:
      return custom_encoding(e);
  }
}

// 0 for variable-length encodings.
inline size_t width_of(Enc e) {
  switch (e) {
    case Enc::int64:
      return 8;
    case Enc::uuid:
    case Enc::ulid:
      return 16;
    case Enc::fixed4:
      return 4;
    case Enc::fixed12:
      return 12;
    default:
      return 0;
  }
}

// The typed Key a user would pass for encoded key `k` of encoding `e`: an
// int64_t, a Uuid, a Ulid, or (bytes and custom encodings) the bytes, which
// the Key borrows from `k`.
inline drydb::Key key_for(Enc e, const std::string& k) {
  return drydb_test::typed_key(encoding_of(e).kind(), k);
}

// How a key prints in a failure message.
inline std::string show(Enc e, std::string_view k) {
  return encoding_of(e).format(as_bytes(k));
}

// ---- random data --------------------------------------------------------------

// A byte biased towards the values that break comparisons: 0x00, 0xFF, 0x7F,
// 0x80 and a handful of letters (so keys share prefixes often).
inline char edgy_byte(Rng& rng) {
  static constexpr unsigned char kEdges[] = {0x00, 0x01, 0x7f, 0x80, 0xfe, 0xff,
                                             'a',  'b',  'c',  'd',  'e'};
  if (rng.between(0, 3) == 0) return static_cast<char>(rng.between(0, 255));
  return static_cast<char>(kEdges[rng.between(0, sizeof kEdges - 1)]);
}

inline std::string random_bytes(Rng& rng, size_t n) {
  std::string s(n, '\0');
  for (auto& c : s)
    c = static_cast<char>(rng.between(0, 255));
  return s;
}

// A random encoded key of encoding `e`. Variable-length keys are at most
// `max_len` bytes and often share long prefixes (more than 8 bytes, so the
// read path's 8-byte prefix comparison ties and must fall back to the bytes).
inline std::string random_key(Enc e, Rng& rng, size_t max_len = 48) {
  switch (e) {
    case Enc::int64: {
      switch (rng.between(0, 5)) {
        case 0:
          return int64_key(static_cast<int64_t>(rng.next()));
        case 1:
          return int64_key(std::numeric_limits<int64_t>::min() +
                           static_cast<int64_t>(rng.between(0, 1000)));
        case 2:
          return int64_key(std::numeric_limits<int64_t>::max() -
                           static_cast<int64_t>(rng.between(0, 1000)));
        default:
          return int64_key(static_cast<int64_t>(rng.between(0, 200000)) - 100000);
      }
    }
    case Enc::uuid: {
      std::array<std::byte, 10> r;
      for (auto& b : r)
        b = static_cast<std::byte>(rng.between(0, 255));
      const uint64_t ms = 1'700'000'000'000ull + rng.between(0, 50);
      return to_string(drydb::Uuid::v7_from_parts(ms, r).as_bytes());
    }
    case Enc::ulid: {
      std::array<std::byte, 10> r;
      for (auto& b : r)
        b = static_cast<std::byte>(rng.between(0, 255));
      if (rng.between(0, 1)) r[0] = std::byte{0xff};  // long shared prefixes
      const uint64_t ms = 1'700'000'000'000ull + rng.between(0, 50);
      return to_string(drydb::Ulid::from_parts(ms, r).as_bytes());
    }
    case Enc::fixed4: {
      std::string s(4, '\0');
      for (auto& c : s)
        c = edgy_byte(rng);
      return s;
    }
    case Enc::fixed12: {
      std::string s(12, '\0');
      for (size_t i = 0; i < 12; ++i)
        s[i] = i < 9 ? static_cast<char>('a' + rng.between(0, 1)) : edgy_byte(rng);
      return s;
    }
    case Enc::bytes:
    case Enc::var: {
      // A few shared stems of various lengths, then an edgy tail.
      static const char* const kStems[] = {"",         "a",          "ab",        "abcdefgh",
                                           "abcdefgh", "abcdefghij", "item:",     "item:0000",
                                           "\xff",     "\xff\xff",   "a\xff\xff", "zzzzzzzzzzzz"};
      std::string s = kStems[rng.between(0, std::size(kStems) - 1)];
      const size_t tail = rng.between(0, 12);
      for (size_t i = 0; i < tail; ++i)
        s += edgy_byte(rng);
      if (rng.between(0, 15) == 0) {  // an occasional long key
        const size_t extra = rng.between(0, max_len);
        for (size_t i = 0; i < extra; ++i)
          s += static_cast<char>('a' + rng.between(0, 2));
      }
      if (s.size() > max_len) s.resize(max_len);
      return s;
    }
  }
  return {};
}

// A value of random length in [min_len, max_len] whose bytes say which key it
// belongs to (a value mixed up between rows shows at once).
inline std::string value_for(const std::string& key, Rng& rng, size_t min_len, size_t max_len) {
  const size_t n = rng.between(min_len, max_len);
  std::string v(n, '\0');
  uint64_t h = std::hash<std::string>{}(key);
  for (size_t i = 0; i < n; ++i) {
    h = h * 6364136223846793005ull + 1442695040888963407ull;
    v[i] = static_cast<char>(h >> 56);
  }
  return v;
}

// A table model (not finished) named `name` of `rows` distinct random keys of encoding `e` with
// values of length [min_value, max_value].
inline TableModel random_table(std::string name, Enc e, size_t rows, uint64_t seed,
                               size_t min_value, size_t max_value, size_t max_key_len = 48) {
  Rng rng(seed);
  TableModel t = make_table(std::move(name), encoding_of(e));
  size_t attempts = 0;
  while (t.rows.size() < rows && attempts++ < rows * 50) {
    std::string k = random_key(e, rng, max_key_len);
    if (t.rows.count(k)) continue;
    t.rows.emplace(k, value_for(k, rng, min_value, max_value));
  }
  return t;
}

// A table model (not finished) of encoding `e`.
inline TableModel make_table(std::string name, Enc e, Rows rows = {}) {
  return make_table(std::move(name), encoding_of(e), std::move(rows));
}

// ---- building -------------------------------------------------------------------------------

// Adds every table of `tables` to `builder`, each table's rows appended in an order shuffled by
// `shuffle_seed` (the builder must sort).
inline void append_all(drydb::DatabaseBuilder& builder, const std::vector<TableModel>& tables,
                       uint64_t shuffle_seed) {
  for (const auto& t : tables)
    add_table(builder, t, shuffle_seed);
}

// build_memory of a database of the one table `t`, rows appended shuffled.
inline std::vector<std::byte> build_one(const TableModel& t, uint32_t page_size) {
  return build_memory({.page_size = page_size, .tables = {t}}, {}, 1);
}

// ---- the tree's shape, read from the file ------------------------------------------

// First and last key of every leaf (in page order, which is key order) and
// every separator of the internal pages. Reads the raw file, so a test can aim
// queries at leaf boundaries. Requires: every tree in the file has keys of
// width `key_width` (0 = variable).
struct TreeShape {
  std::vector<std::string> leaf_first, leaf_last, separators;
  size_t leaves = 0, internals = 0;
};

inline TreeShape scan_tree(Bytes file, size_t key_width) {
  namespace d = drydb::detail;
  TreeShape shape;
  const uint32_t page_size = d::load_u32(file.data() + d::header::kPageSizeOff);
  const uint64_t page_count = d::load_u64(file.data() + d::header::kPageCountOff);
  const d::KeyLayout layout{static_cast<uint16_t>(key_width)};
  for (uint64_t page = 1; page < page_count;) {
    const std::byte* p = file.data() + page * page_size;
    d::KeyBuffer buf;
    switch (static_cast<d::PageType>(p[d::page::kTypeOff])) {
      case d::PageType::leaf: {
        d::LeafView leaf(p, layout);
        shape.leaf_first.push_back(to_string(leaf.key(0, buf)));
        shape.leaf_last.push_back(to_string(leaf.key(leaf.size() - 1, buf)));
        ++shape.leaves;
        ++page;
        break;
      }
      case d::PageType::internal: {
        d::InternalView node(p, layout);
        for (uint32_t s = 0; s + 1 < node.size(); ++s)
          shape.separators.push_back(to_string(node.separator(s, buf)));
        ++shape.internals;
        ++page;
        break;
      }
      case d::PageType::overflow:
        page += d::overflow::pages_for(d::load_u32(p + d::overflow::kLengthOff), page_size);
        break;
      default:
        ADD_FAILURE() << "page " << page << " has an unknown type";
        return shape;
    }
  }
  return shape;
}

// ---- keys next to keys ---------------------------------------------------------------

// The smallest key of the encoding's key space greater than k (fixed width:
// k + 1 as a big-endian number; variable: k + "\0"); false when none.
inline bool successor(Enc e, const std::string& k, std::string* out) {
  return drydb_test::next_key(width_of(e), k, out);
}

// A key smaller than k (fixed width: k - 1; variable: k minus its last byte);
// false when k is the smallest key.
inline bool predecessor(Enc e, const std::string& k, std::string* out) {
  return drydb_test::previous_key(width_of(e), k, out);
}

inline std::string min_key(Enc e) {
  return std::string(width_of(e), '\0');
}
inline std::string max_key(Enc e) {
  return std::string(width_of(e) ? width_of(e) : 80, static_cast<char>(0xff));
}

// ---- the differential checker ---------------------------------------------------------

// The one checker (support/checker.h) over a table and its model, each wrong answer or error a
// non-fatal test failure (the first 12 in full).
class DiffChecker {
 public:
  // Requires: `model`'s rows are the table's (finished here, on a copy).
  DiffChecker(const drydb::ReadOnlyTable& table, TableModel model)
      : table_(table), model_(std::move(model)) {
    model_.finish();
    report_failures(out_, std::string(model_.enc.id()));
  }
  DiffChecker(const DiffChecker&) = delete;
  DiffChecker& operator=(const DiffChecker&) = delete;

  size_t rows() const { return model_.size(); }
  const std::pair<std::string, std::string>& row(size_t i) const { return model_.sorted[i]; }
  // Wrong answers and errors so far.
  uint64_t failures() const { return out_.wrong.size() + out_.errors; }
  uint64_t rows_compared() const { return out_.rows; }
  // Rank of the first row with key >= k.
  size_t lower(const std::string& k) const { return model_.lower(k); }

  void check_count() { check_table_count(table_, model_, out_); }
  void check_get(const std::string& k) { drydb_test::check_get(table_, model_, k, out_); }
  void check_every_get() { drydb_test::check_every_get(table_, model_, out_); }
  void check_pair(const std::string& s, const std::string& e) {
    drydb_test::check_pair(table_, model_, s, e, out_);
  }
  void check_single(const std::string& b) { drydb_test::check_single(table_, model_, b, out_); }
  void check_unbounded() { drydb_test::check_unbounded(table_, model_, out_); }
  void check_bounds(const std::vector<std::string>& bounds) {
    drydb_test::check_bounds(table_, model_, bounds, out_);
  }
  // Both orders.
  void check_prefix(const std::string& p) {
    for (auto order : kBothOrders)
      drydb_test::check_prefix(table_, model_, p, order, out_);
  }
  // One cursor walk forwards, one backwards.
  void check_cursor_walks() {
    check_walk(table_, model_, true, out_);
    check_walk(table_, model_, false, out_);
  }
  // Every row, both ways: the unbounded range and count, and the cursor walks.
  void check_whole_table() {
    check_unbounded();
    check_cursor_walks();
  }
  void check_seek(const std::string& k, int steps = 3) {
    drydb_test::check_seek(table_, model_, k, out_, steps);
  }

 private:
  drydb::ReadOnlyTable table_;
  TableModel model_;
  Outcome out_;
};

// The bounds worth aiming at for a model and its file: the first and last
// keys, keys before and after them, both sides of sampled leaf boundaries and
// a key between them, sampled separators, sampled existing keys and keys
// right after them, and random keys (mostly absent). Sorted, no duplicates.
inline std::vector<std::string> interesting_bounds(Enc e, const TableModel& model,
                                                   const TreeShape& shape, uint64_t seed,
                                                   size_t samples = 16) {
  std::set<std::string> out;
  Rng rng(seed);
  std::string k;
  out.insert(min_key(e));
  out.insert(max_key(e));
  if (!model.rows.empty()) {
    const std::string& first = model.rows.begin()->first;
    const std::string& last = model.rows.rbegin()->first;
    out.insert(first);
    out.insert(last);
    if (predecessor(e, first, &k)) out.insert(k);
    if (successor(e, last, &k)) out.insert(k);
  }
  // `count` indices spread evenly over [0, n).
  auto sample = [](size_t n, size_t count, auto&& take) {
    count = std::min(count, n);
    for (size_t j = 0; j < count; ++j)
      take((j * n) / count);
  };
  // Leaf boundaries: last key of a leaf, first key of the next, a key between.
  const size_t leaves = shape.leaf_first.size();
  if (leaves > 1) {
    sample(leaves - 1, samples, [&](size_t i) {
      const std::string& left = shape.leaf_last[i];
      const std::string& right = shape.leaf_first[i + 1];
      out.insert(left);
      out.insert(right);
      if (successor(e, left, &k) && k < right) out.insert(k);
      if (predecessor(e, right, &k) && k > left) out.insert(k);
    });
  }
  sample(shape.separators.size(), samples, [&](size_t i) { out.insert(shape.separators[i]); });
  // Existing keys and the keys right after them.
  std::vector<const std::string*> keys;
  for (const auto& row : model.rows)
    keys.push_back(&row.first);
  for (size_t j = 0; j < samples && !keys.empty(); ++j) {
    const std::string& key = *keys[rng.between(0, keys.size() - 1)];
    out.insert(key);
    if (successor(e, key, &k)) out.insert(k);
  }
  for (size_t j = 0; j < samples; ++j)
    out.insert(random_key(e, rng));
  return {out.begin(), out.end()};
}

}  // namespace drydb_test
