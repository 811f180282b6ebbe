// ShardedDatabase against a model: a dataset built here shard by shard (range-partitioned tables
// with an empty shard and awkward keys, a hash-partitioned table), its manifest written from
// describe_shard and published; then every get, count, count_range, get_range (every bound
// kind, both orders) and prefix answers as one sorted map of all the rows does. And a dataset
// whose shards disagree with the manifest is refused.
#include "drydb/sharded.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "drydb/builder.h"
#include "drydb/detail/format.h"
#include "drydb/live_dataset.h"
#include "generation_builder.h"
#include "support/random.h"
#include "support/suite.h"

namespace {

namespace fs = std::filesystem;
using namespace drydb_test;
using drydb::errc;
using drydb::KeyEncoding;

// The sample's tables for `shards` shards (2 to 5): range tables take the first shards - 1 of
// their split keys.
std::vector<ShardedTable> sample_tables(uint32_t shards) {
  Rng rng(7);
  ShardedTable words = sharded_table("words", KeyEncoding::bytes());
  // Shared prefixes, NUL bytes, a key and the same key plus a NUL, high bytes, the empty key.
  const std::string alphabet(
      "\x00\x01"
      "ab\xc3\xbc\xfe\xff",
      8);
  for (int i = 0; i < 3000; ++i) {
    std::string k;
    const int n = static_cast<int>(rng() % 7);
    for (int j = 0; j < n; ++j)
      k += alphabet[rng() % alphabet.size()];
    words.rows[k] = "w" + std::to_string(i);
  }
  words.rows["ab"] = "ab";
  words.rows[std::string("ab\0", 3)] = "ab+nul";
  // Splits: shard 2 ("b" .. "b\x01": "b" and the keys "b\x00...") holds nothing.
  words.partitioning.splits = {std::string("\x01", 1), "b", "b\x01", "\xfe"};
  words.rows.erase(words.rows.lower_bound("b"), words.rows.lower_bound("b\x01"));
  ShardedTable ids = sharded_table("ids", KeyEncoding::int64());
  for (int64_t v : {INT64_MIN, INT64_MIN + 1, int64_t{-1}, int64_t{0}, INT64_MAX})
    ids.rows[int64_key(v)] = "x";
  for (int i = 0; i < 3000; ++i)
    ids.rows[int64_key(static_cast<int64_t>(rng() % 100000) - 50000)] = "i" + std::to_string(i);
  ids.partitioning.splits = {int64_key(-20000), int64_key(0), int64_key(1), int64_key(40000)};
  ShardedTable hashed =
      sharded_table("hashed", KeyEncoding::bytes(), {std::string(drydb::kHashPartitioning), {}});
  for (int i = 0; i < 2000; ++i)
    hashed.rows["h" + std::to_string(rng() % 100000)] = std::to_string(i);
  words.partitioning.splits.resize(shards - 1);
  ids.partitioning.splits.resize(shards - 1);
  // Indexes: non-unique ones whose keys repeat in every shard, unique ones across the dataset.
  words.indexes = {
      make_index("by_length", false, KeyEncoding::int64(),
                 [](const std::string& k, const std::string&) -> std::optional<std::string> {
                   return int64_key(static_cast<int64_t>(k.size()));
                 }),
      make_index("by_value", true, KeyEncoding::bytes(),
                 [](const std::string&, const std::string& v) -> std::optional<std::string> {
                   return v;
                 })};
  ids.indexes = {
      make_index("by_complement", true, KeyEncoding::int64(),
                 [](const std::string& k, const std::string&) -> std::optional<std::string> {
                   const int64_t v = drydb::ordered_to_int64(
                       drydb::detail::load_be64(reinterpret_cast<const std::byte*>(k.data())));
                   return int64_key(~v);  // -v - 1: no overflow at INT64_MIN
                 })};
  hashed.indexes = {
      make_index("by_last_digit", false, KeyEncoding::bytes(),
                 [](const std::string&, const std::string& v) -> std::optional<std::string> {
                   if (v.back() == '7') return std::nullopt;  // rows without an entry
                   return std::string("d") + v.back();
                 })};
  return {words, ids, hashed};
}

std::vector<std::pair<std::string, std::string>> rows_of(drydb::ShardedRange& r) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const drydb::Entry& e : r)
    out.emplace_back(std::string(e.key_str()), std::string(e.value_str()));
  return out;
}

// Builds generation 1 of the five-shard sample into `dir`; returns its tables.
std::vector<ShardedTable> build_five_shard_sample(const TempDir& dir) {
  auto tables = sample_tables(5);
  build_generation(dir.path(), 1, tables, 5);
  return tables;
}

using Rows = std::vector<std::pair<std::string, std::string>>;

Rows model_range(const ShardedTable& t, const std::string* start, const std::string* end,
                 const drydb::RangeOptions& o) {
  Rows out;
  for (const auto& [k, v] : t.rows) {
    if (start && (o.start_exclusive ? !(*start < k) : k < *start)) continue;
    if (end && (o.end_exclusive ? !(k < *end) : *end < k)) continue;
    out.emplace_back(k, v);
  }
  if (o.order == drydb::SortOrder::descending) std::reverse(out.begin(), out.end());
  return out;
}

