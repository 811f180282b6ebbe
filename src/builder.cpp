#include "drydb/builder.h"

#include <algorithm>
#include <deque>
#include <set>

#include "checksum.h"
#include "drydb/detail/catalog.h"
#include "drydb/detail/coding.h"
#include "drydb/detail/format.h"
#include "sink.h"
#include "sorter.h"
#include "tree_writer.h"

namespace drydb {
namespace detail {

struct TableState {
  TableState(BuilderState* b, std::string n, KeyEncoding e, size_t memory_budget)
      : builder(b), name(std::move(n)), encoding(e), sorter(memory_budget), handle(this) {}
  BuilderState* builder;
  std::string name;
  KeyEncoding encoding;
  Sorter sorter;
  TableBuilder handle;
};

class BuilderState {
 public:
  explicit BuilderState(BuildOptions o) : options(std::move(o)) {
    if (!valid_page_size(options.page_size))
      fail(Error(errc::invalid_argument, "page size " + std::to_string(options.page_size) +
                                             " is not a power of two from 512 to 65536"));
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
  status write(Sink& sink, uint64_t& file_length);
};

status BuilderState::maybe_spill() {
  if (buffered <= options.memory_budget) return {};
  std::filesystem::path dir = options.temp_dir;
  if (dir.empty()) {
    std::error_code ec;
    dir = std::filesystem::temp_directory_path(ec);
    if (ec) return Error(errc::io_error, "no temp folder for spilling: " + ec.message());
  }
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

status BuilderState::write(Sink& sink, uint64_t& file_length) {
  const uint32_t page_size = options.page_size;
  Catalog catalog;
  uint64_t next_page = 1;  // page 0 is the header
  for (auto& t : tables) {
    TableDesc desc;
    desc.name = t.name;
    desc.primary.encoding_id = std::string(t.encoding.id());
    desc.primary.kind = TreeKind::primary;
    desc.primary.key_width = static_cast<uint16_t>(t.encoding.fixed_width());
    TreeWriter writer(sink, page_size, desc.primary.key_width, next_page);
    DRYDB_TRY(t.sorter.merge([&](Bytes key, Bytes value) { return writer.add(key, value); },
                             [&](Bytes key) {
                               return Error(errc::duplicate_key, "table '" + t.name + "': key '" +
                                                                     t.encoding.format(key) +
                                                                     "' was appended twice");
                             }));
    DRYDB_TRY(writer.finish(desc.primary));
    catalog.tables.push_back(std::move(desc));
  }
  std::vector<std::byte> cat = encode_catalog(catalog);
  const uint64_t catalog_offset = next_page * page_size;
  DRYDB_TRY(sink.write_at(catalog_offset, cat));
  file_length = catalog_offset + cat.size();

  std::vector<std::byte> head(page_size);
  std::byte* h = head.data();
  std::memcpy(h + header::kMagicOff, kMagic, 4);
  store_u16(h + header::kMajorOff, kFormatMajor);
  store_u16(h + header::kMinorOff, kFormatMinor);
  store_u32(h + header::kRequiredFeaturesOff, 0);
  store_u32(h + header::kPageSizeOff, page_size);
  store_u64(h + header::kFileLengthOff, file_length);
  store_u64(h + header::kPageCountOff, next_page);
  store_u64(h + header::kCatalogLengthOff, cat.size());
  store_u64(h + header::kCatalogChecksumOff, checksum(cat));
  store_u64(h + header::kHeaderChecksumOff, checksum(Bytes(h, header::kHeaderChecksumOff)));
  return sink.write_at(0, head);
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
  const size_t before = state_->sorter.memory_bytes();
  state_->sorter.add(k, value);
  b.buffered += state_->sorter.memory_bytes() - before;
  if (auto st = b.maybe_spill(); !st) b.fail(std::move(st).error());
  return *this;
}

std::string_view TableBuilder::name() const noexcept {
  return state_->name;
}
KeyEncoding TableBuilder::encoding() const noexcept {
  return state_->encoding;
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
  b.built = true;
  uint64_t length = 0;
  DRYDB_TRY(b.write(**sink, length));
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
