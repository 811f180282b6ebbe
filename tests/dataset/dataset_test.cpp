// drydb/dataset.h against docs/sharding.md: the partition functions, the manifest's rules and
// JSON (both directions, and every way a manifest can be wrong), and the dataset folder's
// generations (publish, roll back, keep, discard, numbers never reused, and their races).
#include "drydb/dataset.h"

#include <gtest/gtest.h>
#if !defined(_WIN32)
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#endif
#include <xxhash.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "drydb/build_points.h"
#include "drydb/key_encoding.h"
#include "fuzz/manifest_target.h"
#include "support/forked_holder.h"
#include "support/suite.h"

namespace {

using drydb::errc;
using drydb::Manifest;
using drydb::Partitioning;
#if !defined(_WIN32)
using drydb_test::ForkedHolder;
#endif
using drydb_test::int64_key;
using drydb_test::TempDir;

// ---- partition functions ------------------------------------------------------------------------

TEST(Partitioning, RangeCountsTheSplitKeysAtOrBelowTheKey) {
  const Partitioning p{std::string(drydb::kRangePartitioning), {"b", "d"}};
  ASSERT_TRUE(drydb::check_partitioning(p, 3));
  const std::vector<std::pair<std::string, uint32_t>> cases = {
      {"", 0},  {"a", 0}, {"a\xff\xff", 0}, {"b", 1},   {std::string("b\0", 2), 1},
      {"c", 1}, {"d", 2}, {"zz", 2},        {"\xff", 2}};
  for (const auto& [key, shard] : cases)
    EXPECT_EQ(drydb::shard_of(p, 3, key), shard) << key;
  // Bytes compare unsigned: 0x80 is after 0x7f.
  const Partitioning high{std::string(drydb::kRangePartitioning), {"\x80"}};
  EXPECT_EQ(drydb::shard_of(high, 2, "\x7f"), 0u);
  EXPECT_EQ(drydb::shard_of(high, 2, "\x80"), 1u);
  // int64 keys split in numeric order through their encoding.
  const Partitioning ints{std::string(drydb::kRangePartitioning),
                          {int64_key(-10), int64_key(0), int64_key(1000)}};
  ASSERT_TRUE(drydb::check_partitioning(ints, 4));
  EXPECT_EQ(drydb::shard_of(ints, 4, int64_key(INT64_MIN)), 0u);
  EXPECT_EQ(drydb::shard_of(ints, 4, int64_key(-11)), 0u);
  EXPECT_EQ(drydb::shard_of(ints, 4, int64_key(-10)), 1u);
  EXPECT_EQ(drydb::shard_of(ints, 4, int64_key(-1)), 1u);
  EXPECT_EQ(drydb::shard_of(ints, 4, int64_key(0)), 2u);
  EXPECT_EQ(drydb::shard_of(ints, 4, int64_key(999)), 2u);
  EXPECT_EQ(drydb::shard_of(ints, 4, int64_key(INT64_MAX)), 3u);
  // One shard: everything in shard 0.
  EXPECT_EQ(drydb::shard_of(Partitioning{}, 1, "anything"), 0u);
}

TEST(Partitioning, HashIsXxh3OfTheEncodedKeyModuloTheShards) {
  const Partitioning p{std::string(drydb::kHashPartitioning), {}};
  ASSERT_TRUE(drydb::check_partitioning(p, 7));
  std::vector<int> per_shard(7);
  for (int64_t v = -500; v < 500; ++v) {
    const std::string k = int64_key(v);
    const uint32_t want = static_cast<uint32_t>(XXH3_64bits(k.data(), k.size()) % 7);
    ASSERT_EQ(drydb::shard_of(p, 7, k), want);
    ++per_shard[want];
  }
  for (int n : per_shard)
    EXPECT_GT(n, 100);  // 1,000 keys spread over all 7
  // Fixed values, so that the function can never drift with the library: shard_of(k) for 1,000
  // shards, from xxHash 0.8's XXH3_64bits as docs/sharding.md specifies it.
  // (docs/sharding.md lists them for other implementations.)
  EXPECT_EQ(drydb::shard_of(p, 1000, "drydb"), 456u);  // XXH3-64 0x2773ae2d11adce20
  EXPECT_EQ(drydb::shard_of(p, 65536, ""), 0x94c2u);   // XXH3-64 0x2d06800538d394c2
  EXPECT_EQ(drydb::shard_of(p, 1, "drydb"), 0u);
}

TEST(Partitioning, RefusesWhatDoesNotFit) {
  const std::string range(drydb::kRangePartitioning), hash(drydb::kHashPartitioning);
  struct Case {
    Partitioning p;
    uint32_t shards;
    errc code;
  } cases[] = {
      {{range, {}}, 0, errc::invalid_argument},
      {{range, {}}, drydb::kMaxShards + 1, errc::invalid_argument},
      {{range, {"a"}}, 1, errc::invalid_argument},       // 1 shard takes no split
      {{range, {"a"}}, 3, errc::invalid_argument},       // 3 shards take 2
      {{range, {"b", "a"}}, 3, errc::invalid_argument},  // not increasing
      {{range, {"a", "a"}}, 3, errc::invalid_argument},  // not strictly
      {{range, {""}}, 2, errc::invalid_argument},        // the empty key splits nothing
      {{hash, {"a"}}, 2, errc::invalid_argument},
      {{"range-v2", {}}, 1, errc::unsupported_version},
  };
  for (const auto& c : cases) {
    const auto st = drydb::check_partitioning(c.p, c.shards);
    ASSERT_FALSE(st) << c.p.function << " " << c.shards;
    EXPECT_EQ(st.code(), c.code) << st.error().message;
  }
}

// ---- the manifest -------------------------------------------------------------------------------

Manifest sample() {
  Manifest m;
  m.dataset = "users";
  m.generation = 3;
  drydb::ManifestTable t;
  t.name = "by_id";
  t.key_encoding = "int64";
  t.indexes = {{"email", true, "bytes"}, {"city", false, "bytes"}};
  t.partitioning.splits = {int64_key(100)};
  drydb::ManifestTable names;
  names.name = "names";
  names.key_encoding = "bytes";
  names.partitioning.splits = {"m"};
  m.tables = {t, names};
  m.shards = {
      {"shard-00000.drydb",
       8192,
       0x0123456789abcdefULL,
       {{2, int64_key(-5), int64_key(99)}, {0, "", ""}},
       std::nullopt},
      {"shard-00001.drydb",
       12288,
       0xfedcba9876543210ULL,
       {{1, int64_key(100), int64_key(100)}, {3, "m", "zed"}},
       std::nullopt},
  };
  return m;
}

bool same(const Manifest& a, const Manifest& b) {
  return drydb::manifest_json(a) == drydb::manifest_json(b);
}

TEST(Manifest, JsonIsAsDocumented) {
  const Manifest m = sample();
  ASSERT_TRUE(drydb::check_manifest(m)) << drydb::check_manifest(m).error().message;
  EXPECT_EQ(
      drydb::manifest_json(m),
      "{\"format\": \"drydb-dataset\", \"version\": 1, \"dataset\": \"users\", \"generation\": 3,\n"
      "\"tables\": [\n"
      "  {\"name\": \"by_id\", \"key_encoding\": \"int64\", \"indexes\": [{\"name\": \"email\", "
      "\"unique\": true, \"key_encoding\": \"bytes\"}, {\"name\": \"city\", \"unique\": false, "
      "\"key_encoding\": \"bytes\"}], \"partitioning\": {\"function\": \"range-v1\", \"splits\": "
      "[\"8000000000000064\"]}},\n"
      "  {\"name\": \"names\", \"key_encoding\": \"bytes\", \"indexes\": [], \"partitioning\": "
      "{\"function\": \"range-v1\", \"splits\": [\"6d\"]}}],\n"
      "\"shards\": [\n"
      "  {\"file\": \"shard-00000.drydb\", \"bytes\": 8192, \"xxh3\": \"0123456789abcdef\", "
      "\"tables\": [{\"rows\": 2, \"first\": \"7ffffffffffffffb\", \"last\": "
      "\"8000000000000063\"}, "
      "{\"rows\": 0}]},\n"
      "  {\"file\": \"shard-00001.drydb\", \"bytes\": 12288, \"xxh3\": \"fedcba9876543210\", "
      "\"tables\": [{\"rows\": 1, \"first\": \"8000000000000064\", \"last\": "
      "\"8000000000000064\"}, "
      "{\"rows\": 3, \"first\": \"6d\", \"last\": \"7a6564\"}]}]}\n");
  auto back = drydb::parse_manifest(drydb::manifest_json(m));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_TRUE(same(*back, m));
  EXPECT_EQ(back->shards[1].xxh3, 0xfedcba9876543210ULL);
  EXPECT_EQ(back->tables[0].indexes[0].name, "email");
  EXPECT_TRUE(back->tables[0].indexes[0].unique);
  EXPECT_FALSE(back->shards[0].identity);
}

// Version 2 records each shard file's identity (docs/sharding.md): every shard has one or none
// does, a version 1 manifest may not name one and a version 2 manifest must.
TEST(Manifest, Version2RecordsTheShardsIdentities) {
  Manifest m = sample();
  m.shards[0].identity = 0x1122334455667788ULL;
  EXPECT_EQ(drydb::check_manifest(m).code(), errc::invalid_argument);  // shard 1 has none
  m.shards[1].identity = 0;  // a shard file of a format before 2.4
  ASSERT_TRUE(drydb::check_manifest(m));
  const std::string json = drydb::manifest_json(m);
  EXPECT_EQ(json.rfind("{\"format\": \"drydb-dataset\", \"version\": 2, ", 0), 0u) << json;
  EXPECT_NE(json.find("\"xxh3\": \"0123456789abcdef\", \"identity\": \"1122334455667788\", "
                      "\"tables\""),
            std::string::npos)
      << json;
  auto back = drydb::parse_manifest(json);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->shards[0].identity, std::optional<uint64_t>(0x1122334455667788ULL));
  EXPECT_EQ(back->shards[1].identity, std::optional<uint64_t>(0));
  EXPECT_TRUE(same(*back, m));
  // Version 1 with an identity, version 2 without one: refused.
  std::string v1 = json;
  v1.replace(v1.find("\"version\": 2"), 12, "\"version\": 1");
  EXPECT_EQ(drydb::parse_manifest(v1).code(), errc::corruption);
  const std::string v2 = drydb::manifest_json(sample());
  std::string v2_without = v2;
  v2_without.replace(v2_without.find("\"version\": 1"), 12, "\"version\": 2");
  EXPECT_EQ(drydb::parse_manifest(v2_without).code(), errc::corruption);
  std::string v3 = json;
  v3.replace(v3.find("\"version\": 2"), 12, "\"version\": 3");
  EXPECT_EQ(drydb::parse_manifest(v3).code(), errc::unsupported_version);
}

