// The "manifest" fuzz target: any bytes as a dataset manifest (docs/sharding.md). parse_manifest
// must refuse them with an error or give a manifest that keeps every rule, and such a manifest
// must be a fixed point of writing and reading: manifest_json of it parses back to the same
// JSON text. Each shard's first and last keys of a range-partitioned table route to that shard.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "drydb/dataset.h"
#include "fuzz_support.h"

namespace drydb_fuzz {

inline void run_manifest(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto m = drydb::parse_manifest(text);
  if (!m) {
    const errc code = static_cast<errc>(m.code().value());
    if (code != errc::corruption && code != errc::invalid_argument &&
        code != errc::unsupported_version)
      fail("parse_manifest failed with an unexpected error: " + m.error().message);
    return;
  }
  if (!drydb::check_manifest(*m)) fail("a parsed manifest breaks a rule: " + drydb::check_manifest(*m).error().message);
  const std::string json = drydb::manifest_json(*m);
  auto again = drydb::parse_manifest(json);
  if (!again) fail("a written manifest does not parse: " + again.error().message);
  if (drydb::manifest_json(*again) != json) fail("writing and reading a manifest changes it");
  const auto shards = static_cast<uint32_t>(m->shards.size());
  for (size_t t = 0; t < m->tables.size(); ++t) {
    if (m->tables[t].partitioning.function != drydb::kRangePartitioning) continue;
    for (uint32_t i = 0; i < shards; ++i) {
      const drydb::ShardTable& st = m->shards[i].tables[t];
      if (st.rows == 0) continue;
      if (drydb::shard_of(m->tables[t].partitioning, shards, st.first) != i ||
          drydb::shard_of(m->tables[t].partitioning, shards, st.last) != i)
        fail("a shard's keys route to another shard");
    }
  }
}

}  // namespace drydb_fuzz
