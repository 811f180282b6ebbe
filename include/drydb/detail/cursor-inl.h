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
                   depth_ - 2 - l, &pin, &err, detail::ParentRef{path_[l].page, path_[l].index});
    if (p == nullptr) return fail(std::move(*err));
    uint32_t n = detail::load_u16(p + detail::page::kCountOff);
    if (to_leaf) {
      detail::unpin(leaf_pin_);
      leaf_pin_ = pin;
      leaf_ = detail::LeafView(p, tree_->layout);
      key_buf_shared_ = false;
      index_ = leftmost ? 0 : n - 1;
      size_ = n;
    } else {
      path_[l + 1] = Frame{p, leftmost ? 0 : n - 1, n};
    }
  }
  return true;
}

inline void Cursor::enter_leaf(const std::byte* p, detail::PageSlot* pin, uint32_t i,
                               uint64_t rank) noexcept {
  leaf_pin_ = pin;
  leaf_ = detail::LeafView(p, tree_->layout);
  key_buf_shared_ = false;
  index_ = i;
  size_ = leaf_.size();
  rank_ = rank;
  valid_ = true;
}

inline bool Cursor::seek_rank(uint64_t rank) {
  if (tree_ == nullptr) return false;
  release();
  valid_ = false;
  if (!status_) status_ = {};
  if (rank >= tree_->desc->rows) return false;
  detail::ErrorOut err;
  detail::PageSlot* pin;
  uint64_t slot = rank;
  const std::byte* p =
      detail::descend_to_rank(detail::CheckedPages{*db_, &err}, *tree_, &slot, path_, &pin);
  if (p == nullptr) return fail(std::move(*err));
  enter_leaf(p, pin, static_cast<uint32_t>(slot), rank);
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
  release();
  valid_ = false;
  if (tree_->desc->rows == 0) return false;
  return detail::with_key_search(*tree_, k, [&](const auto& search) DRYDB_ALWAYS_INLINE_LAMBDA {
    detail::ErrorOut err;
    detail::PageSlot* pin;
    uint64_t rank = 0;
    const std::byte* p =
        detail::descend(detail::CheckedPages{*db_, &err}, *tree_, search, &rank, path_, &pin);
    if (p == nullptr) return fail(std::move(*err));
    enter_leaf(p, pin, 0, rank);
    const uint32_t i = search.slot(leaf_, found);
    if (i < size_) {
      index_ = i;
      rank_ = rank + i;
      return true;
    }
    // Every key of this leaf is smaller: the answer is the next leaf's first row.
    index_ = size_ - 1;
    rank_ = rank + size_ - 1;
    return next();
  });
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
