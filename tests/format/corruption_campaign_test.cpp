// Corruption campaign over a realistic file: every bit of a sample of pages of a 10,000-row
// database is flipped, one flip at a time, and every flip must be either
//   detected   open, a query or verify() returns an error, or
//   harmless   nothing reports an error, verify() passes, and every query answer is identical
//              to the model (full_check below: walks both ways over every row, gets, seeks,
//              counts and ranges over probe bounds in both orders, prefixes); for the bytes
//              the format leaves unused (below), reported by verify() alone,
// never a silently wrong answer, a crash or a hang. The same for truncation at every page
// boundary. The detection rate is printed (and recorded as test properties).
//
// The file (page size 512, 10,000 rows, about 1,000 pages):
//   items  bytes keys "item/NNNNNN[/suffix]", 5,000 rows, values 0..40 bytes and every 97th an
//          overflow value of 129..1,500 bytes (1 to 3 pages); depth 4
//   nums   int64 keys, 5,000 rows, 13-byte values (uniform leaves; DryDB's reference shape)
//          and every 1,000th a 700-byte overflow value; depth 3
// Sampled pages, all bits of each: the header page, per table the root, an internal page of
// level 1 (and of level 2 below the root of items), the first, a middle and the last leaf, the
// first page of an overflow run of two pages or more and the last page of a run of three
// (value bytes, then unused padding); and every bit of the catalog. Under sanitizers a sample
// of the bits is taken (see kBitStride).
//
// How a flip is judged, cheapest first: open; then gets of the keys whose lookups read the
// flipped page (so its checksum is checked); then verify(); then the full check against the
// model. What the format leaves unused (page 0 after its 64 header bytes; an overflow run's
// padding after its value) is read by no query, but the format says it is zero: its flips must
// all be reported by verify() and by nothing before it (the queries' answers on such files are
// checked in corruption_test's VerifyReportsNonzeroUnusedBytes); every other byte is under a
// checksum, so its flips must all be detected.
#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <cstdio>

#include "drydb/detail/node.h"
#include "support/fault_util.h"

namespace drydb_test {
namespace {

using drydb::ReadOnlyDatabase;
namespace fmt = drydb::detail;

// Every bit; every 4th under ASan, every 16th under TSan (which checks nothing in this
// single-threaded sweep but slows it most): the full checks of harmless flips dominate.
constexpr unsigned kBitStride = DRYDB_TEST_TSAN ? 16 : DRYDB_TEST_SANITIZED ? 4 : 1;

DbModel make_model() {
  DbModel m;
  m.page_size = 512;
  TableModel items = make_table("items", drydb::KeyEncoding::bytes());
  for (uint32_t i = 0; i < 5000; ++i) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "item/%06u%s", i * 7, i % 9 == 0 ? "/with-a-suffix" : "");
    size_t len = (i * 13) % 41;
    if (i % 97 == 11) len = 129 + (i * 131) % 1372;  // 1 to 3 overflow pages
    items.rows.emplace(buf, make_value(i, len));
  }
  TableModel nums = make_table("nums", drydb::KeyEncoding::int64());
  for (int64_t i = 0; i < 5000; ++i) {
    const size_t len = i % 1000 == 500 ? 700 : 13;
    nums.rows.emplace(int64_key(i * 11 - 20000),
                      make_value(100000 + static_cast<uint64_t>(i), len));
  }
  m.tables = {items, nums};
  m.finish();
  return m;
}

// A page of the sample: what it is and the keys (table index, encoded key) whose gets read it.
struct SamplePage {
  std::string what;
  uint64_t page;  // 0 = the header page
  std::vector<std::pair<size_t, std::string>> probes;
};

struct Fixture {
  DbModel model;
  std::vector<std::byte> file;
  FileMap map;
  std::vector<SamplePage> sample;
};

// The first key under a tree page: descend leftmost children to a leaf.
std::string first_key_under(const std::vector<std::byte>& f, uint32_t ps, uint64_t page,
                            fmt::KeyLayout layout) {
  for (;;) {
    const std::byte* p = f.data() + page * ps;
    if (static_cast<fmt::PageType>(p[fmt::page::kTypeOff]) == fmt::PageType::leaf) {
      fmt::KeyBuffer buf;
      return to_string(fmt::LeafView(p, layout).key(0, buf));
    }
    page = fmt::InternalView(p, layout).child(0);
  }
}

