// ReadOnlyDatabase::verify: every page and every tree invariant.
#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

#include "drydb/cursor.h"
#include "drydb/database.h"
#include "drydb/detail/coding.h"
#include "drydb/detail/descent.h"
#include "drydb/detail/index_coding.h"
#include "drydb/detail/lookup.h"
#include "drydb/detail/node.h"
#include "drydb/detail/page_access.h"
#include "format/column_row.h"

namespace drydb {
namespace {

using detail::ByteView;
using detail::PageSlot;
using detail::PageType;

// A primary tree's leaves: page -> (rank of its first row, rows), so index
// entries can be checked against the rows they refer to.
struct LeafInfo {
  uint64_t first_rank;
  uint32_t rows;
};
using LeafMap = std::unordered_map<uint64_t, LeafInfo>;

class TreeVerifier {
 public:
  // For a primary tree, fills *leaves; for an index tree, checks every entry
  // against the primary tree's *leaves.
  TreeVerifier(const detail::DatabaseState& db, const detail::TreeRef& tree, LeafMap* leaves)
      : db_(db), tree_(tree), d_(*tree.desc), leaves_map_(leaves) {}

  status run() {
    if (d_.rows == 0) {
      if (d_.end_page != d_.first_page) return bad(d_.first_page, "an empty tree owns pages");
      return {};
    }
    uint64_t rows = 0;
    DRYDB_TRY(visit(d_.root, d_.depth - 1, ByteView(), ByteView(), false, false, &rows));
    if (rows != d_.rows)
      return bad(d_.root, "the tree holds " + std::to_string(rows) +
                              " rows; its catalog entry says " + std::to_string(d_.rows));
    if (last_leaf_next_ != 0) return bad(last_leaf_, "the last leaf has a next sibling");
    if (leaves_ != d_.leaf_pages || internals_ != d_.internal_pages ||
        overflow_pages_ != d_.overflow_pages)
      return bad(d_.root, "page counts differ from the catalog's");
    // Every page of the tree's range was reached exactly once.
    if (leaves_ + internals_ + overflow_pages_ != d_.end_page - d_.first_page)
      return bad(d_.first_page, "the tree's pages are not all reachable");
    // A miss filter's pages, each checked when read (a page no key tests
    // would be missed by the leaf walk).
    if (tree_.miss_filter != nullptr) {
      const detail::MissFilterDesc& f = *tree_.miss_filter;
      for (uint64_t page = f.first_page; page < f.first_page + f.pages; ++page) {
        PageSlot* pin;
        detail::ErrorOut err;
        if (db_.fetch(tree_, page, PageType::miss_filter, 0, &pin, &err) == nullptr)
          return std::move(*err);
        detail::unpin(pin);
      }
    }
    return {};
  }

 private:
  Error bad(uint64_t page, const std::string& why) const {
    return Error(errc::corruption, tree_.label + ", page " + std::to_string(page) + ": " + why);
  }

  status mark(uint64_t page, uint64_t count) {
    if (seen_.empty()) seen_.assign(d_.end_page - d_.first_page, false);
    for (uint64_t p = page; p < page + count; ++p) {
      if (seen_[p - d_.first_page]) return bad(p, "reached twice");
      seen_[p - d_.first_page] = true;
    }
    return {};
  }

