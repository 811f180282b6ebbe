#include "io/input.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <new>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "common.h"

namespace drydb::cli {

namespace {
constexpr size_t kChunk = size_t{1} << 20;
constexpr std::string_view kBom = "\xEF\xBB\xBF";
}  // namespace

CLI::Option* add_max_record_option(CLI::App* cmd, size_t* max_record, const char* what) {
  return cmd
      ->add_option(
          "--max-record", *max_record,
          fmt::format(
              "Refuse {} longer than this many bytes (64MiB by default; "
              "a unit such as KiB, MiB, GiB, TiB may follow the number; all are powers of 1024)",
              what))
      ->transform(CLI::AsSizeValue(false))
      ->check(
          [](const std::string& bytes) -> std::string {
            size_t n = 0;
            const auto [end, ec] = std::from_chars(bytes.data(), bytes.data() + bytes.size(), n);
            if (ec != std::errc() || end != bytes.data() + bytes.size() || n == 0)
              return fmt::format("expected a positive number of bytes, not '{}'", bytes);
            return "";
          },
          "BYTES");
}

InputSource::InputSource(const std::string& path) {
  if (path.empty() || path == "-") {
    name_ = "<stdin>";
    fd_ = STDIN_FILENO;
  } else {
    name_ = path;
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) fail(fmt::format("cannot open input '{}': {}", path, std::strerror(errno)));
    owns_fd_ = true;
  }
  struct stat st;
  if (::fstat(fd_, &st) == 0) {
    if (S_ISDIR(st.st_mode)) fail(fmt::format("input '{}' is a directory", name_));
    if (S_ISREG(st.st_mode)) {
      // From the current offset: stdin may be a file something already read from.
      const off_t at = ::lseek(fd_, 0, SEEK_CUR);
      total_ = static_cast<uint64_t>(st.st_size) - (at > 0 ? static_cast<uint64_t>(at) : 0);
    }
  }
  ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
}

InputSource::~InputSource() {
  if (owns_fd_) ::close(fd_);
}

size_t InputSource::read(char* dst, size_t n) {
  for (;;) {
    // A read that never blocks (/dev/zero, a huge file) never sees EINTR: look first.
    if (g_interrupted) return 0;
    const ssize_t got = ::read(fd_, dst, n);
    if (got >= 0) {
      read_ += static_cast<uint64_t>(got);
      return static_cast<size_t>(got);
    }
    if (errno != EINTR) fail(fmt::format("cannot read '{}': {}", name_, std::strerror(errno)));
    if (g_interrupted) return 0;  // the caller sees the flag
  }
}

void InputBuffer::check_size(size_t size, uint64_t line) const {
  if (size > max_record_)
    fail(fmt::format("{}:{}: a record of more than {} bytes (--max-record BYTES raises the limit)",
                     src_.name(), line, max_record_));
}

InputBuffer::~InputBuffer() {
  std::free(buf_);
}

bool InputBuffer::fill(uint64_t record_line) {
  if (eof_) return false;
  if (pos_ > 0) {
    std::memmove(buf_, buf_ + pos_, end_ - pos_);
    end_ -= pos_;
    pos_ = 0;
  }
  // Everything buffered is one unfinished record (but for a last CR, which may end it):
  // past the limit, reading on is pointless.
  if (end_ > 0) check_size(end_ - 1, record_line);
  // Never more than the limit and a chunk: an endless line costs no more memory than that.
  if (size_ - end_ < kChunk / 2) {
    const size_t size = std::min(std::max(kChunk, 2 * size_),
                                 max_record_ > SIZE_MAX - kChunk ? SIZE_MAX : max_record_ + kChunk);
    char* grown = static_cast<char*>(std::realloc(buf_, size));
    if (grown == nullptr) throw std::bad_alloc();
    buf_ = grown;
    size_ = size;
  }
  const size_t got = src_.read(buf_ + end_, size_ - end_);
  if (got == 0) {
    eof_ = true;
    return false;
  }
  end_ += got;
  return true;
}

bool LineReader::next(std::string_view* line, uint64_t* line_number) {
  for (;;) {
    std::string_view d = in_.data();
    size_t nl = d.find('\n');
    // Each fill adds a chunk behind what was searched already: search only that, so a long line
    // from a pipe (a chunk per read) costs time in its length, not its square.
    while (nl == std::string_view::npos && in_.fill(line_ + 1)) {
      const size_t searched = d.size();
      d = in_.data();
      nl = d.find('\n', searched);
    }
    // A fill that found the end may still have moved the buffer (grown, then read nothing).
    d = in_.data();
    if (nl == std::string_view::npos && d.empty()) return false;
    std::string_view l = nl == std::string_view::npos ? d : d.substr(0, nl);
    in_.consume(nl == std::string_view::npos ? d.size() : nl + 1);
    ++line_;
    if (first_) {
      first_ = false;
      if (l.substr(0, kBom.size()) == kBom) l.remove_prefix(kBom.size());
    }
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    in_.check_size(l.size(), line_);  // whatever the chunks, the same limit
    if (!keep_blank_ && l.find_first_not_of(" \t") == std::string_view::npos) continue;
    *line = l;
    *line_number = line_;
    return true;
  }
}