// Picks the sample pages of table `ti` (its pages are [first, end), root last).
void sample_table(Fixture& x, size_t ti, uint64_t first, uint64_t end, fmt::KeyLayout layout) {
  const uint32_t ps = x.map.page_size;
  const std::string& name = x.model.tables[ti].name;
  std::vector<uint64_t> leaves, level1, level2;
  uint64_t root = 0;
  std::vector<std::pair<uint64_t, std::string>> runs;  // run start page, key of its value
  for (uint64_t p = first; p < end; ++p) {
    if (x.map.run_start[p] != p) continue;
    const std::byte* b = x.file.data() + p * ps;
    switch (static_cast<fmt::PageType>(b[fmt::page::kTypeOff])) {
      case fmt::PageType::leaf: {
        leaves.push_back(p);
        fmt::LeafView leaf(b, layout);
        fmt::KeyBuffer buf;
        for (uint32_t i = 0; i < leaf.size(); ++i)
          if (leaf.is_overflow(i))
            runs.emplace_back(fmt::load_u64(leaf.value_field(i).data()),
                              to_string(leaf.key(i, buf)));
        break;
      }
      case fmt::PageType::internal: {
        const uint16_t level = fmt::load_u16(b + fmt::internal::kLevelOff);
        root = p;  // the root is written last
        (level == 1 ? level1 : level2).push_back(p);
        break;
      }
      default:
        break;
    }
  }
  auto add = [&](const std::string& what, uint64_t page, std::vector<std::string> keys) {
    SamplePage s{name + " " + what, page, {}};
    for (auto& k : keys)
      s.probes.emplace_back(ti, std::move(k));
    x.sample.push_back(std::move(s));
  };
  auto first_key = [&](uint64_t p) { return first_key_under(x.file, ps, p, layout); };
  add("root", root, {first_key(root), x.model.tables[ti].sorted.back().first});
  add("internal, level 1", level1[level1.size() / 2], {first_key(level1[level1.size() / 2])});
  for (uint64_t p : level2)
    if (p != root) {
      add("internal, level 2", p, {first_key(p)});
      break;
    }
  add("first leaf", leaves.front(), {first_key(leaves.front())});
  add("middle leaf", leaves[leaves.size() / 2], {first_key(leaves[leaves.size() / 2])});
  add("last leaf", leaves.back(), {first_key(leaves.back())});
  // The first page of the first run of two pages or more (every byte used), and the last page
  // of the first run of three (its value's tail, then padding).
  bool first_done = false;
  for (const auto& [start, key] : runs) {
    const uint64_t len = fmt::load_u32(x.file.data() + start * ps + fmt::overflow::kLengthOff);
    const uint64_t pages = fmt::overflow::pages_for(len, ps);
    if (pages >= 2 && !first_done) {
      add("overflow run, first page", start, {key});
      first_done = true;
    }
    if (pages >= 3) {
      add("overflow run, last of " + std::to_string(pages) + " pages", start + pages - 1, {key});
      break;
    }
  }
}

const Fixture& fixture() {
  static const Fixture* f = [] {
    auto* x = new Fixture;
    x->model = make_model();
    x->file = build_memory(x->model);
    x->map = map_file(x->file);
    auto db = ReadOnlyDatabase::open_memory(x->file);
    if (!db) {
      ADD_FAILURE() << db.error().to_string();
      return x;
    }
    x->sample.push_back({"header page", 0, {{0, x->model.tables[0].sorted[0].first}}});
    uint64_t first = 1;
    for (size_t ti = 0; ti < x->model.tables.size(); ++ti) {
      const auto info = db->table(x->model.tables[ti].name)->info();
      const uint64_t end = first + info.leaf_pages + info.internal_pages + info.overflow_pages;
      sample_table(*x, ti, first, end,
                   fmt::KeyLayout{static_cast<uint16_t>(info.encoding.fixed_width())});
      first = end;
    }
    return x;
  }();
  return *f;
}

// Every query kind of every table, compared with the model: walks both ways (every key and
// value, in both directions), gets of 64 rows (a different slice per `subset`) and of absent
// keys, seeks, and the slice of counts, ranges and prefixes over probe bounds that `subset`
// picks (check_table of fault_util.h without its get of every row, which the walks cover).
void full_check(const ReadOnlyDatabase& db, const DbModel& m, Outcome& out, uint64_t subset) {
  if (db.tables().size() != m.tables.size()) out.mismatch("wrong number of tables");
  for (const auto& t : m.tables) {
    auto table = db.table(t.name);
    if (!table) {
      out.mismatch("table " + t.name + " is missing");
      continue;
    }
    if (table->count() != t.size()) out.mismatch(t.name + ": count() differs");
    check_walk(*table, t, true, out);
    check_walk(*table, t, false, out);
    for (size_t j = 0; j < 64; ++j)
      check_get(*table, t, t.sorted[(subset * 64 + j * 97) % t.size()].first, out);
    const auto bounds = probe_bounds(t);
    for (size_t i = 0; i < bounds.size(); ++i)
      if (bounds[i].bounded) {
        check_get(*table, t, bounds[i].key, out);
        if (i % 4 == subset % 4) check_seek(*table, t, bounds[i].key, out);
      }
    check_bound_pairs(*table, t, bounds, out, subset);
    if (t.enc.kind() == drydb::KeyKind::bytes) {
      const std::string& mid = t.sorted[(subset * 31) % t.size()].first;
      check_prefix(*table, t, mid.substr(0, subset % (mid.size() + 1)),
                   subset % 2 ? drydb::SortOrder::descending : drydb::SortOrder::ascending, out);
    }
  }
}

