// The private machinery of SecondaryIndex and IndexCursor (index.h): how a
// query's index key is placed in the index's tree, the ranks of ranges and
// counts, and a cursor's seek and row resolution. Included at the end of
// index.h; not for users.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>

namespace drydb {

namespace detail {

// The index key of a query as the index's tree orders it: the key itself in
// a unique index; group(key) in a non-unique one (see index_coding.h).
// `after` asks for the position after every entry of `key` instead of before.
// Returns false when that position is the end of the index.
inline bool index_seek_key(const TreeRef& tree, std::span<const std::byte> key, bool after,
                           TreeKeyBuffer* buf, std::span<const std::byte>* out,
                           bool* exact_possible) {
  *exact_possible = true;
  if (tree.desc->kind == TreeKind::unique_index) {
    *out = key;
    return true;
  }
  const uint32_t width = tree.encoding.fixed_width();
  if (width != 0 && key.size() != width) {
    // No entry has this index key. A shorter key sorts before the entries it
    // starts; a longer one after the entries of its first `width` bytes.
    *exact_possible = false;
    if (key.size() > width) {
      key = key.first(width);
      after = true;
    } else {
      after = false;
    }
  }
  std::byte* p = buf->reserve(index_group_size(key, width));
  size_t n = static_cast<size_t>(put_index_group(p, key, width) - p);
  if (after && (n = prefix_successor(p, n)) == 0) return false;
  *out = std::span<const std::byte>(p, n);
  return true;
}

// The error of an index entry whose row is not in its leaf `page` (src/read/database.cpp).
Error index_entry_missing_row(const TreeRef& index, uint64_t page);

}  // namespace detail

// ---- SecondaryIndex -----------------------------------------------------------

inline bool SecondaryIndex::bound_rank(const Key& key, bool after, uint64_t* rank,
                                       detail::ErrorOut* err) const {
  detail::TreeKeyBuffer buf;
  std::span<const std::byte> k;
  bool exact_possible;
  if (!detail::index_seek_key(*tree_, key.bytes(), after, &buf, &k, &exact_possible)) {
    *rank = tree_->desc->rows;
    return true;
  }
  bool found;
  if (!detail::rank_of(*db_, *tree_, k, rank, &found, err)) return false;
  // A unique index's tree holds the key itself: "after" skips it if present.
  if (after && found && unique()) ++*rank;
  return true;
}

inline bool SecondaryIndex::ranks(const KeyBound& start, const KeyBound& end, const RangeOptions& o,
                                  uint64_t* first, uint64_t* last, detail::ErrorOut* err) const {
  if (!detail::check_range_bounds(*tree_, start, end, err)) return false;
  *first = 0;
  *last = tree_->desc->rows;
  if (start.bounded() && end.bounded())
    return bound_ranks(start.key(), o.start_exclusive, end.key(), !o.end_exclusive, first, last,
                       err);
  return (!start.bounded() || bound_rank(start.key(), o.start_exclusive, first, err)) &&
         (!end.bounded() || bound_rank(end.key(), !o.end_exclusive, last, err));
}

inline bool SecondaryIndex::bound_ranks(const Key& start, bool start_after, const Key& end,
                                        bool end_after, uint64_t* first, uint64_t* last,
                                        detail::ErrorOut* err) const {
  detail::TreeKeyBuffer buf[2];
  std::span<const std::byte> k[2];
  bool exact_possible;
  if (!detail::index_seek_key(*tree_, start.bytes(), start_after, &buf[0], &k[0],
                              &exact_possible) ||
      !detail::index_seek_key(*tree_, end.bytes(), end_after, &buf[1], &k[1], &exact_possible))
    return bound_rank(start, start_after, first, err) && bound_rank(end, end_after, last, err);
  uint64_t rank[2];
  bool found[2];
  if (!detail::rank_pair(*db_, *tree_, k[0], k[1], rank, found, err)) return false;
  // A unique index's tree holds the key itself: "after" skips it if present.
  *first = rank[0] + (start_after && found[0] && unique() ? 1 : 0);
  *last = rank[1] + (end_after && found[1] && unique() ? 1 : 0);
  return true;
}

// ---- IndexCursor --------------------------------------------------------------

inline bool IndexCursor::seek_key(const Key& key, bool* exact) {
  *exact = false;
  moved(false);
  const detail::TreeRef* tree = entries_.tree_;
  if (tree == nullptr) return false;
  detail::ErrorOut err;
  if (!detail::check_key_kind(*tree, key, &err)) return fail(std::move(*err));
  detail::TreeKeyBuffer buf;
  std::span<const std::byte> k;
  bool exact_possible;
  if (!detail::index_seek_key(*tree, key.bytes(), false, &buf, &k, &exact_possible))
    return entries_.clear();
  bool found;
  if (!entries_.seek_bytes(k, &found)) return false;
  if (tree->desc->kind == detail::TreeKind::unique_index) {
    *exact = found;
  } else if (exact_possible) {
    auto e = entries_.key();  // group(key) ++ rank: a match starts with group(key)
    *exact = e.size() >= k.size() && std::memcmp(e.data(), k.data(), k.size()) == 0;
  }
  return true;
}

inline bool IndexCursor::resolve() const {
  if (resolved_) return true;
  if (!entries_.valid()) return false;
  const detail::TreeRef& primary = *entries_.tree_->primary;
  // The entry's value is (leaf page u64, slot u16); the leaf's page check
  // placed the page inside the table's primary tree.
  const auto ref = entries_.leaf_.value_field(entries_.index_);
  const uint64_t page = detail::load_u64(ref.data());
  const uint32_t slot = detail::load_u16(ref.data() + 8);
  if (page != row_page_ || row_page_ == 0) {  // page 0 is never a leaf: "no leaf yet"
    detail::unpin(row_pin_);
    row_pin_ = nullptr;
    row_page_ = 0;
    detail::ErrorOut err;
    detail::PageSlot* pin;
    const std::byte* p = entries_.db_->fetch(primary, page, detail::PageType::leaf, 0, &pin, &err);
    if (p == nullptr) {
      status_ = std::move(*err);
      return false;
    }
    row_leaf_ = detail::LeafView(p, primary.layout);
    row_page_ = page;
    row_pin_ = pin;
  }
  if (slot >= row_leaf_.size()) {
    status_ = detail::index_entry_missing_row(*entries_.tree_, page);
    return false;
  }
  row_slot_ = slot;
  resolved_ = true;
  return true;
}

inline std::span<const std::byte> IndexCursor::value() const {
  if (value_resolved_) return value_;
  if (!resolve()) return {};
  if (!row_leaf_.is_overflow(row_slot_)) [[likely]]
    return row_leaf_.value_field(row_slot_);
  detail::ErrorOut err;
  if (!detail::resolve_value(*entries_.db_, *entries_.tree_->primary, row_leaf_, row_slot_, &value_,
                             &value_pin_, &err)) {
    status_ = std::move(*err);
    return {};
  }
  value_resolved_ = true;
  return value_;
}

inline std::span<const std::byte> IndexCursor::index_key() const {
  if (!entries_.valid()) return {};
  const detail::TreeRef& tree = *entries_.tree_;
  const auto k = entries_.key();
  if (tree.desc->kind == detail::TreeKind::unique_index) return k;
  const uint32_t width = tree.encoding.fixed_width();
  if (width != 0) return k.first(width);
  // group(key) ++ rank: drop the rank and the terminator, undo the escapes.
  // A key too short for them is corrupt (verify() refuses it): an empty one.
  if (k.size() < detail::kRankSuffixSize + 2) return {};
  const auto escaped = k.first(k.size() - detail::kRankSuffixSize - 2);
  index_key_.resize(escaped.size());
  return {index_key_.data(), detail::unescape_index_group(escaped, index_key_.data())};
}

}  // namespace drydb
