// Models of a get on int64 keys in memory, one per page layout, beside drydb's own get and the
// suite's anchor, std::lower_bound over the sorted keys (both through shape_readers.h, as
// drydb_bench asks them): the limit each layout has on this machine, measured before a file
// format is written for it, and how far drydb's get is from its own layout's. Every model holds
// the shape's rows in 4 KiB pages, as many to a leaf as a drydb file of the shape puts there
// (8-byte keys, 13-byte values), and answers the shape's gets; each checksum must equal the
// vector's.
//
//   drydb        a get on the shape's drydb file (4 KiB pages, mapped), built at start
//   tree         drydb's layout as its descent index reads it (detail/descent_index.h):
//                internal pages of up to 170 children, of which a descent reads only the
//                separators, above leaves whose big-endian keys sit apart from their values,
//                searched by drydb's own in-page searches (prefix_search.h), the lines around
//                the leaf's interpolated slot and its record prefetched, as a descent does
//   directory    an S+ tree of the leaves' first keys (8 keys to a cache line, 9 children to a
//                node), then the same leaf
//   interleaved  the directory, over leaves whose records hold a key and its value together:
//                a search's last line holds the value too
//   first line   the directory, then one load of the leaf's first line: a cache miss per get
//                and no load that depends on it, the floor of any layout that reads a page
//
//   drydb_layout_models SHAPE [ROUNDS [GETS]]
//   e.g. drydb_layout_models random_1M 15   (SHAPE: dense, random or clustered, 1M or 16M)
// Each round times every model and the vector over GETS gets (1,000,000) in turn, so that this
// machine's drift falls on all alike, and prints per model the median time of a get and the
// median of its speed against the vector's in the same round. Each model runs in a function of
// its own (model_tree, model_directory, ...), for callgrind:
//   valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*model_tree*'
//     build/bench/bench/drydb_layout_models random_1M 1 100000
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "bench_common.h"
#include "drydb/detail/format.h"
#include "drydb/detail/prefix_search.h"
#include "shape_readers.h"
#include "shapes.h"

namespace drydb_bench {
namespace {

using drydb::detail::load_be64;
using drydb::detail::store_be64;

constexpr size_t kPage = 4096;
constexpr size_t kValueSize = 13;  // value_of(r)
constexpr uint32_t kLeafRows =
    (kPage - drydb::detail::leaf::kHeaderSize) / (8 + kValueSize);  // prefix and record
constexpr uint32_t kFanout = (kPage - drydb::detail::internal::kHeaderSize + 8) / 24;
// A directory node: one cache line. Nodes of 16 keys (two lines, half the layers) took 1.4x the
// time of a get here: without AVX2, 16 comparisons cost more than the layer they save.
constexpr size_t kNodeKeys = 8;

// An int64 key as an unsigned number in the same order.
uint64_t ordered(int64_t k) {
  return static_cast<uint64_t>(k) ^ (uint64_t{1} << 63);
}

struct alignas(kPage) Page {
  std::byte bytes[kPage];
};

// The shape's rows in leaves of kLeafRows, in drydb's leaf layout (big-endian keys after the
// header, then the values) and in the interleaved one (key and value together), with what the
// models' upper levels are built from.
struct Leaves {
  std::vector<Page> apart, together;
  std::vector<uint64_t> first, last;  // each leaf's first and last key
  std::vector<uint32_t> rows;

  explicit Leaves(const Shape& s) {
    const size_t n = s.ints.size();
    const size_t count = (n + kLeafRows - 1) / kLeafRows;
    apart.resize(count);
    together.resize(count);
    for (size_t leaf = 0; leaf < count; ++leaf) {
      const size_t begin = leaf * kLeafRows, m = std::min<size_t>(kLeafRows, n - begin);
      std::byte* a = apart[leaf].bytes + drydb::detail::leaf::kHeaderSize;
      std::byte* t = together[leaf].bytes + drydb::detail::leaf::kHeaderSize;
      for (size_t i = 0; i < m; ++i) {
        const uint64_t k = ordered(s.ints[begin + i]);
        const std::string v = value_of(static_cast<int64_t>(begin + i));
        store_be64(a + 8 * i, k);
        std::memcpy(a + 8 * m + kValueSize * i, v.data(), kValueSize);
        std::memcpy(t + (8 + kValueSize) * i, &k, 8);
        std::memcpy(t + (8 + kValueSize) * i + 8, v.data(), kValueSize);
      }
      first.push_back(ordered(s.ints[begin]));
      last.push_back(ordered(s.ints[begin + m - 1]));
      rows.push_back(static_cast<uint32_t>(m));
    }
  }
};

// drydb's internal levels: pages of up to kFanout children, each page's separators (the first
// key of every child but its first) as big-endian prefixes; levels.back() is the root.
struct InternalLevels {
  struct Node {
    std::vector<std::byte> separators;
    size_t first_child;
    uint32_t children;
  };
  std::vector<std::vector<Node>> levels;