enum class Verdict { open, query, verify, harmless, wrong };

struct Tally {
  uint64_t flips = 0;
  std::array<uint64_t, 5> by{};  // per Verdict
  uint64_t used_flips = 0, used_detected = 0;
  uint64_t detected() const { return by[0] + by[1] + by[2]; }
};

// Judges one damaged copy of the file (the flip at `offset`).
Verdict judge(const Fixture& f, std::span<const std::byte> bytes, const SamplePage* page,
              uint64_t subset, std::string* why) {
  auto db = ReadOnlyDatabase::open_memory(bytes);
  if (!db) return Verdict::open;
  if (page != nullptr)
    for (const auto& [ti, key] : page->probes) {
      auto t = db->table(f.model.tables[ti].name);
      if (!t) return Verdict::query;
      auto v = t->get(key_of(f.model.tables[ti], key));
      if (!v) return Verdict::query;
    }
  if (!db->verify()) return Verdict::verify;
  Outcome out;
  full_check(*db, f.model, out, subset);
  if (out.detected()) return Verdict::query;
  if (!out.wrong.empty()) {
    *why = out.wrong[0];
    return Verdict::wrong;
  }
  return Verdict::harmless;
}

TEST(CorruptionCampaign, FixtureShape) {
  const Fixture& f = fixture();
  ASSERT_FALSE(f.file.empty());
  auto db = ReadOnlyDatabase::open_memory(f.file);
  ASSERT_TRUE(db);
  uint64_t rows = 0;
  for (const auto& t : db->tables()) {
    rows += t.count();
    EXPECT_GE(t.info().depth, t.name() == "items" ? 4u : 3u) << t.name();
    EXPECT_GT(t.info().overflow_pages, 0u) << t.name();
  }
  EXPECT_EQ(rows, 10000u);
  // Header, catalog and per table root, two internal levels, three leaves, two overflow pages.
  EXPECT_GE(f.sample.size(), 14u);
  EXPECT_TRUE(db->verify());
  Outcome out;
  check_database(*db, f.model, out);
  expect_all_correct(out, 10000);
  Outcome light;
  full_check(*db, f.model, light, 0);
  expect_all_correct(light, 100);
}

