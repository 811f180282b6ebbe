// drydb::ShardedDatabase: one generation of a sharded dataset (docs/sharding.md), read as one
// database. Part of the drydb::dataset library.
//
//   auto ds = drydb::ShardedDatabase::open("datasets/users").value();  // CURRENT's generation
//   auto users = ds.table("users").value();
//   auto v = users.get(int64_t{42});                    // routed to one shard
//   auto n = users.count_range(100, 200);               // O(log S + log n) for range-v1
//   for (auto [key, value] : *users.get_range(100, 200)) ...  // across shards, in key order
//
// Opening checks the manifest and every shard against it (tables, encodings, indexes, row counts,
// first and last keys, file sizes; checksums on request), so a query never meets a shard that
// disagrees with the manifest. The database is immutable and safe to query from many threads;
// tables and ranges obtained from it must not outlive it. A ShardedDatabase stays on the
// generation it opened: open the dataset again to follow CURRENT.
//
// Every error a shard gives (opening, verifying, querying it: a damaged page, a failed read)
// begins with the shard's file, as shard_path names it:
//   ds/gen-1/shard-00002.drydb: table 'data', page 7: checksum mismatch
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "drydb/cursor.h"
#include "drydb/database.h"
#include "drydb/dataset.h"
#include "drydb/index.h"
#include "drydb/range.h"

namespace drydb {

namespace detail {
struct ShardedState;
struct ShardedTableState;
}  // namespace detail

struct ShardedOptions {
  OpenOptions open;  // how each shard is opened
  // Read every shard whole and compare its XXH3-64 with the manifest's (errc::corruption).
  bool verify_checksums = false;
};

// The rows of a range across shards, in key order (or reversed): the shards' own ranges one after
// another for a range-partitioned table, merged by key for a hash-partitioned one. Its size is
// known up front; rows are read as it is iterated; each row's views stay valid until the next
// step. Belongs to one thread at a time; must not be moved while an iteration runs.
class ShardedRange {
 public:
  ShardedRange() = default;
  uint64_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  // The first error the latest iteration met (which ended it early), naming its shard's file.
  const drydb::status& status() const noexcept { return status_; }

  class iterator {
   public:
    using value_type = Entry;
    using difference_type = std::ptrdiff_t;
    Entry operator*() const { return *parts_[current_]; }
    // Concatenated, a step within the current part is inline, as a one-file range's is; the
    // next part is reached out of line.
    iterator& operator++() {
      if (merge_) return step_merged();
      Range::iterator& part = parts_[current_];
      ++part;
      if (part == std::default_sentinel) skip_empty_parts();
      return *this;
    }
    bool operator==(std::default_sentinel_t) const noexcept { return current_ == kDone; }

   private:
    friend class ShardedRange;
    static constexpr size_t kDone = SIZE_MAX;
    explicit iterator(ShardedRange* r);
    // Concatenated: moves current_ to the first part, from current_ on, that has a row left,
    // beginning each part it moves to.
    void skip_empty_parts();
    // Merged: the next row of the parts' heap.
    iterator& step_merged();
    // Merged: whether part a's row comes after part b's in the range's order (the heap's order).
    bool after(uint32_t a, uint32_t b) const;
    ShardedRange* range_;
    bool merge_;
    // Each part's iterator; concatenated, only the parts begun so far (up to current_).
    std::vector<Range::iterator> parts_;
    std::vector<uint32_t> heap_;  // merged: the parts with a row left, the next row's on top
    size_t current_ = kDone;
  };
  iterator begin() { return iterator(this); }
  std::default_sentinel_t end() const noexcept { return {}; }

