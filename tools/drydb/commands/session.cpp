#include "commands/session.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <limits>

#include <fmt/format.h>

#include "commands/inspect.h"
#include "common.h"
#include "io/json.h"
#include "io/keys.h"
#include "io/text.h"
#include "test_pause.h"

namespace drydb::cli {

namespace {

constexpr uint64_t kNoLimit = std::numeric_limits<uint64_t>::max();
constexpr uint64_t kShellRowLimit = 20;
constexpr uint64_t kShellPrefixLimit = 10;
constexpr size_t kShellDumpBytes = 256;

// A range end as typed: "*" (unquoted) is open.
struct Bound {
  bool bounded = false;
  std::string encoded;
};

Bound parse_bound(KeyEncoding enc, const Token& t, bool hex) {
  if (t.text == "*" && !t.quoted) return {};
  return {true, parse_key_text(enc, t.text, hex)};
}

KeyBound key_bound(const Bound& b, KeyKind kind) {
  if (!b.bounded) return unbounded;
  return KeyBound(make_key(kind, b.encoded));
}

// Display width of text in a table cell: code points.
size_t width_of(std::string_view s) {
  size_t n = 0;
  for (char c : s)
    n += (static_cast<unsigned char>(c) & 0xc0) != 0x80;
  return n;
}

// Rows of cells as aligned columns, two spaces apart.
std::string aligned(const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> widths;
  for (const auto& r : rows)
    for (size_t c = 0; c < r.size(); ++c) {
      if (widths.size() <= c) widths.push_back(0);
      widths[c] = std::max(widths[c], width_of(r[c]));
    }
  std::string out;
  for (const auto& r : rows) {
    std::string line;
    for (size_t c = 0; c < r.size(); ++c) {
      line += r[c];
      if (c + 1 < r.size()) line.append(widths[c] - width_of(r[c]) + 2, ' ');
    }
    out += line + '\n';
  }
  return out;
}

std::string percent(uint64_t part, uint64_t whole) {
  if (whole == 0) return "-";
  return fmt::format("{:.1f}%", 100.0 * static_cast<double>(part) / static_cast<double>(whole));
}

std::string ratio(uint64_t unpacked, uint64_t stored) {
  if (stored == 0) return "-";
  return fmt::format("{:.2f}", static_cast<double>(unpacked) / static_cast<double>(stored));
}

// open_database's storage: --mmap.
bool mapped_reads = false;

}  // namespace

void use_mapped_reads(bool mapped) {
  mapped_reads = mapped;
}

ReadOnlyDatabase open_database(const std::string& path) {
  // The library reports a missing file as an io_error; say it the usual way.
  struct stat st;
  if (::stat(path.c_str(), &st) != 0)
    fail(fmt::format("cannot open '{}': {}", path, std::strerror(errno)));
  if (S_ISDIR(st.st_mode)) fail(fmt::format("cannot open '{}': it is a directory", path));
  // pread unless --mmap: the tool reads whatever file it is pointed at, and a file truncated in
  // place under a mapping kills the process with SIGBUS, where pread reports errc::truncated (exit
  // 2 with a message). The cache bounds the tool's memory on files of any size; 64 MiB (16,384
  // pages of 4 KiB, beside the internal pages, which stay resident uncounted) holds the working
  // set of a session's repeated gets and ranges, and a scan or dump, which reads each leaf once,
  // runs as fast through any cache size.
  auto db = ReadOnlyDatabase::open(
      path, {.storage = mapped_reads ? StorageKind::mmap : StorageKind::pread,
             .page_cache_bytes = size_t{64} << 20});
  if (!db) {
    // The library's messages about the file name it already.
    const std::string& m = db.error().message;
    if (m.find("'" + path + "'") != std::string::npos) fail(m);
    fail(fmt::format("cannot open '{}': {}", path, m));
  }
  return std::move(db).value();
}

bool is_dataset(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return false;
  if (S_ISDIR(st.st_mode)) {
    // A dataset (CURRENT, HIGHEST: docs/sharding.md) or a generation (its manifest); any other
    // folder is opened as a file, which says what it is.
    std::error_code ec;
    const std::filesystem::path p(path);
    return std::filesystem::exists(p / "CURRENT", ec) ||
           std::filesystem::exists(p / "HIGHEST", ec) ||
           std::filesystem::exists(p / "manifest.json", ec);
  }
  // A manifest is JSON text, an object; a database file starts with "DRY\0". Only a regular
  // file is read here: a FIFO or device is left to open_database, which refuses it. JSON that is
  // no manifest (a JSON Lines input given by mistake) is left to open_database too, which says
  // it is not a drydb file, unless it is named as one.
  if (!S_ISREG(st.st_mode)) return false;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return false;
  int c;
  while ((c = std::fgetc(f)) == ' ' || c == '\t' || c == '\n' || c == '\r') {
  }
  std::fclose(f);
  if (c != '{') return false;
  return std::filesystem::path(path).filename() == "manifest.json" ||
         read_manifest(path).has_value();
}

namespace {

// The manifest a dataset path names: a manifest file, a gen-N folder's, or the generation
// CURRENT names; empty when there is none to read.
std::filesystem::path manifest_of(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path p(path);
  if (!fs::is_directory(p, ec)) return p;
  if (fs::exists(p / "manifest.json", ec)) return p / "manifest.json";
  const auto current = current_generation(p);
  if (!current || *current == 0) return {};
  return p / generation_folder(*current) / "manifest.json";
}

}  // namespace

ShardedDatabase open_dataset(const std::string& path, bool checksums) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0)
    fail(fmt::format("cannot open '{}': {}", path, std::strerror(errno)));
  if (!is_dataset(path))
    fail(fmt::format("'{}' is not a dataset (a dataset folder, a gen-N folder or a manifest)",
                     path));
  // The tool's 64 MiB of page cache, shared among the shards (each given at least 1 MiB).
  size_t shards = 1;
  if (const auto where = manifest_of(path); !where.empty())
    if (const auto m = read_manifest(where)) shards = std::max<size_t>(1, m->shards.size());
  const size_t cache = std::max<size_t>(size_t{1} << 20, (size_t{64} << 20) / shards);
  auto ds = ShardedDatabase::open(
      path, {.open = {.storage = mapped_reads ? StorageKind::mmap : StorageKind::pread,
                      .page_cache_bytes = cache},
             .verify_checksums = checksums});
  if (!ds) fail(fmt::format("cannot open the dataset '{}': {}", path, ds.error().message));
  return std::move(ds).value();
}

