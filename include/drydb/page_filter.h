// Page filters: transforms applied to every page of a file as it is written
// and undone as it is read (compression, encryption, anything custom).
//
//   drydb::DatabaseBuilder builder({.filters = {drydb::filters::zstd({.level = 6})}});
//
// Filters form a chain: a page is encoded by the first filter, its output by
// the second, and so on; reading decodes in reverse. The file's filter table
// records each filter's id and parameters (params()); opening the file asks
// the registry (or OpenOptions::filters) for a filter of each id, made from
// those parameters, and fails with errc::unknown_filter naming an id nobody
// provides. A filtered page is decoded once per page-cache fill and then
// served like any cached page, so filtered files always read through the
// page cache, also when mapped.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "drydb/result.h"

namespace drydb {

class PageFilter {
 public:
  virtual ~PageFilter() = default;

  // The id written in the file and looked up when it is opened: 1..255 bytes.
  virtual std::string_view id() const noexcept = 0;

  // What the reader's factory needs to rebuild this filter (a level, a
  // dictionary), stored in the file. Called once, after prepare().
  virtual std::vector<std::byte> params() const { return {}; }

  // Whether prepare() wants a sample of the pages before any is encoded.
  virtual bool wants_sample() const noexcept { return false; }
  // Called once before the first encode() when wants_sample(): a sample of
  // the pages as this filter will see them (encoded by the filters before it
  // in the chain), e.g. to train a compression dictionary. The builder picks
  // the sample deterministically, so equal inputs still give equal files.
  virtual status prepare(std::span<const std::span<const std::byte>> sample) {
    (void)sample;
    return {};
  }

  // An upper bound on encode()'s output for `size` input bytes.
  virtual size_t max_encoded_size(size_t size) const noexcept = 0;
  // Encodes `in` into `out`, which holds max_encoded_size(in.size()) bytes;
  // returns the bytes written. Called by the builder's thread only. Must be
  // deterministic for files to be reproducible.
  virtual result<size_t> encode(std::span<const std::byte> in, std::span<std::byte> out) const = 0;
  // Decodes `in` into `out`; returns the bytes written. Input that does not
  // decode, or output that would not fit `out`, is errc::corruption: the
  // bytes come from a file and may be damaged or hostile. Must be safe to
  // call from many threads at once.
  virtual result<size_t> decode(std::span<const std::byte> in, std::span<std::byte> out) const = 0;
};

// Makes the filter recorded in a file from its stored parameters.
using PageFilterFactory =
    std::function<result<std::shared_ptr<const PageFilter>>(std::span<const std::byte> params)>;

// A factory for one filter id, as OpenOptions::filters takes them (to give
// one database a key that the process-wide registry should not hold, say).
struct PageFilterRegistration {
  std::string id;
  PageFilterFactory factory;
};

// Registers a factory for this process. Thread-safe. errc::invalid_argument
// for an id that is empty or over 255 bytes or a missing factory,
// errc::duplicate_name if the id is taken (the built-in ids "zstd" and "lz4"
// are always taken).
status register_page_filter(std::string id, PageFilterFactory factory);

namespace filters {

// The largest ZstdOptions::dictionary_bytes: 32 MiB, the most of the file's pages the builder
// samples to train a dictionary, which cannot hold more than its sample (zstd suggests about
// 100 KB, trained on about 100 times its size).
inline constexpr size_t kMaxZstdDictionaryBytes = size_t{32} << 20;

struct ZstdOptions {
  // zstd's compression level, 1 (fast) to 22 (small); negative levels are faster still. A level
  // outside zstd's range (ZSTD_minCLevel() .. ZSTD_maxCLevel()) fails the builder with
  // errc::invalid_argument (DatabaseBuilder::status), as zstd would clamp it.
  int level = 3;
  // When nonzero, a dictionary of at most this many bytes is trained from a
  // sample of the file's pages and stored in the file: small pages then
  // compress much better. Falls back to no dictionary when the sample is too
  // small to train one. At most kMaxZstdDictionaryBytes: a builder given a
  // larger one fails with errc::invalid_argument (DatabaseBuilder::status),
  // before anything is allocated for it, as does prepare().
  size_t dictionary_bytes = 0;
};

// zstd (id "zstd"): one zstd frame per page.
std::shared_ptr<PageFilter> zstd(ZstdOptions options = {});
// The options recorded in a zstd filter's params (dictionary_bytes: the size
// of the stored dictionary, 0 for none); nullopt when they do not decode.
std::optional<ZstdOptions> zstd_options(std::span<const std::byte> params);
// lz4 (id "lz4"): one LZ4 block per page; fast to decode.
std::shared_ptr<PageFilter> lz4();

}  // namespace filters

}  // namespace drydb