TEST(ShardedDatabase, AnswersAsOneTableOfAllTheRows) {
  TempDir dir;
  const auto tables = build_five_shard_sample(dir);
  auto ds = drydb::ShardedDatabase::open(dir.path());
  ASSERT_TRUE(ds) << ds.error().message;
  EXPECT_EQ(ds->generation(), 1u);
  EXPECT_EQ(ds->shard_count(), 5u);
  EXPECT_EQ(ds->tables().size(), 3u);
  EXPECT_EQ(ds->table("nope").code(), errc::not_found);
  Rng rng(11);
  for (const ShardedTable& spec : tables) {
    SCOPED_TRACE(spec.name);
    auto t = ds->table(spec.name);
    ASSERT_TRUE(t);
    EXPECT_EQ(t->count(), spec.rows.size());
    // Every row, and keys between and beyond them.
    std::vector<std::string> probes;
    for (const auto& [k, v] : spec.rows) {
      auto got = t->get(key_of(spec, k));
      ASSERT_TRUE(got && *got) << drydb::escape_bytes(std::as_bytes(std::span(k.data(), k.size())));
      EXPECT_EQ(got->str(), v);
      if (rng() % 40 == 0) probes.push_back(k);
    }
    for (int i = 0; i < 60; ++i) {
      std::string k = spec.enc.kind() == drydb::KeyKind::int64
                          ? int64_key(static_cast<int64_t>(rng() % 300000) - 150000)
                          : std::string(1 + rng() % 3, static_cast<char>("\x00"
                                                                         "a\xff"[rng() % 3]));
      probes.push_back(k);
      auto got = t->get(key_of(spec, k));
      ASSERT_TRUE(got);
      EXPECT_EQ(static_cast<bool>(*got), spec.rows.count(k) == 1);
    }
    for (const std::string& split : spec.partitioning.splits)
      probes.push_back(split);
    // Every pair of bounds (absent ones too), every bound kind, both orders.
    std::vector<const std::string*> bounds{nullptr};
    for (const std::string& p : probes)
      bounds.push_back(&p);
    for (size_t a = 0; a < bounds.size(); a += 3)
      for (size_t b = 0; b < bounds.size(); b += 2) {
        const std::string *s = bounds[a], *e = bounds[b];
        for (int mode = 0; mode < 8; ++mode) {
          const drydb::RangeOptions o{
              .start_exclusive = (mode & 1) != 0,
              .end_exclusive = (mode & 2) != 0,
              .order = (mode & 4) ? drydb::SortOrder::descending : drydb::SortOrder::ascending};
          const drydb::KeyBound sb =
              s ? drydb::KeyBound(key_of(spec, *s)) : drydb::KeyBound(drydb::unbounded);
          const drydb::KeyBound eb =
              e ? drydb::KeyBound(key_of(spec, *e)) : drydb::KeyBound(drydb::unbounded);
          auto range = t->get_range(sb, eb, o);
          auto count = t->count_range(sb, eb, o);
          if (s && e && *e < *s) {
            EXPECT_EQ(range.code(), errc::invalid_argument);
            EXPECT_EQ(count.code(), errc::invalid_argument);
            continue;
          }
          ASSERT_TRUE(range) << range.error().message;
          ASSERT_TRUE(count) << count.error().message;
          const Rows want = model_range(spec, s, e, o);
          EXPECT_EQ(range->size(), want.size());
          EXPECT_EQ(*count, want.size());
          EXPECT_EQ(rows_of(*range), want);
          EXPECT_TRUE(range->status());
        }
      }
    if (spec.enc.kind() != drydb::KeyKind::bytes) continue;
    for (const std::string& p :
         {std::string(), std::string("a"), std::string("ab"), std::string("\xff", 1),
          std::string("\xff\xff", 2), std::string("b"), std::string("h1")}) {
      for (auto order : {drydb::SortOrder::ascending, drydb::SortOrder::descending}) {
        Rows want;
        for (const auto& [k, v] : spec.rows)
          if (k.compare(0, p.size(), p) == 0) want.emplace_back(k, v);
        if (order == drydb::SortOrder::descending) std::reverse(want.begin(), want.end());
        auto r = t->prefix(p, order);
        ASSERT_TRUE(r);
        EXPECT_EQ(r->size(), want.size());
        EXPECT_EQ(rows_of(*r), want) << p;
      }
    }
  }
}

// A range reads the shards after its start's when its iteration reaches them, and a part that
// fails there ends the iteration with its error. A leaf of shard 3 is corrupted, one that the
// open's checks (each shard's first and last keys) do not read but that a walk of a table's rows
// does; then a range over every row of each table, in both orders, yields the model's rows in
// order up to the bad page, and stops there with status() holding the corruption.
// Each shard opens with the storage the options name (mmap maps the shard files; pread and memory
// leave no mapping of them): every kind answers every row, across the shards, and the range over
// all of them.
TEST(ShardedDatabase, OpensItsShardsWithEveryStorageKind) {
  TempDir dir;
  const auto tables = build_five_shard_sample(dir);
  for (auto kind :
       {drydb::StorageKind::mmap, drydb::StorageKind::pread, drydb::StorageKind::memory}) {
    SCOPED_TRACE(static_cast<int>(kind));
    auto ds = drydb::ShardedDatabase::open(dir.path(), {.open = {.storage = kind}});
    ASSERT_TRUE(ds) << ds.error().message;
    int mapped_shard_files = 0;
    std::ifstream maps("/proc/self/maps");
    for (std::string line; std::getline(maps, line);)
      mapped_shard_files += line.find(dir.path().string()) != std::string::npos;
    EXPECT_EQ(mapped_shard_files, kind == drydb::StorageKind::mmap ? 5 : 0);
    for (const ShardedTable& spec : tables) {
      auto t = ds->table(spec.name);
      ASSERT_TRUE(t);
      for (const auto& [k, v] : spec.rows) {
        auto got = t->get(key_of(spec, k));
        ASSERT_TRUE(got && *got) << spec.name;
        EXPECT_EQ(got->str(), v);
      }
      auto all = t->get_range(drydb::unbounded, drydb::unbounded);
      ASSERT_TRUE(all);
      const uint64_t rows = count_rows(*all);
      EXPECT_TRUE(all->status());
      EXPECT_EQ(rows, spec.rows.size()) << spec.name;
    }
  }
}