  // Visits the subtree at `page` (height `level`, 0 = leaf) whose keys must be
  // >= low (if has_low) and < high (if has_high); adds its rows to *rows.
  status visit(uint64_t page, uint32_t level, ByteView low, ByteView high, bool has_low,
               bool has_high, uint64_t* rows) {
    PageSlot* pin;
    detail::ErrorOut err;
    const std::byte* p =
        db_.fetch(tree_, page, level == 0 ? PageType::leaf : PageType::internal, level, &pin, &err);
    if (p == nullptr) return std::move(*err);
    struct Unpin {
      PageSlot* pin;
      ~Unpin() { detail::unpin(pin); }
    } unpin_guard{pin};
    DRYDB_TRY(mark(page, 1));
    if (level == 0) {
      detail::LeafView leaf(p, tree_.layout);
      const uint32_t n = leaf.size();
      detail::KeyBuffer first_buf, last_buf;
      const ByteView first = leaf.key(0, first_buf), last = leaf.key(n - 1, last_buf);
      if (has_low && detail::compare_bytes(first, low) < 0)
        return bad(page, "a key is below its separator");
      if (has_high && detail::compare_bytes(last, high) >= 0)
        return bad(page, "a key is not below the next separator");
      if (have_last_key_ && detail::compare_bytes(last_key_, first) >= 0)
        return bad(page, "keys are out of order across leaves");
      const uint64_t prev = detail::load_u64(p + detail::leaf::kPrevOff);
      if (prev != last_leaf_) return bad(page, "its previous-sibling link is wrong");
      if (last_leaf_ != 0 && last_leaf_next_ != page)
        return bad(last_leaf_, "its next-sibling link is wrong");
      last_leaf_ = page;
      last_leaf_next_ = detail::load_u64(p + detail::leaf::kNextOff);
      last_key_.assign(last.begin(), last.end());
      have_last_key_ = true;
      ++leaves_;
      if (tree_.primary == nullptr)
        (*leaves_map_)[page] = LeafInfo{rows_before_, n};
      else
        DRYDB_TRY(check_index_entries(page, leaf));
      if (tree_.miss_filter != nullptr) DRYDB_TRY(check_miss_filter(page, leaf));
      rows_before_ += n;
      for (uint32_t i = 0; i < n; ++i) {
        if (!leaf.is_overflow(i)) continue;
        ByteView field = leaf.value_field(i);
        const uint64_t run = detail::load_u64(field.data());
        PageSlot* run_pin;
        const std::byte* r = db_.fetch(tree_, run, PageType::overflow, 0, &run_pin, &err);
        if (r == nullptr) return std::move(*err);
        const uint32_t length = detail::load_u32(r + detail::overflow::kLengthOff);
        const uint64_t pages = detail::overflow::pages_for(length, db_.page_size());
        // The padding after the value to the end of the run's last page, which no checksum
        // covers: zero, as the format says.
        const bool zeros =
            std::all_of(r + detail::overflow::kHeaderSize + length, r + pages * db_.page_size(),
                        [](std::byte b) { return b == std::byte{0}; });
        detail::unpin(run_pin);
        if (length != detail::load_u32(field.data() + 8))
          return bad(run, "overflow run length differs from its reference");
        if (!zeros) return bad(run, "overflow run padding is not zero");
        DRYDB_TRY(mark(run, pages));
        overflow_pages_ += pages;
      }
      *rows += n;
      return {};
    }
    detail::InternalView node(p, tree_.layout);
    ++internals_;
    const uint32_t n = node.size();
    if (page == d_.root && n < 2) return bad(page, "an internal root with one child");
    // Copy the separators: the page may be released while children are visited.
    std::vector<std::string> seps;
    detail::KeyBuffer buf;
    for (uint32_t s = 0; s + 1 < n; ++s) {
      auto sep = node.separator(s, buf);
      seps.emplace_back(reinterpret_cast<const char*>(sep.data()), sep.size());
    }
    if (has_low && n > 1 && detail::compare_bytes(std::as_bytes(std::span(seps[0])), low) <= 0)
      return bad(page, "a separator is not above its lower fence");
    std::vector<uint64_t> children, counts;
    for (uint32_t i = 0; i < n; ++i) {
      children.push_back(node.child(i));
      counts.push_back(node.cumulative(i) - node.rows_before(i));
    }
    for (uint32_t i = 0; i < n; ++i) {
      auto as_view = [&](const std::string& s) { return std::as_bytes(std::span(s)); };
      ByteView lo = i == 0 ? low : as_view(seps[i - 1]);
      ByteView hi = i + 1 == n ? high : as_view(seps[i]);
      uint64_t child_rows = 0;
      DRYDB_TRY(visit(children[i], level - 1, lo, hi, i == 0 ? has_low : true,
                      i + 1 == n ? has_high : true, &child_rows));
      if (child_rows != counts[i])
        return bad(page, "child " + std::to_string(i) + " holds " + std::to_string(child_rows) +
                             " rows; the page records " + std::to_string(counts[i]));
      *rows += child_rows;
    }
    return {};
  }

