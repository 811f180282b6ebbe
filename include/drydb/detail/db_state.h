// The state behind a ReadOnlyDatabase, shared by its tables, cursors and
// value handles: storage, the validated catalog, and page access.
//
// fetch() (and its hot-path form try_fetch()) is the read path's way to a
// page; the one exception is a prefix-key tree's root, reached through the
// RootHint a fetch filled. For mapped storage a fetch is an address
// computation plus one acquire load of the page's "verified" byte (checksum
// and structure are checked on a page's first touch, then never again). For
// other storage it is a page-cache lookup (page_cache.h).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "drydb/detail/catalog.h"
#include "drydb/detail/format.h"
#include "drydb/detail/node.h"
#include "drydb/detail/page_cache.h"
#include "drydb/detail/tree_ref.h"
#include "drydb/key_encoding.h"
#include "drydb/options.h"
#include "drydb/result.h"
#include "drydb/storage.h"

namespace drydb {
class Executor;
}

namespace drydb::detail {

class AsyncHub;
struct LockedState;

class DatabaseState {
 public:
  DatabaseState();
  ~DatabaseState();
  DatabaseState(const DatabaseState&) = delete;
  DatabaseState& operator=(const DatabaseState&) = delete;

  // Verified bytes of `page`, which must be of `type` (and, for internal
  // pages, of `level`). When *pin is set on return the caller releases it
  // with unpin(). On failure returns nullptr and fills *err. With a `parent`
  // (a descent's), a page that enters memory here (or is first touched,
  // mapped) is also checked against its parent's separators.
  DRYDB_ALWAYS_INLINE const std::byte* fetch(const TreeRef& tree, uint64_t page, PageType type,
                                             uint32_t level, PageSlot** pin, ErrorOut* err,
                                             ParentRef parent = {}) const {
    const std::byte* p;
    *pin = nullptr;
    if (base_ != nullptr) {
      p = base_ + page * page_size_;
      if (!verified_[page].load(std::memory_order_acquire) &&
          !verify_mapped(tree, page, type, level, err, parent))
        return nullptr;
    } else {
      p = slots_[page].try_acquire(pin);
      if (p == nullptr && (p = load(tree, page, type, level, pin, err, parent)) == nullptr)
        return nullptr;
    }
    if (!is_page_of(p, type, level)) [[unlikely]] {
      unpin(*pin);
      *pin = nullptr;
      wrong_page(tree, page, type, level, err);
      return nullptr;
    }
    return p;
  }

  // fetch() for a page already resident and verified: nullptr when it is not
  // (a miss, a first touch) or not of `type` and `level`, and the caller
  // falls back to fetch(), which loads, checks and explains. The hot path of
  // point lookups: no error object, no lock.
  DRYDB_ALWAYS_INLINE const std::byte* try_fetch(uint64_t page, PageType type, uint32_t level,
                                                 PageSlot** pin) const noexcept {
    const std::byte* p;
    *pin = nullptr;
    if (base_ != nullptr) {
      if (!verified_[page].load(std::memory_order_acquire)) return nullptr;
      p = base_ + page * page_size_;
    } else if ((p = slots_[page].try_acquire(pin)) == nullptr) {
      return nullptr;
    }
    if (!is_page_of(p, type, level)) [[unlikely]] {
      unpin(*pin);
      *pin = nullptr;
      return nullptr;
    }
    return p;
  }

  // Prefetching: prefetch_line(prefetch_address(page), offset) asks the
  // processor to bring the cache line at `offset` of `page` closer, without
  // reading it. The page need not be verified, or even resident (then
  // prefetch_address is nullptr and nothing happens); an offset past the page
  // is ignored. For descents, which overlap the misses of a leaf's lines
  // (and get_many, of independent descents).
  DRYDB_ALWAYS_INLINE const std::byte* prefetch_address(uint64_t page) const noexcept {
    if (page >= page_count_) return nullptr;
    return base_ != nullptr ? base_ + page * page_size_
                            : slots_[page].data.load(std::memory_order_relaxed);
  }
  DRYDB_ALWAYS_INLINE void prefetch_line(const std::byte* p, size_t offset) const noexcept {
    if (p != nullptr && offset < page_size_) __builtin_prefetch(p + offset);
  }

