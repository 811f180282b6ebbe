// Writes the seed corpus of the fuzz targets: fuzz_make_corpus <dir> fills <dir>/open,
// <dir>/page and <dir>/build. The seeds are committed (tests/fuzz/corpus/); rerun this after a
// change of the file format or of a target's input layout, and commit the result. Empty the
// folders first: a seed of a page the base file no longer has is not overwritten, and would stay
// to write a stale page elsewhere (fuzz_regression_test expects every page seed to verify).
// Regression inputs that pick a page or the catalog by number may need their first byte
// updated too (fuzz_regression_test fails when one no longer ends as expected).
//
//   open   small valid databases (every key encoding, leaves, uniform leaves, internal pages at
//          two levels, overflow runs, an empty table, miss filters, pages with and without
//          prefixed keys, page sizes 512 to 4,096), two not-quite files, and the golden files
//          of tests/data that fit scripts/fuzz.sh's max_len for the target (64 KiB), as each
//          version's builder wrote them (golden_<version>_<name>; at least one per version)
//   page   for each kind of page of the page target's base file (leaf, internal, root, overflow
//          run start and continuation, per table) and for its catalog, the input that writes
//          the page back unchanged
//   build  requests covering every encoding, deep trees, spilling budgets, every page size,
//          overflow values, secondary indexes of every kind (unique, non-unique, sparse, empty;
//          bytes, int64, uuid, custom fixed and variable keys), each page filter chain, and each
//          builder error the model predicts (index errors included)
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "page_target.h"

namespace {

namespace fs = std::filesystem;
using drydb_fuzz::fmt::PageType;

void write(const fs::path& dir, const std::string& name, const void* data, size_t size) {
  fs::create_directories(dir);
  std::ofstream out(dir / name, std::ios::binary | std::ios::trunc);
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
  if (!out) {
    std::fprintf(stderr, "cannot write %s\n", (dir / name).c_str());
    std::exit(1);
  }
}
void write(const fs::path& dir, const std::string& name, const std::vector<std::byte>& b) {
  write(dir, name, b.data(), b.size());
}
void write(const fs::path& dir, const std::string& name, const std::string& s) {
  write(dir, name, s.data(), s.size());
}

std::vector<std::byte> build(drydb::DatabaseBuilder& b) {
  auto r = b.build_to_memory();
  if (!r) {
    std::fprintf(stderr, "seed build failed: %s\n", r.error().message.c_str());
    std::exit(1);
  }
  return std::move(*r);
}

// The input size cap scripts/fuzz.sh gives the open target (-max_len): libFuzzer cuts longer
// seeds to it, which would leave a truncated file.
constexpr uintmax_t kOpenMaxLen = 65536;

// The golden files of every format version (tests/data/format2*/), as they are: readers of
// today must take the files every earlier builder wrote (checksums without a file identity,
// headers of minor versions 0 to 3), so the open target starts from them too. Fails when a
// version has no file that fits kOpenMaxLen.
void golden_seeds(const fs::path& dir) {
  const fs::path data = fs::path(__FILE__).parent_path().parent_path() / "data";
  std::vector<fs::path> versions;
  for (const auto& e : fs::directory_iterator(data))
    if (e.is_directory() && e.path().filename().string().rfind("format", 0) == 0)
      versions.push_back(e.path());
  std::sort(versions.begin(), versions.end());
  for (const fs::path& version : versions) {
    size_t written = 0;
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(version))
      if (e.path().extension() == ".drydb") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const fs::path& f : files) {
      if (fs::file_size(f) > kOpenMaxLen) continue;
      std::ifstream in(f, std::ios::binary);
      const std::string bytes((std::istreambuf_iterator<char>(in)),
                              std::istreambuf_iterator<char>());
      const std::string name = version.filename().string().substr(6);  // "format2.1" -> "2.1"
      write(dir, "golden_" + name + "_" + f.stem().string(), bytes);
      ++written;
    }
    if (written == 0) {
      std::fprintf(stderr, "no golden file of %s fits %ju bytes\n", version.c_str(), kOpenMaxLen);
      std::exit(1);
    }
  }
}

