// Key shapes: the keys real files have, beside the reference workload's dense ids.
//
//   dense      int64 0..N-1 (the reference workload's keys)
//   random     uniform random int64 (hash-like ids), negative ones included
//   clustered  int64 nanosecond timestamps in bursts: 1 to 2,048 keys 1 ns to 1 us apart, bursts
//              separated by gaps of 1 us to 90 s (log-uniform), so neighbouring pages cover
//              spans of wildly different widths
//   url        text: the 26-byte prefix "https://example.com/items/" and 16 hex digits
//   names      text: the character names of Debian's unicode-data (about 35,000, many sharing
//              long leading words: "LATIN SMALL LETTER A WITH ...")
//   words      text: the English words of Debian's wamerican (/usr/share/dict/words, about
//              104,000: short keys, a word and its possessive side by side, "abandon",
//              "abandon's", "abandoned")
//
// Every shape's rows are its keys in order, row r holding value_of(r) (13 bytes), so a query's
// expected checksum follows from the ranks it reaches. Queries are drawn once, with fixed seeds:
//   gets     every key once, in a random order (no repeats within a pass); at most
//            kMaxGetQueries of them: at 100M rows, a random 2^24 of the keys;
//   misses   absent keys between present ones (dense: outside the range), each checked absent;
//   scans    100-row scans from a present key;
//   counts   ranges of kShapeCountRows rows between two present keys.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace drydb_bench {

enum class ShapeKind { dense, random, clustered, url, names, words };

// Whether a shape's keys are int64 (dense, random, clustered) rather than text.
inline bool int_shape(ShapeKind kind) {
  return kind == ShapeKind::dense || kind == ShapeKind::random || kind == ShapeKind::clustered;
}
// Whether a shape's keys are every entry of a file on the machine (names, words): its rows are
// the file's, whatever row count is asked.
inline bool file_shape(ShapeKind kind) {
  return kind == ShapeKind::names || kind == ShapeKind::words;
}

inline constexpr int kShapeScanRows = 100;
// Keys per get_many call of the GetMany workload.
inline constexpr size_t kShapeBatch = 64;
inline constexpr int64_t kShapeCountRows = 8'000;
inline constexpr int64_t kRows16M = 16'000'000;
inline constexpr int64_t kRows100M = 100'000'000;
// The most gets a shape asks, each of a different key: at 100M rows, a random 2^24 of the keys
// (the queries of every key would take 3.2 GB; a benchmark asks far fewer).
inline constexpr size_t kMaxGetQueries = size_t{1} << 24;

// What a shape workload folds a value to: its length plus its last 8 bytes read as a number
// (for value_of(r), the last 8 digits of r), so that every row of a shape folds differently and
// a lookup or scan that reaches the wrong rows fails its checksum. One unaligned load.
inline uint64_t shape_fold(const void* data, size_t size) {
  if (size < 8) return size;
  uint64_t u;
  std::memcpy(&u, static_cast<const char*>(data) + size - 8, 8);
  return u + size;
}
inline uint64_t shape_fold(std::span<const std::byte> v) {
  return shape_fold(v.data(), v.size());
}
// What a ShapeReader returns for a lookup that failed (an error, not an absent key): far from
// any checksum, so the benchmark fails.
inline constexpr uint64_t kShapeFailed = uint64_t{1} << 62;

// A query key: the integer for integer shapes, and in every shape the encoded key bytes in the
// order every store sorts by (memcmp): for integers, 8 big-endian bytes with the sign bit
// flipped (drydb's int64 encoding), so negative keys sort first.
struct ShapeKey {
  int64_t i = 0;
  std::string_view bytes;
};

// Query keys in the order a workload asks them, their bytes side by side in that order too, so
// that a workload reads its keys as a stream. Picking each key from the sorted table instead
// costs one or two cache misses of the benchmark's own per query (the table entry, then the
// bytes it points to), as much as a lookup's page visit and the same for every store, which would
// hide the stores' differences.
class QueryKeys {
 public:
  // The n keys key_of(0..n-1) returns, copied; key_of(q) is a ShapeKey whose bytes may live
  // anywhere while this runs.
  template <class KeyOf>
  void assign(size_t n, KeyOf key_of) {
    size_t total = 0;
    for (size_t q = 0; q < n; ++q)
      total += key_of(q).bytes.size();
    bytes_.clear();
    bytes_.reserve(total);  // no reallocation below: the views stay valid
    keys_.clear();
    keys_.reserve(n);
    for (size_t q = 0; q < n; ++q) {
      const ShapeKey k = key_of(q);
      const size_t at = bytes_.size();
      bytes_.append(k.bytes);
      keys_.push_back({k.i, std::string_view(bytes_).substr(at, k.bytes.size())});
    }
  }
  size_t size() const { return keys_.size(); }
  const ShapeKey& operator[](size_t q) const { return keys_[q]; }

 private:
  std::string bytes_;
  std::vector<ShapeKey> keys_;
};

// The shapes and sizes the suite runs: every shape at 1M rows (names and words: all of them), the
// integer shapes also at 16M.
struct ShapeSize {
  ShapeKind kind;
  int64_t rows;  // ignored for names and words (file_shape)
};
std::vector<ShapeSize> suite_shapes();
// The integer shapes at 100M rows: run apart from the suite, one shape per process (drydb_bench
// --shapes_100M): a process took 12 GB of memory, the shape, the vector's values and the 5.4 GB
// of files it maps.
std::vector<ShapeSize> large_shapes();
// "random_1M", "clustered_16M", "names": what benchmark and file names carry.
std::string shape_name(ShapeSize size);

struct Shape {
  ShapeKind kind;
  std::string name;  // shape_name()
  bool int_keys;
  std::vector<int64_t> ints;          // integer shapes: the keys, ascending
  std::string int_key_bytes;          // integer shapes: their encoded keys, 8 bytes each
  std::vector<std::string> keys;      // text shapes: the keys, ascending (integer shapes: empty)
  std::vector<uint64_t> folds;        // shape_fold of each row's value
  uint64_t all_rows_sum = 0;          // their sum: a full scan's checksum
  std::vector<uint32_t> get_ranks;    // a permutation of the rows (of kMaxGetQueries of them)
  QueryKeys get_keys;                 // their keys, in that order
  QueryKeys miss_keys;                // absent keys
  std::vector<uint32_t> scan_ranks;   // first row of each scan
  std::vector<uint64_t> scan_sums;    // its checksum
  std::vector<uint32_t> count_ranks;  // first row of each count's range

  int64_t rows() const { return static_cast<int64_t>(folds.size()); }
  // Row `rank`'s key, encoded: the bytes every store sorts by.
  std::string_view key_bytes(size_t rank) const {
    return int_keys ? std::string_view(int_key_bytes).substr(rank * 8, 8)
                    : std::string_view(keys[rank]);
  }
  ShapeKey key(uint32_t rank) const { return {int_keys ? ints[rank] : 0, key_bytes(rank)}; }
};

// The shape, made on first use (names need /usr/share/unicode/UnicodeData.txt, words
// /usr/share/dict/words). `rows` is ignored for names and words.
const Shape& shape(ShapeKind kind, int64_t rows);

// 8 big-endian bytes of v with the sign bit flipped: memcmp order is numeric order.
std::string ordered_int64_bytes(int64_t v);
void store_ordered_int64(char out[8], int64_t v);  // the same bytes, written to out

}  // namespace drydb_bench
