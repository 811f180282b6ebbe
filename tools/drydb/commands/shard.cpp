#include "commands/shard.h"

#include <unistd.h>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "drydb/builder.h"
#include "drydb/dataset.h"
#include "drydb/page_filter.h"
#include "drydb/sharded.h"

#include "commands/inspect.h"
#include "commands/option_checks.h"
#include "commands/session.h"
#include "common.h"
#include "io/json.h"
#include "io/keys.h"
#include "io/render.h"
#include "io/text.h"

namespace drydb::cli {

namespace fs = std::filesystem;

struct ShardCommand::Flags {
  std::string dataset, file, key, table, output, name, format = "text";
  bool hex = false;
  uint64_t generation = 0;
  uint32_t keep = 2;
  uint32_t shards = 0;
  CLI::App *route = nullptr, *verify = nullptr, *publish = nullptr, *rollback = nullptr,
           *merge = nullptr, *split = nullptr;
};

namespace {

std::string to_string(std::span<const std::byte> b) {
  return std::string(as_text(b));
}

// A shard file's name in its generation's folder (as drydb.dask names them).
std::string shard_file(uint32_t i) {
  return fmt::format("shard-{:05d}.drydb", i);
}

// How a copy of `file`'s tables is built: its page size and page filters, and otherwise the
// builder's defaults, as `drydb build` builds a dump of it.
BuildOptions copy_options(const std::string& file) {
  const FileInfo l = read_layout(file);
  BuildOptions o;
  o.page_size = l.page_size;
  for (const FilterInfo& f : l.filters) {
    if (f.id == "lz4") {
      o.filters.push_back(filters::lz4());
    } else if (const auto z = f.id == "zstd" ? filters::zstd_options(f.params) : std::nullopt) {
      o.filters.push_back(filters::zstd(*z));
    } else {
      fail(fmt::format("{}: its page filter '{}' is not one this tool applies (zstd, lz4)", file,
                       f.id));
    }
  }
  return o;
}

// Each row's index key, by primary key: what a copied table's index gives its rows (a row
// has at most one key in an index).
using IndexLookup = std::unordered_map<std::string, std::string>;

// Declares `shape`'s table in `b` (encoding, column list, miss filter), with its indexes, whose
// keys `lookups` give (one per index, in shape.indexes()' order; they must outlive the build).
TableBuilder& declare_table(DatabaseBuilder& b, const ReadOnlyTable& shape,
                            const std::vector<IndexLookup>& lookups) {
  TableBuilder& t = b.create_table(shape.name(), shape.encoding());
  if (!shape.columns().empty())
    t.set_columns({shape.columns().begin(), shape.columns().end()}, shape.key_column());
  if (const uint32_t bits = shape.info().miss_filter_bits_per_key; bits != 0)
    t.add_miss_filter(bits);
  const auto indexes = shape.indexes();
  for (size_t i = 0; i < indexes.size(); ++i) {
    const IndexLookup* lookup = &lookups[i];
    const KeyKind kind = indexes[i].encoding().kind();
    t.add_secondary_index(indexes[i].name(), indexes[i].unique(), indexes[i].encoding(),
                          [lookup, kind](std::span<const std::byte> key,
                                         std::span<const std::byte>) -> std::optional<IndexKey> {
                            const auto it = lookup->find(to_string(key));
                            if (it == lookup->end()) return std::nullopt;
                            return make_index_key(kind, it->second);
                          });
  }
  return t;
}

// The lookups of a file's table's indexes, from their entries.
std::vector<IndexLookup> index_lookups(const ReadOnlyTable& t) {
  std::vector<IndexLookup> out;
  for (const SecondaryIndex& ix : t.indexes()) {
    IndexLookup& l = out.emplace_back();
    IndexCursor c = ix.cursor();
    for (bool ok = c.first(); ok; ok = c.next())
      l.emplace(to_string(c.key()), to_string(c.index_key()));
    check(c.status());
  }
  return out;
}

// The same across a dataset's shards.
std::vector<IndexLookup> index_lookups(const ShardedTable& t) {
  std::vector<IndexLookup> out;
  for (const ShardedIndex& ix : t.indexes()) {
    IndexLookup& l = out.emplace_back();
    ShardedIndexRange r = check(ix.get_range(unbounded, unbounded));
    for (const ShardedIndexEntry e : r)
      l.emplace(to_string(e.key), to_string(e.index_key));
    check(r.status());
  }
  return out;
}

// The fixed-width key one above (`up`) or below `k`, as a big-endian number; false at the end of
// the range.
bool step_key(std::string& k, bool up) {
  for (size_t i = k.size(); i-- > 0;) {
    auto& byte = reinterpret_cast<unsigned char&>(k[i]);
    if (up ? byte++ != 0xff : byte-- != 0x00) return true;
  }
  return false;
}

// S - 1 split keys for `t` that give its S shards near-equal rows: the keys at ranks
// i * n / S. A table of fewer rows than shards splits at its keys but the first, then at filler
// keys, so that some of its shards are empty: above its last key (byte keys: the last key and a
// NUL, then that with its last byte raised, a NUL appended after 0xff, so that a key grows by a
// byte per 256 fillers); fixed-width keys, one above the other, and below the first key where
// the range ends above.
std::vector<std::string> even_splits(const ReadOnlyTable& t, uint32_t shards) {
  const uint64_t n = t.count();
  Cursor c = t.cursor();
  auto key_at = [&](uint64_t rank) {
    if (!c.seek_rank(rank)) {
      check(c.status());
      fail(fmt::format("table '{}' ended before its counted rows (run `drydb verify`)", t.name()));
    }
    return to_string(c.key());
  };
  std::vector<std::string> splits;
  if (n >= shards) {
    for (uint32_t i = 1; i < shards; ++i)
      splits.push_back(key_at(i * n / shards));
    return splits;
  }
  for (uint64_t r = 1; r < n; ++r)
    splits.push_back(key_at(r));
  uint64_t fillers = (shards - 1) - splits.size();
  const uint32_t width = t.encoding().fixed_width();
  if (width == 0) {
    std::string k = (n > 0 ? key_at(n - 1) : std::string()) + '\0';
    for (; fillers > 0; --fillers) {
      splits.push_back(k);
      if (static_cast<unsigned char>(k.back()) == 0xff)
        k += '\0';
      else
        k.back() = static_cast<char>(static_cast<unsigned char>(k.back()) + 1);
    }
    return splits;
  }
  std::string above = n > 0 ? key_at(n - 1) : std::string(width, '\0');
  if (n == 0) {  // the first filler is the smallest key
    splits.push_back(above);
    --fillers;
  }
  for (; fillers > 0 && step_key(above, true); --fillers)
    splits.push_back(above);
  std::vector<std::string> below;
  std::string k = n > 0 ? key_at(0) : std::string();
  for (; fillers > 0 && n > 0 && step_key(k, false); --fillers)
    below.push_back(k);
  if (fillers > 0)
    fail(
        fmt::format("table '{}' has {} rows and no {} more {}-byte keys above or below them to "
                    "split at: split into fewer shards",
                    t.name(), n, fillers, width));
  splits.insert(splits.begin(), below.rbegin(), below.rend());
  return splits;
}

// The dataset's name from its folder's: "data" for "x/data" and "x/data/".
std::string dataset_name(const std::string& path) {
  const fs::path p = fs::absolute(path).lexically_normal();
  return (p.has_filename() ? p.filename() : p.parent_path().filename()).string();
}

// What failed after a publish took effect (retention, the folder's fsync), told on stderr: the
// command succeeded, and says so on stdout, whatever these say.
void warn_after_publish(const Published& p) {
  for (const std::string& w : p.warnings)
    write_err(fmt::format("drydb: warning: published, but {}\n", w));
}

void route(const ShardCommand::Flags& f) {
  const ShardedDatabase ds = open_dataset(f.dataset);
  const auto tables = ds.tables();
  if (tables.empty()) fail(fmt::format("the dataset '{}' has no tables", f.dataset));
  const ShardedTable t = f.table.empty() ? tables.front() : check(ds.table(f.table));
  const std::string k = parse_key_text(t.encoding(), f.key, f.hex);
  const uint32_t s = t.shard_of(make_key(t.encoding().kind(), k));
  const std::string file = ds.shard_path(s).string();
  if (f.format == "jsonl") {
    std::string line = fmt::format("{{\"shard\":{},\"file\":", s);
    append_json_string(line, file);
    write_out(stdout, line + "}\n");
  } else {
    write_out(stdout, fmt::format("shard {}: {}\n", s, file));
  }
}

void merge(const ShardCommand::Flags& f) {
  std::error_code ec;
  if (fs::is_directory(f.output, ec))
    fail_usage(fmt::format("the output '{}' is a folder", f.output));
  const ShardedDatabase ds = open_dataset(f.dataset);
  refuse_output_in(ds, f.output);
  catch_interrupts(true);  // reading stops at the next row; the builder writes OUT whole or not
  DatabaseBuilder b(copy_options(ds.shard_path(0).string()));
  std::vector<std::vector<IndexLookup>> lookups;  // kept until the build
  uint64_t rows = 0;
  for (const ShardedTable& t : ds.tables()) {
    lookups.push_back(index_lookups(t));
    TableBuilder& tb = declare_table(b, check(ds.shard(0).table(t.name())), lookups.back());
    ShardedRange r = check(t.get_range(unbounded, unbounded));
    for (const Entry e : r) {
      if (g_interrupted) fail(fmt::format("interrupted; {} not written", f.output));
      tb.append(make_key(t.encoding().kind(), as_text(e.key)), e.value);
      ++rows;
    }
    check(r.status());
  }
  check(b.build_to_file(f.output));
  catch_interrupts(false);
  write_out(stdout, fmt::format("merged: {} rows of {} shards into {}\n", group_digits(rows),
                                ds.shard_count(), f.output));
}

void split(const ShardCommand::Flags& f) {
  if (is_dataset(f.file)) fail_usage(fmt::format("'{}' is a dataset, not a database file", f.file));
  const ReadOnlyDatabase db = open_database(f.file);
  const BuildOptions options = copy_options(f.file);
  const auto tables = db.tables();
  if (tables.empty()) fail(fmt::format("{} has no tables to split", f.file));
  Manifest m;
  m.dataset = f.name.empty() ? dataset_name(f.dataset) : f.name;
  m.generation = 1;  // until claimed
  m.shards.resize(f.shards);
  for (uint32_t i = 0; i < f.shards; ++i)
    m.shards[i].file = shard_file(i);
  std::vector<std::vector<uint64_t>> bounds;  // per table: the first rank of each shard, and n
  for (const ReadOnlyTable& t : tables) {
    ManifestTable& mt = m.tables.emplace_back();
    mt.name = t.name();
    mt.key_encoding = t.encoding().id();
    for (const SecondaryIndex& ix : t.indexes())
      mt.indexes.push_back({std::string(ix.name()), ix.unique(), std::string(ix.encoding().id())});
    mt.partitioning.splits = even_splits(t, f.shards);
    auto& b = bounds.emplace_back(1, 0);
    for (const std::string& s : mt.partitioning.splits)
      b.push_back(check(
          t.count_range(unbounded, make_key(t.encoding().kind(), s), {.end_exclusive = true})));
    b.push_back(t.count());
    // What each shard will hold, so that the manifest is checked before anything is written.
    Cursor c = t.cursor();
    for (uint32_t i = 0; i < f.shards; ++i) {
      ShardTable& st = m.shards[i].tables.emplace_back();
      st.rows = b[i + 1] - b[i];
      if (st.rows == 0) continue;
      if (c.seek_rank(b[i])) st.first = to_string(c.key());
      if (c.seek_rank(b[i + 1] - 1)) st.last = to_string(c.key());
      check(c.status());
    }
  }
  if (auto st = check_manifest(m); !st)
    fail(fmt::format("cannot split {} into {} shards: {}", f.file, f.shards, st.error().message));
  std::vector<std::vector<IndexLookup>> lookups;
  for (const ReadOnlyTable& t : tables)
    lookups.push_back(index_lookups(t));

  std::error_code ec;
  const bool made_dataset = !fs::exists(f.dataset, ec);
  m.generation = check(claim_generation(f.dataset));
  const fs::path folder = fs::path(f.dataset) / generation_folder(m.generation);
  // A split that fails or is interrupted before it published leaves the dataset as it was: its
  // generation's folder discarded under the dataset's lock (never one a publish named), and a
  // dataset folder it made removed only if nothing else is in it (another run's generation).
  auto undo = [&] {
    if (auto gone = discard_generation(f.dataset, m.generation); gone && *gone && made_dataset)
      ::rmdir(f.dataset.c_str());
  };
  catch_interrupts(true);
  try {
    for (uint32_t i = 0; i < f.shards; ++i) {
      DatabaseBuilder b(options);
      for (size_t k = 0; k < tables.size(); ++k) {
        TableBuilder& tb = declare_table(b, tables[k], lookups[k]);
        const KeyKind kind = tables[k].encoding().kind();
        Cursor c = tables[k].cursor();
        bool ok = c.seek_rank(bounds[k][i]);
        for (uint64_t r = bounds[k][i]; r < bounds[k][i + 1]; ++r, ok = c.next()) {
          if (g_interrupted) fail(fmt::format("interrupted; {} is unchanged", f.dataset));
          if (!ok) {
            check(c.status());
            fail(fmt::format("table '{}' ended before its counted rows (run `drydb verify`)",
                             tables[k].name()));
          }
          const auto value = c.value();
          check(c.status());
          tb.append(make_key(kind, as_text(c.key())), value);
        }
      }
      const fs::path file = folder / shard_file(i);
      check(b.build_to_file(file));
      m.shards[i] = check(describe_shard(file));
    }
    if (g_interrupted) fail(fmt::format("interrupted; {} is unchanged", f.dataset));
    check(write_manifest(folder, m));
  } catch (...) {
    catch_interrupts(false);
    undo();
    throw;
  }
  // From here the split is past undoing: publish either makes the generation live or fails
  // with CURRENT as it was, and a generation that was not published is discarded.
  auto published = publish_generation(f.dataset, m.generation, f.keep);
  catch_interrupts(false);
  if (!published) {
    undo();
    fail(published.error().message);
  }
  write_out(stdout, fmt::format("split: {} into {} shards: {} is live\n", f.file, f.shards,
                                folder.string()));
  warn_after_publish(*published);
}

}  // namespace

void verify_dataset(const std::string& path, std::FILE* out) {
  const ShardedDatabase ds = open_dataset(path, /*checksums=*/true);
  check(ds.verify());  // names the file of a shard that fails
  const auto shards = static_cast<uint32_t>(ds.shard_count());
  size_t indexes = 0;
  for (const ShardedTable& t : ds.tables()) {
    for (const ShardedIndex& ix : t.indexes()) {
      ++indexes;
      if (!ix.unique()) continue;
      // Unique across the dataset: no two shards give one index key.
      ShardedIndexRange r = check(ix.get_range(unbounded, unbounded));
      std::string previous;
      bool first = true;
      for (const ShardedIndexEntry e : r) {
        if (!first && as_text(e.index_key) == previous)
          fail(fmt::format("{}: unique index '{}' of table '{}' gives the key {} to two rows", path,
                           ix.name(), t.name(), display_key(ix.encoding(), e.index_key, false)));
        previous = to_string(e.index_key);
        first = false;
      }
      check(r.status());
    }
    if (t.partitioning().function == kRangePartitioning) continue;
    for (uint32_t i = 0; i < shards; ++i) {
      Cursor c = check(ds.shard(i).table(t.name())).cursor();
      for (bool ok = c.first(); ok; ok = c.next())
        if (shard_of(t.partitioning(), shards, c.key()) != i)
          fail(fmt::format("{}: table '{}': the key {} is in shard {}, but routes to shard {}",
                           path, t.name(), display_key(t.encoding(), c.key(), false), i,
                           shard_of(t.partitioning(), shards, c.key())));
      check(c.status());
    }
  }
  const size_t n = ds.tables().size();
  write_out(out, fmt::format("ok: {}: generation {}, {} shard{}, {} table{}, {} index{}; every "
                             "checksum, tree invariant and manifest entry holds\n",
                             path, ds.generation(), shards, shards == 1 ? "" : "s", n,
                             n == 1 ? "" : "s", indexes, indexes == 1 ? "" : "es"));
}

ShardCommand::ShardCommand(CLI::App& app) : f_(std::make_unique<Flags>()) {
  Flags& f = *f_;
  cmd_ = app.add_subcommand("shard",
                            "Sharded datasets: route, verify, publish, roll back, "
                            "merge into one file, split one file");
  cmd_->require_subcommand(1);
  auto dataset = [&](CLI::App* c) {
    c->add_option("dataset", f.dataset, "The dataset folder (or a gen-N folder or manifest)")
        ->required();
  };

  f.route = cmd_->add_subcommand("route", "The shard (and its file) that holds a key");
  dataset(f.route);
  f.route->add_option("key", f.key, "The key, in the table's encoding")->required();
  f.route->add_option("-t,--table", f.table, "The table (default: the first)");
  f.route->add_flag("--hex", f.hex, "The key typed as hex digits");
  f.route->add_option("-f,--format", f.format, "Output: text or jsonl")
      ->check(CLI::IsMember({"text", "jsonl"}));

  f.verify = cmd_->add_subcommand(
      "verify", "Check every shard against the manifest and itself (as `drydb verify DATASET`)");
  dataset(f.verify);

  f.publish = cmd_->add_subcommand("publish", "Make a generation live (CURRENT names it)");
  f.publish->add_option("dataset", f.dataset, "The dataset folder")->required();
  f.publish->add_option("generation", f.generation, "N of its gen-N folder")
      ->required()
      ->check(non_negative_integer());
  f.publish->add_option("--keep", f.keep, "Older complete generations kept (default 2)")
      ->check(non_negative_integer());

  f.rollback = cmd_->add_subcommand(
      "rollback", "Make the newest generation older than the live one live again");
  f.rollback->add_option("dataset", f.dataset, "The dataset folder")->required();

  f.merge = cmd_->add_subcommand("merge", "Write one database file holding a dataset's rows");
  dataset(f.merge);
  f.merge->add_option("-o,--output", f.output, "The database file to write")->required();

  f.split = cmd_->add_subcommand(
      "split", "Cut a database file into range shards of near-equal rows: a new generation");
  f.split->add_option("file", f.file, "The database file")->required();
  f.split->add_option("-n,--shards", f.shards, "How many shards")
      ->required()
      ->check(CLI::Range(uint32_t{1}, kMaxShards));
  f.split->add_option("-o,--output", f.dataset, "The dataset folder (made if need be)")->required();
  f.split->add_option("--name", f.name, "The dataset's name (default: its folder's)");
  f.split->add_option("--keep", f.keep, "Older complete generations kept (default 2)")
      ->check(non_negative_integer());
}

ShardCommand::~ShardCommand() = default;

int ShardCommand::run() {
  const Flags& f = *f_;
  if (f.route->parsed()) {
    route(f);
  } else if (f.verify->parsed()) {
    verify_dataset(f.dataset, stdout);
  } else if (f.publish->parsed()) {
    const Published p = check(publish_generation(f.dataset, f.generation, f.keep));
    write_out(stdout,
              fmt::format("published: {}: generation {} is live\n", f.dataset, f.generation));
    warn_after_publish(p);
  } else if (f.rollback->parsed()) {
    const uint64_t g = check(rollback_generation(f.dataset));
    write_out(stdout, fmt::format("rolled back: {}: generation {} is live\n", f.dataset, g));
  } else if (f.merge->parsed()) {
    merge(f);
  } else if (f.split->parsed()) {
    split(f);
  }
  return kExitOk;
}

}  // namespace drydb::cli