 private:
  friend class ShardedTable;
  // `shards[i]` is the shard of parts[i], `names` the shards' files (ShardedState's).
  ShardedRange(std::vector<Range> parts, std::vector<uint32_t> shards,
               const std::vector<std::string>* names, bool merge, SortOrder order);
  // Ends the iteration on part i's error: status() gives it, naming the part's shard.
  void fail(size_t i);
  std::vector<Range> parts_;      // in shard order (reversed for a descending concatenation)
  std::vector<uint32_t> shards_;  // each part's shard
  const std::vector<std::string>* names_ = nullptr;
  drydb::status status_;  // the latest iteration's error (an iteration's start clears it)
  bool merge_ = false;
  SortOrder order_ = SortOrder::ascending;
  uint64_t size_ = 0;
};

// A cursor over a range-partitioned table's rows across its shards, in key order, as
// drydb::Cursor is over one file's: a shard's own cursor, handed on to the next (or previous)
// shard that has rows when it runs off its shard's end, so that a walk crosses shards, empty
// ones included, as if they were one table. rank() counts the rows of the shards before from
// the manifest. Positioning calls return valid(); key() and value() views stay valid until the
// cursor moves. Belongs to one thread at a time; must not outlive its ShardedDatabase.
class ShardedCursor {
 public:
  ShardedCursor() = default;

  bool first();
  bool last();
  // The first row whose key is >= key (in its shard, or the first row of a later shard).
  bool seek(const Key& key);
  // Positions as seek() and returns whether that row's key equals `key`.
  bool seek_exact(const Key& key);
  // The row with 0-based position `rank` among all the shards' rows.
  bool seek_rank(uint64_t rank);
  bool next();
  bool prev();

  bool valid() const noexcept { return cursor_.valid(); }
  // Requires: valid(). The row's rank among all the shards' rows.
  uint64_t rank() const noexcept;
  // The shard of the current row. Requires: valid().
  uint32_t shard() const noexcept { return shard_; }
  std::span<const std::byte> key() const noexcept { return cursor_.key(); }
  std::span<const std::byte> value() const {
    const auto v = cursor_.value();
    if (!cursor_.status()) [[unlikely]]
      name_error();
    return v;
  }
  // Why the cursor last became invalid or failed to read a value, if an error did (as
  // Cursor::status()), naming the shard's file.
  const drydb::status& status() const noexcept {
    return cursor_.status() ? cursor_.status() : status_;
  }

 private:
  friend class ShardedTable;
  explicit ShardedCursor(const detail::ShardedTableState* t) : t_(t) {}
  // Positions on the first row of the first shard from `shard` on that has rows, or with
  // `backward` on the last row of the last one from `shard` down; invalid when none has.
  bool enter(int64_t shard, bool backward);
  // `valid`, after naming the shard's file in the error the move ended on, if it did.
  bool settle(bool valid) {
    if (!cursor_.status()) [[unlikely]]
      name_error();
    return valid;
  }
  // status_ = the shard cursor's error, naming its shard's file.
  void name_error() const;
  const detail::ShardedTableState* t_ = nullptr;
  uint32_t shard_ = 0;
  Cursor cursor_;
  mutable drydb::status status_;
};

// An entry of a secondary index across shards: its index key, and its row's primary key and
// value. The views stay valid until the iteration steps.
struct ShardedIndexEntry {
  std::span<const std::byte> index_key;
  std::span<const std::byte> key;
  std::span<const std::byte> value;
};

// The entries of a secondary index between two bounds across the shards, in (index key,
// primary key) order or its reverse: every shard's own entries, merged (S-way). Its size is
// known up front; entries are read as it is iterated. Belongs to one thread at a time; must not
// be moved while an iteration runs, nor outlive its ShardedDatabase.
class ShardedIndexRange {
 public:
  ShardedIndexRange() = default;
  uint64_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  // The first error the latest iteration met (which ended it early), naming its shard's file.
  const drydb::status& status() const noexcept { return status_; }

  class iterator {
   public:
    using value_type = ShardedIndexEntry;
    using difference_type = std::ptrdiff_t;
    ShardedIndexEntry operator*() const;
    iterator& operator++();
    bool operator==(std::default_sentinel_t) const noexcept { return heap_.empty(); }

