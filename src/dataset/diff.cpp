// drydb::diff (include/drydb/diff.h): a merge of both sides' rows, then of each index's entries.
#include "drydb/diff.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <optional>
#include <string_view>
#include <utility>

#include "drydb/index.h"
#include "drydb/key_encoding.h"
#include "drydb/range.h"
#include "drydb/table.h"

namespace drydb {

namespace {

using Bytes = std::span<const std::byte>;

// memcmp order, the shorter first: the order every key encoding sorts by.
int compare(Bytes a, Bytes b) noexcept {
  const size_t n = std::min(a.size(), b.size());
  if (n != 0)
    if (const int c = std::memcmp(a.data(), b.data(), n); c != 0) return c;
  return a.size() < b.size() ? -1 : a.size() > b.size() ? 1 : 0;
}

bool same_bytes(Bytes a, Bytes b) noexcept {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size()) == 0);
}

// ---- rows as `drydb dump` shows them -----------------------------------------------------------
//
// A table stores each row either as the value it was given (a MessagePack map, for one) or, with
// a column list (format 2.3), as an array of its columns that stands for that map. Which one is a
// storage choice: where two tables' column lists differ, their rows are compared as the records
// they stand for. A record's canonical form is a tagged encoding of its MessagePack objects in
// which each value has one spelling (an integer whatever width stored it; a map's pairs in their
// order, as dump shows them); bytes that are not one MessagePack object stay as they are.

constexpr int kMaxDepth = 256;  // deeper nesting is compared as raw bytes

void put_u64(std::string& out, uint64_t v) {
  for (int shift = 56; shift >= 0; shift -= 8)
    out += static_cast<char>(v >> shift);
}

class CanonicalWriter {
 public:
  explicit CanonicalWriter(Bytes in)
      : p_(reinterpret_cast<const uint8_t*>(in.data())), n_(in.size()) {}

  bool at_end() const noexcept { return pos_ == n_; }

  // Appends the canonical form of the object at the read position; false (out partly
  // written) when the bytes there are not a well-formed MessagePack object.
  bool object(std::string& out, int depth = 0) {
    if (depth > kMaxDepth || pos_ >= n_) return false;
    const uint8_t m = p_[pos_++];
    if (m <= 0x7f) return integer(out, m);
    if (m >= 0xe0) return integer(out, static_cast<int8_t>(m));
    if (m <= 0x8f) return map(out, m & 0x0fu, depth);
    if (m <= 0x9f) return array(out, m & 0x0fu, depth);
    if (m <= 0xbf) return blob(out, 's', m & 0x1fu);
    uint64_t v = 0;
    switch (m) {
      case 0xc0:
        out += 'n';
        return true;
      case 0xc2:
      case 0xc3:
        out += m == 0xc3 ? 't' : 'f';
        return true;
      case 0xc4:
      case 0xc5:
      case 0xc6:
        return be(1u << (m - 0xc4), &v) && blob(out, 'b', v);
      case 0xd9:
      case 0xda:
      case 0xdb:
        return be(1u << (m - 0xd9), &v) && blob(out, 's', v);
      case 0xc7:
      case 0xc8:
      case 0xc9:
        return be(1u << (m - 0xc7), &v) && ext(out, v);
      case 0xd4:
      case 0xd5:
      case 0xd6:
      case 0xd7:
      case 0xd8:
        return ext(out, uint64_t{1} << (m - 0xd4));
      case 0xca:
        out += 'F';
        return raw(out, 4);
      case 0xcb:
        out += 'D';
        return raw(out, 8);
      case 0xcc:
      case 0xcd:
      case 0xce:
      case 0xcf:
        if (!be(1u << (m - 0xcc), &v)) return false;
        if (v > static_cast<uint64_t>(INT64_MAX)) {
          out += 'u';
          put_u64(out, v);
          return true;
        }
        return integer(out, static_cast<int64_t>(v));
      case 0xd0:
      case 0xd1:
      case 0xd2:
      case 0xd3: {
        const unsigned width = 1u << (m - 0xd0);
        if (!be(width, &v)) return false;
        // Sign-extend the width's two's complement.
        const unsigned unused = 64 - 8 * width;
        return integer(out, static_cast<int64_t>(v << unused) >> unused);
      }
      case 0xdc:
      case 0xdd:
        return be(2u << (m - 0xdc), &v) && array(out, v, depth);
      case 0xde:
      case 0xdf:
        return be(2u << (m - 0xde), &v) && map(out, v, depth);
      default:
        return false;  // 0xc1, never used
    }
  }