TEST(CorruptionCampaign, EveryBitOfSampledPages) {
  const Fixture& f = fixture();
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<std::byte> copy = f.file;
  std::map<std::string, Tally> per_kind;
  Tally total;
  std::vector<std::string> failures;
  auto flip_range = [&](const std::string& kind, uint64_t begin, uint64_t end,
                        const SamplePage* page) {
    Tally& t = per_kind[kind];
    for (uint64_t o = begin; o < end; ++o)
      for (unsigned bit = (o * 3) % kBitStride; bit < 8; bit += kBitStride) {
        const std::byte mask{static_cast<uint8_t>(1u << bit)};
        copy[o] ^= mask;
        std::string why;
        const Verdict v = judge(f, copy, page, o * 8 + bit, &why);
        copy[o] ^= mask;
        const bool used =
            f.map.use[o] != ByteUse::header_padding && f.map.use[o] != ByteUse::overflow_padding;
        for (Tally* x : {&t, &total}) {
          ++x->flips;
          ++x->by[static_cast<size_t>(v)];
          if (used) {
            ++x->used_flips;
            if (v != Verdict::harmless && v != Verdict::wrong) ++x->used_detected;
          }
        }
        if (v == Verdict::wrong || (used && v == Verdict::harmless) ||
            (!used && v != Verdict::verify)) {
          if (failures.size() < 20)
            failures.push_back(kind + ": offset " + std::to_string(o) + " bit " +
                               std::to_string(bit) + " (" + use_name(f.map.use[o]) + "): " +
                               (v == Verdict::wrong ? "wrong answer: " + why
                                : used              ? "a used byte's flip went unnoticed"
                                       : "an unused byte's flip was not reported by verify() "
                                         "alone"));
        }
      }
  };
  for (const SamplePage& s : f.sample)
    flip_range(s.what, s.page * f.map.page_size, (s.page + 1) * f.map.page_size, &s);
  flip_range("catalog", f.map.catalog_offset, f.file.size(), nullptr);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  std::printf("[ corruption campaign ] %zu-byte file, %llu single-bit flips in %.1f s%s\n",
              f.file.size(), static_cast<unsigned long long>(total.flips), secs,
              kBitStride > 1 ? " (a sample of the bits: sanitizer build)" : "");
  std::printf("    %-36s %7s %7s %7s %7s %8s %6s %9s\n", "page", "flips", "open", "query", "verify",
              "harmless", "wrong", "detected");
  auto row = [](const std::string& name, const Tally& t) {
    std::printf("    %-36s %7llu %7llu %7llu %7llu %8llu %6llu %8.2f%%\n", name.c_str(),
                static_cast<unsigned long long>(t.flips), static_cast<unsigned long long>(t.by[0]),
                static_cast<unsigned long long>(t.by[1]), static_cast<unsigned long long>(t.by[2]),
                static_cast<unsigned long long>(t.by[3]), static_cast<unsigned long long>(t.by[4]),
                t.flips ? 100.0 * static_cast<double>(t.detected()) / t.flips : 0.0);
  };
  for (const auto& [name, t] : per_kind)
    row(name, t);
  row("all", total);
  std::printf(
      "    detection rate: %.2f%% of all flips; %.2f%% of flips of used bytes (%llu); "
      "the rest are in unused bytes, which verify() alone reports\n",
      100.0 * static_cast<double>(total.detected()) / static_cast<double>(total.flips),
      100.0 * static_cast<double>(total.used_detected) / static_cast<double>(total.used_flips),
      static_cast<unsigned long long>(total.used_flips));
  RecordProperty("flips", std::to_string(total.flips));
  RecordProperty("detected", std::to_string(total.detected()));
  RecordProperty("used_detected",
                 std::to_string(total.used_detected) + "/" + std::to_string(total.used_flips));
  EXPECT_EQ(total.by[static_cast<size_t>(Verdict::wrong)], 0u);
  EXPECT_EQ(total.used_detected, total.used_flips);
  EXPECT_TRUE(failures.empty()) << [&] {
    std::string s;
    for (const auto& x : failures)
      s += "  " + x + "\n";
    return s;
  }();
  EXPECT_GT(total.flips, 60000u / kBitStride);
}

// Truncation at every page boundary (and one byte either side of it, and inside the catalog):
// open refuses with errc::truncated, in place and through a page cache.
TEST(CorruptionCampaign, TruncationAtEveryPageBoundary) {
  const Fixture& f = fixture();
  const uint64_t ps = f.map.page_size;
  uint64_t cuts = 0, detected = 0;
  std::vector<uint64_t> lengths;
  for (uint64_t p = 0; p <= f.map.page_count; ++p)
    for (int64_t d : {-1, 0, 1}) {
      const int64_t len = static_cast<int64_t>(p * ps) + d;
      if (len >= 0 && static_cast<uint64_t>(len) < f.file.size())
        lengths.push_back(static_cast<uint64_t>(len));
    }
  for (uint64_t len = f.map.catalog_offset; len < f.file.size(); len += 7)
    lengths.push_back(len);
  lengths.push_back(f.file.size() - 1);
  for (uint64_t len : lengths) {
    const std::span<const std::byte> cut(f.file.data(), len);
    for (bool cached : {false, true}) {
      auto db = cached ? open_cached(cut, 4 * ps) : ReadOnlyDatabase::open_memory(cut);
      ++cuts;
      if (!db) {
        ++detected;
        EXPECT_EQ(db.code(), errc::truncated) << len << ": " << db.error().to_string();
        continue;
      }
      ADD_FAILURE() << "a file cut to " << len << " bytes opened";
    }
  }
  std::printf("[ truncation ] %llu cuts (%llu page boundaries), %llu detected at open (%.2f%%)\n",
              static_cast<unsigned long long>(cuts),
              static_cast<unsigned long long>(f.map.page_count + 1),
              static_cast<unsigned long long>(detected),
              100.0 * static_cast<double>(detected) / static_cast<double>(cuts));
  RecordProperty("truncation_detected", std::to_string(detected) + "/" + std::to_string(cuts));
  EXPECT_EQ(detected, cuts);
}

}  // namespace
}  // namespace drydb_test
