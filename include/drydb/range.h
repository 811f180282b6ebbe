// drydb::Range (and IndexRange): the rows between two bounds, walked lazily
// in either order.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

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
// stay valid until the next step; iterating again starts over. A step reads
// the row it reaches, value included (an overflow run, or the table row an
// index entry refers to), whether or not it is dereferenced. The Range must
// not outlive its database; it belongs to one thread at a time.
// CursorT is Cursor for a table's rows, IndexCursor for an index's.
template <class CursorT>
class BasicRange {
 public:
  BasicRange() = default;

  uint64_t size() const noexcept { return count_; }
  bool empty() const noexcept { return count_ == 0; }
  SortOrder order() const noexcept { return order_; }
  // The rank, in key order, of the range's lowest row (its first ascending, its last
  // descending); 0 for an empty range.
  uint64_t first_rank() const noexcept { return first_rank_; }
  // The first error met while iterating (a corrupt page or failed read ends
  // the iteration early).
  const drydb::status& status() const noexcept { return cursor_.status(); }

  // A run of rows the iterator steps through by position: row pos's key is
  // key_len bytes at key_base + key_step * pos, its value value_len bytes at
  // value_base + value_step * pos.
  // Its fields are as narrow as their bounds allow (value lengths are
  // 32-bit in the format, strides within a page): next_run returns one
  // per row on text keys.
  struct Run {
    const std::byte* key_base = nullptr;
    const std::byte* value_base = nullptr;
    uint32_t key_len = 0, value_len = 0;
    int32_t key_step = 0, value_step = 0;
    std::ptrdiff_t len = 0;  // rows in the run; 0: the end
  };

  class iterator {
   public:
    using value_type = Entry;
    using difference_type = std::ptrdiff_t;
    Entry operator*() const {
      return Entry{{run_.key_base + std::ptrdiff_t{run_.key_step} * pos_, run_.key_len},
                   {run_.value_base + std::ptrdiff_t{run_.value_step} * pos_, run_.value_len}};
    }
    iterator& operator++() {
      // The next row of a strided leaf is one increment away: the position
      // in the run is the only state a walk carries from row to row.
      if (++pos_ != run_.len) return *this;
      pos_ = 0;
      run_ = range_->next_run();
      return *this;
    }
    void operator++(int) { ++*this; }
    bool operator==(std::default_sentinel_t) const noexcept { return run_.len == 0; }

   private:
    friend class BasicRange;
    explicit iterator(BasicRange* r) : range_(r) {}

    // The iterator's own address is never passed on (next_run is the
    // range's, and returns the next run by value), so a loop over the rows
    // keeps these fields in registers; when next_run took the iterator, its
    // position went through memory on every row, a store and a load in each
    // row's chain of dependencies, and 100-row scans of integer keys took
    // 1.05-1.1x their time.
    BasicRange* range_;
    std::ptrdiff_t pos_ = 0;  // the current row's position in its run
    Run run_;
  };

  iterator begin() {
    iterator it(this);
    if (count_ == 0) return it;
    const uint64_t at = order_ == SortOrder::ascending ? first_rank_ : first_rank_ + count_ - 1;
    if (!(cursor_.valid() && cursor_.rank() == at) && !cursor_.seek_rank(at)) return it;
    rest_ = count_ - 1;
    it.run_ = start_run();
    return it;
  }
  std::default_sentinel_t end() const noexcept { return {}; }

  // Internal: rows [first_rank, first_rank + count) of the cursor's tree.
  BasicRange(CursorT cursor, uint64_t first_rank, uint64_t count, SortOrder order) noexcept
      : cursor_(std::move(cursor)), first_rank_(first_rank), count_(count), order_(order) {}
  // Internal: an empty range over the cursor CursorT(cursor_args...), which
  // ReadOnlyTable::get_range positions in place: a cursor moved into a range
  // copies its path, its leaf and its status.
  template <class A0, class... A>
  explicit BasicRange(std::in_place_t, A0&& cursor_arg, A&&... cursor_args) noexcept
      : cursor_(std::forward<A0>(cursor_arg), std::forward<A>(cursor_args)...) {}

 private:
  friend class ReadOnlyTable;

  // The rows are yielded in runs, walked by position while the cursor
  // stays on the run's first row. On a leaf whose rows sit at fixed
  // strides, a run is the rows left in it (up to the range's end), stepped
  // by pointer; elsewhere a run is one row (with steps of 0): the cursor's,
  // and on a leaf without overflow values, each of the rows left in it (up
  // to the range's end), decoded from the page by next_run (the walk).
  DRYDB_ALWAYS_INLINE Run start_run();

  // The row walked_ rows past the cursor's, from its leaf: its key
  // (rebuilt in the cursor's buffer on a prefixed leaf, whose shared prefix
  // the walk's first row left there) and value, as a run of one row.
  DRYDB_ALWAYS_INLINE Run walked_row() const;

  // After a run's last row: the walk's next row, or catches the cursor up
  // with the rows the run or walk passed without it, moves it one row and
  // starts the next run, or ends the iteration (a run of length 0). Not
  // inlined, and the walk's rows decoded here rather than in operator++: a
  // walked row's byte stores (a rebuilt key) could alias the iterator's
  // fields, which a strided walk then kept in memory instead of registers.
  [[gnu::noinline]] Run next_run();

  // next_run past the walk: apart, so that the walk's row, the step taken
  // most, does not pay for the registers this part uses.
  [[gnu::noinline]] Run end_run();

  CursorT cursor_;
  uint64_t first_rank_ = 0;
  uint64_t count_ = 0;
  SortOrder order_ = SortOrder::ascending;
  // The iteration's state (one iteration at a time walks the range's one
  // cursor): rows of the range after the current run's last row, the
  // current run's length, and on a leaf walked row by row (one-row runs,
  // each decoded by next_run), the rows after the cursor's to walk and
  // those walked so far.
  uint64_t rest_ = 0;
  std::ptrdiff_t run_len_ = 0;
  uint32_t walk_len_ = 0, walked_ = 0;
};

using Range = BasicRange<Cursor>;

}  // namespace drydb

#include "drydb/detail/range-inl.h"
