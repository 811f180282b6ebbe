// drydb/msgpack.h: typed tables whose values are MessagePack, on msgpack-cxx.
//
//   struct Person {
//     std::string name;
//     int age = 0;
//     MSGPACK_DEFINE(name, age);  // packed as the array [name, age]
//   };
//
//   auto people = drydb::as_msgpack<Person>(builder.create_table("people"));
//   people.append("key01", Person{"Bob", 22});
//   people.add_secondary_index("age", /*unique=*/false, drydb::KeyEncoding::int64(),
//                              [](const Person& p) { return p.age; });
//   ...
//   auto table = drydb::as_msgpack<Person>(db.table("people").value());
//   std::optional<Person> bob = table.get("key01").value();
//   for (auto [key, person] : *table.index("age")->get_range(20, 29)) ...
//
// Dependencies. Only this header needs msgpack-cxx (Debian: libmsgpack-cxx-dev;
// header-only); libdrydb does not, so a program that includes it links
// msgpack-cxx itself:
//   find_package(msgpack-cxx CONFIG REQUIRED)  # msgpack-cxx 6 and later
//   target_link_libraries(app PRIVATE drydb::drydb msgpack-cxx)
// or, for msgpack-cxx 4 and 5 (Debian 12 ships 4.1.3):
//   find_package(msgpack CONFIG REQUIRED)
//   target_link_libraries(app PRIVATE drydb::drydb msgpackc-cxx)
// Defining MSGPACK_NO_BOOST leaves Boost out; this header uses none of it.
// msgpack-cxx's API version 2 or 3 (3 is its default) is required.
//
// Exceptions. msgpack-cxx reports every error by throwing (it has no
// non-throwing decode path and does not compile with -fno-exceptions), so this
// header needs exceptions enabled, unlike the rest of drydb. It catches what
// msgpack-cxx or T's adaptor throws, and what an index function throws, and
// returns a drydb::result instead; only a std::bad_alloc from its own
// bookkeeping (an error message, a handle's shared state) can escape.
//
// Values. T is any type msgpack-cxx packs and converts: a struct with
// MSGPACK_DEFINE (an array of its fields) or MSGPACK_DEFINE_MAP, standard
// containers, std::optional, or a type with its own msgpack adaptor. T must
// own its data (std::string, not std::string_view or msgpack::type::raw_ref):
// the bytes a T is decoded from are released once it is decoded.
//
// Decode errors. A stored value that does not decode as T is
// errc::corruption, with a message naming the table (and index), the row's key
// and what is wrong: not MessagePack, truncated, bytes left after the object,
// or a MessagePack object of another shape than T. Never a crash: lengths in
// the value are checked against its size before anything is allocated, and
// containers may nest at most kMsgpackMaxDepth levels. Running out of memory
// while decoding is errc::out_of_memory.
//
// Column lists. A table with a column list (TableBuilder::set_columns) stores
// its rows as MessagePack arrays; a typed table reads each as the map it
// stands for (column names to the row's fields, the key column's nil as the
// key's text), so T is map-shaped: MSGPACK_DEFINE_MAP, a std::map. A typed
// builder over such a table stores each packed map as its row (a nil field
// as an absent column; the key column always, so a map without it reads back
// with the key's text there); a field that is not a column fails the build.
#pragma once

#if !defined(__cpp_exceptions)
#error "drydb/msgpack.h needs C++ exceptions: msgpack-cxx reports errors by throwing"
#endif

#include <msgpack.hpp>

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <functional>
#include <iterator>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "drydb/builder.h"
#include "drydb/cursor.h"
#include "drydb/detail/msgpack_build.h"
#include "drydb/detail/msgpack_decode.h"
#include "drydb/error.h"
#include "drydb/index.h"
#include "drydb/key.h"
#include "drydb/key_encoding.h"
#include "drydb/msgpack_columns.h"
#include "drydb/range.h"
#include "drydb/result.h"
#include "drydb/table.h"

namespace drydb {

// How deeply MessagePack arrays and maps may nest in a stored value; deeper is
// a decode error. It bounds the recursion of converting to a recursive T.
inline constexpr size_t kMsgpackMaxDepth = detail::kMsgpackDepthLimit;

// ---- reading -----------------------------------------------------------------------------------

// One row of a typed range or cursor walk: the row's primary key (encoded,
// as its table orders it) and its value decoded as T. Both belong to the
// iteration and stay valid until it steps; the value may be moved from.
//   for (auto [key, person] : *range) people.push_back(std::move(person));
template <class T>
struct MsgpackEntry {
  std::span<const std::byte> key;
  T& value;

