// A dataset folder's generations (dataset.h; docs/sharding.md, "The dataset folder and its
// generations"): CURRENT and HIGHEST, each replaced whole by rename; publish, roll back, keep.
#include <algorithm>
#include <charconv>
#include <fstream>
#include <system_error>
#include <vector>

#include <utility>

#include "drydb/dataset.h"
#include "platform/file.h"
#include "write/reach_build_point.h"
#include "write/sink.h"

namespace drydb {

namespace {

namespace fs = std::filesystem;

constexpr std::string_view kPrefix = "gen-";

// N of "gen-N" (decimal, no leading zero, 1 .. 2^63 - 1), or 0 when `name` is not one.
uint64_t generation_of(std::string_view name) {
  if (name.substr(0, kPrefix.size()) != kPrefix) return 0;
  const std::string_view digits = name.substr(kPrefix.size());
  if (digits.empty() || digits.size() > 19 || digits[0] == '0') return 0;
  uint64_t n = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (ec != std::errc() || end != digits.data() + digits.size() || n > (uint64_t{1} << 63) - 1)
    return 0;
  return n;
}

// The text of a small pointer file (CURRENT, HIGHEST), without its final newline; nullopt when
// the file does not exist.
result<std::optional<std::string>> read_pointer(const fs::path& path) {
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(path, ec))) return std::optional<std::string>();
  if (!fs::is_regular_file(path, ec))
    return Error(errc::corruption, path.string() + " is not a regular file");
  std::ifstream in(path, std::ios::binary);
  std::string text(64, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) return Error(errc::io_error, "cannot read " + path.string());
  text.resize(static_cast<size_t>(in.gcount()));
  if (text.size() == 64 || text.empty() || text.back() != '\n')
    return Error(errc::corruption, path.string() + " is not one line");
  text.pop_back();
  return std::optional<std::string>(std::move(text));
}

// Replaces `path` with `line` and a newline: temp file, fsync, rename, fsync the folder.
status write_pointer(const fs::path& path, const std::string& line) {
  auto sink = detail::AtomicFileSink::create(path);
  if (!sink) return std::move(sink).error();
  const std::string text = line + "\n";
  DRYDB_TRY((*sink)->write_at(0, std::as_bytes(std::span(text.data(), text.size()))));
  return (*sink)->commit();
}

result<uint64_t> highest(const fs::path& dataset) {
  auto text = read_pointer(dataset / "HIGHEST");
  if (!text) return std::move(text).error();
  if (!*text) return uint64_t{0};
  const uint64_t n = generation_of(std::string(kPrefix) + **text);
  if (n == 0)
    return Error(errc::corruption, (dataset / "HIGHEST").string() + " holds no generation number");
  return n;
}

// The numbers of the generation folders present, ascending.
result<std::vector<uint64_t>> generation_folders(const fs::path& dataset) {
  std::vector<uint64_t> out;
  std::error_code ec;
  for (fs::directory_iterator it(dataset, ec), end; !ec && it != end; it.increment(ec)) {
    const uint64_t n = generation_of(it->path().filename().string());
    if (n != 0 && it->is_directory(ec)) out.push_back(n);
  }
  if (ec) return Error(errc::io_error, "cannot list " + dataset.string() + ": " + ec.message());
  std::sort(out.begin(), out.end());
  return out;
}

bool has_manifest(const fs::path& dataset, uint64_t generation) {
  std::error_code ec;
  return fs::is_regular_file(dataset / generation_folder(generation) / "manifest.json", ec);
}

}  // namespace

std::string generation_folder(uint64_t generation) {
  return std::string(kPrefix) + std::to_string(generation);
}

result<uint64_t> current_generation(const fs::path& dataset) {
  auto text = read_pointer(dataset / "CURRENT");
  if (!text) return std::move(text).error();
  if (!*text) return uint64_t{0};
  const uint64_t n = generation_of(**text);
  if (n == 0)
    return Error(errc::corruption,
                 (dataset / "CURRENT").string() + " names no generation: '" + **text + "'");
  return n;
}

result<uint64_t> next_generation(const fs::path& dataset) {
  auto high = highest(dataset);
  if (!high) return std::move(high).error();
  auto folders = generation_folders(dataset);
  if (!folders) return std::move(folders).error();
  const uint64_t top = std::max(*high, folders->empty() ? uint64_t{0} : folders->back());
  if (top >= (uint64_t{1} << 63) - 1)
    return Error(errc::invalid_state, "no generation number is left");
  return top + 1;
}

result<uint64_t> claim_generation(const fs::path& dataset) {
  std::error_code ec;
  fs::create_directories(dataset, ec);
  if (ec) return Error(errc::io_error, "cannot create " + dataset.string() + ": " + ec.message());
  for (int attempt = 0; attempt < 1000; ++attempt) {
    auto n = next_generation(dataset);
    if (!n) return n;
    // Making a folder is exclusive: of two builders that chose the same number, one makes it,
    // and the other finds it made and chooses again.
    const fs::path folder = dataset / generation_folder(*n);
    if (fs::create_directory(folder, ec)) return *n;
    if (ec == std::errc::no_such_file_or_directory) {
      // A failed run that made the dataset folder removed it, empty, since we listed it.
      fs::create_directories(dataset, ec);
      if (ec)
        return Error(errc::io_error, "cannot create " + dataset.string() + ": " + ec.message());
      continue;
    }
    if (ec) return Error(errc::io_error, "cannot create " + folder.string() + ": " + ec.message());
  }
  return Error(errc::io_error, "cannot claim a generation folder in " + dataset.string());
}

