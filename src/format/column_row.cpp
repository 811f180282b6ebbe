#include "format/column_row.h"

namespace drydb::detail {
namespace {

uint64_t load_be(const uint8_t* p, unsigned width) {
  uint64_t v = 0;
  for (unsigned i = 0; i < width; ++i)
    v = v << 8 | p[i];
  return v;
}

// What follows a MessagePack type marker: `header` bytes of length or count
// (big-endian), then a payload of `payload` bytes, or of the length read
// from the header when `payload_from_header`; `children` nested objects (an
// array's count, twice a map's) when `count_children`.
struct Marker {
  unsigned header = 0;
  uint64_t payload = 0;
  bool payload_from_header = false;
  uint64_t children = 0;
  bool count_children = false;
  uint64_t children_per_count = 1;
};

Marker marker(uint8_t m) {
  if (m <= 0x7f || m >= 0xe0 || m == 0xc0 || m == 0xc2 || m == 0xc3)
    return {};                                                                // fixints, nil, bool
  if (m >= 0x80 && m <= 0x8f) return {0, 0, false, uint64_t{m & 0x0fu} * 2};  // fixmap
  if (m >= 0x90 && m <= 0x9f) return {0, 0, false, uint64_t{m & 0x0fu}};      // fixarray
  if (m >= 0xa0 && m <= 0xbf) return {0, uint64_t{m & 0x1fu}};                // fixstr
  switch (m) {
    case 0xc4:
    case 0xd9:
      return {1, 0, true};  // bin 8, str 8
    case 0xc5:
    case 0xda:
      return {2, 0, true};  // bin 16, str 16
    case 0xc6:
    case 0xdb:
      return {4, 0, true};  // bin 32, str 32
    case 0xc7:
      return {1, 1, true};  // ext 8: length, type, data
    case 0xc8:
      return {2, 1, true};  // ext 16
    case 0xc9:
      return {4, 1, true};  // ext 32
    case 0xca:
      return {0, 4};  // float 32
    case 0xcb:
      return {0, 8};  // float 64
    case 0xcc:
    case 0xd0:
      return {0, 1};  // uint 8, int 8
    case 0xcd:
    case 0xd1:
      return {0, 2};
    case 0xce:
    case 0xd2:
      return {0, 4};
    case 0xcf:
    case 0xd3:
      return {0, 8};
    case 0xd4:
      return {0, 2};  // fixext 1: type, data
    case 0xd5:
      return {0, 3};
    case 0xd6:
      return {0, 5};
    case 0xd7:
      return {0, 9};
    case 0xd8:
      return {0, 17};
    case 0xdc:
      return {2, 0, false, 0, true, 1};  // array 16
    case 0xdd:
      return {4, 0, false, 0, true, 1};  // array 32
    case 0xde:
      return {2, 0, false, 0, true, 2};  // map 16
    case 0xdf:
      return {4, 0, false, 0, true, 2};  // map 32
    default:
      return {0, ~uint64_t{0}};  // 0xc1, never used
  }
}

}  // namespace

std::string column_row_problem(std::span<const std::byte> row, uint32_t columns) {
  const auto* p = reinterpret_cast<const uint8_t*>(row.data());
  const uint64_t n = row.size();
  uint64_t pos = 0;
  // Objects still to skip. Every object takes at least one byte, so more
  // pending objects than bytes left is a truncation, found before any loop
  // over a hostile count.
  uint64_t pending = 1;
  bool top = true;
  while (pending > 0) {
    if (pending > n - pos) return "the row is cut short";
    const uint8_t m = p[pos++];
    Marker k = marker(m);
    if (k.payload == ~uint64_t{0}) return "the row holds the unused MessagePack marker 0xc1";
    if (n - pos < k.header) return "the row is cut short";
    const uint64_t length = load_be(p + pos, k.header);
    pos += k.header;
    if (k.payload_from_header) k.payload += length;
    if (k.count_children) k.children = length * k.children_per_count;
    if (top) {
      const bool array = (m >= 0x90 && m <= 0x9f) || m == 0xdc || m == 0xdd;
      if (!array) return "the row is not a MessagePack array";
      if (k.children > columns)
        return "the row has " + std::to_string(k.children) + " fields for " +
               std::to_string(columns) + " columns";
      top = false;
    }
    if (n - pos < k.payload) return "the row is cut short";
    pos += k.payload;
    pending += k.children - 1;
  }
  if (pos != n) return "the row has bytes after its array";
  return {};
}

}  // namespace drydb::detail
