// DatabaseState's bookkeeping that lives under locks: the page cache's eviction state and the
// asynchronous queries' hub. Out of line (db_state.h holds a pointer), so that the public headers
// need no <mutex>; only the cold paths reach it (a page cache miss, an async query's start).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace drydb::detail {

class AsyncHub;

struct LockedState {
  // The page cache: guards the fields below and every miss.
  std::mutex mu;
  size_t used = 0;              // bytes of evictable resident pages
  std::vector<uint64_t> clock;  // evictable resident pages
  size_t hand = 0;

  // Asynchronous queries: the hub, made on first use (src/read/async.cpp).
  std::mutex async_mu;
  std::shared_ptr<AsyncHub> async_hub;
};

}  // namespace drydb::detail