void refuse_output_in(const ShardedDatabase& ds, const std::string& output) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path generation = fs::canonical(ds.shard_path(0).parent_path(), ec);
  if (ec)
    fail(fmt::format("cannot resolve {}: {}", ds.shard_path(0).parent_path().string(),
                     ec.message()));
  // A generation's folder in a dataset (gen-N) stands for the whole dataset: an output in any of
  // its generations, or beside them, could replace what a rollback returns to.
  const std::string name = generation.filename().string();
  const bool in_dataset = name.rfind("gen-", 0) == 0 && name.size() > 4 &&
                          name.find_first_not_of("0123456789", 4) == std::string::npos;
  const fs::path root = in_dataset ? generation.parent_path() : generation;
  const fs::path target = fs::weakly_canonical(fs::absolute(output), ec);
  if (ec) fail(fmt::format("cannot resolve the output '{}': {}", output, ec.message()));
  // Component by component: is `root` a prefix of `target`'s folder?
  const fs::path folder = target.parent_path();
  auto r = root.begin(), t = folder.begin();
  for (; r != root.end() && t != folder.end() && *r == *t; ++r, ++t) {
  }
  if (r == root.end())
    fail_usage(
        fmt::format("the output '{}' is inside the dataset it reads ({})", output, root.string()));
}

// What a query runs against: the current table, or one of its indexes; of a
// file, or across a dataset's shards (`sharded`, where `table` is the first
// shard's, for the table's encoding and column list).
struct Session::Target {
  ReadOnlyTable table;
  std::optional<SecondaryIndex> index;
  std::optional<ShardedTable> sharded;
  std::optional<ShardedIndex> sharded_index;

  KeyEncoding encoding() const { return index ? index->encoding() : table.encoding(); }
  uint64_t count() const {
    if (sharded) return sharded_index ? sharded_index->count() : sharded->count();
    return index ? index->count() : table.count();
  }
  uint64_t count_range(const KeyBound& s, const KeyBound& e, RangeOptions o) const {
    if (sharded)
      return check(sharded_index ? sharded_index->count_range(s, e, o)
                                 : sharded->count_range(s, e, o));
    return check(index ? index->count_range(s, e, o) : table.count_range(s, e, o));
  }
  // The rank of the first row at or after (or, exclusive, after) a bound.
  uint64_t first_rank(const KeyBound& start, bool exclusive) const {
    if (!start.bounded()) return 0;
    return count_range(unbounded, start, {.end_exclusive = !exclusive});
  }
};

Session::Session(const std::string& path, const std::string& table, bool shell, Format format,
                 std::FILE* out)
    : path_(path), shell_(shell), format_(format), out_(out) {
  if (is_dataset(path))
    dataset_.emplace(open_dataset(path));
  else
    db_.emplace(open_database(path));
  if (!table.empty()) {
    use(table);
  } else if (auto all = table_names(); !all.empty()) {
    use(all.front());
  }
}

