// Test datasets written shard by shard: tables of the one model (support/model.h) with their
// partitioning, each generation's shards built with drydb::DatabaseBuilder, its manifest from
// describe_shard, then published. Shared by the tests of tests/dataset.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "drydb/builder.h"
#include "drydb/dataset.h"
#include "support/model.h"

namespace drydb_test {

// A table of a sharded dataset: its model and how its rows go to shards.
struct ShardedTable : TableModel {
  drydb::Partitioning partitioning;
};

// A sharded table of no rows, range-partitioned by no split keys unless `partitioning` says else.
inline ShardedTable sharded_table(std::string name, drydb::KeyEncoding enc,
                                  drydb::Partitioning partitioning = {}) {
  ShardedTable t;
  t.name = std::move(name);
  t.enc = enc;
  t.partitioning = std::move(partitioning);
  return t;
}

// Writes generation `gen` of the dataset at `root`: each shard a drydb file (512-byte pages) of
// every table's rows that the table's partitioning sends there, then the manifest, then publishes
// it.
inline void build_generation(const std::filesystem::path& root, uint64_t gen,
                             const std::vector<ShardedTable>& tables, uint32_t shards) {
  const std::filesystem::path folder = root / drydb::generation_folder(gen);
  std::filesystem::create_directories(folder);
  drydb::Manifest m;
  m.dataset = "test";
  m.generation = gen;
  for (const ShardedTable& t : tables) {
    std::vector<drydb::ManifestIndex> indexes;
    for (const IndexModel& ix : t.indexes)
      indexes.push_back({ix.name, ix.unique, std::string(ix.enc.id())});
    m.tables.push_back({t.name, std::string(t.enc.id()), indexes, t.partitioning});
  }
  for (uint32_t i = 0; i < shards; ++i) {
    drydb::DatabaseBuilder b({.page_size = 512});
    for (const ShardedTable& t : tables)
      add_table(b, t, std::nullopt, [&](const std::string& k) {
        return drydb::shard_of(t.partitioning, shards, k) == i;
      });
    const std::filesystem::path file = folder / ("shard-" + std::to_string(i) + ".drydb");
    ASSERT_TRUE(b.build_to_file(file));
    auto described = drydb::describe_shard(file);
    ASSERT_TRUE(described) << described.error().message;
    m.shards.push_back(std::move(*described));
  }
  ASSERT_TRUE(drydb::write_manifest(folder, m)) << drydb::check_manifest(m).error().message;
  ASSERT_TRUE(drydb::publish_generation(root, gen));
}

}  // namespace drydb_test