TEST(Manifest, NamesAreEscapedAndReadBack) {
  Manifest m = sample();
  m.dataset = "a \"quoted\" \\ name\twith ü";
  m.tables[1].name = "\x01\x1f";
  auto back = drydb::parse_manifest(drydb::manifest_json(m));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->dataset, m.dataset);
  EXPECT_EQ(back->tables[1].name, m.tables[1].name);
  // Whitespace is the writer's choice: any JSON layout of the same document reads the same.
  auto spaced = drydb::parse_manifest(
      "  {\"version\":1,\"format\":\"drydb-dataset\",\"generation\":1,\"dataset\":\"d\",\"tables\":"
      "[{\"key_encoding\":\"bytes\",\"name\":\"t\",\"indexes\":[],\"partitioning\":{\"splits\":[],"
      "\"function\":\"xxh3-64-mod-v1\"}}],\"shards\":[{\"tables\":[{\"rows\":0}],\"file\":\"s\","
      "\"bytes\":0,\"xxh3\":\"0000000000000000\"}]}\n\n");
  ASSERT_TRUE(spaced) << spaced.error().message;
  EXPECT_EQ(spaced->tables[0].partitioning.function, drydb::kHashPartitioning);
}

// Replaces the first `from` in the sample's JSON with `to`.
std::string edited(const std::string& from, const std::string& to) {
  std::string json = drydb::manifest_json(sample());
  const size_t at = json.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return at == std::string::npos ? json : json.replace(at, from.size(), to);
}