  // A column list's row (an array of at most names.size() fields) as the map it stands for: each
  // present column's name and field, and at the key column a nil as the key's text.
  bool column_row(std::string& out, std::span<const std::string> names,
                  std::optional<uint32_t> key_column, const KeyEncoding& encoding, Bytes key) {
    if (pos_ >= n_) return false;
    const uint8_t m = p_[pos_++];
    uint64_t count = 0;
    if (m >= 0x90 && m <= 0x9f)
      count = m & 0x0fu;
    else if ((m != 0xdc && m != 0xdd) || !be(2u << (m - 0xdc), &count))
      return false;
    if (count > names.size()) return false;
    std::string body;
    uint64_t present = 0;
    for (uint64_t i = 0; i < count; ++i) {
      if (pos_ < n_ && p_[pos_] == 0xc0) {
        ++pos_;
        if (key_column != i) continue;  // an absent column
        blob_of(body, 's', names[i]);
        blob_of(body, 's', encoding.column_text(key));
      } else {
        blob_of(body, 's', names[i]);
        if (!object(body, 1)) return false;
      }
      ++present;
    }
    out += 'm';
    put_u64(out, present);
    out += body;
    return true;
  }

 private:
  bool be(unsigned width, uint64_t* v) {
    if (n_ - pos_ < width) return false;
    *v = 0;
    for (unsigned i = 0; i < width; ++i)
      *v = *v << 8 | p_[pos_++];
    return true;
  }
  bool raw(std::string& out, uint64_t size) {
    if (n_ - pos_ < size) return false;
    out.append(reinterpret_cast<const char*>(p_ + pos_), size);
    pos_ += size;
    return true;
  }
  static bool integer(std::string& out, int64_t v) {
    out += 'i';
    put_u64(out, static_cast<uint64_t>(v));
    return true;
  }
  static void blob_of(std::string& out, char tag, std::string_view bytes) {
    out += tag;
    put_u64(out, bytes.size());
    out += bytes;
  }
  bool blob(std::string& out, char tag, uint64_t size) {
    if (n_ - pos_ < size) return false;
    blob_of(out, tag, std::string_view(reinterpret_cast<const char*>(p_ + pos_), size));
    pos_ += size;
    return true;
  }
  bool ext(std::string& out, uint64_t size) {
    if (n_ - pos_ < 1) return false;
    out += 'e';
    out += static_cast<char>(p_[pos_++]);  // the type
    put_u64(out, size);
    return raw(out, size);
  }
  bool array(std::string& out, uint64_t count, int depth) {
    if (count > n_ - pos_) return false;  // each element takes a byte at least
    out += 'a';
    put_u64(out, count);
    for (uint64_t i = 0; i < count; ++i)
      if (!object(out, depth + 1)) return false;
    return true;
  }
  bool map(std::string& out, uint64_t count, int depth) {
    if (count > (n_ - pos_) / 2) return false;
    out += 'm';
    put_u64(out, count);
    for (uint64_t i = 0; i < 2 * count; ++i)
      if (!object(out, depth + 1)) return false;
    return true;
  }

  const uint8_t* p_;
  size_t n_;
  size_t pos_ = 0;
};

// One side's rows as records: what a row of `t` stands for, in canonical form.
class RecordReader {
 public:
  explicit RecordReader(const ReadOnlyTable& t)
      : names_(t.columns()), key_column_(t.key_column()), encoding_(t.encoding()) {}