  std::string_view key_str() const noexcept {
    return {reinterpret_cast<const char*>(key.data()), key.size()};
  }
};

namespace detail {

// The iterator of typed ranges and cursors: decodes each row as it reaches
// it, so a value that does not decode as T ends the iteration before the loop
// body sees it, with the error in the owner's status(). Source provides
// step() (move to the next row; false at the end), entry() (the current row),
// read_status() (the underlying read error, if any) and decode_row().
template <class T, class Source>
class MsgpackIterator {
 public:
  using value_type = MsgpackEntry<T>;
  using difference_type = std::ptrdiff_t;

  MsgpackEntry<T> operator*() const { return {key_, *value_}; }
  MsgpackIterator& operator++() {
    load(source_->step());
    return *this;
  }
  void operator++(int) { ++*this; }
  bool operator==(std::default_sentinel_t) const noexcept { return done_; }

  // Internal: positioned on a row when `on_row`.
  MsgpackIterator(Source* source, bool on_row) : source_(source) { load(on_row); }

 private:
  void load(bool on_row) {
    done_ = true;
    if (!on_row) return;
    const Entry e = source_->entry();
    if (!source_->read_status()) return;  // a failed page read: the source holds the error
    key_ = e.key;
    done_ = !source_->decode_row(e, value_);
  }

  Source* source_;
  std::span<const std::byte> key_;
  mutable std::optional<T> value_;
  bool done_ = true;
};

}  // namespace detail

// A typed view of a Range or IndexRange (see range.h): the same rows, in the
// same order, with values decoded as T while iterating:
//   for (auto [key, person] : *range) ...   // see MsgpackEntry
// A value that does not decode as T ends the iteration early, like a failed
// page read: check status() after the loop. Iterating again starts over. Must
// not outlive its database; belongs to one thread at a time.
template <class T, class CursorT = Cursor>
class MsgpackRange {
 public:
  using iterator = detail::MsgpackIterator<T, MsgpackRange>;

  // Rows in the range (known up front, from the tree's subtree counts).
  uint64_t size() const noexcept { return range_.size(); }
  bool empty() const noexcept { return range_.empty(); }
  SortOrder order() const noexcept { return range_.order(); }
  // The first error of the last iteration: a value that did not decode as T,
  // or a failed page read.
  const drydb::status& status() const noexcept {
    return decode_status_ ? range_.status() : decode_status_;
  }
  // The untyped range: the same rows as bytes.
  BasicRange<CursorT>& untyped() noexcept { return range_; }

  iterator begin() {
    decode_status_ = {};
    at_.emplace(range_.begin());
    return iterator(this, *at_ != std::default_sentinel);
  }
  std::default_sentinel_t end() const noexcept { return {}; }

  // Internal.
  MsgpackRange(BasicRange<CursorT> range, detail::MsgpackSource source)
      : range_(std::move(range)), decoder_(std::move(source)) {}

 private:
  friend iterator;
  bool step() {
    ++*at_;
    return *at_ != std::default_sentinel;
  }
  Entry entry() const { return **at_; }
  const drydb::status& read_status() const noexcept { return range_.status(); }
  bool decode_row(const Entry& e, std::optional<T>& out) {
    if (auto why = decoder_.decode(e.key, e.value, out)) {
      decode_status_ = std::move(*why);
      return false;
    }
    return true;
  }

  BasicRange<CursorT> range_;
  detail::MsgpackRowDecoder<T> decoder_;
  std::optional<typename BasicRange<CursorT>::iterator> at_;
  drydb::status decode_status_;
};

template <class T>
using MsgpackIndexRange = MsgpackRange<T, IndexCursor>;

// A typed view of a Cursor or IndexCursor (see cursor.h, index.h): the same
// positioning calls; value() decodes the current row as T. Range-for walks
// from the current row (the first when unpositioned) to the last, decoding
// each row, and stops early at a value that does not decode (see status()).
// Views and entries stay valid until the cursor moves. Must not outlive its
// database; belongs to one thread at a time.
template <class T, class CursorT = Cursor>
class MsgpackCursor {
 public:
  using iterator = detail::MsgpackIterator<T, MsgpackCursor>;

  // Each positioning call returns valid(), as the untyped cursor's does.
  bool first() { return moved(cursor_.first()); }
  bool last() { return moved(cursor_.last()); }
  bool seek(const Key& key) { return moved(cursor_.seek(key)); }
  bool seek_exact(const Key& key) {
    const bool exact = cursor_.seek_exact(key);
    moved(false);
    return exact;
  }
  bool seek_rank(uint64_t rank) { return moved(cursor_.seek_rank(rank)); }
  bool next() { return moved(cursor_.next()); }
  bool prev() { return moved(cursor_.prev()); }

