// drydb::diff against a model: random pairs of builds (tables of both key kinds with rows added,
// removed and changed, tables in one side only, a key encoding that changes, indexes that come,
// go, change definition or change entries, empty tables), each side a file (512-byte pages) or a
// sharded dataset (range- or hash-partitioned); every count and every difference the visitor is
// told is what comparing the two sorted maps gives, in order. And: a visitor's error ends the
// diff; an unknown table; a corrupt page of either side is an error, never a wrong answer.
#include "drydb/diff.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "drydb/builder.h"
#include "drydb/dataset.h"
#include "drydb/drydb.h"
#include "drydb/index.h"
#include "generation_builder.h"
#include "support/random.h"
#include "support/suite.h"

namespace {

namespace fs = std::filesystem;
using namespace drydb_test;
using drydb::DiffChange;
using drydb::errc;
using drydb::KeyEncoding;

// Builds `tables` into one file, as build_generation builds each shard.
void build_file(const fs::path& path, const std::vector<ShardedTable>& tables) {
  drydb::DatabaseBuilder b({.page_size = 512});
  for (const ShardedTable& t : tables)
    add_table(b, t);
  ASSERT_TRUE(b.build_to_file(path));
}

// What the visitor is told, as text: "T +|-|~ key [old] [new]" for rows, "T.I +|- ikey key".
class Recorder final : public drydb::DiffVisitor {
 public:
  drydb::status row(const drydb::DiffRow& r) override {
    const char* c = r.change == DiffChange::added     ? "+"
                    : r.change == DiffChange::removed ? "-"
                                                      : "~";
    const drydb::ReadOnlyTable* t = r.change == DiffChange::added ? r.new_table : r.old_table;
    events.push_back(std::string(t->name()) + " " + c + " " + to_string(r.key) + " " +
                     to_string(r.old_value) + " " + to_string(r.new_value));
    if (fail_after && events.size() == *fail_after)
      return drydb::unexpected(errc::invalid_state, "the visitor stops here");
    return {};
  }
  drydb::status index_entry(const drydb::DiffIndexEntry& e) override {
    events.push_back(std::string(e.table->name()) + "." + std::string(e.index->name()) + " " +
                     (e.change == DiffChange::added ? "+" : "-") + " " + to_string(e.index_key) +
                     " " + to_string(e.key));
    return {};
  }
  std::vector<std::string> events;
  std::optional<size_t> fail_after;
};

// The model's answer for one table: its counts in `td`, its events appended to `events`.
void model_table(const ShardedTable* o, const ShardedTable* n, drydb::TableDiff* td,
                 std::vector<std::string>* events) {
  const std::string& name = o ? o->name : n->name;
  td->name = name;
  td->in_old = o != nullptr;
  td->in_new = n != nullptr;
  td->old_rows = o ? o->rows.size() : 0;
  td->new_rows = n ? n->rows.size() : 0;
  td->key_encoding_changed = o && n && o->enc.id() != n->enc.id();
  auto removed = [&](const std::string& k, const std::string& v) {
    ++td->removed;
    events->push_back(name + " - " + k + " " + v + " ");
  };
  auto added = [&](const std::string& k, const std::string& v) {
    ++td->added;
    events->push_back(name + " + " + k + "  " + v);
  };
  if (!n || !o || td->key_encoding_changed) {
    if (o)
      for (const auto& [k, v] : o->rows)
        removed(k, v);
    if (n)
      for (const auto& [k, v] : n->rows)
        added(k, v);
  } else {
    auto a = o->rows.begin(), b = n->rows.begin();
    while (a != o->rows.end() || b != n->rows.end()) {
      if (b == n->rows.end() || (a != o->rows.end() && a->first < b->first)) {
        removed(a->first, a->second);
        ++a;
      } else if (a == o->rows.end() || b->first < a->first) {
        added(b->first, b->second);
        ++b;
      } else {
        if (a->second == b->second) {
          ++td->unchanged;
        } else {
          ++td->changed;
          events->push_back(name + " ~ " + a->first + " " + a->second + " " + b->second);
        }
        ++a;
        ++b;
      }
    }
  }
  // Indexes: the old side's in order, then the new side's others; entries as (ikey, key) sets.
  std::vector<std::pair<const IndexModel*, const IndexModel*>> pairs;
  auto find = [](const ShardedTable* t, const std::string& ix) -> const IndexModel* {
    if (!t) return nullptr;
    for (const IndexModel& i : t->indexes)
      if (i.name == ix) return &i;
    return nullptr;
  };
  if (o)
    for (const IndexModel& i : o->indexes)
      pairs.emplace_back(&i, find(n, i.name));
  if (n)
    for (const IndexModel& i : n->indexes)
      if (!find(o, i.name)) pairs.emplace_back(nullptr, &i);
  auto entries = [](const ShardedTable& t, const IndexModel& ix) {
    std::set<std::pair<std::string, std::string>> out;
    for (const auto& [k, v] : t.rows)
      if (auto key = ix.key_of(k, v)) out.emplace(*key, k);
    return out;
  };
  for (const auto& [oi, ni] : pairs) {
    drydb::IndexDiff id;
    id.name = oi ? oi->name : ni->name;
    id.in_old = oi != nullptr;
    id.in_new = ni != nullptr;
    const auto oe = oi ? entries(*o, *oi) : std::set<std::pair<std::string, std::string>>{};
    const auto ne = ni ? entries(*n, *ni) : std::set<std::pair<std::string, std::string>>{};
    id.old_entries = oe.size();
    id.new_entries = ne.size();
    const bool apart = !oi || !ni || oi->enc.id() != ni->enc.id() || td->key_encoding_changed;
    id.shape_changed = oi && ni && (oi->enc.id() != ni->enc.id() || oi->unique != ni->unique);
    const std::string prefix = name + "." + id.name;
    if (apart) {
      for (const auto& [ik, k] : oe)
        events->push_back(prefix + " - " + ik + " " + k), ++id.removed;
      for (const auto& [ik, k] : ne)
        events->push_back(prefix + " + " + ik + " " + k), ++id.added;
    } else {
      std::vector<std::tuple<std::string, std::string, bool>> merged;
      for (const auto& e : oe)
        if (!ne.count(e)) merged.emplace_back(e.first, e.second, false);
      for (const auto& e : ne)
        if (!oe.count(e)) merged.emplace_back(e.first, e.second, true);
      std::sort(merged.begin(), merged.end(), [](const auto& x, const auto& y) {
        return std::tie(std::get<0>(x), std::get<1>(x)) < std::tie(std::get<0>(y), std::get<1>(y));
      });
      for (const auto& [ik, k, add] : merged) {
        events->push_back(prefix + (add ? " + " : " - ") + ik + " " + k);
        ++(add ? id.added : id.removed);
      }
    }
    td->indexes.push_back(id);
  }
}

IndexModel first_byte_index() {
  return make_index("by_first", false, KeyEncoding::bytes(),
                    [](const std::string&, const std::string& v) -> std::optional<std::string> {
                      if (v.empty()) return std::nullopt;
                      return v.substr(0, 1);
                    });
}

IndexModel length_index() {
  return make_index("by_length", false, KeyEncoding::int64(),
                    [](const std::string&, const std::string& v) -> std::optional<std::string> {
                      return int64_key(static_cast<int64_t>(v.size()));
                    });
}

// A random old side and a new side made from it by edits.
std::pair<std::vector<ShardedTable>, std::vector<ShardedTable>> random_pair(Rng& rng) {
  auto value = [&] {
    std::string v(rng() % 4, 'a');
    for (char& c : v)
      c = static_cast<char>('a' + rng() % 3);
    return v;
  };
  ShardedTable ints = sharded_table("ints", KeyEncoding::int64());
  ShardedTable words = sharded_table("words", KeyEncoding::bytes());
  ShardedTable gone = sharded_table("gone", KeyEncoding::bytes());
  const int rows = static_cast<int>(rng() % 400);
  for (int i = 0; i < rows; ++i) {
    ints.rows[int64_key(static_cast<int64_t>(rng() % 2000) - 1000)] = value();
    words.rows["w" + std::to_string(rng() % 3000)] = value();
  }
  for (int i = 0; i < 20; ++i)
    gone.rows["g" + std::to_string(i)] = value();
  ints.indexes = {first_byte_index()};
  words.indexes = {first_byte_index(), length_index()};
  std::vector<ShardedTable> old_side = {ints, words, gone};

  // Edits: rows removed, changed and added in both tables; an index changes definition or goes;
  // one comes; `gone` goes and `fresh` comes; sometimes `words` changes key encoding.
  for (ShardedTable* t : {&ints, &words}) {
    for (auto it = t->rows.begin(); it != t->rows.end();) {
      const auto r = rng() % 10;
      if (r == 0) {
        it = t->rows.erase(it);
        continue;
      }
      if (r == 1) it->second = value();
      ++it;
    }
    for (int i = 0; i < rows / 10; ++i)
      t->rows[t == &ints ? int64_key(static_cast<int64_t>(rng() % 2000) - 1000)
                         : "w" + std::to_string(rng() % 3000)] = value();
  }
  switch (rng() % 3) {
    case 0:  // the same name, now unique (keyed by the primary key)
      ints.indexes = {
          make_index("by_first", true, KeyEncoding::bytes(),
                     [](const std::string& k, const std::string&) -> std::optional<std::string> {
                       return k;
                     })};
      break;
    case 1:
      ints.indexes.clear();
      break;
    default:
      break;
  }
  words.indexes = {length_index(), first_byte_index()};
  if (rng() % 4 == 0)
    words.enc = KeyEncoding::int64(), words.rows.clear(), words.rows[int64_key(5)] = "five";
  ShardedTable fresh = sharded_table("fresh", KeyEncoding::bytes());
  if (rng() % 2) fresh.rows["only"] = "new";
  return {old_side, {ints, words, fresh}};
}

// A side on disk: a file, or a dataset of `shards` shards, hash-partitioned or range-partitioned
// on the table's own keys.
struct Side {
  std::optional<drydb::ReadOnlyDatabase> file;
  std::optional<drydb::ShardedDatabase> dataset;
  drydb::DiffSide side() const {
    return dataset ? drydb::DiffSide(*dataset) : drydb::DiffSide(*file);
  }
};

Side write_side(const fs::path& where, std::vector<ShardedTable> tables, int how) {
  Side s;
  if (how == 0) {
    build_file(where, tables);
    s.file.emplace(drydb::ReadOnlyDatabase::open(where).value());
    return s;
  }
  for (ShardedTable& t : tables) {
    if (how == 1) {
      t.partitioning = {std::string(drydb::kHashPartitioning), {}};
    } else if (t.rows.size() >= 3) {  // split at the second and third keys
      auto it = std::next(t.rows.begin());
      t.partitioning.splits = {it->first, std::next(it)->first};
    } else {
      t.partitioning = {std::string(drydb::kHashPartitioning), {}};
    }
  }
  build_generation(where, 1, tables, 3);
  s.dataset.emplace(drydb::ShardedDatabase::open(where).value());
  return s;
}

void expect_same(const drydb::DatabaseDiff& got, const std::vector<drydb::TableDiff>& want) {
  ASSERT_EQ(got.tables.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    const drydb::TableDiff& g = got.tables[i];
    const drydb::TableDiff& w = want[i];
    SCOPED_TRACE(w.name);
    EXPECT_EQ(g.name, w.name);
    EXPECT_EQ(std::tie(g.in_old, g.in_new, g.key_encoding_changed, g.columns_changed),
              std::tie(w.in_old, w.in_new, w.key_encoding_changed, w.columns_changed));
    EXPECT_EQ(std::tie(g.old_rows, g.new_rows, g.added, g.removed, g.changed, g.unchanged),
              std::tie(w.old_rows, w.new_rows, w.added, w.removed, w.changed, w.unchanged));
    ASSERT_EQ(g.indexes.size(), w.indexes.size());
    for (size_t j = 0; j < w.indexes.size(); ++j) {
      const drydb::IndexDiff& gi = g.indexes[j];
      const drydb::IndexDiff& wi = w.indexes[j];
      SCOPED_TRACE(wi.name);
      EXPECT_EQ(gi.name, wi.name);
      EXPECT_EQ(std::tie(gi.in_old, gi.in_new, gi.shape_changed, gi.old_entries, gi.new_entries,
                         gi.added, gi.removed),
                std::tie(wi.in_old, wi.in_new, wi.shape_changed, wi.old_entries, wi.new_entries,
                         wi.added, wi.removed));
    }
    EXPECT_EQ(g.differs(), w.differs());
  }
}

TEST(Diff, MatchesTheModelOnFilesAndDatasets) {
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    Rng rng(seed);
    const auto [olds, news] = random_pair(rng);
    TempDir dir;
    const int old_how = static_cast<int>(seed % 3), new_how = static_cast<int>((seed / 3) % 3);
    const Side o = write_side(dir.path() / "old", olds, old_how);
    const Side n = write_side(dir.path() / "new", news, new_how);

    std::vector<drydb::TableDiff> want;
    std::vector<std::string> want_events;
    for (const ShardedTable& t : olds) {
      const auto it = std::find_if(news.begin(), news.end(),
                                   [&](const ShardedTable& x) { return x.name == t.name; });
      want.emplace_back();
      model_table(&t, it == news.end() ? nullptr : &*it, &want.back(), &want_events);
    }
    for (const ShardedTable& t : news)
      if (std::none_of(olds.begin(), olds.end(),
                       [&](const ShardedTable& x) { return x.name == t.name; })) {
        want.emplace_back();
        model_table(nullptr, &t, &want.back(), &want_events);
      }

    Recorder r;
    const auto got = drydb::diff(o.side(), n.side(), {}, &r);
    ASSERT_TRUE(got) << got.error().message;
    expect_same(*got, want);
    EXPECT_EQ(r.events, want_events);
    EXPECT_TRUE(got->differs());

    // Counts alone, without a visitor; one table; the builds against themselves.
    const auto counts = drydb::diff(o.side(), n.side());
    ASSERT_TRUE(counts);
    expect_same(*counts, want);
    const auto one = drydb::diff(o.side(), n.side(), {.tables = {"words"}});
    ASSERT_TRUE(one);
    ASSERT_EQ(one->tables.size(), 1u);
    EXPECT_EQ(one->tables[0].name, "words");
    const auto self = drydb::diff(o.side(), o.side());
    ASSERT_TRUE(self);
    EXPECT_FALSE(self->differs());
  }
}

