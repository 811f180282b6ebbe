#include "inspect.h"

#include <fcntl.h>
#include <lz4.h>
#include <unistd.h>
#include <xxhash.h>
#include <zstd.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include <fmt/format.h>

#include "common.h"
#include "drydb/detail/coding.h"
#include "drydb/detail/format.h"
#include "text.h"

namespace drydb::cli {

namespace {

namespace fmtd = drydb::detail;

class File {
 public:
  explicit File(const std::string& path) : path_(path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) fail(fmt::format("cannot open '{}': {}", path, std::strerror(errno)));
  }
  ~File() {
    if (fd_ >= 0) ::close(fd_);
  }
  File(const File&) = delete;
  File& operator=(const File&) = delete;

  void read_at(uint64_t offset, void* dst, size_t n) const {
    auto* p = static_cast<char*>(dst);
    while (n > 0) {
      const ssize_t got = ::pread(fd_, p, n, static_cast<off_t>(offset));
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0)
        fail(fmt::format("cannot read '{}' at byte {}: {}", path_, offset,
                         got < 0 ? std::strerror(errno) : "unexpected end of file"));
      p += got, offset += static_cast<uint64_t>(got), n -= static_cast<size_t>(got);
    }
  }

 private:
  std::string path_;
  int fd_ = -1;
};

// Reads decoded pages of a file: in place when unfiltered; through the
// filter chain (zstd and lz4, decoded in reverse order) when filtered.
class PageReader {
 public:
  explicit PageReader(const FileLayout& layout) : layout_(layout), file_(layout.path) {
    page_.resize(layout.page_size);
    for (const auto& f : layout.catalog.filters) {
      if (f.id == "zstd") {
        if (f.params.size() < 8) return;
        Stage s{Stage::zstd, nullptr};
        if (f.params.size() > 8) {
          s.ddict = ZSTD_createDDict(f.params.data() + 8, f.params.size() - 8);
          if (s.ddict == nullptr) return;
        }
        stages_.push_back(s);
      } else if (f.id == "lz4") {
        stages_.push_back(Stage{Stage::lz4, nullptr});
      } else {
        return;  // a chain this tool cannot decode
      }
    }
    decodable_ = true;
    if (!stages_.empty()) dctx_ = ZSTD_createDCtx();
  }
  ~PageReader() {
    for (auto& s : stages_)
      ZSTD_freeDDict(s.ddict);
    ZSTD_freeDCtx(dctx_);
  }
  PageReader(const PageReader&) = delete;
  PageReader& operator=(const PageReader&) = delete;

  bool decodable() const { return decodable_; }

  // Bytes the file spends on `page`.
  uint64_t stored_size(uint64_t page) const {
    if (layout_.catalog.filters.empty()) return layout_.page_size;
    return layout_.catalog.pages[page - 1].stored;
  }

  // The decoded page; nullptr when it does not decode.
  const std::byte* read(uint64_t page) {
    const uint32_t ps = layout_.page_size;
    if (layout_.catalog.filters.empty()) {
      file_.read_at(page * ps, page_.data(), ps);
      return page_.data();
    }
    const auto& loc = layout_.catalog.pages[page - 1];
    in_.resize(loc.stored);
    file_.read_at(loc.offset, in_.data(), loc.stored);
    // Every stage's output fits this bound: what zstd or lz4 could make of a page.
    const size_t cap =
        std::max<size_t>(ZSTD_compressBound(ps), LZ4_compressBound(static_cast<int>(ps))) + 64;
    for (size_t k = stages_.size(); k-- > 0;) {
      out_.resize(k == 0 ? ps : cap);
      size_t n;
      if (stages_[k].kind == Stage::zstd) {
        n = stages_[k].ddict
                ? ZSTD_decompress_usingDDict(dctx_, out_.data(), out_.size(), in_.data(),
                                             in_.size(), stages_[k].ddict)
                : ZSTD_decompressDCtx(dctx_, out_.data(), out_.size(), in_.data(), in_.size());
        if (ZSTD_isError(n)) return nullptr;
      } else {
        const int r = LZ4_decompress_safe(
            reinterpret_cast<const char*>(in_.data()), reinterpret_cast<char*>(out_.data()),
            static_cast<int>(in_.size()), static_cast<int>(out_.size()));
        if (r < 0) return nullptr;
        n = static_cast<size_t>(r);
      }
      out_.resize(n);
      in_.swap(out_);
    }
    if (in_.size() > ps) return nullptr;
    std::memcpy(page_.data(), in_.data(), in_.size());
    std::memset(page_.data() + in_.size(), 0, ps - in_.size());
    return page_.data();
  }

 private:
  struct Stage {
    enum Kind { zstd, lz4 } kind;
    ZSTD_DDict* ddict;
  };
  const FileLayout& layout_;
  File file_;
  std::vector<Stage> stages_;
  ZSTD_DCtx* dctx_ = nullptr;
  bool decodable_ = false;
  std::vector<std::byte> page_, in_, out_;
};

