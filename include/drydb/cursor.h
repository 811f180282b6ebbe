// drydb::Cursor: a bidirectional position in a table's key order.
//
//   auto it = table.cursor();
//   for (bool ok = it.seek("key03"); ok; ok = it.next()) use(it.key(), it.value());
//   for (auto [key, value] : table.cursor()) ...   // every row, in key order
//
// Lifetimes: key() and value() views stay valid until the cursor moves or is
// destroyed (a key may be rebuilt in the cursor: pages of text keys store
// their shared prefix once); the cursor must not outlive its database. A cursor belongs to one
// thread at a time. A corrupt page or failed read ends the walk: the cursor
// becomes invalid and status() holds the error.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <string_view>
#include <utility>

#include "drydb/detail/db_state.h"
#include "drydb/detail/descent.h"
#include "drydb/detail/key_checks.h"
#include "drydb/detail/key_search.h"
#include "drydb/detail/page_access.h"
#include "drydb/key.h"
#include "drydb/result.h"

namespace drydb {

// One row: views of its key and value.
struct Entry {
  std::span<const std::byte> key;
  std::span<const std::byte> value;

  std::string_view key_str() const noexcept {
    return {reinterpret_cast<const char*>(key.data()), key.size()};
  }
  std::string_view value_str() const noexcept {
    return {reinterpret_cast<const char*>(value.data()), value.size()};
  }
};

class Cursor {
 public:
  // An unpositioned cursor over nothing; valid() is false.
  Cursor() noexcept = default;
  Cursor(const Cursor& o) noexcept { copy_from(o); }
  Cursor& operator=(const Cursor& o) noexcept {
    if (this != &o) {
      release();
      copy_from(o);
    }
    return *this;
  }
  Cursor(Cursor&& o) noexcept { move_from(o); }
  Cursor& operator=(Cursor&& o) noexcept {
    if (this != &o) {
      release();
      move_from(o);
    }
    return *this;
  }
  ~Cursor() { release(); }

  // Each positioning call returns valid(): whether the cursor is on a row.
  bool first() { return seek_rank(0); }
  bool last() { return tree_ && tree_->desc->rows ? seek_rank(tree_->desc->rows - 1) : clear(); }
  // The first row whose key is >= key.
  bool seek(const Key& key) {
    bool found;
    return seek_key(key, &found);
  }
  // Positions as seek() and returns whether that row's key equals `key`.
  bool seek_exact(const Key& key) {
    bool found = false;
    seek_key(key, &found);
    return found;
  }
  // The row with 0-based position `rank` in key order.
  bool seek_rank(uint64_t rank);
  bool next();
  bool prev();

  bool valid() const noexcept { return valid_; }
  // Requires: valid(). The position's rank among the table's rows.
  uint64_t rank() const noexcept { return rank_; }
  // The current row's key; empty when !valid().
  std::span<const std::byte> key() const noexcept {
    if (!valid_) return {};
    const auto k = leaf_.key(index_, key_buf_, key_buf_shared_);
    key_buf_shared_ = true;  // (read only on a prefixed leaf)
    return k;
  }
  // The current row's whole value, overflow values included; empty when
  // !valid(), or on a read error, which is then in status().
  std::span<const std::byte> value() const;
  Entry entry() const {
    if (valid_ && leaf_.prefixed() && !leaf_.is_overflow(index_)) {  // one reading of the record
      Entry e;
      e.key = leaf_.prefixed_entry(index_, key_buf_, key_buf_shared_, &e.value);
      key_buf_shared_ = true;
      return e;
    }
    return {key(), value()};
  }
  // Why the cursor last became invalid or failed to read a value, if an
  // error did; cleared by each positioning call (first, last, seek...).
  const drydb::status& status() const noexcept { return status_; }

  // Range-for support: from the current row (the first row when the cursor
  // is not positioned) to the last; each step moves this cursor.
  class iterator {
   public:
    using value_type = Entry;
    using difference_type = std::ptrdiff_t;
    Entry operator*() const { return cursor_->entry(); }
    iterator& operator++() {
      cursor_->next();
      return *this;
    }
    void operator++(int) { cursor_->next(); }
    bool operator==(std::default_sentinel_t) const noexcept { return !cursor_->valid(); }