std::string Session::table_name() const {
  return table_ ? std::string(table_->name()) : std::string();
}

std::vector<std::string> Session::table_names() const {
  std::vector<std::string> names;
  if (dataset_) {
    for (const auto& t : dataset_->tables())
      names.emplace_back(t.name());
    return names;
  }
  for (const auto& t : db_->tables())
    names.emplace_back(t.name());
  return names;
}

std::vector<std::string> Session::index_names() const {
  std::vector<std::string> names;
  if (table_)
    for (const auto& ix : table_->indexes())
      names.emplace_back(ix.name());
  return names;
}

void Session::use(const std::string& table) {
  if (!dataset_) {
    table_ = check(db_->table(table));
    return;
  }
  sharded_table_ = check(dataset_->table(table));
  table_ = check(dataset_->shard(0).table(table));
}

const ReadOnlyTable& Session::current() const {
  if (!table_) fail("the database has no tables");
  return *table_;
}

Session::Target Session::target(const QueryArgs& a) const {
  Target t{current(), std::nullopt, sharded_table_, std::nullopt};
  if (!a.index.empty()) {
    t.index = check(t.table.index(a.index));
    if (t.sharded) t.sharded_index = check(t.sharded->index(a.index));
  }
  return t;
}

RowStyle Session::style(const Target& t, const QueryArgs& a) const {
  RowStyle s;
  s.format = shell_ ? Format::text : format_;
  s.numbered = shell_;
  s.hex = a.hex;
  s.index_key = t.index.has_value();
  s.key_encoding = t.table.encoding();
  if (t.index) s.index_encoding = t.index->encoding();
  if (!t.table.columns().empty())
    s.columns = RowColumns{t.table.columns(), t.table.key_column(), t.table.encoding()};
  return s;
}

void Session::footer(const std::string& text) {
  if (shell_) write_out(out_, text + "\n");
}

namespace {

// Prints `count` rows of a cursor's tree from rank `first`, in `order`,
// skipping `offset` and printing at most `limit`. Returns the rows printed.
template <class CursorT>
uint64_t walk(CursorT cursor, uint64_t first, uint64_t count, SortOrder order, uint64_t offset,
              uint64_t limit, RowPrinter& printer) {
  if (offset >= count) return 0;
  const uint64_t n = std::min(count - offset, limit);
  const bool asc = order == SortOrder::ascending;
  bool ok = cursor.seek_rank(asc ? first + offset : first + count - 1 - offset);
  for (uint64_t i = 0; i < n; ++i) {
    if (!ok) {
      check(cursor.status());
      fail("the tree ended before its counted rows (run `drydb verify`)");
    }
    std::span<const std::byte> index_key;
    if constexpr (std::is_same_v<CursorT, IndexCursor>) index_key = cursor.index_key();
    const auto value = cursor.value();
    check(cursor.status());
    printer.row(offset + i + 1, index_key, cursor.key(), value);
    test_pause("session:row");
    // SIGINT, caught while a session command runs on a terminal: the command stops here.
    if (g_interrupted) fail("interrupted");
    if (i + 1 < n) ok = asc ? cursor.next() : cursor.prev();
  }
  return n;
}

uint64_t walk_target(const ReadOnlyTable& table, const std::optional<SecondaryIndex>& index,
                     uint64_t first, uint64_t count, SortOrder order, uint64_t offset,
                     uint64_t limit, RowPrinter& printer) {
  if (index) return walk(index->cursor(), first, count, order, offset, limit, printer);
  return walk(table.cursor(), first, count, order, offset, limit, printer);
}

// Prints the entries of a range across shards (ShardedRange, ShardedIndexRange)
// as walk() prints a cursor's, skipping `offset` and printing at most `limit`.
// Rows before `offset` are stepped over one by one: a merged range has no ranks.
template <class RangeT>
uint64_t walk_range(RangeT& range, uint64_t offset, uint64_t limit, RowPrinter& printer) {
  if (offset >= range.size() || limit == 0) return 0;
  uint64_t i = 0, n = 0;
  for (auto it = range.begin(); it != range.end(); ++it, ++i) {
    if (i < offset) continue;
    const auto e = *it;
    std::span<const std::byte> index_key;
    if constexpr (requires { e.index_key; }) index_key = e.index_key;
    printer.row(i + 1, index_key, e.key, e.value);
    test_pause("session:row");
    if (g_interrupted) fail("interrupted");
    if (++n == limit) return n;  // not a step past the last row printed
  }
  check(range.status());
  return n;
}

}  // namespace