void open_seeds(const fs::path& dir) {
  drydb_fuzz::register_encodings();
  {  // docs/format.md's worked example
    drydb::DatabaseBuilder b({.page_size = 512});
    auto& t = b.create_table("items");
    t.append("key2", "value2").append("key1", "value1").append("key3", "");
    write(dir, "tiny", build(b));
  }
  {  // int64 keys, uniform leaves, depth 2
    drydb::DatabaseBuilder b({.page_size = 512});
    auto& t = b.create_table("n", drydb::KeyEncoding::int64());
    for (int64_t i = 0; i < 120; ++i)
      t.append(i * 3 - 100, "12345678");
    write(dir, "int64_depth2", build(b));
  }
  {  // byte keys, depth 3, overflow runs of one and three pages
    drydb::DatabaseBuilder b({.page_size = 512});
    auto& t = b.create_table("b");
    for (int i = 0; i < 150; ++i) {
      char k[32];
      std::snprintf(k, sizeof k, "k%04d%s", i, i % 4 == 0 ? "/longer" : "");
      std::string v(static_cast<size_t>(i % 9), 'v');
      if (i == 40) v.assign(200, 'o');
      if (i == 90) v.assign(1300, 'p');
      t.append(k, v);
    }
    write(dir, "bytes_depth3_overflow", build(b));
  }
  // URL-like keys sharing a long prefix: leaves and internal pages storing it once (format
  // 2.2), and the same rows with whole keys.
  for (bool prefixed : {true, false}) {
    drydb::DatabaseBuilder b({.page_size = 512, .prefixed_keys = prefixed});
    auto& t = b.create_table("urls");
    for (uint32_t i = 0; i < 200; ++i) {
      char k[48];
      std::snprintf(k, sizeof k, "https://example.com/a/%08x", i * 2654435761u);
      t.append(k, std::string(i % 7, 'u'));
    }
    write(dir, prefixed ? "urls_prefixed" : "urls_whole_keys", build(b));
  }
  {  // every encoding, an empty table, a one-row table
    drydb::DatabaseBuilder b({.page_size = 1024});
    for (unsigned e = 0; e < drydb_fuzz::kEncodings; ++e) {
      const auto enc = drydb_fuzz::encoding_number(e);
      auto& t = b.create_table("t" + std::to_string(e), enc);
      const size_t width = enc.fixed_width();
      for (int i = 0; i < 12; ++i) {
        std::string k = width ? std::string(width, '\0') : std::string("key") + char('a' + i);
        if (width) k[width - 1] = static_cast<char>(i * 9);
        t.append(drydb_fuzz::typed_key(enc.kind(), k), std::string(static_cast<size_t>(i), 'x'));
      }
    }
    b.create_table("empty");
    b.create_table("one", drydb::KeyEncoding::int64()).append(int64_t{5}, "five");
    write(dir, "all_encodings", build(b));
  }
  {  // 4 KiB pages
    drydb::DatabaseBuilder b({.page_size = 4096});
    auto& t = b.create_table("big", drydb::KeyEncoding::int64());
    for (int64_t i = 0; i < 300; ++i)
      t.append(i, std::string(static_cast<size_t>(i % 5), 'a'));
    write(dir, "page_4096", build(b));
  }
  // Secondary indexes of every kind: non-unique bytes (with 0x00 bytes), unique int64, sparse.
  auto with_indexes = [](drydb::DatabaseBuilder& b) {
    auto& t = b.create_table("people");
    for (int i = 0; i < 90; ++i)
      t.append("p" + std::to_string(i * 7 % 90), std::string(1 + i % 3, static_cast<char>(i % 2)));
    t.add_secondary_index(
        "group", false, drydb::KeyEncoding::bytes(),
        [](drydb_fuzz::Bytes, drydb_fuzz::Bytes v) -> std::optional<drydb::IndexKey> {
          return drydb::IndexKey(v);
        });
    t.add_secondary_index(
        "number", true, drydb::KeyEncoding::int64(),
        [](drydb_fuzz::Bytes k, drydb_fuzz::Bytes) -> std::optional<drydb::IndexKey> {
          if (k.size() % 2) return std::nullopt;
          return drydb::IndexKey(static_cast<int64_t>(k.size()) * 1000 +
                                 static_cast<int64_t>(k.back()));
        });
  };
  {
    drydb::DatabaseBuilder b({.page_size = 512});
    with_indexes(b);
    write(dir, "indexes", build(b));
  }
  {  // the same, with zstd pages; and lz4 pages with an overflow run
    drydb::DatabaseBuilder b({.page_size = 512, .filters = {drydb::filters::zstd()}});
    with_indexes(b);
    write(dir, "indexes_zstd", build(b));
    drydb::DatabaseBuilder c({.page_size = 512, .filters = {drydb::filters::lz4()}});
    auto& t = c.create_table("b");
    for (int i = 0; i < 40; ++i)
      t.append("k" + std::to_string(i), std::string(i == 7 ? 900 : 10, 'z'));
    write(dir, "lz4_overflow", build(c));
  }
  {  // miss filters: int64 keys at 10 bits per key over two filter pages, bytes keys at 32
    drydb::DatabaseBuilder b({.page_size = 512});
    auto& n = b.create_table("n", drydb::KeyEncoding::int64());
    for (int64_t i = 0; i < 800; ++i)
      n.append(i * 7, "v");
    n.add_miss_filter(10);
    auto& t = b.create_table("b");
    for (int i = 0; i < 60; ++i)
      t.append("key" + std::to_string(i), "x");
    t.add_miss_filter(32);
    write(dir, "miss_filters", build(b));
  }
  {  // a column list (format 2.3): rows as arrays, the key column nil, one row in an overflow run
    drydb::DatabaseBuilder b({.page_size = 512});
    auto& t = b.create_table("rows");
    t.set_columns({"id", "name", "note"}, 0);
    for (int i = 0; i < 50; ++i) {
      const std::string name = "n" + std::to_string(i);
      std::string row = "\x93\xc0";
      row += static_cast<char>(0xa0 | name.size());
      row += name;
      row += i == 9 ? std::string("\xda\x02\x58") + std::string(600, 'w') : std::string("\xc0");
      t.append("id" + std::to_string(i), row);
    }
    write(dir, "column_lists", build(b));
  }
  golden_seeds(dir);
  std::string not_quite = std::string("DRY\0", 4) + std::string(2, '\x02') + std::string(60, '\0');
  write(dir, "header_only", not_quite);
  write(dir, "empty_file", std::string());
}