// Damages each leaf of shard file `file` (of build_generation's 512-byte pages) in turn, one byte
// in its middle, and calls damaged(page) with the file so, until damaged returns false.
template <class Damaged>
void damage_each_leaf(const fs::path& file, Damaged damaged) {
  constexpr size_t kPage = 512;
  const std::vector<std::byte> original = read_file(file);
  for (size_t at = kPage; at + kPage <= original.size(); at += kPage) {
    if (original[at + drydb::detail::page::kTypeOff] !=
        static_cast<std::byte>(drydb::detail::PageType::leaf))
      continue;
    std::vector<std::byte> bad = original;
    bad[at + kPage / 2] ^= std::byte{0x5a};
    ASSERT_TRUE(write_file(file, bad)) << file;
    if (!damaged(at / kPage)) return;
  }
}

TEST(ShardedDatabase, ABadPageOfALaterShardEndsTheIterationWithItsError) {
  TempDir dir;
  const auto tables = build_five_shard_sample(dir);
  const fs::path file = dir / "gen-1" / "shard-3.drydb";
  // Ranges over every row of each table in both orders, with no start bound and from the
  // table's first key (its shard's part then descended): the tables whose ranges ended on an
  // error. Each range yields a run of the model's rows, all of them when it ends without one;
  // after an error, an iteration that stops at its first row reports none.
  auto failed_walks = [&](const drydb::ShardedDatabase& ds) {
    std::vector<std::string> failed;
    for (const ShardedTable& spec : tables)
      for (bool from_first_key : {false, true})
        for (auto order : {drydb::SortOrder::ascending, drydb::SortOrder::descending}) {
          const drydb::RangeOptions o{.order = order};
          const std::string& first = spec.rows.begin()->first;
          const drydb::KeyBound start = from_first_key ? drydb::KeyBound(key_of(spec, first))
                                                       : drydb::KeyBound(drydb::unbounded);
          auto range = ds.table(spec.name)->get_range(start, drydb::unbounded, o);
          EXPECT_TRUE(range) << range.error().message;  // the shard is read when reached
          if (!range) continue;
          const Rows want = model_range(spec, nullptr, nullptr, o);
          const Rows got = rows_of(*range);
          EXPECT_TRUE(got.size() <= want.size() && std::equal(got.begin(), got.end(), want.begin()))
              << spec.name;
          if (range->status()) {
            EXPECT_EQ(got.size(), want.size()) << spec.name;
            continue;
          }
          EXPECT_EQ(range->status().code(), errc::corruption) << range->status().error().message;
          EXPECT_LT(got.size(), want.size());
          failed.push_back(spec.name);
          for (const drydb::Entry& e : *range) {
            EXPECT_EQ(std::string(e.key_str()), want.front().first);
            break;
          }
          EXPECT_TRUE(range->status()) << "an error of the iteration before";
        }
    return failed;
  };
  std::vector<std::string> failed;
  damage_each_leaf(file, [&](uint64_t) {
    auto ds = drydb::ShardedDatabase::open(dir.path());
    if (ds) failed = failed_walks(*ds);  // none for a leaf of an index
    return failed.empty();
  });
  // The bad page's table, a range-partitioned one (its parts concatenated), its four ranges.
  ASSERT_EQ(failed.size(), 4u) << "no leaf of shard 3 fails a walk and lets the dataset open";
  EXPECT_EQ(std::count(failed.begin(), failed.end(), failed[0]), 4);
  EXPECT_NE(failed[0], "hashed");
}

