// The manifest of a dataset generation (dataset.h; docs/sharding.md, "The manifest"): its rules,
// its JSON text, and reading and writing it.
#include <simdjson.h>

#include <cstdio>
#include <fstream>
#include <set>
#include <string_view>
#include <system_error>

#include "drydb/dataset.h"
#include "drydb/detail/coding.h"
#include "drydb/escape.h"
#include "write/sink.h"

namespace drydb {

namespace {

constexpr uint64_t kMaxCount = (uint64_t{1} << 63) - 1;

Error invalid(std::string what) {
  return Error(errc::invalid_argument, "manifest: " + std::move(what));
}
Error corrupt(std::string what) {
  return Error(errc::corruption, "manifest: " + std::move(what));
}

bool valid_utf8(std::string_view s) {
  return simdjson::validate_utf8(s.data(), s.size());
}

bool valid_name(std::string_view s) {
  return !s.empty() && s.size() <= 255 && valid_utf8(s);
}

// A shard's file name: one file in the generation's folder.
bool valid_file_name(std::string_view s) {
  return valid_name(s) && s != "." && s != ".." && s.find('/') == std::string_view::npos &&
         s.find('\0') == std::string_view::npos;
}

// hex_value() of a lowercase digit: upper case is not the canonical form, and refused.
int lowercase_hex_value(char c) {
  return c >= 'A' && c <= 'F' ? -1 : hex_value(c);
}

std::optional<std::string> from_hex(std::string_view text) {
  if (text.size() % 2 != 0) return std::nullopt;
  std::string out(text.size() / 2, '\0');
  for (size_t i = 0; i < out.size(); ++i) {
    const int hi = lowercase_hex_value(text[2 * i]), lo = lowercase_hex_value(text[2 * i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out[i] = static_cast<char>(hi << 4 | lo);
  }
  return out;
}

std::string hex64(uint64_t v) {
  std::string out;
  for (int shift = 56; shift >= 0; shift -= 8)
    append_hex(out, static_cast<unsigned char>(v >> shift));
  return out;
}

// The width of the keys of a built-in fixed-width encoding; 0 for others (bytes, custom ones,
// which a reader may not know).
size_t key_width(std::string_view encoding) {
  if (encoding == "int64") return 8;
  if (encoding == "uuid_v7" || encoding == "ulid") return 16;
  return 0;
}

std::string shown(std::string_view name) {
  std::string out;
  append_json_string(out, name);
  return out;
}

// ---- parsing ----------------------------------------------------------------------------------

using simdjson::dom::array;
using simdjson::dom::element;
using simdjson::dom::object;

// The members of one JSON object, checked against the ones it must have (and may have): none
// unknown, none twice, every required one there.
class Members {
 public:
  Members(object o, std::string where) : where_(std::move(where)) {
    for (auto field : o) {
      const std::string_view key = field.key;
      if (!seen_.insert(std::string(key)).second) {
        fault_ = "member \"" + std::string(key) + "\" twice";
        break;
      }
      fields_.emplace_back(std::string(key), field.value);
    }
  }

  // The member `name`, or a fault when it is missing.
  std::optional<element> get(std::string_view name) {
    for (auto& [k, v] : fields_)
      if (k == name) {
        used_.insert(k);
        return v;
      }
    if (fault_.empty()) fault_ = "no member \"" + std::string(name) + "\"";
    return std::nullopt;
  }
  bool has(std::string_view name) const { return seen_.count(std::string(name)) != 0; }

  // The first fault: a duplicate, a missing member, or a member not asked for.
  std::optional<Error> fault() const {
    if (!fault_.empty()) return corrupt(where_ + ": " + fault_);
    for (auto& [k, v] : fields_)
      if (used_.count(k) == 0) return corrupt(where_ + ": unknown member \"" + k + "\"");
    return std::nullopt;
  }

 private:
  std::string where_;
  std::vector<std::pair<std::string, element>> fields_;
  std::set<std::string> seen_, used_;
  std::string fault_;
};

struct Parser {
  std::optional<Error> error;

  bool fail(std::string what) {
    if (!error) error = corrupt(std::move(what));
    return false;
  }

  bool string(const std::optional<element>& e, const std::string& where, std::string* out) {
    if (!e) return false;
    std::string_view s;
    if (e->get_string().get(s) != simdjson::SUCCESS) return fail(where + " is not a string");
    out->assign(s);
    return true;
  }
  bool count(const std::optional<element>& e, const std::string& where, uint64_t* out) {
    if (!e) return false;
    // Integers only: simdjson types 1.0 and 1e3 as doubles.
    if (e->type() != simdjson::dom::element_type::INT64 &&
        e->type() != simdjson::dom::element_type::UINT64)
      return fail(where + " is not an integer");
    uint64_t v = 0;
    if (e->get_uint64().get(v) != simdjson::SUCCESS || v > kMaxCount)
      return fail(where + " is outside 0 .. 2^63 - 1");
    *out = v;
    return true;
  }
  bool boolean(const std::optional<element>& e, const std::string& where, bool* out) {
    if (!e) return false;
    if (e->get_bool().get(*out) != simdjson::SUCCESS) return fail(where + " is not true or false");
    return true;
  }
  bool key(const std::optional<element>& e, const std::string& where, std::string* out) {
    std::string text;
    if (!string(e, where, &text)) return false;
    auto bytes = from_hex(text);
    if (!bytes) return fail(where + " is not lowercase hex digits, two per byte");
    *out = std::move(*bytes);
    return true;
  }
  bool array_of(const std::optional<element>& e, const std::string& where, array* out) {
    if (!e) return false;
    if (e->get_array().get(*out) != simdjson::SUCCESS) return fail(where + " is not an array");
    return true;
  }
  bool object_of(element e, const std::string& where, object* out) {
    if (e.get_object().get(*out) != simdjson::SUCCESS) return fail(where + " is not an object");
    return true;
  }
  bool done(const Members& m) {
    if (auto f = m.fault(); f && !error) error = std::move(*f);
    return !error;
  }
};

bool parse_index(Parser& p, element e, const std::string& where, ManifestIndex* out) {
  object o;
  if (!p.object_of(e, where, &o)) return false;
  Members m(o, where);
  p.string(m.get("name"), where + ".name", &out->name) &&
      p.boolean(m.get("unique"), where + ".unique", &out->unique) &&
      p.string(m.get("key_encoding"), where + ".key_encoding", &out->key_encoding);
  return p.done(m);
}

bool parse_table(Parser& p, element e, const std::string& where, ManifestTable* out) {
  object o;
  if (!p.object_of(e, where, &o)) return false;
  Members m(o, where);
  array indexes, splits;
  object part;
  if (p.string(m.get("name"), where + ".name", &out->name) &&
      p.string(m.get("key_encoding"), where + ".key_encoding", &out->key_encoding) &&
      p.array_of(m.get("indexes"), where + ".indexes", &indexes)) {
    if (indexes.size() > kMaxManifestIndexes)
      return p.fail(where + ": more than " + std::to_string(kMaxManifestIndexes) + " indexes");
    size_t i = 0;
    for (element ix : indexes) {
      if (!parse_index(p, ix, where + ".indexes[" + std::to_string(i++) + "]",
                       &out->indexes.emplace_back()))
        return false;
    }
    if (auto pe = m.get("partitioning"); pe && p.object_of(*pe, where + ".partitioning", &part)) {
      const std::string pw = where + ".partitioning";
      Members pm(part, pw);
      if (p.string(pm.get("function"), pw + ".function", &out->partitioning.function) &&
          p.array_of(pm.get("splits"), pw + ".splits", &splits)) {
        if (splits.size() > kMaxShards) return p.fail(pw + ": more split keys than shards");
        size_t k = 0;
        for (element s : splits) {
          const auto sw = pw + ".splits[" + std::to_string(k++) + "]";
          if (!p.key(s, sw, &out->partitioning.splits.emplace_back())) return false;
        }
      }
      if (!p.done(pm)) return false;
    }
  }
  return p.done(m);
}

// A hex64 member (16 lowercase hex digits) as its number.
bool parse_hex64(Parser& p, Members& m, const char* name, const std::string& where, uint64_t* out) {
  std::string digits;
  if (!p.string(m.get(name), where + "." + name, &digits)) return false;
  const auto value = from_hex(digits);
  if (digits.size() != 16 || !value)
    return p.fail(where + "." + name + " is not 16 lowercase hex digits");
  *out = detail::load_be64(reinterpret_cast<const std::byte*>(value->data()));
  return true;
}

// A shard object; `version` 2 has its file's identity, version 1 none.
bool parse_shard(Parser& p, element e, const std::string& where, uint64_t version,
                 ManifestShard* out) {
  object o;
  if (!p.object_of(e, where, &o)) return false;
  Members m(o, where);
  array tables;
  uint64_t identity = 0;
  if (p.string(m.get("file"), where + ".file", &out->file) &&
      p.count(m.get("bytes"), where + ".bytes", &out->bytes) &&
      parse_hex64(p, m, "xxh3", where, &out->xxh3) &&
      (version < 2 || parse_hex64(p, m, "identity", where, &identity)) &&
      p.array_of(m.get("tables"), where + ".tables", &tables)) {
    if (version >= 2) out->identity = identity;
    if (tables.size() > kMaxManifestTables)
      return p.fail(where + ": more than " + std::to_string(kMaxManifestTables) + " tables");
    size_t i = 0;
    for (element t : tables) {
      const std::string tw = where + ".tables[" + std::to_string(i++) + "]";
      object to;
      if (!p.object_of(t, tw, &to)) return false;
      Members tm(to, tw);
      ShardTable& st = out->tables.emplace_back();
      if (p.count(tm.get("rows"), tw + ".rows", &st.rows) && st.rows != 0) {
        p.key(tm.get("first"), tw + ".first", &st.first) &&
            p.key(tm.get("last"), tw + ".last", &st.last);
      }
      if (!p.done(tm)) return false;
    }
  }
  return p.done(m);
}

}  // namespace

// ---- the rules ----------------------------------------------------------------------------------

status check_manifest(const Manifest& m) {
  if (!valid_name(m.dataset)) return invalid("the dataset's name is not 1 to 255 bytes of UTF-8");
  if (m.generation == 0 || m.generation > kMaxCount)
    return invalid("generation " + std::to_string(m.generation) + " is outside 1 .. 2^63 - 1");
  if (m.tables.empty() || m.tables.size() > kMaxManifestTables)
    return invalid("a dataset has 1 to " + std::to_string(kMaxManifestTables) + " tables");
  if (m.shards.empty() || m.shards.size() > kMaxShards)
    return invalid("a dataset has 1 to " + std::to_string(kMaxShards) + " shards");
  const auto shards = static_cast<uint32_t>(m.shards.size());
  std::set<std::string_view> tables;
  for (const ManifestTable& t : m.tables) {
    if (!valid_name(t.name)) return invalid("a table's name is not 1 to 255 bytes of UTF-8");
    if (!tables.insert(t.name).second) return invalid("two tables are named " + shown(t.name));
    const std::string label = "table " + shown(t.name);
    if (!valid_name(t.key_encoding))
      return invalid(label + ": its key encoding is not 1 to 255 bytes of UTF-8");
    if (t.indexes.size() > kMaxManifestIndexes)
      return invalid(label + ": more than " + std::to_string(kMaxManifestIndexes) + " indexes");
    std::set<std::string_view> indexes;
    for (const ManifestIndex& ix : t.indexes) {
      if (!valid_name(ix.name))
        return invalid(label + ": an index's name is not 1 to 255 bytes of UTF-8");
      if (!indexes.insert(ix.name).second)
        return invalid(label + ": two indexes are named " + shown(ix.name));
      if (!valid_name(ix.key_encoding))
        return invalid(label + ", index " + shown(ix.name) +
                       ": its key encoding is not 1 to 255 bytes of UTF-8");
    }
    if (status st = check_partitioning(t.partitioning, shards); !st)
      return Error(st.error().code, "manifest: " + label + ": " + st.error().message);
    if (const size_t w = key_width(t.key_encoding); w != 0)
      for (const std::string& split : t.partitioning.splits)
        if (split.size() != w)
          return invalid(label + ": a split key that is not " + std::to_string(w) + " bytes");
  }
  std::set<std::string_view> files;
  for (size_t i = 0; i < m.shards.size(); ++i) {
    const ManifestShard& s = m.shards[i];
    const std::string label = "shard " + std::to_string(i);
    if (!valid_file_name(s.file))
      return invalid(label + ": file name " + shown(s.file) + " is not one file of its folder");
    if (!files.insert(s.file).second) return invalid("two shards are the file " + shown(s.file));
    if (s.bytes > kMaxCount) return invalid(label + ": its size is over 2^63 - 1");
    if (s.identity.has_value() != m.shards.front().identity.has_value())
      return invalid(label + (s.identity ? " has" : " has no") + " identity, unlike shard 0");
    if (s.tables.size() != m.tables.size())
      return invalid(label + " describes " + std::to_string(s.tables.size()) + " tables, not " +
                     std::to_string(m.tables.size()));
    for (size_t t = 0; t < s.tables.size(); ++t) {
      const ShardTable& st = s.tables[t];
      const ManifestTable& table = m.tables[t];
      const std::string where = label + ", table " + shown(table.name);
      if (st.rows > kMaxCount) return invalid(where + ": rows over 2^63 - 1");
      if (st.rows == 0) {
        if (!st.first.empty() || !st.last.empty()) return invalid(where + ": keys of no rows");
        continue;
      }
      if (st.last < st.first) return invalid(where + ": its last key is before its first");
      if (st.rows == 1 && st.first != st.last) return invalid(where + ": one row with two keys");
      if (st.rows > 1 && st.first == st.last)
        return invalid(where + ": " + std::to_string(st.rows) + " rows with one key");
      if (const size_t w = key_width(table.key_encoding);
          w != 0 && (st.first.size() != w || st.last.size() != w))
        return invalid(where + ": a key that is not " + std::to_string(w) + " bytes");
      if (table.partitioning.function != kRangePartitioning) {
        // xxh3-64-mod-v1: the shard's first and last keys are its own (a sample of its rows).
        const auto shards = static_cast<uint32_t>(m.shards.size());
        for (const std::string* key : {&st.first, &st.last})
          if (shard_of(table.partitioning, shards, *key) != i)
            return invalid(where + ": its " + (key == &st.first ? "first" : "last") +
                           " key belongs to shard " +
                           std::to_string(shard_of(table.partitioning, shards, *key)));
        continue;
      }
      const auto& splits = table.partitioning.splits;
      if (i > 0 && st.first < splits[i - 1])
        return invalid(where + ": its first key is before the split key that begins the shard");
      if (i + 1 < m.shards.size() && !(st.last < splits[i]))
        return invalid(where + ": its last key is not before the split key that ends the shard");
    }
  }
  return {};
}

// ---- writing ------------------------------------------------------------------------------------

std::string manifest_json(const Manifest& m) {
  // Version 2 when the shards' identities are known (check_manifest: all or none).
  const bool identities = m.shards.front().identity.has_value();
  std::string out = identities ? "{\"format\": \"drydb-dataset\", \"version\": 2, \"dataset\": "
                               : "{\"format\": \"drydb-dataset\", \"version\": 1, \"dataset\": ";
  append_json_string(out, m.dataset);
  out += ", \"generation\": " + std::to_string(m.generation) + ",\n\"tables\": [";
  for (size_t t = 0; t < m.tables.size(); ++t) {
    const ManifestTable& table = m.tables[t];
    out += t == 0 ? "\n  {\"name\": " : ",\n  {\"name\": ";
    append_json_string(out, table.name);
    out += ", \"key_encoding\": ";
    append_json_string(out, table.key_encoding);
    out += ", \"indexes\": [";
    for (size_t i = 0; i < table.indexes.size(); ++i) {
      out += i == 0 ? "{\"name\": " : ", {\"name\": ";
      append_json_string(out, table.indexes[i].name);
      out += table.indexes[i].unique ? ", \"unique\": true" : ", \"unique\": false";
      out += ", \"key_encoding\": ";
      append_json_string(out, table.indexes[i].key_encoding);
      out += "}";
    }
    out += "], \"partitioning\": {\"function\": ";
    append_json_string(out, table.partitioning.function);
    out += ", \"splits\": [";
    for (size_t i = 0; i < table.partitioning.splits.size(); ++i) {
      if (i != 0) out += ", ";
      out += '"' + to_hex(table.partitioning.splits[i]) + '"';
    }
    out += "]}}";
  }
  out += "],\n\"shards\": [";
  for (size_t i = 0; i < m.shards.size(); ++i) {
    const ManifestShard& s = m.shards[i];
    out += i == 0 ? "\n  {\"file\": " : ",\n  {\"file\": ";
    append_json_string(out, s.file);
    out += ", \"bytes\": " + std::to_string(s.bytes) + ", \"xxh3\": \"" + hex64(s.xxh3) + '"';
    if (identities) out += ", \"identity\": \"" + hex64(*s.identity) + '"';
    out += ", \"tables\": [";
    for (size_t t = 0; t < s.tables.size(); ++t) {
      const ShardTable& st = s.tables[t];
      if (t != 0) out += ", ";
      out += "{\"rows\": " + std::to_string(st.rows);
      if (st.rows != 0)
        out += ", \"first\": \"" + to_hex(st.first) + "\", \"last\": \"" + to_hex(st.last) + '"';
      out += '}';
    }
    out += "]}";
  }
  out += "]}\n";
  return out;
}

status write_manifest(const std::filesystem::path& folder, const Manifest& m) {
  DRYDB_TRY(check_manifest(m));
  const std::string text = manifest_json(m);
  if (text.size() > kMaxManifestBytes)
    return Error(errc::invalid_argument,
                 "the manifest would be " + std::to_string(text.size()) + " bytes, over the " +
                     std::to_string(kMaxManifestBytes) + " a reader accepts");
  auto sink = detail::AtomicFileSink::create(folder / "manifest.json");
  if (!sink) return std::move(sink).error();
  DRYDB_TRY((*sink)->write_at(0, std::as_bytes(std::span(text.data(), text.size()))));
  return (*sink)->commit();
}

// ---- reading ------------------------------------------------------------------------------------

result<Manifest> parse_manifest(std::string_view json) {
  if (json.size() > kMaxManifestBytes)
    return corrupt("over " + std::to_string(kMaxManifestBytes) + " bytes");
  simdjson::dom::parser parser;
  const simdjson::padded_string padded(json);
  element root;
  if (auto err = parser.parse(padded).get(root); err != simdjson::SUCCESS)
    return corrupt(std::string("not JSON: ") + simdjson::error_message(err));
  Parser p;
  object o;
  if (!p.object_of(root, "the document", &o)) return std::move(*p.error);
  Members m(o, "the document");
  Manifest out;
  std::string format;
  uint64_t version = 0;
  array tables, shards;
  if (p.string(m.get("format"), "format", &format) && format != "drydb-dataset")
    return corrupt("format is \"" + format + "\", not \"drydb-dataset\"");
  if (p.count(m.get("version"), "version", &version) && (version < 1 || version > 2))
    return Error(errc::unsupported_version,
                 "manifest: version " + std::to_string(version) + "; this reader knows 1 and 2");
  if (p.string(m.get("dataset"), "dataset", &out.dataset) &&
      p.count(m.get("generation"), "generation", &out.generation) &&
      p.array_of(m.get("tables"), "tables", &tables) &&
      p.array_of(m.get("shards"), "shards", &shards)) {
    if (tables.size() > kMaxManifestTables)
      return corrupt("more than " + std::to_string(kMaxManifestTables) + " tables");
    if (shards.size() > kMaxShards)
      return corrupt("more than " + std::to_string(kMaxShards) + " shards");
    size_t i = 0;
    for (element t : tables)
      if (!parse_table(p, t, "tables[" + std::to_string(i++) + "]", &out.tables.emplace_back()))
        return std::move(*p.error);
    i = 0;
    for (element s : shards)
      if (!parse_shard(p, s, "shards[" + std::to_string(i++) + "]", version,
                       &out.shards.emplace_back()))
        return std::move(*p.error);
  }
  if (!p.done(m)) return std::move(*p.error);
  // A manifest that breaks a rule is a damaged file here, not a caller's mistake.
  if (status st = check_manifest(out); !st)
    return Error(
        st.code() == errc::invalid_argument ? make_error_code(errc::corruption) : st.code(),
        st.error().message);
  return out;
}

result<Manifest> read_manifest(const std::filesystem::path& path) {
  std::error_code ec;
  const std::filesystem::path file =
      std::filesystem::is_directory(path, ec) ? path / "manifest.json" : path;
  // Only a regular file: opening a FIFO would block.
  if (!std::filesystem::is_regular_file(file, ec))
    return Error(ec ? errc::io_error : errc::invalid_argument,
                 "the manifest " + file.string() +
                     (ec ? " cannot be read: " + ec.message() : " is not a regular file"));
  std::ifstream in(file, std::ios::binary);
  if (!in) return Error(errc::io_error, "cannot open the manifest " + file.string());
  std::string text;
  char buf[65536];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    if (text.size() + static_cast<size_t>(in.gcount()) > kMaxManifestBytes)
      return corrupt(file.string() + " is over " + std::to_string(kMaxManifestBytes) + " bytes");
    text.append(buf, static_cast<size_t>(in.gcount()));
  }
  if (in.bad()) return Error(errc::io_error, "cannot read the manifest " + file.string());
  auto m = parse_manifest(text);
  if (!m) return Error(m.error().code, file.string() + ": " + m.error().message);
  return m;
}

}  // namespace drydb
