// A command's output file (`drydb dump -o FILE`), written whole or not at
// all: a new or regular file through drydb::AtomicFile (a temp file beside it,
// `.<name>.tmp-XXXXXX`, that commit() syncs and renames over it, then syncs
// the folder; a killed command's leftover is removed by the next one), so a
// failed or interrupted command leaves the previous file as it was; a FIFO or
// device, and a descriptor's name (/dev/stdout, /dev/fd/N, /proc/self/fd/N),
// is written in place, appending.
// A symlink's target is the file replaced, the link stays.
#pragma once

#include <cstdio>
#include <memory>
#include <string>

#include "drydb/atomic_file.h"

namespace drydb::cli {

// Whether paths `a` and `b` name the same existing file (through links).
bool same_file(const std::string& a, const std::string& b);
// Whether `path` names the file this process reads as stdin.
bool is_stdin(const std::string& path);

class OutputFile {
 public:
  // Fails (CliError) when the file cannot be made.
  explicit OutputFile(const std::string& path);
  // Without commit(): the temp file is removed, the target untouched.
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  std::FILE* stream() const { return stream_; }
  // Flushes, syncs and renames the temp file over the target (the new file
  // takes the old one's permissions, else 0666 less the umask) and syncs its
  // folder. Fails (CliError) on any write error.
  void commit();

 private:
  std::string path_;                  // as given, for messages
  std::unique_ptr<AtomicFile> file_;  // null when written in place
  std::FILE* stream_ = nullptr;
};

}  // namespace drydb::cli
