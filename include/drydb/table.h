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

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "drydb/cursor.h"
#include "drydb/detail/key_checks.h"
#include "drydb/detail/key_search.h"
#include "drydb/detail/lookup.h"
#include "drydb/key.h"
#include "drydb/range.h"
#include "drydb/result.h"
#include "drydb/value.h"

namespace drydb {

// Named here, defined where their queries are: include drydb/index.h to use
// index(), drydb/async.h to use the *_async forms.
class SecondaryIndex;
template <class T>
class Future;

struct TableInfo {
  std::string_view name;
  KeyEncoding encoding;
  uint64_t rows;
  uint32_t depth;  // 0 for an empty table, 1 when the root is a leaf
  uint64_t leaf_pages;
  uint64_t internal_pages;
  uint64_t overflow_pages;
  uint32_t max_key_length;  // the longest key in the table
  // The miss filter (TableBuilder::add_miss_filter): the bits per key it was
  // built with (0 = none) and its pages.
  uint32_t miss_filter_bits_per_key = 0;
  uint64_t miss_filter_pages = 0;
  // Memory held for the table's gets beyond its pages: the descent index of
  // a table of int64 (or other fixed-width keys up to 8 bytes) with three
  // levels or more, 8 bytes per leaf and 16 per internal page, made once the
  // table has served 64 gets per internal page (detail/descent_index.h); 0
  // before, and for other tables.
  uint64_t descent_index_bytes = 0;
};

class ReadOnlyTable {
 public:
  std::string_view name() const noexcept { return name_; }
  KeyEncoding encoding() const noexcept { return tree_->encoding; }
  TableInfo info() const noexcept;
  // Rows in the table, O(1).
  uint64_t count() const noexcept { return tree_->desc->rows; }
  // The column list the table was built with (TableBuilder::set_columns),
  // which says how to read its values as rows; empty when it has none. Valid
  // while the database is open.
  std::span<const std::string> columns() const noexcept {
    if (tree_->columns == nullptr) return {};
    return tree_->columns->names;
  }
  // The key's position among columns(), when the rows hold the key: there a
  // nil stands for the key's text (see set_columns).
  std::optional<uint32_t> key_column() const noexcept {
    if (tree_->columns == nullptr || tree_->columns->key_column == detail::kNoKeyColumn)
      return std::nullopt;
    return tree_->columns->key_column;
  }

  // The value of `key`: has_value() is false when absent. The Value keeps its
  // page resident until destroyed.
  result<Value> get(const Key& key) const {
    // The hot path: pages resident and verified, value inline. Anything else
    // (a cache miss, a first touch, an overflow value, an error) takes
    // get_checked(), which loads, checks and explains. One comparison sends
    // a key of the wrong kind, an empty table and a table with a miss filter
    // off the hot path (TreeRef::plain_get_kind).
    if (key.kind() != tree_->plain_get_kind) [[unlikely]]
      return get_off_the_hot_path(key);
    return get_unfiltered(key);
  }

  // get() of many keys: values[i] is keys[i]'s Value, as get() gives it
  // (has_value() false when absent), zero-copy, each found Value keeping its
  // page resident. Lookups run in batches whose descents advance together,
  // so that the cache misses of independent keys overlap (lookup.h,
  // probe_batch); keys in any order, repeats allowed. Allocates nothing once
  // the pages it reads are resident (as get()).
  // Errors: errc::invalid_argument unless values.size() == keys.size;
  // otherwise the first error of a key, in order (a wrong key type, a page
  // that fails to read or check), with every value reset.
  status get_many(std::span<const Key> keys, std::span<Value> values) const {
    if (keys.size() != values.size())
      return detail::get_many_sizes_differ(keys.size(), values.size());
    for (size_t at = 0; at < keys.size(); at += detail::kProbeBatch) {
      const size_t n = std::min<size_t>(detail::kProbeBatch, keys.size() - at);
      if (status st = get_batch(keys.subspan(at, n), values.subspan(at, n)); !st) [[unlikely]] {
        for (Value& v : values)
          v = Value();
        return st;
      }
    }
    return {};
  }

  // Rows between two bounds (each a key or drydb::unbounded), inclusive
  // unless options say otherwise, in either order. errc::invalid_argument if
  // both are bounded and start > end; start == end with an exclusive end is
  // empty. Two tree descents: one positions the range's cursor on its first
  // row (in the range's order), the other finds the rank of the far end.
  result<Range> get_range(const KeyBound& start, const KeyBound& end,
                          RangeOptions options = {}) const {
    // Every path returns `out`, made in place, so that the range's cursor
    // (near 1 KiB: its path, its leaf) is never moved.
    result<Range> out(std::in_place, std::in_place, db_, tree_);
    detail::ErrorOut err;
    if (!position_range(&*out, start, end, options, &err)) out = std::move(*err);
    return out;
  }