  explicit InternalLevels(const std::vector<uint64_t>& leaf_first) {
    std::vector<uint64_t> firsts = leaf_first;  // of the level below
    do {
      std::vector<Node> level;
      std::vector<uint64_t> up;
      for (size_t c = 0; c < firsts.size(); c += kFanout) {
        const uint32_t m = static_cast<uint32_t>(std::min<size_t>(kFanout, firsts.size() - c));
        Node node{std::vector<std::byte>(8 * m), c, m};
        for (uint32_t i = 1; i < m; ++i)
          store_be64(node.separators.data() + 8 * (i - 1), firsts[c + i]);
        level.push_back(std::move(node));
        up.push_back(firsts[c]);
      }
      levels.push_back(std::move(level));
      firsts = std::move(up);
    } while (firsts.size() > 1);
  }

  // The position of the leaf holding x.
  size_t leaf(uint64_t x) const {
    size_t at = 0;  // node within its level
    for (size_t l = levels.size(); l-- > 0;) {
      const Node& node = levels[l][at];
      at = node.first_child +
           drydb::detail::unique_prefix_upper_bound(node.separators.data(), node.children - 1, x);
    }
    return at;
  }
};

// An S+ tree of the leaves' first keys but the first: nodes of kNodeKeys keys in one cache line,
// node j of a layer above the children j * (kNodeKeys + 1) + i of the layer below, key i of it
// the least key under child i + 1; the bottom layer is the keys themselves, padded. leaf(x) counts
// the keys <= x along one path, a line per layer, without a branch.
class Directory {
 public:
  explicit Directory(const std::vector<uint64_t>& leaf_first) {
    std::vector<uint64_t> bottom(leaf_first.begin() + 1, leaf_first.end());
    for (uint64_t k : bottom)
      if (k == kPad) std::abort();  // would count as padding
    bottom.resize((bottom.size() + kNodeKeys - 1) / kNodeKeys * kNodeKeys, kPad);
    // least[c]: the least key under node c of the layer last made.
    std::vector<uint64_t> least;
    for (size_t c = 0; c < bottom.size(); c += kNodeKeys)
      least.push_back(bottom[c]);
    std::vector<std::vector<uint64_t>> layers{std::move(bottom)};
    while (layers.back().size() > kNodeKeys) {
      const size_t nodes = least.size();
      const size_t up_nodes = (nodes + kNodeKeys) / (kNodeKeys + 1);
      std::vector<uint64_t> up(up_nodes * kNodeKeys, kPad), up_least(up_nodes);
      for (size_t j = 0; j < up_nodes; ++j) {
        up_least[j] = least[j * (kNodeKeys + 1)];
        for (size_t i = 0; i < kNodeKeys; ++i)
          if (const size_t c = j * (kNodeKeys + 1) + i + 1; c < nodes)
            up[j * kNodeKeys + i] = least[c];
      }
      layers.push_back(std::move(up));
      least = std::move(up_least);
    }
    for (size_t l = layers.size(); l-- > 0;) {
      offsets_.push_back(nodes_.size());
      for (size_t at = 0; at < layers[l].size(); at += kNodeKeys) {
        Node node;
        std::copy_n(layers[l].begin() + at, kNodeKeys, node.keys);
        nodes_.push_back(node);
      }
    }
  }
  size_t bytes() const { return nodes_.size() * sizeof(Node); }

  size_t leaf(uint64_t x) const {
    size_t node = 0;
    const size_t top = offsets_.size() - 1;
    for (size_t l = 0;; ++l) {
      const uint64_t* keys = nodes_[offsets_[l] + node].keys;
      size_t below = 0;
      for (size_t i = 0; i < kNodeKeys; ++i)
        below += keys[i] <= x;
      if (l == top) return node * kNodeKeys + below;
      node = node * (kNodeKeys + 1) + below;
    }
  }

