// drydb::Range (and IndexRange): the rows between two bounds, walked lazily
// in either order.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "drydb/cursor.h"

namespace drydb {

enum class SortOrder : uint8_t { ascending, descending };

struct RangeOptions {
  bool start_exclusive = false;
  bool end_exclusive = false;
  SortOrder order = SortOrder::ascending;
};

namespace detail {
Error range_count_mismatch();
}

// The result of get_range and prefix. Its size is known up front (from the
// trees' subtree counts); rows are read as it is iterated:
//   for (auto [key, value] : *range) ...
// Each iteration walks one internal cursor, so the key/value views of a row
// stay valid until the next step; iterating again starts over. The Range must
// not outlive its database; it belongs to one thread at a time.
// CursorT is Cursor for a table's rows, IndexCursor for an index's.
template <class CursorT>
class BasicRange {
 public:
  BasicRange() = default;

  uint64_t size() const noexcept { return count_; }
  bool empty() const noexcept { return count_ == 0; }
  SortOrder order() const noexcept { return order_; }
  // The first error met while iterating (a corrupt page or failed read ends
  // the iteration early).
  const drydb::status& status() const noexcept { return cursor_.status(); }

  class iterator {
   public:
    using value_type = Entry;
    using difference_type = std::ptrdiff_t;
    Entry operator*() const {
      if (run_ > 0) return Entry{{key_, key_len_}, {value_, value_len_}};
      return range_->cursor_.entry();
    }
    iterator& operator++() {
      if (--remaining_ == 0) return *this;
      if (run_ > 1) {  // the next row of a strided leaf: two pointer steps
        --run_;
        ++taken_;
        key_ += key_step_;
        value_ += value_step_;
        return *this;
      }
      step_cursor();
      return *this;
    }
    void operator++(int) { ++*this; }
    bool operator==(std::default_sentinel_t) const noexcept { return remaining_ == 0; }

   private:
    friend class BasicRange;
    iterator(BasicRange* r, uint64_t remaining) : range_(r), remaining_(remaining) {}

    // Moves the cursor one row, first catching it up with the rows a run
    // walked without it (until then it stays, consistently, on the run's
    // first row).
    void step_cursor() {
      CursorT& c = range_->cursor_;
      const bool ascending = range_->order_ == SortOrder::ascending;
      if constexpr (std::is_same_v<CursorT, Cursor>) {
        if (taken_ > 0) {
          c.index_ = ascending ? c.index_ + taken_ : c.index_ - taken_;
          c.rank_ = ascending ? c.rank_ + taken_ : c.rank_ - taken_;
          taken_ = 0;
        }
        run_ = 0;
      }
      if (!(ascending ? c.next() : c.prev())) {
        // The tree ended before the rows its counts promised: corrupt, unless
        // the cursor already recorded why.
        if (c.status()) c.fail(detail::range_count_mismatch());
        remaining_ = 0;
        return;
      }
      start_run();
    }

    // On a leaf whose rows sit at fixed strides, the rows left in it (up to
    // the range's end) are walked by pointer: the run.
    void start_run() {
      if constexpr (std::is_same_v<CursorT, Cursor>) {
        const Cursor& c = range_->cursor_;
        const detail::LeafView& leaf = c.leaf_;
        if (!leaf.strided()) return;
        const bool ascending = range_->order_ == SortOrder::ascending;
        const uint64_t in_leaf = ascending ? c.size_ - c.index_ : c.index_ + 1;
        run_ = static_cast<uint32_t>(std::min<uint64_t>(in_leaf, remaining_));
        const auto k = leaf.key(c.index_);
        const auto v = leaf.value_field(c.index_);
        key_ = k.data();
        key_len_ = k.size();
        value_ = v.data();
        value_len_ = v.size();
        key_step_ = ascending ? leaf.key_stride() : -static_cast<std::ptrdiff_t>(leaf.key_stride());
        value_step_ =
            ascending ? leaf.record_size() : -static_cast<std::ptrdiff_t>(leaf.record_size());
      }
    }

    BasicRange* range_;
    uint64_t remaining_;
    // The current strided run: rows left in it (0: no run; read the cursor),
    // rows walked since its start, and where the current row's bytes are.
    uint32_t run_ = 0;
    uint32_t taken_ = 0;
    const std::byte* key_ = nullptr;
    const std::byte* value_ = nullptr;
    size_t key_len_ = 0, value_len_ = 0;
    std::ptrdiff_t key_step_ = 0, value_step_ = 0;
  };

  iterator begin() {
    if (count_ == 0) return iterator(this, 0);
    const uint64_t at = order_ == SortOrder::ascending ? first_rank_ : first_rank_ + count_ - 1;
    if (!(cursor_.valid() && cursor_.rank() == at) && !cursor_.seek_rank(at))
      return iterator(this, 0);
    iterator it(this, count_);
    it.start_run();
    return it;
  }
  std::default_sentinel_t end() const noexcept { return {}; }

  // Internal: rows [first_rank, first_rank + count) of the cursor's tree.
  BasicRange(CursorT cursor, uint64_t first_rank, uint64_t count, SortOrder order) noexcept
      : cursor_(std::move(cursor)), first_rank_(first_rank), count_(count), order_(order) {}

 private:
  CursorT cursor_;
  uint64_t first_rank_ = 0;
  uint64_t count_ = 0;
  SortOrder order_ = SortOrder::ascending;
};

using Range = BasicRange<Cursor>;

}  // namespace drydb
