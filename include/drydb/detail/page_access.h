// How a descent reads pages, its Pages parameter: ResidentPages (pages
// already resident and verified, no error object: the point-lookup hot
// path, which repeats the query with CheckedPages on a nullptr) or
// CheckedPages (loads missing pages, verifies first-touched ones, explains
// every failure).
#pragma once

#include <cstdint>

#include "drydb/detail/db_state.h"

namespace drydb::detail {

// Pages already resident and verified, read with no error object and no
// lock. A nullptr page (a miss, a first touch, a bad page) sends the caller
// to the same query with CheckedPages, which loads, checks and explains.
struct ResidentPages {
  const DatabaseState& db;
  DRYDB_ALWAYS_INLINE const std::byte* page(const TreeRef&, uint64_t page, PageType type,
                                            uint32_t level, PageSlot** pin) const noexcept {
    return db.try_fetch(page, type, level, pin);
  }
  // page(), for child `child` of internal page `parent` (nullptr: the root): resident pages
  // were checked when they entered memory, so the parent is not needed (and a descent's
  // bookkeeping of it is dead code here).
  DRYDB_ALWAYS_INLINE const std::byte* child(const TreeRef& tree, const std::byte*, uint32_t,
                                             uint64_t page, PageType type, uint32_t level,
                                             PageSlot** pin) const noexcept {
    return this->page(tree, page, type, level, pin);
  }
  void corrupt(const TreeRef&, uint64_t, const char*) const noexcept {}
};

// Pages through DatabaseState::fetch(): loaded when missing, verified on
// their first touch; a nullptr page comes with its error in *err.
struct CheckedPages {
  const DatabaseState& db;
  ErrorOut* err;
  DRYDB_ALWAYS_INLINE const std::byte* page(const TreeRef& tree, uint64_t page, PageType type,
                                            uint32_t level, PageSlot** pin) const {
    return db.fetch(tree, page, type, level, pin, err);
  }
  // page(), for child `child` of internal page `parent` (nullptr: the root): a page loaded
  // here is also checked against the separators `parent` gives it (check_child_fences).
  DRYDB_ALWAYS_INLINE const std::byte* child(const TreeRef& tree, const std::byte* parent,
                                             uint32_t child, uint64_t page, PageType type,
                                             uint32_t level, PageSlot** pin) const {
    return db.fetch(tree, page, type, level, pin, err, ParentRef{parent, child});
  }
  [[gnu::cold]] void corrupt(const TreeRef& tree, uint64_t page, const char* what) const {
    *err = corruption_at(tree, page, what);
  }
};

}  // namespace drydb::detail
