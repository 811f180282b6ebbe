// drydb with MessagePack values: the C# DryDB README's Person example.
//
// A table of Person values, packed by msgpack-cxx, with a non-unique "age"
// index: build it, open it, read key01 back as a Person, query the index.
#include <drydb/drydb.h>
#include <drydb/msgpack.h>  // needs msgpack-cxx and exceptions

#include <cstdio>
#include <string>

struct Person {
  std::string name;
  int age = 0;
  MSGPACK_DEFINE(name, age)  // stored as the array [name, age]
};

int main(int argc, char** argv) {
  const std::string path = argc > 1 ? argv[1] : "items.drydb";

  // ---- build ---------------------------------------------------------------
  drydb::DatabaseBuilder builder;
  auto items =
      drydb::as_msgpack<Person>(builder.create_table("items", drydb::KeyEncoding::bytes()));
  items.append("key01", Person{"Bob", 22});
  items.append("key02", Person{"Tom", 34});
  items.append("key03", Person{"Ann", 22});
  items.append("key04", Person{"Eve", 41});
  // The index function sees each row decoded as a Person (at build time).
  items.add_secondary_index("age", /*unique=*/false, drydb::KeyEncoding::int64(),
                            [](const Person& person) { return person.age; });
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
  auto table = drydb::as_msgpack<Person>(db->table("items").value());

  // get: result<std::optional<Person>>. A value that is not a Person is an
  // error (errc::corruption) naming the table and key, never a crash.
  auto bob = table.get("key01");
  if (!bob) {
    std::fprintf(stderr, "get failed: %s\n", bob.error().message.c_str());
    return 1;
  }
  if (bob->has_value()) {
    const Person& person = **bob;
    std::printf("get key01 -> %s, %d\n", person.name.c_str(), person.age);
  }

  // Index queries: rows in index-key order (then primary-key order), each
  // value decoded as a Person while iterating.
  auto by_age = table.index("age").value();
  for (auto [key, person] : *by_age.get_all(22))  // key: the row's primary key
    std::printf("age 22 -> %s\n", person.name.c_str());

  auto over30 = by_age.get_range(30, drydb::unbounded);
  for (auto [key, person] : *over30)
    std::printf("age 30+ -> %s, %d\n", person.name.c_str(), person.age);
  if (!over30->status()) {  // a row that failed to read or decode ends the loop early
    std::fprintf(stderr, "range failed: %s\n", over30->status().error().message.c_str());
    return 1;
  }
  return 0;
}