 private:
  struct alignas(64) Node {
    uint64_t keys[kNodeKeys];
  };
  static constexpr uint64_t kPad = ~uint64_t{0};
  std::vector<Node> nodes_;
  std::vector<size_t> offsets_;  // each layer's first node, the root's first
};

// The shape's rows in a drydb file of 4 KiB pages in the scratch folder, opened.
drydb::ReadOnlyDatabase open_shape_file(const Shape& s) {
  const auto path = scratch_dir() / "layout_models.drydb";
  drydb::DatabaseBuilder builder({.page_size = kPage});
  append_shape_rows(builder.create_table("items", shape_key_encoding(s)), s);
  auto built = builder.build_to_file(path);
  require(built.has_value(), "drydb build", built ? "" : built.error().message);
  auto db = drydb::ReadOnlyDatabase::open(path);
  require(db.has_value(), "drydb open", db ? "" : db.error().message);
  return std::move(*db);
}

struct Models {
  const Shape& shape;
  drydb::ReadOnlyDatabase db;
  DrydbShapeQueries drydb;
  VectorShapeQueries vector;
  Leaves leaves;
  InternalLevels internal;
  Directory directory;

  explicit Models(const Shape& s)
      : shape(s),
        db(open_shape_file(s)),
        drydb(s, db.table("items").value()),
        vector(s),
        leaves(s),
        internal(leaves.first),
        directory(leaves.first) {}

  // The slot of x in drydb's leaf `leaf` (its search, unique_prefix_find), its value folded;
  // first the lines a descent prefetches from the leaf's parent.
  uint64_t apart_get(size_t leaf, uint64_t x) const {
    const std::byte* p = leaves.apart[leaf].bytes;
    const uint32_t m = leaves.rows[leaf];
    const uint64_t lo = leaves.first[leaf], hi = leaves.last[leaf];
    if (hi > lo) {
      const auto guess =
          std::min(static_cast<uint32_t>(drydb::detail::fraction_of(x - lo, hi - lo) * m), m - 1);
      const size_t at = drydb::detail::leaf::kHeaderSize + 8 * guess;
      const size_t rec = drydb::detail::leaf::kHeaderSize + 8 * m + kValueSize * guess;
      for (size_t line : {at - 64, at, at + 64, rec - 64, rec, rec + 64})
        if (line < kPage) __builtin_prefetch(p + line);
    }
    bool found;
    const std::byte* prefixes = p + drydb::detail::leaf::kHeaderSize;
    const uint32_t i = drydb::detail::unique_prefix_find(prefixes, m, x, &found);
    return found ? shape_fold(prefixes + 8 * m + kValueSize * i, kValueSize) : 0;
  }