TEST(Manifest, EveryWayOfBeingWrongIsRefused) {
  struct Case {
    const char* what;
    std::string json;
    errc code;
    const char* message;  // a part of the message
  } cases[] = {
      {"not JSON", "{", errc::corruption, "not JSON"},
      {"not an object", "[]", errc::corruption, "is not an object"},
      {"another format", edited("\"drydb-dataset\"", "\"sqlite\""), errc::corruption, "format"},
      {"a newer version", edited("\"version\": 1", "\"version\": 3"), errc::unsupported_version,
       "version 3"},
      {"an unknown member", edited("\"generation\": 3", "\"generation\": 3, \"extra\": 0"),
       errc::corruption, "unknown member \"extra\""},
      {"a member twice", edited("\"generation\": 3", "\"generation\": 3, \"generation\": 4"),
       errc::corruption, "twice"},
      {"a missing member", edited("\"dataset\": \"users\", ", ""), errc::corruption,
       "no member \"dataset\""},
      {"a fractional count", edited("\"bytes\": 8192", "\"bytes\": 8192.0"), errc::corruption,
       "not an integer"},
      {"an exponent", edited("\"bytes\": 8192", "\"bytes\": 8e3"), errc::corruption,
       "not an integer"},
      {"a negative count", edited("\"bytes\": 8192", "\"bytes\": -1"), errc::corruption, "outside"},
      {"a count over 2^63 - 1", edited("\"bytes\": 8192", "\"bytes\": 9223372036854775808"),
       errc::corruption, "outside"},
      {"a string count", edited("\"rows\": 2", "\"rows\": \"2\""), errc::corruption,
       "not an integer"},
      {"generation 0", edited("\"generation\": 3", "\"generation\": 0"), errc::corruption,
       "generation 0"},
      {"upper-case hex", edited("\"6d\"", "\"6D\""), errc::corruption, "lowercase hex"},
      {"odd hex", edited("\"6d\"", "\"6\""), errc::corruption, "lowercase hex"},
      {"a short digest", edited("\"0123456789abcdef\"", "\"0123\""), errc::corruption,
       "16 lowercase hex"},
      {"unique not a bool", edited("\"unique\": true", "\"unique\": 1"), errc::corruption,
       "not true or false"},
      {"an unknown function", edited("\"range-v1\"", "\"range-v9\""), errc::unsupported_version,
       "range-v9"},
      {"splits out of order", edited("\"splits\": [\"6d\"]", "\"splits\": [\"6d\", \"61\"]"),
       errc::corruption, "split key"},
      {"two tables of one name", edited("\"name\": \"names\"", "\"name\": \"by_id\""),
       errc::corruption, "two tables"},
      {"two indexes of one name", edited("\"name\": \"city\"", "\"name\": \"email\""),
       errc::corruption, "two indexes"},
      {"a file in another folder", edited("\"shard-00000.drydb\"", "\"../x.drydb\""),
       errc::corruption, "not one file"},
      {"the folder itself", edited("\"shard-00000.drydb\"", "\"..\""), errc::corruption,
       "not one file"},
      {"two shards of one file", edited("\"shard-00001.drydb\"", "\"shard-00000.drydb\""),
       errc::corruption, "two shards"},
      {"a missing shard table", edited(", {\"rows\": 0}]", "]"), errc::corruption,
       "describes 1 tables"},
      {"keys of no rows",
       edited("{\"rows\": 0}", "{\"rows\": 0, \"first\": \"61\", \"last\": \"61\"}"),
       errc::corruption, "unknown member"},
      {"no keys of rows", edited("{\"rows\": 0}", "{\"rows\": 5}"), errc::corruption,
       "no member \"first\""},
      {"last before first",
       edited("\"first\": \"6d\", \"last\": \"7a6564\"", "\"first\": \"7a\", \"last\": \"6d\""),
       errc::corruption, "last key is before its first"},
      {"one row, two keys",
       edited("\"last\": \"8000000000000064\"", "\"last\": \"8000000000000065\""), errc::corruption,
       "one row with two keys"},
      {"a key below its shard", edited("\"first\": \"6d\"", "\"first\": \"6c\""), errc::corruption,
       "before the split key"},
      {"a key above its shard",
       edited("\"last\": \"8000000000000063\"", "\"last\": \"8000000000000064\""), errc::corruption,
       "not before the split key"},
      {"an int64 split key of 2 bytes", edited("\"8000000000000064\"]", "\"0001\"]"),
       errc::corruption, "not 8 bytes"},
      {"an int64 key of 3 bytes",
       edited("\"first\": \"7ffffffffffffffb\"", "\"first\": \"000000\""), errc::corruption,
       "not 8 bytes"},
      {"many rows, one key", edited("\"last\": \"7a6564\"", "\"last\": \"6d\""), errc::corruption,
       "3 rows with one key"},
      {"no tables",
       edited("\"tables\": [\n  {\"name\": \"by_id\"",
              "\"tables\": [], \"x\": [{\"name\": \"by_id\""),
       errc::corruption, ""},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    auto m = drydb::parse_manifest(c.json);
    ASSERT_FALSE(m) << c.json;
    EXPECT_EQ(m.code(), c.code) << m.error().message;
    EXPECT_NE(m.error().message.find(c.message), std::string::npos) << m.error().message;
  }
}