// The seed that gives a page target's base its own catalog back (its last choice).
void write_catalog_seed(const fs::path& dir, const drydb_fuzz::PageBase& base) {
  std::string catalog;
  catalog += static_cast<char>(base.page_count - 1);
  catalog += '\0';
  catalog.append(reinterpret_cast<const char*>(base.file.data() + base.catalog_offset),
                 base.file.size() - base.catalog_offset);
  write(dir, "catalog", catalog);
}

void page_seeds(const fs::path& dir) {
  const drydb_fuzz::PageBase& base = drydb_fuzz::page_base();
  auto db = drydb::ReadOnlyDatabase::open_memory(base.file).value();
  // Which table owns each page: from the tables' page ranges (first_page/end_page are not in
  // the public API, but the trees are written in table order, contiguously).
  std::map<std::string, int> taken;  // kind -> seeds so far
  uint64_t page = 1;
  for (const auto& t : db.tables()) {
    const auto info = t.info();
    const uint64_t end =
        page + info.leaf_pages + info.internal_pages + info.overflow_pages + info.miss_filter_pages;
    for (uint64_t p = page; p < end; ++p) {
      const std::byte* bytes = base.file.data() + p * base.page_size;
      std::string kind;
      switch (static_cast<PageType>(bytes[8])) {
        case PageType::leaf:
          kind = "leaf";
          break;
        case PageType::internal:
          kind = p + 1 + info.miss_filter_pages == end ? "root" : "internal";
          break;
        case PageType::overflow:
          kind = "overflow";
          break;
        default:
          kind = "overflow_continued";
      }
      if (p >= end - info.miss_filter_pages) kind = "miss_filter";  // the filter follows the tree
      kind = std::string(t.name()) + "_" + kind;
      if (taken[kind]++ >= 2) continue;
      std::string input;
      input += static_cast<char>(p - 1);  // byte 0: page 1 + byte % (pages - 1)
      input += '\0';
      input.append(reinterpret_cast<const char*>(bytes), base.page_size);
      write(dir, kind + "_" + std::to_string(taken[kind]), input);
    }
    page = end;
  }
  write_catalog_seed(dir, base);
  if (base.page_count > 256) std::fprintf(stderr, "warning: page choice needs more than a byte\n");
}

