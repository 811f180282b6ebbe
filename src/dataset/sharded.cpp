// ShardedDatabase, ShardedTable and ShardedRange (sharded.h): a generation of a dataset opened
// and checked against its manifest, and the queries of its tables routed to or merged across
// the shards.
#include "drydb/sharded.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <fstream>
#include <optional>
#include <string_view>
#include <tuple>
#include <utility>

#include "drydb/detail/coding.h"
#include "drydb/detail/node.h"
#include "drydb/index.h"
#include "format/checksum.h"

namespace drydb {

namespace detail {

// drydb::shard_of for one table, precomputed: each query routes through it. For range-v1, the
// split keys' 8 bytes after the whole words they all share (URLs' "https://..."), as numbers
// (zero-padded, big-endian), so that the search compares integers, and compares whole keys
// only where a split's head equals the key's (for int64 keys, at most one split, and only when
// the key is one).
class Router {
 public:
  Router(const Partitioning& p, uint32_t shards) : shards_(shards), splits_(p.splits) {
    hashed_ = p.function == kHashPartitioning;
    // The bytes every split starts with, then kept in whole 8-byte words.
    size_t common = splits_.empty() ? 0 : splits_.front().size();
    for (const std::string& split : splits_) {
      size_t i = 0;
      while (i < common && i < split.size() && split[i] == splits_.front()[i])
        ++i;
      common = i;
    }
    shared_ = splits_.empty() ? std::string() : splits_.front().substr(0, common / 8 * 8);
    for (const std::string& split : splits_)
      heads_.push_back(head(as_bytes(split).subspan(shared_.size())));
  }

  // The shard of encoded key `key`: drydb::shard_of(p, shards, key).
  uint32_t route(std::span<const std::byte> key) const noexcept {
    if (hashed_) return static_cast<uint32_t>(checksum(key) % shards_);
    const auto n = static_cast<uint32_t>(heads_.size());
    if (!shared_.empty()) {  // every split starts with shared_: a key that does not is outside
      const int c =
          compare_bytes(key.first(std::min(key.size(), shared_.size())), as_bytes(shared_));
      if (c != 0) return c < 0 ? 0 : n;
    }
    const uint64_t h = head(key.subspan(shared_.size()));
    // The splits whose head is below h, all <= key: counted without a branch where there are
    // few (the usual dataset), by a binary search where there are many.
    uint32_t i = 0;
    if (n <= kCounted) {
      for (uint32_t j = 0; j < n; ++j)
        i += heads_[j] < h ? 1u : 0u;
    } else {
      i = static_cast<uint32_t>(std::lower_bound(heads_.begin(), heads_.end(), h) - heads_.begin());
    }
    if (i == n || heads_[i] != h) return i;
    const std::string_view k(reinterpret_cast<const char*>(key.data()), key.size());
    while (i < n && heads_[i] == h && splits_[i] <= k)
      ++i;
    return i;
  }
  uint32_t route(std::string_view key) const noexcept {
    return route(std::as_bytes(std::span(key.data(), key.size())));
  }

 private:
  static constexpr uint32_t kCounted = 32;
  static std::span<const std::byte> as_bytes(const std::string& s) noexcept {
    return std::as_bytes(std::span(s.data(), s.size()));
  }
  // The first 8 bytes of a key, zero-padded, big-endian: heads order as their keys do, or tie.
  static uint64_t head(std::span<const std::byte> key) noexcept {
    if (key.size() >= 8) return load_be64(key.data());
    std::byte b[8] = {};
    std::memcpy(b, key.data(), key.size());
    return load_be64(b);
  }

  bool hashed_ = false;
  uint32_t shards_;
  std::vector<std::string> splits_;
  std::string shared_;           // the whole 8-byte words every split starts with
  std::vector<uint64_t> heads_;  // each split's next 8 bytes
};

struct ShardedTableState {
  const ManifestTable* spec;
  const std::vector<std::string>* names;  // the shards' files (ShardedState's)
  uint32_t shards;
  KeyEncoding encoding = KeyEncoding::bytes();
  std::vector<ReadOnlyTable> parts;   // one per shard
  std::vector<uint64_t> rows_before;  // rows in the shards before shard i; S + 1 entries
  std::optional<Router> router;
  bool range_partitioned() const { return spec->partitioning.function == kRangePartitioning; }
};

struct ShardedState {
  Manifest manifest;
  std::filesystem::path folder;    // the shards'
  std::vector<std::string> names;  // each shard's file, as its errors name it: folder / file