// A hash-partitioned table's shard describes its own rows: its first and last keys hash to it.
TEST(Manifest, HashShardsKeysRouteToTheirShard) {
  drydb::Manifest m;
  m.dataset = "d";
  m.generation = 1;
  m.tables.push_back({"t", "bytes", {}, {std::string(drydb::kHashPartitioning), {}}});
  // Keys of each shard of 3, found by the partition function itself.
  std::vector<std::vector<std::string>> keys(3);
  for (int i = 0; keys[0].size() < 2 || keys[1].size() < 2 || keys[2].size() < 2; ++i) {
    const std::string k = "k" + std::to_string(i);
    auto& of = keys[drydb::shard_of(m.tables[0].partitioning, 3, k)];
    if (of.size() < 2) of.push_back(k);
  }
  for (uint32_t s = 0; s < 3; ++s) {
    std::sort(keys[s].begin(), keys[s].end());
    m.shards.push_back(
        {"s" + std::to_string(s), 1, 0, {{2, keys[s][0], keys[s][1]}}, std::nullopt});
  }
  EXPECT_TRUE(drydb::check_manifest(m));
  drydb::Manifest wrong = m;  // shard 1 says one of its keys is shard 2's
  const auto [low, high] = std::minmax(keys[1][0], keys[2][0]);
  wrong.shards[1].tables[0] = {2, low, high};
  const auto st = drydb::check_manifest(wrong);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.code(), errc::invalid_argument);
  EXPECT_NE(st.error().message.find("key belongs to shard 2"), std::string::npos)
      << st.error().message;
}