// Every error a damaged shard gives names the shard's file ("DIR/gen-1/shard-3.drydb: table
// 'words', page 7: checksum mismatch"): each leaf of shard 3 (of the tables and of their indexes)
// is damaged in turn, and the dataset opened (with mmap and with pread), verified, and queried
// with every get, counts, ranges and prefixes in both orders, cursor walks and index lookups and
// ranges; whatever fails says which file. ShardedDatabase::verify names it too; the shard's own
// verify() does not.
TEST(ShardedDatabase, ErrorsOfADamagedShardNameItsFile) {
  TempDir dir;
  const auto tables = build_five_shard_sample(dir);
  const fs::path file = dir / "gen-1" / "shard-3.drydb";
  const std::string named = file.string() + ": ";
  std::set<std::string> failed;  // the kinds of call that met the damage
  const auto expect_named = [&](const std::string& what, const drydb::Error& e) {
    failed.insert(what);
    EXPECT_EQ(e.code, errc::corruption) << what << ": " << e.message;
    EXPECT_TRUE(e.message.starts_with(named)) << what << ": " << e.message;
    EXPECT_NE(e.message.find(", page "), std::string::npos) << what << ": " << e.message;
  };
  const auto check = [&](const std::string& what, const drydb::status& st) {
    if (!st) expect_named(what, st.error());
  };
  const auto query_all = [&](const drydb::ShardedDatabase& ds) {
    for (const ShardedTable& spec : tables) {
      auto t = ds.table(spec.name);
      ASSERT_TRUE(t);
      size_t row = 0;
      for (const auto& [k, v] : spec.rows) {
        auto got = t->get(key_of(spec, k));
        if (!got) expect_named("get", got.error());
        if (row++ % 5 == 0) {
          auto n = t->count_range(key_of(spec, k), key_of(spec, k));
          if (!n) expect_named("count_range", n.error());
        }
      }
      for (auto order : {drydb::SortOrder::ascending, drydb::SortOrder::descending}) {
        auto r = t->get_range(drydb::unbounded, drydb::unbounded, {.order = order});
        ASSERT_TRUE(r);
        (void)rows_of(*r);
        check("get_range", r->status());
        if (spec.enc.kind() == drydb::KeyKind::bytes) {
          auto p = t->prefix("", order);
          ASSERT_TRUE(p);
          (void)rows_of(*p);
          check("prefix", p->status());
        }
      }
      if (auto c = t->cursor()) {
        for (bool ok = c->first(); ok; ok = c->next())
          (void)c->value();
        check("cursor", c->status());
        for (bool ok = c->last(); ok; ok = c->prev())
          (void)c->value();
        check("cursor", c->status());
      }
      for (const IndexModel& ix : spec.indexes) {
        auto index = t->index(ix.name);
        ASSERT_TRUE(index) << index.error().message;
        auto all = index->get_range(drydb::unbounded, drydb::unbounded);
        ASSERT_TRUE(all);
        for (const drydb::ShardedIndexEntry e : *all)
          (void)e;
        check("index range", all->status());
        row = 0;
        for (const auto& [k, v] : spec.rows) {
          const auto ik = ix.key_of(k, v);
          if (!ik || row++ % 3 != 0) continue;
          auto got = index->get(typed_key(ix.enc.kind(), *ik));
          if (!got) expect_named("index get", got.error());
        }
      }
    }
  };
  damage_each_leaf(file, [&](uint64_t page) {
    for (auto kind : {drydb::StorageKind::mmap, drydb::StorageKind::pread}) {
      SCOPED_TRACE("page " + std::to_string(page) + ", storage " +
                   std::to_string(static_cast<int>(kind)));
      auto ds = drydb::ShardedDatabase::open(dir.path(), {.open = {.storage = kind}});
      if (!ds) {
        expect_named("open", ds.error());
        continue;
      }
      const drydb::status verified = ds->verify();
      if (verified) {
        ADD_FAILURE() << "the damage is not found";
        return false;
      }
      expect_named("verify", verified.error());
      const drydb::status own = ds->shard(3).verify();
      if (own) {
        ADD_FAILURE() << "the shard's own verify() does not find the damage";
        return false;
      }
      EXPECT_EQ(verified.error().message, named + own.error().message);
      query_all(*ds);
    }
    return true;
  });
  EXPECT_EQ(failed, (std::set<std::string>{"open", "verify", "get", "count_range", "get_range",
                                           "prefix", "cursor", "index range", "index get"}));
}