  uint32_t page_size() const noexcept { return page_size_; }
  // The file's identity (format 2.4), or 0 for a file of an earlier format.
  uint64_t identity() const noexcept { return identity_; }
  const Catalog& catalog() const noexcept { return catalog_; }
  const std::vector<TreeRef>& primaries() const noexcept { return primaries_; }
  // The index trees of table `table` (its position in the catalog).
  std::span<const TreeRef> indexes_of(size_t table) const noexcept {
    return std::span(indexes_).subspan(index_begin_[table],
                                       index_begin_[table + 1] - index_begin_[table]);
  }

  // Asynchronous queries (async.h): the hub is made on first use; close_async()
  // settles its queries. Both in src/read/async.cpp.
  std::shared_ptr<AsyncHub> async_hub() const;
  void close_async() const;

  // verify(): the file header's padding (bytes 64 to the end of page 0, in an
  // unfiltered file) is zero, as the format says; no reader needs it to be.
  status check_header_padding() const;

  // Opening: validates the header and catalog and resolves every tree.
  static result<std::unique_ptr<DatabaseState>> open(std::unique_ptr<Storage> storage,
                                                     const OpenOptions& options);

 private:
  static bool is_page_of(const std::byte* p, PageType type, uint32_t level) noexcept {
    return static_cast<PageType>(p[page::kTypeOff]) == type &&
           (type != PageType::internal || load_u16(p + internal::kLevelOff) == level);
  }
  [[gnu::cold]] bool verify_mapped(const TreeRef& tree, uint64_t page, PageType type,
                                   uint32_t level, ErrorOut* err, ParentRef parent) const;
  const std::byte* load(const TreeRef& tree, uint64_t page, PageType type, uint32_t level,
                        PageSlot** pin, ErrorOut* err, ParentRef parent) const;
  [[gnu::cold]] void wrong_page(const TreeRef& tree, uint64_t page, PageType type, uint32_t level,
                                ErrorOut* err) const;
  void evict_locked() const;
  // Reads pages [first, first+count) into dst, decoding filtered pages.
  status read_pages(uint64_t first, uint64_t count, std::byte* dst) const;
  status decode_page(uint64_t page, std::byte* dst) const;

  std::unique_ptr<Storage> storage_;
  const std::byte* base_ = nullptr;  // the mapped file, or nullptr
  uint32_t page_size_ = 0;
  uint64_t page_count_ = 0;
  uint64_t identity_ = 0;
  Catalog catalog_;
  std::vector<TreeRef> primaries_;   // one per table, in catalog order
  std::vector<TreeRef> indexes_;     // every table's index trees, table by table
  std::vector<size_t> index_begin_;  // table i's indexes are [index_begin_[i], index_begin_[i+1])
  std::unique_ptr<RootHint[]> root_hints_;  // one per tree, primaries first

  // Mapped storage: one byte per page, set once the page passed its checks.
  std::unique_ptr<std::atomic<uint8_t>[]> verified_;

  // Page filters in chain order, and the output bound of each decoding stage.
  std::vector<std::shared_ptr<const PageFilter>> filters_;
  std::vector<size_t> stage_capacity_;
  std::span<const std::byte> mapped_;  // a filtered file's mapping, if mapped

  // Asynchronous queries.
  Executor* executor_ = nullptr;  // OpenOptions::executor; nullptr = the default pool

  // Cached storage.
  std::unique_ptr<PageSlot[]> slots_;
  PageAllocator* allocator_ = nullptr;
  bool all_permanent_ = false;  // the cache can hold the whole file
  size_t budget_ = 0;
  // The eviction state and the async hub, under their locks (src/read/locked_state.h).
  std::unique_ptr<LockedState> locked_;
};

}  // namespace drydb::detail
