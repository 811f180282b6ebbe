// Writes one B+tree from rows given in strictly increasing key order.
//
// Leaves are filled greedily to the page size and written as they close (one
// leaf late, so its next-sibling link is known). With `prefixed_keys`, a page
// of variable-length keys (or separators) no longer than
// kMaxPrefixedKeyLength stores the prefix they share once (format 2.2), and
// the fill counts the bytes so saved. Values over the inline limit
// go to an overflow run written when the row arrives. Each closed node hands
// (page, subtree rows, separator) to its parent level; internal levels are
// built bottom-up the same way and closed at finish(). Pages are numbered in
// the order they are allocated, so a tree occupies one contiguous range.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "drydb/detail/catalog.h"
#include "drydb/result.h"
#include "write/sink.h"
#include "write/sorter.h"

namespace drydb::detail {

class TreeWriter {
 public:
  // `next_page` is the page allocator shared by every tree of the file; `checksum_seed` the
  // file's identity, which seeds every page's and run's checksum (a run's XOR its first page
  // when the identity is not 0: the file then requires kFeaturePlacedRuns if it has a run).
  TreeWriter(Sink& sink, uint32_t page_size, uint16_t key_width, bool prefixed_keys,
             uint64_t checksum_seed, uint64_t& next_page);

  // Requires: keys strictly increasing, key length within max_key_length (and
  // equal to key_width when fixed), value length <= kMaxValueLength.
  status add(Bytes key, Bytes value);
  // Closes every level; fills in the page and row fields of `desc`.
  status finish(TreeDesc& desc);

  // Where each leaf's rows went, in key order: secondary indexes refer to a
  // row by (leaf page, slot), found from its rank. Complete after finish().
  struct LeafStart {
    uint64_t first_rank;
    uint64_t page;
  };
  const std::vector<LeafStart>& leaf_starts() const noexcept { return leaf_starts_; }
  // Whether a page was written with kPrefixedKeys (the file then requires
  // kFeaturePrefixedKeys).
  bool wrote_prefixed_pages() const noexcept { return wrote_prefixed_; }
  // Whether an overflow run was written (with a seed, the file then requires kFeaturePlacedRuns).
  bool wrote_overflow_runs() const noexcept { return overflow_pages_ != 0; }

 private:
  struct LeafEntry {
    uint32_t key_off, key_len;      // in leaf_keys_
    uint32_t value_off, value_len;  // in leaf_values_ (inline) or the run's first page
    bool overflow;
    uint64_t overflow_page;
  };
  struct ChildRef {
    uint64_t page;
    uint64_t rows;
    std::string separator;  // separates this child from its left neighbour; empty for the first
  };
  // What sizes an internal node: its children and its separators (those
  // of children[1..]; the first child's goes to the parent).
  struct NodeKeys {
    size_t children = 0;
    size_t separator_bytes = 0;  // the separators, whole
    size_t shared = 0;           // bytes every separator starts with
    bool prefixable = true;      // no separator is too long to store after a shared prefix
  };
  struct Level {
    std::vector<ChildRef> children;
    NodeKeys keys;        // of the open node
    uint64_t closed = 0;  // nodes of this level already written
  };
  // The open leaf's layout once a key is added: whether its keys would be
  // stored after a shared prefix, that prefix's length, and then its record
  // bytes.
  struct LeafKeys {
    bool prefixed;
    size_t shared;
    size_t prefixed_record_bytes;
  };

  LeafKeys leaf_keys_with(Bytes key, size_t value_field) const;
  size_t leaf_size_with(Bytes key, size_t value_len, bool overflow, const LeafKeys& keys) const;
  // Record bytes of the open leaf's entries with their keys after a shared
  // prefix of `shared` bytes.
  size_t prefixed_record_bytes(size_t shared) const;
  Bytes leaf_key(const LeafEntry& e) const {
    return Bytes(leaf_keys_.data() + e.key_off, e.key_len);
  }
  // The open node of `level` with one more child.
  NodeKeys node_keys_with(const Level& level, const std::string& separator) const;
  // Whether a node is written with kPrefixedKeys: when that saves bytes (a
  // shared prefix, and two separators or more to share it).
  bool prefix_separators(const NodeKeys& keys) const {
    return prefixed_keys_ && key_width_ == 0 && keys.prefixable && keys.shared > 0 &&
           keys.children > 2;
  }
  size_t internal_size(const NodeKeys& keys) const;
  status close_leaf();
  status write_pending_leaf(uint64_t next_leaf);
  status push_child(size_t level, ChildRef child);
  status close_internal(size_t level);
  status write_page(uint64_t page, std::vector<std::byte>& bytes);
  status write_overflow(Bytes value, uint64_t& first_page);
  uint64_t allocate(uint64_t pages) {
    uint64_t p = next_page_;
    next_page_ += pages;
    return p;
  }
  std::string separator_between(Bytes left_last, Bytes right_first) const;

  Sink& sink_;
  const uint32_t page_size_;
  const uint64_t checksum_seed_;
  const uint16_t key_width_;
  const bool prefixed_keys_;
  uint64_t& next_page_;
  bool wrote_prefixed_ = false;

  // The open leaf.
  std::vector<LeafEntry> leaf_;
  std::vector<std::byte> leaf_keys_;
  std::vector<std::byte> leaf_values_;
  size_t leaf_record_bytes_ = 0;       // record bytes in the non-uniform layout, keys whole
  LeafKeys leaf_layout_{false, 0, 0};  // with kPrefixedKeys
  bool leaf_any_overflow_ = false;
  bool leaf_same_length_ = true;  // every inline value of the open leaf has one length

  // The last closed leaf, written once the next leaf's page is known.
  std::vector<std::byte> pending_leaf_;
  uint64_t pending_leaf_page_ = 0;
  uint64_t previous_leaf_page_ = 0;
  std::string last_key_;  // last key of the previous closed leaf

  std::vector<LeafStart> leaf_starts_;
  std::vector<Level> levels_;  // levels_[0] holds the leaves' parents
  std::vector<std::byte> page_buf_;

  uint64_t rows_ = 0;
  uint64_t leaves_ = 0;
  uint64_t internals_ = 0;
  uint64_t overflow_pages_ = 0;
  uint32_t max_key_length_ = 0;
  uint64_t first_page_;
};

}  // namespace drydb::detail
