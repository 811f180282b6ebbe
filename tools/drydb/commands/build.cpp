#include "commands/build.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <unordered_map>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "commands/build_keys.h"
#include "commands/option_checks.h"
#include "common.h"
#include "drydb/builder.h"
#include "drydb/limits.h"
#include "io/input.h"
#include "io/json.h"
#include "io/keys.h"
#include "io/msgpack.h"
#include "io/output_file.h"
#include "io/progress.h"
#include "io/records.h"
#include "io/render.h"
#include "io/text.h"
#include "test_pause.h"

namespace drydb::cli {

// ---- the flags ----------------------------------------------------------------------------------

struct BuildCommand::Flags {
  std::string out;
  std::string input;
  std::string format;
  std::string delimiter;
  std::string columns;
  bool header = false;
  uint32_t page_size = 4096;
  std::string compress = "none";
  size_t zstd_dictionary = 0;
  size_t memory_mb = 256;
  std::string temp_dir;
  bool skip_bad = false;
  bool quiet = false;
  double progress_every = 5;
  size_t max_record = kDefaultMaxRecord;

  // Table-scoped: each occurrence belongs to the --table before it (or the first table).
  std::vector<std::string> tables, keys, encodings, radixes, values, indexes, skip_keys;
  std::vector<uint32_t> miss_filters;
  bool msgpack = false, omit_empty = false, row_maps = false;
  CLI::Option *o_table, *o_key, *o_encoding, *o_radix, *o_value, *o_msgpack, *o_omit_empty,
      *o_row_maps, *o_index, *o_skip_key, *o_miss_filter;
  // Given or not: a dump's header supplies what they would.
  CLI::Option *o_page_size, *o_compress;
};

namespace {

// ---- table and index specs ----------------------------------------------------------------------

struct TableSpec {
  std::string name;
  std::optional<std::string> key;
  std::optional<KeyEncoding> encoding;
  std::optional<int> radix;
  std::optional<std::string> value;  // a column stored as it is; else the record as MessagePack
  bool msgpack = false;
  bool omit_empty = false;
  bool row_maps = false;  // CSV/TSV: each record a map of its own, not a row of a column list
  std::optional<std::string> skip_key;
  std::optional<uint32_t> miss_filter_bits;
  std::vector<IndexSpec> indexes;
};

KeyEncoding parse_encoding(const std::string& id) {
  if (id == "bytes" || id == "int64" || id == "uuid_v7" || id == "ulid")
    return check(KeyEncoding::find(id));
  if (id == "uuid") return KeyEncoding::uuid_v7();
  fail_usage(fmt::format("unknown key encoding '{}': use bytes, int64, uuid_v7 or ulid", id));
}

int parse_radix(const std::string& s) {
  if (s == "10") return 10;
  if (s == "16") return 16;
  fail_usage(fmt::format("key radix must be 10 or 16, not '{}'", s));
}

// NAME=COLUMN[,unique][,encoding=ENC][,radix=16][,skip=GLOB]
IndexSpec parse_index_spec(const std::string& text) {
  IndexSpec ix;
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    fail_usage(
        fmt::format("--index '{}': expected NAME=COLUMN[,unique][,encoding=ENC]"
                    "[,radix=16][,skip=GLOB]",
                    text));
  ix.name = text.substr(0, eq);
  std::vector<std::string> parts;
  size_t start = eq + 1;
  // skip= takes the rest of the spec, so a glob may hold commas.
  for (;;) {
    if (text.compare(start, 5, "skip=") == 0) {
      parts.push_back(text.substr(start));
      break;
    }
    const size_t comma = text.find(',', start);
    parts.push_back(
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  ix.column = parts[0];
  if (ix.column.empty()) fail_usage(fmt::format("--index '{}': no column", text));
  for (size_t i = 1; i < parts.size(); ++i) {
    const std::string& p = parts[i];
    if (p == "unique")
      ix.unique = true;
    else if (p.rfind("encoding=", 0) == 0)
      ix.encoding = parse_encoding(p.substr(9));
    else if (p == "int64" || p == "uuid_v7" || p == "ulid" || p == "bytes")
      ix.encoding = parse_encoding(p);
    else if (p.rfind("radix=", 0) == 0)
      ix.radix = parse_radix(p.substr(6));
    else if (p.rfind("skip=", 0) == 0)
      ix.skip = p.substr(5);
    else
      fail_usage(fmt::format("--index '{}': unknown option '{}'", text, p));
  }
  return ix;
}

struct TableRuntime {
  TableSpec spec;
  KeyEncoding encoding = KeyEncoding::bytes();
  TableBuilder* builder = nullptr;
  Column key;
  std::optional<Column> value;
  // The column list of a table of CSV/TSV records stored whole, whose values are rows.
  std::optional<RowColumns> columns;
  std::vector<std::unique_ptr<IndexRuntime>> indexes;  // stable: the index functions point here
  // From a dump, for a table with indexes: the rows --skip-bad skipped after their key was read
  // (key -> INPUT:LINE), whose index entries (before or after the row) are dropped.
  std::unordered_map<std::string, std::string> skipped_dump_rows;
  uint64_t dump_rows = 0;  // the dump's rows of this table, bad ones too: what its end counts
  // Per row:
  std::string key_bytes, value_bytes;
  bool skip = false;
};

// The steps of `drydb build`, which BuildCommand::run takes in order.
using Flags = BuildCommand::Flags;

// ---- step 1: the tables the flags declare -------------------------------------------------------

// The table specs, grouped by the order of the flags: each table-scoped flag
// belongs to the --table before it, flags before the first --table to the
// first table.
std::vector<TableSpec> gather_table_specs(const CLI::App& cmd, const Flags& f) {
  std::vector<TableSpec> specs;
  std::map<const CLI::Option*, size_t> seen;
  bool explicit_first = false;  // specs[0] was named by a --table
  for (const CLI::Option* o : cmd.parse_order()) {
    const size_t k = seen[o]++;
    if (o == f.o_table) {
      const std::string& name = f.tables[k];
      if (!specs.empty() && !explicit_first && specs.size() == 1) {
        specs[0].name = name;  // flags given before the first --table belong to it
      } else {
        specs.push_back(TableSpec{});
        specs.back().name = name;
      }
      explicit_first = true;
      continue;
    }
    if (o != f.o_key && o != f.o_encoding && o != f.o_radix && o != f.o_value && o != f.o_msgpack &&
        o != f.o_omit_empty && o != f.o_row_maps && o != f.o_index && o != f.o_skip_key &&
        o != f.o_miss_filter)
      continue;
    if (specs.empty()) specs.push_back(TableSpec{});
    TableSpec& t = specs.back();
    const std::string tname = t.name.empty() ? "the first table" : "table '" + t.name + "'";
    auto once = [&](auto& field, auto value, const char* flag) {
      if (field)
        fail_usage(
            fmt::format("{} given twice for {} (flags before the first --table belong "
                        "to that table; start each table with --table NAME)",
                        flag, tname));
      field = std::move(value);
    };
    if (o == f.o_key)
      once(t.key, f.keys[k], "--key");
    else if (o == f.o_encoding)
      once(t.encoding, parse_encoding(f.encodings[k]), "--key-encoding");
    else if (o == f.o_radix)
      once(t.radix, parse_radix(f.radixes[k]), "--key-radix");
    else if (o == f.o_value)
      once(t.value, f.values[k], "--value");
    else if (o == f.o_skip_key)
      once(t.skip_key, f.skip_keys[k], "--skip-key");
    else if (o == f.o_miss_filter)
      once(t.miss_filter_bits, f.miss_filters[k], "--miss-filter");
    else if (o == f.o_msgpack)
      t.msgpack = true;
    else if (o == f.o_omit_empty)
      t.omit_empty = true;
    else if (o == f.o_row_maps)
      t.row_maps = true;
    else if (o == f.o_index)
      t.indexes.push_back(parse_index_spec(f.indexes[k]));
  }
  return specs;
}

// ---- step 2: the builder's options --------------------------------------------------------------

// The zstd levels the tool builds with, from --compress or a dump: zstd's own range (its
// negative levels, faster still, go much lower, but gain nothing past -7 for pages).
constexpr int kMinZstdLevel = -7, kMaxZstdLevel = 22;
bool valid_zstd_level(int level) {
  return level >= kMinZstdLevel && level <= kMaxZstdLevel;
}

// The page size, memory budget, temp folder and page compression the flags ask for.
BuildOptions build_options(const Flags& f) {
  if ((f.page_size & (f.page_size - 1)) != 0)
    fail_usage(fmt::format("--page-size {} is not a power of two", f.page_size));
  BuildOptions options;
  options.page_size = f.page_size;
  // MB to bytes; a number too large for that is "as much as there is", not a wrapped small one.
  options.memory_budget = f.memory_mb > (SIZE_MAX >> 20) ? SIZE_MAX : f.memory_mb << 20;
  options.temp_dir = f.temp_dir;
  const std::string& c = f.compress;
  if (c == "lz4") {
    options.filters.push_back(filters::lz4());
  } else if (c == "zstd" || c.rfind("zstd:", 0) == 0) {
    int level = 3;
    if (c.size() > 5) {
      auto [p, ec] = std::from_chars(c.data() + 5, c.data() + c.size(), level);
      if (ec != std::errc() || p != c.data() + c.size() || !valid_zstd_level(level))
        fail_usage(fmt::format("--compress {}: the zstd level must be {} to {}", c, kMinZstdLevel,
                               kMaxZstdLevel));
    }
    options.filters.push_back(
        filters::zstd({.level = level, .dictionary_bytes = f.zstd_dictionary}));
  } else if (c != "none") {
    fail_usage(fmt::format("--compress '{}': use none, lz4, zstd or zstd:LEVEL", c));
  }
  if (f.zstd_dictionary && c.rfind("zstd", 0) != 0)
    fail_usage("--zstd-dictionary needs --compress zstd");
  if (f.zstd_dictionary > filters::kMaxZstdDictionaryBytes)
    fail_usage(fmt::format("--zstd-dictionary {}: a dictionary takes at most {} bytes ({} MiB)",
                           f.zstd_dictionary, filters::kMaxZstdDictionaryBytes,
                           filters::kMaxZstdDictionaryBytes >> 20));
  return options;
}

// ---- step 3: the input --------------------------------------------------------------------------

struct InputFormat {
  bool delimited = false;  // CSV or TSV; else JSON Lines
  char delimiter = ',';
};

// The input's format (--format, else from the file name or the CSV flags) and delimiter.
InputFormat input_format(const Flags& f) {
  std::string format = f.format;
  if (format.empty()) {
    const std::string ext = std::filesystem::path(f.input).extension().string();
    if (ext == ".csv")
      format = "csv";
    else if (ext == ".tsv" || ext == ".tab")
      format = "tsv";
    else if (!f.delimiter.empty() || !f.columns.empty())
      format = "csv";
    else
      format = "jsonl";
  }
  InputFormat in;
  in.delimited = format != "jsonl";
  if (!in.delimited && (!f.delimiter.empty() || !f.columns.empty() || f.header))
    fail_usage("--delimiter, --columns and --header are for csv and tsv input");
  if (f.header && f.columns.empty()) fail_usage("--header goes with --columns");
  in.delimiter = format == "tsv" ? '\t' : ',';
  if (!f.delimiter.empty()) {
    if (f.delimiter == "tab" || f.delimiter == "\\t")
      in.delimiter = '\t';
    else if (f.delimiter.size() == 1 && f.delimiter[0] != '"' && f.delimiter[0] != '\n' &&
             f.delimiter[0] != '\r')
      in.delimiter = f.delimiter[0];
    else
      fail_usage(fmt::format("--delimiter '{}': one character other than a quote or line break",
                             f.delimiter));
  }
  return in;
}

// The input's records, one at a time, with the line each starts on. A
// malformed record is a bad row: the build stops at it, or with --skip-bad
// counts it and goes on (bad_row, which the row steps use too).
class InputReader {
 public:
  InputReader(const Flags& f, InputFormat format, InputSource& source, Progress& progress)
      : f_(f), delimited_(format.delimited), source_(source), progress_(progress) {
    if (delimited_) {
      csv_ = std::make_unique<CsvReader>(source, format.delimiter, f.max_record);
      csv_record_.header = &header_;
    } else {
      lines_ = std::make_unique<LineReader>(source, f.max_record);
    }
  }

  bool delimited() const { return delimited_; }
  // CSV/TSV: the column names.
  const std::vector<std::string>& header() const { return header_; }
  // JSON Lines: the last record read.
  const JsonDocument& json() const { return json_record_.doc; }
  InputSource& source() const { return source_; }
  uint64_t bad_rows() const { return bad_rows_; }
  // "INPUT:LINE" of the last record read.
  std::string where() const { return fmt::format("{}:{}", source_.name(), line_); }

  // Reads the next record; nullptr at the end. Malformed records go to bad_row.
  Record* next_record() {
    for (;;) {
      stop_if_interrupted();
      if (delimited_) {
        const bool more = csv_->next(&fields_, &line_, &error_);
        stop_if_interrupted();  // the reader ends the input early at a signal
        if (!more) return nullptr;
        if (!error_.empty()) {
          bad_row(error_);
          continue;
        }
        // The first line is the header, or with --columns the first record.
        if (header_.empty()) return set_csv_fields(), &csv_record_;
        if (fields_.size() != header_.size()) {
          bad_row(fmt::format("{} fields, expected {}", fields_.size(), header_.size()));
          continue;
        }
        set_csv_fields();
        return &csv_record_;
      }
      std::string_view l;
      const bool more = lines_->next(&l, &line_);
      stop_if_interrupted();
      if (!more) return nullptr;
      if (!json_record_.doc.parse(l)) {
        bad_row(json_record_.doc.error());
        continue;
      }
      if (json_record_.doc.root().type != JsonType::object) {
        bad_row("expected a JSON object (for CSV or TSV input use --format)");
        continue;
      }
      return &json_record_;
    }
  }

  // Reads the first record; for CSV/TSV, the header first: --columns (past
  // the input's own header line with --header), else the input's first line.
  Record* read_header_and_first_record() {
    Record* rec = next_record();
    if (!delimited_) return rec;
    if (!f_.columns.empty()) {
      for (size_t start = 0;;) {
        const size_t comma = f_.columns.find(',', start);
        header_.push_back(f_.columns.substr(
            start, comma == std::string::npos ? std::string::npos : comma - start));
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
      if (f_.header && rec) rec = next_record();
    } else {
      if (!rec)
        fail(fmt::format("{}: no header line (name the columns with --columns)", source_.name()));
      for (auto fld : fields_)
        header_.emplace_back(fld);
      rec = next_record();
    }
    std::vector<std::string> sorted = header_;
    std::sort(sorted.begin(), sorted.end());
    for (size_t i = 0; i < sorted.size(); ++i) {
      if (sorted[i].empty()) fail("a column has an empty name");
      if (i > 0 && sorted[i] == sorted[i - 1])
        fail(fmt::format("column '{}' appears twice", sorted[i]));
    }
    // The first data record was read before the header was known: check its width now.
    while (rec && csv_record_.fields.size() != header_.size()) {
      bad_row(fmt::format("{} fields, expected {}", csv_record_.fields.size(), header_.size()));
      rec = next_record();
    }
    return rec;
  }

  // Stops the build at the last record read, or with --skip-bad counts it
  // (and shows the first ten).
  void bad_row(const std::string& why) {
    stop_if_interrupted();
    if (!f_.skip_bad)
      fail(fmt::format("{}: {} ({} not written; --skip-bad skips bad rows)", where(), why, f_.out));
    if (++bad_rows_ <= 10) progress_.warn(fmt::format("skipped {}: {}", where(), why));
    if (bad_rows_ == 10) progress_.warn("(further skipped rows are counted, not shown)");
  }

 private:
  // The record's fields, each {"base64":...} or {"msgpack":...} form replaced
  // by the bytes it stands for (io/render.h, decoded_field: what the row outputs
  // write for bytes that are not text), and as read, for records stored as
  // MessagePack. The header is read from fields_.
  void set_csv_fields() {
    decoded_.resize(fields_.size());
    csv_record_.text_fields = fields_;
    csv_record_.fields = fields_;
    for (size_t i = 0; i < fields_.size(); ++i)
      if (decoded_field(fields_[i], &decoded_[i])) csv_record_.fields[i] = decoded_[i];
  }

  // SIGINT or SIGTERM: nothing is written yet, so stopping loses nothing.
  void stop_if_interrupted() const {
    if (g_interrupted) fail(fmt::format("interrupted; {} not written", f_.out));
  }

  const Flags& f_;
  const bool delimited_;
  InputSource& source_;
  Progress& progress_;
  std::unique_ptr<LineReader> lines_;
  std::unique_ptr<CsvReader> csv_;
  std::vector<std::string> header_;
  std::vector<std::string_view> fields_;
  std::vector<std::string> decoded_;  // the bytes of fields in a form (set_csv_fields)
  JsonRecord json_record_;
  CsvRecord csv_record_;
  uint64_t line_ = 0;
  uint64_t bad_rows_ = 0;
  std::string error_;
};

// A dump: its first record says so, and carries the database's shape.
bool is_dump_header(const InputReader& input, const Record* first) {
  return !input.delimited() && first && input.json().member(0, "drydb_dump").has_value();
}

// ---- step 4: the tables and their indexes -------------------------------------------------------

struct Tables {
  std::vector<std::unique_ptr<TableRuntime>> list;
  std::map<std::string, TableRuntime*> by_name;

  void add(std::unique_ptr<TableRuntime> t) {
    by_name[t->spec.name] = t.get();
    list.push_back(std::move(t));
  }
};

[[noreturn]] void bad_dump_header(const InputReader& input, std::string_view why) {
  fail(fmt::format("{}: bad dump header: {}", input.where(), why));
}

// Member `name` of object node `obj` of a dump's header, of type `type`; a CliError if it has none.
uint32_t dump_header_member(const InputReader& input, uint32_t obj, std::string_view name,
                            JsonType type) {
  const JsonDocument& d = input.json();
  const auto m = d.member(obj, name);
  if (!m || d.node(*m).type != type) bad_dump_header(input, fmt::format("no '{}'", name));
  return *m;
}

// Member `name` of object node `obj` as a list (a JSON array), or nullopt when there is none;
// a CliError when it is something else: a dump never writes one that way, so it was edited.
std::optional<uint32_t> dump_header_list(const InputReader& input, uint32_t obj,
                                         std::string_view name) {
  const JsonDocument& d = input.json();
  const auto m = d.member(obj, name);
  if (m && d.node(*m).type != JsonType::array)
    bad_dump_header(input, fmt::format("'{}' is not a list", name));
  return m;
}

// Member `name` of object node `obj` as a T, written exactly (no fraction, no sign a T lacks,
// in T's range), or nullopt when there is none; a CliError when it is anything else.
template <class T>
std::optional<T> dump_header_number(const InputReader& input, uint32_t obj, std::string_view name) {
  const JsonDocument& d = input.json();
  const auto m = d.member(obj, name);
  if (!m) return std::nullopt;
  const auto text = d.node(*m).text;
  T v{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (d.node(*m).type != JsonType::number || ec != std::errc() || end != text.data() + text.size())
    bad_dump_header(input, fmt::format("a bad '{}'", name));
  return v;
}

// The dump format version the header names: 2 (ends with a count of what it holds) or 1 (from
// earlier drydb: no end). A dump of a later version may hold what this tool would drop
// without a word.
int read_dump_version(const InputReader& input) {
  const JsonDocument& d = input.json();
  const uint32_t v = dump_header_member(input, 0, "drydb_dump", JsonType::number);
  const std::string_view text = d.node(v).text;
  if (text != "1" && text != "2")
    fail(fmt::format("{}: dump format version {}: this drydb reads versions 1 and 2", input.where(),
                     text));
  return text[0] - '0';
}

// The page size and page filters of a dump's header, where no flag gives them.
void take_dump_options(const InputReader& input, const Flags& f, Progress& progress,
                       BuildOptions* options) {
  const JsonDocument& d = input.json();
  // Checked whether or not a flag overrides them: a header that says nonsense is refused.
  const auto page_size = dump_header_number<uint32_t>(input, 0, "page_size");
  if (page_size && !valid_page_size(*page_size))
    bad_dump_header(input, fmt::format("page size {}", *page_size));
  if (page_size && !f.o_page_size->count()) options->page_size = *page_size;
  const auto fl = dump_header_list(input, 0, "filters");
  if (f.o_compress->count()) return;
  options->filters.clear();
  if (!fl) return;
  for (uint32_t c = *fl + 1, k = 0; k < d.node(*fl).size; ++k, c = d.node(c).next) {
    const uint32_t id = dump_header_member(input, c, "id", JsonType::string);
    std::string name(d.node(id).text);
    if (name == "zstd") {
      const int level = dump_header_number<int>(input, c, "level").value_or(3);
      if (!valid_zstd_level(level))
        bad_dump_header(input, fmt::format("zstd level {}: the levels are {} to {}", level,
                                           kMinZstdLevel, kMaxZstdLevel));
      const size_t dict = dump_header_number<size_t>(input, c, "dictionary_bytes").value_or(0);
      if (dict > filters::kMaxZstdDictionaryBytes)
        bad_dump_header(input, fmt::format("zstd dictionary_bytes {}: at most {} ({} MiB)", dict,
                                           filters::kMaxZstdDictionaryBytes,
                                           filters::kMaxZstdDictionaryBytes >> 20));
      options->filters.push_back(filters::zstd({.level = level, .dictionary_bytes = dict}));
    } else if (name == "lz4") {
      options->filters.push_back(filters::lz4());
    } else {
      progress.note(
          fmt::format("the dump names page filter '{}', which this tool does not "
                      "have; building without it",
                      escape_display(name)));
    }
  }
}

// The tables and indexes a dump's header names; their index entries come in the dump's rows.
Tables declare_dump_tables(const InputReader& input, DatabaseBuilder& builder, uint32_t max_key) {
  const JsonDocument& d = input.json();
  auto member = [&](uint32_t obj, std::string_view name, JsonType type) {
    return dump_header_member(input, obj, name, type);
  };
  Tables tables;
  const uint32_t ts = member(0, "tables", JsonType::array);
  for (uint32_t c = ts + 1, k = 0; k < d.node(ts).size; ++k, c = d.node(c).next) {
    auto t = std::make_unique<TableRuntime>();
    t->spec.name = std::string(d.node(member(c, "name", JsonType::string)).text);
    t->encoding =
        parse_encoding(std::string(d.node(member(c, "key_encoding", JsonType::string)).text));
    t->builder = &builder.create_table(t->spec.name, t->encoding);
    if (const auto bits = dump_header_number<uint32_t>(input, c, "miss_filter_bits_per_key"))
      t->builder->add_miss_filter(*bits);
    if (const auto cols = dump_header_list(input, c, "columns")) {
      std::vector<std::string> names;
      for (uint32_t i = *cols + 1, n = 0; n < d.node(*cols).size; ++n, i = d.node(i).next) {
        if (d.node(i).type != JsonType::string)
          bad_dump_header(input, "a column name is not a string");
        names.emplace_back(d.node(i).text);
      }
      const auto key_column = dump_header_number<uint32_t>(input, c, "key_column");
      t->builder->set_columns(std::move(names), key_column);
      check(builder.status());
      t->columns = RowColumns{t->builder->columns(), t->builder->key_column(), t->encoding};
    }
    if (const auto ixs = dump_header_list(input, c, "indexes")) {
      for (uint32_t i = *ixs + 1, n = 0; n < d.node(*ixs).size; ++n, i = d.node(i).next) {
        auto ix = std::make_unique<IndexRuntime>();
        ix->spec.name = std::string(d.node(member(i, "name", JsonType::string)).text);
        ix->spec.unique = d.node(member(i, "unique", JsonType::boolean)).boolean;
        ix->spec.encoding =
            parse_encoding(std::string(d.node(member(i, "key_encoding", JsonType::string)).text));
        ix->source = IndexSource::dump;
        ix->max_key = max_key;
        t->indexes.push_back(std::move(ix));
      }
    }
    tables.add(std::move(t));
  }
  return tables;
}

// Whether a CSV/TSV header's names can be a table's column list (TableBuilder::set_columns:
// at most 255 bytes each, fewer than 65,535; the header's names are already known unique and
// not empty) that a dump's JSON header can name (UTF-8).
bool fits_column_list(const std::vector<std::string>& header) {
  return header.size() < 0xFFFF && std::all_of(header.begin(), header.end(), [](const auto& n) {
           return n.size() <= 255 && valid_utf8(n);
         });
}

// The tables and indexes the flags declare, their columns found in the input's header.
Tables declare_tables(std::vector<TableSpec> specs, const InputReader& input,
                      DatabaseBuilder& builder, uint32_t max_key) {
  if (specs.empty()) fail_usage("name the key column: --key COLUMN (see drydb build --help)");
  Tables tables;
  for (TableSpec& s : specs) {
    if (s.name.empty()) s.name = "data";
    if (tables.by_name.count(s.name))
      fail_usage(fmt::format("table '{}' is declared twice", s.name));
    if (!s.key) fail_usage(fmt::format("table '{}': no key column (--key COLUMN)", s.name));
    for (size_t i = 0; i < s.indexes.size(); ++i)
      for (size_t j = 0; j < i; ++j)
        if (s.indexes[i].name == s.indexes[j].name)
          fail_usage(
              fmt::format("table '{}', index '{}' is declared twice", s.name, s.indexes[i].name));
    if (s.value && (s.msgpack || s.omit_empty || s.row_maps))
      fail_usage(
          fmt::format("table '{}': --value stores one column; --msgpack, --omit-empty and "
                      "--row-maps are for the whole record",
                      s.name));
    auto t = std::make_unique<TableRuntime>();
    t->spec = s;
    t->encoding = s.encoding.value_or(KeyEncoding::bytes());
    if (s.radix && *s.radix != 10 && t->encoding != KeyEncoding::int64())
      fail_usage(fmt::format("table '{}': --key-radix is for int64 keys", s.name));
    auto column = [&](const std::string& name) {
      Column c{name};
      if (input.delimited()) {
        const auto& header = input.header();
        const auto it = std::find(header.begin(), header.end(), name);
        if (it == header.end()) {
          std::string all;
          for (const auto& h : header)
            all += (all.empty() ? "" : ", ") + h;
          fail(fmt::format("table '{}': no column '{}' in the input (columns: {})", s.name, name,
                           all));
        }
        c.position = static_cast<size_t>(it - header.begin());
      }
      return c;
    };
    t->key = column(*s.key);
    if (s.value) t->value = column(*s.value);
    t->builder = &builder.create_table(s.name, t->encoding);
    if (s.miss_filter_bits) t->builder->add_miss_filter(*s.miss_filter_bits);
    // CSV/TSV records stored whole: rows of the input's columns, the names once in the file;
    // maps when the header's names cannot be a column list.
    if (input.delimited() && !s.value && !s.row_maps && fits_column_list(input.header())) {
      t->builder->set_columns(input.header(), static_cast<uint32_t>(t->key.position));
      t->columns =
          RowColumns{t->builder->columns(), t->builder->key_column(), t->builder->encoding()};
    }
    for (const IndexSpec& is : s.indexes) {
      auto ix = std::make_unique<IndexRuntime>();
      ix->spec = is;
      ix->max_key = max_key;
      if (is.column == *s.key)
        ix->source = IndexSource::key;
      else if (!s.value)
        ix->source = t->columns ? IndexSource::row : IndexSource::record;
      else if (is.column == *s.value)
        ix->source = IndexSource::raw_value;
      else
        fail_usage(
            fmt::format("table '{}', index '{}': column '{}' is not stored (the value is "
                        "column '{}'); index the key or value column, or store the "
                        "record with --msgpack",
                        s.name, is.name, is.column, *s.value));
      ix->column = column(is.column);
      t->indexes.push_back(std::move(ix));
    }
    tables.add(std::move(t));
  }
  return tables;
}

// The index key a dump's entry gives its row. The entries are counted as their rows use them:
// at the table's last row, an entry no row used (its row was cut or edited out of the dump)
// fails the build before its file is renamed into place; check_dump_index_entries then names
// the entry. So no row's key is kept.
result<std::optional<IndexKey>> dump_index_key(IndexRuntime& ix, const TableRuntime& t,
                                               std::span<const std::byte> key) {
  std::optional<IndexKey> out;
  if (auto it = ix.dump_entries.find(std::string(as_text(key))); it != ix.dump_entries.end()) {
    it->second.used = true;
    ++ix.dump_entries_used;
    out = make_index_key(ix.spec.encoding.kind(), it->second.index_key);
  }
  if (++ix.dump_rows_seen == t.builder->rows_appended() &&
      ix.dump_entries_used != ix.dump_entries.size()) {
    ix.dump_entry_unused = true;
    return Error(errc::invalid_argument, "the dump has an entry for a row it does not have");
  }
  return out;
}

// Gives the builder each index's key function: index_key_of on the stored row.
void add_index_key_functions(Tables& tables) {
  for (auto& t : tables.list) {
    for (auto& ix : t->indexes) {
      IndexRuntime* p = ix.get();
      const TableRuntime* table = t.get();
      const KeyEncoding enc = t->encoding;
      t->builder->add_secondary_index(
          ix->spec.name, ix->spec.unique, ix->spec.encoding,
          [p, table, enc](std::span<const std::byte> key,
                          std::span<const std::byte> value) -> result<std::optional<IndexKey>> {
            if (p->source == IndexSource::dump) return dump_index_key(*p, *table, key);
            std::optional<std::string> k;
            std::string err;
            // Every row was checked when it was read, by index_key_of_field on the same
            // field: index_key_of reads it here from the stored bytes with msgpack_field,
            // which gives what Record::stored_field gave then (cli_unit_test holds the two
            // to each other). So nothing is refused here that was not refused then.
            if (!index_key_of(*p, enc, as_text(key), as_text(value), &k, &err) || !k)
              return std::nullopt;
            return make_index_key(p->spec.encoding.kind(), *k);
          });
    }
  }
}

// ---- step 5: the rows ---------------------------------------------------------------------------

// A key of a dump row: a JSON number for int64, a string, or {"base64": ...} for other bytes.
bool dump_key(const JsonDocument& d, std::string_view member_name, KeyEncoding enc,
              std::string* out, std::string* err) {
  const auto m = d.member(0, member_name);
  if (!m) return *err = fmt::format("no '{}'", member_name), false;
  const JsonNode& n = d.node(*m);
  if (n.type == JsonType::object) {
    const auto b = d.member(*m, "base64");
    auto bytes =
        b && d.node(*b).type == JsonType::string ? from_base64(d.node(*b).text) : std::nullopt;
    if (!bytes || enc.kind() != KeyKind::bytes)
      return *err = fmt::format("bad '{}'", member_name), false;
    *out = std::move(*bytes);
    return true;
  }
  return encode_key(scalar_of(n), enc, 10, out, err);
}

// One record of a dump after its header: a row of a table, or an entry of one
// of its indexes (kept for the index function). True for a row appended.
bool add_dump_row(InputReader& input, Tables& tables, uint32_t max_key) {
  const JsonDocument& d = input.json();
  const auto tm = d.member(0, "table");
  auto it = tm && d.node(*tm).type == JsonType::string
                ? tables.by_name.find(std::string(d.node(*tm).text))
                : tables.by_name.end();
  if (it == tables.by_name.end()) {
    input.bad_row("a dump record names no table of the header");
    return false;
  }
  TableRuntime& t = *it->second;
  const auto ixm = d.member(0, "index");
  if (!ixm) ++t.dump_rows;
  std::string err;
  if (!dump_key(d, "key", t.encoding, &t.key_bytes, &err)) {
    input.bad_row(err);
    return false;
  }
  if (ixm) {
    IndexRuntime* ix = nullptr;
    for (auto& x : t.indexes)
      if (d.node(*ixm).type == JsonType::string && x->spec.name == d.node(*ixm).text) ix = x.get();
    if (ix) ++ix->dump_records;
    std::string ikey;
    if (ix == nullptr) {
      input.bad_row("a dump index entry names no index of its table");
    } else if (!dump_key(d, "index_key", ix->spec.encoding, &ikey, &err)) {
      input.bad_row(err);
    } else if (!ix->dump_entries.emplace(t.key_bytes, IndexRuntime::DumpEntry{std::move(ikey)})
                    .second) {
      input.bad_row("a second entry of one row in an index");
    }
    return false;
  }
  // A row skipped (--skip-bad) once its key is known: its index entries are dropped.
  auto skip_row = [&](const std::string& why) {
    input.bad_row(why);
    if (!t.indexes.empty()) t.skipped_dump_rows.emplace(t.key_bytes, input.where());
    return false;
  };
  const auto vm = d.member(0, "value");
  t.value_bytes.clear();
  if (!vm) {
    return skip_row("no 'value'");
  }
  const JsonNode& v = d.node(*vm);
  if (v.type == JsonType::string) {
    t.value_bytes.assign(v.text);
  } else if (v.type == JsonType::object && d.member(*vm, "msgpack")) {
    MsgpackWriter w(&t.value_bytes);
    if (!json_to_msgpack(d, *d.member(*vm, "msgpack"), w, &err))
      return skip_row(fmt::format("'value': {}", err));
    // A table with a column list: the dump shows its rows as maps.
    if (t.columns && d.node(*d.member(*vm, "msgpack")).type == JsonType::object) {
      std::string row;
      if (!map_to_row(t.value_bytes, *t.columns, as_bytes(t.key_bytes), &row, &err)) {
        return skip_row(err);
      }
      t.value_bytes = std::move(row);
    }
  } else if (const auto b = v.type == JsonType::object ? d.member(*vm, "base64") : std::nullopt;
             b && d.node(*b).type == JsonType::string && from_base64(d.node(*b).text)) {
    t.value_bytes = *from_base64(d.node(*b).text);
  } else {
    return skip_row("'value' is not a string, {\"msgpack\": ...} or {\"base64\": ...}");
  }
  if (t.encoding.kind() == KeyKind::bytes && t.key_bytes.size() > max_key) {
    return skip_row(fmt::format("key of {} bytes is over the limit", t.key_bytes.size()));
  }
  t.builder->append(make_key(t.encoding.kind(), t.key_bytes), t.value_bytes);
  return true;
}

// A dump's end record: {"drydb_dump_end":...} (dump.h).
bool is_dump_end(const InputReader& input) {
  return input.json().member(0, "drydb_dump_end").has_value();
}

// The counts of a dump's end record against the rows and entries read before it: a dump that
// stopped early (a damaged page, a full disk) and was cut on a line boundary, or was edited,
// does not build.
void check_dump_end(const InputReader& input, const Tables& tables) {
  const JsonDocument& d = input.json();
  const uint32_t end = *d.member(0, "drydb_dump_end");
  auto count = [&](uint32_t obj, const std::string& name) -> uint64_t {
    const auto m = d.member(obj, name);
    uint64_t n = 0;
    const auto text = m ? d.node(*m).text : std::string_view();
    const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (!m || d.node(*m).type != JsonType::number || ec != std::errc() ||
        p != text.data() + text.size())
      fail(fmt::format("{}: bad dump end: no count for '{}'", input.where(), name));
    return n;
  };
  auto object = [&](uint32_t obj, std::string_view name) {
    const auto m = d.member(obj, name);
    if (!m || d.node(*m).type != JsonType::object)
      fail(fmt::format("{}: bad dump end: no '{}'", input.where(), name));
    return *m;
  };
  auto mismatch = [&](const std::string& what, uint64_t said, uint64_t read) {
    fail(
        fmt::format("{}: the dump's end counts {} {}, but {} came before it: the dump is "
                    "incomplete or edited",
                    input.where(), said, what, read));
  };
  const uint32_t rows = object(end, "rows"), entries = object(end, "index_entries");
  for (const auto& t : tables.list) {
    if (const uint64_t n = count(rows, t->spec.name); n != t->dump_rows)
      mismatch(fmt::format("rows of table '{}'", t->spec.name), n, t->dump_rows);
    const uint32_t table_entries = object(entries, t->spec.name);
    for (const auto& ix : t->indexes)
      if (const uint64_t n = count(table_entries, ix->spec.name); n != ix->dump_records)
        mismatch(fmt::format("entries of table '{}', index '{}'", t->spec.name, ix->spec.name), n,
                 ix->dump_records);
  }
}

// The index entries of the rows --skip-bad skipped, dropped with a warning.
void drop_skipped_dump_rows_entries(Tables& tables, Progress& progress) {
  for (const auto& t : tables.list)
    for (const auto& [key, where] : t->skipped_dump_rows)
      for (const auto& ix : t->indexes)
        if (ix->dump_entries.erase(key))
          progress.warn(fmt::format("dropped the entry of index '{}' for the row skipped at {}",
                                    ix->spec.name, where));
}

// Every index entry of a dump belongs to a row of its table: an entry without one would be
// dropped by the index function, which sees only rows, so the dump was cut or edited. Checked
// for a table without rows before the build, otherwise after a build that dump_index_key failed.
void check_dump_index_entries(const Tables& tables, const std::string& out) {
  for (const auto& t : tables.list)
    for (const auto& ix : t->indexes)
      if (ix->dump_entry_unused || t->builder->rows_appended() == 0)
        for (const auto& [key, entry] : ix->dump_entries)
          if (!entry.used)
            fail(fmt::format(
                "table '{}', index '{}': an entry for key '{}', which no row of the "
                "dump has ({} not written)",
                t->spec.name, ix->spec.name, display_key(t->encoding, as_bytes(key), false), out));
}

// The key, value and index keys of one record in each table, checked: a
// record that any table refuses is a bad row and goes into none. True for a
// row appended.
bool add_record_row(const Record& rec, InputReader& input, Tables& tables, uint32_t max_key,
                    uint32_t page_size) {
  std::string err;
  std::optional<std::string> ik;
  for (auto& tp : tables.list) {
    TableRuntime& t = *tp;
    t.skip = false;
    const Scalar ks = rec.field(t.key);
    if (!encode_key(ks, t.encoding, t.spec.radix.value_or(10), &t.key_bytes, &err)) {
      input.bad_row(fmt::format("table '{}', key column '{}': {}", t.spec.name, t.key.name, err));
      return false;
    }
    if (t.spec.skip_key) {
      std::string buf;
      std::string_view text;
      if (scalar_text(ks, &buf, &text) && glob_match(*t.spec.skip_key, text)) {
        t.skip = true;
        continue;
      }
    }
    if (t.key_bytes.size() > max_key) {
      input.bad_row(
          fmt::format("table '{}': key of {} bytes is over the limit of {} for page size {} "
                      "(a larger --page-size allows longer keys)",
                      t.spec.name, t.key_bytes.size(), max_key, page_size));
      return false;
    }
    t.value_bytes.clear();
    if (t.value) {
      if (!rec.raw(*t.value, &t.value_bytes)) {
        input.bad_row(fmt::format("table '{}': no value column '{}'", t.spec.name, t.value->name));
        return false;
      }
    } else if (t.columns) {
      // Only CSV/TSV input gives a table a column list (declare_tables).
      MsgpackWriter w(&t.value_bytes);
      static_cast<const CsvRecord&>(rec).to_row(w, t.spec.omit_empty, t.key.position,
                                                t.encoding.column_text(as_bytes(t.key_bytes)));
    } else {
      MsgpackWriter w(&t.value_bytes);
      if (!rec.to_msgpack(w, t.spec.omit_empty, &err)) {
        input.bad_row(fmt::format("table '{}': {}", t.spec.name, err));
        return false;
      }
    }
    if (t.value_bytes.size() > kMaxValueLength) {
      input.bad_row(fmt::format("table '{}': value of 4 GiB or more", t.spec.name));
      return false;
    }
    for (auto& ix : t.indexes) {
      // A record field from the record, not parsed back from value_bytes.
      const bool valid =
          ix->source == IndexSource::record || ix->source == IndexSource::row
              ? index_key_of_field(*ix, rec.stored_field(ix->column, t.spec.omit_empty), &ik, &err)
              : index_key_of(*ix, t.encoding, t.key_bytes, t.value_bytes, &ik, &err);
      if (!valid) {
        input.bad_row(fmt::format("table '{}', {}", t.spec.name, err));
        return false;
      }
    }
  }
  for (auto& tp : tables.list)
    if (!tp->skip)
      tp->builder->append(make_key(tp->encoding.kind(), tp->key_bytes), tp->value_bytes);
  return true;
}

// ---- step 6: the file ---------------------------------------------------------------------------

// Sorts and writes the database to --out, with the notes on what was read and written.
void write_database(DatabaseBuilder& builder, const Tables& tables, const InputReader& input,
                    uint64_t rows, const Flags& f, Progress& progress) {
  check(builder.status());
  const double read_secs = progress.elapsed();
  uint64_t table_rows = 0;
  for (auto& t : tables.list)
    table_rows += t->builder->rows_appended();
  const uint64_t bad_rows = input.bad_rows();
  progress.note(fmt::format(
      "read {} rows ({}) in {:.1f} s{}; sorting and writing {}", group_digits(rows),
      human_bytes(input.source().bytes_read()), read_secs,
      bad_rows ? fmt::format(", skipped {} bad rows", group_digits(bad_rows)) : "", f.out));
  // From here the builder writes a temp file beside OUT and renames it; an
  // interrupt now ends the process (the target is never half-written).
  catch_interrupts(false);
  if (g_interrupted) fail(fmt::format("interrupted; {} not written", f.out));
  if (auto st = builder.build_to_file(f.out); !st) {
    check_dump_index_entries(tables, f.out);  // a dump's unused index entry, named
    fail(fmt::format("{} not written: {}", f.out, st.error().message));
  }
  const double secs = progress.elapsed();
  std::error_code ec;
  const auto size = std::filesystem::file_size(f.out, ec);
  const size_t n = tables.list.size();
  progress.note(fmt::format(
      "wrote {}: {} table{}, {} rows, {} in {:.1f} s ({} input rows/s)", f.out, n,
      n == 1 ? "" : "s", group_digits(table_rows), human_bytes(ec ? 0 : size), secs,
      group_digits(static_cast<uint64_t>(secs > 0 ? static_cast<double>(rows) / secs : 0))));
  if (bad_rows > 0 && f.quiet)
    write_err(fmt::format("drydb build: skipped {} bad rows\n", group_digits(bad_rows)));
}

}  // namespace

// ---- the command --------------------------------------------------------------------------------

BuildCommand::BuildCommand(CLI::App& app) : f_(std::make_unique<Flags>()) {
  cmd_ = app.add_subcommand("build", "Build a database from JSON Lines, CSV or TSV (or a dump)");
  Flags& f = *f_;
  cmd_->add_option("out", f.out,
                   "The database file to write (atomically: it is replaced whole "
                   "or not at all)")
      ->required();
  cmd_->add_option("-i,--input", f.input, "Input file (default: stdin)");
  cmd_->add_option("-f,--format", f.format,
                   "Input format: jsonl, csv or tsv (default: from the file name, else jsonl)")
      ->check(CLI::IsMember({"jsonl", "csv", "tsv"}));
  cmd_->add_option("--delimiter", f.delimiter,
                   "CSV field delimiter: one character, or 'tab' (default , for csv, tab for tsv)");
  cmd_->add_option("--columns", f.columns,
                   "Column names for CSV/TSV input without a header line: a,b,c");
  cmd_->add_flag("--header", f.header,
                 "With --columns: the input's first line is a header; skip it");
  f.o_page_size =
      cmd_->add_option("--page-size", f.page_size, "Page size: a power of two, 512 to 65536")
          ->check(CLI::Range(512u, 65536u));
  f.o_compress =
      cmd_->add_option("--compress", f.compress, "Page compression: none, lz4, zstd or zstd:LEVEL");
  cmd_->add_option("--zstd-dictionary", f.zstd_dictionary,
                   "With zstd: train a dictionary of at most this many bytes from the pages")
      ->check(non_negative_integer());
  cmd_->add_option("--memory", f.memory_mb,
                   "MB of rows the builder keeps in memory before spilling sorted runs")
      ->check(non_negative_integer());
  cmd_->add_option("--temp-dir", f.temp_dir, "Folder for spilled runs (default: the system's)");
  add_max_record_option(cmd_, &f.max_record, "an input record (a line, or a CSV record)");
  cmd_->add_flag("--skip-bad", f.skip_bad,
                 "Skip malformed rows (and count them) instead of stopping");
  cmd_->add_flag("-q,--quiet", f.quiet, "No progress on stderr");
  cmd_->add_option("--progress-every", f.progress_every,
                   "Seconds between progress lines when stderr is not a terminal (default 5; "
                   "the bar on a terminal is redrawn every 0.1 s, or this if shorter)")
      ->check(non_negative_number());

  auto group = "Table (each applies to the last --table before it, or to the first table)";
  f.o_table = cmd_->add_option("-t,--table", f.tables, "Start a table of this name (default: data)")
                  ->group(group);
  f.o_key = cmd_->add_option("-k,--key", f.keys, "The key column")->group(group);
  f.o_encoding =
      cmd_->add_option("--key-encoding", f.encodings, "bytes (default), int64, uuid_v7 or ulid")
          ->group(group);
  f.o_radix = cmd_->add_option("--key-radix", f.radixes,
                               "10 (default) or 16: how int64 keys are written in text columns")
                  ->group(group);
  f.o_value = cmd_->add_option("-v,--value", f.values,
                               "Store this column's text as the value (default: --msgpack)")
                  ->group(group);
  f.o_msgpack = cmd_->add_flag("--msgpack", f.msgpack,
                               "Store the whole record as a MessagePack map (the default)")
                    ->group(group);
  f.o_omit_empty = cmd_->add_flag("--omit-empty", f.omit_empty,
                                  "With --msgpack: leave out empty and null fields")
                       ->group(group);
  f.o_row_maps = cmd_->add_flag("--row-maps", f.row_maps,
                                "With --msgpack, for CSV/TSV: store each record as a map of its "
                                "own rather than a row of the table's column list (readable by "
                                "format 2.2 readers)")
                     ->group(group);
  f.o_index = cmd_->add_option("--index", f.indexes,
                               "NAME=COLUMN[,unique][,encoding=ENC][,radix=16][,skip=GLOB]: a "
                               "secondary index; rows with an empty or missing column are left "
                               "out")
                  ->group(group);
  f.o_skip_key =
      cmd_->add_option("--skip-key", f.skip_keys, "Leave out rows whose key text matches this glob")
          ->group(group);
  f.o_miss_filter =
      cmd_->add_option("--miss-filter", f.miss_filters,
                       "BITS: a miss filter of at most BITS bits per row (1 to 32; 10 answers "
                       "about 99% of gets of absent keys without a tree descent)")
          ->check(CLI::Range(1u, 32u))
          ->group(group);
  for (CLI::Option* o : {f.o_table, f.o_key, f.o_encoding, f.o_radix, f.o_value, f.o_index,
                         f.o_skip_key, f.o_miss_filter})
    o->allow_extra_args(false);
}

BuildCommand::~BuildCommand() = default;

// The flags, the input and its header, the tables (from the flags, or from
// a dump's header), the rows, the file.
int BuildCommand::run() {
  const Flags& f = *f_;
  if (f.input.empty() ? is_stdin(f.out) : same_file(f.input, f.out))
    fail_usage(fmt::format("the output '{}' is the input: it would replace what it reads", f.out));
  std::vector<TableSpec> specs = gather_table_specs(*cmd_, f);
  BuildOptions options = build_options(f);
  const InputFormat format = input_format(f);

  InputSource source(f.input);
  Progress progress(progress_mode(f.quiet), source.total_bytes(), f.progress_every);
  InputReader input(f, format, source, progress);
  catch_interrupts(true);
  Record* rec = input.read_header_and_first_record();

  const bool dump = is_dump_header(input, rec);
  const int dump_version = dump ? read_dump_version(input) : 0;
  if (dump) {
    if (!specs.empty())
      fail_usage("the input is a drydb dump: it names its own tables, keys and indexes");
    take_dump_options(input, f, progress, &options);
  }
  DatabaseBuilder builder(options);  // the options are final: a dump's header is read
  const uint32_t max_key = max_key_length(options.page_size);
  Tables tables = dump ? declare_dump_tables(input, builder, max_key)
                       : declare_tables(std::move(specs), input, builder, max_key);
  if (dump) rec = input.next_record();  // past the header
  add_index_key_functions(tables);
  check(builder.status());

  progress.note(
      fmt::format("reading {}{}", source.name(),
                  source.total_bytes() ? " (" + human_bytes(*source.total_bytes()) + ")" : ""));
  uint64_t rows = 0;
  bool dump_ended = false;
  for (; rec != nullptr; rec = input.next_record()) {
    progress.update(rows, source.bytes_read());
    if (!dump) {
      rows += add_record_row(*rec, input, tables, max_key, f.page_size);
    } else if (dump_ended) {
      fail(fmt::format("{}: a record after the dump's end ({} not written)", input.where(), f.out));
    } else if (is_dump_end(input)) {
      check_dump_end(input, tables);
      dump_ended = true;
    } else {
      rows += add_dump_row(input, tables, max_key);
    }
    test_pause("build:reading");
  }
  if (dump) {
    if (dump_version == 1)
      progress.warn(
          fmt::format("{} is a version 1 dump, which has no end record: whether it is "
                      "complete cannot be checked",
                      source.name()));
    else if (!dump_ended)
      fail(
          fmt::format("{}: the dump ends without its end record: it is incomplete (a dump that "
                      "failed, or a cut file); {} not written",
                      source.name(), f.out));
    drop_skipped_dump_rows_entries(tables, progress);
    check_dump_index_entries(tables, f.out);
  }
  write_database(builder, tables, input, rows, f, progress);
  return kExitOk;
}

}  // namespace drydb::cli
