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
  bool bound_rank(const Key& key, bool after, uint64_t* rank, detail::ErrorOut* err) const;
  // The ranks of the entries between two bounds: [*first, *last).
  bool ranks(const KeyBound& start, const KeyBound& end, const RangeOptions& o, uint64_t* first,
             uint64_t* last, detail::ErrorOut* err) const;
  // bound_rank() of two keys, the start's into *first and the end's into
  // *last, their descents side by side (detail::rank_pair).
  bool bound_ranks(const Key& start, bool start_after, const Key& end, bool end_after,
                   uint64_t* first, uint64_t* last, detail::ErrorOut* err) const;

  const detail::DatabaseState* db_;
  const detail::TreeRef* tree_;
};

}  // namespace drydb

#include "drydb/detail/index-inl.h"
