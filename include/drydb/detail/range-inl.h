// A Range's iteration in runs (range.h's BasicRange: start_run, walked_row,
// next_run, end_run). Included at the end of range.h; not for users.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace drydb {

template <class CursorT>
DRYDB_ALWAYS_INLINE auto BasicRange<CursorT>::start_run() -> Run {
  const CursorT& c = cursor_;
  Run run;
  run.len = 1;
  walk_len_ = walked_ = 0;
  bool strided = false;
  if constexpr (std::is_same_v<CursorT, Cursor>) {
    const detail::LeafView& leaf = c.leaf_;
    const bool ascending = order_ == SortOrder::ascending;
    const uint64_t in_leaf = ascending ? c.size_ - c.index_ : c.index_ + 1;
    if (!leaf.strided() && leaf.all_inline()) {
      walk_len_ = static_cast<uint32_t>(std::min<uint64_t>(in_leaf, rest_ + 1) - 1);
    } else if (leaf.strided()) {
      strided = true;
      run.len = static_cast<std::ptrdiff_t>(std::min<uint64_t>(in_leaf, rest_ + 1));
      const auto k = leaf.strided_key(c.index_);
      const auto v = leaf.value_field(c.index_);
      run.key_base = k.data();
      run.key_len = static_cast<uint32_t>(k.size());
      run.value_base = v.data();
      run.value_len = static_cast<uint32_t>(v.size());
      run.key_step = ascending ? static_cast<int32_t>(leaf.key_stride())
                               : -static_cast<int32_t>(leaf.key_stride());
      run.value_step = ascending ? static_cast<int32_t>(leaf.record_size())
                                 : -static_cast<int32_t>(leaf.record_size());
    }
  }
  if (!strided) {  // an overflow value (or an index entry's row) is resolved here
    const Entry e = c.entry();
    run.key_base = e.key.data();
    run.key_len = static_cast<uint32_t>(e.key.size());
    run.value_base = e.value.data();
    run.value_len = static_cast<uint32_t>(e.value.size());
    if (!c.status()) {  // it failed: the iteration ends here, status() says why
      run.len = 0;
      walk_len_ = 0;
    }
  }
  run_len_ = run.len;
  rest_ -= static_cast<uint64_t>(run.len - 1);
  return run;
}

template <class CursorT>
DRYDB_ALWAYS_INLINE auto BasicRange<CursorT>::walked_row() const -> Run {
  if constexpr (std::is_same_v<CursorT, Cursor>) {
    const CursorT& c = cursor_;
    const uint32_t i = order_ == SortOrder::ascending ? c.index_ + walked_ : c.index_ - walked_;
    detail::ByteView v;
    const detail::ByteView k = c.leaf_.inline_entry(i, c.key_buf_, &v);
    // Every field set once, none zeroed first: the run goes back through memory.
    return Run{.key_base = k.data(),
               .value_base = v.data(),
               .key_len = static_cast<uint32_t>(k.size()),
               .value_len = static_cast<uint32_t>(v.size()),
               .len = 1};
  }
  return Run{};
}

template <class CursorT>
[[gnu::noinline]] auto BasicRange<CursorT>::next_run() -> Run {
  if (walked_ != walk_len_) {
    ++walked_;
    --rest_;
    return walked_row();
  }
  return end_run();
}

template <class CursorT>
[[gnu::noinline]] auto BasicRange<CursorT>::end_run() -> Run {
  CursorT& c = cursor_;
  const bool ascending = order_ == SortOrder::ascending;
  if constexpr (std::is_same_v<CursorT, Cursor>) {
    const auto taken = static_cast<uint32_t>(run_len_ - 1) + walked_;
    c.index_ = ascending ? c.index_ + taken : c.index_ - taken;
    c.rank_ = ascending ? c.rank_ + taken : c.rank_ - taken;
  }
  if (rest_ == 0) return Run{};
  --rest_;
  if (!(ascending ? c.next() : c.prev())) {
    // The tree ended before the rows its counts promised: corrupt, unless
    // the cursor already recorded why.
    if (c.status()) c.fail(detail::range_count_mismatch());
    return Run{};
  }
  return start_run();
}

}  // namespace drydb