// A cursor walks a range-partitioned table across its shards (an empty one among them) as one
// table: forward and backward walks, seeks to present and absent keys and to ranks, and steps
// both ways from every kind of position, each against the sorted rows of all shards.
TEST(ShardedDatabase, CursorsCrossShardsAsOneTable) {
  TempDir dir;
  const auto tables = build_five_shard_sample(dir);
  auto ds = drydb::ShardedDatabase::open(dir.path());
  ASSERT_TRUE(ds) << ds.error().message;
  Rng rng(13);
  for (const ShardedTable& spec : tables) {
    SCOPED_TRACE(spec.name);
    auto t = ds->table(spec.name);
    ASSERT_TRUE(t);
    auto c = t->cursor();
    if (spec.partitioning.function == drydb::kHashPartitioning) {
      EXPECT_EQ(c.code(), errc::invalid_argument);
      continue;
    }
    ASSERT_TRUE(c) << c.error().message;
    const std::vector<std::pair<std::string, std::string>> rows(spec.rows.begin(), spec.rows.end());
    const auto at = [&](const drydb::ShardedCursor& cur) {
      return std::make_pair(
          std::string(reinterpret_cast<const char*>(cur.key().data()), cur.key().size()),
          std::string(reinterpret_cast<const char*>(cur.value().data()), cur.value().size()));
    };
    // Whole walks, both ways; the shard never goes back on a forward walk.
    Rows walked;
    uint32_t shard = 0;
    for (bool ok = c->first(); ok; ok = c->next()) {
      ASSERT_EQ(c->rank(), walked.size());
      ASSERT_GE(c->shard(), shard);
      shard = c->shard();
      walked.push_back(at(*c));
    }
    EXPECT_TRUE(c->status());
    EXPECT_EQ(walked, rows);
    EXPECT_FALSE(c->next());  // past the end it stays invalid
    Rows back;
    for (bool ok = c->last(); ok; ok = c->prev()) {
      ASSERT_EQ(c->rank(), rows.size() - 1 - back.size());
      back.push_back(at(*c));
    }
    std::reverse(back.begin(), back.end());
    EXPECT_EQ(back, rows);
    if (spec.name == "words") {  // the walks above crossed an empty shard
      EXPECT_EQ(ds->manifest().shards[2].tables[&spec - tables.data()].rows, 0u);
    }
    // Seeks: every split key, keys around every shard's first and last row, random keys.
    std::vector<std::string> probes(spec.partitioning.splits.begin(),
                                    spec.partitioning.splits.end());
    for (const auto& sh : ds->manifest().shards) {
      const drydb::ShardTable& st = sh.tables[&spec - tables.data()];
      if (st.rows == 0) continue;
      probes.push_back(st.first);
      probes.push_back(st.last);
      probes.push_back(st.last + std::string(1, '\0'));
    }
    for (int i = 0; i < 200; ++i)
      probes.push_back(spec.enc.kind() == drydb::KeyKind::int64
                           ? int64_key(static_cast<int64_t>(rng() % 300000) - 150000)
                           : std::string(1 + rng() % 3, static_cast<char>("\x00"
                                                                          "a\xff"[rng() % 3])));
    for (const std::string& p : probes) {
      if (spec.enc.kind() == drydb::KeyKind::int64 && p.size() != 8) continue;
      const size_t want = static_cast<size_t>(
          std::lower_bound(rows.begin(), rows.end(), std::make_pair(p, std::string())) -
          rows.begin());
      const bool present = want < rows.size() && rows[want].first == p;
      ASSERT_EQ(c->seek(key_of(spec, p)), want < rows.size());
      if (want < rows.size()) {
        EXPECT_EQ(c->rank(), want);
        EXPECT_EQ(at(*c), rows[want]);
        // A step each way from there crosses into the neighbouring shard when it must.
        if (c->prev()) {
          EXPECT_EQ(at(*c), rows[want - 1]);
        } else {
          EXPECT_EQ(want, 0u);
        }
      }
      EXPECT_EQ(c->seek_exact(key_of(spec, p)), present);
    }
    // Ranks, and a few steps both ways from each.
    for (int i = 0; i < 300; ++i) {
      size_t r = rng() % (rows.size() + 2);
      ASSERT_EQ(c->seek_rank(r), r < rows.size());
      if (r >= rows.size()) continue;
      EXPECT_EQ(at(*c), rows[r]);
      for (int step = 0; step < 6; ++step) {
        const bool forward = rng() % 2 == 0;
        const bool ok = forward ? c->next() : c->prev();
        if (!ok) {
          EXPECT_EQ(forward ? r + 1 : r, forward ? rows.size() : 0u);
          break;
        }
        r = forward ? r + 1 : r - 1;
        ASSERT_EQ(c->rank(), r);
        EXPECT_EQ(at(*c), rows[r]);
      }
    }
    // A key of the wrong kind: invalid, with the error.
    const drydb::Key wrong =
        spec.enc.kind() == drydb::KeyKind::int64 ? drydb::Key("x") : drydb::Key(int64_t{1});
    EXPECT_FALSE(c->seek(wrong));
    EXPECT_EQ(c->status().code(), errc::wrong_key_type);
  }
}