  std::vector<ReadOnlyDatabase> shards;
  std::vector<ShardedTableState> tables;
};

}  // namespace detail

namespace {

namespace fs = std::filesystem;

// `e` from shard file `file`, naming it: "ds/gen-1/shard-00002.drydb: table 'data', page 7: ...".
Error in_shard_file(const std::string& file, Error e) {
  e.message = file + ": " + e.message;
  return e;
}

// `e` from shard `shard` of table `t`, naming the shard's file.
Error in_shard(const detail::ShardedTableState& t, uint32_t shard, Error e) {
  return in_shard_file((*t.names)[shard], std::move(e));
}

std::string_view as_text(std::span<const std::byte> b) {
  return {reinterpret_cast<const char*>(b.data()), b.size()};
}

Error disagrees(const fs::path& file, const std::string& what) {
  return Error(errc::corruption, file.string() + " disagrees with its manifest: " + what);
}

// The generation whose folder `name` is ("gen-N": N >= 1 in decimal, no leading zero), or 0.
uint64_t generation_of_folder(std::string_view name) {
  constexpr std::string_view kPrefix = "gen-";
  if (!name.starts_with(kPrefix)) return 0;
  const std::string_view digits = name.substr(kPrefix.size());
  if (digits.empty() || digits.front() == '0') return 0;
  uint64_t n = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (ec != std::errc() || end != digits.data() + digits.size()) return 0;
  return n;
}

// A manifest read from a generation's folder (gen-N, named by CURRENT, by the caller, or as the
// manifest's folder) describes generation N (docs/sharding.md): else errc::corruption.
status check_generation_folder(const fs::path& manifest_file, const Manifest& m) {
  const std::string folder = manifest_file.parent_path().filename().string();
  const uint64_t n = generation_of_folder(folder);
  if (n == 0 || m.generation == n) return {};
  return Error(errc::corruption, manifest_file.string() + ": the manifest says generation " +
                                     std::to_string(m.generation) + ", but it is in " + folder +
                                     ", the folder of generation " + std::to_string(n));
}

// The manifest file a path names, and the folder its shards are in.
result<fs::path> manifest_path(const fs::path& path) {
  std::error_code ec;
  if (!fs::is_directory(path, ec)) return path;
  if (fs::exists(path / "manifest.json", ec)) return path / "manifest.json";
  auto current = current_generation(path);
  if (!current) return std::move(current).error();
  if (*current == 0)
    return Error(errc::not_found,
                 path.string() + " is not a dataset (no CURRENT) nor a generation");
  return path / generation_folder(*current) / "manifest.json";
}

// XXH3-64 of a whole file, and its length.
result<std::pair<uint64_t, uint64_t>> hash_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return Error(errc::io_error, "cannot read " + file.string());
  detail::Checksummer sum;
  uint64_t bytes = 0;
  std::vector<char> buf(1 << 20);
  while (in.read(buf.data(), static_cast<std::streamsize>(buf.size())) || in.gcount() > 0) {
    sum.update(std::as_bytes(std::span(buf.data(), static_cast<size_t>(in.gcount()))));
    bytes += static_cast<uint64_t>(in.gcount());
  }
  if (in.bad()) return Error(errc::io_error, "cannot read " + file.string());
  return std::pair{sum.digest(), bytes};
}

// Shard `i` against the manifest: its size, identity (a manifest of version 2), tables (names,
// encodings, indexes, in order), rows and first and last keys.
status check_shard(const Manifest& m, size_t i, const fs::path& file, const ReadOnlyDatabase& db) {
  const ManifestShard& shard = m.shards[i];
  std::error_code ec;
  const uintmax_t size = fs::file_size(file, ec);
  if (ec) return Error(errc::io_error, "cannot stat " + file.string() + ": " + ec.message());
  if (size != shard.bytes)
    return disagrees(file, std::to_string(size) + " bytes, not " + std::to_string(shard.bytes));
  // The identity ties the file to the rows it was built from: a shard of another dataset or
  // generation, even of the same size and shape, is refused here without reading it whole.
  if (shard.identity && db.identity() != *shard.identity)
    return disagrees(file,
                     "its identity is not the manifest's: it is another file than the one "
                     "this generation was built with");
  const std::vector<ReadOnlyTable> tables = db.tables();
  if (tables.size() != m.tables.size())
    return disagrees(
        file, std::to_string(tables.size()) + " tables, not " + std::to_string(m.tables.size()));
  for (size_t t = 0; t < tables.size(); ++t) {
    const ManifestTable& spec = m.tables[t];
    const ReadOnlyTable& table = tables[t];
    const std::string label = "table " + std::to_string(t) + " ('" + spec.name + "')";
    if (table.name() != spec.name)
      return disagrees(file, label + " is named '" + std::string(table.name()) + "'");
    if (table.encoding().id() != spec.key_encoding)
      return disagrees(file, label + " has " + std::string(table.encoding().id()) + " keys");
    const std::vector<SecondaryIndex> indexes = table.indexes();
    if (indexes.size() != spec.indexes.size())
      return disagrees(file, label + " has " + std::to_string(indexes.size()) + " indexes");
    for (size_t x = 0; x < indexes.size(); ++x)
      if (indexes[x].name() != spec.indexes[x].name ||
          indexes[x].unique() != spec.indexes[x].unique ||
          indexes[x].encoding().id() != spec.indexes[x].key_encoding)
        return disagrees(file, label + ", index " + std::to_string(x) + " is not '" +
                                   spec.indexes[x].name + "' as the manifest declares it");
    const ShardTable& want = shard.tables[t];
    if (table.count() != want.rows)
      return disagrees(file, label + " has " + std::to_string(table.count()) + " rows, not " +
                                 std::to_string(want.rows));
    if (want.rows == 0) continue;
    Cursor c = table.cursor();
    if (!c.first() || as_text(c.key()) != want.first) {
      if (!c.status()) return in_shard_file(file.string(), c.status().error());
      return disagrees(file, label + ": its first key is not the manifest's");
    }
    if (!c.last() || as_text(c.key()) != want.last) {
      if (!c.status()) return in_shard_file(file.string(), c.status().error());
      return disagrees(file, label + ": its last key is not the manifest's");
    }
  }
  return {};
}

}  // namespace

