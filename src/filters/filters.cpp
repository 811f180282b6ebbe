// The page-filter registry and the built-in filters, zstd and lz4.
#include <lz4.h>
#include <zdict.h>
#include <zstd.h>

#include <algorithm>
#include <climits>
#include <map>
#include <mutex>

#include "drydb/detail/coding.h"
#include "drydb/page_filter.h"
#include "filters/filter_registry.h"

namespace drydb {
namespace {

Error filter_corruption(std::string_view id, const std::string& what) {
  return Error(errc::corruption, "page filter '" + std::string(id) + "': " + what);
}

// ---- zstd
// ----------------------------------------------------------------------------------------
//
// Parameters: u32 flags (0), i32 level, then the dictionary bytes (possibly none).

class ZstdFilter final : public PageFilter {
 public:
  ZstdFilter(int level, size_t dictionary_bytes)
      : level_(level), dictionary_bytes_(dictionary_bytes) {}
  ~ZstdFilter() override {
    ZSTD_freeCCtx(cctx_);
    ZSTD_freeCDict(cdict_);
    ZSTD_freeDDict(ddict_);
  }

  static result<std::shared_ptr<const PageFilter>> from_params(std::span<const std::byte> params) {
    const auto options = filters::zstd_options(params);
    if (!options) return filter_corruption("zstd", "bad parameters");
    auto f = std::make_shared<ZstdFilter>(options->level, 0);
    f->dictionary_.assign(params.begin() + 8, params.end());
    if (!f->dictionary_.empty()) {
      f->ddict_ = ZSTD_createDDict(f->dictionary_.data(), f->dictionary_.size());
      if (f->ddict_ == nullptr)
        return filter_corruption("zstd", "the stored dictionary is invalid");
    }
    return std::shared_ptr<const PageFilter>(std::move(f));
  }

  std::string_view id() const noexcept override { return "zstd"; }

  std::vector<std::byte> params() const override {
    std::vector<std::byte> p(8 + dictionary_.size());
    detail::store_u32(p.data(), 0);
    detail::store_u32(p.data() + 4, static_cast<uint32_t>(level_));
    std::copy(dictionary_.begin(), dictionary_.end(), p.begin() + 8);
    return p;
  }

  bool wants_sample() const noexcept override { return dictionary_bytes_ > 0; }

  // The options' own check, made before anything is allocated for them.
  status check_options() const {
    // zstd clamps a level outside its range to the nearest it has: refused here instead, so
    // that the level a file records is one zstd compressed with.
    if (level_ < ZSTD_minCLevel() || level_ > ZSTD_maxCLevel())
      return Error(errc::invalid_argument, "zstd level " + std::to_string(level_) +
                                               " is outside zstd's range " +
                                               std::to_string(ZSTD_minCLevel()) + " .. " +
                                               std::to_string(ZSTD_maxCLevel()));
    if (dictionary_bytes_ > filters::kMaxZstdDictionaryBytes)
      return Error(errc::invalid_argument,
                   "zstd dictionary_bytes " + std::to_string(dictionary_bytes_) +
                       " is over the maximum of " +
                       std::to_string(filters::kMaxZstdDictionaryBytes) + " bytes (" +
                       std::to_string(filters::kMaxZstdDictionaryBytes >> 20) + " MiB)");
    return {};
  }

  status prepare(std::span<const std::span<const std::byte>> sample) override {
    DRYDB_TRY(check_options());
    std::vector<std::byte> flat;
    std::vector<size_t> sizes;
    for (auto s : sample) {
      flat.insert(flat.end(), s.begin(), s.end());
      sizes.push_back(s.size());
    }
    std::vector<std::byte> dict(dictionary_bytes_);
    size_t n = sizes.empty()
                   ? 0
                   : ZDICT_trainFromBuffer(dict.data(), dict.size(), flat.data(), sizes.data(),
                                           static_cast<unsigned>(sizes.size()));
    // Too little or too uniform data trains no dictionary: compress without one.
    if (sizes.empty() || ZDICT_isError(n)) return {};
    dict.resize(n);
    ZSTD_CDict* cdict = ZSTD_createCDict(dict.data(), dict.size(), level_);
    if (cdict == nullptr) return Error(errc::out_of_memory, "zstd: cannot load the dictionary");
    // Keep the dictionary only if it pays for its own bytes on the sample
    // (exact when the sample is every page, as for files up to 32 MiB).
    auto with = sample_bytes(sample, cdict), without = sample_bytes(sample, nullptr);
    if (!with || !without) {
      ZSTD_freeCDict(cdict);
      return !with ? std::move(with).error() : std::move(without).error();
    }
    if (*with + dict.size() >= *without) {
      ZSTD_freeCDict(cdict);
      return {};
    }
    dictionary_ = std::move(dict);
    cdict_ = cdict;
    return {};
  }

