// Streaming input for `drydb build` and the session's scripts: a file or
// stdin read in large chunks, split into JSON Lines or RFC 4180 CSV/TSV
// records. Memory is bounded by the chunk size and the record size limit,
// checked while a record is read, so an endless line (/dev/zero) is refused
// rather than buffered; line numbers are kept for errors.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli11_fwd.h"

namespace drydb::cli {

// The longest record (a line, or a CSV record with its quoted line breaks)
// unless --max-record says otherwise: far beyond any sensible row (a value
// takes at most 4 GiB, but a build keeps --memory MB of rows), small enough
// that a runaway line fails in a fraction of a second.
inline constexpr size_t kDefaultMaxRecord = size_t{64} << 20;

// --max-record BYTES (also 64MiB, 1GiB) on `cmd`, into `*max_record`; `what`
// names the record ("an input record", "a script line").
CLI::Option* add_max_record_option(CLI::App* cmd, size_t* max_record, const char* what);

class InputSource {
 public:
  // `path` empty or "-": stdin. A CliError when the file cannot be opened.
  explicit InputSource(const std::string& path);
  ~InputSource();
  InputSource(const InputSource&) = delete;
  InputSource& operator=(const InputSource&) = delete;

  const std::string& name() const noexcept { return name_; }
  // The input's size when it is a regular file.
  std::optional<uint64_t> total_bytes() const noexcept { return total_; }
  uint64_t bytes_read() const noexcept { return read_; }
  // Reads up to `n` bytes; 0 at the end, and once SIGINT or SIGTERM set
  // g_interrupted (the caller sees the flag). A CliError on a read error.
  size_t read(char* dst, size_t n);

 private:
  std::string name_;
  int fd_ = -1;
  bool owns_fd_ = false;
  std::optional<uint64_t> total_;
  uint64_t read_ = 0;
};

// A growing window over an InputSource, holding at most one record of
// `max_record` bytes and a chunk.
class InputBuffer {
 public:
  InputBuffer(InputSource& src, size_t max_record) : src_(src), max_record_(max_record) {}
  ~InputBuffer();
  InputBuffer(const InputBuffer&) = delete;
  InputBuffer& operator=(const InputBuffer&) = delete;
  // Bytes available from `pos` on.
  std::string_view data() const { return {buf_ + pos_, end_ - pos_}; }
  bool eof() const { return eof_; }
  // Reads more input (compacting first); returns false at the end.
  // Requires: data() holds only the record that starts on `record_line`;
  // a CliError (check_size) when it already passes the limit.
  bool fill(uint64_t record_line);
  void consume(size_t n) { pos_ += n; }
  InputSource& source() { return src_; }
  // A record of `size` bytes starting on `line`: a CliError if over the limit.
  void check_size(size_t size, uint64_t line) const;

 private:
  InputSource& src_;
  size_t max_record_;
  // realloc'd, not a vector: glibc grows a large block by mremap, in place, so
  // a record near the limit never holds its old and new copies at once.
  char* buf_ = nullptr;
  size_t size_ = 0, pos_ = 0, end_ = 0;
  bool eof_ = false;
};

// JSON Lines: one record per line, "\n" or "\r\n", of at most `max_record`
// bytes (a CliError naming the line past that); blank lines are skipped
// unless `keep_blank` (a session's script echoes them).
class LineReader {
 public:
  LineReader(InputSource& src, size_t max_record, bool keep_blank = false)
      : in_(src, max_record), keep_blank_(keep_blank) {}
  // The next line (valid until the next call) and its 1-based number.
  bool next(std::string_view* line, uint64_t* line_number);

 private:
  InputBuffer in_;
  bool keep_blank_;
  uint64_t line_ = 0;
  bool first_ = true;
};

// RFC 4180 CSV (or TSV with a tab delimiter): fields separated by the
// delimiter, records by CRLF or LF; a field in double quotes may hold the
// delimiter, quotes (doubled) and line breaks. Strict: a quote inside an
// unquoted field, text after a closing quote, a bare CR, and an unterminated
// quoted field are errors. Blank lines are skipped; a UTF-8 BOM is dropped.
// A record over `max_record` bytes is a CliError naming its first line.
class CsvReader {
 public:
  CsvReader(InputSource& src, char delimiter, size_t max_record)
      : in_(src, max_record), delimiter_(delimiter) {}
  // The next record's fields (valid until the next call) and the line it
  // starts on. Returns false at the end; on a malformed record sets *error
  // (and the reader skips past the record, so reading may go on).
  bool next(std::vector<std::string_view>* fields, uint64_t* line_number, std::string* error);

 private:
  enum class Parse { ok, need_more, bad };
  Parse parse(std::string_view data, size_t* used, std::vector<std::string_view>* fields,
              uint64_t* newlines, std::string* error, size_t* bad_end);
  InputBuffer in_;
  char delimiter_;
  uint64_t line_ = 1;
  bool first_ = true;
  std::string unquoted_;  // fields that needed "" undone; reserved so views stay valid
};

}  // namespace drydb::cli