result<ManifestShard> describe_shard(const fs::path& file) {
  ManifestShard out;
  out.file = file.filename().string();
  auto hashed = hash_file(file);
  if (!hashed) return std::move(hashed).error();
  std::tie(out.xxh3, out.bytes) = *hashed;
  auto db = ReadOnlyDatabase::open(file);
  if (!db) return std::move(db).error();
  out.identity = db->identity();
  for (const ReadOnlyTable& t : db->tables()) {
    ShardTable& st = out.tables.emplace_back();
    st.rows = t.count();
    if (st.rows == 0) continue;
    Cursor c = t.cursor();
    if (c.first()) st.first = as_text(c.key());
    if (c.valid() && c.last()) st.last = as_text(c.key());
    if (!c.status()) return in_shard_file(file.string(), c.status().error());
  }
  return out;
}

// ---- ShardedDatabase ----------------------------------------------------------------------------

ShardedDatabase::ShardedDatabase(std::unique_ptr<detail::ShardedState> s) : state_(std::move(s)) {}
ShardedDatabase::ShardedDatabase(ShardedDatabase&&) noexcept = default;
ShardedDatabase& ShardedDatabase::operator=(ShardedDatabase&&) noexcept = default;
ShardedDatabase::~ShardedDatabase() = default;

result<ShardedDatabase> ShardedDatabase::open(const fs::path& path, const ShardedOptions& options) {
  auto where = manifest_path(path);
  if (!where) return std::move(where).error();
  auto manifest = read_manifest(*where);
  if (!manifest) return std::move(manifest).error();
  DRYDB_TRY(check_generation_folder(*where, *manifest));
  auto state = std::make_unique<detail::ShardedState>();
  state->manifest = std::move(*manifest);
  const Manifest& m = state->manifest;
  const fs::path folder = where->parent_path();
  state->folder = folder;
  state->shards.reserve(m.shards.size());
  for (const ManifestShard& shard : m.shards)
    state->names.push_back((folder / shard.file).string());
  for (size_t i = 0; i < m.shards.size(); ++i) {
    const fs::path file = folder / m.shards[i].file;
    auto db = ReadOnlyDatabase::open(file, options.open);
    if (!db)
      return Error(db.error().code, "shard " + std::to_string(i) + ": " + db.error().message);
    DRYDB_TRY(check_shard(m, i, file, *db));
    if (options.verify_checksums) {
      auto hashed = hash_file(file);
      if (!hashed) return std::move(hashed).error();
      if (hashed->first != m.shards[i].xxh3)
        return disagrees(file, "its XXH3-64 is not the manifest's");
    }
    state->shards.push_back(std::move(*db));
  }
  const auto shards = static_cast<uint32_t>(m.shards.size());
  state->tables.resize(m.tables.size());
  for (size_t t = 0; t < m.tables.size(); ++t) {
    detail::ShardedTableState& ts = state->tables[t];
    ts.spec = &m.tables[t];
    ts.names = &state->names;
    ts.shards = shards;
    ts.rows_before.assign(1, 0);
    for (uint32_t i = 0; i < shards; ++i) {
      ts.parts.push_back(state->shards[i].tables()[t]);
      ts.rows_before.push_back(ts.rows_before.back() + m.shards[i].tables[t].rows);
      // Rows are read as their table's column list says, which the manifest does not record:
      // every shard's must be the first's.
      const ReadOnlyTable& first = ts.parts.front();
      const ReadOnlyTable& part = ts.parts.back();
      if (!std::ranges::equal(part.columns(), first.columns()) ||
          part.key_column() != first.key_column())
        return disagrees(
            folder / m.shards[i].file,
            "its table '" + m.tables[t].name + "' has another column list than the first shard's");
    }
    ts.encoding = ts.parts[0].encoding();
    ts.router.emplace(ts.spec->partitioning, shards);
  }
  return ShardedDatabase(std::move(state));
}