  size_t max_encoded_size(size_t size) const noexcept override { return ZSTD_compressBound(size); }

  result<size_t> encode(std::span<const std::byte> in, std::span<std::byte> out) const override {
    if (cctx_ == nullptr && (cctx_ = ZSTD_createCCtx()) == nullptr)
      return Error(errc::out_of_memory, "zstd: cannot create a compression context");
    size_t n =
        cdict_
            ? ZSTD_compress_usingCDict(cctx_, out.data(), out.size(), in.data(), in.size(), cdict_)
            : ZSTD_compressCCtx(cctx_, out.data(), out.size(), in.data(), in.size(), level_);
    if (ZSTD_isError(n)) return Error(errc::io_error, std::string("zstd: ") + ZSTD_getErrorName(n));
    return n;
  }

  result<size_t> decode(std::span<const std::byte> in, std::span<std::byte> out) const override {
    // One decompression context per thread, reused for every page it decodes.
    struct Context {
      ZSTD_DCtx* dctx = ZSTD_createDCtx();
      ~Context() { ZSTD_freeDCtx(dctx); }
    };
    thread_local Context ctx;
    if (ctx.dctx == nullptr) return Error(errc::out_of_memory, "zstd: cannot create a context");
    size_t n = ddict_ ? ZSTD_decompress_usingDDict(ctx.dctx, out.data(), out.size(), in.data(),
                                                   in.size(), ddict_)
                      : ZSTD_decompressDCtx(ctx.dctx, out.data(), out.size(), in.data(), in.size());
    if (ZSTD_isError(n)) return filter_corruption("zstd", ZSTD_getErrorName(n));
    return n;
  }

 private:
  result<size_t> compress(std::span<const std::byte> in, std::span<std::byte> out,
                          const ZSTD_CDict* cdict) const {
    if (cctx_ == nullptr && (cctx_ = ZSTD_createCCtx()) == nullptr)
      return Error(errc::out_of_memory, "zstd: cannot create a compression context");
    size_t n =
        cdict ? ZSTD_compress_usingCDict(cctx_, out.data(), out.size(), in.data(), in.size(), cdict)
              : ZSTD_compressCCtx(cctx_, out.data(), out.size(), in.data(), in.size(), level_);
    if (ZSTD_isError(n)) return Error(errc::io_error, std::string("zstd: ") + ZSTD_getErrorName(n));
    return n;
  }

  // The bytes the sample compresses to, with `cdict` or without a dictionary.
  result<size_t> sample_bytes(std::span<const std::span<const std::byte>> sample,
                              const ZSTD_CDict* cdict) const {
    size_t total = 0;
    std::vector<std::byte> out;
    for (auto s : sample) {
      out.resize(ZSTD_compressBound(s.size()));
      auto n = compress(s, out, cdict);
      if (!n) return n;
      total += *n;
    }
    return total;
  }