  // The canonical form of the row (key, value), in a buffer this reader reuses.
  const std::string& record(Bytes key, Bytes value) {
    out_.clear();
    CanonicalWriter w(value);
    bool ok;
    if (!names_.empty())
      ok = w.column_row(out_, names_, key_column_, encoding_, key);
    else
      ok = w.object(out_);
    if (!ok || !w.at_end()) {  // not one MessagePack object (or row): its bytes as they are
      out_.assign(1, 'r');
      out_.append(reinterpret_cast<const char*>(value.data()), value.size());
    }
    return out_;
  }

 private:
  std::span<const std::string> names_;
  std::optional<uint32_t> key_column_;
  KeyEncoding encoding_;
  std::string out_;
};

// A range's rows (or a dataset index range's entries) in order, one at a time: the current one's
// key and value (or index key), valid until the next step.
template <class RangeT>
class RangeStream {
 public:
  explicit RangeStream(RangeT range) : range_(std::move(range)), it_(range_.begin()) {}
  RangeStream(const RangeStream&) = delete;
  RangeStream& operator=(const RangeStream&) = delete;

  bool done() const noexcept { return it_ == std::default_sentinel; }
  Bytes key() const { return (*it_).key; }
  Bytes value() const { return (*it_).value; }
  Bytes index_key() const { return (*it_).index_key; }  // a ShardedIndexRange's
  void next() { ++it_; }
  const drydb::status& status() const noexcept { return range_.status(); }

 private:
  RangeT range_;
  typename RangeT::iterator it_;
};

// A file's index entries in (index key, primary key) order, through its cursor (an IndexRange
// gives rows without their index keys).
class IndexEntryStream {
 public:
  explicit IndexEntryStream(const SecondaryIndex& index) : cursor_(index.cursor()) {
    on_ = cursor_.first();
  }
  bool done() const noexcept { return !on_; }
  Bytes key() const { return cursor_.key(); }
  Bytes index_key() const { return cursor_.index_key(); }
  void next() { on_ = cursor_.next(); }
  const drydb::status& status() const noexcept { return cursor_.status(); }

 private:
  IndexCursor cursor_;
  bool on_ = false;
};

// One side's table: its shape, and (for a dataset) the table across the shards.
struct SideTable {
  std::optional<ReadOnlyTable> shape;
  std::optional<ShardedTable> sharded;
};

// Calls use(the side's row stream) for `t`.
template <class Use>
status with_rows(const SideTable& t, Use use) {
  if (t.sharded) {
    auto range = t.sharded->get_range(unbounded, unbounded);
    if (!range) return std::move(range).error();
    RangeStream<ShardedRange> rows(std::move(*range));
    return use(rows);
  }
  auto range = t.shape->get_range(unbounded, unbounded);
  if (!range) return std::move(range).error();
  RangeStream<Range> rows(std::move(*range));
  return use(rows);
}

// Calls use(the side's entry stream) for index `name` of `t`.
template <class Use>
status with_entries(const SideTable& t, const SecondaryIndex& index, Use use) {
  if (t.sharded) {
    auto sharded = t.sharded->index(index.name());
    if (!sharded) return std::move(sharded).error();
    auto range = sharded->get_range(unbounded, unbounded);
    if (!range) return std::move(range).error();
    RangeStream<ShardedIndexRange> entries(std::move(*range));
    return use(entries);
  }
  IndexEntryStream entries(index);
  return use(entries);
}

class Differ {
 public:
  Differ(const DiffSide& old_side, const DiffSide& new_side, const DiffOptions& options,
         DiffVisitor* visitor)
      : old_(old_side), new_(new_side), options_(options), visitor_(visitor) {}