const Manifest& ShardedDatabase::manifest() const noexcept {
  return state_->manifest;
}
size_t ShardedDatabase::shard_count() const noexcept {
  return state_->shards.size();
}
const ReadOnlyDatabase& ShardedDatabase::shard(size_t i) const noexcept {
  return state_->shards[i];
}
std::filesystem::path ShardedDatabase::shard_path(size_t i) const {
  return state_->folder / state_->manifest.shards[i].file;
}

status ShardedDatabase::verify() const {
  for (size_t i = 0; i < state_->shards.size(); ++i)
    if (auto st = state_->shards[i].verify(); !st)
      return in_shard_file(state_->names[i], std::move(st).error());
  return {};
}

result<ShardedTable> ShardedDatabase::table(std::string_view name) const {
  for (const auto& t : state_->tables)
    if (t.spec->name == name) return ShardedTable(&t);
  std::string names;
  for (const auto& t : state_->tables)
    names += (names.empty() ? "'" : ", '") + t.spec->name + "'";
  return Error(errc::not_found, "no table '" + std::string(name) + "' in dataset '" +
                                    state_->manifest.dataset + "' (tables: " + names + ")");
}

std::vector<ShardedTable> ShardedDatabase::tables() const {
  std::vector<ShardedTable> out;
  for (const auto& t : state_->tables)
    out.push_back(ShardedTable(&t));
  return out;
}

// ---- ShardedTable -------------------------------------------------------------------------------

std::string_view ShardedTable::name() const noexcept {
  return t_->spec->name;
}
KeyEncoding ShardedTable::encoding() const noexcept {
  return t_->encoding;
}
const Partitioning& ShardedTable::partitioning() const noexcept {
  return t_->spec->partitioning;
}
uint64_t ShardedTable::count() const noexcept {
  return t_->rows_before.back();
}

uint32_t ShardedTable::shard_of(const Key& key) const noexcept {
  return t_->router->route(key.bytes());
}

result<Value> ShardedTable::get(const Key& key) const {
  const uint32_t shard = shard_of(key);
  auto v = t_->parts[shard].get(key);
  if (!v) [[unlikely]]
    return in_shard(*t_, shard, std::move(v).error());
  return v;
}

result<ShardedCursor> ShardedTable::cursor() const {
  if (!t_->range_partitioned())
    return Error(errc::invalid_argument,
                 "table '" + t_->spec->name +
                     "' is hash-partitioned: its rows are in no order across shards, so there is "
                     "no cursor over them (get_range and prefix merge the shards' rows)");
  return ShardedCursor(t_);
}

// ---- ShardedCursor --------------------------------------------------------------------------

void ShardedCursor::name_error() const {
  status_ = in_shard(*t_, shard_, cursor_.status().error());
}