  int level_;
  size_t dictionary_bytes_;
  std::vector<std::byte> dictionary_;
  ZSTD_CDict* cdict_ = nullptr;
  ZSTD_DDict* ddict_ = nullptr;
  mutable ZSTD_CCtx* cctx_ = nullptr;  // encode runs on the builder's thread only
};

// ---- lz4
// -----------------------------------------------------------------------------------------

class Lz4Filter final : public PageFilter {
 public:
  std::string_view id() const noexcept override { return "lz4"; }
  size_t max_encoded_size(size_t size) const noexcept override {
    return size > static_cast<size_t>(LZ4_MAX_INPUT_SIZE)
               ? 0
               : static_cast<size_t>(LZ4_compressBound(static_cast<int>(size)));
  }
  result<size_t> encode(std::span<const std::byte> in, std::span<std::byte> out) const override {
    if (in.size() > static_cast<size_t>(LZ4_MAX_INPUT_SIZE))
      return Error(errc::invalid_argument, "lz4: page too large");
    int n = LZ4_compress_default(reinterpret_cast<const char*>(in.data()),
                                 reinterpret_cast<char*>(out.data()), static_cast<int>(in.size()),
                                 static_cast<int>(std::min<size_t>(out.size(), INT_MAX)));
    if (n <= 0 && !in.empty()) return Error(errc::io_error, "lz4: compression failed");
    return static_cast<size_t>(n);
  }
  result<size_t> decode(std::span<const std::byte> in, std::span<std::byte> out) const override {
    if (in.size() > static_cast<size_t>(INT_MAX))
      return filter_corruption("lz4", "block too large");
    int n = LZ4_decompress_safe(reinterpret_cast<const char*>(in.data()),
                                reinterpret_cast<char*>(out.data()), static_cast<int>(in.size()),
                                static_cast<int>(std::min<size_t>(out.size(), INT_MAX)));
    if (n < 0) return filter_corruption("lz4", "malformed block");
    return static_cast<size_t>(n);
  }
};

// ---- registry
// ------------------------------------------------------------------------------------

struct Registry {
  std::mutex mu;
  std::map<std::string, PageFilterFactory, std::less<>> factories;
};

Registry& registry() {
  static Registry* r = new Registry;  // never destroyed: usable during static destruction
  return *r;
}

// The built-ins are looked up by id, not registered by static constructors,
// so they are there in every process whatever was linked or touched first.
PageFilterFactory builtin(std::string_view id) {
  if (id == "zstd") return ZstdFilter::from_params;
  if (id == "lz4")
    return [](std::span<const std::byte> params) -> result<std::shared_ptr<const PageFilter>> {
      if (!params.empty()) return filter_corruption("lz4", "unexpected parameters");
      return std::shared_ptr<const PageFilter>(std::make_shared<Lz4Filter>());
    };
  return nullptr;
}

}  // namespace

status register_page_filter(std::string id, PageFilterFactory factory) {
  if (id.empty() || id.size() > 255)
    return Error(errc::invalid_argument, "a page filter id must be 1 to 255 bytes");
  if (!factory) return Error(errc::invalid_argument, "page filter '" + id + "': no factory given");
  if (builtin(id)) return Error(errc::duplicate_name, "page filter '" + id + "' is built in");
  Registry& r = registry();
  std::lock_guard lock(r.mu);
  if (!r.factories.emplace(id, std::move(factory)).second)
    return Error(errc::duplicate_name, "page filter '" + id + "' is already registered");
  return {};
}

namespace filters {

std::optional<ZstdOptions> zstd_options(std::span<const std::byte> params) {
  if (params.size() < 8 || detail::load_u32(params.data()) != 0) return std::nullopt;
  return ZstdOptions{.level = static_cast<int32_t>(detail::load_u32(params.data() + 4)),
                     .dictionary_bytes = params.size() - 8};
}

std::shared_ptr<PageFilter> zstd(ZstdOptions options) {
  return std::make_shared<ZstdFilter>(options.level, options.dictionary_bytes);
}

std::shared_ptr<PageFilter> lz4() {
  return std::make_shared<Lz4Filter>();
}

}  // namespace filters

namespace detail {

status check_filter_options(const PageFilter& filter) {
  if (const auto* zstd = dynamic_cast<const ZstdFilter*>(&filter)) return zstd->check_options();
  return {};
}

result<std::shared_ptr<const PageFilter>> make_page_filter(
    std::string_view id, std::span<const std::byte> params,
    const std::vector<PageFilterRegistration>& local) {
  PageFilterFactory factory;
  for (const auto& reg : local)
    if (reg.id == id) factory = reg.factory;
  if (!factory) factory = builtin(id);
  if (!factory) {
    Registry& r = registry();
    std::lock_guard lock(r.mu);
    if (auto it = r.factories.find(id); it != r.factories.end()) factory = it->second;
  }
  if (!factory)
    return Error(errc::unknown_filter,
                 "page filter '" + std::string(id) +
                     "' is not registered in this process (see drydb::register_page_filter and "
                     "OpenOptions::filters)");
  auto filter = factory(params);
  if (!filter) return std::move(filter).error();
  if (*filter == nullptr || (*filter)->id() != id)
    return Error(errc::invalid_argument,
                 "the factory for page filter '" + std::string(id) + "' made no filter of that id");
  return filter;
}

}  // namespace detail
}  // namespace drydb
