#include "io/progress.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include <fmt/format.h>

#include "common.h"
#include "io/text.h"

namespace drydb::cli {

Progress::Mode progress_mode(bool quiet) {
  if (quiet) return Progress::Mode::quiet;
  return ::isatty(STDERR_FILENO) ? Progress::Mode::bar : Progress::Mode::lines;
}

Progress::Progress(Mode mode, std::optional<uint64_t> total_bytes, double line_interval)
    : mode_(mode),
      total_(total_bytes),
      interval_(mode == Mode::bar ? std::min(0.1, line_interval) : line_interval),
      start_(std::chrono::steady_clock::now()),
      last_(start_) {}

double Progress::elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void Progress::tick(uint64_t rows, uint64_t bytes, bool force) {
  const auto now = std::chrono::steady_clock::now();
  if (!force && std::chrono::duration<double>(now - last_).count() < interval_) return;
  last_ = now;
  const double secs = std::chrono::duration<double>(now - start_).count();
  const double rate = secs > 0 ? static_cast<double>(rows) / secs : 0;
  std::string read = human_bytes(bytes);
  std::string eta;
  double fraction = -1;
  if (total_ && *total_ > 0) {
    fraction = std::min(1.0, static_cast<double>(bytes) / static_cast<double>(*total_));
    read = fmt::format("{} of {}", human_bytes(bytes), human_bytes(*total_));
    if (fraction > 0 && secs > 1)
      eta = fmt::format(", ETA {}", human_duration(secs * (1 - fraction) / fraction));
  }
  const std::string stats = fmt::format("{} rows, {} read, {} rows/s{}", group_digits(rows), read,
                                        group_digits(static_cast<uint64_t>(rate)), eta);
  if (mode_ == Mode::bar) {
    std::string bar;
    if (fraction >= 0) {
      constexpr int kWidth = 24;
      const int filled = static_cast<int>(fraction * kWidth);
      bar = fmt::format("{:3.0f}% [{}{}] ", fraction * 100,
                        std::string(static_cast<size_t>(filled), '#'),
                        std::string(static_cast<size_t>(kWidth - filled), '.'));
    }
    write_err(fmt::format("\r{}{}\x1b[K", bar, stats));
    bar_shown_ = true;
  } else {
    write_err(fmt::format("drydb build: {}\n", stats));
  }
  std::fflush(stderr);
}

void Progress::note(const std::string& message) {
  if (mode_ != Mode::quiet) warn(message);
}

void Progress::warn(const std::string& message) {
  if (bar_shown_) {
    write_err("\r\x1b[K");
    bar_shown_ = false;
  }
  write_err(fmt::format("drydb build: {}\n", message));
  std::fflush(stderr);
}

}  // namespace drydb::cli