TEST(Diff, AFileAndTheDatasetOfItsRowsAreEqual) {
  Rng rng(99);
  const auto [olds, news] = random_pair(rng);
  TempDir dir;
  for (int how : {1, 2}) {
    const Side file = write_side(dir.path() / ("file" + std::to_string(how)), news, 0);
    const Side ds = write_side(dir.path() / ("ds" + std::to_string(how)), news, how);
    Recorder r;
    const auto d = drydb::diff(file.side(), ds.side(), {}, &r);
    ASSERT_TRUE(d) << d.error().message;
    EXPECT_FALSE(d->differs());
    EXPECT_TRUE(r.events.empty());
    ASSERT_EQ(d->tables.size(), news.size());
    EXPECT_EQ(d->tables[0].unchanged, news[0].rows.size());
  }
}

TEST(Diff, StorageOptionsDoNotCount) {
  TempDir dir;
  ShardedTable t = sharded_table("t", KeyEncoding::int64());
  for (int i = 0; i < 3000; ++i)
    t.rows[int64_key(i)] = std::string(40, static_cast<char>('a' + i % 26));
  build_file(dir.path() / "a.drydb", {t});
  drydb::DatabaseBuilder b({.page_size = 4096, .filters = {drydb::filters::zstd({.level = 3})}});
  add_table(b, t);
  ASSERT_TRUE(b.build_to_file(dir.path() / "b.drydb"));
  const auto a = drydb::ReadOnlyDatabase::open(dir.path() / "a.drydb").value();
  const auto bz = drydb::ReadOnlyDatabase::open(dir.path() / "b.drydb").value();
  const auto d = drydb::diff(a, bz);
  ASSERT_TRUE(d);
  EXPECT_FALSE(d->differs());
  EXPECT_EQ(d->tables.at(0).unchanged, 3000u);
}