uint64_t Session::walk_sharded(const Target& t, const KeyBound& start, const KeyBound& end,
                               const RangeOptions& o, const std::string* prefix, uint64_t offset,
                               uint64_t limit, RowPrinter& printer) const {
  if (t.sharded_index) {
    ShardedIndexRange r = check(prefix ? t.sharded_index->prefix(as_bytes(*prefix), o.order)
                                       : t.sharded_index->get_range(start, end, o));
    return walk_range(r, offset, limit, printer);
  }
  ShardedRange r = check(prefix ? t.sharded->prefix(as_bytes(*prefix), o.order)
                                : t.sharded->get_range(start, end, o));
  if (t.sharded->partitioning().function != kRangePartitioning)
    return walk_range(r, offset, limit, printer);
  // Range shards hold the rows in key order: a cursor across them positions by rank, as a
  // file's walk does.
  const uint64_t first = prefix ? t.first_rank(KeyBound(Key(as_bytes(*prefix))), false)
                                : t.first_rank(start, o.start_exclusive);
  return walk(check(t.sharded->cursor()), first, r.size(), o.order, offset, limit, printer);
}

bool Session::get(const QueryArgs& a) {
  if (a.args.size() != 1) fail_usage("get takes one key: get <key>");
  const Target t = target(a);
  const std::string k = parse_key_text(t.encoding(), a.args[0].text, a.hex);
  const Key key = make_key(t.encoding().kind(), k);
  std::span<const std::byte> row_key, value;
  Value v;
  Row r;
  if (t.index) {
    r = check(t.sharded_index ? t.sharded_index->get(key) : t.index->get(key));
    if (!r) {
      if (shell_) write_out(out_, "(nil)\n");
      return false;
    }
    row_key = r.key(), value = r.value();
  } else {
    v = check(t.sharded ? t.sharded->get(key) : t.table.get(key));
    if (!v) {
      if (shell_) write_out(out_, "(nil)\n");
      return false;
    }
    row_key = as_bytes(k), value = v.bytes();
  }
  const std::string_view text = as_text(value);
  if (a.raw) {
    write_out(out_, text);
    return true;
  }
  const RowStyle s = style(t, a);
  if (shell_ || format_ == Format::text) {
    if (t.index && shell_)
      write_out(out_, fmt::format("key: {}\n", display_key(t.table.encoding(), row_key, a.hex)));
    std::string map;
    write_out(out_, value_block(shown_value(text, s.columns, row_key, a.hex, &map), a.hex,
                                shell_ ? kShellDumpBytes : 0) +
                        "\n");
    return true;
  }
  RowPrinter printer(out_, s);
  printer.header();
  printer.row(1, as_bytes(k), row_key, value);
  return true;
}

void Session::scan(const QueryArgs& a, ScanWhat what) {
  if (!a.args.empty()) fail_usage("scan takes no key arguments (use range or prefix)");
  const Target t = target(a);
  RowStyle s = style(t, a);
  s.keys_only = what == ScanWhat::keys;
  s.values_only = what == ScanWhat::values;
  RowPrinter printer(out_, s);
  printer.header();
  const uint64_t offset = a.offset.value_or(0);
  const SortOrder order = a.desc ? SortOrder::descending : SortOrder::ascending;
  const uint64_t limit = a.limit.value_or(shell_ ? kShellRowLimit : kNoLimit);
  const uint64_t n =
      t.sharded
          ? walk_sharded(t, unbounded, unbounded, {.order = order}, nullptr, offset, limit, printer)
          : walk_target(t.table, t.index, 0, t.count(), order, offset, limit, printer);
  const char* noun = what == ScanWhat::keys     ? "keys"
                     : what == ScanWhat::values ? "values"
                                                : "entries";
  footer(n == 0 ? "(empty)"
                : fmt::format("Displayed {} {} of {} (offset: {})", n, noun,
                              group_digits(t.count()), offset));
}

void Session::range(const QueryArgs& a) {
  if (a.args.size() != 2)
    fail_usage("range takes two bounds: range <start> <end> (* for an open end)");
  const Target t = target(a);
  const KeyKind kind = t.encoding().kind();
  const Bound sb = parse_bound(t.encoding(), a.args[0], a.hex);
  const Bound eb = parse_bound(t.encoding(), a.args[1], a.hex);
  const KeyBound start = key_bound(sb, kind), end = key_bound(eb, kind);
  const SortOrder order = a.desc ? SortOrder::descending : SortOrder::ascending;
  const RangeOptions o{
      .start_exclusive = a.exclusive_start, .end_exclusive = a.exclusive_end, .order = order};
  const uint64_t total = t.count_range(start, end, o);
  RowPrinter printer(out_, style(t, a));
  printer.header();
  const uint64_t offset = a.offset.value_or(0);
  const uint64_t limit = a.limit.value_or(shell_ ? kShellRowLimit : kNoLimit);
  const uint64_t n = t.sharded
                         ? walk_sharded(t, start, end, o, nullptr, offset, limit, printer)
                         : walk_target(t.table, t.index, t.first_rank(start, a.exclusive_start),
                                       total, order, offset, limit, printer);
  footer(n == 0 ? "(empty)" : fmt::format("Displayed {} of {} entries", n, group_digits(total)));
}

