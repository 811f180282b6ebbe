// Secondary indexes on a table of plain byte values: a unique index, a
// non-unique one, a sparse one that skips rows, and the queries they answer.
//
// Table "items": key = item id, value = "category|name|price".
#include <drydb/drydb.h>

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <span>
#include <string>
#include <string_view>

// Field `n` (0-based) of a "category|name|price" value.
std::string_view field(std::span<const std::byte> value, int n) {
  std::string_view s(reinterpret_cast<const char*>(value.data()), value.size());
  for (; n > 0; --n)
    s.remove_prefix(s.find('|') + 1);
  return s.substr(0, s.find('|'));
}

int main(int argc, char** argv) {
  const std::string path = argc > 1 ? argv[1] : "shop.drydb";

  // ---- build ---------------------------------------------------------------
  drydb::DatabaseBuilder builder;
  auto& items = builder.create_table("items", drydb::KeyEncoding::bytes());
  items.append("sword-01", "weapon|Iron Sword|120");
  items.append("sword-02", "weapon|Steel Sword|340");
  items.append("bow-01", "weapon|Short Bow|90");
  items.append("potion-01", "potion|Small Potion|15");
  items.append("potion-02", "potion|Large Potion|60");
  items.append("shield-01", "armor|Wooden Shield|45");
  items.append("map-01", "quest|Old Map|0");  // not for sale

  // Each index function gets a row's (encoded) primary key and value and
  // returns its index key, or std::nullopt to leave the row out.
  items.add_secondary_index("name", /*unique=*/true, drydb::KeyEncoding::bytes(),
                            [](auto /*key*/, auto value) { return field(value, 1); });
  items.add_secondary_index("category", /*unique=*/false, drydb::KeyEncoding::bytes(),
                            [](auto /*key*/, auto value) { return field(value, 0); });
  items.add_secondary_index(  // sparse: items with no price are not in it
      "price", /*unique=*/false, drydb::KeyEncoding::int64(),
      [](auto /*key*/, auto value) -> std::optional<drydb::IndexKey> {
        const std::string_view text = field(value, 2);
        int64_t price = 0;
        std::from_chars(text.data(), text.data() + text.size(), price);
        if (price == 0) return std::nullopt;
        return price;
      });
  if (auto built = builder.build_to_file(path); !built) {
    std::fprintf(stderr, "build failed: %s\n", built.error().message.c_str());
    return 1;
  }

  // ---- open and query -------------------------------------------------------
  auto db = drydb::ReadOnlyDatabase::open(path);
  if (!db) {
    std::fprintf(stderr, "open failed: %s\n", db.error().message.c_str());
    return 1;
  }
  auto table = db->table("items").value();
  auto by_name = table.index("name").value();
  auto by_category = table.index("category").value();
  auto by_price = table.index("price").value();

  // get: the row (primary key and value) of one index key.
  if (auto row = by_name.get("Steel Sword"); row && row->has_value())
    std::printf("name 'Steel Sword' -> %.*s = %.*s\n", static_cast<int>(row->key().size()),
                row->key_str().data(), static_cast<int>(row->value().size()),
                row->value_str().data());

  // get_all: every row of one index key, in primary-key order.
  std::printf("category weapon ->");
  for (auto row : *by_category.get_all("weapon"))
    std::printf(" %.*s", static_cast<int>(row.key.size()), row.key_str().data());
  std::printf("\n");

  // get_range: index-key order (then primary-key order), either direction.
  std::printf("price 50..200, most expensive first ->");
  for (auto row : *by_price.get_range(50, 200, {.order = drydb::SortOrder::descending}))
    std::printf(" %.*s", static_cast<int>(row.key.size()), row.key_str().data());
  std::printf("\n");

  // count_range: two tree descents, whatever the range's size.
  std::printf("items under 100: %llu\n",
              static_cast<unsigned long long>(*by_price.count_range(drydb::unbounded, 100)));

  // prefix: index keys that start with some bytes.
  std::printf("names starting 'S' ->");
  for (auto [key, value] : *by_name.prefix("S")) {
    const std::string_view name = field(value, 1);
    std::printf(" \"%.*s\"", static_cast<int>(name.size()), name.data());
  }
  std::printf("\n");

  // The sparse index holds only the rows its function kept.
  std::printf("rows: %llu, priced: %llu\n", static_cast<unsigned long long>(table.count()),
              static_cast<unsigned long long>(by_price.count()));
  return 0;
}