TEST(Manifest, ChecksWhatItWrites) {
  Manifest m = sample();
  m.dataset = "\xff not UTF-8";
  EXPECT_EQ(drydb::check_manifest(m).code(), errc::invalid_argument);
  TempDir dir;
  EXPECT_EQ(drydb::write_manifest(dir.path(), m).code(), errc::invalid_argument);
  EXPECT_EQ(dir.entries(), std::vector<std::string>{});
  m = sample();
  m.shards.pop_back();  // one split key left for one shard
  EXPECT_EQ(drydb::check_manifest(m).code(), errc::invalid_argument);
}

TEST(Manifest, WrittenWholeAndReadBack) {
  TempDir dir;
  const Manifest m = sample();
  ASSERT_TRUE(drydb::write_manifest(dir.path(), m));
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"manifest.json"});
  for (const auto& path : {dir.path(), dir / "manifest.json"}) {
    auto back = drydb::read_manifest(path);
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_TRUE(same(*back, m));
  }
  auto missing = drydb::read_manifest(dir / "nothing.json");
  EXPECT_EQ(missing.code(), errc::io_error) << missing.error().message;
#if !defined(_WIN32)  // Windows' file system has no FIFO
  // A FIFO is refused, not opened (which would block).
  ASSERT_EQ(::mkfifo((dir / "fifo.json").c_str(), 0600), 0);
  EXPECT_EQ(drydb::read_manifest(dir / "fifo.json").code(), errc::invalid_argument);
#endif
  // Over the size limit: refused before it is parsed.
  {
    std::ofstream big(dir / "big.json");
    big << std::string(drydb::kMaxManifestBytes + 1, ' ');
  }
  auto big = drydb::read_manifest(dir / "big.json");
  EXPECT_EQ(big.code(), errc::corruption);
  EXPECT_NE(big.error().message.find("over"), std::string::npos);
}

// The fuzz target's committed inputs (tests/fuzz/corpus/manifest, regressions/manifest) through
// its harness: the seeds that are manifests parse, and none makes the harness find a fault.
TEST(Manifest, FuzzInputsReplay) {
  drydb_fuzz::fail_handler = [](const std::string& what) { ADD_FAILURE() << what; };
  const auto root = std::filesystem::path(__FILE__).parent_path().parent_path() / "fuzz";
  std::vector<std::string> parsed;
  size_t inputs = 0;
  for (const char* kind : {"corpus", "regressions"}) {
    std::error_code ec;
    for (std::filesystem::directory_iterator it(root / kind / "manifest", ec), end;
         !ec && it != end; it.increment(ec)) {
      std::ifstream in(it->path(), std::ios::binary);
      const std::string data((std::istreambuf_iterator<char>(in)), {});
      SCOPED_TRACE(it->path().string());
      drydb_fuzz::run_manifest(reinterpret_cast<const uint8_t*>(data.data()), data.size());
      ++inputs;
      if (drydb::parse_manifest(data)) parsed.push_back(it->path().filename().string());
    }
  }
  std::sort(parsed.begin(), parsed.end());
  EXPECT_GE(inputs, 5u);
  EXPECT_EQ(parsed,
            (std::vector<std::string>{"hash_two_tables", "one_shard", "range_three_shards"}));
}

