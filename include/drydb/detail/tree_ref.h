// A tree of the file resolved for reading (TreeRef), what descents keep of
// it (RootHint: its root, and its descent index once built), and the internal page a page was
// reached from (ParentRef): the read path's view of a tree, and all that page checks
// (src/format/page_check.h) need of it, without the database's state.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "drydb/detail/catalog.h"
#include "drydb/detail/descent_index.h"
#include "drydb/detail/node.h"
#include "drydb/key_encoding.h"
#include "drydb/result.h"

namespace drydb::detail {

// The root page of a prefix-key tree (fixed key widths up to 8), decoded for
// every descent by key (descent.h): where its arrays are, its first and last
// separators, and the interpolation's scale, (separators - 1) / (last -
// first) (times 2^shift), so that choosing a child multiplies instead of
// dividing and reads no page header. Filled by the first descent that finds the root resident,
// verified and permanent (a mapped page, or an internal page of the cache:
// its address holds for the database's life). Of racing first descents, the
// one that claims the hint (kEmpty -> kFilling) fills it and publishes it
// with a release store (kReady); the others go on without it meanwhile.
// Line-aligned: leaf_record_size, which gets may write, shares no line with
// another tree's hint.
struct alignas(64) RootHint {
  static constexpr int kEmpty = 0, kFilling = 1, kReady = 2, kUnused = 3;
  std::atomic<int> state{kEmpty};
  const std::byte* page = nullptr;      // the root page
  const std::byte* prefixes = nullptr;  // separators' prefixes
  const std::byte* children = nullptr;
  const std::byte* counts = nullptr;  // cumulative rows
  uint64_t first = 0, last = 0;       // the first and last separator
  uint32_t separators = 0;            // at least 2 when ready
  uint32_t shift = 0;  // 1 when last - first needs 64 bits: offsets are halved, scale doubled
  double scale = 0;
  // The record size (key part and value) of the uniform leaf a point lookup
  // last found its key in, or 0 before one did: where a descent guesses the
  // value of its next leaf lies, to prefetch it with the leaf's first lines.
  // Any tree's, whatever `state`; written only when it changes, so a steady
  // stream of reads leaves the line shared.
  std::atomic<uint32_t> leaf_record_size{0};
  // The tree's DescentIndex (descent_index.h), once built: nullptr before,
  // and for good where it cannot be (a tree that is not TreeRef::indexable,
  // or whose pages fail their checks or are not permanent, or memory
  // refused). The one descent that claims the build (index_state kEmpty ->
  // kFilling) fills index_storage and publishes it here with a release store.
  std::atomic<const DescentIndex*> index{nullptr};
  std::atomic<int> index_state{kEmpty};
  std::unique_ptr<DescentIndex> index_storage;
  // Descents of an indexable tree (TreeRef::indexable) left before its
  // index is built (0: never), set at open and counted down by plain loads
  // and stores, not read-modify-writes: a count lost between threads only
  // delays the build.
  // On a line of its own, so that the counting leaves the lines above shared.
  alignas(64) std::atomic<uint64_t> index_countdown{0};
};

// The size of a tree from which on its descents prefetch leaf lines
// (TreeRef::prefetch_leaves): about a core's L2 cache.
inline constexpr uint64_t kPrefetchTreeBytes = uint64_t{2} << 20;

// A KeyKind value that no key has.
inline constexpr KeyKind kNoKeyKind = static_cast<KeyKind>(0xFF);

// A tree resolved for reading.
struct TreeRef {
  const TreeDesc* desc;
  KeyEncoding encoding;
  KeyKind kind;  // encoding.kind(), kept here for the read path's inline check
  KeyLayout layout;
  std::string label;  // "table 'items'" or "index 'x' of table 'items'", for messages
  // Index trees: the tree of the table whose rows the entries refer to.
  const TreeRef* primary = nullptr;
  std::string_view name;  // the table's or the index's name
  // What descents keep of the tree as they go (see RootHint): for prefix-key
  // trees of depth 2 or more what every descent reads first in the root page,
  // once the root is resident; for every tree the record size guess. Owned
  // by the DatabaseState.
  RootHint* root_hint = nullptr;
  // A primary tree's miss filter (miss_filter.h), or nullptr.
  const MissFilterDesc* miss_filter = nullptr;
  // `kind` when the tree has rows and no miss filter, so that get() may go
  // straight to its descent for a key of this kind; else kNoKeyKind, which
  // no key has.
  KeyKind plain_get_kind = kNoKeyKind;
  // Whether a descent prefetches the lines a leaf's search will read from
  // what the leaf's parent knows (Search::prefetch_child): set when the
  // tree's leaf and internal pages take more than kPrefetchTreeBytes, which a
  // core's caches do not keep. In a smaller tree the prefetches would cost instructions and save
  // no cache miss.
  bool prefetch_leaves = false;
  // Whether the tree may get a descent index (descent_index.h: prefix keys,
  // kIndexMinDepth levels or more), so that a get in any other tree checks
  // for none and counts nothing toward one.
  bool indexable = false;
  // Whether a run's checksum is seeded with its first page too (format 2.5, overflow::run_seed).
  // Beside the flags above, in their padding: the struct keeps the size and offsets it had.
  bool placed_runs = false;
  // A primary tree's column list (TableBuilder::set_columns), or nullptr.
  const ColumnList* columns = nullptr;
  // The seed of the checksums of the tree's pages and runs: the file's identity (format 2.4),
  // or 0.
  uint64_t checksum_seed = 0;
};

// The internal page a descent reached a page from (nullptr: none, the root or a page not
// reached by a descent), and which of its children the page is: a page first loaded (or first
// touched, mapped) through it is checked against the separators its parent gives it
// (check_child_fences). Passed by value, so that a resident page's fetch keeps it in registers.
struct ParentRef {
  const std::byte* page = nullptr;
  uint32_t child = 0;
};

// errc::corruption: "<tree label>, page <n>: <what>". Out of line: a cold path.
Error corruption_at(const TreeRef& tree, uint64_t page, const char* what);
}  // namespace drydb::detail
