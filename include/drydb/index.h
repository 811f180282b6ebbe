// drydb::SecondaryIndex: the queries of one secondary index of a table, and
// IndexCursor, a position in an index's order.
//
//   auto by_category = table.index("category").value();
//   for (auto [key, value] : *by_category.get_all("weapon")) ...  // primary-key order
//
// Every query answers with the table's rows (primary key and value, zero-copy
// views but for a primary key rebuilt from its page's shared prefix), in
// index-key order; a non-unique index orders the rows of one index
// key by primary key. Index keys are given as the index's encoding takes them
// (text or bytes, int64_t, Uuid, Ulid). The handle is cheap (two pointers);
// it and everything it returns must not outlive the database. Queries are
// safe from many threads at once; Rows, ranges and cursors belong to one.
#pragma once

#include <cstdint>
#include <cstring>
#include <new>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "drydb/cursor.h"
#include "drydb/detail/index_coding.h"
#include "drydb/detail/lookup.h"
#include "drydb/key.h"
#include "drydb/range.h"
#include "drydb/result.h"
#include "drydb/row.h"

namespace drydb {

class IndexCursor;
using IndexRange = BasicRange<IndexCursor>;
template <class T>
class Future;

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

Error index_entry_missing_row(const TreeRef& index, uint64_t page);

}  // namespace detail

// A bidirectional position in an index: each entry is one row of the table.
// key() and value() are the row's primary key and value; index_key() the
// entry's index key. Views stay valid until the cursor moves or is destroyed;
// the cursor must not outlive its database and belongs to one thread at a
// time. Move-only. A corrupt page or failed read makes it invalid, with the
// error in status().
class IndexCursor {
 public:
  IndexCursor() noexcept = default;
  IndexCursor(IndexCursor&& o) noexcept
      : entries_(std::move(o.entries_)),
        row_leaf_(o.row_leaf_),
        row_page_(std::exchange(o.row_page_, 0)),
        row_pin_(std::exchange(o.row_pin_, nullptr)),
        row_slot_(o.row_slot_),
        resolved_(std::exchange(o.resolved_, false)),
        value_pin_(std::exchange(o.value_pin_, nullptr)),
        value_(std::exchange(o.value_, {})),
        value_resolved_(std::exchange(o.value_resolved_, false)),
        status_(std::move(o.status_)),
        index_key_(std::move(o.index_key_)) {}
  IndexCursor& operator=(IndexCursor&& o) noexcept {
    if (this != &o) {
      this->~IndexCursor();
      new (this) IndexCursor(std::move(o));
    }
    return *this;
  }
  IndexCursor(const IndexCursor&) = delete;
  IndexCursor& operator=(const IndexCursor&) = delete;
  ~IndexCursor() {
    drop_value();
    detail::unpin(row_pin_);
  }

  // Each positioning call returns valid().
  bool first() { return moved(entries_.first()); }
  bool last() { return moved(entries_.last()); }
  // The first entry whose index key is >= key.
  bool seek(const Key& key) {
    bool exact;
    return seek_key(key, &exact);
  }
  // Positions as seek() and returns whether that entry's index key equals `key`.
  bool seek_exact(const Key& key) {
    bool exact = false;
    seek_key(key, &exact);
    return exact;
  }
  // The entry with 0-based position `rank` in index order.
  bool seek_rank(uint64_t rank) { return moved(entries_.seek_rank(rank)); }
  bool next() { return moved(entries_.next()); }
  bool prev() { return moved(entries_.prev()); }

  bool valid() const noexcept { return entries_.valid(); }
  // Requires: valid(). The entry's rank among the index's entries.
  uint64_t rank() const noexcept { return entries_.rank(); }

  // The row's primary key; empty when !valid() or on a read error (then in status()).
  std::span<const std::byte> key() const {
    return resolve() ? row_leaf_.key(row_slot_, row_key_buf_) : std::span<const std::byte>();
  }
  // The row's whole value; empty when !valid() or on a read error.
  std::span<const std::byte> value() const;
  Entry entry() const { return {key(), value()}; }
  // The entry's index key (encoded, as the index orders it).
  std::span<const std::byte> index_key() const;

  // The first error met since the last positioning call, if any.
  const drydb::status& status() const noexcept {
    return entries_.status() ? status_ : entries_.status();
  }

  // The current row as a handle that outlives the cursor's next move. The
  // cursor keeps its position. An empty Row when !valid() or on an error.
  Row row() const {
    const auto v = value();
    if (!status() || !valid()) return Row();
    // The Row takes its own references to the pages.
    if (row_pin_) row_pin_->refs.fetch_add(1, std::memory_order_relaxed);
    if (value_pin_) value_pin_->refs.fetch_add(1, std::memory_order_relaxed);
    return Row::found(row_leaf_.key(row_slot_, row_key_buf_), row_leaf_.prefixed(), v, row_pin_,
                      value_pin_);
  }

  // Internal: a cursor over an index tree.
  IndexCursor(const detail::DatabaseState* db, const detail::TreeRef* index) noexcept
      : entries_(db, index) {}

 private:
  template <class>
  friend class BasicRange;
  friend class SecondaryIndex;

  bool seek_key(const Key& key, bool* exact);
  bool resolve() const;
  bool moved(bool valid) {
    resolved_ = false;
    drop_value();
    if (!status_) status_ = {};
    return valid;
  }
  bool fail(Error e) {
    moved(false);
    return entries_.fail(std::move(e));
  }
  void drop_value() const noexcept {
    detail::unpin(value_pin_);
    value_pin_ = nullptr;
    value_resolved_ = false;
  }

