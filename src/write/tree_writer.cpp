#include "write/tree_writer.h"

#include <algorithm>
#include <cstring>

#include "drydb/detail/coding.h"
#include "drydb/detail/format.h"
#include "format/checksum.h"

namespace drydb::detail {
namespace {

// Bytes of a key stored in a record or separator besides its 8-byte prefix:
// fixed widths up to 8 live wholly in the prefix; longer fixed keys are stored
// whole; variable keys are stored whole after a u16 length.
size_t key_part_size(uint16_t key_width, size_t key_len) {
  if (key_width == 0) return 2 + key_len;
  return key_width <= 8 ? 0 : key_width;
}

std::byte* put_key_part(std::byte* p, uint16_t key_width, Bytes key) {
  if (key_width == 0) {
    store_u16(p, static_cast<uint16_t>(key.size()));
    p += 2;
  } else if (key_width <= 8) {
    return p;
  }
  if (!key.empty()) std::memcpy(p, key.data(), key.size());
  return p + key.size();
}

size_t common_prefix(Bytes a, Bytes b) {
  const size_t n = std::min(a.size(), b.size());
  size_t i = 0;
  while (i < n && a[i] == b[i])
    ++i;
  return i;
}
size_t common_prefix(const std::string& a, const std::string& b) {
  return common_prefix(Bytes(reinterpret_cast<const std::byte*>(a.data()), a.size()),
                       Bytes(reinterpret_cast<const std::byte*>(b.data()), b.size()));
}

}  // namespace

TreeWriter::TreeWriter(Sink& sink, uint32_t page_size, uint16_t key_width, bool prefixed_keys,
                       uint64_t checksum_seed, uint64_t& next_page)
    : sink_(sink),
      page_size_(page_size),
      checksum_seed_(checksum_seed),
      key_width_(key_width),
      prefixed_keys_(prefixed_keys),
      next_page_(next_page),
      first_page_(next_page) {}

// A leaf's keys are stored after their shared prefix while every key is
// variable-length and short enough; the prefix is the first key's common
// part with the last (keys being sorted, with every key between).
TreeWriter::LeafKeys TreeWriter::leaf_keys_with(Bytes key, size_t value_field) const {
  if (!prefixed_keys_ || key_width_ != 0 || key.size() > kMaxPrefixedKeyLength ||
      (!leaf_.empty() && !leaf_layout_.prefixed))
    return {false, 0, 0};
  size_t shared = key.size();
  size_t bytes = 0;
  if (!leaf_.empty()) {
    shared = common_prefix(leaf_key(leaf_.front()), key);  // <= leaf_layout_.shared
    bytes = shared == leaf_layout_.shared ? leaf_layout_.prefixed_record_bytes
                                          : prefixed_record_bytes(shared);
  }
  bytes += 2 + leaf::tail_size(static_cast<uint32_t>(key.size() - shared)) + value_field;
  return {true, shared, bytes};
}

size_t TreeWriter::prefixed_record_bytes(size_t shared) const {
  size_t bytes = 0;
  for (const LeafEntry& e : leaf_)
    bytes += 2 + leaf::tail_size(static_cast<uint32_t>(e.key_len - shared)) +
             (e.overflow ? leaf::kOverflowRefSize : e.value_len);
  return bytes;
}

// Bytes the open leaf would take with one more entry, in the layout it would
// then have (uniform when every value is inline and of one length; `keys`
// from leaf_keys_with).
size_t TreeWriter::leaf_size_with(Bytes key, size_t value_len, bool overflow,
                                  const LeafKeys& keys) const {
  size_t n = leaf_.size() + 1;
  bool any_overflow = leaf_any_overflow_ || overflow;
  bool uniform = key_width_ != 0 && !any_overflow && leaf_same_length_ &&
                 (leaf_.empty() || leaf_.front().value_len == value_len);
  uint8_t flags = (uniform ? leaf::kUniformValues : 0) | (any_overflow ? leaf::kHasOverflow : 0);
  if (keys.prefixed) return leaf::records_off(n, flags) + keys.shared + keys.prefixed_record_bytes;
  size_t record =
      key_part_size(key_width_, key.size()) + (overflow ? leaf::kOverflowRefSize : value_len);
  return leaf::records_off(n, flags) + leaf_record_bytes_ + record;
}

status TreeWriter::write_overflow(Bytes value, uint64_t& first_page) {
  uint64_t pages = overflow::pages_for(value.size(), page_size_);
  first_page = allocate(pages);
  overflow_pages_ += pages;
  std::byte head[overflow::kHeaderSize] = {};
  head[page::kTypeOff] = std::byte{static_cast<uint8_t>(PageType::overflow)};
  store_u32(head + overflow::kLengthOff, static_cast<uint32_t>(value.size()));
  Checksummer sum(overflow::run_seed(checksum_seed_, first_page, checksum_seed_ != 0));
  sum.update(Bytes(head + 8, overflow::kHeaderSize - 8));
  sum.update(value);
  store_u64(head + page::kChecksumOff, sum.digest());
  uint64_t offset = first_page * page_size_;
  DRYDB_TRY(sink_.write_at(offset, Bytes(head, sizeof head)));
  DRYDB_TRY(sink_.write_at(offset + overflow::kHeaderSize, value));
  uint64_t used = overflow::kHeaderSize + value.size();
  uint64_t padding = pages * page_size_ - used;
  if (padding > 0) {
    std::vector<std::byte> zeros(padding);
    DRYDB_TRY(sink_.write_at(offset + used, zeros));
  }
  return {};
}

status TreeWriter::add(Bytes key, Bytes value) {
  bool overflow = value.size() > inline_value_limit(page_size_);
  const size_t value_field = overflow ? leaf::kOverflowRefSize : value.size();
  LeafKeys keys = leaf_keys_with(key, value_field);
  if (!leaf_.empty() && leaf_size_with(key, value.size(), overflow, keys) > page_size_) {
    DRYDB_TRY(close_leaf());
    keys = leaf_keys_with(key, value_field);
  }
  LeafEntry e{};
  e.key_off = static_cast<uint32_t>(leaf_keys_.size());
  e.key_len = static_cast<uint32_t>(key.size());
  leaf_keys_.insert(leaf_keys_.end(), key.begin(), key.end());
  e.value_len = static_cast<uint32_t>(value.size());
  e.overflow = overflow;
  if (overflow) {
    DRYDB_TRY(write_overflow(value, e.overflow_page));
    leaf_any_overflow_ = true;
  } else {
    e.value_off = static_cast<uint32_t>(leaf_values_.size());
    leaf_values_.insert(leaf_values_.end(), value.begin(), value.end());
  }
  if (!leaf_.empty() && leaf_.front().value_len != value.size()) leaf_same_length_ = false;
  leaf_record_bytes_ += key_part_size(key_width_, key.size()) + value_field;
  leaf_layout_ = keys;
  leaf_.push_back(e);
  ++rows_;
  max_key_length_ = std::max<uint32_t>(max_key_length_, static_cast<uint32_t>(key.size()));
  return {};
}

std::string TreeWriter::separator_between(Bytes left_last, Bytes right_first) const {
  const char* right = reinterpret_cast<const char*>(right_first.data());
  if (key_width_ != 0) return std::string(right, right_first.size());
  // The shortest prefix of right_first that is still greater than left_last:
  // it keeps internal pages small for long keys with long common prefixes.
  size_t common = 0;
  size_t n = std::min(left_last.size(), right_first.size());
  while (common < n && left_last[common] == right_first[common])
    ++common;
  return std::string(right, std::min(common + 1, right_first.size()));
}

status TreeWriter::close_leaf() {
  const size_t n = leaf_.size();
  bool uniform = key_width_ != 0 && !leaf_any_overflow_ && leaf_same_length_;
  // Prefixed where that saves bytes (a leaf of one key, say, saves none).
  const bool prefixed =
      leaf_layout_.prefixed &&
      leaf_layout_.shared + leaf_layout_.prefixed_record_bytes < leaf_record_bytes_;
  const size_t shared = prefixed ? leaf_layout_.shared : 0;
  uint8_t flags = (uniform ? leaf::kUniformValues : 0) |
                  (leaf_any_overflow_ ? leaf::kHasOverflow : 0) |
                  (prefixed ? leaf::kPrefixedKeys : 0);
  wrote_prefixed_ = wrote_prefixed_ || prefixed;
  uint64_t page = allocate(1);
  leaf_starts_.push_back(LeafStart{rows_ - n, page});

  std::vector<std::byte> bytes(page_size_);
  std::byte* p = bytes.data();
  p[page::kTypeOff] = std::byte{static_cast<uint8_t>(PageType::leaf)};
  p[page::kFlagsOff] = std::byte{flags};
  store_u16(p + page::kCountOff, static_cast<uint16_t>(n));
  store_u16(p + leaf::kUniformLenOff,
            uniform ? static_cast<uint16_t>(leaf_.front().value_len) : uint16_t{0});
  store_u64(p + leaf::kPrevOff, previous_leaf_page_);
  store_u16(p + leaf::kPrefixLenOff, static_cast<uint16_t>(shared));
  const size_t records = leaf::records_off(n, flags);
  std::byte* rec = p + records;
  if (shared) {  // the shared prefix, once, before the records
    std::memcpy(rec, leaf_keys_.data() + leaf_.front().key_off, shared);
    rec += shared;
  }
  for (size_t i = 0; i < n; ++i) {
    const LeafEntry& e = leaf_[i];
    Bytes key(leaf_keys_.data() + e.key_off, e.key_len);
    store_be64(p + leaf::kHeaderSize + 8 * i, key_prefix(key.data() + shared, key.size() - shared));
    if (!uniform)
      store_u16(p + leaf::offsets_off(n) + 2 * i, static_cast<uint16_t>(rec - (p + records)));
    if (e.overflow) {
      p[leaf::bitmap_off(n, flags) + i / 8] |= std::byte{static_cast<uint8_t>(1u << (i % 8))};
    }
    if (prefixed) {  // u16 length after the prefix, then the bytes after the head
      const auto m = static_cast<uint32_t>(key.size() - shared);
      store_u16(rec, static_cast<uint16_t>(m));
      if (m > 8) std::memcpy(rec + 2, key.data() + shared + 8, m - 8);
      rec += 2 + leaf::tail_size(m);
    } else {
      rec = put_key_part(rec, key_width_, key);
    }
    if (e.overflow) {
      store_u64(rec, e.overflow_page);
      store_u32(rec + 8, e.value_len);
      rec += leaf::kOverflowRefSize;
    } else {
      if (e.value_len) std::memcpy(rec, leaf_values_.data() + e.value_off, e.value_len);
      rec += e.value_len;
    }
  }
  if (!uniform)
    store_u16(p + leaf::offsets_off(n) + 2 * n, static_cast<uint16_t>(rec - (p + records)));

  if (pending_leaf_page_ != 0) DRYDB_TRY(write_pending_leaf(page));
  pending_leaf_ = std::move(bytes);
  pending_leaf_page_ = page;
  previous_leaf_page_ = page;

  Bytes first(leaf_keys_.data() + leaf_.front().key_off, leaf_.front().key_len);
  std::string separator =
      leaves_ == 0 ? std::string()
                   : separator_between(Bytes(reinterpret_cast<const std::byte*>(last_key_.data()),
                                             last_key_.size()),
                                       first);
  const LeafEntry& last = leaf_.back();
  last_key_.assign(reinterpret_cast<const char*>(leaf_keys_.data() + last.key_off), last.key_len);
  ++leaves_;
  leaf_.clear();
  leaf_keys_.clear();
  leaf_values_.clear();
  leaf_record_bytes_ = 0;
  leaf_layout_ = {false, 0, 0};
  leaf_any_overflow_ = false;
  leaf_same_length_ = true;
  return push_child(0, ChildRef{page, n, std::move(separator)});
}

status TreeWriter::write_pending_leaf(uint64_t next_leaf) {
  store_u64(pending_leaf_.data() + leaf::kNextOff, next_leaf);
  DRYDB_TRY(write_page(pending_leaf_page_, pending_leaf_));
  pending_leaf_page_ = 0;
  return {};
}

status TreeWriter::write_page(uint64_t page, std::vector<std::byte>& bytes) {
  store_u64(bytes.data() + page::kChecksumOff,
            checksum(Bytes(bytes.data() + 8, bytes.size() - 8), checksum_seed_));
  return sink_.write_at(page * page_size_, bytes);
}

TreeWriter::NodeKeys TreeWriter::node_keys_with(const Level& level,
                                                const std::string& separator) const {
  NodeKeys k = level.keys;
  if (k.children++ == 0) return k;  // the first child's separator is not stored here
  k.separator_bytes += separator.size();
  k.prefixable = k.prefixable && separator.size() <= kMaxPrefixedKeyLength;
  // Separators are sorted: the first one's common part with the last is
  // common to all.
  k.shared =
      k.children == 2 ? separator.size() : common_prefix(level.children[1].separator, separator);
  return k;
}

size_t TreeWriter::internal_size(const NodeKeys& k) const {
  const size_t n = k.children;
  size_t size = internal::keys_off(n);
  if (key_width_ == 0) {
    size += 2 * n + k.separator_bytes;
    if (prefix_separators(k)) size = size + k.shared - (n - 1) * k.shared;
  } else if (key_width_ > 8) {
    size += (n - 1) * key_width_;
  }
  return size;
}

status TreeWriter::push_child(size_t level, ChildRef child) {
  if (levels_.size() <= level) levels_.resize(level + 1);
  if (!levels_[level].children.empty() &&
      internal_size(node_keys_with(levels_[level], child.separator)) > page_size_)
    DRYDB_TRY(close_internal(level));
  Level& lv = levels_[level];
  lv.keys = node_keys_with(lv, child.separator);
  lv.children.push_back(std::move(child));
  return {};
}

status TreeWriter::close_internal(size_t level) {
  std::vector<ChildRef> children = std::move(levels_[level].children);
  const NodeKeys node_keys = levels_[level].keys;
  const bool prefixed = prefix_separators(node_keys);
  const size_t shared = prefixed ? node_keys.shared : 0;
  wrote_prefixed_ = wrote_prefixed_ || prefixed;
  levels_[level].children.clear();
  levels_[level].keys = {};
  ++levels_[level].closed;
  const size_t n = children.size();
  uint64_t page = allocate(1);
  ++internals_;

  std::vector<std::byte> bytes(page_size_);
  std::byte* p = bytes.data();
  p[page::kTypeOff] = std::byte{static_cast<uint8_t>(PageType::internal)};
  p[page::kFlagsOff] = std::byte{prefixed ? internal::kPrefixedKeys : uint8_t{0}};
  store_u16(p + page::kCountOff, static_cast<uint16_t>(n));
  store_u16(p + internal::kLevelOff, static_cast<uint16_t>(level + 1));
  store_u16(p + internal::kPrefixLenOff, static_cast<uint16_t>(shared));
  uint64_t total = 0;
  std::byte* keys = p + internal::keys_off(n);
  std::byte* heap = keys + 2 * n;  // variable-width separators only
  if (shared) {                    // the shared prefix, once, at the start of the heap
    std::memcpy(heap, children[1].separator.data(), shared);
    heap += shared;
  }
  for (size_t i = 0; i < n; ++i) {
    total += children[i].rows;
    store_u64(p + internal::children_off() + 8 * i, children[i].page);
    store_u64(p + internal::counts_off(n) + 8 * i, total);
    if (i == 0) continue;
    // The separator as stored: after the shared prefix, if any.
    Bytes sep(reinterpret_cast<const std::byte*>(children[i].separator.data()) + shared,
              children[i].separator.size() - shared);
    store_be64(p + internal::prefixes_off(n) + 8 * (i - 1), key_prefix(sep.data(), sep.size()));
    if (key_width_ == 0) {
      store_u16(keys + 2 * (i - 1), static_cast<uint16_t>(heap - (keys + 2 * n)));
      if (!sep.empty()) std::memcpy(heap, sep.data(), sep.size());
      heap += sep.size();
    } else if (key_width_ > 8) {
      std::memcpy(keys + (i - 1) * key_width_, sep.data(), key_width_);
    }
  }
  if (key_width_ == 0) store_u16(keys + 2 * (n - 1), static_cast<uint16_t>(heap - (keys + 2 * n)));
  DRYDB_TRY(write_page(page, bytes));
  return push_child(level + 1, ChildRef{page, total, std::move(children[0].separator)});
}

status TreeWriter::finish(TreeDesc& desc) {
  if (!leaf_.empty()) DRYDB_TRY(close_leaf());
  desc.rows = rows_;
  desc.max_key_length = max_key_length_;
  desc.first_page = first_page_;
  if (leaves_ == 0) {
    desc.root = 0;
    desc.depth = 0;
  } else {
    DRYDB_TRY(write_pending_leaf(0));
    for (size_t level = 0;; ++level) {
      Level& lv = levels_[level];
      if (lv.closed == 0 && lv.children.size() == 1) {
        // The only node of the level below is the root.
        desc.root = lv.children[0].page;
        desc.depth = static_cast<uint32_t>(level + 1);
        break;
      }
      if (lv.closed == 0 && levels_.size() == level + 1) {
        // This level's open node is its only node: the root.
        DRYDB_TRY(close_internal(level));
        desc.root = levels_[level + 1].children[0].page;
        desc.depth = static_cast<uint32_t>(level + 2);
        break;
      }
      DRYDB_TRY(close_internal(level));
    }
  }
  desc.end_page = next_page_;
  desc.leaf_pages = leaves_;
  desc.internal_pages = internals_;
  desc.overflow_pages = overflow_pages_;
  return {};
}

}  // namespace drydb::detail
