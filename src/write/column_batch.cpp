#include "write/column_batch.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <unordered_map>

#include "drydb/detail/catalog.h"
#include "drydb/detail/coding.h"
#include "drydb/limits.h"
#include "format/column_row.h"
#include "write/msgpack_packer.h"

namespace drydb {

using detail::ColumnBatchTable;

namespace {

// Each ColumnType's name and width (0: variable), in the enum's order.
struct ColumnTypeInfo {
  std::string_view name;
  size_t width;
};
constexpr ColumnTypeInfo kColumnTypes[] = {
    {"boolean", 1}, {"int8", 1},   {"int16", 2},  {"int32", 4},    {"int64", 8},
    {"uint8", 1},   {"uint16", 2}, {"uint32", 4}, {"uint64", 8},   {"float32", 4},
    {"float64", 8}, {"text", 0},   {"bytes", 0},  {"timestamp", 8}};
static_assert(std::size(kColumnTypes) == static_cast<size_t>(ColumnType::timestamp) + 1);

}  // namespace

std::string_view column_type_name(ColumnType type) noexcept {
  const auto i = static_cast<size_t>(type);
  return i < std::size(kColumnTypes) ? kColumnTypes[i].name : std::string_view("unknown");
}

size_t column_type_width(ColumnType type) noexcept {
  const auto i = static_cast<size_t>(type);
  return i < std::size(kColumnTypes) ? kColumnTypes[i].width : 0;
}

namespace {

bool is_string_type(ColumnType t) noexcept {
  return t == ColumnType::text || t == ColumnType::bytes;
}
bool is_integer_type(ColumnType t) noexcept {
  return t >= ColumnType::int8 && t <= ColumnType::uint64;
}

template <class T>
T load(const ColumnView& c, size_t i) noexcept {
  T v;
  std::memcpy(&v, static_cast<const std::byte*>(c.values) + static_cast<ptrdiff_t>(i) * c.stride,
              sizeof v);
  return v;
}

int64_t load_offset(const ColumnView& c, size_t i) noexcept {
  return c.wide_offsets ? static_cast<const int64_t*>(c.offsets)[i]
                        : static_cast<const int32_t*>(c.offsets)[i];
}

// Value i of a text or bytes column.
std::span<const std::byte> string_at(const ColumnView& c, size_t i) noexcept {
  if (c.offsets != nullptr) {
    const int64_t begin = load_offset(c, i);
    if (c.data == nullptr) return {};  // every value empty (check_layout)
    return {c.data + begin, static_cast<size_t>(load_offset(c, i + 1) - begin)};
  }
  const auto* p = static_cast<const std::byte*>(c.values) + static_cast<ptrdiff_t>(i) * c.stride;
  size_t n = c.width;
  if (c.trim_zeros)
    while (n > 0 && p[n - 1] == std::byte{0})
      --n;
  return {p, n};
}

// An integer column's value i, as int64 when it fits; false for a uint64 over INT64_MAX.
bool integer_at(const ColumnView& c, size_t i, int64_t* out) noexcept {
  switch (c.type) {
    case ColumnType::int8:
      *out = load<int8_t>(c, i);
      return true;
    case ColumnType::int16:
      *out = load<int16_t>(c, i);
      return true;
    case ColumnType::int32:
      *out = load<int32_t>(c, i);
      return true;
    case ColumnType::int64:
      *out = load<int64_t>(c, i);
      return true;
    case ColumnType::uint8:
      *out = load<uint8_t>(c, i);
      return true;
    case ColumnType::uint16:
      *out = load<uint16_t>(c, i);
      return true;
    case ColumnType::uint32:
      *out = load<uint32_t>(c, i);
      return true;
    case ColumnType::uint64: {
      const auto u = load<uint64_t>(c, i);
      *out = static_cast<int64_t>(u);
      return u <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
    }
    default:
      return false;
  }
}

// Seconds and nanoseconds of a timestamp's count of `unit`, rounded down.
void split_timestamp(int64_t count, TimeUnit unit, int64_t* seconds, uint32_t* nanos) noexcept {
  int64_t per_second = 1, nanos_per_unit = 1'000'000'000;
  switch (unit) {
    case TimeUnit::second:
      break;
    case TimeUnit::millisecond:
      per_second = 1'000, nanos_per_unit = 1'000'000;
      break;
    case TimeUnit::microsecond:
      per_second = 1'000'000, nanos_per_unit = 1'000;
      break;
    case TimeUnit::nanosecond:
      per_second = 1'000'000'000, nanos_per_unit = 1;
      break;
  }
  int64_t s = count / per_second, rest = count % per_second;
  if (rest < 0) --s, rest += per_second;
  *seconds = s;
  *nanos = static_cast<uint32_t>(rest * nanos_per_unit);
}

Error column_error(errc code, const ColumnBatchTable& t, std::string_view role, const ColumnView& c,
                   std::string_view what) {
  return Error(code, (t.name.empty() ? std::string() : "table '" + std::string(t.name) + "': ") +
                         std::string(role) + " '" + std::string(c.name) + "' (" +
                         std::string(column_type_name(c.type)) + ")" + std::string(what));
}
Error row_error(errc code, const ColumnBatchTable& t, std::string_view role, const ColumnView& c,
                size_t row, std::string_view what) {
  return column_error(code, t, role, c, ", row " + std::to_string(row) + ": " + std::string(what));
}

// A column's layout: its buffers given for its type, its offsets in order. `max_length` is
// set to its longest string.
status check_layout(const ColumnBatchTable& t, std::string_view role, const ColumnView& c,
                    size_t rows, size_t* max_length) {
  if (c.length != rows)
    return column_error(
        errc::invalid_argument, t, role, c,
        " has " + std::to_string(c.length) + " rows; the keys " + std::to_string(rows));
  if (static_cast<size_t>(c.type) > static_cast<size_t>(ColumnType::timestamp))
    return column_error(errc::invalid_argument, t, role, c, " is of no known type");
  *max_length = 0;
  if (rows == 0) return {};
  if (!is_string_type(c.type)) {
    if (c.values == nullptr)
      return column_error(errc::invalid_argument, t, role, c, " has no values");
    return {};
  }
  if (c.offsets == nullptr) {
    if (c.values == nullptr)
      return column_error(errc::invalid_argument, t, role, c, " has neither offsets nor values");
    *max_length = c.width;
    return {};
  }
  int64_t previous = load_offset(c, 0);
  if (previous < 0) return row_error(errc::invalid_argument, t, role, c, 0, "a negative offset");
  int64_t longest = 0;
  for (size_t i = 0; i < rows; ++i) {
    const int64_t next = load_offset(c, i + 1);
    if (next < previous)
      return row_error(errc::invalid_argument, t, role, c, i, "its offsets decrease");
    longest = std::max(longest, next - previous);
    previous = next;
  }
  if (c.data == nullptr && previous != load_offset(c, 0))
    return column_error(errc::invalid_argument, t, role, c, " has offsets but no data");
  *max_length = static_cast<size_t>(longest);
  return {};
}

}  // namespace

bool ColumnView::is_null(size_t i) const noexcept {
  if (validity != nullptr) {
    const size_t bit = validity_bit + i;
    if (((validity[bit / 8] >> (bit % 8)) & 1) == 0) return true;
  }
  if (null_mask != nullptr && null_mask[i] != 0) return true;
  if (missing_sentinels) {
    if (type == ColumnType::float64) return std::isnan(load<double>(*this, i));
    if (type == ColumnType::float32) return std::isnan(load<float>(*this, i));
    if (type == ColumnType::timestamp)
      return load<int64_t>(*this, i) == std::numeric_limits<int64_t>::min();
  }
  return false;
}

ColumnView ColumnView::fixed(std::string_view name, ColumnType type, const void* values,
                             size_t length, ptrdiff_t stride) noexcept {
  ColumnView c;
  c.name = name;
  c.type = type;
  c.values = values;
  c.length = length;
  c.stride = stride != 0 ? stride : static_cast<ptrdiff_t>(column_type_width(type));
  return c;
}

ColumnView ColumnView::timestamps(std::string_view name, const int64_t* counts, size_t length,
                                  TimeUnit unit, ptrdiff_t stride) noexcept {
  ColumnView c = fixed(name, ColumnType::timestamp, counts, length, stride);
  c.unit = unit;
  return c;
}

ColumnView ColumnView::strings(std::string_view name, ColumnType type, const int32_t* offsets,
                               const void* data, size_t length) noexcept {
  ColumnView c;
  c.name = name;
  c.type = type;
  c.offsets = offsets;
  c.data = static_cast<const std::byte*>(data);
  c.length = length;
  return c;
}

ColumnView ColumnView::strings(std::string_view name, ColumnType type, const int64_t* offsets,
                               const void* data, size_t length) noexcept {
  ColumnView c = strings(name, type, static_cast<const int32_t*>(nullptr), data, length);
  c.offsets = offsets;
  c.wide_offsets = true;
  return c;
}

ColumnView ColumnView::fixed_width_strings(std::string_view name, ColumnType type,
                                           const void* values, size_t width, size_t length,
                                           bool trim_zeros, ptrdiff_t stride) noexcept {
  ColumnView c;
  c.name = name;
  c.type = type;
  c.values = values;
  c.width = width;
  c.length = length;
  c.trim_zeros = trim_zeros;
  c.stride = stride != 0 ? stride : static_cast<ptrdiff_t>(width);
  return c;
}

namespace detail {

status ColumnBatch::check_keys() const {
  const ColumnBatchTable& t = table_;
  const ColumnView& k = keys_;
  size_t longest = 0;
  if (auto st = check_layout(t, "key column", k, k.length, &longest); !st) return st;
  const KeyEncoding enc = t.encoding;
  const std::string wanted = std::string(enc.id()) + " keys";
  if (enc.kind() == KeyKind::int64) {
    if (!is_integer_type(k.type))
      return column_error(errc::wrong_key_type, t, "key column", k,
                          k.type == ColumnType::float32 || k.type == ColumnType::float64
                              ? " holds floats, not int64 keys"
                              : " holds no integers, not int64 keys");
  } else if (!is_string_type(k.type)) {
    return column_error(errc::wrong_key_type, t, "key column", k,
                        " holds no text or bytes, not " + wanted);
  }
  const bool parse_text =
      k.type == ColumnType::text && (enc.kind() == KeyKind::uuid || enc.kind() == KeyKind::ulid);
  for (size_t i = 0; i < k.length; ++i) {
    if (k.is_null(i))
      return row_error(errc::invalid_argument, t, "key column", k, i, "no key (null)");
    if (enc.kind() == KeyKind::int64) {
      int64_t v;
      if (!integer_at(k, i, &v))
        return row_error(errc::invalid_argument, t, "key column", k, i,
                         std::to_string(load<uint64_t>(k, i)) + " is outside int64");
      continue;
    }
    const std::span<const std::byte> s = string_at(k, i);
    if (parse_text) {
      auto parsed = enc.parse(std::string_view(reinterpret_cast<const char*>(s.data()), s.size()));
      if (!parsed)
        return row_error(errc::invalid_argument, t, "key column", k, i, parsed.error().message);
      continue;
    }
    if (enc.fixed_width() != 0 && s.size() != enc.fixed_width())
      return row_error(
          errc::wrong_key_type, t, "key column", k, i,
          "key '" + escape_bytes(s) + "' is not " + std::to_string(enc.fixed_width()) + " bytes");
    if (s.size() > t.max_key_length)
      return row_error(errc::key_too_long, t, "key column", k, i,
                       "the key is " + std::to_string(s.size()) + " bytes; the limit is " +
                           std::to_string(t.max_key_length));
  }
  return {};
}

result<ColumnBatch> ColumnBatch::of_columns(const ColumnBatchTable& table, const ColumnView& keys,
                                            std::span<const ColumnView> columns) {
  ColumnBatch batch(table, keys);
  if (table.columns.empty())
    return Error(errc::invalid_argument,
                 "table '" + std::string(table.name) +
                     "' has no column list: give it one (set_columns) before appending columns");
  if (auto st = batch.check_keys(); !st) return std::move(st).error();
  std::unordered_map<std::string_view, uint32_t> position;
  for (uint32_t i = 0; i < table.columns.size(); ++i)
    position.emplace(table.columns[i], i);
  batch.slots_.assign(table.columns.size(), nullptr);
  // A row's size is at most its strings and 9 bytes per field more (a marker and a 64-bit
  // length or number; a timestamp takes 15), plus the array's 5.
  uint64_t largest_row = 5;
  for (const ColumnView& c : columns) {
    const auto at = position.find(c.name);
    if (at == position.end())
      return column_error(errc::invalid_argument, table, "column", c,
                          " is not in the table's column list");
    if (batch.slots_[at->second] != nullptr)
      return column_error(errc::invalid_argument, table, "column", c, " is given twice");
    batch.slots_[at->second] = &c;
    size_t longest = 0;
    if (auto st = check_layout(table, "column", c, keys.length, &longest); !st) return st.error();
    largest_row += longest + 15;
  }
  if (largest_row > kMaxValueLength) {
    // Rare enough to pack each row to learn its size.
    for (size_t i = 0; i < keys.length; ++i)
      if (batch.row(i).second.size() > kMaxValueLength)
        return Error(errc::value_too_large, "table '" + std::string(table.name) + "': row " +
                                                std::to_string(i) + " packs to 4 GiB or more");
  }
  return batch;
}

result<ColumnBatch> ColumnBatch::of_keys(const ColumnBatchTable& table, const ColumnView& keys) {
  ColumnBatch batch(table, keys);
  if (auto st = batch.check_keys(); !st) return std::move(st).error();
  return batch;
}

result<ColumnBatch> ColumnBatch::of_values(const ColumnBatchTable& table, const ColumnView& keys,
                                           const ColumnView& values) {
  ColumnBatch batch(table, keys);
  if (auto st = batch.check_keys(); !st) return std::move(st).error();
  size_t longest = 0;
  if (auto st = check_layout(table, "value column", values, keys.length, &longest); !st)
    return std::move(st).error();
  if (!is_string_type(values.type))
    return column_error(errc::invalid_argument, table, "value column", values,
                        " holds no text or bytes");
  batch.raw_values_ = true;
  batch.values_ = values;
  for (size_t i = 0; i < keys.length; ++i) {
    if (values.is_null(i)) continue;
    const std::span<const std::byte> v = string_at(values, i);
    if (v.size() > kMaxValueLength)
      return row_error(errc::value_too_large, table, "value column", values, i,
                       "the value is 4 GiB or more");
    if (!table.columns.empty())
      if (std::string why = column_row_problem(v, static_cast<uint32_t>(table.columns.size()));
          !why.empty())
        return row_error(errc::invalid_argument, table, "value column", values, i,
                         "the value does not fit the table's column list: " + why);
  }
  return batch;
}

std::span<const std::byte> ColumnBatch::encode_key(size_t i) {
  const KeyEncoding enc = table_.encoding;
  if (enc.kind() == KeyKind::int64) {
    int64_t v = 0;
    integer_at(keys_, i, &v);
    store_be64(key_scratch_, int64_to_ordered(v));
    return key_scratch_;
  }
  const std::span<const std::byte> s = string_at(keys_, i);
  if (keys_.type == ColumnType::text &&
      (enc.kind() == KeyKind::uuid || enc.kind() == KeyKind::ulid)) {
    parsed_key_ = *enc.parse(std::string_view(reinterpret_cast<const char*>(s.data()), s.size()));
    return std::as_bytes(std::span(parsed_key_));
  }
  return s;
}

bool ColumnBatch::stands_for_key(const ColumnView& c, size_t i,
                                 std::span<const std::byte> key) const {
  // Only text: a reader turns the nil back into the key's text, a MessagePack str, so a bytes
  // field (bin) or a number left out there would read back as another type.
  if (c.type != ColumnType::text) return false;
  const std::span<const std::byte> s = string_at(c, i);
  if (table_.encoding == KeyEncoding::bytes())
    return s.size() == key.size() && std::memcmp(s.data(), key.data(), s.size()) == 0;
  const std::string text = table_.encoding.column_text(key);
  return s.size() == text.size() && std::memcmp(s.data(), text.data(), s.size()) == 0;
}

void ColumnBatch::pack_row(size_t i, std::span<const std::byte> key) {
  value_.clear();
  MsgpackPacker p(value_);
  // The array ends at its last field that is not nil (the columns after it are absent), but
  // not before the key column: a row shorter than that would not hold the key.
  size_t n = slots_.size();
  auto nil_at = [&](size_t pos) {
    const ColumnView* c = slots_[pos];
    if (pos == table_.key_column)
      return c == nullptr || c->is_null(i) || stands_for_key(*c, i, key);
    return c == nullptr || c->is_null(i);
  };
  while (n > 0 && n - 1 != table_.key_column && nil_at(n - 1))
    --n;
  p.array(n);
  for (size_t pos = 0; pos < n; ++pos) {
    if (nil_at(pos)) {
      p.nil();
      continue;
    }
    const ColumnView& c = *slots_[pos];
    switch (c.type) {
      case ColumnType::boolean:
        p.boolean(load<uint8_t>(c, i) != 0);
        break;
      case ColumnType::int8:
        p.integer(load<int8_t>(c, i));
        break;
      case ColumnType::int16:
        p.integer(load<int16_t>(c, i));
        break;
      case ColumnType::int32:
        p.integer(load<int32_t>(c, i));
        break;
      case ColumnType::int64:
        p.integer(load<int64_t>(c, i));
        break;
      case ColumnType::uint8:
        p.uint(load<uint8_t>(c, i));
        break;
      case ColumnType::uint16:
        p.uint(load<uint16_t>(c, i));
        break;
      case ColumnType::uint32:
        p.uint(load<uint32_t>(c, i));
        break;
      case ColumnType::uint64:
        p.uint(load<uint64_t>(c, i));
        break;
      case ColumnType::float32:
        p.float32(load<float>(c, i));
        break;
      case ColumnType::float64:
        p.float64(load<double>(c, i));
        break;
      case ColumnType::text:
        p.str(string_at(c, i));
        break;
      case ColumnType::bytes:
        p.bin(string_at(c, i));
        break;
      case ColumnType::timestamp: {
        int64_t seconds;
        uint32_t nanos;
        split_timestamp(load<int64_t>(c, i), c.unit, &seconds, &nanos);
        p.timestamp(seconds, nanos);
        break;
      }
    }
  }
}

std::pair<std::span<const std::byte>, std::span<const std::byte>> ColumnBatch::row(size_t i) {
  const std::span<const std::byte> key = encode_key(i);
  if (raw_values_) {
    if (values_.is_null(i)) return {key, {}};
    return {key, string_at(values_, i)};
  }
  pack_row(i, key);
  return {key, value_};
}

}  // namespace detail

status for_each_encoded_key(const ColumnView& keys, KeyEncoding encoding,
                            const std::function<void(size_t, std::span<const std::byte>)>& visit) {
  const detail::ColumnBatchTable table{.name = "",
                                       .encoding = encoding,
                                       .max_key_length = UINT32_MAX,
                                       .columns = {},
                                       .key_column = detail::kNoKeyColumn};
  auto batch = detail::ColumnBatch::of_keys(table, keys);
  if (!batch) return std::move(batch).error();
  for (size_t i = 0; i < keys.length; ++i)
    visit(i, batch->encode_key(i));
  return {};
}

}  // namespace drydb