// ---- generations --------------------------------------------------------------------------------

// Writes generation N's folder with a manifest of that generation.
void make_generation(const TempDir& ds, uint64_t n) {
  Manifest m = sample();
  m.generation = n;
  const auto folder = ds / drydb::generation_folder(n);
  std::filesystem::create_directories(folder);
  ASSERT_TRUE(drydb::write_manifest(folder, m));
}

std::string text_of(const std::filesystem::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(Generations, PublishRollBackAndNeverReuseANumber) {
  TempDir ds;
  EXPECT_EQ(*drydb::current_generation(ds.path()), 0u);
  EXPECT_EQ(*drydb::next_generation(ds.path()), 1u);
  // A folder without a manifest is a generation being built: never published.
  std::filesystem::create_directories(ds / "gen-1");
  EXPECT_EQ(*drydb::next_generation(ds.path()), 2u);
  EXPECT_FALSE(drydb::publish_generation(ds.path(), 1));
  EXPECT_FALSE(std::filesystem::exists(ds / "CURRENT"));
  make_generation(ds, 1);
  ASSERT_TRUE(drydb::publish_generation(ds.path(), 1));
  EXPECT_EQ(text_of(ds / "CURRENT"), "gen-1\n");
  EXPECT_EQ(text_of(ds / "HIGHEST"), "1\n");
  make_generation(ds, 2);
  ASSERT_TRUE(drydb::publish_generation(ds.path(), 2));
  EXPECT_EQ(*drydb::current_generation(ds.path()), 2u);
  // Roll back: CURRENT names gen-1 again; HIGHEST stays, so 2 is never given again, even once
  // gen-2's folder is gone.
  auto back = drydb::rollback_generation(ds.path());
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(*back, 1u);
  EXPECT_EQ(text_of(ds / "CURRENT"), "gen-1\n");
  EXPECT_EQ(text_of(ds / "HIGHEST"), "2\n");
  std::filesystem::remove_all(ds / "gen-2");
  EXPECT_EQ(*drydb::next_generation(ds.path()), 3u);
  EXPECT_EQ(drydb::rollback_generation(ds.path()).code(), errc::not_found);
  // A manifest of another generation than its folder says is refused.
  Manifest wrong = sample();
  wrong.generation = 9;
  std::filesystem::create_directories(ds / "gen-3");
  ASSERT_TRUE(drydb::write_manifest(ds / "gen-3", wrong));
  EXPECT_EQ(drydb::publish_generation(ds.path(), 3).code(), errc::corruption);
  EXPECT_EQ(text_of(ds / "CURRENT"), "gen-1\n");
}

TEST(Generations, KeepsTheNewestOlderOnes) {
  TempDir ds;
  for (uint64_t n = 1; n <= 5; ++n) {
    make_generation(ds, n);
    ASSERT_TRUE(drydb::publish_generation(ds.path(), n, /*keep=*/2));
  }
  EXPECT_EQ(ds.entries(),
            (std::vector<std::string>{"CURRENT", "HIGHEST", "gen-3", "gen-4", "gen-5"}));
  make_generation(ds, 6);
  ASSERT_TRUE(drydb::publish_generation(ds.path(), 6, /*keep=*/0));
  EXPECT_EQ(ds.entries(), (std::vector<std::string>{"CURRENT", "HIGHEST", "gen-6"}));
}

TEST(Generations, ClaimedNumbersAreNeverShared) {
  TempDir ds;
  EXPECT_EQ(*drydb::claim_generation(ds / "new"), 1u);  // creates the dataset folder too
  EXPECT_EQ(*drydb::claim_generation(ds / "new"), 2u);  // gen-1 exists, unpublished: 2
  // Threads claiming at once each get a number of their own.
  std::vector<uint64_t> got(8);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < got.size(); ++i)
    threads.emplace_back([&, i] { got[i] = *drydb::claim_generation(ds.path()); });
  for (auto& t : threads)
    t.join();
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, (std::vector<uint64_t>{1, 2, 3, 4, 5, 6, 7, 8}));
}

