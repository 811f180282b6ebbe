// drydb quickstart: build a database file, open it, and query it.
//
// The C# DryDB README's usage, in C++: two tables (byte-string keys and int64
// keys), point lookups, ranges in both orders, counts, prefix search and a
// cursor.
#include <drydb/drydb.h>

#include <cstdint>
#include <cstdio>
#include <string>

int main(int argc, char** argv) {
  const std::string path = argc > 1 ? argv[1] : "quickstart.drydb";

  // ---- build ---------------------------------------------------------------
  drydb::DatabaseBuilder builder({.page_size = 4096});

  auto& items = builder.create_table("items", drydb::KeyEncoding::bytes());  // memcmp order
  items.append("key1", "value1");  // rows may come in any order: the builder sorts
  items.append("key3", "value3");
  items.append("key2", "value2");
  items.append("item:apple", "red").append("item:banana", "yellow");

  auto& quests = builder.create_table("quests", drydb::KeyEncoding::int64());  // numeric order
  for (int64_t id = 1; id <= 1000; ++id)
    quests.append(id, "quest #" + std::to_string(id));

  if (auto built = builder.build_to_file(path); !built) {
    std::fprintf(stderr, "build failed: %s\n", built.error().message.c_str());
    return 1;
  }

  // ---- open and query -------------------------------------------------------
  auto db = drydb::ReadOnlyDatabase::open(path, {.page_cache_bytes = 64 << 20});
  if (!db) {
    std::fprintf(stderr, "open failed: %s\n", db.error().message.c_str());
    return 1;
  }
  auto table = db->table("items").value();

  // Point lookup: a zero-copy view, valid while `v` lives.
  if (auto v = table.get("key1"); v && v->has_value())
    std::printf("get key1 -> %.*s\n", static_cast<int>(v->size()), v->str().data());
  if (auto v = table.get("nope"); v && !v->has_value()) std::printf("get nope -> (not found)\n");

  // Range, both ends inclusive, descending.
  auto range = table.get_range("key1", "key3", {.order = drydb::SortOrder::descending});
  std::printf("range key1..key3 desc (%llu rows):", static_cast<unsigned long long>(range->size()));
  for (auto [key, value] : *range)
    std::printf(" %.*s", static_cast<int>(key.size()), reinterpret_cast<const char*>(key.data()));
  std::printf("\n");

  // Open ends and counts: O(log n) whatever the range's size.
  auto quest_table = db->table("quests").value();
  std::printf("quests 100.. : %llu rows\n",
              static_cast<unsigned long long>(*quest_table.count_range(100, drydb::unbounded)));
  std::printf("quests (100, 200) exclusive: %llu rows\n",
              static_cast<unsigned long long>(*quest_table.count_range(
                  100, 200, {.start_exclusive = true, .end_exclusive = true})));
  if (auto q = quest_table.get(int64_t{42}); q && q->has_value())
    std::printf("get 42 -> %.*s\n", static_cast<int>(q->size()), q->str().data());

  // Prefix search.
  for (auto entry : *table.prefix("item:"))
    std::printf("prefix item: -> %.*s = %.*s\n", static_cast<int>(entry.key.size()),
                entry.key_str().data(), static_cast<int>(entry.value.size()),
                entry.value_str().data());

  // A cursor: seek is a lower bound; next/prev walk across pages.
  auto cursor = table.cursor();
  for (bool ok = cursor.seek("key2"); ok; ok = cursor.next())
    std::printf("cursor -> %.*s\n", static_cast<int>(cursor.key().size()),
                reinterpret_cast<const char*>(cursor.key().data()));

  // A wrong key kind is an error, not a crash.
  auto wrong = quest_table.get("forty-two");
  std::printf("get \"forty-two\" on quests -> error: %s\n", wrong.error().message.c_str());
  return 0;
}