  // The slot of x in an interleaved leaf: interpolated between the leaf's first and last key,
  // then walked to.
  uint64_t together_get(size_t leaf, uint64_t x) const {
    const std::byte* records = leaves.together[leaf].bytes + drydb::detail::leaf::kHeaderSize;
    const uint32_t m = leaves.rows[leaf];
    const uint64_t lo = leaves.first[leaf], hi = leaves.last[leaf];
    uint32_t i = 0;
    if (hi > lo)
      i = std::min(
          static_cast<uint32_t>(drydb::detail::fraction_of(x - lo, hi - lo) * (m - 1) + 0.5),
          m - 1);
    auto key = [&](uint32_t j) {
      uint64_t k;
      std::memcpy(&k, records + (8 + kValueSize) * j, 8);
      return k;
    };
    while (i > 0 && key(i) > x)
      --i;
    while (i + 1 < m && key(i) < x)
      ++i;
    return key(i) == x ? shape_fold(records + (8 + kValueSize) * i + 8, kValueSize) : 0;
  }
};

// One model: `gets` gets from query `*at` on, walking the shape's get keys round and round.
// Each is a function of its own, never inlined, for callgrind's --toggle-collect.
#define DRYDB_MODEL(name, expr)                                                       \
  [[gnu::noinline]] uint64_t model_##name(const Models& m, size_t gets, size_t* at) { \
    const QueryKeys& q = m.shape.get_keys;                                            \
    uint64_t sum = 0;                                                                 \
    size_t p = *at;                                                                   \
    for (size_t g = 0; g < gets; ++g, p = p + 1 == q.size() ? 0 : p + 1) {            \
      [[maybe_unused]] const ShapeKey& key = q[p];                                    \
      [[maybe_unused]] const uint64_t x = ordered(key.i);                             \
      sum += (expr);                                                                  \
    }                                                                                 \
    *at = p;                                                                          \
    return sum;                                                                       \
  }

DRYDB_MODEL(vector, m.vector.get(key))
DRYDB_MODEL(drydb, m.drydb.get(key))
DRYDB_MODEL(tree, m.apart_get(m.internal.leaf(x), x))
DRYDB_MODEL(directory, m.apart_get(m.directory.leaf(x), x))
DRYDB_MODEL(interleaved, m.together_get(m.directory.leaf(x), x))
// Not a get: a checksum of its own, not checked.
DRYDB_MODEL(first_line,
            load_be64(m.leaves.apart[m.directory.leaf(x)].bytes + drydb::detail::leaf::kHeaderSize))
#undef DRYDB_MODEL

struct Model {
  const char* name;
  uint64_t (*run)(const Models&, size_t, size_t*);
  bool checked;
};
constexpr Model kModels[] = {{"vector", model_vector, true},
                             {"drydb", model_drydb, true},
                             {"tree", model_tree, true},
                             {"directory", model_directory, true},
                             {"interleaved", model_interleaved, true},
                             {"first line", model_first_line, false}};
constexpr size_t kModelCount = sizeof(kModels) / sizeof(kModels[0]);

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int run(const char* shape_arg, int rounds, size_t gets) {
  const ShapeSize* size = nullptr;
  const std::vector<ShapeSize> sizes = suite_shapes();
  for (const ShapeSize& s : sizes)
    if (int_shape(s.kind) && shape_name(s) == shape_arg) size = &s;
  if (size == nullptr) {
    std::fprintf(stderr, "unknown integer shape '%s'\n", shape_arg);
    return 2;
  }
  const Models models(shape(size->kind, size->rows));
  std::printf("%s: %lld rows, %u to a leaf, %zu leaves; directory %zu KiB, tree depth %zu\n",
              shape_arg, static_cast<long long>(models.shape.rows()), kLeafRows,
              models.leaves.rows.size(), models.directory.bytes() / 1024,
              models.internal.levels.size() + 1);
  std::vector<double> ns[kModelCount], speed[kModelCount];
  for (int round = 0; round < rounds; ++round) {
    uint64_t expected = 0;
    for (size_t i = 0; i < kModelCount; ++i) {
      size_t at = 0;  // every model answers the same gets
      kModels[i].run(models, std::min<size_t>(gets, 100'000), &at);  // warms the caches
      at = 0;
      const auto start = std::chrono::steady_clock::now();
      const uint64_t sum = kModels[i].run(models, gets, &at);
      const std::chrono::duration<double, std::nano> took =
          std::chrono::steady_clock::now() - start;
      if (i == 0) expected = sum;
      if (kModels[i].checked && sum != expected) {
        std::fprintf(stderr, "%s: checksum %llu, the vector's %llu\n", kModels[i].name,
                     static_cast<unsigned long long>(sum),
                     static_cast<unsigned long long>(expected));
        return 1;
      }
      ns[i].push_back(took.count() / static_cast<double>(gets));
      speed[i].push_back(ns[0].back() / ns[i].back());
    }
  }
  for (size_t i = 0; i < kModelCount; ++i)
    std::printf("%-12s %7.1f ns a get   %5.2fx the vector's speed\n", kModels[i].name,
                median(ns[i]), median(speed[i]));
  cleanup();
  return 0;
}

}  // namespace
}  // namespace drydb_bench

int main(int argc, char** argv) {
  if (argc < 2 || argc > 4) {
    std::fprintf(stderr, "usage: %s SHAPE [ROUNDS [GETS]]\n", argv[0]);
    return 2;
  }
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 15;
  const long gets = argc > 3 ? std::atol(argv[3]) : 1'000'000;
  if (rounds < 1 || gets < 1) {
    std::fprintf(stderr, "ROUNDS and GETS must be positive\n");
    return 2;
  }
  return drydb_bench::run(argv[1], rounds, static_cast<size_t>(gets));
}
