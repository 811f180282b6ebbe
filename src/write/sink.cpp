#include "write/sink.h"

#include <memory>
#include <string_view>
#include <vector>

#include "write/reach_build_point.h"

namespace drydb::detail {

status MemorySink::write_at(uint64_t offset, std::span<const std::byte> bytes) {
  if (offset + bytes.size() > bytes_.size()) bytes_.resize(offset + bytes.size());
  std::copy(bytes.begin(), bytes.end(), bytes_.begin() + static_cast<ptrdiff_t>(offset));
  return {};
}

void AtomicFileSink::remove_stale_temp_files(const std::filesystem::path& dir,
                                             const std::string& prefix) {
  // Best effort: the build reports its own errors.
  std::vector<std::filesystem::path> candidates;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() == prefix.size() + platform::kHeldTempSuffix &&
        name.compare(0, prefix.size(), prefix) == 0)
      candidates.push_back(it->path());
  }
  for (const std::filesystem::path& path : candidates)
    platform::remove_if_unheld(path);
}

namespace {

// The file a build to `path` replaces: `path`, or the final target of a
// symlink (the link stays and its target is replaced, as writing through it
// would). Fails when that is something other than a regular file or nothing:
// a device, FIFO, socket or folder is not replaced by a database.
result<std::filesystem::path> replaced_file(const std::filesystem::path& path) {
  std::filesystem::path p = path;
  for (int hops = 0;; ++hops) {
    std::error_code ec;
    const std::filesystem::file_status st = std::filesystem::symlink_status(p, ec);
    if (st.type() == std::filesystem::file_type::not_found) return p;
    if (ec) return Error(errc::io_error, "cannot stat '" + p.string() + "': " + ec.message());
    if (st.type() == std::filesystem::file_type::regular) return p;
    if (st.type() != std::filesystem::file_type::symlink)
      return Error(errc::invalid_argument,
                   "'" + path.string() +
                       "' is not a regular file: a database replaces only a "
                       "regular file (or is a new one)");
    if (hops == 40)
      return Error(errc::invalid_argument, "too many symlinks at '" + path.string() + "'");
    const std::filesystem::path link = std::filesystem::read_symlink(p, ec);
    if (ec)
      return Error(errc::io_error, "cannot read symlink '" + p.string() + "': " + ec.message());
    p = link.is_absolute() ? link : p.parent_path() / link;
  }
}

}  // namespace

result<std::unique_ptr<AtomicFileSink>> AtomicFileSink::create(const std::filesystem::path& path) {
  auto resolved = replaced_file(path);
  if (!resolved) return std::move(resolved.error());
  const std::filesystem::path& target = *resolved;
  std::filesystem::path dir = target.parent_path();
  if (dir.empty()) dir = ".";
  // The temp name starts with the target's name so an operator (and the next
  // build, which removes stale ones) can tell what a leftover belongs to.
  const std::string prefix = "." + target.filename().string() + ".tmp-";
  remove_stale_temp_files(dir, prefix);
  auto temp = platform::create_held_temp(dir, prefix);
  if (!temp) return std::move(temp).error();
  return std::unique_ptr<AtomicFileSink>(new AtomicFileSink(std::move(*temp), target));
}

AtomicFileSink::~AtomicFileSink() {
  if (!committed_ && temp_.file.is_open()) platform::remove_held_temp(temp_);
}

status AtomicFileSink::write_at(uint64_t offset, std::span<const std::byte> bytes) {
  return temp_.file.write_exact(offset, bytes, "cannot write '" + temp_.path.string() + "'");
}

status AtomicFileSink::commit() {
  DRYDB_TRY(platform::set_replacement_mode(temp_.file, target_,
                                           "cannot chmod '" + temp_.path.string() + "'"));
  DRYDB_TRY(temp_.file.sync("cannot fsync '" + temp_.path.string() + "'"));
  reach_build_point(BuildPoint::synced);
  // Renamed while still open and held, so other builds' cleanup of stale temp files keeps away
  // from it until it has its final name.
  DRYDB_TRY(platform::replace_file(temp_.path, target_,
                                   "cannot rename the temp file to '" + target_.string() + "'"));
  committed_ = true;
  // The hold is dropped before the close (see platform::release_hold): a reader that locks
  // the file, as .NET's File.Open does, must not find the new file held.
  platform::release_hold(temp_.file);
  reach_build_point(BuildPoint::renamed);
  // The data was synced before the rename; a close error now is still reported.
  DRYDB_TRY(temp_.file.close("cannot close '" + target_.string() + "'"));
  std::filesystem::path dir = target_.parent_path();
  if (dir.empty()) dir = ".";
  // The rename is durable once the folder is synced; a failure here cannot
  // undo the rename, so it is reported while the file is complete.
  return platform::sync_folder(dir);
}

}  // namespace drydb::detail