   private:
    friend class ShardedIndexRange;
    explicit iterator(ShardedIndexRange* r);
    // Whether part a's entry comes after part b's in the range's order (the heap's order).
    bool after(uint32_t a, uint32_t b) const;
    // After part i moved (to `moved`, whether it is on an entry): puts it on the heap with its
    // entry read, or ends the iteration with the error that stopped it.
    void take(uint32_t i, bool moved);
    ShardedIndexRange* range_;
    std::vector<uint64_t> left_;  // entries each part has still to give
    std::vector<uint32_t> heap_;  // the parts with an entry at hand, the next one on top
  };
  // Iterating again starts over.
  iterator begin() { return iterator(this); }
  std::default_sentinel_t end() const noexcept { return {}; }

 private:
  friend class ShardedIndex;
  // Shard `shard`'s part of the range: its entries [first_rank, first_rank + count) in index
  // order. A copy (a copied range) gets a cursor of its own.
  struct Part {
    Part(SecondaryIndex ix, uint64_t first, uint64_t n, uint32_t s)
        : index(ix), cursor(ix.cursor()), first_rank(first), count(n), shard(s) {}
    Part(const Part& o) : Part(o.index, o.first_rank, o.count, o.shard) {}
    Part(Part&&) noexcept = default;
    Part& operator=(Part o) noexcept {
      std::swap(index, o.index);
      std::swap(cursor, o.cursor);
      first_rank = o.first_rank;
      count = o.count;
      shard = o.shard;
      return *this;
    }
    SecondaryIndex index;
    IndexCursor cursor;
    uint64_t first_rank, count;
    uint32_t shard;
  };
  // `names`: the shards' files (ShardedState's).
  ShardedIndexRange(std::vector<Part> parts, const std::vector<std::string>* names,
                    SortOrder order);
  std::vector<Part> parts_;
  const std::vector<std::string>* names_ = nullptr;
  SortOrder order_ = SortOrder::ascending;
  uint64_t size_ = 0;
  drydb::status status_;
};

// A secondary index of a sharded table: each shard's index over its rows, queried together.
// Lookups and counts ask every shard (O(S log n)); ranges merge the shards' entries. A unique
// index is unique across the dataset (the builder's finalizer checks it), so get() finds at most
// one row. A cheap handle; must not outlive its ShardedDatabase.
class ShardedIndex {
 public:
  std::string_view name() const noexcept { return parts_.front().name(); }
  bool unique() const noexcept { return parts_.front().unique(); }
  KeyEncoding encoding() const noexcept { return parts_.front().encoding(); }
  // Entries in every shard.
  uint64_t count() const noexcept;
  // The row whose index key is `key` (for a non-unique index, the first in primary-key order),
  // as SecondaryIndex::get.
  result<Row> get(const Key& key) const;
  // Every row whose index key is `key`, in primary-key order.
  result<ShardedIndexRange> get_all(const Key& key) const { return get_range(key, key); }
  // As SecondaryIndex::get_range, across the shards.
  result<ShardedIndexRange> get_range(const KeyBound& start, const KeyBound& end,
                                      const RangeOptions& options = {}) const;
  // As SecondaryIndex::count_range, summed over the shards.
  result<uint64_t> count_range(const KeyBound& start, const KeyBound& end,
                               const RangeOptions& options = {}) const;
  // As SecondaryIndex::prefix, across the shards.
  result<ShardedIndexRange> prefix(std::span<const std::byte> prefix,
                                   SortOrder order = SortOrder::ascending) const;
  result<ShardedIndexRange> prefix(std::string_view text,
                                   SortOrder order = SortOrder::ascending) const {
    return prefix(std::as_bytes(std::span(text.data(), text.size())), order);
  }

 private:
  friend class ShardedTable;
  ShardedIndex(std::vector<SecondaryIndex> parts, const std::vector<std::string>* names)
      : parts_(std::move(parts)), names_(names) {}
  // The merged range of each shard's own range, made by `range_of(shard's index)`.
  template <class RangeOf>
  result<ShardedIndexRange> merged(RangeOf range_of, SortOrder order) const;
  std::vector<SecondaryIndex> parts_;      // one per shard
  const std::vector<std::string>* names_;  // the shards' files
};

// One table of a sharded dataset. A cheap handle; must not outlive its ShardedDatabase.
class ShardedTable {
 public:
  std::string_view name() const noexcept;
  KeyEncoding encoding() const noexcept;
  const Partitioning& partitioning() const noexcept;
  // Rows in every shard, O(1).
  uint64_t count() const noexcept;