  bool valid() const noexcept { return cursor_.valid(); }
  // Requires: valid().
  uint64_t rank() const noexcept { return cursor_.rank(); }
  // The current row's primary key; empty when !valid().
  std::span<const std::byte> key() const { return cursor_.key(); }
  // The current row's value decoded as T (decoded again on each call).
  // errc::invalid_state when !valid(); a failed page read's error; the
  // decode error of a value that is not a T.
  result<T> value() const {
    if (!cursor_.valid())
      return Error(errc::invalid_state, "table '" + std::string(decoder_.source().table.name()) +
                                            "': value() of a cursor that is not on a row");
    const Entry e = cursor_.entry();
    if (!cursor_.status()) return cursor_.status().error();
    std::optional<T> out;
    if (auto why = decoder_.decode(e.key, e.value, out)) return std::move(*why);
    return std::move(*out);
  }
  // The first error since the last positioning call: a failed page read, or
  // a value that range-for could not decode.
  const drydb::status& status() const noexcept {
    return decode_status_ ? cursor_.status() : decode_status_;
  }
  // The untyped cursor (for index_key(), row(), raw values).
  CursorT& untyped() noexcept { return cursor_; }
  const CursorT& untyped() const noexcept { return cursor_; }

  iterator begin() {
    if (!cursor_.valid()) first();
    return iterator(this, cursor_.valid());
  }
  std::default_sentinel_t end() const noexcept { return {}; }

  // Internal.
  MsgpackCursor(CursorT cursor, detail::MsgpackSource source)
      : cursor_(std::move(cursor)), decoder_(std::move(source)) {}

 private:
  friend iterator;
  bool moved(bool valid) {
    decode_status_ = {};
    return valid;
  }
  bool step() { return next(); }
  Entry entry() const { return cursor_.entry(); }
  const drydb::status& read_status() const noexcept { return cursor_.status(); }
  bool decode_row(const Entry& e, std::optional<T>& out) {
    if (auto why = decoder_.decode(e.key, e.value, out)) {
      decode_status_ = std::move(*why);
      return false;
    }
    return true;
  }

  CursorT cursor_;
  mutable detail::MsgpackRowDecoder<T> decoder_;
  drydb::status decode_status_;
};

namespace detail {

// The typed queries MsgpackTable and MsgpackIndex share, written once over the untyped Q
// (ReadOnlyTable or SecondaryIndex, whose cursors are CursorT): each asks Q and decodes the rows'
// values as T. Derived::source() names the table (and index) in decode errors.
template <class Derived, class T, class Q, class CursorT>
class MsgpackQueries {
 public:
  using TypedRange = MsgpackRange<T, CursorT>;

  std::string_view name() const noexcept { return untyped_.name(); }
  KeyEncoding encoding() const noexcept { return untyped_.encoding(); }
  // Rows of the table (entries of the index), O(1).
  uint64_t count() const noexcept { return untyped_.count(); }
  // The untyped table or index.
  const Q& untyped() const noexcept { return untyped_; }

  // Rows between two bounds; see ReadOnlyTable::get_range, SecondaryIndex::get_range.
  result<TypedRange> get_range(const KeyBound& start, const KeyBound& end,
                               RangeOptions options = {}) const {
    return typed(untyped_.get_range(start, end, options));
  }
  result<uint64_t> count_range(const KeyBound& start, const KeyBound& end,
                               RangeOptions options = {}) const {
    return untyped_.count_range(start, end, options);
  }
  // Rows whose key (an index's: index key) starts with `prefix` (byte keys only).
  result<TypedRange> prefix(std::span<const std::byte> prefix,
                            SortOrder order = SortOrder::ascending) const {
    return typed(untyped_.prefix(prefix, order));
  }
  result<TypedRange> prefix(std::string_view text, SortOrder order = SortOrder::ascending) const {
    return typed(untyped_.prefix(text, order));
  }
  // An unpositioned cursor in key (index key) order.
  MsgpackCursor<T, CursorT> cursor() const {
    return MsgpackCursor<T, CursorT>(untyped_.cursor(), source());
  }

 protected:
  explicit MsgpackQueries(Q untyped) noexcept : untyped_(untyped) {}
  MsgpackSource source() const { return static_cast<const Derived&>(*this).source(); }
  template <class R>
  result<TypedRange> typed(result<R> r) const {
    if (!r) return std::move(r).error();
    return TypedRange(std::move(r).value(), source());
  }