// Secondary indexes across shards answer as one index over all the rows: entries in (index
// key, primary key) order, get() the first row by primary key, counts, ranges (every bound
// kind, both orders) and prefixes, for unique and non-unique indexes of range- and
// hash-partitioned tables.
TEST(ShardedDatabase, IndexesAnswerAsOneIndexOfAllTheRows) {
  TempDir dir;
  const auto tables = build_five_shard_sample(dir);
  auto ds = drydb::ShardedDatabase::open(dir.path());
  ASSERT_TRUE(ds) << ds.error().message;
  using Entries = std::vector<std::tuple<std::string, std::string, std::string>>;
  Rng rng(17);
  for (const ShardedTable& spec : tables) {
    auto t = ds->table(spec.name);
    ASSERT_TRUE(t);
    EXPECT_EQ(t->indexes().size(), spec.indexes.size());
    EXPECT_EQ(t->index("nope").code(), errc::not_found);
    for (const IndexModel& ix : spec.indexes) {
      SCOPED_TRACE(spec.name + "." + ix.name);
      Entries model;
      for (const auto& [k, v] : spec.rows)
        if (auto ik = ix.key_of(k, v)) model.emplace_back(*ik, k, v);
      std::sort(model.begin(), model.end());
      auto index = t->index(ix.name);
      ASSERT_TRUE(index) << index.error().message;
      EXPECT_EQ(index->unique(), ix.unique);
      EXPECT_EQ(index->count(), model.size());
      const auto entries = [](drydb::ShardedIndexRange& r) {
        Entries out;
        for (const drydb::ShardedIndexEntry e : r)
          out.emplace_back(to_string(e.index_key), to_string(e.key), to_string(e.value));
        return out;
      };
      // get(): every index key there is, and keys that are not.
      std::vector<std::string> probes;
      for (size_t i = 0; i < model.size(); i += 1 + rng() % (model.size() / 60 + 1))
        probes.push_back(std::get<0>(model[i]));
      for (int i = 0; i < 20; ++i)
        probes.push_back(ix.enc.kind() == drydb::KeyKind::int64
                             ? int64_key(static_cast<int64_t>(rng() % 200) - 100)
                             : std::string(1 + rng() % 3, "dw\xff"[rng() % 3]));
      for (const std::string& p : probes) {
        auto row = index->get(typed_key(ix.enc.kind(), p));
        ASSERT_TRUE(row) << row.error().message;
        const auto first = std::lower_bound(model.begin(), model.end(),
                                            std::make_tuple(p, std::string(), std::string()));
        const bool present = first != model.end() && std::get<0>(*first) == p;
        ASSERT_EQ(row->has_value(), present);
        if (present) {
          EXPECT_EQ(to_string(row->key()), std::get<1>(*first));
          EXPECT_EQ(to_string(row->value()), std::get<2>(*first));
        }
        auto all = index->get_all(typed_key(ix.enc.kind(), p));
        ASSERT_TRUE(all);
        Entries want;
        for (auto it = first; it != model.end() && std::get<0>(*it) == p; ++it)
          want.push_back(*it);
        EXPECT_EQ(all->size(), want.size());
        EXPECT_EQ(entries(*all), want);
      }
      // Ranges between pairs of probes and unbounded ends, every bound kind, both orders.
      std::vector<const std::string*> bounds{nullptr};
      for (size_t i = 0; i < probes.size(); i += probes.size() / 12 + 1)
        bounds.push_back(&probes[i]);
      for (const std::string* s : bounds)
        for (const std::string* e : bounds) {
          if (s && e && *e < *s) continue;
          for (int mode = 0; mode < 8; ++mode) {
            const drydb::RangeOptions o{
                .start_exclusive = (mode & 1) != 0,
                .end_exclusive = (mode & 2) != 0,
                .order = (mode & 4) ? drydb::SortOrder::descending : drydb::SortOrder::ascending};
            Entries want;
            for (const auto& en : model) {
              const std::string& k = std::get<0>(en);
              if (s && (o.start_exclusive ? !(*s < k) : k < *s)) continue;
              if (e && (o.end_exclusive ? !(k < *e) : *e < k)) continue;
              want.push_back(en);
            }
            if (o.order == drydb::SortOrder::descending) std::reverse(want.begin(), want.end());
            const drydb::KeyBound sb = s ? drydb::KeyBound(typed_key(ix.enc.kind(), *s))
                                         : drydb::KeyBound(drydb::unbounded);
            const drydb::KeyBound eb = e ? drydb::KeyBound(typed_key(ix.enc.kind(), *e))
                                         : drydb::KeyBound(drydb::unbounded);
            auto range = index->get_range(sb, eb, o);
            ASSERT_TRUE(range) << range.error().message;
            auto count = index->count_range(sb, eb, o);
            ASSERT_TRUE(count);
            EXPECT_EQ(*count, want.size());
            EXPECT_EQ(range->size(), want.size());
            EXPECT_EQ(entries(*range), want);
            EXPECT_TRUE(range->status());
            EXPECT_EQ(entries(*range), want);  // iterating again starts over
          }
        }
      if (ix.enc.kind() != drydb::KeyKind::bytes) continue;
      for (const std::string& p : {std::string(), std::string("d"), std::string("d3"),
                                   std::string("w1"), std::string("w12"), std::string("\xff", 1)})
        for (auto order : {drydb::SortOrder::ascending, drydb::SortOrder::descending}) {
          Entries want;
          for (const auto& en : model)
            if (std::get<0>(en).compare(0, p.size(), p) == 0) want.push_back(en);
          if (order == drydb::SortOrder::descending) std::reverse(want.begin(), want.end());
          auto r = index->prefix(p, order);
          ASSERT_TRUE(r);
          EXPECT_EQ(entries(*r), want) << p;
        }
    }
  }
}

TEST(ShardedDatabase, RoutesKeysAsThePartitionFunction) {
  // ShardedTable::shard_of (which gets, cursors and ranges route by) against drydb::shard_of, the
  // manifest's function, for every key, every split key and their neighbours: a byte more or
  // less, a NUL appended, the last byte raised, heads that tie (keys sharing 8 bytes).
  TempDir dir;
  auto tables = sample_tables(5);
  for (int i = 0; i < 50; ++i)
    tables[0].rows["shared8b" + std::string(static_cast<size_t>(i % 3), '\0') + std::to_string(i)] =
        "t" + std::to_string(i);
  tables[0].partitioning.splits = {std::string("\x01", 1), "shared8b",
                                   std::string("shared8b\0\x05", 10), "shared8b4"};
  // Split keys sharing 24 bytes (URLs), and keys below, inside and above that prefix, and
  // keys that are a part of it.
  ShardedTable urls = sharded_table("urls", KeyEncoding::bytes());
  const std::string site = "https://example.org/items/";
  for (int i = 0; i < 400; i += 3)
    urls.rows[site + std::to_string(1000 + i)] = "u";
  for (const std::string& k : {std::string(""), std::string("a"), std::string("https://"),
                               site.substr(0, 23), site.substr(0, 24), site, site + "\xff",
                               std::string("zzz"), std::string("https://example.org/itemz")})
    urls.rows[k] = "u";
  urls.partitioning.splits = {site + "1100", site + "1200", site + "12000", site + "1300"};
  tables.push_back(urls);
  build_generation(dir.path(), 1, tables, 5);
  auto ds = drydb::ShardedDatabase::open(dir.path());
  ASSERT_TRUE(ds) << ds.error().message;
  for (const ShardedTable& spec : tables) {
    auto t = ds->table(spec.name);
    ASSERT_TRUE(t);
    std::vector<std::string> probes;
    for (const auto& [k, v] : spec.rows)
      probes.push_back(k);
    probes.insert(probes.end(), spec.partitioning.splits.begin(), spec.partitioning.splits.end());
    const size_t n = probes.size();
    for (size_t i = 0; i < n; ++i) {
      const std::string k = probes[i];
      if (spec.enc.kind() == drydb::KeyKind::int64) {
        const int64_t v = drydb::ordered_to_int64(
            drydb::detail::load_be64(reinterpret_cast<const std::byte*>(k.data())));
        if (v != INT64_MAX) probes.push_back(int64_key(v + 1));
        if (v != INT64_MIN) probes.push_back(int64_key(v - 1));
        continue;
      }
      probes.push_back(k + '\0');
      probes.push_back(k + "\xff");
      if (!k.empty()) {
        probes.push_back(k.substr(0, k.size() - 1));
        std::string raised = k;
        raised.back() = static_cast<char>(static_cast<unsigned char>(raised.back()) + 1);
        probes.push_back(raised);
      }
    }
    for (const std::string& k : probes)
      ASSERT_EQ(t->shard_of(typed_key(spec.enc.kind(), k)),
                drydb::shard_of(spec.partitioning, 5, k))
          << spec.name << " " << testing::PrintToString(k);
  }
}