  // Every key of the leaf passes the table's miss filter (whose pages are
  // checked as they are read).
  status check_miss_filter(uint64_t page, const detail::LeafView& leaf) const {
    detail::ErrorOut err;
    detail::KeyBuffer buf;
    for (uint32_t i = 0; i < leaf.size(); ++i) {
      const ByteView key = leaf.key(i, buf);
      switch (detail::test_miss_filter(detail::CheckedPages{db_, &err}, tree_, key)) {
        case detail::FilterSays::maybe:
          break;
        case detail::FilterSays::absent:
          return bad(page, "key '" + tree_.encoding.format(key) +
                               "' does not pass the table's miss filter");
        case detail::FilterSays::unread:
          return std::move(*err);
      }
    }
    return {};
  }

  // Each entry refers to a row of the table, no row is referred to by two
  // entries (an index function gives a row one index key or none), and a
  // non-unique entry's rank suffix is that row's rank, after a group of a
  // variable-length key in its one written form (detail::is_index_group).
  // Which index key a row has only the index function knows: an entry moved
  // to a row the index left out cannot be told from a right one.
  status check_index_entries(uint64_t page, const detail::LeafView& leaf) {
    if (referenced_.empty()) referenced_.assign(tree_.primary->desc->rows, false);
    for (uint32_t i = 0; i < leaf.size(); ++i) {
      ByteView ref = leaf.value_field(i);
      auto it = leaves_map_->find(detail::load_u64(ref.data()));
      const uint32_t slot = detail::load_u16(ref.data() + 8);
      if (it == leaves_map_->end() || slot >= it->second.rows)
        return bad(page, "entry " + std::to_string(i) + " refers to no row of its table");
      // The primary tree passed its checks, so ranks are below its row count.
      const uint64_t rank = it->second.first_rank + slot;
      if (referenced_[rank])
        return bad(page, "entry " + std::to_string(i) + " refers to row " + std::to_string(rank) +
                             " of its table (in key order), as an earlier entry does");
      referenced_[rank] = true;
      if (d_.kind == detail::TreeKind::multi_index) {
        detail::KeyBuffer buf;
        ByteView key = leaf.key(i, buf);
        if (key.size() < detail::kRankSuffixSize ||
            detail::load_be64(key.data() + key.size() - detail::kRankSuffixSize) != rank)
          return bad(page, "entry " + std::to_string(i) + " has a rank that is not its row's");
        if (tree_.encoding.fixed_width() == 0 &&
            !detail::is_index_group(key.first(key.size() - detail::kRankSuffixSize)))
          return bad(page, "entry " + std::to_string(i) +
                               " has an index key that is not escaped and ended as the format "
                               "writes it (each 00 byte followed by FF, then 00 01)");
      }
    }
    return {};
  }

  const detail::DatabaseState& db_;
  const detail::TreeRef& tree_;
  const detail::TreeDesc& d_;
  LeafMap* leaves_map_;
  uint64_t rows_before_ = 0;
  std::vector<bool> seen_;
  std::vector<bool> referenced_;  // an index tree's: the table's rows (by rank) it refers to
  uint64_t leaves_ = 0, internals_ = 0, overflow_pages_ = 0;
  uint64_t last_leaf_ = 0, last_leaf_next_ = 0;
  std::vector<std::byte> last_key_;
  bool have_last_key_ = false;
};

// Every row of a table with a column list has its shape (column_row.h). Run
// after the tree's check, so the walk meets only pages already verified.
status check_column_rows(const detail::DatabaseState& db, const detail::TreeRef& tree) {
  const auto columns = static_cast<uint32_t>(tree.columns->names.size());
  Cursor it(&db, &tree);
  for (bool ok = it.first(); ok; ok = it.next()) {
    const std::span<const std::byte> value = it.value();
    DRYDB_TRY(it.status());
    if (std::string why = detail::column_row_problem(value, columns); !why.empty())
      return Error(errc::corruption, tree.label + ": the row of key '" +
                                         tree.encoding.format(it.key()) + "': " + why);
  }
  return it.status();
}

}  // namespace

status ReadOnlyDatabase::verify() const {
  DRYDB_TRY(state_->check_header_padding());
  const auto& primaries = state_->primaries();
  for (size_t t = 0; t < primaries.size(); ++t) {
    LeafMap leaves;
    DRYDB_TRY(TreeVerifier(*state_, primaries[t], &leaves).run());
    for (const auto& index : state_->indexes_of(t))
      DRYDB_TRY(TreeVerifier(*state_, index, &leaves).run());
    if (primaries[t].columns != nullptr) DRYDB_TRY(check_column_rows(*state_, primaries[t]));
  }
  return {};
}

}  // namespace drydb