   private:
    friend class Cursor;
    explicit iterator(Cursor* c) : cursor_(c) {}
    Cursor* cursor_;
  };
  iterator begin() {
    if (!valid_) first();
    return iterator(this);
  }
  std::default_sentinel_t end() const noexcept { return {}; }

  // Internal: a cursor over `tree`.
  Cursor(const detail::DatabaseState* db, const detail::TreeRef* tree) noexcept
      : db_(db), tree_(tree), depth_(tree->desc->depth) {}

 private:
  friend class ReadOnlyTable;
  friend class IndexCursor;
  template <class>
  friend class BasicRange;
  using Frame = detail::PathFrame;

  bool seek_key(const Key& key, bool* found);
  // The first row whose key is >= key, given in the tree's own key bytes.
  bool seek_bytes(std::span<const std::byte> key, bool* found);
  [[gnu::cold]] std::span<const std::byte> overflow_value() const;
  bool descend(uint32_t from_level, bool leftmost);
  // Positions on slot i of leaf p (pinned by pin), the row of rank `rank`.
  void enter_leaf(const std::byte* p, detail::PageSlot* pin, uint32_t i, uint64_t rank) noexcept;
  bool fail(Error e);
  bool clear() noexcept {
    release();
    valid_ = false;
    return false;
  }
  void drop_value() const noexcept {
    if (value_data_ == nullptr) return;  // no overflow value resolved (value_pin_ is null too)
    detail::unpin(value_pin_);
    value_pin_ = nullptr;
    value_data_ = nullptr;
  }
  void release() noexcept {
    drop_value();
    detail::unpin(leaf_pin_);
    leaf_pin_ = nullptr;
  }
  void copy_from(const Cursor& o) noexcept {
    db_ = o.db_;
    tree_ = o.tree_;
    depth_ = o.depth_;
    valid_ = o.valid_;
    rank_ = o.rank_;
    status_ = o.status_;
    if (valid_) copy_path(o);
    leaf_ = o.leaf_;
    key_buf_shared_ = false;
    index_ = o.index_;
    size_ = o.size_;
    leaf_pin_ = o.leaf_pin_;
    if (leaf_pin_) leaf_pin_->refs.fetch_add(1, std::memory_order_relaxed);
  }
  // The internal levels of o's path (a loop: one or two frames, usually).
  void copy_path(const Cursor& o) noexcept {
    for (uint32_t l = 0; l + 1 < depth_; ++l)
      path_[l] = o.path_[l];
  }
  void move_from(Cursor& o) noexcept {
    db_ = o.db_;
    tree_ = o.tree_;
    depth_ = o.depth_;
    valid_ = std::exchange(o.valid_, false);
    rank_ = o.rank_;
    status_ = std::move(o.status_);
    if (valid_) copy_path(o);
    leaf_ = o.leaf_;
    key_buf_shared_ = false;
    index_ = o.index_;
    size_ = o.size_;
    leaf_pin_ = std::exchange(o.leaf_pin_, nullptr);
    value_pin_ = std::exchange(o.value_pin_, nullptr);
    value_data_ = std::exchange(o.value_data_, nullptr);
    value_size_ = o.value_size_;
  }

  const detail::DatabaseState* db_ = nullptr;
  const detail::TreeRef* tree_ = nullptr;
  uint32_t depth_ = 0;
  bool valid_ = false;
  uint64_t rank_ = 0;
  // path_[0] is the root, path_[depth_-2] the leaf's parent: the internal
  // levels. The leaf is leaf_, decoded once per leaf, and the position in it
  // index_ of size_.
  Frame path_[detail::kMaxDepth];
  detail::LeafView leaf_;
  uint32_t index_ = 0;
  uint32_t size_ = 0;
  detail::PageSlot* leaf_pin_ = nullptr;
  mutable detail::PageSlot* value_pin_ = nullptr;  // an overflow run, resolved lazily
  mutable const std::byte* value_data_ = nullptr;
  mutable size_t value_size_ = 0;
  mutable drydb::status status_;  // value() records read errors of overflow runs
  // Where key() rebuilds a key its leaf stores after a shared prefix. Never
  // copied: key() fills it on each call, but for the leaf's shared prefix,
  // which stays there from the last call while the cursor keeps its leaf
  // (key_buf_shared_, cleared whenever leaf_ changes).
  mutable detail::KeyBuffer key_buf_;
  mutable bool key_buf_shared_ = false;
};

}  // namespace drydb

#include "drydb/detail/cursor-inl.h"
