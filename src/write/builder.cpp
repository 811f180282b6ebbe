#include "drydb/builder.h"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <set>

#include "drydb/detail/catalog.h"
#include "drydb/detail/coding.h"
#include "drydb/detail/format.h"
#include "drydb/detail/index_coding.h"
#include "filters/filter_registry.h"
#include "format/checksum.h"
#include "format/column_row.h"
#include "write/column_batch.h"
#include "write/miss_filter_writer.h"
#include "write/page_spool.h"
#include "write/reach_build_point.h"
#include "write/sink.h"
#include "write/sorter.h"
#include "write/tree_writer.h"

namespace drydb {
namespace detail {

struct IndexState {
  std::string name;
  bool unique;
  KeyEncoding encoding;
  IndexKeyFunction index_key;
  // Entries as (group(index key) ++ primary rank) -> primary key (unique
  // indexes keep it to name both rows of a duplicate) or nothing.
  std::unique_ptr<Sorter> sorter;
  // What the file's identity knows of the entries: their count, and the sum (mod 2^64) of
  // entry_digest() over them, whatever their order.
  uint64_t entries = 0;
  uint64_t entry_digests = 0;
};

struct TableState {
  TableState(BuilderState* b, std::string n, KeyEncoding e, size_t memory_budget)
      : builder(b), name(std::move(n)), encoding(e), sorter(memory_budget), handle(this) {}
  BuilderState* builder;
  std::string name;
  KeyEncoding encoding;
  Sorter sorter;
  std::vector<IndexState> indexes;
  uint32_t miss_filter_bits = 0;  // per key; 0 = no miss filter
  ColumnList columns;             // set_columns; no list: empty
  // The sum (mod 2^64) of row_digest() over the rows appended: what the file's identity knows
  // of them, whatever their order.
  uint64_t row_digests = 0;
  TableBuilder handle;

  // Adds a checked row: to the sorter, the digest and the memory the builder holds (spilling
  // past its budget).
  void add_row(Bytes key, Bytes value);
};

namespace {

const char* key_kind_name(KeyKind kind) {
  static constexpr const char* kNames[] = {"text/bytes", "int64", "Uuid", "Ulid"};
  return kNames[static_cast<int>(kind)];
}

std::string index_label(const TableState& t, const IndexState& ix) {
  return "table '" + t.name + "', " + (ix.unique ? "unique " : "") + "index '" + ix.name + "'";
}

// One row's part of its table's digest (docs/format.md, "File identity"): XXH3-64 of the value,
// seeded with XXH3-64 of the key.
uint64_t row_digest(Bytes key, Bytes value) noexcept {
  return checksum(value, checksum(key));
}

// One index entry's part of its index's digest (docs/format.md, "File identity"): XXH3-64 of
// its sort key, group(index key) ++ the row's rank (big-endian), which the rows and the index
// function decide and the page layout does not.
uint64_t entry_digest(Bytes sort_key) noexcept {
  return checksum(sort_key);
}

// Appends `v` (little-endian, `width` bytes) or a length-prefixed string to an identity's input.
void put_uint(std::string& out, uint64_t v, int width) {
  for (int i = 0; i < width; ++i)
    out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}
void put_string(std::string& out, std::string_view s) {
  put_uint(out, s.size(), 4);
  out.append(s);
}

}  // namespace

class BuilderState {
 public:
  explicit BuilderState(BuildOptions o) : options(std::move(o)) {
    if (!valid_page_size(options.page_size))
      fail(Error(errc::invalid_argument, "page size " + std::to_string(options.page_size) +
                                             " is not a power of two from 512 to 65536"));
    for (const auto& f : options.filters) {
      if (!f)
        fail(Error(errc::invalid_argument, "BuildOptions::filters holds no filter"));
      else if (f->id().empty() || f->id().size() > 255)
        fail(Error(errc::invalid_argument, "a page filter id must be 1 to 255 bytes"));
      else if (auto st = detail::check_filter_options(*f); !st)
        fail(std::move(st).error());
    }
  }

  void fail(Error e) {
    if (first_error) first_error = std::move(e);
  }

