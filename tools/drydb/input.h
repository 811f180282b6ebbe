// Streaming input for `drydb build`: a file or stdin read in large chunks,
// split into JSON Lines or RFC 4180 CSV/TSV records. Memory is bounded by the
// chunk size and the longest record; line numbers are kept for errors.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace drydb::cli {

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
  // Reads up to `n` bytes; 0 at the end. A CliError on a read error.
  size_t read(char* dst, size_t n);

 private:
  std::string name_;
  int fd_ = -1;
  bool owns_fd_ = false;
  std::optional<uint64_t> total_;
  uint64_t read_ = 0;
};

// A growing window over an InputSource.
class InputBuffer {
 public:
  explicit InputBuffer(InputSource& src) : src_(src) {}
  // Bytes available from `pos` on.
  std::string_view data() const { return {buf_.data() + pos_, end_ - pos_}; }
  bool eof() const { return eof_; }
  // Reads more input (compacting first); returns false at the end.
  bool fill();
  void consume(size_t n) { pos_ += n; }
  InputSource& source() { return src_; }

 private:
  InputSource& src_;
  std::vector<char> buf_;
  size_t pos_ = 0, end_ = 0;
  bool eof_ = false;
};

// JSON Lines: one record per line, "\n" or "\r\n"; blank lines are skipped.
class LineReader {
 public:
  explicit LineReader(InputSource& src) : in_(src) {}
  // The next non-blank line (valid until the next call) and its 1-based number.
  bool next(std::string_view* line, uint64_t* line_number);

 private:
  InputBuffer in_;
  uint64_t line_ = 0;
  bool first_ = true;
};

// RFC 4180 CSV (or TSV with a tab delimiter): fields separated by the
// delimiter, records by CRLF or LF; a field in double quotes may hold the
// delimiter, quotes (doubled) and line breaks. Strict: a quote inside an
// unquoted field, text after a closing quote, a bare CR, and an unterminated
// quoted field are errors. Blank lines are skipped; a UTF-8 BOM is dropped.
class CsvReader {
 public:
  CsvReader(InputSource& src, char delimiter) : in_(src), delimiter_(delimiter) {}
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
