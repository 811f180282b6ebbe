// drydb_sharded: each key shape's table as a dataset of 8 range shards of equal rows
// (docs/sharding.md), read through drydb::ShardedDatabase: what routing a get by the split
// keys, and counting a range from the manifest's per-shard rows, cost beside one file holding
// the same rows (the "drydb" store). The key-shape workloads of shape_workloads.h, but GetMany
// (a dataset has no batched get).
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "drydb/sharded.h"
#include "shape_workloads.h"
#include "sharded_shape.h"
#include "workloads.h"

namespace drydb_bench {

namespace {

inline constexpr uint32_t kShards = 8;

// The dataset of shape s, opened once (build_sharded_shape).
const drydb::ShardedDatabase& sharded_shape(const Shape& s) {
  static auto* open = new std::map<const Shape*, std::unique_ptr<drydb::ShardedDatabase>>;
  std::unique_ptr<drydb::ShardedDatabase>& db = (*open)[&s];
  if (!db) {
    const auto path = scratch_dir() / ("sharded-" + s.name);
    build_sharded_shape(s, path, kShards);
    auto opened = drydb::ShardedDatabase::open(path);
    require(opened.has_value(), "drydb sharded open", opened ? "" : opened.error().message);
    db = std::make_unique<drydb::ShardedDatabase>(std::move(*opened));
  }
  return *db;
}

struct DrydbSharded {
  class ShapeReader : public ShardedShapeQueries {
   public:
    explicit ShapeReader(const Shape& shape)
        : ShardedShapeQueries(shape, sharded_shape(shape).table("items").value()),
          db_(sharded_shape(shape)) {}
    // Every shard's file.
    uint64_t file_bytes() const {
      uint64_t bytes = 0;
      for (size_t i = 0; i < db_.shard_count(); ++i)
        bytes += size_on_disk(db_.shard_path(i));
      return bytes;
    }

   private:
    const drydb::ShardedDatabase& db_;
  };
};

}  // namespace

void register_sharded() {
  register_shapes<DrydbSharded>("drydb_sharded");
}

}  // namespace drydb_bench
