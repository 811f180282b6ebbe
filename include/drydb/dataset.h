// Sharded datasets (docs/sharding.md): the partition functions that assign a table's rows to
// shards, the manifest that describes one generation of a dataset, and the dataset folder's
// generations (publish, roll back, keep). Part of the drydb::dataset library (it parses JSON
// with simdjson), not of drydb::drydb.
//
//   drydb::Manifest m = ...;                                   // tables, shards, their counts
//   if (auto st = drydb::write_manifest("ds/gen-3", m); !st) ...  // temp file + rename
//   auto read = drydb::read_manifest("ds/gen-3/manifest.json");   // every rule checked
//   drydb::publish_generation("ds", 3);                           // CURRENT -> gen-3
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "drydb/result.h"

namespace drydb {

// ---- partition functions ------------------------------------------------------------------------

// Function ids (docs/sharding.md, "Partition functions"): each names one exact function forever.
// Range partitioning by split keys, in encoded key order.
inline constexpr std::string_view kRangePartitioning = "range-v1";
// XXH3-64 (seed 0) of the encoded key, modulo the number of shards.
inline constexpr std::string_view kHashPartitioning = "xxh3-64-mod-v1";

// How a table's rows go to shards.
struct Partitioning {
  std::string function{kRangePartitioning};
  // range-v1: the S - 1 split keys (encoded), strictly increasing, none empty. Empty for
  // xxh3-64-mod-v1.
  std::vector<std::string> splits;
};

// The shard, 0 .. shards - 1, of the encoded key `key`. Requires check_partitioning(p, shards).
uint32_t shard_of(const Partitioning& p, uint32_t shards, std::span<const std::byte> key) noexcept;
inline uint32_t shard_of(const Partitioning& p, uint32_t shards, std::string_view key) noexcept {
  return shard_of(p, shards, std::as_bytes(std::span(key.data(), key.size())));
}

// errc::unsupported_version for an unknown function id; errc::invalid_argument for a shard
// count outside 1 .. kMaxShards or split keys that do not fit the function (their number,
// order, an empty one).
status check_partitioning(const Partitioning& p, uint32_t shards);

// ---- the manifest -------------------------------------------------------------------------------

inline constexpr uint32_t kMaxShards = 65536;
inline constexpr uint32_t kMaxManifestTables = 4096;
inline constexpr uint32_t kMaxManifestIndexes = 4096;  // per table
inline constexpr uint64_t kMaxManifestBytes = uint64_t{64} << 20;

struct ManifestIndex {
  std::string name;
  bool unique = false;
  std::string key_encoding;
};

struct ManifestTable {
  std::string name;
  std::string key_encoding;
  std::vector<ManifestIndex> indexes;
  Partitioning partitioning;
};

// What one shard holds of one table: its rows, and (when there are any) its smallest and
// largest encoded keys.
struct ShardTable {
  uint64_t rows = 0;
  std::string first, last;
};

struct ManifestShard {
  std::string file;                // in the generation's folder
  uint64_t bytes = 0;              // the file's length
  uint64_t xxh3 = 0;               // XXH3-64 (seed 0) of the whole file
  std::vector<ShardTable> tables;  // one per table of the manifest, in its order
  // The file's identity (ReadOnlyDatabase::identity(): 0 for a file of a format before 2.4),
  // which a reader checks at open; a manifest of version 1 records none. Every shard of a
  // manifest has one, or none does.
  std::optional<uint64_t> identity;
};

struct Manifest {
  std::string dataset;
  uint64_t generation = 0;
  std::vector<ManifestTable> tables;
  std::vector<ManifestShard> shards;
};

// Checks every rule docs/sharding.md gives a manifest ("The manifest" and the first and third
// checks of "Checks a reader makes"): errc::invalid_argument naming the first fault, or
// errc::unsupported_version for an unknown partition function.
status check_manifest(const Manifest& m);

// The manifest's JSON text, as docs/sharding.md writes it (one shard per line). Requires
// check_manifest(m).
std::string manifest_json(const Manifest& m);

// A manifest from its JSON text: errc::corruption for text that is not a manifest (syntax, a
// member missing, unknown or of the wrong type, a number out of range, a key that is not hex),
// naming where; then check_manifest's errors.
result<Manifest> parse_manifest(std::string_view json);

// Reads and parses FOLDER/manifest.json or the manifest file at `path` (errc::io_error if it
// cannot be read; errc::invalid_argument if it is over kMaxManifestBytes).
result<Manifest> read_manifest(const std::filesystem::path& path);

// Writes `m` to FOLDER/manifest.json: a temp file in FOLDER, fsync, rename, fsync FOLDER.
// Refuses a manifest that fails check_manifest.
status write_manifest(const std::filesystem::path& folder, const Manifest& m);

// A shard file as its manifest describes it: its name (the file's own), size, XXH3-64, and each
// table's rows and first and last keys, in the file's table order. Reads the whole file.
result<ManifestShard> describe_shard(const std::filesystem::path& file);

// ---- the dataset folder -------------------------------------------------------------------------

// "gen-N", the folder of generation N.
std::string generation_folder(uint64_t generation);

// The generation CURRENT names (0 when the dataset has none yet: no CURRENT).
// errc::corruption for a CURRENT that is not "gen-N\n".
result<uint64_t> current_generation(const std::filesystem::path& dataset);

// The number a new generation takes: one more than HIGHEST and every gen-N folder present.
result<uint64_t> next_generation(const std::filesystem::path& dataset);

// Claims the next generation number by creating its folder, DATASET/gen-N (and DATASET if need
// be); returns N. mkdir is exclusive, so two builders never get one number. A DATASET folder
// removed meanwhile (a failed run that made it removes it when it is empty) is made again.
result<uint64_t> claim_generation(const std::filesystem::path& dataset);

// What publish_generation did once generation N was live.
struct Published {
  // The older generations that retention removed, oldest first.
  std::vector<uint64_t> removed;
  // What failed after CURRENT named N: an old generation that could not be removed (it stays,
  // its manifest perhaps gone: it is then never a rollback target), or the folder's fsync after
  // CURRENT's rename. The publish took effect all the same; each is worth telling the user.
  std::vector<std::string> warnings;
};

// Makes generation N live. Under an exclusive flock(2) on DATASET (publishing, rollback,
// retention and discarding a generation hold it, so they happen one at a time): checks that
// DATASET/gen-N/manifest.json reads and is of generation N; raises HIGHEST to N, then points
// CURRENT at it (each a temp file, fsync, rename, fsync the folder): HIGHEST first, so a
// generation CURRENT ever named is never above HIGHEST. Then removes the complete generations
// (those with a manifest) older than N but the `keep` newest of them, each manifest first, so
// a generation half removed is never a rollback target; folders without a manifest are left
// alone. An error is returned only when N did not become live (CURRENT is as it was); a
// failure after that is one of Published::warnings.
result<Published> publish_generation(const std::filesystem::path& dataset, uint64_t generation,
                                     uint32_t keep = 2);

// Points CURRENT at the newest generation older than the current one whose manifest reads and
// is of its number; returns it. errc::not_found when there is none. HIGHEST is unchanged, so the
// number of the generation rolled back from is never given again. Holds the dataset's lock.
result<uint64_t> rollback_generation(const std::filesystem::path& dataset);

// Removes DATASET/gen-N, a generation its builder gives up on (a failed or interrupted build),
// but only if no publish can have named it: under the dataset's lock, a folder without a
// manifest is removed; one with a manifest only while CURRENT does not name N and N is above
// HIGHEST (a publish raises HIGHEST first). Returns true when the folder is gone (or was never
// there), false when it is kept because it may have been published, since then another run or
// a user may serve it or roll back to it. A builder calls this, never a plain recursive
// removal, so that a failure after its publish, or another run's publish of its generation,
// never costs a live generation.
result<bool> discard_generation(const std::filesystem::path& dataset, uint64_t generation);

}  // namespace drydb