void Session::prefix(const QueryArgs& a) {
  if (a.args.size() != 1) fail_usage("prefix takes one prefix: prefix <prefix>");
  const Target t = target(a);
  if (t.encoding().kind() != KeyKind::bytes)
    fail(fmt::format("prefix needs byte keys; {} has {} keys (use range)",
                     t.index ? fmt::format("index '{}'", t.index->name())
                             : fmt::format("table '{}'", t.table.name()),
                     t.encoding().id()));
  const std::string p = parse_key_text(KeyEncoding::bytes(), a.args[0].text, a.hex);
  const auto bytes = as_bytes(p);
  const SortOrder order = a.desc ? SortOrder::descending : SortOrder::ascending;
  const uint64_t offset = a.offset.value_or(0);
  const uint64_t limit = a.limit.value_or(shell_ ? kShellPrefixLimit : kNoLimit);
  RowPrinter printer(out_, style(t, a));
  uint64_t total, n;
  if (t.sharded) {
    total = t.sharded_index ? check(t.sharded_index->prefix(bytes)).size()
                            : check(t.sharded->prefix(bytes)).size();
    printer.header();
    n = walk_sharded(t, unbounded, unbounded, {.order = order}, &p, offset, limit, printer);
  } else {
    total = t.index ? check(t.index->prefix(bytes)).size() : check(t.table.prefix(bytes)).size();
    printer.header();
    n = walk_target(t.table, t.index, t.first_rank(KeyBound(Key(bytes)), false), total, order,
                    offset, limit, printer);
  }
  footer(n == 0 ? "(empty)"
                : fmt::format("Displayed {} of {} entries with prefix '{}'", n, group_digits(total),
                              escape_display(p)));
}

void Session::count(const QueryArgs& a) {
  const Target t = target(a);
  uint64_t n;
  if (a.args.empty()) {
    n = t.count();
  } else if (a.args.size() <= 2) {
    const KeyKind kind = t.encoding().kind();
    const Bound sb = parse_bound(t.encoding(), a.args[0], a.hex);
    const Bound eb = a.args.size() == 2 ? parse_bound(t.encoding(), a.args[1], a.hex) : sb;
    n = t.count_range(key_bound(sb, kind), key_bound(eb, kind),
                      {.start_exclusive = a.exclusive_start, .end_exclusive = a.exclusive_end});
  } else {
    fail_usage("count takes no key (all rows), one key, or two bounds");
  }
  if (shell_) return write_out(out_, fmt::format("(integer) {}\n", n));
  switch (format_) {
    case Format::text:
      return write_out(out_, fmt::format("{}\n", n));
    case Format::jsonl:
      return write_out(out_, fmt::format("{{\"count\":{}}}\n", n));
    case Format::csv:
    case Format::tsv:
      return write_out(out_, fmt::format("count\n{}\n", n));
  }
}

void Session::tables() {
  const bool text = shell_ || format_ == Format::text;
  std::vector<std::vector<std::string>> rows;
  if (text) rows.push_back({"#", "table", "key encoding", "rows", "indexes"});
  if (format_ == Format::csv || format_ == Format::tsv)
    write_out(out_, format_ == Format::csv ? "table,key_encoding,rows,indexes\n"
                                           : "table\tkey_encoding\trows\tindexes\n");
  size_t i = 0;
  // A file's ReadOnlyTable or a dataset's ShardedTable, which answer alike.
  auto print_table = [&](const auto& t) {
    ++i;
    std::string idx;
    std::string json_idx;
    for (const auto& ix : t.indexes()) {
      if (!idx.empty()) idx += text ? ", " : ";";
      idx += ix.name();
      if (text && ix.unique()) idx += " (unique)";
      if (!json_idx.empty()) json_idx += ',';
      json_idx += "{\"name\":";
      append_json_string(json_idx, ix.name());
      json_idx += fmt::format(",\"unique\":{},\"key_encoding\":", ix.unique() ? "true" : "false");
      append_json_string(json_idx, ix.encoding().id());
      json_idx += fmt::format(",\"entries\":{}}}", ix.count());
    }
    if (text) {
      rows.push_back({std::to_string(i), escape_display(t.name()), std::string(t.encoding().id()),
                      group_digits(t.count()), idx.empty() ? "-" : idx});
    } else if (format_ == Format::jsonl) {
      std::string line = "{\"table\":";
      append_json_string(line, t.name());
      line += ",\"key_encoding\":";
      append_json_string(line, t.encoding().id());
      line += fmt::format(",\"rows\":{},\"indexes\":[{}]}}\n", t.count(), json_idx);
      write_out(out_, line);
    } else {
      const char d = format_ == Format::csv ? ',' : '\t';
      std::string line;
      append_delimited_field(line, t.name(), d);
      line += d;
      line += t.encoding().id();
      line += fmt::format("{}{}{}", d, t.count(), d);
      append_delimited_field(line, idx, d);
      write_out(out_, line + "\n");
    }
  };
  if (dataset_)
    for (const auto& t : dataset_->tables())
      print_table(t);
  else
    for (const auto& t : db_->tables())
      print_table(t);
  if (text) {
    if (i == 0)
      write_out(out_, "(no tables)\n");
    else
      write_out(out_, aligned(rows));
  }
}

