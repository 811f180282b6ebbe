#include "drydb/database.h"

#include "drydb/index.h"

#include <algorithm>
#include <cstring>
#include <new>

#include "drydb/detail/coding.h"
#include "drydb/detail/format.h"
#include "drydb/detail/index_coding.h"
#include "filters/filter_registry.h"
#include "format/checksum.h"
#include "format/page_check.h"
#include "read/locked_state.h"

namespace drydb {
namespace detail {
namespace {

const char* type_name(PageType t) {
  switch (t) {
    case PageType::leaf:
      return "leaf";
    case PageType::internal:
      return "internal";
    case PageType::overflow:
      return "overflow";
    case PageType::miss_filter:
      return "miss filter";
  }
  return "unknown";
}

std::byte* allocate_page_memory(PageAllocator* a, size_t size) {
  if (a) return a->allocate(size, 64);
  return static_cast<std::byte*>(::operator new (size, std::align_val_t{64}, std::nothrow));
}

void free_page_memory(PageAllocator* a, const std::byte* p, size_t size) {
  if (a)
    a->deallocate(const_cast<std::byte*>(p), size, 64);
  else
    ::operator delete (const_cast<std::byte*>(p), std::align_val_t{64});
}

Error corrupt(const std::string& what) {
  return Error(errc::corruption, what);
}

}  // namespace

DatabaseState::DatabaseState() : locked_(std::make_unique<LockedState>()) {}

DatabaseState::~DatabaseState() {
  if (slots_) {
    for (uint64_t i = 0; i < page_count_; ++i)
      if (slots_[i].refs.load(std::memory_order_relaxed) != 0)
        free_page_memory(allocator_, slots_[i].data.load(std::memory_order_relaxed),
                         slots_[i].bytes);
  }
}

result<std::unique_ptr<DatabaseState>> DatabaseState::open(std::unique_ptr<Storage> storage,
                                                           const OpenOptions& options) {
  auto state = std::make_unique<DatabaseState>();
  const uint64_t file_size = storage->size();
  std::byte head[header::kSize];
  if (file_size < header::kSize) {
    if (file_size >= 4) {
      std::byte magic[4];
      DRYDB_TRY(storage->read_at(0, magic));
      if (std::memcmp(magic, kMagic, 4) != 0)
        return Error(errc::bad_magic, "not a drydb file (no DRY\\0 magic)");
    }
    return Error(errc::truncated,
                 "file of " + std::to_string(file_size) + " bytes is too short for a drydb header");
  }
  DRYDB_TRY(storage->read_at(0, head));
  if (std::memcmp(head, kMagic, 4) != 0)
    return Error(errc::bad_magic, "not a drydb file (no DRY\\0 magic)");
  const uint16_t major = load_u16(head + header::kMajorOff);
  const uint16_t minor = load_u16(head + header::kMinorOff);
  if (major != kFormatMajor)
    return Error(errc::unsupported_version, "format " + std::to_string(major) + "." +
                                                std::to_string(minor) +
                                                " is not supported (this reader reads format " +
                                                std::to_string(kFormatMajor) + ".x)");
  if (load_u64(head + header::kHeaderChecksumOff) !=
      checksum(ByteView(head, header::kHeaderChecksumOff)))
    return corrupt("header checksum mismatch");
  const uint32_t features = load_u32(head + header::kRequiredFeaturesOff);
  if (features & ~kKnownRequiredFeatures)
    return Error(errc::unsupported_version, "the file requires features this reader lacks (bits " +
                                                std::to_string(features) + ")");
  const uint32_t page_size = load_u32(head + header::kPageSizeOff);
  if (!valid_page_size(page_size)) return corrupt("bad page size " + std::to_string(page_size));
  const uint64_t file_length = load_u64(head + header::kFileLengthOff);
  const uint64_t page_count = load_u64(head + header::kPageCountOff);
  const uint64_t catalog_length = load_u64(head + header::kCatalogLengthOff);
  if (file_length != file_size)
    return Error(file_size < file_length ? errc::truncated : errc::corruption,
                 "the header records " + std::to_string(file_length) + " bytes but the file has " +
                     std::to_string(file_size));
  // Unfiltered pages are page-aligned up to the catalog; filtered ones are
  // packed after the header, wherever the catalog's directory says.
  const bool filtered = features & kFeatureFilteredPages;
  // With the feature, the identity seeds every checksum after the header's; it is never 0 (a
  // 0 would accept the pages of files of earlier formats). Without it, the field is zero.
  const bool has_identity = features & kFeatureFileIdentity;
  const uint64_t identity = load_u64(head + header::kIdentityOff);
  if (has_identity ? identity == 0 : identity != 0)
    return corrupt(has_identity ? "the file identity is 0" : "reserved header bytes are not zero");
  if (page_count == 0 || (filtered ? catalog_length > file_length - header::kSize
                                   : page_count > file_length / page_size ||
                                         catalog_length != file_length - page_count * page_size))
    return corrupt("header lengths are inconsistent");
  // The shortest catalog is its two counts (no filters, no tables).
  if (catalog_length < 8) return corrupt("catalog shorter than its counts");
  if (catalog_length >= (uint64_t{1} << 32)) return corrupt("catalog of 4 GiB or more");
  const uint64_t catalog_offset = file_length - catalog_length;
  std::vector<std::byte> cat(catalog_length);
  DRYDB_TRY(storage->read_at(catalog_offset, cat));
  if (load_u64(head + header::kCatalogChecksumOff) != checksum(cat, identity))
    return corrupt("catalog checksum mismatch");
  auto catalog =
      decode_catalog(cat, page_size, page_count, header::kSize, catalog_offset, features);
  if (!catalog) return std::move(catalog).error();
  if (filtered == catalog->filters.empty())
    return corrupt("the header and the filter table disagree on whether pages are filtered");

  DatabaseState& s = *state;
  for (const FilterDesc& f : catalog->filters) {
    auto filter = make_page_filter(f.id, std::as_bytes(std::span(f.params)), options.filters);
    if (!filter) return std::move(filter).error();
    // Decoding stage i's output is at most what stage i-1's encoding could make of a page.
    s.stage_capacity_.push_back(
        s.filters_.empty() ? page_size
                           : s.filters_.back()->max_encoded_size(s.stage_capacity_.back()));
    s.filters_.push_back(std::move(*filter));
  }
  s.page_size_ = page_size;
  s.page_count_ = page_count;
  s.identity_ = identity;
  s.catalog_ = std::move(*catalog);
  // Every TreeRef is placed before any pointer to one is taken: the vectors never reallocate.
  size_t index_count = 0;
  for (const TableDesc& t : s.catalog_.tables)
    index_count += t.indexes.size();
  s.primaries_.reserve(s.catalog_.tables.size());
  s.indexes_.reserve(index_count);
  s.index_begin_.push_back(0);
  for (const TableDesc& t : s.catalog_.tables) {
    auto enc = KeyEncoding::find(t.primary.encoding_id);
    if (!enc)
      return Error(errc::unknown_encoding, "table '" + t.name + "': " + enc.error().message);
    if (enc->fixed_width() != t.primary.key_width)
      return corrupt("table '" + t.name + "': key width " + std::to_string(t.primary.key_width) +
                     " does not match encoding '" + t.primary.encoding_id + "'");
    TreeRef& primary = s.primaries_.emplace_back(TreeRef{
        &t.primary, *enc, enc->kind(), KeyLayout{t.primary.key_width}, "table '" + t.name + "'",
        nullptr, t.name, nullptr, t.miss_filter.present() ? &t.miss_filter : nullptr,
        t.primary.rows != 0 && !t.miss_filter.present() ? enc->kind() : kNoKeyKind});
    if (t.columns.present()) primary.columns = &t.columns;
    for (const IndexDesc& ix : t.indexes) {
      const std::string label = "index '" + ix.name + "' of table '" + t.name + "'";
      auto ienc = KeyEncoding::find(ix.tree.encoding_id);
      if (!ienc) return Error(errc::unknown_encoding, label + ": " + ienc.error().message);
      const uint32_t width = ienc->fixed_width();
      const uint32_t expected =
          ix.tree.kind == TreeKind::multi_index && width != 0 ? width + kRankSuffixSize : width;
      if (ix.tree.key_width != expected)
        return corrupt(label + ": key width " + std::to_string(ix.tree.key_width) +
                       " does not match encoding '" + ix.tree.encoding_id + "'");
      s.indexes_.push_back(TreeRef{&ix.tree, *ienc, ienc->kind(), KeyLayout{ix.tree.key_width},
                                   label, &primary, ix.name});
    }
    s.index_begin_.push_back(s.indexes_.size());
  }
  s.root_hints_ = std::make_unique<RootHint[]>(s.primaries_.size() + s.indexes_.size());
  size_t hint = 0;
  for (TreeRef& tree : s.primaries_)
    tree.root_hint = &s.root_hints_[hint++];
  for (TreeRef& tree : s.indexes_)
    tree.root_hint = &s.root_hints_[hint++];
  for (auto* trees : {&s.primaries_, &s.indexes_}) {
    for (TreeRef& tree : *trees) {
      tree.prefetch_leaves =
          (tree.desc->leaf_pages + tree.desc->internal_pages) * page_size > kPrefetchTreeBytes;
      tree.indexable = tree.desc->depth >= kIndexMinDepth && tree.layout.prefix_is_key();
      if (tree.indexable)
        tree.root_hint->index_countdown.store(
            std::max<uint64_t>(1, std::min<uint64_t>(tree.desc->internal_pages, uint64_t{1} << 32) *
                                      kIndexDescentsPerPage),
            std::memory_order_relaxed);
      tree.checksum_seed = identity;
      tree.placed_runs = features & kFeaturePlacedRuns;
    }
  }

  auto mapped = storage->mapped();
  if (!mapped.empty() && !filtered) {
    s.base_ = mapped.data();
    s.verified_ = std::make_unique<std::atomic<uint8_t>[]>(page_count);
  } else {
    s.mapped_ = mapped;  // filtered pages decode straight from the mapping
    s.slots_ = std::make_unique<PageSlot[]>(page_count);
    s.allocator_ = options.allocator;
    s.budget_ = options.page_cache_bytes;
    s.all_permanent_ = options.page_cache_bytes / page_size >= page_count;
  }
  s.storage_ = std::move(storage);
  s.executor_ = options.executor;
  return state;
}

namespace {

// check_child_fences for a page that passed check_tree_page, when it is the page the descent
// expects there (fetch() refuses any other after this).
bool fences_hold(const TreeRef& tree, uint64_t page, const std::byte* p, PageType type,
                 uint32_t level, ParentRef parent, ErrorOut* err) {
  if (parent.page == nullptr || static_cast<PageType>(p[page::kTypeOff]) != type) return true;
  if (type != PageType::leaf &&
      (type != PageType::internal || load_u16(p + internal::kLevelOff) != level))
    return true;
  return check_child_fences(tree, page, p, parent, err);
}

}  // namespace

bool DatabaseState::verify_mapped(const TreeRef& tree, uint64_t page, PageType type, uint32_t level,
                                  ErrorOut* err, ParentRef parent) const {
  const std::byte* p = base_ + page * page_size_;
  if (static_cast<PageType>(p[page::kTypeOff]) == PageType::overflow) {
    uint64_t pages;
    if (!overflow_run_pages(tree, page, p, page_size_, &pages, err) ||
        !check_overflow_run(tree, page, p, err))
      return false;
  } else if (static_cast<PageType>(p[page::kTypeOff]) == PageType::miss_filter) {
    if (!check_miss_filter_page(tree, page, p, page_size_, err)) return false;
  } else if (!check_tree_page(tree, page, p, page_size_, err) ||
             !fences_hold(tree, page, p, type, level, parent, err)) {
    return false;
  }
  verified_[page].store(1, std::memory_order_release);
  return true;
}

const std::byte* DatabaseState::load(const TreeRef& tree, uint64_t page, PageType type,
                                     uint32_t level, PageSlot** pin, ErrorOut* err,
                                     ParentRef parent) const {
  // Read and check outside the lock, so misses on different pages overlap.
  size_t size = page_size_;
  std::byte* buf = allocate_page_memory(allocator_, size);
  if (buf == nullptr) {
    *err = Error(errc::out_of_memory, "cannot allocate a page");
    return nullptr;
  }
  auto fail = [&](Error e) -> const std::byte* {
    free_page_memory(allocator_, buf, size);
    *err = std::move(e);
    return nullptr;
  };
  // A storage error, with where it happened.
  auto read_failed = [&](const status& st) {
    return fail(Error(st.error().code,
                      tree.label + ", page " + std::to_string(page) + ": " + st.error().message));
  };
  if (auto st = read_pages(page, 1, buf); !st) return read_failed(st);
  if (type == PageType::overflow) {
    uint64_t pages;
    ErrorOut e;
    if (!overflow_run_pages(tree, page, buf, page_size_, &pages, &e)) return fail(std::move(*e));
    if (pages > 1) {
      const size_t run = static_cast<size_t>(pages * page_size_);
      std::byte* whole = allocate_page_memory(allocator_, run);
      if (whole == nullptr)
        return fail(Error(errc::out_of_memory, "cannot allocate an overflow run"));
      std::memcpy(whole, buf, size);
      free_page_memory(allocator_, buf, size);
      buf = whole;
      size = run;
      if (auto st = read_pages(page + 1, pages - 1, buf + page_size_); !st) return read_failed(st);
    }
    if (!check_overflow_run(tree, page, buf, &e)) return fail(std::move(*e));
  } else if (type == PageType::miss_filter) {
    ErrorOut e;
    if (!check_miss_filter_page(tree, page, buf, page_size_, &e)) return fail(std::move(*e));
  } else {
    ErrorOut e;
    if (!check_tree_page(tree, page, buf, page_size_, &e) ||
        !fences_hold(tree, page, buf, type, level, parent, &e))
      return fail(std::move(*e));
  }

  LockedState& locked = *locked_;
  std::lock_guard lock(locked.mu);
  PageSlot& slot = slots_[page];
  if (slot.refs.load(std::memory_order_relaxed) != 0) {
    // Another thread loaded it first; use theirs. Under the lock no eviction
    // can run, so the page stays resident while the reference is taken.
    free_page_memory(allocator_, buf, size);
    const std::byte* p = slot.try_acquire(pin);
    return p;
  }
  const bool permanent =
      all_permanent_ || static_cast<PageType>(buf[page::kTypeOff]) == PageType::internal;
  slot.bytes = size;
  slot.data.store(buf, std::memory_order_relaxed);
  if (permanent) {
    slot.refs.store(kPermanent, std::memory_order_release);
    *pin = nullptr;
  } else {
    slot.referenced.store(1, std::memory_order_relaxed);
    slot.refs.store(2, std::memory_order_release);  // the cache's reference and the caller's
    *pin = &slot;
    locked.clock.push_back(page);
    locked.used += size;
    evict_locked();
  }
  return buf;
}

status DatabaseState::check_header_padding() const {
  if (!filters_.empty()) return {};  // a filtered file's page 0 is the 64-byte header alone
  std::vector<std::byte> padding(page_size_ - header::kSize);
  DRYDB_TRY(storage_->read_at(header::kSize, padding));
  for (size_t i = 0; i < padding.size(); ++i)
    if (padding[i] != std::byte{0})
      return Error(errc::corruption, "file header: byte " + std::to_string(header::kSize + i) +
                                         " of its padding is not zero");
  return {};
}

status DatabaseState::read_pages(uint64_t first, uint64_t count, std::byte* dst) const {
  if (filters_.empty())
    return storage_->read_at(first * page_size_, std::span(dst, count * page_size_));
  for (uint64_t i = 0; i < count; ++i)
    DRYDB_TRY(decode_page(first + i, dst + i * page_size_));
  return {};
}

status DatabaseState::decode_page(uint64_t page, std::byte* dst) const {
  // Callers reach only pages of some tree, so 1 <= page < page_count.
  const PageLocation& loc = catalog_.pages[page - 1];
  // Stage buffers, reused by each thread for every page it decodes.
  thread_local std::vector<std::byte> stored, stage;
  std::span<const std::byte> in;
  if (!mapped_.empty()) {
    in = mapped_.subspan(loc.offset, loc.stored);
  } else {
    stored.resize(loc.stored);
    DRYDB_TRY(storage_->read_at(loc.offset, stored));
    in = stored;
  }
  // The chain decodes in reverse: the last filter to encode is the first to decode.
  for (size_t i = filters_.size(); i-- > 0;) {
    std::span<std::byte> out(dst, page_size_);
    if (i > 0) {
      stage.resize(stage_capacity_[i]);
      out = stage;
    }
    auto n = filters_[i]->decode(in, out);
    if (!n) return std::move(n).error();
    if (*n > out.size()) return corrupt("a page filter overran its output");
    if (i > 0) {
      std::swap(stored, stage);
      in = std::span<const std::byte>(stored.data(), *n);
    } else if (*n != loc.decoded) {
      return corrupt("the page decodes to " + std::to_string(*n) + " bytes; the directory says " +
                     std::to_string(loc.decoded));
    }
  }
  std::memset(dst + loc.decoded, 0, page_size_ - loc.decoded);
  return {};
}

void DatabaseState::evict_locked() const {
  LockedState& locked = *locked_;
  // CLOCK: sweep at most two rounds; pages held by handles are skipped and
  // may keep the cache over budget until released.
  size_t budget_steps = 2 * locked.clock.size();
  while (locked.used > budget_ && !locked.clock.empty() && budget_steps-- > 0) {
    if (locked.hand >= locked.clock.size()) locked.hand = 0;
    PageSlot& slot = slots_[locked.clock[locked.hand]];
    if (slot.referenced.load(std::memory_order_relaxed)) {
      slot.referenced.store(0, std::memory_order_relaxed);
      ++locked.hand;
      continue;
    }
    uint32_t expected = 1;
    if (!slot.refs.compare_exchange_strong(expected, 0, std::memory_order_acq_rel)) {
      ++locked.hand;
      continue;
    }
    free_page_memory(allocator_, slot.data.load(std::memory_order_relaxed), slot.bytes);
    slot.data.store(nullptr, std::memory_order_relaxed);
    locked.used -= slot.bytes;
    locked.clock[locked.hand] = locked.clock.back();
    locked.clock.pop_back();
  }
}

void DatabaseState::wrong_page(const TreeRef& tree, uint64_t page, PageType type, uint32_t level,
                               ErrorOut* err) const {
  std::string want = type_name(type);
  if (type == PageType::internal)
    want += " page of level " + std::to_string(level);
  else
    want += " page";
  const char* article = want[0] == 'i' || want[0] == 'o' ? "an " : "a ";
  *err = corrupt(tree.label + ", page " + std::to_string(page) + ": expected " + article + want);
}

Error corruption_at(const TreeRef& tree, uint64_t page, const char* what) {
  return corrupt(tree.label + ", page " + std::to_string(page) + ": " + what);
}

bool wrong_key_kind(const TreeRef& tree, const Key& key, ErrorOut* err) {
  static constexpr const char* kNames[] = {"text/bytes", "int64", "Uuid", "Ulid"};
  *err = Error(errc::wrong_key_type, tree.label + " has " + std::string(tree.encoding.id()) +
                                         " keys; a " + kNames[static_cast<int>(key.kind())] +
                                         " key was given");
  return false;
}

}  // namespace detail

ReadOnlyDatabase::ReadOnlyDatabase(std::unique_ptr<detail::DatabaseState> state)
    : state_(std::move(state)) {}
ReadOnlyDatabase::ReadOnlyDatabase(ReadOnlyDatabase&&) noexcept = default;
// Assigning over a database and destroying one first settle its asynchronous
// queries (cancel the queued, wait for the running; see async.h).
ReadOnlyDatabase& ReadOnlyDatabase::operator=(ReadOnlyDatabase&& o) noexcept {
  if (this != &o) {
    if (state_) state_->close_async();
    state_ = std::move(o.state_);
  }
  return *this;
}
ReadOnlyDatabase::~ReadOnlyDatabase() {
  if (state_) state_->close_async();
}

result<ReadOnlyDatabase> ReadOnlyDatabase::open_storage(std::unique_ptr<Storage> storage,
                                                        const OpenOptions& options) {
  if (!storage) return Error(errc::invalid_argument, "open_storage: no storage given");
  auto state = detail::DatabaseState::open(std::move(storage), options);
  if (!state) return std::move(state).error();
  return ReadOnlyDatabase(std::move(*state));
}

result<ReadOnlyDatabase> ReadOnlyDatabase::open(const std::filesystem::path& path,
                                                const OpenOptions& options) {
  result<std::unique_ptr<Storage>> storage =
      Error(errc::invalid_argument, "open: an unknown StorageKind");
  switch (options.storage) {
    case StorageKind::mmap:
      storage = open_mmap_storage(path);
      break;
    case StorageKind::pread:
      storage = open_pread_storage(path);
      break;
    case StorageKind::memory:
      storage = open_loaded_storage(path);
      break;
  }
  if (!storage) return std::move(storage).error();
  auto db = open_storage(std::move(*storage), options);
  if (!db) {
    Error e = std::move(db).error();
    e.message = "'" + path.string() + "': " + e.message;
    return e;
  }
  return db;
}

result<ReadOnlyDatabase> ReadOnlyDatabase::open_memory(std::span<const std::byte> bytes,
                                                       const OpenOptions& options) {
  if (bytes.empty()) return Error(errc::truncated, "open_memory: no bytes given");
  return open_storage(memory_storage(bytes), options);
}

result<ReadOnlyTable> ReadOnlyDatabase::table(std::string_view name) const {
  const auto& tables = state_->catalog().tables;
  for (size_t i = 0; i < tables.size(); ++i)
    if (tables[i].name == name)
      return ReadOnlyTable(state_.get(), &state_->primaries()[i], tables[i].name);
  std::string known;
  for (const auto& t : tables)
    known += (known.empty() ? "" : ", ") + t.name;
  return Error(errc::not_found, "no table '" + std::string(name) +
                                    "' (tables: " + (known.empty() ? "none" : known) + ")");
}

std::vector<ReadOnlyTable> ReadOnlyDatabase::tables() const {
  std::vector<ReadOnlyTable> out;
  const auto& tables = state_->catalog().tables;
  for (size_t i = 0; i < tables.size(); ++i)
    out.emplace_back(state_.get(), &state_->primaries()[i], tables[i].name);
  return out;
}

uint32_t ReadOnlyDatabase::page_size() const noexcept {
  return state_->page_size();
}

uint64_t ReadOnlyDatabase::identity() const noexcept {
  return state_->identity();
}

TableInfo ReadOnlyTable::info() const noexcept {
  const detail::TreeDesc& d = *tree_->desc;
  const detail::MissFilterDesc none;
  const detail::MissFilterDesc& f = tree_->miss_filter ? *tree_->miss_filter : none;
  const detail::DescentIndex* index = tree_->root_hint->index.load(std::memory_order_acquire);
  return TableInfo{name_,
                   tree_->encoding,
                   d.rows,
                   d.depth,
                   d.leaf_pages,
                   d.internal_pages,
                   d.overflow_pages,
                   d.max_key_length,
                   f.bits_per_key,
                   f.pages,
                   index ? index->bytes() : 0};
}

Error detail::range_count_mismatch() {
  return Error(errc::corruption, "a range ended before the rows its tree's counts promise");
}

Error detail::range_bounds_out_of_order(const TreeRef& tree, const KeyBound& start,
                                        const KeyBound& end) {
  return Error(errc::invalid_argument,
               tree.label + ": range start '" + tree.encoding.format(start.key().bytes()) +
                   "' is after its end '" + tree.encoding.format(end.key().bytes()) + "'");
}

result<SecondaryIndex> ReadOnlyTable::index(std::string_view name) const {
  const auto all = db_->indexes_of(static_cast<size_t>(tree_ - db_->primaries().data()));
  for (const auto& ix : all)
    if (ix.name == name) return SecondaryIndex(db_, &ix);
  std::string known;
  for (const auto& ix : all)
    known += (known.empty() ? "" : ", ") + std::string(ix.name);
  return Error(errc::not_found, tree_->label + " has no index '" + std::string(name) +
                                    "' (indexes: " + (known.empty() ? "none" : known) + ")");
}

std::vector<SecondaryIndex> ReadOnlyTable::indexes() const {
  std::vector<SecondaryIndex> out;
  for (const auto& ix : db_->indexes_of(static_cast<size_t>(tree_ - db_->primaries().data())))
    out.emplace_back(db_, &ix);
  return out;
}

Error detail::index_entry_missing_row(const TreeRef& index, uint64_t page) {
  return corruption_at(
      *index.primary, page,
      ("an entry of " + index.label + " refers to a row past the leaf's end").c_str());
}

Error detail::get_many_sizes_differ(size_t keys, size_t values) {
  return Error(errc::invalid_argument, "get_many: " + std::to_string(keys) + " keys but " +
                                           std::to_string(values) + " values");
}

result<IndexRange> SecondaryIndex::prefix(std::span<const std::byte> prefix,
                                          SortOrder order) const {
  if (tree_->encoding.kind() != KeyKind::bytes)
    return Error(errc::wrong_key_type, tree_->label + " has " + std::string(tree_->encoding.id()) +
                                           " keys; prefix needs an index of byte keys");
  // The entries whose tree key starts with P, where P is the prefix itself
  // (unique) or its escaped form without terminator (non-unique, variable
  // width; escaping maps "starts with" to "starts with"). A fixed-width
  // non-unique tree key starts with the index key as is.
  detail::TreeKeyBuffer buf;
  const uint32_t width = tree_->encoding.fixed_width();
  // Index keys of a fixed width are never longer than it; a non-unique tree
  // key goes on with the row's rank, whose bytes a longer prefix must not match.
  if (width != 0 && prefix.size() > width) return IndexRange(IndexCursor(), 0, 0, order);
  const bool escaped = !unique() && width == 0;
  std::byte* p = buf.reserve(escaped ? detail::index_group_size(prefix, 0) : prefix.size() + 1);
  size_t n =
      escaped ? static_cast<size_t>(detail::put_index_group(p, prefix, 0) - p) - 2 : prefix.size();
  if (!escaped && n) std::memcpy(p, prefix.data(), n);
  uint64_t first = 0, last = tree_->desc->rows;
  bool found;
  detail::ErrorOut err;
  if (n > 0) {
    if (!detail::rank_of(*db_, *tree_, std::span<const std::byte>(p, n), &first, &found, &err))
      return std::move(*err);
    const size_t m = detail::prefix_successor(p, n);
    if (m > 0 &&
        !detail::rank_of(*db_, *tree_, std::span<const std::byte>(p, m), &last, &found, &err))
      return std::move(*err);
  }
  if (last <= first) return IndexRange(IndexCursor(), 0, 0, order);
  return IndexRange(cursor(), first, last - first, order);
}

result<Range> ReadOnlyTable::prefix(std::span<const std::byte> prefix, SortOrder order) const {
  if (tree_->encoding.kind() != KeyKind::bytes)
    return Error(errc::wrong_key_type, tree_->label + " has " + std::string(tree_->encoding.id()) +
                                           " keys; prefix needs a table of byte keys");
  // [prefix, successor): the successor drops trailing 0xFF bytes and
  // increments the last remaining byte; none remaining means no upper bound.
  RangeOptions options{.start_exclusive = false, .end_exclusive = true, .order = order};
  // An empty prefix (whose data() may be null) is every row.
  if (prefix.empty()) return get_range(unbounded, unbounded, options);
  std::byte successor[detail::kMaxPageSize / 4];
  if (prefix.size() > sizeof successor) return Range(Cursor(), 0, 0, order);  // longer than any key
  size_t len = prefix.size();
  std::memcpy(successor, prefix.data(), len);
  while (len > 0 && successor[len - 1] == std::byte{0xFF})
    --len;
  Key start(prefix);
  if (len == 0) return get_range(start, unbounded, options);
  successor[len - 1] =
      std::byte{static_cast<uint8_t>(static_cast<uint8_t>(successor[len - 1]) + 1)};
  return get_range(start, Key(std::span<const std::byte>(successor, len)), options);
}

}  // namespace drydb
