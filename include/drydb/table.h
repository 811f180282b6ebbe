// drydb::ReadOnlyTable: the queries of one table.
//
// A cheap handle (two pointers); copy it freely. It and everything it returns
// must not outlive the database. Every query is safe to run from many threads
// at once; the Values, Ranges and Cursors it returns belong to one thread.
//
// Keys: a bytes (or custom) table takes text or bytes; an int64 table takes
// integers; uuid_v7 and ulid tables take Uuid and Ulid. Any other kind of key
// is errc::wrong_key_type.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "drydb/cursor.h"
#include "drydb/detail/search.h"
#include "drydb/key.h"
#include "drydb/range.h"
#include "drydb/result.h"
#include "drydb/value.h"

namespace drydb {

struct TableInfo {
  std::string_view name;
  KeyEncoding encoding;
  uint64_t rows;
  uint32_t depth;  // 0 for an empty table, 1 when the root is a leaf
  uint64_t leaf_pages;
  uint64_t internal_pages;
  uint64_t overflow_pages;
  uint32_t max_key_length;  // the longest key in the table
};

class ReadOnlyTable {
 public:
  std::string_view name() const noexcept { return name_; }
  KeyEncoding encoding() const noexcept { return tree_->encoding; }
  TableInfo info() const noexcept;
  // Rows in the table, O(1).
  uint64_t count() const noexcept { return tree_->desc->rows; }

  // The value of `key`: has_value() is false when absent. The Value keeps its
  // page resident until destroyed.
  result<Value> get(const Key& key) const {
    detail::ErrorOut err;
    if (!detail::check_key_kind(*tree_, key, &err)) return std::move(*err);
    const detail::TreeDesc& d = *tree_->desc;
    if (d.rows == 0) return Value();
    const auto k = key.bytes();
    const uint64_t kp = detail::key_prefix(k.data(), k.size());
    uint64_t rank = 0;
    detail::PageSlot* pin;
    const std::byte* leaf_page = detail::descend_to_leaf(*db_, *tree_, k, kp, &rank, &pin, &err);
    if (leaf_page == nullptr) return std::move(*err);
    detail::LeafView leaf(leaf_page, tree_->layout);
    bool found;
    uint32_t i = leaf.lower_bound(k, kp, &found);
    if (!found) {
      detail::unpin(pin);
      return Value();
    }
    detail::ByteView v;
    detail::PageSlot* value_pin;
    bool ok = detail::resolve_value(*db_, *tree_, leaf, i, &v, &value_pin, &err);
    if (value_pin != nullptr || !ok) {  // an overflow run holds the value, not the leaf
      detail::unpin(pin);
      pin = value_pin;
    }
    if (!ok) return std::move(*err);
    return Value::found(v.data(), v.size(), pin);
  }

  // Rows between two bounds (each a key or drydb::unbounded), inclusive
  // unless options say otherwise, in either order. errc::invalid_argument if
  // both are bounded and start > end; start == end with an exclusive end is
  // empty.
  result<Range> get_range(const KeyBound& start, const KeyBound& end,
                          RangeOptions options = {}) const {
    uint64_t first, last;
    detail::ErrorOut err;
    if (!ranks(start, end, options, &first, &last, &err)) return std::move(*err);
    return Range(Cursor(db_, tree_), first, last - first, options.order);
  }

  // The number of rows between two bounds: two descents whatever the range's
  // size (internal pages store subtree row counts). The order is ignored.
  result<uint64_t> count_range(const KeyBound& start, const KeyBound& end,
                               RangeOptions options = {}) const {
    uint64_t first, last;
    detail::ErrorOut err;
    if (!ranks(start, end, options, &first, &last, &err)) return std::move(*err);
    return last - first;
  }

  // Rows whose key starts with `prefix` (bytes of the encoded key; every row
  // for an empty prefix). errc::wrong_key_type unless the table has byte keys
  // (bytes or a custom encoding).
  result<Range> prefix(std::span<const std::byte> prefix,
                       SortOrder order = SortOrder::ascending) const;
  result<Range> prefix(std::string_view text, SortOrder order = SortOrder::ascending) const {
    return prefix(std::as_bytes(std::span(text.data(), text.size())), order);
  }

  // An unpositioned cursor (see cursor.h).
  Cursor cursor() const noexcept { return Cursor(db_, tree_); }

  // Internal.
  ReadOnlyTable(const detail::DatabaseState* db, const detail::TreeRef* tree,
                std::string_view name) noexcept
      : db_(db), tree_(tree), name_(name) {}

 private:
  // Ranks [first, last) of the rows between the bounds.
  bool ranks(const KeyBound& start, const KeyBound& end, const RangeOptions& o, uint64_t* first,
             uint64_t* last, detail::ErrorOut* err) const;

  const detail::DatabaseState* db_;
  const detail::TreeRef* tree_;
  std::string_view name_;
};

}  // namespace drydb