TEST(Generations, RetentionAndRollbackCountOnlyCompleteGenerations) {
  TempDir ds;
  make_generation(ds, 1);
  make_generation(ds, 2);
  std::filesystem::create_directories(ds / "gen-3");  // being built, or abandoned
  std::filesystem::create_directories(ds / "gen-4");
  make_generation(ds, 5);
  ASSERT_TRUE(drydb::publish_generation(ds.path(), 5, /*keep=*/1));
  // gen-2 is the one complete older generation kept; the folders without a manifest stay.
  EXPECT_EQ(ds.entries(),
            (std::vector<std::string>{"CURRENT", "HIGHEST", "gen-2", "gen-3", "gen-4", "gen-5"}));
  // A generation whose manifest does not read is not rolled back to.
  std::ofstream(ds / "gen-4" / "manifest.json") << "{";
  auto back = drydb::rollback_generation(ds.path());
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(*back, 2u);
}

// The library's dataset points (drydb/build_points.h), for the races below: what runs at
// the next `dataset_locking` or `dataset_published` point, once.
std::function<void()> g_at_locking, g_at_published;
void run_dataset_point(drydb::BuildPoint point) {
  using drydb::BuildPoint;
  std::function<void()>* action = point == BuildPoint::dataset_locking     ? &g_at_locking
                                  : point == BuildPoint::dataset_published ? &g_at_published
                                                                           : nullptr;
  if (action == nullptr || !*action) return;
  const std::function<void()> run = std::exchange(*action, nullptr);
  run();
}
struct DatasetPoints {
  DatasetPoints() { drydb::set_build_point_hook(run_dataset_point); }
  ~DatasetPoints() {
    drydb::set_build_point_hook(nullptr);
    g_at_locking = g_at_published = nullptr;
  }
};

TEST(Generations, PublishChecksItsGenerationUnderTheLock) {
  TempDir ds;
  for (uint64_t n = 1; n <= 3; ++n)
    make_generation(ds, n);
  ASSERT_TRUE(drydb::publish_generation(ds.path(), 1));
  DatasetPoints points;
  // While publish(2) waits for the lock, publish(3, keep 0) removes gen-2: publish(2) then finds
  // it gone and changes nothing, where CURRENT would otherwise name a removed folder.
  g_at_locking = [&] { EXPECT_TRUE(drydb::publish_generation(ds.path(), 3, /*keep=*/0)); };
  auto published = drydb::publish_generation(ds.path(), 2);
  EXPECT_FALSE(published);
  EXPECT_EQ(text_of(ds / "CURRENT"), "gen-3\n");
  EXPECT_EQ(ds.entries(), (std::vector<std::string>{"CURRENT", "HIGHEST", "gen-3"}));
}

TEST(Generations, PublishRaisesHighestBeforeCurrentAndReportsRetention) {
  TempDir ds;
  for (uint64_t n = 1; n <= 4; ++n)
    make_generation(ds, n);
  ASSERT_TRUE(drydb::publish_generation(ds.path(), 1));
  DatasetPoints points;
  // When CURRENT names the new generation, HIGHEST already does: a generation ever live is
  // never above HIGHEST (discard_generation counts on it).
  g_at_published = [&] {
    EXPECT_EQ(text_of(ds / "CURRENT"), "gen-3\n");
    EXPECT_EQ(text_of(ds / "HIGHEST"), "3\n");
  };
  auto published = drydb::publish_generation(ds.path(), 3, /*keep=*/0);
  ASSERT_TRUE(published) << published.error().message;
  EXPECT_EQ(published->removed, (std::vector<uint64_t>{1, 2}));
  EXPECT_TRUE(published->warnings.empty());
  EXPECT_FALSE(g_at_published);  // the point was reached
  // Publishing an older generation leaves HIGHEST where it is.
  make_generation(ds, 2);
  ASSERT_TRUE(drydb::publish_generation(ds.path(), 2));
  EXPECT_EQ(text_of(ds / "HIGHEST"), "3\n");
}