// The page_index target's seeds: pages of its base written back unchanged, by their type
// (tables' and indexes' trees alike: the base's tables are queried for every input), two of
// each type spread over the file, and the catalog.
void page_index_seeds(const fs::path& dir) {
  const drydb_fuzz::PageBase& base = drydb_fuzz::page_index_base();
  std::map<std::string, std::vector<uint64_t>> pages;  // type -> its pages
  for (uint64_t p = 1; p < base.page_count; ++p) {
    const auto type = static_cast<PageType>(base.file[p * base.page_size + 8]);
    pages[type == PageType::leaf       ? "leaf"
          : type == PageType::internal ? "internal"
                                       : "other"]
        .push_back(p);
  }
  for (const auto& [type, list] : pages)
    for (size_t n = 0; n < 2 && n < list.size(); ++n) {
      const uint64_t p = list[n == 0 ? list.size() / 3 : list.size() - 1];
      std::string input;
      input += static_cast<char>(p - 1);  // byte 0: page 1 + byte % (pages - 1)
      input += '\0';
      input.append(reinterpret_cast<const char*>(base.file.data() + p * base.page_size),
                   base.page_size);
      write(dir, type + "_" + std::to_string(n + 1), input);
    }
  write_catalog_seed(dir, base);
}

// A build request (see build_target.h for the layout).
struct Request {
  std::string s;
  // Appends each of `v` as one byte.
  template <class... V>
  Request& u8(V... v) {
    ((s += static_cast<char>(v)), ...);
    return *this;
  }
  Request& bytes(const std::string& b) {
    s += b;
    return *this;
  }
};