bool ShardedCursor::enter(int64_t shard, bool backward) {
  const auto& rows_before = t_->rows_before;
  for (; shard >= 0 && shard < static_cast<int64_t>(t_->shards); shard += backward ? -1 : 1) {
    const auto i = static_cast<size_t>(shard);
    if (rows_before[i + 1] == rows_before[i]) continue;  // an empty shard
    shard_ = static_cast<uint32_t>(i);
    cursor_ = t_->parts[i].cursor();
    return settle(backward ? cursor_.last() : cursor_.first());
  }
  cursor_ = Cursor();
  return false;
}

bool ShardedCursor::first() {
  return t_ != nullptr && enter(0, /*backward=*/false);
}

bool ShardedCursor::last() {
  return t_ != nullptr && enter(int64_t{t_->shards} - 1, /*backward=*/true);
}

bool ShardedCursor::seek(const Key& key) {
  if (t_ == nullptr) return false;
  shard_ = t_->router->route(key.bytes());
  cursor_ = t_->parts[shard_].cursor();
  if (cursor_.seek(key) || !cursor_.status()) return settle(cursor_.valid());
  return enter(int64_t{shard_} + 1, /*backward=*/false);  // past the shard's keys
}

bool ShardedCursor::seek_exact(const Key& key) {
  if (!seek(key)) return false;
  const auto k = key.bytes();
  const auto at = cursor_.key();
  return at.size() == k.size() && std::equal(at.begin(), at.end(), k.begin());
}

bool ShardedCursor::seek_rank(uint64_t rank) {
  if (t_ == nullptr) return false;
  const auto& rows_before = t_->rows_before;  // S + 1 entries, the last the table's rows
  if (rank >= rows_before.back()) {
    cursor_ = Cursor();
    return false;
  }
  // The shard holding the row: the last whose rows_before is <= rank (empty shards before it
  // share its value; upper_bound passes them).
  const auto it = std::upper_bound(rows_before.begin(), rows_before.end(), rank);
  shard_ = static_cast<uint32_t>(it - rows_before.begin() - 1);
  cursor_ = t_->parts[shard_].cursor();
  return settle(cursor_.seek_rank(rank - rows_before[shard_]));
}

bool ShardedCursor::next() {
  if (!cursor_.valid()) return false;
  if (cursor_.next() || !cursor_.status()) return settle(cursor_.valid());
  return enter(int64_t{shard_} + 1, /*backward=*/false);
}

bool ShardedCursor::prev() {
  if (!cursor_.valid()) return false;
  if (cursor_.prev() || !cursor_.status()) return settle(cursor_.valid());
  return enter(int64_t{shard_} - 1, /*backward=*/true);
}

uint64_t ShardedCursor::rank() const noexcept {
  return t_->rows_before[shard_] + cursor_.rank();
}

void ShardedTable::shard_span(const KeyBound& start, const KeyBound& end, uint32_t* first,
                              uint32_t* last) const noexcept {
  *first = 0;
  *last = t_->shards - 1;
  if (!t_->range_partitioned()) return;
  if (start.bounded()) *first = shard_of(start.key());
  if (end.bounded()) *last = shard_of(end.key());
}

result<uint64_t> ShardedTable::count_range(const KeyBound& start, const KeyBound& end,
                                           const RangeOptions& options) const {
  uint32_t first, last;
  shard_span(start, end, &first, &last);
  if (first > last) {
    // Bounds the wrong way round: the shard's own check says so.
    auto c = t_->parts[first].count_range(start, end, options);
    if (!c) return in_shard(*t_, first, std::move(c).error());
    return c;
  }
  if (!t_->range_partitioned() || first == last) {
    uint64_t n = 0;
    for (uint32_t i = first; i <= last; ++i) {
      auto c = t_->parts[i].count_range(start, end, options);
      if (!c) return in_shard(*t_, i, std::move(c).error());
      n += *c;
    }
    return n;
  }
  // range-v1: the edge shards count their part; the shards between them, all their rows.
  auto head = t_->parts[first].count_range(start, unbounded, options);
  if (!head) return in_shard(*t_, first, std::move(head).error());
  auto tail = t_->parts[last].count_range(unbounded, end, options);
  if (!tail) return in_shard(*t_, last, std::move(tail).error());
  return *head + (t_->rows_before[last] - t_->rows_before[first + 1]) + *tail;
}

