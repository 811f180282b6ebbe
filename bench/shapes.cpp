#include "shapes.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <random>

#include "bench_common.h"

namespace drydb_bench {
namespace {

constexpr size_t kMisses = 1 << 16;
constexpr size_t kScans = 1 << 14;
constexpr size_t kCounts = 1 << 14;
constexpr std::string_view kUrlPrefix = "https://example.com/items/";  // 26 bytes

// SplitMix64: the fixed, well-mixed sequence behind every random key and query here.
struct SplitMix {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  uint64_t below(uint64_t n) { return next() % n; }
};

std::string hex16(uint64_t v) {
  static const char digits[] = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i, v >>= 4)
    s[i] = digits[v & 15];
  return s;
}

std::vector<int64_t> make_ints(ShapeKind kind, int64_t rows, SplitMix& rng) {
  std::vector<int64_t> v;
  v.reserve(static_cast<size_t>(rows));
  switch (kind) {
    case ShapeKind::dense:
      for (int64_t k = 0; k < rows; ++k)
        v.push_back(k);
      break;
    case ShapeKind::random:
      while (static_cast<int64_t>(v.size()) < rows) {
        while (static_cast<int64_t>(v.size()) < rows)
          v.push_back(static_cast<int64_t>(rng.next()));
        std::sort(v.begin(), v.end());
        v.erase(std::unique(v.begin(), v.end()), v.end());
      }
      break;
    case ShapeKind::clustered: {
      int64_t t = 1'700'000'000'000'000'000;  // late 2023, in nanoseconds
      while (static_cast<int64_t>(v.size()) < rows) {
        const int64_t burst = int64_t{1} << rng.below(12);  // 1 .. 2,048 keys
        for (int64_t i = 0; i < burst && static_cast<int64_t>(v.size()) < rows; ++i) {
          v.push_back(t);
          t += 1 + static_cast<int64_t>(rng.below(1000));  // 1 ns .. 1 us apart
        }
        // A gap of 1 us .. 90 s, log-uniform: 10^(3 + u * 7.95) ns.
        const double e = 3.0 + 7.95 * static_cast<double>(rng.below(1 << 20)) / (1 << 20);
        t += static_cast<int64_t>(std::pow(10.0, e));
      }
      break;
    }
    case ShapeKind::url:
    case ShapeKind::names:
    case ShapeKind::words:
      break;
  }
  return v;
}

// Every line of `path` that `keep` returns a key for, sorted and unique; at least `least` of them.
template <class Keep>
std::vector<std::string> keys_of_file(const char* path, const char* package, size_t least,
                                      Keep keep) {
  std::ifstream in(path);
  require(in.good(), std::string("cannot read (Debian: ") + package + ")", path);
  std::vector<std::string> v;
  for (std::string line; std::getline(in, line);)
    if (std::string key = keep(line); !key.empty()) v.push_back(std::move(key));
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  require(v.size() >= least, "too few keys in", path);
  return v;
}

std::vector<std::string> make_texts(ShapeKind kind, int64_t rows, SplitMix& rng) {
  std::vector<std::string> v;
  if (kind == ShapeKind::url) {
    while (static_cast<int64_t>(v.size()) < rows) {
      while (static_cast<int64_t>(v.size()) < rows)
        v.push_back(std::string(kUrlPrefix) + hex16(rng.next()));
      std::sort(v.begin(), v.end());
      v.erase(std::unique(v.begin(), v.end()), v.end());
    }
    return v;
  }
  if (kind == ShapeKind::words)  // one word a line
    return keys_of_file("/usr/share/dict/words", "wamerican", 100'000,
                        [](const std::string& line) { return line; });
  // names: field 2 of UnicodeData.txt, without the "<control>" and "<CJK Ideograph, First>"
  // placeholders.
  return keys_of_file("/usr/share/unicode/UnicodeData.txt", "unicode-data", 30'000,
                      [](const std::string& line) {
                        const size_t a = line.find(';');
                        const size_t b = a == std::string::npos ? a : line.find(';', a + 1);
                        if (b == std::string::npos || line[a + 1] == '<') return std::string();
                        return line.substr(a + 1, b - a - 1);
                      });
}

std::unique_ptr<Shape> make_shape(ShapeKind kind, int64_t rows) {
  auto s = std::make_unique<Shape>();
  s->kind = kind;
  s->int_keys = int_shape(kind);
  s->name = shape_name({kind, rows});
  SplitMix rng{0x5EED0000u + static_cast<uint64_t>(kind)};
  size_t rows_made = 0;
  if (s->int_keys) {
    s->ints = make_ints(kind, rows, rng);
    rows_made = s->ints.size();
    s->int_key_bytes.resize(rows_made * 8);
    for (size_t r = 0; r < rows_made; ++r)
      store_ordered_int64(&s->int_key_bytes[r * 8], s->ints[r]);
  } else {
    s->keys = make_texts(kind, rows, rng);
    rows_made = s->keys.size();
  }
  const auto n = static_cast<uint32_t>(rows_made);
  s->folds.resize(n);
  for (uint32_t r = 0; r < n; ++r) {
    const std::string v = value_of(r);
    s->folds[r] = shape_fold(v.data(), v.size());
    s->all_rows_sum += s->folds[r];
  }

  s->get_ranks.resize(n);
  std::iota(s->get_ranks.begin(), s->get_ranks.end(), 0u);
  std::mt19937_64 shuffle_rng(rng.next());
  if (n <= kMaxGetQueries) {
    std::shuffle(s->get_ranks.begin(), s->get_ranks.end(), shuffle_rng);
  } else {  // the first kMaxGetQueries of a shuffle: distinct ranks, each as likely
    for (size_t i = 0; i < kMaxGetQueries; ++i) {
      std::uniform_int_distribution<size_t> pick(i, n - 1);
      std::swap(s->get_ranks[i], s->get_ranks[pick(shuffle_rng)]);
    }
    s->get_ranks.resize(kMaxGetQueries);
    s->get_ranks.shrink_to_fit();
  }
  s->get_keys.assign(s->get_ranks.size(), [&](size_t q) { return s->key(s->get_ranks[q]); });

  // Misses, each checked absent.
  auto absent = [&](const std::string& k, int64_t x) {
    return s->int_keys ? !std::binary_search(s->ints.begin(), s->ints.end(), x)
                       : !std::binary_search(s->keys.begin(), s->keys.end(), k);
  };
  std::vector<int64_t> miss_ints;
  std::vector<std::string> miss_bytes;
  while (miss_bytes.size() < kMisses) {
    std::string k;
    int64_t x = 0;
    const uint32_t r = static_cast<uint32_t>(rng.below(n));
    switch (kind) {
      case ShapeKind::dense:  // outside the range, on either side
        x = rng.below(2) ? n + static_cast<int64_t>(r) : -1 - static_cast<int64_t>(r);
        break;
      case ShapeKind::random:  // between neighbours
      case ShapeKind::clustered:
        if (r + 1 >= n || s->ints[r + 1] - s->ints[r] < 2) continue;
        x = s->ints[r] + 1 +
            static_cast<int64_t>(rng.below(static_cast<uint64_t>(s->ints[r + 1] - s->ints[r] - 1)));
        break;
      case ShapeKind::url:
        k = std::string(kUrlPrefix) + hex16(rng.next());
        break;
      case ShapeKind::names:  // a present name or word with a character changed or added
      case ShapeKind::words: {
        k = s->keys[r];
        const char letter = kind == ShapeKind::names ? 'A' : 'a';
        if (rng.below(2))
          k += kind == ShapeKind::names ? ' ' : 's';
        else
          k[rng.below(k.size())] = static_cast<char>(letter + rng.below(26));
        break;
      }
    }
    if (s->int_keys) k = ordered_int64_bytes(x);
    if (!absent(k, x)) continue;
    miss_bytes.push_back(std::move(k));
    miss_ints.push_back(x);
  }
  s->miss_keys.assign(miss_bytes.size(), [&](size_t q) {
    return ShapeKey{miss_ints[q], miss_bytes[q]};
  });

  const uint32_t scan_span = n > kShapeScanRows ? n - kShapeScanRows : 1;
  for (size_t i = 0; i < kScans; ++i) {
    const auto r = static_cast<uint32_t>(rng.below(scan_span));
    uint64_t sum = 0;
    for (uint32_t j = r; j < r + kShapeScanRows && j < n; ++j)
      sum += s->folds[j];
    s->scan_ranks.push_back(r);
    s->scan_sums.push_back(sum);
  }
  const uint32_t count_span = n > kShapeCountRows ? n - static_cast<uint32_t>(kShapeCountRows) : 1;
  for (size_t i = 0; i < kCounts; ++i)
    s->count_ranks.push_back(static_cast<uint32_t>(rng.below(count_span)));
  return s;
}

}  // namespace