  result<DatabaseDiff> run() {
    DatabaseDiff d;
    const std::vector<ReadOnlyTable> olds = old_.shape().tables();
    const std::vector<ReadOnlyTable> news = new_.shape().tables();
    auto wanted = [&](std::string_view name) {
      return options_.tables.empty() || std::find(options_.tables.begin(), options_.tables.end(),
                                                  name) != options_.tables.end();
    };
    for (const std::string& name : options_.tables) {
      auto named = [&](const ReadOnlyTable& t) { return t.name() == name; };
      if (std::none_of(olds.begin(), olds.end(), named) &&
          std::none_of(news.begin(), news.end(), named))
        return unexpected(errc::not_found, "no table '" + name + "' in either database");
    }
    for (const ReadOnlyTable& t : olds)
      if (wanted(t.name())) {
        auto td = table(t.name());
        if (!td) return std::move(td).error();
        d.tables.push_back(std::move(*td));
      }
    for (const ReadOnlyTable& t : news)
      if (wanted(t.name()) && !old_.shape().table(t.name())) {
        auto td = table(t.name());
        if (!td) return std::move(td).error();
        d.tables.push_back(std::move(*td));
      }
    return d;
  }

 private:
  // The side's table `name`, if it has one.
  static result<SideTable> side_table(const DiffSide& side, std::string_view name) {
    SideTable t;
    auto shape = side.shape().table(name);
    if (!shape) return t;
    t.shape = std::move(*shape);
    if (side.dataset()) {
      auto sharded = side.dataset()->table(name);
      if (!sharded) return std::move(sharded).error();
      t.sharded = std::move(*sharded);
    }
    return t;
  }

  static uint64_t rows_of(const SideTable& t) {
    return t.sharded ? t.sharded->count() : t.shape->count();
  }

  result<TableDiff> table(std::string_view name) {
    auto o = side_table(old_, name);
    if (!o) return std::move(o).error();
    auto n = side_table(new_, name);
    if (!n) return std::move(n).error();
    TableDiff td;
    td.name = std::string(name);
    td.in_old = o->shape.has_value();
    td.in_new = n->shape.has_value();
    if (td.in_old) td.old_rows = rows_of(*o);
    if (td.in_new) td.new_rows = rows_of(*n);
    const ReadOnlyTable* ot = td.in_old ? &*o->shape : nullptr;
    const ReadOnlyTable* nt = td.in_new ? &*n->shape : nullptr;
    if (ot && nt) {
      td.key_encoding_changed = ot->encoding().id() != nt->encoding().id();
      td.columns_changed = !std::equal(ot->columns().begin(), ot->columns().end(),
                                       nt->columns().begin(), nt->columns().end()) ||
                           ot->key_column() != nt->key_column();
    }
    status st = rows(*o, *n, ot, nt, td);
    if (!st) return std::move(st).error();
    st = indexes(*o, *n, ot, nt, td);
    if (!st) return std::move(st).error();
    return td;
  }

  status tell_row(const DiffRow& row) { return visitor_ ? visitor_->row(row) : status{}; }

  // Calls one() for each item left in `s` (one reads the current item), until it fails.
  template <class Stream, class One>
  static status each_left(Stream& s, One one) {
    for (; !s.done(); s.next())
      if (auto st = one(); !st) return st;
    return s.status();
  }

  // The current row of one side's stream, as removed (old) or added (new): counted, and told
  // to the visitor (its value read only when there is one).
  template <class Stream>
  status one_sided_row(Stream& s, const ReadOnlyTable* ot, const ReadOnlyTable* nt, bool old_side,
                       TableDiff& td) {
    ++(old_side ? td.removed : td.added);
    if (!visitor_) return {};
    if (old_side) return tell_row({ot, nt, DiffChange::removed, s.key(), s.value(), {}});
    return tell_row({ot, nt, DiffChange::added, s.key(), {}, s.value()});
  }

  // Every row of one side, as removed (old) or added (new).
  template <class Stream>
  status all_rows(Stream& s, const ReadOnlyTable* ot, const ReadOnlyTable* nt, bool old_side,
                  TableDiff& td) {
    return each_left(s, [&] { return one_sided_row(s, ot, nt, old_side, td); });
  }

