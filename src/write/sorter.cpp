#include "write/sorter.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <queue>

#include "drydb/detail/coding.h"
#include "drydb/detail/node.h"
#include "platform/file.h"
#include "write/reach_build_point.h"
#include "write/sink.h"

namespace drydb::detail {
namespace {

constexpr size_t kMaxChunkBytes = size_t{1} << 20;
constexpr size_t kMinChunkBytes = size_t{4} << 10;
constexpr size_t kMaxBufferBytes = size_t{1} << 20;
constexpr size_t kMinBufferBytes = size_t{16} << 10;

Bytes row_key(const std::byte* row) {
  return {row + 8, load_u32(row)};
}
Bytes row_value(const std::byte* row) {
  return {row + 8 + load_u32(row), load_u32(row + 4)};
}
size_t row_size(const std::byte* row) {
  return 8 + size_t{load_u32(row)} + load_u32(row + 4);
}

}  // namespace

int compare_keys(Bytes a, Bytes b) noexcept {
  return compare_bytes(a, b);
}

// A sorted run in an unlinked temp file: written through a buffer, then read
// back through one.
struct Sorter::Run {
  platform::File file;  // an unnamed temp file
  uint64_t size = 0;
  std::vector<std::byte> buf;
  size_t buffer_bytes = 0;
  uint64_t read_pos = 0;
  size_t buf_pos = 0;
  std::vector<std::byte> row;  // the current row, [klen][vlen][key][value]

  static result<std::unique_ptr<Run>> create(const std::filesystem::path& dir,
                                             size_t buffer_bytes) {
    auto file = platform::create_unnamed_temp(dir, "drydb-run");
    if (!file) return std::move(file).error();
    auto run = std::make_unique<Run>();
    run->file = std::move(*file);
    run->buffer_bytes = buffer_bytes;
    return run;
  }

  status append(Bytes key, Bytes value) {
    std::byte head[8];
    store_u32(head, static_cast<uint32_t>(key.size()));
    store_u32(head + 4, static_cast<uint32_t>(value.size()));
    DRYDB_TRY(put(Bytes(head, 8)));
    DRYDB_TRY(put(key));
    return put(value);
  }

  status put(Bytes bytes) {
    if (buf.size() + bytes.size() > buffer_bytes) DRYDB_TRY(flush());
    if (bytes.size() > buffer_bytes) {
      DRYDB_TRY(file.write_exact(size, bytes, "cannot write a spill file"));
      size += bytes.size();
    } else {
      buf.insert(buf.end(), bytes.begin(), bytes.end());
    }
    return {};
  }

  status flush() {
    DRYDB_TRY(file.write_exact(size, buf, "cannot write a spill file"));
    size += buf.size();
    buf.clear();
    return {};
  }

  // Switches from writing to reading from the start.
  status finish_writing() {
    DRYDB_TRY(flush());
    buf.shrink_to_fit();
    rewind();
    return {};
  }

  // Reads again from the start.
  void rewind() {
    buf.clear();
    read_pos = 0;
    buf_pos = 0;
  }

  status fill(std::byte* dst, size_t n) {
    while (n > 0) {
      if (buf_pos == buf.size()) {
        size_t want = static_cast<size_t>(std::min<uint64_t>(buffer_bytes, size - read_pos));
        if (want == 0) return Error(errc::io_error, "a spilled run ended early");
        buf.resize(want);
        DRYDB_TRY(
            file.read_exact(read_pos, std::span(buf.data(), want), "cannot read a spilled run"));
        read_pos += want;
        buf_pos = 0;
      }
      size_t take = std::min(n, buf.size() - buf_pos);
      std::memcpy(dst, buf.data() + buf_pos, take);
      buf_pos += take;
      dst += take;
      n -= take;
    }
    return {};
  }

