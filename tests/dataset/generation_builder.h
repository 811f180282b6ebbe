// Test datasets written shard by shard: tables given as sorted maps of encoded keys (with their
// partitioning and indexes), each generation's shards built with drydb::DatabaseBuilder, its
// manifest from describe_shard, then published. Shared by the tests of tests/dataset.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "drydb/builder.h"
#include "drydb/dataset.h"
#include "drydb/detail/coding.h"
#include "drydb/key.h"

namespace drydb_test {

namespace fs = std::filesystem;
using drydb::KeyEncoding;

// A secondary index of a sample table: its encoded key for a row (encoded key, value), if any.
struct IndexSpec {
  std::string name;
  bool unique;
  KeyEncoding encoding;
  std::function<std::optional<std::string>(const std::string&, const std::string&)> key;
};

struct TableSpec {
  std::string name;
  KeyEncoding encoding;
  drydb::Partitioning partitioning;
  std::map<std::string, std::string> rows;  // encoded key -> value, in drydb's key order
  std::vector<IndexSpec> indexes = {};
};

inline std::string int_key(int64_t v) {
  std::string k(8, '\0');
  drydb::detail::store_be64(reinterpret_cast<std::byte*>(k.data()), drydb::int64_to_ordered(v));
  return k;
}

// A Key of the table's kind for an encoded key.
inline drydb::Key key_of(const TableSpec& t, const std::string& encoded) {
  if (t.encoding.kind() == drydb::KeyKind::int64)
    return drydb::Key(drydb::ordered_to_int64(
        drydb::detail::load_be64(reinterpret_cast<const std::byte*>(encoded.data()))));
  return drydb::Key(std::string_view(encoded));
}

// A Key of an encoding's kind for an encoded key.
inline drydb::Key key_in(const KeyEncoding& encoding, const std::string& encoded) {
  if (encoding.kind() == drydb::KeyKind::int64)
    return drydb::Key(drydb::ordered_to_int64(
        drydb::detail::load_be64(reinterpret_cast<const std::byte*>(encoded.data()))));
  return drydb::Key(std::string_view(encoded));
}

inline std::string as_string(std::span<const std::byte> b) {
  return {reinterpret_cast<const char*>(b.data()), b.size()};
}

// Declares `t`'s indexes on `tb`.
inline void add_indexes(drydb::TableBuilder& tb, const TableSpec& t) {
  for (const IndexSpec& ix : t.indexes)
    tb.add_secondary_index(
        ix.name, ix.unique, ix.encoding,
        [ix](std::span<const std::byte> pk,
             std::span<const std::byte> v) -> std::optional<drydb::IndexKey> {
          const auto k = ix.key(as_string(pk), as_string(v));
          if (!k) return std::nullopt;
          if (ix.encoding.kind() == drydb::KeyKind::int64)
            return drydb::IndexKey(drydb::ordered_to_int64(
                drydb::detail::load_be64(reinterpret_cast<const std::byte*>(k->data()))));
          return drydb::IndexKey(std::string_view(*k));
        });
}

// Writes generation `gen` of the dataset at `root`: each shard a drydb file of every table's rows
// that the table's partitioning sends there, then the manifest, then publishes it.
inline void build_generation(const fs::path& root, uint64_t gen,
                             const std::vector<TableSpec>& tables, uint32_t shards) {
  const fs::path folder = root / drydb::generation_folder(gen);
  fs::create_directories(folder);
  drydb::Manifest m;
  m.dataset = "test";
  m.generation = gen;
  for (const TableSpec& t : tables) {
    std::vector<drydb::ManifestIndex> indexes;
    for (const IndexSpec& ix : t.indexes)
      indexes.push_back({ix.name, ix.unique, std::string(ix.encoding.id())});
    m.tables.push_back({t.name, std::string(t.encoding.id()), indexes, t.partitioning});
  }
  for (uint32_t i = 0; i < shards; ++i) {
    drydb::DatabaseBuilder b({.page_size = 512});
    for (const TableSpec& t : tables) {
      auto& tb = b.create_table(t.name, t.encoding);
      for (const auto& [k, v] : t.rows)
        if (drydb::shard_of(t.partitioning, shards, k) == i) tb.append(key_of(t, k), v);
      add_indexes(tb, t);
    }
    const fs::path file = folder / ("shard-" + std::to_string(i) + ".drydb");
    ASSERT_TRUE(b.build_to_file(file));
    auto described = drydb::describe_shard(file);
    ASSERT_TRUE(described) << described.error().message;
    m.shards.push_back(std::move(*described));
  }
  ASSERT_TRUE(drydb::write_manifest(folder, m)) << drydb::check_manifest(m).error().message;
  ASSERT_TRUE(drydb::publish_generation(root, gen));
}

}  // namespace drydb_test
