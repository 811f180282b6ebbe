// Cursor movement (included by cursor.h; inline so walks compile into the caller).
#pragma once

namespace drydb {

namespace detail {
// Resolves the value of leaf entry i: inline bytes, or its overflow run
// (pinned into *pin). Returns false with *err on a bad run.
inline bool resolve_value(const DatabaseState& db, const TreeRef& tree, const LeafView& leaf,
                          uint32_t i, ByteView* out, PageSlot** pin, ErrorOut* err) {
  ByteView field = leaf.value_field(i);
  *pin = nullptr;
  if (!leaf.is_overflow(i)) {
    *out = field;
    return true;
  }
  const uint64_t page = load_u64(field.data());
  const uint32_t length = load_u32(field.data() + 8);
  const std::byte* run = db.fetch(tree, page, PageType::overflow, 0, pin, err);
  if (run == nullptr) return false;
  if (load_u32(run + overflow::kLengthOff) != length) {
    unpin(*pin);
    *pin = nullptr;
    *err = corruption_at(tree, page, "overflow run length differs from its reference");
    return false;
  }
  *out = ByteView(run + overflow::kHeaderSize, length);
  return true;
}
}  // namespace detail

inline bool Cursor::fail(Error e) {
  release();
  valid_ = false;
  status_ = std::move(e);
  return false;
}

inline std::span<const std::byte> Cursor::value() const {
  if (!valid_) return {};
  if (!leaf_.is_overflow(index_)) [[likely]]
    return leaf_.value_field(index_);
  return overflow_value();
}

inline std::span<const std::byte> Cursor::overflow_value() const {
  if (value_data_ != nullptr) return {value_data_, value_size_};
  detail::ByteView out;
  detail::ErrorOut err;
  if (!detail::resolve_value(*db_, *tree_, leaf_, index_, &out, &value_pin_, &err)) {
    status_ = std::move(*err);
    return {};
  }
  value_data_ = out.data();
  value_size_ = out.size();
  return out;
}

// Fills path_[from+1 .. depth_-2] and the leaf going down the leftmost (or rightmost) edge
// below the child chosen at path_[from].
inline bool Cursor::descend(uint32_t from, bool leftmost) {
  for (uint32_t l = from; l + 1 < depth_; ++l) {
    detail::InternalView node(path_[l].page, tree_->layout);
    const uint64_t child = node.child(path_[l].index);
    const bool to_leaf = l + 2 == depth_;
    detail::PageSlot* pin;
    detail::ErrorOut err;
    const std::byte* p =
        db_->fetch(*tree_, child, to_leaf ? detail::PageType::leaf : detail::PageType::internal,
                   depth_ - 2 - l, &pin, &err);
    if (p == nullptr) return fail(std::move(*err));
    uint32_t n = detail::load_u16(p + detail::page::kCountOff);
    if (to_leaf) {
      detail::unpin(leaf_pin_);
      leaf_pin_ = pin;
      leaf_ = detail::LeafView(p, tree_->layout);
      index_ = leftmost ? 0 : n - 1;
      size_ = n;
    } else {
      path_[l + 1] = Frame{p, leftmost ? 0 : n - 1, n};
    }
  }
  return true;
}

inline bool Cursor::seek_rank(uint64_t rank) {
  if (tree_ == nullptr) return false;
  const detail::TreeDesc& d = *tree_->desc;
  release();
  valid_ = false;
  if (!status_) status_ = {};
  if (rank >= d.rows) return false;
  uint64_t page = d.root;
  uint64_t local = rank;
  for (uint32_t l = 0; l < depth_; ++l) {
    const bool leaf = l + 1 == depth_;
    detail::PageSlot* pin;
    detail::ErrorOut err;
    const std::byte* p =
        db_->fetch(*tree_, page, leaf ? detail::PageType::leaf : detail::PageType::internal,
                   depth_ - 1 - l, &pin, &err);
    if (p == nullptr) return fail(std::move(*err));
    uint32_t n = detail::load_u16(p + detail::page::kCountOff);
    if (leaf) {
      leaf_pin_ = pin;
      if (local >= n) return fail(detail::corruption_at(*tree_, page, "row counts disagree"));
      leaf_ = detail::LeafView(p, tree_->layout);
      index_ = static_cast<uint32_t>(local);
      size_ = n;
    } else {
      detail::InternalView node(p, tree_->layout);
      if (local >= node.cumulative(n - 1))
        return fail(detail::corruption_at(*tree_, page, "row counts disagree"));
      uint32_t c = node.child_for_rank(local);
      local -= node.rows_before(c);
      path_[l] = Frame{p, c, n};
      page = node.child(c);
    }
  }
  rank_ = rank;
  valid_ = true;
  return true;
}

inline bool Cursor::seek_key(const Key& key, bool* found) {
  *found = false;
  if (tree_ == nullptr) return false;
  detail::ErrorOut err;
  if (!detail::check_key_kind(*tree_, key, &err)) return fail(std::move(*err));
  return seek_bytes(key.bytes(), found);
}

inline bool Cursor::seek_bytes(std::span<const std::byte> k, bool* found) {
  *found = false;
  if (tree_ == nullptr) return false;
  if (!status_) status_ = {};
  detail::ErrorOut err;
  const detail::TreeDesc& d = *tree_->desc;
  release();
  valid_ = false;
  if (d.rows == 0) return false;
  const uint64_t kp = detail::key_prefix(k.data(), k.size());
  uint64_t page = d.root;
  uint64_t rank = 0;
  for (uint32_t l = 0; l < depth_; ++l) {
    const bool leaf = l + 1 == depth_;
    detail::PageSlot* pin;
    const std::byte* p =
        db_->fetch(*tree_, page, leaf ? detail::PageType::leaf : detail::PageType::internal,
                   depth_ - 1 - l, &pin, &err);
    if (p == nullptr) return fail(std::move(*err));
    if (leaf) {
      leaf_pin_ = pin;
      leaf_ = detail::LeafView(p, tree_->layout);
      const detail::LeafView& view = leaf_;
      uint32_t i = view.lower_bound(k, kp, found);
      valid_ = true;
      size_ = view.size();
      if (i < view.size()) {
        index_ = i;
        rank_ = rank + i;
        return true;
      }
      // Every key of this leaf is smaller: the answer is the next leaf's first row.
      index_ = view.size() - 1;
      rank_ = rank + view.size() - 1;
      return next();
    }
    detail::InternalView node(p, tree_->layout);
    uint32_t c = node.child_for(k, kp);
    rank += node.rows_before(c);
    path_[l] = Frame{p, c, node.size()};
    page = node.child(c);
  }
  return false;
}

inline bool Cursor::next() {
  if (!valid_) return false;
  drop_value();
  if (index_ + 1 < size_) {
    ++index_;
    ++rank_;
    return true;
  }
  for (uint32_t l = depth_ - 1; l-- > 0;) {
    if (path_[l].index + 1 < path_[l].size) {
      ++path_[l].index;
      if (!descend(l, true)) return false;
      ++rank_;
      return true;
    }
  }
  return clear();
}

inline bool Cursor::prev() {
  if (!valid_) return false;
  drop_value();
  if (index_ > 0) {
    --index_;
    --rank_;
    return true;
  }
  for (uint32_t l = depth_ - 1; l-- > 0;) {
    if (path_[l].index > 0) {
      --path_[l].index;
      if (!descend(l, false)) return false;
      --rank_;
      return true;
    }
  }
  return clear();
}

}  // namespace drydb