// Rows stored as maps and rows stored as arrays of a column list (format 2.3) are compared as the
// records they stand for, as `drydb dump` shows them: equal records are unchanged whatever widths
// their numbers were stored in and wherever the key column's nil stands for the key's text; a
// column list that differs is no change of its own. It used to count every row as changed.
TEST(Diff, RowsOfColumnListsAreComparedAsTheirRecords) {
  using Rows = std::vector<std::pair<int64_t, std::string>>;
  TempDir dir;
  auto build = [&](const std::string& name, const std::vector<std::string>& columns,
                   const Rows& rows) {
    drydb::DatabaseBuilder b({.page_size = 512});
    auto& t = b.create_table("t", KeyEncoding::int64());
    if (!columns.empty()) t.set_columns(columns, 0);
    for (const auto& [key, value] : rows)
      t.append(key, value);
    EXPECT_TRUE(b.build_to_file(dir.path() / name)) << b.status().error().message;
    return drydb::ReadOnlyDatabase::open(dir.path() / name).value();
  };
  using namespace std::string_literals;
  // MessagePack by hand: 0x83 a map of 3, 0xa2 "id", 0xcd a uint16, 0xd2 an int32, 0xc0 nil.
  const Rows maps = {
      {1,
       "\x83\xa2id\x01\xa4name\xa1"
       "a\xa1n\xcd\x01\x2c"s},  // {"id":1,"name":"a","n":300}
      {2,
       "\x82\xa2id\xa1"
       "2\xa4name\xa1"
       "b"s},  // {"id":"2","name":"b"}
      {3,
       "\x82\xa2id\x03\xa4name\xa1"
       "c"s},  // {"id":3,"name":"c"}
      {4,
       "\x82\xa2id\x04\xa4name\xa1"
       "d"s},        // {"id":4,"name":"d"}
      {5, "\xc1"s},  // not MessagePack
      {6,
       "\x82\xa4name\xa1"
       "f\xa2id\x06"s},                    // {"name":"f","id":6}
      {7, "\x82\xa2id\x07\xa4name\xc0"s},  // {"id":7,"name":null}
  };
  const Rows arrays = {
      {1,
       "\x93\x01\xa1"
       "a\xd2\x00\x00\x01\x2c"s},  // [1,"a",300]: 300 as an int32
      {2,
       "\x92\xc0\xa1"
       "b"s},  // [nil,"b"]: the key's text, "2"
      {3,
       "\x93\x03\xa1"
       "c\xc0"s},  // [3,"c",nil]: n absent
      {4,
       "\x92\x04\xa1"
       "e"s},            // name "e", not "d"
      {5, "\x91\x05"s},  // [5]
      {6,
       "\x92\x06\xa1"
       "f"s},            // {"id":6,"name":"f"}: another order
      {7, "\x91\x07"s},  // {"id":7}: name absent, not null
  };
  const auto as_maps = build("maps.drydb", {}, maps);
  const auto as_arrays = build("arrays.drydb", {"id", "name", "n"}, arrays);
  Recorder r;
  const auto d = drydb::diff(as_maps, as_arrays, {}, &r);
  ASSERT_TRUE(d) << d.error().message;
  const drydb::TableDiff& t = d->tables.at(0);
  EXPECT_TRUE(t.columns_changed);
  EXPECT_EQ(t.added + t.removed, 0u);
  EXPECT_EQ(t.changed, 4u);  // keys 4 to 7
  EXPECT_EQ(t.unchanged, 3u);
  ASSERT_EQ(r.events.size(), 4u);
  for (size_t i = 0; i < 4; ++i)
    EXPECT_EQ(r.events[i].substr(0, 4), "t ~ ") << r.events[i];
  EXPECT_TRUE(d->differs());

  // The equal rows alone: equal builds, the column list reported but no change.
  Rows equal_maps(maps.begin(), maps.begin() + 3), equal_arrays(arrays.begin(), arrays.begin() + 3);
  const auto a = build("equal-maps.drydb", {}, equal_maps);
  const auto b = build("equal-arrays.drydb", {"id", "name", "n"}, equal_arrays);
  for (const auto& [o, n] : {std::pair(&a, &b), std::pair(&b, &a)}) {
    const auto e = drydb::diff(*o, *n);
    ASSERT_TRUE(e) << e.error().message;
    EXPECT_TRUE(e->tables.at(0).columns_changed);
    EXPECT_EQ(e->tables.at(0).unchanged, 3u);
    EXPECT_EQ(e->tables.at(0).changed, 0u);
    EXPECT_FALSE(e->differs());
  }
  // The same arrays under another column's name stand for other records where that column is
  // present: equal bytes are not equal rows there.
  const auto renamed = build("renamed.drydb", {"id", "title", "n"}, equal_arrays);
  const auto r2 = drydb::diff(b, renamed);
  ASSERT_TRUE(r2);
  EXPECT_EQ(r2->tables.at(0).changed, 3u);
  EXPECT_TRUE(r2->differs());
  const auto ids = build("ids.drydb", {"id", "name"}, {{1, "\x91\x01"s}, {2, "\x90"s}});
  const auto ids_renamed =
      build("ids-renamed.drydb", {"id", "title"}, {{1, "\x91\x01"s}, {2, "\x90"s}});
  const auto r3 = drydb::diff(ids, ids_renamed);
  ASSERT_TRUE(r3);
  EXPECT_EQ(r3->tables.at(0).unchanged, 2u);
  EXPECT_FALSE(r3->differs());
}