result<ShardedRange> ShardedTable::get_range(const KeyBound& start, const KeyBound& end,
                                             const RangeOptions& options) const {
  uint32_t first, last;
  shard_span(start, end, &first, &last);
  if (first > last) {
    auto r = t_->parts[first].get_range(start, end, options);
    if (!r) return in_shard(*t_, first, std::move(r).error());
    return ShardedRange();
  }
  const bool merge = !t_->range_partitioned();
  std::vector<Range> parts;
  std::vector<uint32_t> shards;
  parts.reserve(last - first + 1);
  for (uint32_t i = first; i <= last; ++i) {
    shards.push_back(i);
    // range-v1: a shard past the start's shard (or every shard, with no start bound) and before
    // the end's (or every shard, with no end bound) holds keys that are all inside the range: its
    // part is all its rows, counted from the manifest and positioned when an iteration reaches it
    // (ShardedRange::iterator), not descended now.
    if (!merge && (i > first || !start.bounded()) && (i < last || !end.bounded())) {
      parts.emplace_back(t_->parts[i].cursor(), 0, t_->rows_before[i + 1] - t_->rows_before[i],
                         options.order);
      continue;
    }
    auto r = t_->parts[i].get_range(start, end, options);
    if (!r) return in_shard(*t_, i, std::move(r).error());
    parts.push_back(std::move(*r));
  }
  if (!merge && options.order == SortOrder::descending) {
    std::reverse(parts.begin(), parts.end());
    std::reverse(shards.begin(), shards.end());
  }
  return ShardedRange(std::move(parts), std::move(shards), t_->names, merge, options.order);
}

result<ShardedRange> ShardedTable::prefix(std::span<const std::byte> prefix,
                                          SortOrder order) const {
  // The shards that can hold keys starting with `prefix`: from the prefix's shard to the shard
  // of the first key after every such key (the prefix with its last byte below 0xff raised).
  uint32_t first = 0, last = t_->shards - 1;
  if (t_->range_partitioned()) {
    first = t_->router->route(prefix);
    std::string above(as_text(prefix));
    while (!above.empty() && static_cast<unsigned char>(above.back()) == 0xff)
      above.pop_back();
    if (!above.empty()) {
      above.back() = static_cast<char>(static_cast<unsigned char>(above.back()) + 1);
      last = t_->router->route(above);
    }
  }
  const bool merge = !t_->range_partitioned();
  std::vector<Range> parts;
  std::vector<uint32_t> shards;
  parts.reserve(last - first + 1);
  for (uint32_t i = first; i <= last; ++i) {
    shards.push_back(i);
    // range-v1: every key of a shard between the two edge shards starts with the prefix (as in
    // get_range, all its rows, positioned when reached).
    if (!merge && i > first && i < last) {
      parts.emplace_back(t_->parts[i].cursor(), 0, t_->rows_before[i + 1] - t_->rows_before[i],
                         order);
      continue;
    }
    auto r = t_->parts[i].prefix(prefix, order);
    if (!r) return in_shard(*t_, i, std::move(r).error());
    parts.push_back(std::move(*r));
  }
  if (!merge && order == SortOrder::descending) {
    std::reverse(parts.begin(), parts.end());
    std::reverse(shards.begin(), shards.end());
  }
  return ShardedRange(std::move(parts), std::move(shards), t_->names, merge, order);
}

// ---- ShardedRange -------------------------------------------------------------------------------

ShardedRange::ShardedRange(std::vector<Range> parts, std::vector<uint32_t> shards,
                           const std::vector<std::string>* names, bool merge, SortOrder order)
    : parts_(std::move(parts)),
      shards_(std::move(shards)),
      names_(names),
      merge_(merge),
      order_(order) {
  for (const Range& r : parts_)
    size_ += r.size();
}

void ShardedRange::fail(size_t i) {
  status_ = in_shard_file((*names_)[shards_[i]], parts_[i].status().error());
}