  BuildOptions options;
  std::deque<TableState> tables;  // stable addresses for TableBuilder handles
  status first_error;
  bool built = false;
  size_t buffered = 0;  // bytes buffered by every table's sorter

  status maybe_spill();
  result<std::filesystem::path> spill_dir() const;
  // The file's identity (docs/format.md, "File identity"): XXH3-64 of the options and of every
  // table's shape, rows and row digests, and of every index's entries and entry digests, never
  // 0. Known before any page is written, since it seeds every page's checksum: index_entries()
  // runs first.
  uint64_t identity() const;
  status write(Sink& sink, uint64_t& file_length);

 private:
  // Runs every index function over its table's rows, in key order, into the index's sorter
  // and digest: before identity(), which covers the entries (a file whose index functions
  // differ is another file). Keeps the rows for write_trees().
  status index_entries();
  // Writes every table's trees from page `next_page` on, filling `catalog`.
  status write_trees(Sink& sink, Catalog& catalog, uint64_t& next_page);
  // Encodes pages 1 .. page_count-1 of `spool` through the filters into
  // `out`, packed from the end of the header; records where each went.
  status encode_pages(const PageSpool& spool, uint64_t page_count, Sink& out, Catalog& catalog,
                      uint64_t& data_end);
  status add_index_entry(TableState& t, IndexState& ix, Bytes key, Bytes value, uint64_t rank);
  status write_index(Sink& sink, const TableState& t, IndexState& ix,
                     const std::vector<TreeWriter::LeafStart>& leaves, uint64_t& next_page,
                     IndexDesc& out);
  std::vector<std::byte> scratch_;
  size_t index_buffered_ = 0;    // bytes buffered by every index sorter (index_entries())
  bool prefixed_pages_ = false;  // a tree has a page with kPrefixedKeys
  bool overflow_runs_ = false;   // a tree has an overflow run
  uint64_t identity_ = 0;        // identity() once write() began, or 0 without file_identity
};

result<std::filesystem::path> BuilderState::spill_dir() const {
  if (!options.temp_dir.empty()) return options.temp_dir;
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::temp_directory_path(ec);
  if (ec) return Error(errc::io_error, "no temp folder for spilling: " + ec.message());
  return dir;
}

status BuilderState::maybe_spill() {
  if (buffered <= options.memory_budget) return {};
  auto dir_or = spill_dir();
  if (!dir_or) return std::move(dir_or).error();
  const std::filesystem::path& dir = *dir_or;
  // Spill the tables that hold the most until half the budget is free: small
  // tables then rarely spill, which keeps run files (and descriptors) few.
  std::vector<TableState*> largest;
  for (auto& t : tables)
    if (t.sorter.memory_bytes() > 0) largest.push_back(&t);
  std::sort(largest.begin(), largest.end(), [](const TableState* a, const TableState* b) {
    return a->sorter.memory_bytes() > b->sorter.memory_bytes();
  });
  for (TableState* t : largest) {
    if (buffered <= options.memory_budget / 2) break;
    buffered -= t->sorter.memory_bytes();
    DRYDB_TRY(t->sorter.spill(dir));
  }
  return {};
}

void TableState::add_row(Bytes key, Bytes value) {
  const size_t before = sorter.memory_bytes();
  row_digests += row_digest(key, value);
  sorter.add(key, value);
  builder->buffered += sorter.memory_bytes() - before;
  if (auto st = builder->maybe_spill(); !st) builder->fail(std::move(st).error());
}

uint64_t BuilderState::identity() const {
  std::string in = "drydb file identity 1";
  put_uint(in, options.page_size, 4);
  put_uint(in, options.prefixed_keys ? 1 : 0, 1);
  put_uint(in, options.filters.size(), 4);
  for (const auto& f : options.filters)
    put_string(in, f->id());
  put_uint(in, tables.size(), 4);
  for (const TableState& t : tables) {
    put_string(in, t.name);
    put_string(in, t.encoding.id());
    put_uint(in, t.sorter.rows(), 8);
    put_uint(in, t.row_digests, 8);
    put_uint(in, t.miss_filter_bits, 4);
    put_uint(in, t.columns.names.size(), 4);
    for (const std::string& c : t.columns.names)
      put_string(in, c);
    put_uint(in, t.columns.key_column, 4);
    put_uint(in, t.indexes.size(), 4);
    for (const IndexState& ix : t.indexes) {
      put_string(in, ix.name);
      put_uint(in, ix.unique ? 1 : 0, 1);
      put_string(in, ix.encoding.id());
      put_uint(in, ix.entries, 8);
      put_uint(in, ix.entry_digests, 8);
    }
  }
  const uint64_t id = checksum(std::as_bytes(std::span(in.data(), in.size())));
  return id != 0 ? id : 1;  // 0 means "no identity"
}

status BuilderState::write(Sink& sink, uint64_t& file_length) {
  const uint32_t page_size = options.page_size;
  DRYDB_TRY(index_entries());
  identity_ = options.file_identity ? identity() : 0;
  const bool filtered = !options.filters.empty();
  Catalog catalog;
  uint64_t page_count = 1;  // page 0 is the header
  uint64_t data_end;        // where the pages end and the catalog starts
  if (!filtered) {
    DRYDB_TRY(write_trees(sink, catalog, page_count));
    data_end = page_count * page_size;
  } else {
    // Every page is written plain first: the filters may need a sample of
    // them all before encoding the first.
    auto dir = spill_dir();
    if (!dir) return std::move(dir).error();
    auto spool = PageSpool::create(*dir);
    if (!spool) return std::move(spool).error();
    DRYDB_TRY(write_trees(**spool, catalog, page_count));
    DRYDB_TRY(encode_pages(**spool, page_count, sink, catalog, data_end));
  }
  std::vector<std::byte> cat = encode_catalog(catalog);
  DRYDB_TRY(sink.write_at(data_end, cat));
  file_length = data_end + cat.size();

  // Unfiltered, the header fills page 0 so that pages stay aligned.
  std::vector<std::byte> head(filtered ? header::kSize : page_size);
  std::byte* h = head.data();
  std::memcpy(h + header::kMagicOff, kMagic, 4);
  store_u16(h + header::kMajorOff, kFormatMajor);
  store_u16(h + header::kMinorOff, kFormatMinor);
  // A run is bound to its place only in a file with an identity (TreeWriter::write_overflow):
  // a file without one keeps format 2.3's checksums for older readers.
  const bool placed_runs = identity_ != 0 && overflow_runs_;
  store_u32(h + header::kRequiredFeaturesOff, catalog.required_features() |
                                                  (prefixed_pages_ ? kFeaturePrefixedKeys : 0) |
                                                  (identity_ != 0 ? kFeatureFileIdentity : 0) |
                                                  (placed_runs ? kFeaturePlacedRuns : 0));
  store_u32(h + header::kPageSizeOff, page_size);
  store_u64(h + header::kFileLengthOff, file_length);
  store_u64(h + header::kPageCountOff, page_count);
  store_u64(h + header::kCatalogLengthOff, cat.size());
  store_u64(h + header::kCatalogChecksumOff, checksum(cat, identity_));
  store_u64(h + header::kIdentityOff, identity_);
  store_u64(h + header::kHeaderChecksumOff, checksum(Bytes(h, header::kHeaderChecksumOff)));
  return sink.write_at(0, head);
}

namespace {

Error duplicate_row(const TableState& t, Bytes key) {
  return Error(errc::duplicate_key,
               "table '" + t.name + "': key '" + t.encoding.format(key) + "' was appended twice");
}

}  // namespace

status BuilderState::index_entries() {
  index_buffered_ = 0;
  for (auto& t : tables) {
    if (t.indexes.empty()) continue;
    uint64_t rank = 0;
    DRYDB_TRY(t.sorter.scan(
        [&](Bytes key, Bytes value) -> status {
          for (IndexState& ix : t.indexes)
            DRYDB_TRY(add_index_entry(t, ix, key, value, rank));
          ++rank;
          return {};
        },
        [&](Bytes key) { return duplicate_row(t, key); }));
  }
  return {};
}

status BuilderState::write_trees(Sink& sink, Catalog& catalog, uint64_t& next_page) {
  const uint32_t page_size = options.page_size;
  for (auto& t : tables) {
    TableDesc desc;
    desc.name = t.name;
    desc.primary.encoding_id = std::string(t.encoding.id());
    desc.primary.kind = TreeKind::primary;
    desc.primary.key_width = static_cast<uint16_t>(t.encoding.fixed_width());
    TreeWriter writer(sink, page_size, desc.primary.key_width, options.prefixed_keys, identity_,
                      next_page);
    MissFilterBuilder filter(t.miss_filter_bits, t.sorter.rows(), page_size);
    DRYDB_TRY(t.sorter.merge(
        [&](Bytes key, Bytes value) -> status {
          DRYDB_TRY(writer.add(key, value));
          filter.add(key);
          return {};
        },
        [&](Bytes key) { return duplicate_row(t, key); }));
    DRYDB_TRY(writer.finish(desc.primary));
    prefixed_pages_ = prefixed_pages_ || writer.wrote_prefixed_pages();
    overflow_runs_ = overflow_runs_ || writer.wrote_overflow_runs();
    // The index trees follow their table's primary tree.
    for (IndexState& ix : t.indexes) {
      DRYDB_TRY(
          write_index(sink, t, ix, writer.leaf_starts(), next_page, desc.indexes.emplace_back()));
      ix.sorter.reset();
    }
    // Then its miss filter.
    DRYDB_TRY(filter.write(sink, identity_, next_page, &desc.miss_filter));
    desc.columns = t.columns;
    catalog.tables.push_back(std::move(desc));
  }
  return {};
}

status BuilderState::encode_pages(const PageSpool& spool, uint64_t page_count, Sink& out,
                                  Catalog& catalog, uint64_t& data_end) {
  const auto& filters = options.filters;
  const uint32_t page_size = options.page_size;
  std::vector<std::byte> page(page_size);
  // Reads page p from the spool; returns its length without trailing zeros,
  // which the reader restores (they are most of a partly filled page).
  auto read_trimmed = [&](uint64_t p) -> result<size_t> {
    DRYDB_TRY(spool.read_at(p * page_size, page));
    size_t n = page_size;
    while (n > 0 && page[n - 1] == std::byte{0})
      --n;
    return n;
  };
  // Runs `in` through filter f into *out; returns the encoded bytes.
  auto encode = [&](const PageFilter& f, Bytes in, std::vector<std::byte>* out) -> result<Bytes> {
    out->resize(f.max_encoded_size(in.size()));
    auto n = f.encode(in, *out);
    if (!n) return std::move(n).error();
    if (*n > out->size() || *n > UINT32_MAX)
      return Error(errc::invalid_state,
                   "page filter '" + std::string(f.id()) + "' wrote past its own output bound");
    return Bytes(out->data(), *n);
  };

  // A deterministic sample, evenly spread over the pages, for filters that
  // train on one; each filter sees it as the filters before it encoded it.
  bool wants_sample = false;
  for (const auto& f : filters)
    wants_sample |= f->wants_sample();
  if (wants_sample && page_count > 1) {
    // filters::kMaxZstdDictionaryBytes is this size: a dictionary holds at most its sample.
    constexpr size_t kSampleBytes = size_t{32} << 20;
    const uint64_t pages = page_count - 1;
    const uint64_t n = std::min<uint64_t>(pages, std::max<size_t>(1, kSampleBytes / page_size));
    std::vector<std::vector<std::byte>> sample;
    for (uint64_t k = 0; k < n; ++k) {
      auto len = read_trimmed(1 + k * pages / n);
      if (!len) return std::move(len).error();
      sample.emplace_back(page.begin(), page.begin() + static_cast<ptrdiff_t>(*len));
    }
    for (size_t i = 0; i < filters.size(); ++i) {
      if (filters[i]->wants_sample()) {
        std::vector<Bytes> views(sample.begin(), sample.end());
        DRYDB_TRY(filters[i]->prepare(views));
      }
      if (i + 1 == filters.size()) break;
      for (auto& s : sample) {
        std::vector<std::byte> encoded;
        auto e = encode(*filters[i], s, &encoded);
        if (!e) return std::move(e).error();
        encoded.resize(e->size());
        s = std::move(encoded);
      }
    }
  }
  for (const auto& f : filters) {
    const auto params = f->params();
    catalog.filters.push_back(
        FilterDesc{std::string(f->id()),
                   std::string(reinterpret_cast<const char*>(params.data()), params.size())});
  }

  uint64_t offset = header::kSize;
  std::vector<std::byte> stage[2];
  for (uint64_t p = 1; p < page_count; ++p) {
    auto decoded = read_trimmed(p);
    if (!decoded) return std::move(decoded).error();
    Bytes data(page.data(), *decoded);
    for (size_t i = 0; i < filters.size(); ++i) {
      auto e = encode(*filters[i], data, &stage[i % 2]);
      if (!e) return std::move(e).error();
      data = *e;
    }
    DRYDB_TRY(out.write_at(offset, data));
    catalog.pages.push_back(
        PageLocation{offset, static_cast<uint32_t>(data.size()), static_cast<uint32_t>(*decoded)});
    offset += data.size();
  }
  data_end = offset;
  return {};
}

status BuilderState::add_index_entry(TableState& t, IndexState& ix, Bytes key, Bytes value,
                                     uint64_t rank) {
  result<std::optional<IndexKey>> given = ix.index_key(key, value);
  auto row = [&] { return "for row '" + t.encoding.format(key) + "'"; };
  if (!given)
    return Error(given.error().code, index_label(t, ix) + ": the index function failed " + row() +
                                         ": " + given.error().message);
  std::optional<IndexKey>& index_key = *given;
  if (!index_key) return {};
  const Bytes k = index_key->bytes();
  const uint32_t width = ix.encoding.fixed_width();
  if (index_key->kind() != ix.encoding.kind())
    return Error(errc::wrong_key_type, index_label(t, ix) + " has " +
                                           std::string(ix.encoding.id()) +
                                           " keys; its function returned a " +
                                           key_kind_name(index_key->kind()) + " key " + row());
  if (width != 0 && k.size() != width)
    return Error(errc::wrong_key_type, index_label(t, ix) + ": key '" + escape_bytes(k) + "' " +
                                           row() + " is not " + std::to_string(width) + " bytes");
  const size_t group = index_group_size(k, width);
  const size_t tree_key = ix.unique ? k.size() : group + kRankSuffixSize;
  const uint32_t limit = max_key_length(options.page_size);
  if (tree_key > limit) {
    std::string shown = ix.encoding.format(k.first(std::min<size_t>(k.size(), 64)));
    return Error(errc::key_too_long,
                 index_label(t, ix) + ": key '" + shown + "...' " + row() + " takes " +
                     std::to_string(tree_key) + " bytes in the index; the limit for page size " +
                     std::to_string(options.page_size) + " is " + std::to_string(limit));
  }
  scratch_.resize(group + kRankSuffixSize);
  store_be64(put_index_group(scratch_.data(), k, width), rank);
  ++ix.entries;
  ix.entry_digests += entry_digest(scratch_);
  const size_t before = ix.sorter->memory_bytes();
  ix.sorter->add(scratch_, ix.unique ? key : Bytes());
  index_buffered_ += ix.sorter->memory_bytes() - before;
  if (index_buffered_ > options.memory_budget) {
    // Every table's entries are gathered before any tree is written: spill them all.
    auto dir = spill_dir();
    if (!dir) return std::move(dir).error();
    for (TableState& table : tables)
      for (IndexState& other : table.indexes) {
        if (other.sorter->memory_bytes() == 0) continue;
        index_buffered_ -= other.sorter->memory_bytes();
        DRYDB_TRY(other.sorter->spill(*dir));
      }
  }
  return {};
}

status BuilderState::write_index(Sink& sink, const TableState& t, IndexState& ix,
                                 const std::vector<TreeWriter::LeafStart>& leaves,
                                 uint64_t& next_page, IndexDesc& out) {
  const uint32_t width = ix.encoding.fixed_width();
  out.name = ix.name;
  TreeDesc& d = out.tree;
  d.encoding_id = std::string(ix.encoding.id());
  d.kind = ix.unique ? TreeKind::unique_index : TreeKind::multi_index;
  d.key_width = static_cast<uint16_t>(ix.unique || width == 0 ? width : width + kRankSuffixSize);
  TreeWriter writer(sink, options.page_size, d.key_width, options.prefixed_keys, identity_,
                    next_page);
  std::string previous_group, previous_row;
  bool have_previous = false;
  std::vector<std::byte> unescaped;
  DRYDB_TRY(ix.sorter->merge(
      [&](Bytes sort_key, Bytes primary_key) -> status {
        const Bytes group = sort_key.first(sort_key.size() - kRankSuffixSize);
        const uint64_t rank = load_be64(sort_key.data() + group.size());
        Bytes tree_key = sort_key;
        if (ix.unique) {
          tree_key = group;
          if (width == 0) {  // drop the terminator and the escapes
            unescaped.resize(group.size());
            tree_key = Bytes(unescaped.data(),
                             unescape_index_group(group.first(group.size() - 2), unescaped.data()));
          }
          const std::string_view g(reinterpret_cast<const char*>(group.data()), group.size());
          if (have_previous && g == previous_group)
            return Error(errc::duplicate_key,
                         index_label(t, ix) + ": key '" + ix.encoding.format(tree_key) +
                             "' is given by rows '" +
                             t.encoding.format(std::as_bytes(std::span(previous_row))) + "' and '" +
                             t.encoding.format(primary_key) + "'");
          previous_group.assign(g);
          previous_row.assign(reinterpret_cast<const char*>(primary_key.data()),
                              primary_key.size());
          have_previous = true;
        }
        // The leaf holding the row of this rank: the last leaf starting at or before it.
        auto leaf = std::upper_bound(leaves.begin(), leaves.end(), rank,
                                     [](uint64_t r, const TreeWriter::LeafStart& l) {
                                       return r < l.first_rank;
                                     }) -
                    1;
        std::byte ref[kRowRefSize];
        store_u64(ref, leaf->page);
        store_u16(ref + 8, static_cast<uint16_t>(rank - leaf->first_rank));
        return writer.add(tree_key, Bytes(ref, sizeof ref));
      },
      [&](Bytes) { return Error(errc::invalid_state, index_label(t, ix) + ": entries repeat"); }));
  DRYDB_TRY(writer.finish(d));
  prefixed_pages_ = prefixed_pages_ || writer.wrote_prefixed_pages();
  return {};
}

}  // namespace detail

TableBuilder& TableBuilder::append(const Key& key, std::span<const std::byte> value) {
  detail::BuilderState& b = *state_->builder;
  if (b.built)
    b.fail(Error(errc::invalid_state, "table '" + state_->name + "': append after build"));
  if (!b.first_error) return *this;  // sticky: later rows are ignored
  const KeyEncoding enc = state_->encoding;
  auto k = key.bytes();
  if (key.kind() != enc.kind()) {
    b.fail(Error(errc::wrong_key_type, "table '" + state_->name + "' has " + std::string(enc.id()) +
                                           " keys; the key given is of another kind"));
    return *this;
  }
  if (enc.fixed_width() != 0 && k.size() != enc.fixed_width()) {
    b.fail(Error(errc::wrong_key_type, "table '" + state_->name + "': key '" + escape_bytes(k) +
                                           "' is not " + std::to_string(enc.fixed_width()) +
                                           " bytes"));
    return *this;
  }
  const uint32_t limit = detail::max_key_length(b.options.page_size);
  if (k.size() > limit) {
    std::string shown = enc.format(k.first(std::min<size_t>(k.size(), 64)));
    b.fail(Error(errc::key_too_long,
                 "table '" + state_->name + "': key '" + shown + "...' is " +
                     std::to_string(k.size()) + " bytes; the limit for page size " +
                     std::to_string(b.options.page_size) + " is " + std::to_string(limit)));
    return *this;
  }
  if (value.size() > detail::kMaxValueLength) {
    b.fail(Error(errc::value_too_large, "table '" + state_->name + "': the value of key '" +
                                            enc.format(k) + "' is 4 GiB or more"));
    return *this;
  }
  if (state_->columns.present()) {
    if (std::string why =
            detail::column_row_problem(value, static_cast<uint32_t>(state_->columns.names.size()));
        !why.empty()) {
      b.fail(Error(errc::invalid_argument, "table '" + state_->name + "': the row of key '" +
                                               enc.format(k) +
                                               "' does not fit the table's column list: " + why));
      return *this;
    }
  }
  state_->add_row(k, value);
  return *this;
}

namespace {

template <class MakeBatch>
status append_batch(detail::TableState& t, MakeBatch&& make_batch) {
  detail::BuilderState& b = *t.builder;
  if (b.built) return Error(errc::invalid_state, "table '" + t.name + "': append after build");
  if (!b.first_error) return b.first_error;
  result<detail::ColumnBatch> batch = make_batch(
      detail::ColumnBatchTable{.name = t.name,
                               .encoding = t.encoding,
                               .max_key_length = detail::max_key_length(b.options.page_size),
                               .columns = t.columns.names,
                               .key_column = t.columns.key_column});
  if (!batch) return std::move(batch).error();
  for (size_t i = 0; i < batch->rows() && b.first_error; ++i) {
    const auto [key, value] = batch->row(i);
    t.add_row(key, value);
  }
  return b.first_error;
}

}  // namespace

status TableBuilder::append_columns(const ColumnView& keys, std::span<const ColumnView> columns) {
  return append_batch(*state_, [&](const detail::ColumnBatchTable& table) {
    return detail::ColumnBatch::of_columns(table, keys, columns);
  });
}

status TableBuilder::append_values(const ColumnView& keys, const ColumnView& values) {
  return append_batch(*state_, [&](const detail::ColumnBatchTable& table) {
    return detail::ColumnBatch::of_values(table, keys, values);
  });
}

TableBuilder& TableBuilder::add_secondary_index(std::string_view name, bool unique,
                                                KeyEncoding encoding, IndexKeyFunction index_key) {
  detail::BuilderState& b = *state_->builder;
  const std::string label = "table '" + state_->name + "', index '" + std::string(name) + "'";
  if (b.built) b.fail(Error(errc::invalid_state, label + ": declared after build"));
  if (name.empty() || name.size() > 255)
    b.fail(Error(errc::invalid_argument, label + ": an index name must be 1 to 255 bytes"));
  if (!index_key) b.fail(Error(errc::invalid_argument, label + ": no index function given"));
  for (const auto& other : state_->indexes)
    if (other.name == name) b.fail(Error(errc::duplicate_name, label + " is declared twice"));
  if (!b.first_error) return *this;
  state_->indexes.push_back(
      detail::IndexState{std::string(name), unique, encoding, std::move(index_key),
                         std::make_unique<detail::Sorter>(b.options.memory_budget)});
  return *this;
}

TableBuilder& TableBuilder::add_miss_filter(uint32_t bits_per_key) {
  detail::BuilderState& b = *state_->builder;
  const std::string label = "table '" + state_->name + "'";
  if (b.built) b.fail(Error(errc::invalid_state, label + ": miss filter declared after build"));
  if (bits_per_key < 1 || bits_per_key > detail::kMaxMissFilterBitsPerKey)
    b.fail(Error(errc::invalid_argument, label + ": a miss filter takes 1 to " +
                                             std::to_string(detail::kMaxMissFilterBitsPerKey) +
                                             " bits per key, not " + std::to_string(bits_per_key)));
  if (!b.first_error) return *this;
  state_->miss_filter_bits = bits_per_key;
  return *this;
}

TableBuilder& TableBuilder::set_columns(std::vector<std::string> names,
                                        std::optional<uint32_t> key_column) {
  detail::BuilderState& b = *state_->builder;
  const std::string label = "table '" + state_->name + "'";
  if (b.built) b.fail(Error(errc::invalid_state, label + ": columns declared after build"));
  if (state_->sorter.rows() != 0)
    b.fail(Error(errc::invalid_argument, label + ": columns declared after its first row"));
  if (names.empty() || names.size() >= detail::kMaxColumns)
    b.fail(Error(errc::invalid_argument, label + ": a column list has 1 to " +
                                             std::to_string(detail::kMaxColumns - 1) +
                                             " columns, not " + std::to_string(names.size())));
  if (key_column && *key_column >= names.size())
    b.fail(Error(errc::invalid_argument, label + ": key column " + std::to_string(*key_column) +
                                             " is outside the " + std::to_string(names.size()) +
                                             " columns"));
  std::set<std::string_view> seen;
  for (const std::string& name : names) {
    if (name.empty() || name.size() > 255)
      b.fail(Error(errc::invalid_argument, label + ": a column name must be 1 to 255 bytes"));
    else if (!seen.insert(name).second)
      b.fail(Error(errc::duplicate_name, label + ": column '" + name + "' is named twice"));
  }
  if (!b.first_error) return *this;
  state_->columns.names = std::move(names);
  state_->columns.key_column = key_column ? *key_column : detail::kNoKeyColumn;
  return *this;
}

std::string_view TableBuilder::name() const noexcept {
  return state_->name;
}
KeyEncoding TableBuilder::encoding() const noexcept {
  return state_->encoding;
}
std::span<const std::string> TableBuilder::columns() const noexcept {
  return state_->columns.names;
}
std::optional<uint32_t> TableBuilder::key_column() const noexcept {
  if (state_->columns.key_column == detail::kNoKeyColumn) return std::nullopt;
  return state_->columns.key_column;
}
uint64_t TableBuilder::rows_appended() const noexcept {
  return state_->sorter.rows();
}
const drydb::status& TableBuilder::status() const noexcept {
  return state_->builder->first_error;
}

DatabaseBuilder::DatabaseBuilder(BuildOptions options)
    : state_(std::make_unique<detail::BuilderState>(std::move(options))) {}
DatabaseBuilder::~DatabaseBuilder() = default;
DatabaseBuilder::DatabaseBuilder(DatabaseBuilder&&) noexcept = default;
DatabaseBuilder& DatabaseBuilder::operator=(DatabaseBuilder&&) noexcept = default;

TableBuilder& DatabaseBuilder::create_table(std::string_view name, KeyEncoding encoding) {
  auto& b = *state_;
  auto& t = b.tables.emplace_back(&b, std::string(name), encoding, b.options.memory_budget);
  if (name.empty() || name.size() > 255) {
    b.fail(Error(errc::invalid_argument,
                 "table name '" + std::string(name) + "' must be 1 to 255 bytes"));
  } else {
    for (const auto& other : b.tables)
      if (&other != &t && other.name == name) {
        b.fail(Error(errc::duplicate_name, "table '" + std::string(name) + "' is created twice"));
        break;
      }
  }
  return t.handle;
}

const drydb::status& DatabaseBuilder::status() const noexcept {
  return state_->first_error;
}

drydb::status DatabaseBuilder::build_to_file(const std::filesystem::path& path) {
  auto& b = *state_;
  if (!b.first_error) return b.first_error.error();  // a copy: the error stays sticky
  if (b.built) return Error(errc::invalid_state, "this builder has already built");
  auto sink = detail::AtomicFileSink::create(path);
  if (!sink) return std::move(sink).error();  // nothing consumed: the builder may retry
  detail::reach_build_point(BuildPoint::temp_created);
  b.built = true;
  uint64_t length = 0;
  DRYDB_TRY(b.write(**sink, length));
  detail::reach_build_point(BuildPoint::pages_written);
  return (*sink)->commit();
}

result<std::vector<std::byte>> DatabaseBuilder::build_to_memory() {
  auto& b = *state_;
  if (!b.first_error) return b.first_error.error();  // a copy: the error stays sticky
  if (b.built) return Error(errc::invalid_state, "this builder has already built");
  b.built = true;
  detail::MemorySink sink;
  uint64_t length = 0;
  DRYDB_TRY(b.write(sink, length));
  return std::move(sink.bytes());
}

}  // namespace drydb