CsvReader::Parse CsvReader::parse(std::string_view d, size_t* used,
                                  std::vector<std::string_view>* fields, uint64_t* newlines,
                                  std::string* error, size_t* bad_end) {
  const bool eof = in_.eof();
  fields->clear();
  unquoted_.clear();
  // Unquoted fields are never longer than their source: views into unquoted_ stay valid.
  if (unquoted_.capacity() < d.size()) unquoted_.reserve(d.size());
  *newlines = 0;
  auto bad = [&](size_t at, std::string what) {
    *error = std::move(what);
    const size_t nl = d.find('\n', at);
    if (nl == std::string_view::npos && !eof) return Parse::need_more;
    *bad_end = nl == std::string_view::npos ? d.size() : nl + 1;
    *newlines +=
        static_cast<uint64_t>(std::count(d.begin() + static_cast<std::ptrdiff_t>(at),
                                         d.begin() + static_cast<std::ptrdiff_t>(*bad_end), '\n'));
    return Parse::bad;
  };
  size_t i = 0;
  for (;;) {
    // One field starts at i.
    // The error for a character after the field that neither starts the next field nor ends the
    // record.
    const char* stray;
    if (i < d.size() && d[i] == '"') {
      const size_t open = i;
      size_t j = i + 1;
      bool doubled = false;
      for (;;) {
        const size_t q = d.find('"', j);
        if (q == std::string_view::npos) {
          if (!eof) return Parse::need_more;
          *newlines += static_cast<uint64_t>(
              std::count(d.begin() + static_cast<std::ptrdiff_t>(open), d.end(), '\n'));
          *error = "unterminated quoted field";
          *bad_end = d.size();
          return Parse::bad;
        }
        if (q + 1 < d.size() && d[q + 1] == '"') {
          doubled = true;
          j = q + 2;
          continue;
        }
        if (q + 1 >= d.size() && !eof) return Parse::need_more;
        j = q;
        break;
      }
      const std::string_view raw = d.substr(open + 1, j - open - 1);
      *newlines += static_cast<uint64_t>(std::count(raw.begin(), raw.end(), '\n'));
      if (!doubled) {
        fields->push_back(raw);
      } else {
        const size_t start = unquoted_.size();
        for (size_t k = 0; k < raw.size(); ++k) {
          unquoted_ += raw[k];
          if (raw[k] == '"') ++k;  // "" -> "
        }
        fields->push_back(std::string_view(unquoted_).substr(start));
      }
      i = j + 1;
      stray = "text after the closing quote";
    } else {
      size_t j = i;
      while (j < d.size() && d[j] != delimiter_ && d[j] != '\n' && d[j] != '\r' && d[j] != '"')
        ++j;
      if (j < d.size() && d[j] == '"')
        return bad(j, fmt::format("field {}: a quote inside an unquoted field (quote the whole "
                                  "field and double its quotes)",
                                  fields->size() + 1));
      if (j >= d.size() && !eof) return Parse::need_more;
      fields->push_back(d.substr(i, j - i));
      i = j;
      // It stopped at a delimiter, a line feed or a carriage return: only the last can be stray.
      stray = "a carriage return not followed by a line feed";
    }
    // The field ended at i: a delimiter starts the next one; LF, CRLF or the end of the file
    // ends the record.
    if (i >= d.size()) break;  // eof: the record ends with the file
    if (d[i] == delimiter_) {
      ++i;
      continue;
    }
    if (d[i] == '\n') {
      ++i, ++*newlines;
      break;
    }
    if (d[i] == '\r') {
      if (i + 1 >= d.size() && !eof) return Parse::need_more;
      if (i + 1 < d.size() && d[i + 1] == '\n') {
        i += 2, ++*newlines;
        break;
      }
    }
    return bad(i, fmt::format("field {}: {}", fields->size(), stray));
  }
  *used = i;
  return Parse::ok;
}

bool CsvReader::next(std::vector<std::string_view>* fields, uint64_t* line_number,
                     std::string* error) {
  error->clear();
  for (;;) {
    std::string_view d = in_.data();
    if (d.empty() && !in_.fill(line_)) return false;
    d = in_.data();
    if (first_) {
      if (d.size() < kBom.size() && !in_.eof() && in_.fill(line_)) continue;
      first_ = false;
      if (d.substr(0, kBom.size()) == kBom) {
        in_.consume(kBom.size());
        continue;
      }
    }
    // Blank lines.
    if (d[0] == '\n' || (d[0] == '\r' && d.size() > 1 && d[1] == '\n')) {
      in_.consume(d[0] == '\n' ? 1 : 2);
      ++line_;
      continue;
    }
    size_t used = 0, bad_end = 0;
    uint64_t newlines = 0;
    const Parse p = parse(d, &used, fields, &newlines, error, &bad_end);
    if (p == Parse::need_more) {
      error->clear();
      // Parsed again from the record's start: only once the buffer has doubled (or the input
      // ended), so a long record from a pipe (a chunk per read) costs time in its length, not
      // its square.
      const size_t had = d.size();
      while (in_.fill(line_) && in_.data().size() < 2 * had) {
      }
      continue;  // at eof too: parse again knowing it
    }
    // The limit, as for a line, leaves out the line break that ends the record.
    std::string_view record = d.substr(0, p == Parse::ok ? used : bad_end);
    if (!record.empty() && record.back() == '\n') record.remove_suffix(1);
    if (!record.empty() && record.back() == '\r') record.remove_suffix(1);
    in_.check_size(record.size(), line_);
    *line_number = line_;
    line_ += newlines;
    in_.consume(p == Parse::ok ? used : bad_end);
    if (p == Parse::bad) fields->clear();
    return true;
  }
}

}  // namespace drydb::cli
