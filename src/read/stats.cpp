// read_file_info and tree_stats (drydb/stats.h): a file's facts and how each
// tree uses its pages.
#include "drydb/stats.h"

#include <algorithm>
#include <string>

#include "drydb/database.h"
#include "drydb/detail/coding.h"
#include "drydb/detail/db_state.h"
#include "drydb/detail/node.h"

namespace drydb {
namespace {

using detail::PageSlot;
using detail::PageType;

// Bytes of a leaf in use: its header, key prefixes and offsets, and its
// records up to the last one's end (docs/format.md, "Leaf page").
uint64_t leaf_used(const std::byte* p, uint32_t page_size, uint16_t key_width) {
  namespace leaf = detail::leaf;
  const uint32_t n = detail::load_u16(p + detail::page::kCountOff);
  const auto flags = static_cast<uint8_t>(p[detail::page::kFlagsOff]);
  uint64_t used;
  if (flags & leaf::kUniformValues) {
    const uint32_t value_len = detail::load_u16(p + leaf::kUniformLenOff);
    const uint32_t key_part = key_width <= 8 ? 0 : key_width;
    used = leaf::offsets_off(n) + uint64_t{n} * (key_part + value_len);
  } else {
    // The offset after the last record's is where the records end.
    used = leaf::records_off(n, flags) + detail::load_u16(p + leaf::offsets_off(n) + 2 * size_t{n});
  }
  return std::min<uint64_t>(used, page_size);
}

// Bytes of an internal page in use: header, children, counts and separators.
uint64_t internal_used(const std::byte* p, uint32_t page_size, uint16_t key_width) {
  namespace internal = detail::internal;
  const uint32_t n = detail::load_u16(p + detail::page::kCountOff);
  if (n == 0) return internal::kHeaderSize;
  const uint64_t keys = internal::keys_off(n);
  uint64_t used;
  if (key_width == 0)  // n-1 offsets, then the separators up to the last offset
    used = keys + 2 * uint64_t{n} + detail::load_u16(p + keys + 2 * (uint64_t{n} - 1));
  else if (key_width <= 8)  // separators are the prefixes before the keys area
    used = keys;
  else
    used = keys + (uint64_t{n} - 1) * key_width;
  return std::min<uint64_t>(used, page_size);
}

class TreeWalker {
 public:
  TreeWalker(const detail::DatabaseState& db, const detail::TreeRef& tree, TreeStats* st)
      : db_(db), tree_(tree), st_(*st) {}

  // Visits the subtree at `page`, of height `level` (0 = a leaf).
  status visit(uint64_t page, uint32_t level) {
    PageSlot* pin;
    detail::ErrorOut err;
    const std::byte* p =
        db_.fetch(tree_, page, level == 0 ? PageType::leaf : PageType::internal, level, &pin, &err);
    if (p == nullptr) return std::move(*err);
    ++st_.pages_per_level[level];
    const uint32_t ps = db_.page_size();
    const uint16_t width = tree_.desc->key_width;
    if (level == 0) {
      st_.leaf_bytes_used += leaf_used(p, ps, width);
      const detail::LeafView leaf(p, tree_.layout);
      for (uint32_t i = 0; i < leaf.size(); ++i) {
        if (!leaf.is_overflow(i)) continue;
        // An overflow reference: the run's first page, then the value's length.
        const uint32_t length = detail::load_u32(leaf.value_field(i).data() + 8);
        ++st_.overflow_runs;
        st_.overflow_pages += detail::overflow::pages_for(length, ps);
      }
      detail::unpin(pin);
      return {};
    }
    st_.internal_bytes_used += internal_used(p, ps, width);
    const detail::InternalView node(p, tree_.layout);
    // Children are copied so the page is released before they are read: a
    // small cache need not hold a whole path's pages.
    std::vector<uint64_t> children(node.size());
    for (uint32_t i = 0; i < node.size(); ++i)
      children[i] = node.child(i);
    detail::unpin(pin);
    for (const uint64_t child : children)
      DRYDB_TRY(visit(child, level - 1));
    return {};
  }

 private:
  const detail::DatabaseState& db_;
  const detail::TreeRef& tree_;
  TreeStats& st_;
};

Error not_found(std::string what) {
  return Error(errc::not_found, std::move(what));
}

}  // namespace

result<FileInfo> read_file_info(const std::filesystem::path& path) {
  auto storage = open_pread_storage(path);
  if (!storage) return std::move(storage).error();
  std::byte head[detail::header::kSize];
  if ((*storage)->size() >= sizeof head) DRYDB_TRY((*storage)->read_at(0, head));
  // Opening checks the header (read above only when long enough to be one) and the catalog.
  auto state = detail::DatabaseState::open(std::move(*storage), {});
  if (!state) return std::move(state).error();
  namespace h = detail::header;
  FileInfo info;
  info.format_major = detail::load_u16(head + h::kMajorOff);
  info.format_minor = detail::load_u16(head + h::kMinorOff);
  info.required_features = detail::load_u32(head + h::kRequiredFeaturesOff);
  info.page_size = detail::load_u32(head + h::kPageSizeOff);
  info.file_bytes = detail::load_u64(head + h::kFileLengthOff);
  info.pages = detail::load_u64(head + h::kPageCountOff);
  info.catalog_bytes = detail::load_u64(head + h::kCatalogLengthOff);
  info.identity = (*state)->identity();
  const detail::Catalog& catalog = (*state)->catalog();
  for (const auto& f : catalog.filters) {
    const auto* p = reinterpret_cast<const std::byte*>(f.params.data());
    info.filters.push_back(FilterInfo{f.id, std::vector<std::byte>(p, p + f.params.size())});
  }
  info.tables = catalog.tables.size();
  return info;
}

result<TreeStats> tree_stats(const ReadOnlyDatabase& db, std::string_view table,
                             std::string_view index) {
  const detail::DatabaseState& state = *db.state_;
  const auto& primaries = state.primaries();
  const auto t = std::find_if(primaries.begin(), primaries.end(),
                              [&](const detail::TreeRef& r) { return r.name == table; });
  if (t == primaries.end()) return not_found("no table '" + std::string(table) + "'");
  const detail::TreeRef* tree = &*t;
  if (!index.empty()) {
    const auto indexes = state.indexes_of(static_cast<size_t>(t - primaries.begin()));
    const auto i = std::find_if(indexes.begin(), indexes.end(),
                                [&](const detail::TreeRef& r) { return r.name == index; });
    if (i == indexes.end())
      return not_found("table '" + std::string(table) + "' has no index '" + std::string(index) +
                       "'");
    tree = &*i;
  }
  const detail::TreeDesc& d = *tree->desc;
  TreeStats st;
  st.rows = d.rows;
  st.max_key_length = d.max_key_length;
  st.depth = d.depth;
  st.leaf_pages = d.leaf_pages;
  st.internal_pages = d.internal_pages;
  st.pages_per_level.assign(d.depth, 0);
  const uint64_t pages = d.end_page - d.first_page;
  st.unpacked_bytes = pages * state.page_size();
  const detail::Catalog& catalog = state.catalog();
  if (catalog.filters.empty()) {
    st.stored_bytes = st.unpacked_bytes;
  } else {
    for (uint64_t page = d.first_page; page < d.end_page; ++page)
      st.stored_bytes += catalog.pages[page - 1].stored;
  }
  if (d.depth > 0) DRYDB_TRY(TreeWalker(state, *tree, &st).visit(d.root, d.depth - 1));
  return st;
}

}  // namespace drydb