  // Loads the next row; false at the end.
  result<bool> next() {
    if (read_pos == size && buf_pos == buf.size()) return false;
    std::byte head[8];
    DRYDB_TRY(fill(head, 8));
    size_t body = size_t{load_u32(head)} + load_u32(head + 4);
    row.resize(8 + body);
    std::memcpy(row.data(), head, 8);
    DRYDB_TRY(fill(row.data() + 8, body));
    return true;
  }
};

Sorter::Sorter(size_t memory_budget)
    : budget_(memory_budget),
      chunk_bytes_(std::clamp(memory_budget / 8, kMinChunkBytes, kMaxChunkBytes)) {}
Sorter::~Sorter() = default;

size_t Sorter::read_buffer_bytes() const {
  return std::clamp(budget_ / (2 * kMaxRuns), kMinBufferBytes, kMaxBufferBytes);
}

void Sorter::add(Bytes key, Bytes value) {
  size_t need = 8 + key.size() + value.size();
  if (chunks_.empty() || chunk_size_ - chunk_used_ < need) {
    chunk_size_ = std::max(chunk_bytes_, need);
    chunks_.push_back(std::make_unique_for_overwrite<std::byte[]>(chunk_size_));
    chunk_used_ = 0;
  }
  std::byte* row = chunks_.back().get() + chunk_used_;
  store_u32(row, static_cast<uint32_t>(key.size()));
  store_u32(row + 4, static_cast<uint32_t>(value.size()));
  if (!key.empty()) std::memcpy(row + 8, key.data(), key.size());
  if (!value.empty()) std::memcpy(row + 8 + key.size(), value.data(), value.size());
  chunk_used_ += need;
  if (in_order_ && !rows_in_memory_.empty() &&
      compare_keys(row_key(rows_in_memory_.back()), key) >= 0)
    in_order_ = false;
  rows_in_memory_.push_back(row);
  memory_ += need + sizeof(const std::byte*);
  ++rows_;
}

void Sorter::sort_buffered() {
  if (in_order_) return;
  std::sort(rows_in_memory_.begin(), rows_in_memory_.end(),
            [](const std::byte* a, const std::byte* b) {
              return compare_keys(row_key(a), row_key(b)) < 0;
            });
  in_order_ = true;
}

void Sorter::clear_buffered() {
  chunks_.clear();
  rows_in_memory_.clear();
  rows_in_memory_.shrink_to_fit();
  chunk_used_ = chunk_size_ = 0;
  memory_ = 0;
  in_order_ = true;
}

status Sorter::spill(const std::filesystem::path& dir) {
  if (rows_in_memory_.empty()) return {};
  if (runs_.size() + 1 >= kMaxRuns) DRYDB_TRY(compact_runs(dir));
  sort_buffered();
  auto run = Run::create(dir, read_buffer_bytes());
  if (!run) return std::move(run).error();
  for (const std::byte* row : rows_in_memory_)
    DRYDB_TRY((*run)->put(Bytes(row, row_size(row))));
  DRYDB_TRY((*run)->finish_writing());
  runs_.push_back(std::move(*run));
  clear_buffered();
  reach_build_point(BuildPoint::run_spilled);
  return {};
}

status Sorter::compact_runs(const std::filesystem::path& dir) {
  std::sort(runs_.begin(), runs_.end(),
            [](const auto& a, const auto& b) { return a->size < b->size; });
  std::vector<std::unique_ptr<Run>> smaller;
  const size_t take = runs_.size() / 2 + 1;
  for (size_t i = 0; i < take; ++i)
    smaller.push_back(std::move(runs_[i]));
  runs_.erase(runs_.begin(), runs_.begin() + static_cast<ptrdiff_t>(take));
  auto merged = Run::create(dir, read_buffer_bytes());
  if (!merged) return std::move(merged).error();
  Run& out = **merged;
  DRYDB_TRY(merge_sources(smaller, false,
                          [&](Bytes key, Bytes value) { return out.append(key, value); }));
  DRYDB_TRY(out.finish_writing());
  runs_.push_back(std::move(*merged));
  return {};
}

status Sorter::merge_sources(std::vector<std::unique_ptr<Run>>& runs, bool with_memory,
                             const Emit& emit) {
  // Sources: each run, then the in-memory batch (index runs.size()).
  const size_t mem_source = runs.size();
  size_t mem_pos = 0;
  auto current = [&](size_t s) -> const std::byte* {
    return s == mem_source ? rows_in_memory_[mem_pos] : runs[s]->row.data();
  };
  auto greater = [&](size_t a, size_t b) {
    int c = compare_keys(row_key(current(a)), row_key(current(b)));
    return c != 0 ? c > 0 : a > b;
  };
  std::priority_queue<size_t, std::vector<size_t>, decltype(greater)> heap(greater);
  for (size_t s = 0; s < runs.size(); ++s) {
    auto more = runs[s]->next();
    if (!more) return std::move(more).error();
    if (*more) heap.push(s);
  }
  if (with_memory && !rows_in_memory_.empty()) heap.push(mem_source);
  while (!heap.empty()) {
    size_t s = heap.top();
    heap.pop();
    const std::byte* row = current(s);
    DRYDB_TRY(emit(row_key(row), row_value(row)));
    if (s == mem_source) {
      if (++mem_pos < rows_in_memory_.size()) heap.push(s);
    } else {
      auto more = runs[s]->next();
      if (!more) return std::move(more).error();
      if (*more) heap.push(s);
    }
  }
  return {};
}

status Sorter::merge(const std::function<status(Bytes key, Bytes value)>& emit,
                     const std::function<Error(Bytes key)>& on_duplicate) {
  return merge_all(emit, on_duplicate, false);
}

status Sorter::scan(const std::function<status(Bytes key, Bytes value)>& emit,
                    const std::function<Error(Bytes key)>& on_duplicate) {
  return merge_all(emit, on_duplicate, true);
}

status Sorter::merge_all(const Emit& emit, const std::function<Error(Bytes key)>& on_duplicate,
                         bool keep) {
  sort_buffered();
  if (runs_.empty()) {
    // Every row is in memory (the usual build): walk the sorted batch; rows
    // stay put in the arena, so the previous key needs no copy.
    const std::byte* previous = nullptr;
    for (const std::byte* row : rows_in_memory_) {
      if (previous != nullptr && compare_keys(row_key(previous), row_key(row)) == 0)
        return on_duplicate(row_key(row));
      DRYDB_TRY(emit(row_key(row), row_value(row)));
      previous = row;
    }
    if (!keep) clear_buffered();
    return {};
  }
  std::vector<std::byte> previous;
  bool have_previous = false;
  DRYDB_TRY(merge_sources(runs_, true, [&](Bytes key, Bytes value) -> status {
    if (have_previous && compare_keys(Bytes(previous), key) == 0) return on_duplicate(key);
    DRYDB_TRY(emit(key, value));
    previous.assign(key.begin(), key.end());
    have_previous = true;
    return {};
  }));
  if (keep) {
    for (auto& run : runs_)
      run->rewind();
    return {};
  }
  clear_buffered();
  runs_.clear();
  return {};
}

}  // namespace drydb::detail