  status rows(const SideTable& o, const SideTable& n, const ReadOnlyTable* ot,
              const ReadOnlyTable* nt, TableDiff& td) {
    if (!ot) return with_rows(n, [&](auto& s) { return all_rows(s, ot, nt, false, td); });
    if (!nt) return with_rows(o, [&](auto& s) { return all_rows(s, ot, nt, true, td); });
    if (td.key_encoding_changed) {
      if (auto st = with_rows(o, [&](auto& s) { return all_rows(s, ot, nt, true, td); }); !st)
        return st;
      return with_rows(n, [&](auto& s) { return all_rows(s, ot, nt, false, td); });
    }
    return with_rows(o, [&](auto& a) {
      return with_rows(n, [&](auto& b) { return merge_rows(a, b, ot, nt, td); });
    });
  }

  // Both tables in key order, side by side. Rows of the same key are compared by their bytes
  // where both tables store rows alike, else (column lists that differ: one table's rows are
  // arrays of its columns, the other's maps or arrays of other columns) as the records they
  // stand for, which equal bytes do not imply then (a column renamed).
  template <class A, class B>
  status merge_rows(A& a, B& b, const ReadOnlyTable* ot, const ReadOnlyTable* nt, TableDiff& td) {
    std::optional<RecordReader> old_records, new_records;
    if (td.columns_changed) {
      old_records.emplace(*ot);
      new_records.emplace(*nt);
    }
    while (!a.done() && !b.done()) {
      const int c = compare(a.key(), b.key());
      if (c == 0) {
        const bool same = old_records ? old_records->record(a.key(), a.value()) ==
                                            new_records->record(b.key(), b.value())
                                      : same_bytes(a.value(), b.value());
        if (same) {
          ++td.unchanged;
        } else {
          ++td.changed;
          if (visitor_)
            if (auto st = tell_row({ot, nt, DiffChange::changed, a.key(), a.value(), b.value()});
                !st)
              return st;
        }
        a.next();
        b.next();
      } else if (c < 0) {
        if (auto st = one_sided_row(a, ot, nt, true, td); !st) return st;
        a.next();
      } else {
        if (auto st = one_sided_row(b, ot, nt, false, td); !st) return st;
        b.next();
      }
    }
    if (auto st = a.status(); !st) return st;
    if (auto st = b.status(); !st) return st;
    if (auto st = all_rows(a, ot, nt, true, td); !st) return st;
    return all_rows(b, ot, nt, false, td);
  }

  status tell_entry(const DiffIndexEntry& e) {
    return visitor_ ? visitor_->index_entry(e) : status{};
  }

  // The current entry of one side's stream, as `change` (removed or added): counted, and told
  // to the visitor.
  template <class Stream>
  status one_sided_entry(Stream& s, const ReadOnlyTable* t, const SecondaryIndex* ix,
                         DiffChange change, IndexDiff& id) {
    ++(change == DiffChange::removed ? id.removed : id.added);
    if (!visitor_) return {};
    return tell_entry(DiffIndexEntry{t, ix, change, s.key(), s.index_key()});
  }

  template <class Stream>
  status all_entries(Stream& s, const ReadOnlyTable* t, const SecondaryIndex* ix, DiffChange change,
                     IndexDiff& id) {
    return each_left(s, [&] { return one_sided_entry(s, t, ix, change, id); });
  }

  // Both indexes in (index key, primary key) order, side by side.
  template <class A, class B>
  status merge_entries(A& a, B& b, const ReadOnlyTable* ot, const ReadOnlyTable* nt,
                       const SecondaryIndex* oi, const SecondaryIndex* ni, IndexDiff& id) {
    while (!a.done() && !b.done()) {
      int c = compare(a.index_key(), b.index_key());
      if (c == 0) c = compare(a.key(), b.key());
      if (c == 0) {
        a.next();
        b.next();
      } else if (c < 0) {
        if (auto st = one_sided_entry(a, ot, oi, DiffChange::removed, id); !st) return st;
        a.next();
      } else {
        if (auto st = one_sided_entry(b, nt, ni, DiffChange::added, id); !st) return st;
        b.next();
      }
    }
    if (auto st = a.status(); !st) return st;
    if (auto st = b.status(); !st) return st;
    if (auto st = all_entries(a, ot, oi, DiffChange::removed, id); !st) return st;
    return all_entries(b, nt, ni, DiffChange::added, id);
  }