TEST(ShardedDatabase, OpensADatasetAGenerationOrAManifest) {
  TempDir dir;
  auto tables = sample_tables(3);
  build_generation(dir.path(), 1, tables, 3);
  tables = sample_tables(2);
  tables[1].rows.erase(tables[1].rows.begin());
  build_generation(dir.path(), 2, tables, 2);
  auto live = drydb::ShardedDatabase::open(dir.path());
  ASSERT_TRUE(live);
  EXPECT_EQ(live->generation(), 2u);
  EXPECT_EQ(live->shard_count(), 2u);
  auto first = drydb::ShardedDatabase::open(dir / "gen-1");
  ASSERT_TRUE(first);
  EXPECT_EQ(first->generation(), 1u);
  EXPECT_EQ(first->table("ids")->count(), live->table("ids")->count() + 1);
  auto by_file = drydb::ShardedDatabase::open(dir / "gen-1" / "manifest.json");
  ASSERT_TRUE(by_file);
  EXPECT_EQ(by_file->shard_count(), 3u);
  // An open database stays on its generation while another is published and rolled back.
  ASSERT_TRUE(drydb::rollback_generation(dir.path()));
  EXPECT_EQ(drydb::ShardedDatabase::open(dir.path())->generation(), 1u);
  EXPECT_EQ(live->table("ids")->count(), tables[1].rows.size());
  TempDir empty;
  EXPECT_EQ(drydb::ShardedDatabase::open(empty.path()).code(), errc::not_found);
}

drydb::ShardedOptions checksums() {
  drydb::ShardedOptions o;
  o.verify_checksums = true;
  return o;
}

// A generation's folder holds the manifest of that generation (docs/sharding.md): a gen-1 folder
// whose manifest says generation 7 is refused, whether it is reached through CURRENT, as the
// gen-1 folder or as its manifest file, with errc::corruption naming the file and both numbers.
// The same manifest in a folder that is not a generation's opens.
TEST(ShardedDatabase, AManifestOfAnotherGenerationThanItsFolderIsRefused) {
  TempDir dir;
  const auto tables = sample_tables(3);
  build_generation(dir.path(), 1, tables, 3);
  const fs::path gen = dir / "gen-1";
  drydb::Manifest m = *drydb::read_manifest(gen);
  m.generation = 7;
  ASSERT_TRUE(drydb::write_manifest(gen, m));
  for (const fs::path& p : {dir.path(), gen, gen / "manifest.json"}) {
    for (const auto& options : {drydb::ShardedOptions{}, checksums()}) {
      auto ds = drydb::ShardedDatabase::open(p, options);
      ASSERT_FALSE(ds) << p;
      EXPECT_EQ(ds.code(), errc::corruption) << ds.error().message;
      EXPECT_EQ(ds.error().message, (gen / "manifest.json").string() +
                                        ": the manifest says generation 7, but it is in gen-1, "
                                        "the folder of generation 1")
          << p;
    }
  }
  EXPECT_EQ(drydb::LiveDataset::open(dir.path()).code(), errc::corruption);
  // Elsewhere than in a generation's folder, the manifest's generation is its own.
  const fs::path copy = dir / "copy";
  fs::copy(gen, copy);
  auto ds = drydb::ShardedDatabase::open(copy);
  ASSERT_TRUE(ds) << ds.error().message;
  EXPECT_EQ(ds->generation(), 7u);
  // Back to generation 1, gen-1 opens again.
  m.generation = 1;
  ASSERT_TRUE(drydb::write_manifest(gen, m));
  EXPECT_TRUE(drydb::ShardedDatabase::open(dir.path()));
}

