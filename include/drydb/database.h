// drydb::ReadOnlyDatabase: an open .drydb file.
//
//   auto db = drydb::ReadOnlyDatabase::open("items.drydb").value();
//   auto items = db.table("items").value();
//   if (auto v = items.get("key1"); v && *v) use(v->str());
//
// Opening validates the header and the whole catalog (checksums, lengths,
// page ranges); pages are checked when first read. The database is immutable
// and safe to query from many threads. Tables, Values, Ranges and Cursors
// obtained from it must not outlive it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "drydb/options.h"
#include "drydb/result.h"
#include "drydb/storage.h"
#include "drydb/table.h"

namespace drydb {

struct TreeStats;
class ReadOnlyDatabase;
result<TreeStats> tree_stats(const ReadOnlyDatabase& db, std::string_view table,
                             std::string_view index);  // drydb/stats.h

class ReadOnlyDatabase {
 public:
  // Opens a file read-only through options.storage (mmap by default).
  static result<ReadOnlyDatabase> open(const std::filesystem::path& path,
                                       const OpenOptions& options = {});
  // Reads a database already in memory (an asset pack, a build_to_memory
  // result). The bytes are used in place: the caller keeps them alive and
  // unchanged while the database and its results live.
  static result<ReadOnlyDatabase> open_memory(std::span<const std::byte> bytes,
                                              const OpenOptions& options = {});
  // Reads through a custom Storage (a game engine's loader, say).
  static result<ReadOnlyDatabase> open_storage(std::unique_ptr<Storage> storage,
                                               const OpenOptions& options = {});

  // Moving keeps every table, value and cursor obtained so far valid (they
  // refer to state the database owns, not to the object). A moved-from
  // database may only be destroyed or assigned to.
  ReadOnlyDatabase(ReadOnlyDatabase&&) noexcept;
  ReadOnlyDatabase& operator=(ReadOnlyDatabase&&) noexcept;
  // Cancels the database's queued async queries and waits for its running
  // ones (async.h); assigning over a database does the same first.
  ~ReadOnlyDatabase();

  // The table named `name`; errc::not_found (naming the tables there are) if none.
  result<ReadOnlyTable> table(std::string_view name) const;
  // Every table, in file order.
  std::vector<ReadOnlyTable> tables() const;
  uint32_t page_size() const noexcept;
  // The file's identity (docs/format.md, format 2.4): derived by the builder from the file's
  // rows and options, it seeds every page checksum, so that a page of another file is refused.
  // A dataset's manifest records each shard's. 0 for a file of an earlier format.
  uint64_t identity() const noexcept;

  // Reads every page and checks every invariant of every tree: checksums,
  // page structure, key order within and across pages, separator fences,
  // subtree row counts, sibling links, overflow runs, and that each page of
  // a tree is reached exactly once. errc::corruption names the first fault's
  // table and page. Costs a full read of the file.
  status verify() const;

 private:
  friend result<TreeStats> tree_stats(const ReadOnlyDatabase&, std::string_view, std::string_view);
  explicit ReadOnlyDatabase(std::unique_ptr<detail::DatabaseState> state);
  std::unique_ptr<detail::DatabaseState> state_;
};

}  // namespace drydb
