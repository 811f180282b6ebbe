// drydb::Range (and IndexRange): the rows between two bounds, walked lazily
// in either order.
#pragma once

#include <cstdint>

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
    Entry operator*() const { return range_->cursor_.entry(); }
    iterator& operator++() {
      if (--remaining_ == 0) return *this;
      bool ok =
          range_->order_ == SortOrder::ascending ? range_->cursor_.next() : range_->cursor_.prev();
      if (!ok) {
        // The tree ended before the rows its counts promised: corrupt, unless
        // the cursor already recorded why.
        if (range_->cursor_.status()) range_->cursor_.fail(detail::range_count_mismatch());
        remaining_ = 0;
      }
      return *this;
    }
    void operator++(int) { ++*this; }
    bool operator==(std::default_sentinel_t) const noexcept { return remaining_ == 0; }

   private:
    friend class BasicRange;
    iterator(BasicRange* r, uint64_t remaining) : range_(r), remaining_(remaining) {}
    BasicRange* range_;
    uint64_t remaining_;
  };

  iterator begin() {
    if (count_ == 0) return iterator(this, 0);
    const uint64_t at = order_ == SortOrder::ascending ? first_rank_ : first_rank_ + count_ - 1;
    if (!(cursor_.valid() && cursor_.rank() == at) && !cursor_.seek_rank(at))
      return iterator(this, 0);
    return iterator(this, count_);
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