uint64_t leaf_used(const std::byte* p, uint32_t page_size, uint16_t key_width) {
  const uint32_t n = fmtd::load_u16(p + fmtd::page::kCountOff);
  const auto flags = static_cast<uint8_t>(p[fmtd::page::kFlagsOff]);
  uint64_t used;
  if (flags & fmtd::leaf::kUniformValues) {
    const uint32_t value_len = fmtd::load_u16(p + fmtd::leaf::kUniformLenOff);
    const uint32_t key_part = key_width <= 8 ? 0 : key_width;
    used = fmtd::leaf::offsets_off(n) + uint64_t{n} * (key_part + value_len);
  } else {
    const size_t last = fmtd::leaf::offsets_off(n) + 2 * size_t{n};
    if (last + 2 > page_size) return page_size;
    used = fmtd::leaf::records_off(n, flags) + fmtd::load_u16(p + last);
  }
  return std::min<uint64_t>(used, page_size);
}

uint64_t internal_used(const std::byte* p, uint32_t page_size, uint16_t key_width) {
  const uint32_t n = fmtd::load_u16(p + fmtd::page::kCountOff);
  if (n == 0) return fmtd::internal::kHeaderSize;
  const uint64_t keys = fmtd::internal::keys_off(n);
  uint64_t used;
  if (key_width == 0) {
    const uint64_t last = keys + 2 * (uint64_t{n} - 1);
    if (last + 2 > page_size) return page_size;
    used = keys + 2 * uint64_t{n} + fmtd::load_u16(p + last);
  } else if (key_width <= 8) {
    used = keys;
  } else {
    used = keys + (uint64_t{n} - 1) * key_width;
  }
  return std::min<uint64_t>(used, page_size);
}

}  // namespace

FileLayout read_layout(const std::string& path) {
  FileLayout l;
  l.path = path;
  File file(path);
  std::byte head[fmtd::header::kSize];
  file.read_at(0, head, sizeof head);
  l.major = fmtd::load_u16(head + fmtd::header::kMajorOff);
  l.minor = fmtd::load_u16(head + fmtd::header::kMinorOff);
  l.features = fmtd::load_u32(head + fmtd::header::kRequiredFeaturesOff);
  l.page_size = fmtd::load_u32(head + fmtd::header::kPageSizeOff);
  l.file_length = fmtd::load_u64(head + fmtd::header::kFileLengthOff);
  l.page_count = fmtd::load_u64(head + fmtd::header::kPageCountOff);
  l.catalog_length = fmtd::load_u64(head + fmtd::header::kCatalogLengthOff);
  if (l.catalog_length > l.file_length || l.catalog_length >= (uint64_t{1} << 32))
    fail(fmt::format("'{}': bad catalog length in the header", path));
  std::vector<std::byte> cat(l.catalog_length);
  file.read_at(l.file_length - l.catalog_length, cat.data(), cat.size());
  l.catalog = check(fmtd::decode_catalog(cat, l.page_size, l.page_count, fmtd::header::kSize,
                                         l.file_length - l.catalog_length));
  return l;
}

std::string describe_filter(const detail::FilterDesc& f) {
  if (f.id == "zstd" && f.params.size() >= 8) {
    const auto* p = reinterpret_cast<const std::byte*>(f.params.data());
    const auto level = static_cast<int32_t>(fmtd::load_u32(p + 4));
    if (f.params.size() > 8)
      return fmt::format("zstd (level {}, dictionary {} bytes)", level,
                         group_digits(f.params.size() - 8));
    return fmt::format("zstd (level {})", level);
  }
  return escape_display(f.id);
}

TreeStats tree_stats(const FileLayout& layout, const detail::TreeDesc& tree) {
  TreeStats st;
  st.pages_per_level.assign(tree.depth, 0);
  PageReader reader(layout);
  for (uint64_t page = tree.first_page; page < tree.end_page; ++page)
    st.stored_bytes += reader.stored_size(page);
  if (!reader.decodable()) return st;
  const uint32_t ps = layout.page_size;
  for (uint64_t page = tree.first_page; page < tree.end_page;) {
    const std::byte* p = reader.read(page);
    if (p == nullptr) fail(fmt::format("page {} does not decode (run `drydb verify`)", page));
    const auto type = static_cast<fmtd::PageType>(p[fmtd::page::kTypeOff]);
    // Tree pages carry a checksum of the whole page (overflow runs one of their value, which
    // stats does not read): numbers from a damaged page would mislead.
    if ((type == fmtd::PageType::leaf || type == fmtd::PageType::internal) &&
        fmtd::load_u64(p + fmtd::page::kChecksumOff) != XXH3_64bits(p + 8, ps - 8))
      fail(fmt::format("page {}: checksum mismatch (run `drydb verify`)", page));
    if (type == fmtd::PageType::leaf && tree.depth > 0) {
      ++st.pages_per_level[0];
      st.leaf_bytes_used += leaf_used(p, ps, tree.key_width);
      ++page;
    } else if (type == fmtd::PageType::internal) {
      const uint32_t level = fmtd::load_u16(p + fmtd::internal::kLevelOff);
      if (level >= st.pages_per_level.size())
        fail(fmt::format("page {}: level {} in a tree of depth {} (run `drydb verify`)", page,
                         level, tree.depth));
      ++st.pages_per_level[level];
      st.internal_bytes_used += internal_used(p, ps, tree.key_width);
      ++page;
    } else if (type == fmtd::PageType::overflow) {
      const uint64_t run =
          fmtd::overflow::pages_for(fmtd::load_u32(p + fmtd::overflow::kLengthOff), ps);
      st.overflow_pages += run;
      ++st.overflow_runs;
      page += run;
    } else {
      fail(fmt::format("page {}: unknown page type {} (run `drydb verify`)", page,
                       static_cast<int>(type)));
    }
  }
  st.pages_read = true;
  return st;
}

}  // namespace drydb::cli
