// abseil's containers as in-memory baselines (Debian libabsl-dev), beside the vector and std::map
// (baseline_bench.cpp), through MapStore (map_store.h):
//
//   btree_map:     absl::btree_map, every workload the vector has. A get is find(), a range or
//                  scan walks from lower_bound(), a count walks from lower_bound(lo) to
//                  upper_bound(hi) (std::distance): the btree keeps no subtree sizes, so a user
//                  counts by walking.
//   flat_hash_map: absl::flat_hash_map, the point-lookup limit: gets and misses only (find()). A
//                  hash has no order, so it answers no range, scan or count.
//
// Text keys are std::string, looked up through abseil's own string_view (Debian's abseil is
// built with ABSL_OPTION_USE_STD_STRING_VIEW 0), which both containers' default comparator and
// hash accept without making a std::string.
#include <absl/container/btree_map.h>
#include <absl/container/flat_hash_map.h>
#include <absl/strings/string_view.h>

#include <cstdint>
#include <string>

#include "map_store.h"
#include "shape_workloads.h"
#include "workloads.h"

namespace drydb_bench {
namespace {

using AbslBtree = MapStore<absl::btree_map<int64_t, std::string>,
                           absl::btree_map<std::string, std::string>, absl::string_view>;
using AbslHash = MapStore<absl::flat_hash_map<int64_t, std::string>,
                          absl::flat_hash_map<std::string, std::string>, absl::string_view>;

}  // namespace

void register_absl() {
  register_reads<AbslBtree>("btree_map");
  register_reads<AbslHash>("flat_hash_map");
}

}  // namespace drydb_bench