void store_ordered_int64(char out[8], int64_t v) {
  store_be64(out, static_cast<int64_t>(static_cast<uint64_t>(v) ^ (uint64_t{1} << 63)));
}

std::string ordered_int64_bytes(int64_t v) {
  std::string out(8, '\0');
  store_ordered_int64(out.data(), v);
  return out;
}

const Shape& shape(ShapeKind kind, int64_t rows) {
  static std::mutex mu;
  static std::map<std::pair<int, int64_t>, std::unique_ptr<Shape>> made;
  std::lock_guard lock(mu);
  auto& s = made[{static_cast<int>(kind), file_shape(kind) ? 0 : rows}];
  if (!s) s = make_shape(kind, rows);
  return *s;
}

std::string shape_name(ShapeSize size) {
  static const char* const names[] = {"dense", "random", "clustered", "url", "names", "words"};
  std::string name = names[static_cast<int>(size.kind)];
  if (file_shape(size.kind)) return name;
  if (size.rows == kRows100M) return name + "_100M";
  if (size.rows == kRows16M) return name + "_16M";
  if (size.rows == kRows1M) return name + "_1M";
  return name + "_" + std::to_string(size.rows);
}

std::vector<ShapeSize> suite_shapes() {
  return {{ShapeKind::dense, kRows1M},     {ShapeKind::random, kRows1M},
          {ShapeKind::clustered, kRows1M}, {ShapeKind::url, kRows1M},
          {ShapeKind::names, 0},           {ShapeKind::words, 0},
          {ShapeKind::dense, kRows16M},    {ShapeKind::random, kRows16M},
          {ShapeKind::clustered, kRows16M}};
}

std::vector<ShapeSize> large_shapes() {
  return {{ShapeKind::dense, kRows100M},
          {ShapeKind::random, kRows100M},
          {ShapeKind::clustered, kRows100M}};
}

}  // namespace drydb_bench
