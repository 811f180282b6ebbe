// build_descent_index (drydb/detail/descent_index.h): a tree's internal
// pages, read level by level from the root, into its DescentIndex.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <new>

#include "drydb/detail/db_state.h"
#include "drydb/detail/descent_index.h"

namespace drydb::detail {
namespace {

// A page to read: an internal page, reached as child `child` of `parent` (nullptr: the root).
struct PendingPage {
  uint64_t page;
  const std::byte* parent;
  uint32_t child;
};

// The index of `tree`, or nullptr where it cannot be made: a page fails its checks or is not
// permanent, the pages do not add up to the tree's page counts, or memory is refused.
std::unique_ptr<DescentIndex> read_index(const DatabaseState& db, const TreeRef& tree) noexcept {
  const TreeDesc& d = *tree.desc;
  const uint64_t internal_pages = d.internal_pages, leaf_pages = d.leaf_pages;
  if (d.depth < kIndexMinDepth || internal_pages == 0 || internal_pages >= UINT32_MAX ||
      leaf_pages >= UINT32_MAX || d.rows == 0)
    return nullptr;
  // Nodes in the order the pages are read, breadth first: each level in key order, so that a
  // node's children are consecutive in the level below.
  std::unique_ptr<PendingPage[]> pending(new (std::nothrow) PendingPage[internal_pages]);
  std::unique_ptr<DescentIndex::Node[]> nodes(new (std::nothrow)
                                                  DescentIndex::Node[internal_pages]);
  std::unique_ptr<uint64_t[]> leaves(new (std::nothrow) uint64_t[leaf_pages]);
  if (!pending || !nodes || !leaves) return nullptr;
  pending[0] = {d.root, nullptr, 0};
  uint32_t queued = 1, leaf_count = 0;
  uint32_t level_end = 1;  // nodes [read, level_end) are of level `level`
  uint32_t level = d.depth - 1;
  ErrorOut err;
  for (uint32_t read = 0; read < queued; ++read) {
    if (read == level_end) {
      level_end = queued;
      --level;
    }
    const PendingPage at = pending[read];
    PageSlot* pin;
    const std::byte* p =
        db.fetch(tree, at.page, PageType::internal, level, &pin, &err, {at.parent, at.child});
    if (p == nullptr) return nullptr;  // a descent reaching the page reports it
    unpin(pin);
    if (pin != nullptr) return nullptr;  // not permanent: its address may not last
    const uint32_t n = load_u16(p + page::kCountOff);
    const bool leaves_below = level == 1;
    if (n == 0 || (leaves_below ? leaf_pages - leaf_count : internal_pages - queued) < n)
      return nullptr;
    nodes[read] = {p + internal::prefixes_off(n), n - 1, leaves_below ? leaf_count : queued};
    for (uint32_t c = 0; c < n; ++c) {
      const uint64_t child = load_u64(p + internal::children_off() + 8 * size_t{c});
      if (leaves_below)
        leaves[leaf_count++] = child;
      else
        pending[queued++] = {child, p, c};
    }
  }
  if (level != 1 || queued != internal_pages || leaf_count != leaf_pages) return nullptr;
  const auto rows_per_leaf =
      static_cast<uint32_t>(std::min<uint64_t>(d.rows / leaf_pages, db.page_size()));
  return std::unique_ptr<DescentIndex>(new (std::nothrow) DescentIndex(
      std::move(nodes), queued, std::move(leaves), leaf_count, d.depth - 1, rows_per_leaf));
}

}  // namespace

void build_descent_index(const DatabaseState& db, const TreeRef& tree) noexcept {
  RootHint& h = *tree.root_hint;
  int expected = RootHint::kEmpty;
  if (!h.index_state.compare_exchange_strong(expected, RootHint::kFilling,
                                             std::memory_order_relaxed))
    return;
  h.index_countdown.store(0, std::memory_order_relaxed);
  h.index_storage = read_index(db, tree);
  if (h.index_storage == nullptr) {
    h.index_state.store(RootHint::kUnused, std::memory_order_relaxed);
    return;
  }
  h.index.store(h.index_storage.get(), std::memory_order_release);
  h.index_state.store(RootHint::kReady, std::memory_order_relaxed);
}

}  // namespace drydb::detail