void Session::indexes() {
  const ReadOnlyTable& t = current();
  if (t.indexes().empty())
    return write_out(out_, fmt::format("(table '{}' has no indexes)\n", t.name()));
  std::vector<std::vector<std::string>> rows{{"index", "key encoding", "unique", "entries"}};
  // A file's SecondaryIndex or a dataset's ShardedIndex (entries in every shard).
  auto add = [&](const auto& ix) {
    rows.push_back({escape_display(ix.name()), std::string(ix.encoding().id()),
                    ix.unique() ? "yes" : "no", group_digits(ix.count())});
  };
  if (sharded_table_)
    for (const auto& ix : sharded_table_->indexes())
      add(ix);
  else
    for (const auto& ix : t.indexes())
      add(ix);
  write_out(out_, aligned(rows));
}

namespace {

// `info`'s lines on the current table: a file's ReadOnlyTable or a dataset's ShardedTable.
void add_table_rows(std::vector<std::vector<std::string>>& rows, const auto& t) {
  std::string idx;
  for (const auto& ix : t.indexes())
    idx += fmt::format("{}{} ({}{})", idx.empty() ? "" : ", ", ix.name(), ix.encoding().id(),
                       ix.unique() ? ", unique" : "");
  rows.push_back({"current table", escape_display(t.name())});
  rows.push_back({"key encoding", std::string(t.encoding().id())});
  rows.push_back({"rows", group_digits(t.count())});
  rows.push_back({"indexes", idx.empty() ? "none" : idx});
}

}  // namespace

void Session::dataset_info() {
  const Manifest& m = dataset_->manifest();
  uint64_t bytes = 0;
  for (const auto& sh : m.shards)
    bytes += sh.bytes;
  const ShardedTable* t = sharded_table_ ? &*sharded_table_ : nullptr;
  if (!shell_ && format_ == Format::jsonl) {
    std::string line = "{\"dataset\":";
    append_json_string(line, path_);
    line += ",\"name\":";
    append_json_string(line, m.dataset);
    line += fmt::format(",\"generation\":{},\"shards\":{},\"size\":{},\"tables\":{}", m.generation,
                        m.shards.size(), bytes, m.tables.size());
    if (t) {
      line += ",\"current_table\":";
      append_json_string(line, t->name());
      line += ",\"partitioning\":";
      append_json_string(line, t->partitioning().function);
      line += ",\"shard_rows\":[";
      const size_t ti = static_cast<size_t>(
          std::find_if(m.tables.begin(), m.tables.end(),
                       [&](const ManifestTable& mt) { return mt.name == t->name(); }) -
          m.tables.begin());
      for (size_t i = 0; i < m.shards.size(); ++i)
        line += fmt::format("{}{}", i ? "," : "", m.shards[i].tables[ti].rows);
      line += ']';
    }
    write_out(out_, line + "}\n");
    return;
  }
  std::vector<std::vector<std::string>> rows{
      {"dataset", path_},
      {"name", escape_display(m.dataset)},
      {"generation", std::to_string(m.generation)},
      {"shards", fmt::format("{} ({} bytes)", m.shards.size(), group_digits(bytes))},
      {"tables", std::to_string(m.tables.size())},
  };
  if (t) {
    add_table_rows(rows, *t);
    const Partitioning& p = t->partitioning();
    rows.push_back(
        {"partitioning", p.function == kRangePartitioning
                             ? fmt::format("{}, {} split keys", p.function, p.splits.size())
                             : p.function});
  }
  write_out(out_, aligned(rows));
}

