// The private machinery of ReadOnlyTable (table.h): get()'s paths off and on
// the hot path, get_many()'s batches, and the positioning and ranks of
// ranges and counts. Included at the end of table.h; not for users. The
// functions kept out of line ([[gnu::noinline]]) are declared inline in the
// class, not here: GCC warns of an inline declaration after a noinline one.
#pragma once

#include <cstdint>
#include <utility>

namespace drydb {

inline status ReadOnlyTable::get_batch(std::span<const Key> keys, std::span<Value> values) const {
  const uint32_t n = static_cast<uint32_t>(keys.size());
  bool same_kind = true, prefix_keys = true;
  for (const Key& k : keys) {
    same_kind = same_kind && k.kind() == tree_->kind;
    prefix_keys = prefix_keys && tree_->layout.prefix_search(k.bytes().size());
  }
  if (!same_kind || tree_->desc->rows == 0) {
    for (uint32_t j = 0; j < n; ++j) {
      result<Value> v = get(keys[j]);
      if (!v) return std::move(v).error();
      values[j] = std::move(*v);
    }
    return {};
  }
  // The keys to look up: those the miss filter does not rule out. A filter
  // page not yet resident rules nothing out; get_checked() of a key that
  // takes the slow path reads it.
  uint32_t batch[detail::kProbeBatch];
  uint32_t m = 0;
  for (uint32_t j = 0; j < n; ++j) {
    values[j] = Value();
    if (tree_->miss_filter == nullptr ||
        detail::test_miss_filter(detail::ResidentPages{*db_}, *tree_, keys[j].bytes()) !=
            detail::FilterSays::absent)
      batch[m++] = j;
  }
  detail::Probe probes[detail::kProbeBatch];
  detail::ByteView found[detail::kProbeBatch];
  detail::PageSlot* pins[detail::kProbeBatch];
  if (prefix_keys) {
    detail::PrefixKeySearch searches[detail::kProbeBatch];
    for (uint32_t b = 0; b < m; ++b) {
      const auto k = keys[batch[b]].bytes();
      searches[b] = detail::PrefixKeySearch{detail::key_prefix(k.data(), k.size())};
    }
    detail::probe_batch(*db_, *tree_, searches, m, probes, found, pins);
  } else {
    detail::BytesSearch searches[detail::kProbeBatch];
    for (uint32_t b = 0; b < m; ++b) {
      const auto k = keys[batch[b]].bytes();
      searches[b] = detail::BytesSearch{k, detail::key_prefix(k.data(), k.size()), tree_->layout};
    }
    detail::probe_batch(*db_, *tree_, searches, m, probes, found, pins);
  }
  for (uint32_t b = 0; b < m; ++b)
    if (probes[b] == detail::Probe::found)
      values[batch[b]] = Value::found(found[b].data(), found[b].size(), pins[b]);
  for (uint32_t b = 0; b < m; ++b) {
    if (probes[b] != detail::Probe::slow) continue;
    result<Value> v = get_checked(keys[batch[b]]);
    if (!v) return std::move(v).error();
    values[batch[b]] = std::move(*v);
  }
  return {};
}

DRYDB_ALWAYS_INLINE result<Value> ReadOnlyTable::get_unfiltered(const Key& key) const {
  const auto k = key.bytes();
  if (!tree_->layout.prefix_search(k.size())) return get_general(key);
  return get_resident(key, detail::PrefixKeySearch{detail::key_prefix(k.data(), k.size())});
}

result<Value> ReadOnlyTable::get_off_the_hot_path(const Key& key) const {
  if (key.kind() != tree_->kind) return get_checked(key);
  if (tree_->desc->rows == 0) return Value();
  switch (detail::test_miss_filter(detail::ResidentPages{*db_}, *tree_, key.bytes())) {
    case detail::FilterSays::absent:
      return Value();
    case detail::FilterSays::unread:
      return get_checked(key);
    case detail::FilterSays::maybe:
      break;
  }
  return get_unfiltered(key);
}

template <class Search>
DRYDB_ALWAYS_INLINE result<Value> ReadOnlyTable::get_resident(const Key& key,
                                                              const Search& search) const {
  detail::ByteView v;
  detail::PageSlot* pin;
  switch (detail::probe(*db_, *tree_, search, &v, &pin)) {
    case detail::Probe::found:
      return Value::found(v.data(), v.size(), pin);
    case detail::Probe::absent:
      return Value();
    case detail::Probe::slow:
      break;
  }
  return get_checked(key);
}

result<Value> ReadOnlyTable::get_general(const Key& key) const {
  const auto k = key.bytes();
  return get_resident(
      key, detail::BytesSearch{k, detail::key_prefix(k.data(), k.size()), tree_->layout});
}

result<Value> ReadOnlyTable::get_checked(const Key& key) const {
  detail::ErrorOut err;
  if (!detail::check_key_kind(*tree_, key, &err)) return std::move(*err);
  if (tree_->desc->rows == 0) return Value();
  if (tree_->miss_filter != nullptr) {
    switch (detail::test_miss_filter(detail::CheckedPages{*db_, &err}, *tree_, key.bytes())) {
      case detail::FilterSays::absent:
        return Value();
      case detail::FilterSays::unread:
        return std::move(*err);
      case detail::FilterSays::maybe:
        break;
    }
  }
  return detail::with_key_search(
      *tree_, key.bytes(), [&](const auto& search) DRYDB_ALWAYS_INLINE_LAMBDA -> result<Value> {
        detail::PageSlot* pin;
        const std::byte* p = detail::descend(detail::CheckedPages{*db_, &err}, *tree_, search,
                                             nullptr, nullptr, &pin);
        if (p == nullptr) return std::move(*err);
        const detail::LeafView leaf(p, tree_->layout);
        bool found;
        const uint32_t i = search.slot(leaf, &found);
        if (!found) {
          detail::unpin(pin);
          return Value();
        }
        detail::ByteView v;
        detail::PageSlot* value_pin;
        const bool ok = detail::resolve_value(*db_, *tree_, leaf, i, &v, &value_pin, &err);
        if (value_pin != nullptr || !ok) {  // an overflow run holds the value, not the leaf
          detail::unpin(pin);
          pin = value_pin;
        }
        if (!ok) return std::move(*err);
        return Value::found(v.data(), v.size(), pin);
      });
}

inline bool ReadOnlyTable::position_range(Range* range, const KeyBound& start, const KeyBound& end,
                                          const RangeOptions& options,
                                          detail::ErrorOut* err) const {
  if (!detail::check_range_bounds(*tree_, start, end, err)) return false;
  const uint64_t rows = tree_->desc->rows;
  Cursor& cursor = range->cursor_;
  uint64_t first, last;
  bool found;
  if (options.order == SortOrder::ascending) {
    if (start.bounded()) {
      cursor.seek_key(start.key(), &found);
      first = cursor.valid() ? cursor.rank() : rows;
      if (found && options.start_exclusive) {
        cursor.next();
        ++first;
      }
    } else {
      cursor.first();
      first = 0;
    }
    if (!cursor.status()) {
      *err = cursor.status().error();
      return false;
    }
    if (!end_rank(end, options, &last, err, &cursor)) return false;
  } else {
    if (end.bounded()) {
      cursor.seek_key(end.key(), &found);
      if (!cursor.status()) {  // before moving clears it
        *err = cursor.status().error();
        return false;
      }
      last = cursor.valid() ? cursor.rank() : rows;
      if (found && !options.end_exclusive)
        ++last;
      else if (cursor.valid())
        cursor.prev();
      else
        cursor.last();
    } else {
      cursor.last();
      last = rows;
    }
    if (!cursor.status()) {
      *err = cursor.status().error();
      return false;
    }
    if (!start_rank(start, options, &first, err, &cursor)) return false;
  }
  range->order_ = options.order;
  if (last <= first) {
    cursor.clear();  // an empty range holds no page
    return true;
  }
  range->first_rank_ = first;
  range->count_ = last - first;
  return true;
}

inline bool ReadOnlyTable::bound_rank(const KeyBound& bound, uint64_t unbounded, bool past_equal,
                                      uint64_t* rank, detail::ErrorOut* err,
                                      const Cursor* nearby) const {
  *rank = unbounded;
  if (!bound.bounded()) return true;
  bool found;
  if (!rank_near(bound.key().bytes(), nearby, rank, &found, err)) return false;
  if (found && past_equal) ++*rank;
  return true;
}

inline bool ReadOnlyTable::start_rank(const KeyBound& start, const RangeOptions& o, uint64_t* rank,
                                      detail::ErrorOut* err, const Cursor* nearby) const {
  return bound_rank(start, 0, o.start_exclusive, rank, err, nearby);
}

inline bool ReadOnlyTable::bound_ranks(const KeyBound& start, const KeyBound& end,
                                       const RangeOptions& o, uint64_t* first, uint64_t* last,
                                       detail::ErrorOut* err) const {
  if (!start.bounded() || !end.bounded())
    return start_rank(start, o, first, err) && end_rank(end, o, last, err);
  uint64_t rank[2];
  bool found[2];
  if (!detail::rank_pair(*db_, *tree_, start.key().bytes(), end.key().bytes(), rank, found, err))
    return false;
  *first = rank[0] + (found[0] && o.start_exclusive ? 1 : 0);
  *last = rank[1] + (found[1] && !o.end_exclusive ? 1 : 0);
  return true;
}

inline bool ReadOnlyTable::end_rank(const KeyBound& end, const RangeOptions& o, uint64_t* rank,
                                    detail::ErrorOut* err, const Cursor* nearby) const {
  return bound_rank(end, tree_->desc->rows, !o.end_exclusive, rank, err, nearby);
}

inline bool ReadOnlyTable::rank_near(detail::ByteView key, const Cursor* nearby, uint64_t* rank,
                                     bool* found, detail::ErrorOut* err) const {
  if (nearby != nullptr && nearby->valid()) {
    const detail::LeafView& leaf = nearby->leaf_;
    detail::KeyBuffer first, last;
    if (detail::compare_bytes(leaf.key(0, first), key) <= 0 &&
        detail::compare_bytes(key, leaf.key(leaf.size() - 1, last)) <= 0) {
      *rank =
          nearby->rank() - nearby->index_ +
          detail::with_key_search(*tree_, key, [&](const auto& search) DRYDB_ALWAYS_INLINE_LAMBDA {
            return search.slot(leaf, found);
          });
      return true;
    }
  }
  return detail::rank_of(*db_, *tree_, key, rank, found, err);
}

}  // namespace drydb