  Cursor entries_;
  // The primary leaf holding the current entry's row, kept across moves
  // while consecutive entries point into it.
  mutable detail::LeafView row_leaf_;
  mutable detail::KeyBuffer row_key_buf_;  // key() of a prefixed row leaf, rebuilt on each call
  mutable uint64_t row_page_ = 0;
  mutable detail::PageSlot* row_pin_ = nullptr;
  mutable uint32_t row_slot_ = 0;
  mutable bool resolved_ = false;
  mutable detail::PageSlot* value_pin_ = nullptr;  // an overflow run
  mutable std::span<const std::byte> value_;
  mutable bool value_resolved_ = false;
  mutable drydb::status status_;
  mutable std::vector<std::byte>
      index_key_;  // unescaped keys of variable-length non-unique indexes
};

class SecondaryIndex {
 public:
  std::string_view name() const noexcept { return tree_->name; }
  bool unique() const noexcept { return tree_->desc->kind == detail::TreeKind::unique_index; }
  KeyEncoding encoding() const noexcept { return tree_->encoding; }
  // Entries in the index, O(1): the table's rows that have an index key.
  uint64_t count() const noexcept { return tree_->desc->rows; }
  uint32_t depth() const noexcept { return tree_->desc->depth; }

  // The row whose index key is `key`: for a non-unique index, the first such
  // row in primary-key order. has_value() is false when there is none.
  result<Row> get(const Key& key) const {
    IndexCursor c = cursor();
    if (!c.seek_exact(key)) {
      if (!c.status()) return c.status().error();
      return Row();
    }
    Row r = c.row();
    if (!c.status()) return c.status().error();
    return r;
  }

  // Every row whose index key is `key`, in primary-key order.
  result<IndexRange> get_all(const Key& key) const { return get_range(key, key); }

  // Rows whose index key lies between two bounds (each a key or
  // drydb::unbounded), inclusive unless options say otherwise, in index-key
  // order (then primary-key order) or its reverse. errc::invalid_argument if
  // both are bounded and start > end.
  result<IndexRange> get_range(const KeyBound& start, const KeyBound& end,
                               RangeOptions options = {}) const {
    uint64_t first, last;
    detail::ErrorOut err;
    if (!ranks(start, end, options, &first, &last, &err)) return std::move(*err);
    if (last <= first) return IndexRange(IndexCursor(), 0, 0, options.order);
    return IndexRange(cursor(), first, last - first, options.order);
  }

  // The number of rows between two bounds: two descents whatever the range's
  // size. The order is ignored.
  result<uint64_t> count_range(const KeyBound& start, const KeyBound& end,
                               RangeOptions options = {}) const {
    uint64_t first, last;
    detail::ErrorOut err;
    if (!ranks(start, end, options, &first, &last, &err)) return std::move(*err);
    return last > first ? last - first : 0;
  }

  // Rows whose index key starts with `prefix`; errc::wrong_key_type unless the
  // index has byte keys (bytes or a custom encoding).
  result<IndexRange> prefix(std::span<const std::byte> prefix,
                            SortOrder order = SortOrder::ascending) const;
  result<IndexRange> prefix(std::string_view text, SortOrder order = SortOrder::ascending) const {
    return prefix(std::as_bytes(std::span(text.data(), text.size())), order);
  }

  // An unpositioned cursor.
  IndexCursor cursor() const noexcept { return IndexCursor(db_, tree_); }

  // The queries above, run on the database's executor, as the table's
  // *_async forms are (table.h; include drydb/async.h): each copies its keys,
  // enqueues one task and returns at once, and the Future gives what the sync
  // query returns, errors included.
  Future<Row> get_async(const Key& key) const;
  Future<IndexRange> get_all_async(const Key& key) const;
  Future<IndexRange> get_range_async(const KeyBound& start, const KeyBound& end,
                                     RangeOptions options = {}) const;
  Future<uint64_t> count_range_async(const KeyBound& start, const KeyBound& end,
                                     RangeOptions options = {}) const;
  Future<IndexRange> prefix_async(std::span<const std::byte> prefix,
                                  SortOrder order = SortOrder::ascending) const;
  Future<IndexRange> prefix_async(std::string_view text,
                                  SortOrder order = SortOrder::ascending) const;

  // Internal.
  SecondaryIndex(const detail::DatabaseState* db, const detail::TreeRef* tree) noexcept
      : db_(db), tree_(tree) {}

 private:
  // The rank of the first entry at or after (after = false) or past (after =
  // true) the entries of `key`.
  bool bound_rank(const Key& key, bool after, uint64_t* rank, detail::ErrorOut* err) const {
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
  bool ranks(const KeyBound& start, const KeyBound& end, const RangeOptions& o, uint64_t* first,
             uint64_t* last, detail::ErrorOut* err) const {
    if (!detail::check_range_bounds(*tree_, start, end, err)) return false;
    *first = 0;
    *last = tree_->desc->rows;
    if (start.bounded() && end.bounded())
      return bound_ranks(start.key(), o.start_exclusive, end.key(), !o.end_exclusive, first, last,
                         err);
    return (!start.bounded() || bound_rank(start.key(), o.start_exclusive, first, err)) &&
           (!end.bounded() || bound_rank(end.key(), !o.end_exclusive, last, err));
  }
  // bound_rank() of two keys, the start's into *first and the end's into
  // *last, their descents side by side (detail::rank_pair).
  bool bound_ranks(const Key& start, bool start_after, const Key& end, bool end_after,
                   uint64_t* first, uint64_t* last, detail::ErrorOut* err) const {
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

  const detail::DatabaseState* db_;
  const detail::TreeRef* tree_;
};

// ---- IndexCursor, inline ---------------------------------------------------

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
