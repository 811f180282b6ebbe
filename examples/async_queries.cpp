// Asynchronous queries: enqueue lookups, do other work, read the results later or in a
// callback; warm a key range into the page cache in the background.
//
//   async_queries [path]     (default: async_queries.drydb in the current folder)
#include <cstdint>
#include <cstdio>
#include <string>

#include "drydb/drydb.h"

int main(int argc, char** argv) {
  const std::string path = argc > 1 ? argv[1] : "async_queries.drydb";

  drydb::DatabaseBuilder builder({.page_size = 4096});
  auto& quests = builder.create_table("quests", drydb::KeyEncoding::int64());
  for (int64_t id = 1; id <= 10000; ++id)
    quests.append(id, "quest #" + std::to_string(id));
  if (auto st = builder.build_to_file(path); !st) {
    std::fprintf(stderr, "build: %s\n", st.error().to_string().c_str());
    return 1;
  }

  // pread through a page cache, so warming has something to fill. Async queries run on
  // drydb's default pool; pass {.executor = &your_executor} to run them elsewhere.
  auto db = drydb::ReadOnlyDatabase::open(
      path, {.storage = drydb::StorageKind::pread, .page_cache_bytes = 16 << 20});
  if (!db) {
    std::fprintf(stderr, "open: %s\n", db.error().to_string().c_str());
    return 1;
  }
  auto table = db->table("quests").value();

  // Warm the hot range in the background; nobody waits for it.
  table.warm_async(int64_t{1}, int64_t{2000}).detach();

  // Enqueue, then collect: the calling thread never waits on storage until get().
  auto quest = table.get_async(int64_t{42});
  auto range = table.get_range_async(int64_t{100}, int64_t{104});
  auto count = table.count_range_async(int64_t{1}, drydb::unbounded);

  // A callback runs on the thread that completes the query.
  table.get_async(int64_t{7}).then([](drydb::result<drydb::Value> v) {
    if (v && *v) std::printf("callback: %.*s\n", int(v->size()), v->str().data());
  });

  if (auto v = quest.get(); v && *v)
    std::printf("get 42 -> %.*s\n", int(v->size()), v->str().data());
  if (auto r = range.get())
    for (auto [key, value] : *r)
      std::printf("range -> %.*s\n", int(value.size()),
                  reinterpret_cast<const char*>(value.data()));
  if (auto n = count.get()) std::printf("count -> %llu\n", static_cast<unsigned long long>(*n));
  // Destroying `db` now is safe even if the callback has not run yet: queued queries are
  // cancelled, running ones waited for.
  return 0;
}