TEST(Diff, AVisitorErrorEndsTheDiff) {
  Rng rng(5);
  const auto [olds, news] = random_pair(rng);
  TempDir dir;
  const Side o = write_side(dir.path() / "old", olds, 0);
  const Side n = write_side(dir.path() / "new", news, 0);
  Recorder r;
  r.fail_after = 3;
  const auto d = drydb::diff(o.side(), n.side(), {}, &r);
  ASSERT_FALSE(d);
  EXPECT_EQ(d.code(), errc::invalid_state);
  EXPECT_EQ(r.events.size(), 3u);
}

TEST(Diff, AnUnknownTableIsNotFound) {
  TempDir dir;
  const Side o = write_side(dir.path() / "old", {sharded_table("t", KeyEncoding::bytes())}, 0);
  const auto d = drydb::diff(o.side(), o.side(), {.tables = {"t", "nope"}});
  ASSERT_FALSE(d);
  EXPECT_EQ(d.code(), errc::not_found);
  EXPECT_NE(d.error().message.find("nope"), std::string::npos);
}

TEST(Diff, ACorruptPageOfEitherSideIsAnError) {
  TempDir dir;
  ShardedTable t = sharded_table("t", KeyEncoding::int64());
  for (int i = 0; i < 2000; ++i)
    t.rows[int64_key(i)] = "value-" + std::to_string(i);
  build_file(dir.path() / "good.drydb", {t});
  fs::copy_file(dir.path() / "good.drydb", dir.path() / "bad.drydb");
  {  // a byte of row 1000's value, in a leaf
    std::fstream f(dir.path() / "bad.drydb", std::ios::in | std::ios::out | std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    const size_t at = bytes.find("value-1000");
    ASSERT_NE(at, std::string::npos);
    f.seekp(static_cast<std::streamoff>(at));
    f.put('V');
  }
  const auto good = drydb::ReadOnlyDatabase::open(dir.path() / "good.drydb").value();
  auto bad = drydb::ReadOnlyDatabase::open(dir.path() / "bad.drydb");
  ASSERT_TRUE(bad) << bad.error().message;
  for (bool bad_is_old : {true, false}) {
    const auto d = bad_is_old ? drydb::diff(*bad, good) : drydb::diff(good, *bad);
    ASSERT_FALSE(d);
    EXPECT_EQ(d.code(), errc::corruption) << d.error().message;
  }
}

}  // namespace
