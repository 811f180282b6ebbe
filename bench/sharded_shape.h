// A key shape's table as a dataset of range shards of equal rows (docs/sharding.md), and its
// queries through drydb::ShardedDatabase: drydb_bench's "drydb_sharded" store
// (sharded_bench.cpp) and drydb_instr_count's "sharded" store run the same code.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "bench_common.h"
#include "drydb/dataset.h"
#include "drydb/sharded.h"
#include "shape_readers.h"
#include "shapes.h"

namespace drydb_bench {

// Writes generation 1 of a dataset at `path` (replacing what is there) holding the shape's rows
// as shape_file's one table does: shard i holds ranks [i n / S, (i + 1) n / S), split at the
// first key of each shard but the first.
inline void build_sharded_shape(const Shape& shape, const std::filesystem::path& path,
                                uint32_t shards) {
  std::filesystem::remove_all(path);
  const std::filesystem::path folder = path / drydb::generation_folder(1);
  std::filesystem::create_directories(folder);
  drydb::Manifest m;
  m.dataset = "sharded-" + shape.name;
  m.generation = 1;
  drydb::ManifestTable& t = m.tables.emplace_back();
  t.name = "items";
  t.key_encoding = shape_key_encoding(shape).id();
  const int64_t n = shape.rows();
  for (uint32_t i = 0; i < shards; ++i) {
    const int64_t first = n * i / shards, end = n * (i + 1) / shards;
    if (i > 0)
      t.partitioning.splits.push_back(std::string(shape.key_bytes(static_cast<size_t>(first))));
    drydb::DatabaseBuilder builder;
    auto& items = builder.create_table("items", shape_key_encoding(shape));
    for (int64_t r = first; r < end; ++r) {
      if (shape.int_keys)
        items.append(shape.ints[static_cast<size_t>(r)], value_of(r));
      else
        items.append(shape.keys[static_cast<size_t>(r)], value_of(r));
    }
    const auto file = folder / ("shard-" + std::to_string(i) + ".drydb");
    const auto st = builder.build_to_file(file);
    require(bool(st), "drydb sharded build", st ? "" : st.error().message);
    auto described = drydb::describe_shard(file);
    require(described.has_value(), "drydb sharded describe",
            described ? "" : described.error().message);
    m.shards.push_back(std::move(*described));
  }
  const auto written = drydb::write_manifest(folder, m);
  require(bool(written), "drydb sharded manifest", written ? "" : written.error().message);
  const auto published = drydb::publish_generation(path, 1);
  require(bool(published), "drydb sharded publish", published ? "" : published.error().message);
}

// The queries of a shape's sharded table (built by build_sharded_shape).
using ShardedShapeQueries = ShapeQueries<drydb::ShardedTable>;

}  // namespace drydb_bench
