#include "sorter.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <queue>

#include "drydb/detail/coding.h"
#include "sink.h"

namespace drydb::detail {
namespace {

constexpr size_t kChunkBytes = size_t{1} << 20;
constexpr size_t kRunBufferBytes = size_t{1} << 20;

Bytes row_key(const std::byte* row) {
  return {row + 8, load_u32(row)};
}
Bytes row_value(const std::byte* row) {
  return {row + 8 + load_u32(row), load_u32(row + 4)};
}

}  // namespace

int compare_keys(Bytes a, Bytes b) noexcept {
  size_t n = std::min(a.size(), b.size());
  int c = n ? std::memcmp(a.data(), b.data(), n) : 0;
  if (c != 0) return c;
  return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
}

// A sorted run in an unlinked temp file, read back through a buffer.
struct Sorter::Run {
  int fd = -1;
  uint64_t size = 0;
  uint64_t read_pos = 0;
  std::vector<std::byte> buf;
  size_t buf_pos = 0;
  std::vector<std::byte> row;  // the current row, [klen][vlen][key][value]

  ~Run() {
    if (fd >= 0) ::close(fd);
  }

  status fill(std::byte* dst, size_t n) {
    while (n > 0) {
      if (buf_pos == buf.size()) {
        size_t want = static_cast<size_t>(std::min<uint64_t>(kRunBufferBytes, size - read_pos));
        if (want == 0) return Error(errc::io_error, "spilled run ended early");
        buf.resize(want);
        size_t got = 0;
        while (got < want) {
          ssize_t r = ::pread(fd, buf.data() + got, want - got, static_cast<off_t>(read_pos + got));
          if (r < 0 && errno == EINTR) continue;
          if (r <= 0) return io_error("cannot read a spilled run", r < 0 ? errno : EIO);
          got += static_cast<size_t>(r);
        }
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

Sorter::Sorter() = default;
Sorter::~Sorter() = default;

void Sorter::add(Bytes key, Bytes value) {
  size_t need = 8 + key.size() + value.size();
  if (chunks_.empty() || chunk_size_ - chunk_used_ < need) {
    chunk_size_ = std::max(kChunkBytes, need);
    chunks_.push_back(std::make_unique_for_overwrite<std::byte[]>(chunk_size_));
    chunk_used_ = 0;
    memory_ += chunk_size_;
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
  memory_ += sizeof(const std::byte*);
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
  sort_buffered();
  std::string pattern = (dir / "drydb-run-XXXXXX").string();
  int fd = ::mkstemp(pattern.data());
  if (fd < 0) return io_error("cannot create a spill file in '" + dir.string() + "'", errno);
  // Unlinked at once: the run lives as long as the descriptor, and a killed
  // build leaves nothing behind.
  ::unlink(pattern.c_str());
  auto run = std::make_unique<Run>();
  run->fd = fd;
  std::vector<std::byte> out;
  out.reserve(kRunBufferBytes);
  auto flush = [&]() -> status {
    size_t done = 0;
    while (done < out.size()) {
      ssize_t w =
          ::pwrite(fd, out.data() + done, out.size() - done, static_cast<off_t>(run->size + done));
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) return io_error("cannot write a spill file in '" + dir.string() + "'", errno);
      done += static_cast<size_t>(w);
    }
    run->size += out.size();
    out.clear();
    return {};
  };
  for (const std::byte* row : rows_in_memory_) {
    size_t len = 8 + size_t{load_u32(row)} + load_u32(row + 4);
    if (out.size() + len > kRunBufferBytes && !out.empty()) DRYDB_TRY(flush());
    if (len > kRunBufferBytes) {
      out.assign(row, row + len);
      DRYDB_TRY(flush());
    } else {
      out.insert(out.end(), row, row + len);
    }
  }
  DRYDB_TRY(flush());
  runs_.push_back(std::move(run));
  clear_buffered();
  return {};
}

status Sorter::merge(const std::function<status(Bytes key, Bytes value)>& emit,
                     const std::function<Error(Bytes key)>& on_duplicate) {
  sort_buffered();
  // Sources: each run, then the in-memory batch (index runs_.size()).
  const size_t mem_source = runs_.size();
  size_t mem_pos = 0;
  auto current = [&](size_t s) -> const std::byte* {
    return s == mem_source ? rows_in_memory_[mem_pos] : runs_[s]->row.data();
  };
  auto greater = [&](size_t a, size_t b) {
    int c = compare_keys(row_key(current(a)), row_key(current(b)));
    return c != 0 ? c > 0 : a > b;
  };
  std::priority_queue<size_t, std::vector<size_t>, decltype(greater)> heap(greater);
  for (size_t s = 0; s < runs_.size(); ++s) {
    auto more = runs_[s]->next();
    if (!more) return std::move(more).error();
    if (*more) heap.push(s);
  }
  if (!rows_in_memory_.empty()) heap.push(mem_source);

  std::vector<std::byte> previous;
  bool have_previous = false;
  while (!heap.empty()) {
    size_t s = heap.top();
    heap.pop();
    const std::byte* row = current(s);
    Bytes key = row_key(row);
    if (have_previous && compare_keys(Bytes(previous), key) == 0) return on_duplicate(key);
    DRYDB_TRY(emit(key, row_value(row)));
    previous.assign(key.begin(), key.end());
    have_previous = true;
    if (s == mem_source) {
      if (++mem_pos < rows_in_memory_.size()) heap.push(s);
    } else {
      auto more = runs_[s]->next();
      if (!more) return std::move(more).error();
      if (*more) heap.push(s);
    }
  }
  clear_buffered();
  runs_.clear();
  return {};
}

}  // namespace drydb::detail
