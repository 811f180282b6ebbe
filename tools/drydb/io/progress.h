// Progress of `drydb build` on stderr: a live bar when stderr is a terminal,
// else a line every few seconds; nothing with --quiet.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace drydb::cli {

class Progress {
 public:
  enum class Mode { quiet, bar, lines };
  // `total_bytes`: the input's size if known (for the percentage and ETA).
  // `line_interval`: seconds between lines in lines mode; the bar is redrawn
  // every 0.1 s, or every `line_interval` if shorter.
  Progress(Mode mode, std::optional<uint64_t> total_bytes, double line_interval);

  // Cheap enough to call per row: looks at the clock every few thousand calls.
  void update(uint64_t rows, uint64_t bytes) {
    if (mode_ == Mode::quiet || (++calls_ & 1023) != 0) return;
    tick(rows, bytes, false);
  }
  // Clears the bar and prints `message` on a line of its own (not when quiet).
  void note(const std::string& message);
  // The same, also when quiet: for warnings.
  void warn(const std::string& message);
  double elapsed() const;

 private:
  void tick(uint64_t rows, uint64_t bytes, bool force);
  Mode mode_;
  std::optional<uint64_t> total_;
  double interval_;
  std::chrono::steady_clock::time_point start_, last_;
  uint64_t calls_ = 0;
  bool bar_shown_ = false;
};

// The mode for stderr: bar on a terminal, lines otherwise.
Progress::Mode progress_mode(bool quiet);

}  // namespace drydb::cli