  // The shard whose file holds `key` (the partition function of the manifest).
  uint32_t shard_of(const Key& key) const noexcept;
  // The value of `key`, from its shard: as ReadOnlyTable::get.
  result<Value> get(const Key& key) const;
  // As ReadOnlyTable::count_range: O(log S + log n) for range-v1 (the shards between the bounds'
  // shards counted from the manifest), O(S log n) for a hash-partitioned table.
  result<uint64_t> count_range(const KeyBound& start, const KeyBound& end,
                               const RangeOptions& options = {}) const;
  // As ReadOnlyTable::get_range, across the shards.
  result<ShardedRange> get_range(const KeyBound& start, const KeyBound& end,
                                 const RangeOptions& options = {}) const;
  // The rows whose encoded key starts with `prefix`, across the shards.
  result<ShardedRange> prefix(std::span<const std::byte> prefix,
                              SortOrder order = SortOrder::ascending) const;
  result<ShardedRange> prefix(std::string_view text, SortOrder order = SortOrder::ascending) const {
    return prefix(std::as_bytes(std::span(text.data(), text.size())), order);
  }
  // The secondary index `name` across the shards; errc::not_found naming the indexes the
  // manifest declares.
  result<ShardedIndex> index(std::string_view name) const;
  std::vector<ShardedIndex> indexes() const;
  // A cursor across the shards, unpositioned (ShardedCursor). errc::invalid_argument for a
  // hash-partitioned table, whose rows are in no shard order: its ranges merge the shards'.
  result<ShardedCursor> cursor() const;

 private:
  friend class ShardedDatabase;
  explicit ShardedTable(const detail::ShardedTableState* t) : t_(t) {}
  // The shards a range between these bounds can meet: [first, last].
  void shard_span(const KeyBound& start, const KeyBound& end, uint32_t* first,
                  uint32_t* last) const noexcept;
  const detail::ShardedTableState* t_;
};

class ShardedDatabase {
 public:
  // Opens `path`: a dataset folder (the generation CURRENT names), a generation folder (gen-N),
  // or a manifest file; then every shard the manifest names, beside it. Errors: the manifest's
  // (read_manifest); errc::not_found for a dataset with no live generation; errc::corruption for
  // a manifest in a gen-N folder whose generation is not N (naming the file and both numbers);
  // each shard's open errors, naming the shard; errc::corruption for a shard that disagrees with
  // the manifest.
  static result<ShardedDatabase> open(const std::filesystem::path& path,
                                      const ShardedOptions& options = {});

  ShardedDatabase(ShardedDatabase&&) noexcept;
  ShardedDatabase& operator=(ShardedDatabase&&) noexcept;
  ~ShardedDatabase();

  const Manifest& manifest() const noexcept;
  uint64_t generation() const noexcept { return manifest().generation; }
  size_t shard_count() const noexcept;
  // Shard i as the database it is (whose own errors name no file).
  const ReadOnlyDatabase& shard(size_t i) const noexcept;
  // Shard i's file: the manifest's name for it, in the manifest's folder.
  std::filesystem::path shard_path(size_t i) const;
  // Checks every shard as ReadOnlyDatabase::verify does (every page and tree invariant): the
  // first fault, naming its shard's file. (Shard i's own verify() names no file.)
  status verify() const;

  // The table `name`; errc::not_found naming the tables there are.
  result<ShardedTable> table(std::string_view name) const;
  std::vector<ShardedTable> tables() const;

 private:
  explicit ShardedDatabase(std::unique_ptr<detail::ShardedState> s);
  std::unique_ptr<detail::ShardedState> state_;
};

}  // namespace drydb
