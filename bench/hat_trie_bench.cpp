// The HAT-trie (Debian libhat-trie-dev, the C library hat-trie.h) as an in-memory baseline for
// text keys: a burst trie whose leaves are cache-conscious hash tables. Each key's slot holds
// its row number, the id of its value in a vector (IdStore, id_store.h).
//
// Gets and misses only: the library has no search by order (no lower bound), only an iterator
// over every key, sorted on request by sorting the whole trie's keys; a scan from a key or a
// count of a key range would be a full walk. Its full scan before timing is that iterator,
// unsorted.
#include <hat-trie/hat-trie.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "id_store.h"
#include "shape_workloads.h"
#include "workloads.h"

namespace drydb_bench {
namespace {

class HatTrieIndex {
 public:
  explicit HatTrieIndex(const std::vector<std::string>& keys) : trie_(hattrie_create()) {
    ids_.reserve(keys.size());
    for (size_t i = 0; i < keys.size(); ++i) {
      *hattrie_get(trie_, keys[i].data(), keys[i].size()) = i;
      ids_.push_back(static_cast<uint32_t>(i));
    }
    require(hattrie_size(trie_) == keys.size(), "hat-trie: keys lost in the build");
  }
  HatTrieIndex(const HatTrieIndex&) = delete;
  HatTrieIndex& operator=(const HatTrieIndex&) = delete;
  ~HatTrieIndex() { hattrie_free(trie_); }

  const std::vector<uint32_t>& ids() const { return ids_; }
  int64_t find(std::string_view key) const {
    // hattrie_tryget only reads the trie, though it takes it non-const.
    const value_t* v = hattrie_tryget(trie_, key.data(), key.size());
    return v ? static_cast<int64_t>(*v) : -1;
  }
  template <class F>
  void for_each(F f) const {
    hattrie_iter_t* it = hattrie_iter_begin(trie_, /*sorted=*/false);
    for (; !hattrie_iter_finished(it); hattrie_iter_next(it))
      f(static_cast<size_t>(*hattrie_iter_val(it)));
    hattrie_iter_free(it);
  }

 private:
  hattrie_t* trie_;
  std::vector<uint32_t> ids_;  // row i's id is i
};

}  // namespace

void register_hat_trie() {
  register_id_store<HatTrieIndex>("hat_trie");
}

}  // namespace drydb_bench