ShardedRange::iterator::iterator(ShardedRange* r) : range_(r), merge_(r->merge_) {
  r->status_ = {};
  if (r->parts_.empty()) return;
  if (!r->merge_) {
    // Concatenated: a part is begun (its cursor positioned) when the iteration reaches it.
    parts_.reserve(r->parts_.size());
    parts_.push_back(r->parts_[0].begin());
    current_ = 0;
    skip_empty_parts();
    return;
  }
  for (Range& p : r->parts_)
    parts_.push_back(p.begin());
  for (uint32_t i = 0; i < parts_.size(); ++i) {
    if (!(parts_[i] == std::default_sentinel)) {
      heap_.push_back(i);
    } else if (!r->parts_[i].status()) {  // a part that failed at its start ends it all
      r->fail(i);
      current_ = kDone;
      return;
    }
  }
  const auto cmp = [this](uint32_t a, uint32_t b) { return after(a, b); };
  std::make_heap(heap_.begin(), heap_.end(), cmp);
  current_ = heap_.empty() ? kDone : heap_.front();
}

bool ShardedRange::iterator::after(uint32_t a, uint32_t b) const {
  const std::string_view ka = as_text((*parts_[a]).key), kb = as_text((*parts_[b]).key);
  return range_->order_ == SortOrder::ascending ? kb < ka : ka < kb;
}

void ShardedRange::iterator::skip_empty_parts() {
  while (parts_[current_] == std::default_sentinel) {
    // A part that ended on an error ends the whole iteration: status() says why.
    if (!range_->parts_[current_].status()) {
      range_->fail(current_);
      current_ = kDone;
      return;
    }
    if (current_ + 1 == range_->parts_.size()) {
      current_ = kDone;
      return;
    }
    ++current_;
    parts_.push_back(range_->parts_[current_].begin());
  }
}

ShardedRange::iterator& ShardedRange::iterator::step_merged() {
  const auto cmp = [this](uint32_t a, uint32_t b) { return after(a, b); };
  std::pop_heap(heap_.begin(), heap_.end(), cmp);
  const uint32_t top = heap_.back();
  heap_.pop_back();
  ++parts_[top];
  if (!(parts_[top] == std::default_sentinel)) {
    heap_.push_back(top);
    std::push_heap(heap_.begin(), heap_.end(), cmp);
  } else if (!range_->parts_[top].status()) {
    range_->fail(top);
    heap_.clear();  // an error ends the iteration: status() says why
  }
  current_ = heap_.empty() ? kDone : heap_.front();
  return *this;
}

// ---- secondary indexes across shards -------------------------------------------------------

result<ShardedIndex> ShardedTable::index(std::string_view name) const {
  const auto& declared = t_->spec->indexes;
  if (std::none_of(declared.begin(), declared.end(),
                   [&](const ManifestIndex& m) { return m.name == name; })) {
    std::string names;
    for (const ManifestIndex& m : declared)
      names += (names.empty() ? "" : ", ") + m.name;
    return Error(errc::not_found, "table '" + t_->spec->name + "' has no index '" +
                                      std::string(name) +
                                      "' (indexes: " + (names.empty() ? "none" : names) + ")");
  }
  std::vector<SecondaryIndex> parts;
  parts.reserve(t_->parts.size());
  for (uint32_t i = 0; i < t_->shards; ++i) {
    auto ix = t_->parts[i].index(name);
    if (!ix) return in_shard(*t_, i, std::move(ix).error());
    parts.push_back(*ix);
  }
  return ShardedIndex(std::move(parts), t_->names);
}

std::vector<ShardedIndex> ShardedTable::indexes() const {
  std::vector<ShardedIndex> out;
  for (const ManifestIndex& m : t_->spec->indexes)
    if (auto ix = index(m.name)) out.push_back(std::move(*ix));
  return out;
}

uint64_t ShardedIndex::count() const noexcept {
  uint64_t n = 0;
  for (const SecondaryIndex& part : parts_)
    n += part.count();
  return n;
}

result<Row> ShardedIndex::get(const Key& key) const {
  Row best;  // of a non-unique index's rows in several shards, the first by primary key
  for (size_t i = 0; i < parts_.size(); ++i) {
    auto row = parts_[i].get(key);
    if (!row) return in_shard_file((*names_)[i], std::move(row).error());
    if (!row->has_value()) continue;
    if (!best.has_value() || std::ranges::lexicographical_compare(row->key(), best.key()))
      best = std::move(*row);
    if (unique()) break;  // unique across the dataset: no other shard has it
  }
  return best;
}