void build_seeds(const fs::path& dir) {
  // page 512, budget 1 KiB (spills), in place + 2-page cache; one int64 table of 200^2/8 rows.
  write(dir, "int64_deep", Request().u8(0, 2, 0, 0, 1, 0, 200, 0).s);
  // page 512, budget 256; bytes keys, 120^2/8 generated rows and explicit rows with an
  // overflow value and a value at the inline limit; then probes.
  Request r;
  r.u8(0, 1, 1, 0, 0, 0, 120, 4);
  r.u8(3).bytes("abc").u8(5).bytes("hello");
  r.u8(9).bytes("abcdefghi").u8(201);
  r.u8(10).bytes("abcdefghij").u8(200);
  r.u8(0, 0);
  r.u8(3).bytes("abd").u8(1).bytes("s/");
  write(dir, "bytes_spill_overflow", r.s);
  // miss filters: int64 keys at 10 bits per key, bytes keys at 32, through a 16-page cache
  write(dir, "miss_filters", Request().u8(0, 7, 1, 1, 15, 0, 100, 0, 21, 0, 80, 0).s);
  // every encoding, four tables each, page sizes 1 KiB .. 64 KiB
  for (unsigned e = 0; e < drydb_fuzz::kEncodings; ++e) {
    Request q;
    q.u8(1 + e, 6, 2, 3);
    for (unsigned t = 0; t < 4; ++t)
      q.u8(e + t, 0, 20 + 10 * t, 2, 8)
          .bytes("12345678")
          .u8(3)
          .bytes("xyz")
          .u8(16)
          .bytes("0123456789abcdef")
          .u8(0);
    write(dir, "encodings_" + std::to_string(e), q.s);
  }
  // errors: a duplicate key, a key over the limit, a wrong key kind, a duplicate table name
  write(dir, "error_duplicate_key",
        Request().u8(0, 7, 0, 0, 0, 0, 0, 2, 1).bytes("a").u8(0, 1).bytes("a").u8(0).s);
  write(dir, "error_key_too_long", Request().u8(0, 7, 0, 0, 0, 0, 0, 1, 254, 0).s);
  write(dir, "error_wrong_kind",
        Request().u8(0, 7, 0, 0, 1, 0, 3, 1).bytes(std::string(8, 'k')).u8(250).s);
  write(dir, "error_duplicate_name", Request().u8(0, 7, 0, 1, 0, 0, 4, 0, 1, 255, 4, 0).s);
  // a key at the limit and the largest page size
  write(dir, "max_key_64k", Request().u8(7, 7, 2, 0, 0, 0, 30, 2, 253, 210, 252, 3).bytes("abc").s);
  // Secondary indexes (5 bytes each, after the table's rows) and page filters (the third byte).
  // page 512, budget 64 KiB, a 2-page cache and lz4 pages; bytes keys with a sparse non-unique
  // index on a slice of the value and a unique index on the whole key (custom variable keys).
  write(dir, "index_slice_lz4",
        Request()
            .u8(0, 5, 1 + 4 * 1, 0, 0, 2, 100, 2, 3)
            .bytes("abc")
            .u8(5)
            .bytes(std::string("a\0\0bc", 5))
            .u8(4)
            .bytes("abcd")
            .u8(3)
            .bytes(std::string("a\0\0", 3))
            .u8(0, 0, 2, 1 + 8 * 2, 3, 1, 6, 1, 0, 0, 3)
            .bytes(std::string("\0\0b", 3))
            .u8(1)
            .bytes("a")
            .s);
  // page 1,024, budget 1 MiB, in place with zstd level 1: an int64 table with a sparse unique
  // index on its key and a non-unique int64 index on a hash (negative keys too); an f3 table
  // with a non-unique f3 index on the value's first bytes, padded.
  write(dir, "index_int64_zstd",
        Request()
            .u8(1, 6, 48, 1, 1, 2, 150, 0, 1, 1, 1, 0, 2, 0, 1, 4, 20, 0, 4, 1, 60, 0, 0, 4, 2 | 8,
                8 * 3, 0, 8)
            .bytes(std::string(8, '\x80'))
            .s);
  // page 512, budget 16 KiB (spills), the whole file cached, zstd with a dictionary: custom
  // variable keys, a non-unique index on a hash modulo 7 (0x00 bytes in the keys).
  write(dir, "index_hash_zstd_dictionary",
        Request().u8(0, 4, 15, 0, 6, 1, 120, 0, 0, 0, 4, 6, 0).s);
  // page 4,096, budget 256 (spills), a 16-page cache, lz4 then zstd: uuid keys with overflow
  // values, a unique uuid index on the key and an empty ulid index.
  write(dir, "index_uuid_lz4_zstd",
        Request()
            .u8(3, 1, 2 + 4 * 4, 0, 2, 2, 40, 2)
            .bytes(std::string(16, '\x07'))
            .u8(201)
            .bytes(std::string(16, '\x70'))
            .u8(203, 1, 2, 1, 0, 0, 0, 3, 2 | 8, 8 * 16, 255)
            .s);
  // index errors: a repeated key in a unique index, a wrong width (whole values as f3 keys), a
  // key of the wrong kind, a repeated index name, an index key over the limit (a whole value of
  // inline_value_limit - 2 bytes at page size 512)
  write(dir, "error_index_duplicate_key", Request().u8(0, 7, 0, 0, 0, 1, 20, 0, 1, 0, 4, 1, 0).s);
  write(dir, "error_index_wrong_width", Request().u8(0, 7, 0, 0, 0, 1, 20, 0, 0, 4, 0, 0, 0).s);
  write(dir, "error_index_wrong_kind", Request().u8(0, 7, 0, 0, 1, 1, 40, 0, 2, 0, 4, 9, 0).s);
  write(dir, "error_index_duplicate_name",
        Request().u8(0, 7, 0, 0, 0, 2, 8, 0, 0, 0, 0, 0, 0, 0xFF, 0, 0, 0, 0).s);
  write(dir, "error_index_key_too_long",
        Request()
            .u8(0, 7, 0, 0, 0, 1, 0, 2, 1)
            .bytes("a")
            .u8(1)
            .bytes("v")
            .u8(1)
            .bytes("b")
            .u8(200, 0, 0, 0, 0, 0)
            .s);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <corpus dir>\n", argv[0]);
    return 2;
  }
  const fs::path root = argv[1];
  open_seeds(root / "open");
  page_seeds(root / "page");
  page_index_seeds(root / "page_index");
  build_seeds(root / "build");
  return 0;
}