TEST(ShardedDatabase, ShardsThatDisagreeWithTheManifestAreRefused) {
  TempDir dir;
  const auto tables = sample_tables(3);
  build_generation(dir.path(), 1, tables, 3);
  const fs::path gen = dir / "gen-1";
  const drydb::Manifest good = *drydb::read_manifest(gen);
  auto refused = [&](const drydb::Manifest& m, errc code, const std::string& part,
                     const drydb::ShardedOptions& o = {}) {
    ASSERT_TRUE(drydb::write_manifest(gen, m));
    auto ds = drydb::ShardedDatabase::open(dir.path(), o);
    ASSERT_FALSE(ds);
    EXPECT_EQ(ds.code(), code) << ds.error().message;
    EXPECT_NE(ds.error().message.find(part), std::string::npos) << ds.error().message;
  };
  drydb::Manifest m = good;
  m.shards[1].tables[0].rows += 1;
  refused(m, errc::corruption, "rows, not");
  m = good;
  m.shards[1].bytes += 1;
  refused(m, errc::corruption, "bytes, not");
  m = good;
  std::swap(m.tables[0], m.tables[1]);
  std::swap(m.shards[0].tables[0], m.shards[0].tables[1]);
  std::swap(m.shards[1].tables[0], m.shards[1].tables[1]);
  std::swap(m.shards[2].tables[0], m.shards[2].tables[1]);
  refused(m, errc::corruption, "is named");
  m = good;
  m.tables[1].key_encoding = "bytes";
  refused(m, errc::corruption, "int64 keys");
  m = good;
  // The rows right, the last key not the shard's (still inside the shard's interval).
  m.shards[0].tables[0].last = m.shards[0].tables[0].first + std::string(1, '\0');
  refused(m, errc::corruption, "last key");
  m = good;
  m.shards[2].xxh3 ^= 1;
  ASSERT_TRUE(drydb::write_manifest(gen, m));
  EXPECT_TRUE(drydb::ShardedDatabase::open(dir.path()));  // checksums only on request
  refused(m, errc::corruption, "XXH3-64", checksums());
  m = good;
  m.shards[2].file = "missing.drydb";
  refused(m, errc::io_error, "shard 2");
  ASSERT_TRUE(drydb::write_manifest(gen, good));
  EXPECT_TRUE(drydb::ShardedDatabase::open(dir.path(), checksums()));
}

// A manifest of version 2 records each shard's file identity (format 2.4): a shard swapped for
// another dataset's, of the same size, tables, rows and first and last keys (only values differ),
// is refused at open, without reading it whole.
TEST(ShardedDatabase, AShardOfAnotherDatasetOfTheSameShapeIsRefused) {
  TempDir dir;
  const auto tables = sample_tables(3);
  // The other dataset's "ids" values differ (by a bit; no index reads them): its files have
  // the same sizes, rows and keys.
  auto other_tables = tables;
  for (ShardedTable& t : other_tables)
    if (t.name == "ids")
      for (auto& [key, value] : t.rows)
        value[0] = static_cast<char>(value[0] ^ 0x01);
  build_generation(dir / "a", 1, tables, 3);
  build_generation(dir / "b", 1, other_tables, 3);
  const drydb::Manifest m = *drydb::read_manifest(dir / "a" / "gen-1");
  ASSERT_TRUE(m.shards[1].identity);
  EXPECT_NE(*m.shards[1].identity, 0u);
  const fs::path mine = dir / "a" / "gen-1" / m.shards[1].file;
  const fs::path theirs = dir / "b" / "gen-1" / m.shards[1].file;
  ASSERT_EQ(fs::file_size(mine), fs::file_size(theirs));
  EXPECT_NE(drydb::read_manifest(dir / "b" / "gen-1")->shards[1].identity, m.shards[1].identity);
  fs::copy_file(theirs, mine, fs::copy_options::overwrite_existing);
  auto ds = drydb::ShardedDatabase::open(dir / "a");
  ASSERT_FALSE(ds);
  EXPECT_EQ(ds.code(), errc::corruption);
  EXPECT_NE(ds.error().message.find(mine.string() + " disagrees with its manifest: its identity"),
            std::string::npos)
      << ds.error().message;
  // A manifest of version 1 records no identity: the same shard then opens (its rows, counts
  // and first and last keys are the manifest's), as it did before.
  drydb::Manifest v1 = m;
  for (drydb::ManifestShard& shard : v1.shards)
    shard.identity.reset();
  ASSERT_TRUE(drydb::write_manifest(dir / "a" / "gen-1", v1));
  EXPECT_TRUE(drydb::ShardedDatabase::open(dir / "a"));
}

TEST(ShardedDatabase, ShardsWithAnotherColumnListAreRefused) {
  // Rows are read as their table's column list says, which the manifest does not record: a
  // shard whose list is not the first shard's is refused, though the manifest describes it.
  TempDir dir;
  const fs::path gen = dir / "gen-1";
  fs::create_directories(gen);
  drydb::Manifest m;
  m.dataset = "columns";
  m.generation = 1;
  m.tables.push_back({"t", "bytes", {}, {std::string(drydb::kRangePartitioning), {"m"}}});
  const std::string row("\x92\x01\x02", 3);  // a MessagePack array of two fields
  for (int i = 0; i < 2; ++i) {
    drydb::DatabaseBuilder b;
    auto& t = b.create_table("t");
    t.set_columns({"a", i == 0 ? "b" : "c"});
    t.append(drydb::Key(std::string_view(i == 0 ? "a" : "x")), row);
    const fs::path file = gen / ("shard-" + std::to_string(i) + ".drydb");
    ASSERT_TRUE(b.build_to_file(file));
    m.shards.push_back(*drydb::describe_shard(file));
  }
  ASSERT_TRUE(drydb::write_manifest(gen, m));
  auto ds = drydb::ShardedDatabase::open(gen);
  ASSERT_FALSE(ds);
  EXPECT_EQ(ds.code(), errc::corruption);
  EXPECT_NE(ds.error().message.find("shard-1.drydb disagrees with its manifest: its table 't' has "
                                    "another column list than the first shard's"),
            std::string::npos)
      << ds.error().message;
}

}  // namespace
