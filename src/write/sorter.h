// The builder's sorter: rows appended in any order come out in key order.
//
// Rows are copied into an arena of chunks. Past the memory budget the caller
// spills: the buffered rows are sorted and written as one run to an unlinked
// temp file. At the end the runs and the last in-memory batch are merged.
// Keys compare as memcmp then length (every key encoding orders that way).
// At most kMaxRuns runs stay open: reaching it merges the smaller half into
// one run (tiered, so each row is rewritten O(log(input / budget)) times), so
// the open files and the merge's read buffers stay bounded whatever the input.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "drydb/result.h"

namespace drydb::detail {

using Bytes = std::span<const std::byte>;

int compare_keys(Bytes a, Bytes b) noexcept;

class Sorter {
 public:
  static constexpr size_t kMaxRuns = 32;

  // `memory_budget` sizes the arena's chunks and the merge's read buffers.
  explicit Sorter(size_t memory_budget);
  ~Sorter();
  Sorter(const Sorter&) = delete;
  Sorter& operator=(const Sorter&) = delete;

  void add(Bytes key, Bytes value);
  // Bytes of buffered rows (keys, values and their bookkeeping).
  size_t memory_bytes() const { return memory_; }
  uint64_t rows() const { return rows_; }
  // Sorts the buffered rows into a run file in `dir` and frees them.
  status spill(const std::filesystem::path& dir);
  // Calls `emit` for every row in key order; stops at the first error `emit`
  // returns. Adjacent equal keys are reported through `on_duplicate`.
  status merge(const std::function<status(Bytes key, Bytes value)>& emit,
               const std::function<Error(Bytes key)>& on_duplicate);
  // merge() that keeps the rows: a later merge() or scan() emits them all again (spilled runs
  // are read again from their start).
  status scan(const std::function<status(Bytes key, Bytes value)>& emit,
              const std::function<Error(Bytes key)>& on_duplicate);

 private:
  struct Run;
  using Emit = std::function<status(Bytes key, Bytes value)>;

  // Merges `runs` and, if `with_memory`, the buffered rows, in key order.
  status merge_sources(std::vector<std::unique_ptr<Run>>& runs, bool with_memory, const Emit& emit);
  status merge_all(const Emit& emit, const std::function<Error(Bytes key)>& on_duplicate,
                   bool keep);
  status compact_runs(const std::filesystem::path& dir);
  void sort_buffered();
  void clear_buffered();
  size_t read_buffer_bytes() const;

  const size_t budget_;
  const size_t chunk_bytes_;
  // Each buffered row is [u32 key length][u32 value length][key][value] in a chunk.
  std::vector<std::unique_ptr<std::byte[]>> chunks_;
  size_t chunk_used_ = 0;
  size_t chunk_size_ = 0;
  std::vector<const std::byte*> rows_in_memory_;
  bool in_order_ = true;  // appended rows so far arrived sorted: no sort needed
  size_t memory_ = 0;
  uint64_t rows_ = 0;
  std::vector<std::unique_ptr<Run>> runs_;
};

}  // namespace drydb::detail