  Q untyped_;
};

}  // namespace detail

// A typed view of a SecondaryIndex (see index.h): the same queries, answering
// with the rows' values decoded as T. Index keys are given as the index's
// encoding takes them. A cheap handle; must not outlive its database.
template <class T>
class MsgpackIndex
    : public detail::MsgpackQueries<MsgpackIndex<T>, T, SecondaryIndex, IndexCursor> {
  using Base = detail::MsgpackQueries<MsgpackIndex<T>, T, SecondaryIndex, IndexCursor>;

 public:
  bool unique() const noexcept { return this->untyped_.unique(); }

  // The value of the row whose index key is `key` (for a non-unique index,
  // the first such row in primary-key order); an empty optional when none.
  result<std::optional<T>> get(const Key& key) const {
    auto row = this->untyped_.get(key);
    if (!row) return std::move(row).error();
    return detail::decode_msgpack_row<T>(source(), row->has_value(), row->key(), row->value());
  }
  // Every row whose index key is `key`, in primary-key order.
  result<MsgpackIndexRange<T>> get_all(const Key& key) const {
    return this->typed(this->untyped_.get_all(key));
  }

  // Internal.
  MsgpackIndex(SecondaryIndex index, ReadOnlyTable table) noexcept : Base(index), table_(table) {}

 private:
  friend Base;
  detail::MsgpackSource source() const { return {table_, this->untyped_.name()}; }

  ReadOnlyTable table_;
};

// A typed view of a ReadOnlyTable (see table.h) whose values are MessagePack
// encodings of T: the same queries, with values decoded as T. Keys are given
// as the table takes them. A cheap handle (copy freely); must not outlive its
// database. Safe from many threads at once, as the table is.
template <class T>
class MsgpackTable : public detail::MsgpackQueries<MsgpackTable<T>, T, ReadOnlyTable, Cursor> {
  using Base = detail::MsgpackQueries<MsgpackTable<T>, T, ReadOnlyTable, Cursor>;

 public:
  explicit MsgpackTable(ReadOnlyTable table) noexcept : Base(table) {}

  // The value of `key` decoded as T; an empty optional when absent.
  result<std::optional<T>> get(const Key& key) const {
    auto v = this->untyped_.get(key);
    if (!v) return std::move(v).error();
    return detail::decode_msgpack_row<T>(source(), v->has_value(), key.bytes(), v->bytes());
  }
  // The table's secondary index `name`, typed; errc::not_found if none.
  result<MsgpackIndex<T>> index(std::string_view name) const {
    auto ix = this->untyped_.index(name);
    if (!ix) return std::move(ix).error();
    return MsgpackIndex<T>(*ix, this->untyped_);
  }

 private:
  friend Base;
  detail::MsgpackSource source() const { return {this->untyped_, {}}; }
};

// `table` with values decoded as T.
template <class T>
MsgpackTable<T> as_msgpack(const ReadOnlyTable& table) noexcept {
  return MsgpackTable<T>(table);
}

// Decodes one MessagePack value (e.g. a Row's or Value's bytes) as T; the
// errors of a typed table's reads, without the table and key.
template <class T>
result<T> from_msgpack(std::span<const std::byte> bytes) {
  std::optional<T> out;
  try {
    ::msgpack::zone zone(512);
    if (auto why = detail::decode_msgpack(bytes, zone, out)) {
      why->message = "the value " + why->message;
      return std::move(*why);
    }
  } catch (const std::bad_alloc&) {
    return Error(errc::out_of_memory, "the value could not be decoded: out of memory");
  }
  return std::move(*out);
}

// ---- building ----------------------------------------------------------------------------------

// An index function of a MsgpackTableBuilder<T>: called with the row's value
// decoded as T, and optionally the row's encoded primary key before it.
template <class F, class T>
concept MsgpackIndexFunction = (std::invocable<F&, const T&>) ||
                               (std::invocable<F&, std::span<const std::byte>, const T&>);

// A typed view of a TableBuilder (see builder.h) that packs T values with
// msgpack-cxx. A cheap handle (copy freely); the TableBuilder must outlive
// it, as the DatabaseBuilder's tables do. Single-threaded, like the builder.
template <class T>
class MsgpackTableBuilder {
 public:
  explicit MsgpackTableBuilder(TableBuilder& table)
      : table_(&table), state_(std::make_shared<detail::MsgpackBuildState<T>>()) {}