void Session::info() {
  if (dataset_) return dataset_info();
  const FileInfo l = read_layout(path_);
  std::string filters;
  for (const auto& f : l.filters)
    filters += (filters.empty() ? "" : ", ") + describe_filter(f);
  if (!shell_ && format_ == Format::jsonl) {
    std::string line = "{\"file\":";
    append_json_string(line, path_);
    line += fmt::format(",\"size\":{},\"format\":\"{}.{}\",\"page_size\":{},\"pages\":{},",
                        l.file_bytes, l.format_major, l.format_minor, l.page_size, l.pages);
    line += "\"filters\":[";
    for (size_t i = 0; i < l.filters.size(); ++i) {
      if (i) line += ',';
      append_json_string(line, l.filters[i].id);
    }
    line += fmt::format("],\"tables\":{}", l.tables);
    if (table_) {
      line += ",\"current_table\":";
      append_json_string(line, table_->name());
      if (!table_->columns().empty()) {
        line += ",\"columns\":[";
        for (size_t i = 0; i < table_->columns().size(); ++i) {
          if (i) line += ',';
          append_json_string(line, table_->columns()[i]);
        }
        line += ']';
        if (table_->key_column()) line += fmt::format(",\"key_column\":{}", *table_->key_column());
      }
    }
    write_out(out_, line + "}\n");
    return;
  }
  std::vector<std::vector<std::string>> rows{
      {"file", path_},
      {"size", group_digits(l.file_bytes) + " bytes"},
      {"format", fmt::format("{}.{}", l.format_major, l.format_minor)},
      {"page size", group_digits(l.page_size) + " bytes"},
      {"pages", group_digits(l.pages)},
      {"filters", filters.empty() ? "none" : filters},
      {"tables", std::to_string(l.tables)},
  };
  if (table_) {
    add_table_rows(rows, *table_);
    if (const uint32_t bits = table_->info().miss_filter_bits_per_key; bits != 0)
      rows.push_back({"miss filter", fmt::format("at most {} bits per row", bits)});
    if (!table_->columns().empty()) {
      std::string cols;
      for (const auto& c : table_->columns())
        cols += (cols.empty() ? "" : ", ") + escape_display(c);
      if (const auto k = table_->key_column())
        cols += fmt::format(" (key: {})", escape_display(table_->columns()[*k]));
      rows.push_back({"columns", cols});
    }
  }
  write_out(out_, aligned(rows));
}

