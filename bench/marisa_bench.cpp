// marisa-trie (Debian libmarisa-dev) as an in-memory baseline for text keys: a static,
// succinct trie built once from every key, with the library's default configuration. It maps a
// key to an id of its own choosing (not the key's rank); values sit in a vector by id
// (IdStore, id_store.h), as a user of marisa keeps them.
//
// Gets and misses only: marisa's other searches (common prefixes, predictive search) list keys
// in its own order, not sorted, so they answer neither a scan from a key nor a count of a key
// range as the other stores do. Its full scan before timing is a predictive search for the empty
// prefix (every key).
#include <marisa.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "id_store.h"
#include "shape_workloads.h"
#include "workloads.h"

namespace drydb_bench {
namespace {

class MarisaIndex {
 public:
  explicit MarisaIndex(const std::vector<std::string>& keys) {
    marisa::Keyset keyset;
    for (const std::string& k : keys)
      keyset.push_back(k.data(), k.size());
    trie_.build(keyset);
    require(trie_.num_keys() == keys.size(), "marisa: keys lost in the build");
    ids_.reserve(keys.size());
    for (size_t i = 0; i < keys.size(); ++i)
      ids_.push_back(static_cast<uint32_t>(keyset[i].id()));
  }
  const std::vector<uint32_t>& ids() const { return ids_; }
  // Not thread-safe (one agent per index): the text workloads run on one thread.
  int64_t find(std::string_view key) const {
    agent_.set_query(key.data(), key.size());
    return trie_.lookup(agent_) ? static_cast<int64_t>(agent_.key().id()) : -1;
  }
  template <class F>
  void for_each(F f) const {
    marisa::Agent agent;
    agent.set_query("", 0);
    while (trie_.predictive_search(agent))
      f(agent.key().id());
  }

 private:
  marisa::Trie trie_;
  std::vector<uint32_t> ids_;
  mutable marisa::Agent agent_;
};

}  // namespace

void register_marisa() {
  register_id_store<MarisaIndex>("marisa");
}

}  // namespace drydb_bench