  // Packs `value` and appends it under `key` (any key the table takes; any
  // order). The TableBuilder's errors apply. If packing fails (out of memory,
  // or T's adaptor throws), the build fails and status() says why.
  MsgpackTableBuilder& append(const Key& key, const T& value) {
    auto& s = *state_;
    try {
      s.packed.clear();
      ::msgpack::pack(s.packed, value);
      if (!table_->columns().empty() && !s.packed_as_row(*table_, key.bytes()))
        return poison(std::move(s.row_error));
    } catch (const std::exception& e) {
      return poison("table '" + std::string(table_->name()) + "': the value of key '" +
                    table_->encoding().format(key.bytes()) +
                    "' could not be packed as MessagePack: " + e.what());
    } catch (...) {
      return poison("table '" + std::string(table_->name()) + "': the value of key '" +
                    table_->encoding().format(key.bytes()) +
                    "' could not be packed as MessagePack: its adaptor threw");
    }
    table_->append(key, std::as_bytes(std::span(s.packed.data(), s.packed.size())));
    return *this;
  }

  // Declares a secondary index (see TableBuilder::add_secondary_index) whose
  // function sees the row decoded as T. `index_key` is called as
  //   index_key(const T& value)                                or
  //   index_key(std::span<const std::byte> primary_key, const T& value)
  // (the primary key encoded, as TableBuilder's index functions get it) and
  // returns what converts to std::optional<IndexKey>: a key (text, integer,
  // Uuid, Ulid...), or std::nullopt to leave the row out of the index.
  //
  // Cost: the builder stores packed bytes, so at build time each row's value
  // is decoded again (unpack + convert to T, with T's allocations): once per
  // row for all the indexes declared through one MsgpackTableBuilder, which
  // share the decoded row, and once more per row for each other handle's.
  //
  // If a row does not decode as T (a raw append of other bytes to this table)
  // or the function throws, the build fails with that error (errc::corruption
  // for a value that does not decode, errc::invalid_argument for a function
  // that threw; see IndexKeyFunction) and status() holds it, naming the
  // table, index and row.
  template <MsgpackIndexFunction<T> F>
  MsgpackTableBuilder& add_secondary_index(std::string_view name, bool unique, KeyEncoding encoding,
                                           F index_key) {
    table_->add_secondary_index(
        name, unique, encoding,
        [state = state_, fn = std::move(index_key), builder = table_,
         table = std::string(table_->name()), table_encoding = table_->encoding(),
         index = std::string(name)](
            std::span<const std::byte> key,
            std::span<const std::byte> value) mutable -> result<std::optional<IndexKey>> {
          const T* row = state->decode(
              table, MsgpackColumns{builder->columns(), builder->key_column(), table_encoding},
              index, key, value);
          if (row == nullptr) return state->decode_error;
          std::string why = "the function threw";
          try {
            if constexpr (std::invocable<F&, std::span<const std::byte>, const T&>)
              return std::optional<IndexKey>(fn(key, *row));
            else
              return std::optional<IndexKey>(fn(*row));
          } catch (const std::exception& e) {
            why += ": ";
            why += e.what();
          } catch (...) {
          }
          state->fail(Error(errc::invalid_argument, "table '" + table + "' (index '" + index +
                                                        "'): " + why + " for key '" +
                                                        table_encoding.format(key) + "'"));
          return Error(errc::invalid_argument, std::move(why));
        });
    return *this;
  }

  std::string_view name() const noexcept { return table_->name(); }
  KeyEncoding encoding() const noexcept { return table_->encoding(); }
  uint64_t rows_appended() const noexcept { return table_->rows_appended(); }
  // The untyped table builder.
  TableBuilder& untyped() const noexcept { return *table_; }

  // This handle's first error (a value that failed to pack or, during the
  // build, to decode for an index), else the builder's first error so far.
  const drydb::status& status() const noexcept {
    return state_->first_error ? table_->status() : state_->first_error;
  }

 private:
  MsgpackTableBuilder& poison(std::string message) {
    state_->fail(Error(errc::invalid_argument, std::move(message)));
    table_->append(detail::msgpack_poison_key(table_->encoding()), std::string_view());
    return *this;
  }

  TableBuilder* table_;
  std::shared_ptr<detail::MsgpackBuildState<T>> state_;
};

// `table` taking values of type T, packed as MessagePack.
template <class T>
MsgpackTableBuilder<T> as_msgpack(TableBuilder& table) {
  return MsgpackTableBuilder<T>(table);
}

}  // namespace drydb