TEST(Generations, DiscardRemovesOnlyWhatNoPublishCanHaveNamed) {
  TempDir ds;
  for (uint64_t n = 1; n <= 3; ++n)
    make_generation(ds, n);
  ASSERT_TRUE(drydb::publish_generation(ds.path(), 2, /*keep=*/5));  // HIGHEST 2
  std::filesystem::create_directories(ds / "gen-4");                 // being built
  make_generation(ds, 5);                                            // complete, unpublished
  // Live: kept.
  EXPECT_EQ(drydb::discard_generation(ds.path(), 2).value(), false);
  // Complete and at or below HIGHEST: it may have been live (or be rolled back to): kept.
  EXPECT_EQ(drydb::discard_generation(ds.path(), 1).value(), false);
  // No manifest: never published, whatever its number: removed.
  EXPECT_EQ(drydb::discard_generation(ds.path(), 4).value(), true);
  // Complete, above HIGHEST and not live: removed.
  EXPECT_EQ(drydb::discard_generation(ds.path(), 5).value(), true);
  EXPECT_EQ(drydb::discard_generation(ds.path(), 9).value(), true);  // not there
  EXPECT_EQ(ds.entries(),
            (std::vector<std::string>{"CURRENT", "HIGHEST", "gen-1", "gen-2", "gen-3"}));
  // gen-3: published by another run after this one gave up on publishing it, then superseded.
  ASSERT_TRUE(drydb::publish_generation(ds.path(), 3, /*keep=*/5));
  make_generation(ds, 6);
  ASSERT_TRUE(drydb::publish_generation(ds.path(), 6, /*keep=*/5));
  EXPECT_EQ(drydb::discard_generation(ds.path(), 3).value(), false);
  EXPECT_EQ(*drydb::rollback_generation(ds.path()), 3u);
}

TEST(Generations, DiscardWaitsForAPublishInFlight) {
  TempDir ds;
  make_generation(ds, 1);
  DatasetPoints points;
  // Another run publishes gen-1 while this one is about to discard it: the discard, under the
  // lock after it, keeps it.
  g_at_locking = [&] { EXPECT_TRUE(drydb::publish_generation(ds.path(), 1)); };
  EXPECT_EQ(drydb::discard_generation(ds.path(), 1).value(), false);
  EXPECT_EQ(text_of(ds / "CURRENT"), "gen-1\n");
  EXPECT_TRUE(std::filesystem::exists(ds / "gen-1" / "manifest.json"));
}

// A child forked while a publish holds the dataset's lock (by any thread of the program, a moment
// before its exec) shares the lock; the publish still drops it, so the next publish, rollback
// or discard need not wait for that child.
TEST(Generations, AChildForkedDuringAPublishLeavesTheDatasetUnlocked) {
#if defined(_WIN32)
  GTEST_SKIP() << "POSIX only: fork, and the dataset's lock taken with flock(2)";
#else
  TempDir ds;
  make_generation(ds, 1);
  std::optional<ForkedHolder> holder;
  {
    DatasetPoints points;
    g_at_published = [&] { holder.emplace(); };
    ASSERT_TRUE(drydb::publish_generation(ds.path(), 1));
  }
  ASSERT_TRUE(holder && holder->started());
  const int fd = ::open(ds.path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(::flock(fd, LOCK_EX | LOCK_NB), 0) << "the dataset is locked: " << std::strerror(errno);
  ::close(fd);
#endif
}

TEST(Generations, ClaimMakesAgainADatasetFolderRemovedMeanwhile) {
  TempDir ds;
  const auto folder = ds / "new";
  EXPECT_EQ(*drydb::claim_generation(folder), 1u);
  // A run that made the folder gives up: its generation discarded, the folder removed, empty.
  ASSERT_EQ(drydb::discard_generation(folder, 1).value(), true);
  ASSERT_TRUE(std::filesystem::remove(folder));  // empty: as rmdir(2)
  EXPECT_EQ(*drydb::claim_generation(folder), 1u);
  EXPECT_TRUE(std::filesystem::is_directory(folder / "gen-1"));
}

TEST(Generations, DamagedPointersAreCorruption) {
  TempDir ds;
  for (const char* text :
       {"gen-0\n", "gen-01\n", "gen-1", "generation 1\n", "gen-1\ngen-2\n", ""}) {
    std::ofstream(ds / "CURRENT", std::ios::trunc) << text;
    EXPECT_EQ(drydb::current_generation(ds.path()).code(), errc::corruption) << text;
  }
  std::ofstream(ds / "CURRENT", std::ios::trunc) << "gen-12\n";
  EXPECT_EQ(*drydb::current_generation(ds.path()), 12u);
  std::ofstream(ds / "HIGHEST", std::ios::trunc) << "x\n";
  EXPECT_EQ(drydb::next_generation(ds.path()).code(), errc::corruption);
}

}  // namespace