void Session::stats(bool all_tables) {
  if (dataset_) {
    // A dataset's trees are its shards': each shard's statistics in turn.
    for (size_t i = 0; i < dataset_->shard_count(); ++i) {
      Session shard(dataset_->shard_path(i).string(), table_name(), shell_, format_, out_);
      shard.stats(all_tables);
    }
    return;
  }
  const FileInfo l = read_layout(path_);
  const bool json = !shell_ && format_ == Format::jsonl;
  const bool filtered = !l.filters.empty();
  const uint64_t unpacked = l.pages * uint64_t{l.page_size} + l.catalog_bytes;
  std::string out;
  if (json) {
    out += "{\"file\":";
    append_json_string(out, path_);
    out += fmt::format(
        ",\"size\":{},\"page_size\":{},\"pages\":{},\"catalog_bytes\":{},"
        "\"unpacked_size\":{},\"compression_ratio\":{:.4f}}}\n",
        l.file_bytes, l.page_size, l.pages, l.catalog_bytes, unpacked,
        static_cast<double>(unpacked) / static_cast<double>(l.file_bytes));
  } else {
    std::string filters;
    for (const auto& f : l.filters)
      filters += (filters.empty() ? "" : ", ") + describe_filter(f);
    out += fmt::format("file {}: {} bytes, format {}.{}, page size {}\n", path_,
                       group_digits(l.file_bytes), l.format_major, l.format_minor,
                       group_digits(l.page_size));
    out += fmt::format("  pages        {} (page 0 is the header), catalog {} bytes\n",
                       group_digits(l.pages), group_digits(l.catalog_bytes));
    if (filtered)
      out += fmt::format("  compression  {}: {} bytes unpacked in {} (ratio {})\n", filters,
                         group_digits(unpacked), group_digits(l.file_bytes),
                         ratio(unpacked, l.file_bytes));
    else
      out += "  compression  none (pages stored as they are; ratio 1.00)\n";
  }
  // `index` empty: the table's own tree, with the table's miss filter (`filter` is
  // nullptr for an index).
  auto tree = [&](std::string_view table, std::string_view index, bool unique,
                  std::string_view encoding_id, const TableInfo* filter) {
    const TreeStats d = check(tree_stats(*db_, table, index));
    const std::string_view what = index.empty() ? "table" : "index";
    const std::string_view name = index.empty() ? table : index;
    const uint64_t pages = d.leaf_pages + d.internal_pages + d.overflow_pages;
    const uint64_t page_bytes = d.unpacked_bytes;
    const std::string kind = index.empty() ? "table" : unique ? "unique index" : "index";
    if (json) {
      out += fmt::format("{{\"{}\":", what);
      append_json_string(out, name);
      if (what == "index") {
        out += ",\"table\":";
        append_json_string(out, table);
        out += fmt::format(",\"unique\":{}", unique);
      }
      out += ",\"key_encoding\":";
      append_json_string(out, encoding_id);
      out += fmt::format(
          ",\"rows\":{},\"depth\":{},\"pages\":{},\"leaf_pages\":{},"
          "\"internal_pages\":{},\"overflow_pages\":{},\"pages_per_level\":[",
          d.rows, d.depth, pages, d.leaf_pages, d.internal_pages, d.overflow_pages);
      for (size_t i = 0; i < d.pages_per_level.size(); ++i)
        out += fmt::format("{}{}", i ? "," : "", d.pages_per_level[i]);
      out += fmt::format(
          "],\"leaf_fill\":{:.4f},\"internal_fill\":{:.4f},\"stored_bytes\":{},"
          "\"compression_ratio\":{:.4f}",
          d.leaf_pages ? static_cast<double>(d.leaf_bytes_used) /
                             static_cast<double>(d.leaf_pages * l.page_size)
                       : 0.0,
          d.internal_pages ? static_cast<double>(d.internal_bytes_used) /
                                 static_cast<double>(d.internal_pages * l.page_size)
                           : 0.0,
          d.stored_bytes,
          d.stored_bytes ? static_cast<double>(page_bytes) / static_cast<double>(d.stored_bytes)
                         : 0.0);
      if (filter != nullptr)
        out += fmt::format(",\"miss_filter_bits_per_key\":{},\"miss_filter_pages\":{}",
                           filter->miss_filter_bits_per_key, filter->miss_filter_pages);
      out += "}\n";
      return;
    }
    out += '\n';
    if (what == "index")
      out += fmt::format("{} {} of table {}: {} entries, {} keys (longest {} bytes)\n", kind,
                         escape_display(name), escape_display(table), group_digits(d.rows),
                         encoding_id, d.max_key_length);
    else
      out += fmt::format("table {}: {} rows, {} keys (longest {} bytes)\n", escape_display(name),
                         group_digits(d.rows), encoding_id, d.max_key_length);
    out += fmt::format("  depth        {}\n", d.depth);
    out += fmt::format("  pages        {} = {} leaf + {} internal + {} overflow\n",
                       group_digits(pages), group_digits(d.leaf_pages),
                       group_digits(d.internal_pages), group_digits(d.overflow_pages));
    std::string levels;
    const size_t depth = d.pages_per_level.size();
    for (size_t i = depth; i-- > 0;)
      levels += fmt::format("{}level {}{}: {}", levels.empty() ? "" : ", ", i,
                            i + 1 == depth ? " (root)"
                            : i == 0       ? " (leaves)"
                                           : "",
                            group_digits(d.pages_per_level[i]));
    out += fmt::format("  per level    {}\n", levels.empty() ? "-" : levels);
    out += fmt::format("  fill         leaves {}, internal {}\n",
                       percent(d.leaf_bytes_used, d.leaf_pages * l.page_size),
                       percent(d.internal_bytes_used, d.internal_pages * l.page_size));
    out += fmt::format("  overflow     {} pages in {} runs\n", group_digits(d.overflow_pages),
                       group_digits(d.overflow_runs));
    out +=
        fmt::format("  stored       {} bytes{}\n", group_digits(d.stored_bytes),
                    filtered ? fmt::format(" of {} unpacked (ratio {})", group_digits(page_bytes),
                                           ratio(page_bytes, d.stored_bytes))
                             : "");
    if (filter != nullptr && filter->miss_filter_bits_per_key != 0)
      out += fmt::format("  miss filter  {} pages ({} bytes), at most {} bits per row\n",
                         group_digits(filter->miss_filter_pages),
                         group_digits(filter->miss_filter_pages * l.page_size),
                         filter->miss_filter_bits_per_key);
  };
  for (const ReadOnlyTable& t : db_->tables()) {
    if (!all_tables && (!table_ || t.name() != table_->name())) continue;
    const TableInfo info = t.info();
    tree(t.name(), {}, false, t.encoding().id(), &info);
    for (const auto& ix : t.indexes())
      tree(t.name(), ix.name(), ix.unique(), ix.encoding().id(), nullptr);
  }
  write_out(out_, out);
}

}  // namespace drydb::cli