  status indexes(const SideTable& o, const SideTable& n, const ReadOnlyTable* ot,
                 const ReadOnlyTable* nt, TableDiff& td) {
    const std::vector<SecondaryIndex> oix = ot ? ot->indexes() : std::vector<SecondaryIndex>{};
    const std::vector<SecondaryIndex> nix = nt ? nt->indexes() : std::vector<SecondaryIndex>{};
    auto find = [](const std::vector<SecondaryIndex>& in, std::string_view name) {
      const auto it = std::find_if(in.begin(), in.end(),
                                   [&](const SecondaryIndex& ix) { return ix.name() == name; });
      return it == in.end() ? nullptr : &*it;
    };
    std::vector<std::pair<const SecondaryIndex*, const SecondaryIndex*>> pairs;
    for (const SecondaryIndex& ix : oix)
      pairs.emplace_back(&ix, find(nix, ix.name()));
    for (const SecondaryIndex& ix : nix)
      if (!find(oix, ix.name())) pairs.emplace_back(nullptr, &ix);
    for (const auto& pair : pairs) {
      // Named apart (not a structured binding): the lambdas below capture them.
      const SecondaryIndex* oi = pair.first;
      const SecondaryIndex* ni = pair.second;
      IndexDiff id;
      id.name = std::string(oi ? oi->name() : ni->name());
      id.in_old = oi != nullptr;
      id.in_new = ni != nullptr;
      if (oi) id.old_entries = entries_of(o, *oi);
      if (ni) id.new_entries = entries_of(n, *ni);
      const bool encodings_differ = oi && ni && oi->encoding().id() != ni->encoding().id();
      id.shape_changed = encodings_differ || (oi && ni && oi->unique() != ni->unique());
      if (options_.index_entries) {
        status st;
        if (oi && (!ni || encodings_differ || td.key_encoding_changed))
          st = with_entries(
              o, *oi, [&](auto& s) { return all_entries(s, ot, oi, DiffChange::removed, id); });
        if (st && ni && (!oi || encodings_differ || td.key_encoding_changed))
          st = with_entries(n, *ni,
                            [&](auto& s) { return all_entries(s, nt, ni, DiffChange::added, id); });
        if (st && oi && ni && !encodings_differ && !td.key_encoding_changed)
          st = with_entries(o, *oi, [&](auto& a) {
            return with_entries(n, *ni,
                                [&](auto& b) { return merge_entries(a, b, ot, nt, oi, ni, id); });
          });
        if (!st) return st;
      }
      td.indexes.push_back(std::move(id));
    }
    return {};
  }

  static uint64_t entries_of(const SideTable& t, const SecondaryIndex& ix) {
    if (t.sharded) {
      auto sharded = t.sharded->index(ix.name());
      return sharded ? sharded->count() : 0;
    }
    return ix.count();
  }

  const DiffSide& old_;
  const DiffSide& new_;
  const DiffOptions& options_;
  DiffVisitor* visitor_;
};

}  // namespace

bool TableDiff::differs() const noexcept {
  // Not columns_changed: a column list is how rows are stored; rows that stand for other
  // records count as changed.
  return !in_old || !in_new || key_encoding_changed || added != 0 || removed != 0 || changed != 0 ||
         std::any_of(indexes.begin(), indexes.end(),
                     [](const IndexDiff& ix) { return ix.differs(); });
}

bool DatabaseDiff::differs() const noexcept {
  return std::any_of(tables.begin(), tables.end(), [](const TableDiff& t) { return t.differs(); });
}

result<DatabaseDiff> diff(const DiffSide& old_side, const DiffSide& new_side,
                          const DiffOptions& options, DiffVisitor* visitor) {
  return Differ(old_side, new_side, options, visitor).run();
}

}  // namespace drydb