namespace {

// A generation whose manifest reads and is of its folder's number.
status check_generation(const fs::path& dataset, uint64_t generation) {
  const fs::path file = dataset / generation_folder(generation) / "manifest.json";
  auto m = read_manifest(file);
  if (!m) return std::move(m).error();
  if (m->generation != generation)
    return Error(errc::corruption, file.string() + " is of generation " +
                                       std::to_string(m->generation) + ", not " +
                                       std::to_string(generation));
  return {};
}

// Removes a generation's folder, its manifest first: a generation half removed has no manifest,
// so it is never read, published or rolled back to.
status remove_generation(const fs::path& dataset, uint64_t generation) {
  const fs::path folder = dataset / generation_folder(generation);
  std::error_code ec;
  fs::remove(folder / "manifest.json", ec);
  if (!ec) fs::remove_all(folder, ec);
  if (ec) return Error(errc::io_error, "cannot remove " + folder.string() + ": " + ec.message());
  return {};
}

}  // namespace

result<Published> publish_generation(const fs::path& dataset, uint64_t generation, uint32_t keep) {
  detail::reach_build_point(BuildPoint::dataset_locking);
  // One publisher, rollback or retention at a time: the lock is held while CURRENT, HIGHEST and
  // the generation folders change.
  auto lock = platform::FolderLock::take(dataset);
  if (!lock) return std::move(lock).error();
  // Checked under the lock: a concurrent publish's retention cannot remove it after the check.
  DRYDB_TRY(check_generation(dataset, generation));
  auto high = highest(dataset);
  if (!high) return std::move(high).error();
  // HIGHEST before CURRENT: a generation CURRENT ever named is then never above HIGHEST, which
  // is how discard_generation knows one that was never published. A failure here changes
  // nothing a reader sees.
  const bool raised = generation > *high;
  if (raised) DRYDB_TRY(write_pointer(dataset / "HIGHEST", std::to_string(generation)));
  Published out;
  if (auto st = write_pointer(dataset / "CURRENT", generation_folder(generation)); !st) {
    // The rename may have taken place before a later step (the folder's fsync) failed.
    auto now = current_generation(dataset);
    if (!now || *now != generation) {
      // Not published: HIGHEST goes back to what it was (CURRENT, read back, does not name this
      // generation), so that discard_generation can tell it was never live and remove it, and a
      // dataset folder the publish found without HIGHEST is left without one. Best effort: a
      // HIGHEST left raised (CURRENT unreadable, or its own replacement failed too, on a full
      // disk) only keeps the folder.
      if (raised && now) {
        std::error_code ec;
        if (*high == 0)
          fs::remove(dataset / "HIGHEST", ec);
        else
          (void)write_pointer(dataset / "HIGHEST", std::to_string(*high));
      }
      return std::move(st).error();
    }
    out.warnings.push_back(st.error().message);
  }
  detail::reach_build_point(BuildPoint::dataset_published);
  // Retention: of the complete generations older than the live one, the `keep` newest stay. A
  // folder without a manifest (a generation being built, or abandoned) is left to its builder.
  auto folders = generation_folders(dataset);
  if (!folders) {
    out.warnings.push_back(folders.error().message);
    return out;
  }
  std::vector<uint64_t> older;
  for (uint64_t n : *folders)
    if (n < generation && has_manifest(dataset, n)) older.push_back(n);
  const size_t remove = older.size() > keep ? older.size() - keep : 0;
  for (size_t i = 0; i < remove; ++i) {
    if (auto st = remove_generation(dataset, older[i]); !st)
      out.warnings.push_back(st.error().message);
    else
      out.removed.push_back(older[i]);
  }
  return out;
}

result<uint64_t> rollback_generation(const fs::path& dataset) {
  detail::reach_build_point(BuildPoint::dataset_locking);
  auto lock = platform::FolderLock::take(dataset);
  if (!lock) return std::move(lock).error();
  auto current = current_generation(dataset);
  if (!current) return std::move(current).error();
  if (*current == 0) return Error(errc::not_found, dataset.string() + " has no live generation");
  auto folders = generation_folders(dataset);
  if (!folders) return std::move(folders).error();
  for (auto it = folders->rbegin(); it != folders->rend(); ++it) {
    if (*it >= *current || !check_generation(dataset, *it)) continue;
    DRYDB_TRY(write_pointer(dataset / "CURRENT", generation_folder(*it)));
    return *it;
  }
  return Error(errc::not_found, dataset.string() + " keeps no complete generation older than " +
                                    generation_folder(*current));
}

result<bool> discard_generation(const fs::path& dataset, uint64_t generation) {
  detail::reach_build_point(BuildPoint::dataset_locking);
  auto lock = platform::FolderLock::take(dataset);
  if (!lock) return std::move(lock).error();
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(dataset / generation_folder(generation), ec))) return true;
  if (has_manifest(dataset, generation)) {
    // Complete: a publish (this run's, another run's, a user's) may have named it. It did not
    // if CURRENT does not name it now and HIGHEST, which a publish raises first, is below it.
    auto current = current_generation(dataset);
    if (!current) return std::move(current).error();
    auto high = highest(dataset);
    if (!high) return std::move(high).error();
    if (*current == generation || generation <= *high) return false;
  }
  DRYDB_TRY(remove_generation(dataset, generation));
  return true;
}

}  // namespace drydb