result<uint64_t> ShardedIndex::count_range(const KeyBound& start, const KeyBound& end,
                                           const RangeOptions& options) const {
  uint64_t n = 0;
  for (size_t i = 0; i < parts_.size(); ++i) {
    auto c = parts_[i].count_range(start, end, options);
    if (!c) return in_shard_file((*names_)[i], std::move(c).error());
    n += *c;
  }
  return n;
}

template <class RangeOf>
result<ShardedIndexRange> ShardedIndex::merged(RangeOf range_of, SortOrder order) const {
  std::vector<ShardedIndexRange::Part> parts;
  for (uint32_t i = 0; i < parts_.size(); ++i) {
    auto r = range_of(parts_[i]);
    if (!r) return in_shard_file((*names_)[i], std::move(r).error());
    if (r->empty()) continue;
    parts.emplace_back(parts_[i], r->first_rank(), r->size(), i);
  }
  return ShardedIndexRange(std::move(parts), names_, order);
}

result<ShardedIndexRange> ShardedIndex::get_range(const KeyBound& start, const KeyBound& end,
                                                  const RangeOptions& options) const {
  RangeOptions ascending = options;
  ascending.order = SortOrder::ascending;
  return merged([&](const SecondaryIndex& ix) { return ix.get_range(start, end, ascending); },
                options.order);
}

result<ShardedIndexRange> ShardedIndex::prefix(std::span<const std::byte> prefix,
                                               SortOrder order) const {
  return merged([&](const SecondaryIndex& ix) { return ix.prefix(prefix, SortOrder::ascending); },
                order);
}

ShardedIndexRange::ShardedIndexRange(std::vector<Part> parts, const std::vector<std::string>* names,
                                     SortOrder order)
    : parts_(std::move(parts)), names_(names), order_(order) {
  for (const Part& p : parts_)
    size_ += p.count;
}

ShardedIndexRange::iterator::iterator(ShardedIndexRange* r) : range_(r) {
  r->status_ = {};
  left_.resize(r->parts_.size());
  for (uint32_t i = 0; i < r->parts_.size(); ++i) {
    Part& p = r->parts_[i];
    left_[i] = p.count;
    const bool ascending = r->order_ == SortOrder::ascending;
    take(i, p.cursor.seek_rank(ascending ? p.first_rank : p.first_rank + p.count - 1));
    if (!r->status_) return;
  }
}

void ShardedIndexRange::iterator::take(uint32_t i, bool moved) {
  IndexCursor& c = range_->parts_[i].cursor;
  if (moved) {  // read now: a read error shows in status()
    (void)c.index_key();
    (void)c.key();
  }
  if (!moved || !c.status()) {
    // A shard that runs out before its counted entries, or fails: the iteration ends here.
    range_->status_ =
        in_shard_file((*range_->names_)[range_->parts_[i].shard],
                      c.status() ? detail::range_count_mismatch() : c.status().error());
    heap_.clear();
    return;
  }
  heap_.push_back(i);
  std::push_heap(heap_.begin(), heap_.end(),
                 [this](uint32_t a, uint32_t b) { return after(a, b); });
}

bool ShardedIndexRange::iterator::after(uint32_t a, uint32_t b) const {
  const IndexCursor& x = range_->parts_[a].cursor;
  const IndexCursor& y = range_->parts_[b].cursor;
  auto cmp = std::lexicographical_compare_three_way(x.index_key().begin(), x.index_key().end(),
                                                    y.index_key().begin(), y.index_key().end());
  if (cmp == 0) {
    const auto xk = x.key(), yk = y.key();
    cmp = std::lexicographical_compare_three_way(xk.begin(), xk.end(), yk.begin(), yk.end());
  }
  return range_->order_ == SortOrder::ascending ? cmp > 0 : cmp < 0;
}

ShardedIndexEntry ShardedIndexRange::iterator::operator*() const {
  const IndexCursor& c = range_->parts_[heap_.front()].cursor;
  return {c.index_key(), c.key(), c.value()};
}

ShardedIndexRange::iterator& ShardedIndexRange::iterator::operator++() {
  std::pop_heap(heap_.begin(), heap_.end(), [this](uint32_t a, uint32_t b) { return after(a, b); });
  const uint32_t i = heap_.back();
  heap_.pop_back();
  if (--left_[i] == 0) return *this;
  IndexCursor& c = range_->parts_[i].cursor;
  take(i, range_->order_ == SortOrder::ascending ? c.next() : c.prev());
  return *this;
}

}  // namespace drydb