  // The number of rows between two bounds: two descents whatever the range's
  // size (internal pages store subtree row counts). The order is ignored.
  result<uint64_t> count_range(const KeyBound& start, const KeyBound& end,
                               RangeOptions options = {}) const {
    detail::ErrorOut err;
    uint64_t first, last;
    if (!detail::check_range_bounds(*tree_, start, end, &err) ||
        !bound_ranks(start, end, options, &first, &last, &err))
      return std::move(*err);
    return last > first ? last - first : 0;
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

  // The secondary index named `name` (include drydb/index.h); errc::not_found,
  // naming the indexes there are, if the table has none of that name.
  result<SecondaryIndex> index(std::string_view name) const;
  // Every secondary index of the table, in declaration order.
  std::vector<SecondaryIndex> indexes() const;

  // Internal.
  ReadOnlyTable(const detail::DatabaseState* db, const detail::TreeRef* tree,
                std::string_view name) noexcept
      : db_(db), tree_(tree), name_(name) {}

 private:
  // get_many() of at most kProbeBatch keys: one get() per key when their
  // kinds differ from the table's (an error) or the table is empty; else one
  // probe_batch, with the prefix search when every key takes it and the byte
  // search otherwise, then get_checked() for the keys it could not answer
  // over resident pages. Every found value is handed to its Value before any
  // slow key is resolved, so an error leaves no pin behind but in `values`,
  // which get_many() resets.
  status get_batch(std::span<const Key> keys, std::span<Value> values) const;

  // get() past the miss filter: the prefix-key search or get_general().
  DRYDB_ALWAYS_INLINE result<Value> get_unfiltered(const Key& key) const;

  // get() of a key of the wrong kind (get_checked() reports it), on an empty
  // table, or on a table with a miss filter: the filter's test, then
  // get_unfiltered().
  [[gnu::noinline]] inline result<Value> get_off_the_hot_path(const Key& key) const;

  // get() over resident pages with the key's in-page search, falling back
  // to get_checked().
  template <class Search>
  DRYDB_ALWAYS_INLINE result<Value> get_resident(const Key& key, const Search& search) const;

  // get()'s hot path for every other key layout (variable-width keys, wider
  // fixed widths): out of line, so the prefix-key path stays small.
  [[gnu::noinline]] inline result<Value> get_general(const Key& key) const;

  // get() through fetch(): loads missing pages, checks first-touched ones,
  // resolves overflow values and reports every error.
  [[gnu::noinline]] inline result<Value> get_checked(const Key& key) const;

  // get_range()'s work on `range`, an empty range over an unpositioned
  // cursor of this table: positions its cursor on the range's first row and
  // sets its rows and order. false (the error in *err) on bad bounds or a
  // failed read.
  bool position_range(Range* range, const KeyBound& start, const KeyBound& end,
                      const RangeOptions& options, detail::ErrorOut* err) const;

  // The rank a range's bound falls at: `unbounded` when it has no key; else the key's rank,
  // one more when the key is present and `past_equal` (an exclusive start, an inclusive end).
  bool bound_rank(const KeyBound& bound, uint64_t unbounded, bool past_equal, uint64_t* rank,
                  detail::ErrorOut* err, const Cursor* nearby) const;
  // The rank of the first row at or after the start bound.
  bool start_rank(const KeyBound& start, const RangeOptions& o, uint64_t* rank,
                  detail::ErrorOut* err, const Cursor* nearby = nullptr) const;
  // start_rank() and end_rank() of a range's bounds; when both are bounded,
  // their descents run side by side (detail::rank_pair).
  bool bound_ranks(const KeyBound& start, const KeyBound& end, const RangeOptions& o,
                   uint64_t* first, uint64_t* last, detail::ErrorOut* err) const;
  // One past the rank of the last row at or before the end bound.
  bool end_rank(const KeyBound& end, const RangeOptions& o, uint64_t* rank, detail::ErrorOut* err,
                const Cursor* nearby = nullptr) const;
  // rank_of(key), from the leaf a cursor already holds when the key falls
  // within that leaf's keys (a short range's far end usually does): one
  // in-page search instead of a descent.
  bool rank_near(detail::ByteView key, const Cursor* nearby, uint64_t* rank, bool* found,
                 detail::ErrorOut* err) const;

  const detail::DatabaseState* db_;
  const detail::TreeRef* tree_;
  std::string_view name_;

  // ---- Asynchronous queries (include drydb/async.h) ----------------------
 public:
  // The queries above, run on the database's executor (OpenOptions::executor,
  // else drydb's default pool). Each copies its keys, enqueues one task and
  // returns at once; the Future gives what the sync query returns, errors
  // included. Read async.h for what destroying the database with queries in
  // flight does. Each call allocates (the query's state, the task, keys).
  Future<Value> get_async(const Key& key) const;
  Future<Range> get_range_async(const KeyBound& start, const KeyBound& end,
                                RangeOptions options = {}) const;
  Future<uint64_t> count_range_async(const KeyBound& start, const KeyBound& end,
                                     RangeOptions options = {}) const;
  Future<Range> prefix_async(std::span<const std::byte> prefix,
                             SortOrder order = SortOrder::ascending) const;
  Future<Range> prefix_async(std::string_view text, SortOrder order = SortOrder::ascending) const;
  // Reads every page of the rows between two bounds (inclusive), leaves and
  // overflow runs, so that later queries there find them in the page cache
  // (pread, custom storage) or mapped in (mmap: each page is touched; memory:
  // each page is checked, its bytes already read at open). A
  // range larger than the cache just cycles it. Errors as get_range's, or
  // the first read error met. To warm in the background without waiting:
  // table.warm_async(start, end).detach().
  Future<void> warm_async(const KeyBound& start, const KeyBound& end) const;
  // ---- end of asynchronous queries -----------------------------------------
};

}  // namespace drydb

#include "drydb/detail/table-inl.h"
