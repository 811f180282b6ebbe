// The platform layer on Windows (file.h): CreateFileW with UTF-16 paths, ReadFile and WriteFile
// at an offset, FlushFileBuffers, LockFileEx, MoveFileExW, CreateFileMappingW and MapViewOfFile,
// VirtualAlloc.
#include "platform/file.h"

#ifdef _WIN32

#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>

#include <algorithm>
#include <atomic>
#include <utility>

namespace drydb {
namespace {

// One ReadFile or WriteFile moves at most this many bytes (its count is a DWORD).
constexpr size_t kMaxTransfer = size_t{1} << 30;

OVERLAPPED at_offset(uint64_t offset) {
  OVERLAPPED at{};
  at.Offset = static_cast<DWORD>(offset);
  at.OffsetHigh = static_cast<DWORD>(offset >> 32);
  return at;
}

}  // namespace

int64_t read_file_at(NativeFile file, std::span<std::byte> dst, uint64_t offset) {
  // A synchronous handle read at an explicit offset: concurrent reads of one handle each read
  // where they ask (the file position they also move is not used).
  OVERLAPPED at = at_offset(offset);
  DWORD got = 0;
  const auto want = static_cast<DWORD>(std::min(dst.size(), kMaxTransfer));
  if (!::ReadFile(file, dst.data(), want, &got, &at)) {
    if (::GetLastError() == ERROR_HANDLE_EOF) return 0;
    return -1;
  }
  return got;
}

namespace platform {
namespace {

// The system's text for `code`, in UTF-8, without its final line break.
std::string system_message(DWORD code) {
  wchar_t* text = nullptr;
  const DWORD n = ::FormatMessageW(
      FORMAT_MESSAGE_ALLOCATE_BUFFER | FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS,
      nullptr, code, 0, reinterpret_cast<wchar_t*>(&text), 0, nullptr);
  std::string out;
  if (n != 0 && text != nullptr) {
    const int bytes =
        ::WideCharToMultiByte(CP_UTF8, 0, text, static_cast<int>(n), nullptr, 0, nullptr, nullptr);
    out.resize(static_cast<size_t>(bytes > 0 ? bytes : 0));
    if (bytes > 0)
      ::WideCharToMultiByte(CP_UTF8, 0, text, static_cast<int>(n), out.data(), bytes, nullptr,
                            nullptr);
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r' || out.back() == ' '))
      out.pop_back();
  }
  if (text != nullptr) ::LocalFree(text);
  if (out.empty()) out = "system error " + std::to_string(code);
  return out;
}

Error error_of(const std::string& what, DWORD code) {
  return Error(errc::io_error, what + ": " + system_message(code));
}

// Where a held temp file's hold is: one byte far past any file's end, so that the lock (which
// Windows enforces on reads and writes of the bytes it covers) never blocks a read of the data.
constexpr uint64_t kHoldOffset = uint64_t{1} << 62;

bool lock_byte(HANDLE h, uint64_t offset, DWORD flags) {
  OVERLAPPED at = at_offset(offset);
  return ::LockFileEx(h, flags, 0, 1, 0, &at) != 0;
}
void unlock_byte(HANDLE h, uint64_t offset) {
  OVERLAPPED at = at_offset(offset);
  (void)::UnlockFileEx(h, 0, 1, 0, &at);
}

// Whether the file open as `h` was marked for deletion (by another process's cleanup).
bool delete_pending(HANDLE h) {
  FILE_STANDARD_INFO info{};
  return ::GetFileInformationByHandleEx(h, FileStandardInfo, &info, sizeof info) &&
         info.DeletePending;
}

// Marks the file open as `h` (with DELETE access) to be removed when its last handle closes.
bool mark_for_deletion(HANDLE h) {
  FILE_DISPOSITION_INFO info{};
  info.DeleteFile = TRUE;
  return ::SetFileInformationByHandle(h, FileDispositionInfo, &info, sizeof info) != 0;
}

// `count` characters that make a temp file's name unlikely to be taken; CREATE_NEW makes the
// name exclusive, and a taken one is tried again.
std::wstring random_suffix(size_t count) {
  static std::atomic<uint64_t> counter{0};
  LARGE_INTEGER now{};
  ::QueryPerformanceCounter(&now);
  uint64_t x = static_cast<uint64_t>(now.QuadPart) ^ (uint64_t{::GetCurrentProcessId()} << 32) ^
               (counter.fetch_add(1, std::memory_order_relaxed) * 0x9E3779B97F4A7C15ull);
  static constexpr wchar_t kChars[] =
      L"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  std::wstring out;
  for (size_t i = 0; i < count; ++i) {
    x ^= x >> 33;
    x *= 0xFF51AFD7ED558CCDull;
    x ^= x >> 29;
    out.push_back(kChars[x % (sizeof kChars / sizeof kChars[0] - 1)]);
  }
  return out;
}

// A new file `prefix` + random characters in `dir`, opened with `access` and `flags`.
result<HeldTemp> create_new_temp(const std::filesystem::path& dir, const std::wstring& prefix,
                                 DWORD access, DWORD share, DWORD flags) {
  for (int attempt = 0;; ++attempt) {
    std::filesystem::path path = dir / (prefix + random_suffix(kHeldTempSuffix));
    HANDLE h = ::CreateFileW(path.c_str(), access, share, nullptr, CREATE_NEW, flags, nullptr);
    if (h != INVALID_HANDLE_VALUE) return HeldTemp{File(h), std::move(path)};
    const DWORD code = ::GetLastError();
    if ((code != ERROR_FILE_EXISTS && code != ERROR_ALREADY_EXISTS) || attempt == 100)
      return error_of("cannot create a temp file in '" + dir.string() + "'", code);
  }
}

}  // namespace

NativeFile no_file() noexcept {
  return INVALID_HANDLE_VALUE;
}

Error last_error(const std::string& what) {
  return error_of(what, ::GetLastError());
}

bool last_error_is_interrupt() noexcept {
  return false;
}

bool close_native(NativeFile file) noexcept {
  return ::CloseHandle(file) != 0;
}

status File::read_exact(uint64_t offset, std::span<std::byte> dst, const std::string& what) const {
  size_t done = 0;
  while (done < dst.size()) {
    const int64_t n = read_file_at(native_, dst.subspan(done), offset + done);
    if (n < 0) return last_error(what);
    if (n == 0) return Error(errc::io_error, what + ": the file ended early");
    done += static_cast<size_t>(n);
  }
  return {};
}

status File::write_exact(uint64_t offset, std::span<const std::byte> bytes,
                         const std::string& what) const {
  size_t done = 0;
  while (done < bytes.size()) {
    OVERLAPPED at = at_offset(offset + done);
    DWORD wrote = 0;
    const auto want = static_cast<DWORD>(std::min(bytes.size() - done, kMaxTransfer));
    if (!::WriteFile(native_, bytes.data() + done, want, &wrote, &at)) return last_error(what);
    done += wrote;
  }
  return {};
}

status File::sync(const std::string& what) const {
  if (!::FlushFileBuffers(native_)) return last_error(what);
  return {};
}

result<File> open_for_reading(const std::filesystem::path& path, uint64_t* size) {
  // Folders are refused before the open (which would fail on them with a less helpful error).
  const DWORD attributes = ::GetFileAttributesW(path.c_str());
  if (attributes != INVALID_FILE_ATTRIBUTES && (attributes & FILE_ATTRIBUTE_DIRECTORY))
    return Error(errc::invalid_argument, "'" + path.string() + "' is not a regular file");
  // Others may read, write, rename and delete it meanwhile, as on POSIX systems (Windows keeps
  // an open file's name until its last handle closes, so a delete or replace of the name still
  // waits for this reader; docs/errors.md, "Windows").
  File file(::CreateFileW(path.c_str(), GENERIC_READ,
                          FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr,
                          OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, nullptr));
  if (!file.is_open()) return last_error("cannot open '" + path.string() + "'");
  if (::GetFileType(file.native()) != FILE_TYPE_DISK)
    return Error(errc::invalid_argument, "'" + path.string() + "' is not a regular file");
  LARGE_INTEGER bytes{};
  if (!::GetFileSizeEx(file.native(), &bytes))
    return last_error("cannot stat '" + path.string() + "'");
  *size = static_cast<uint64_t>(bytes.QuadPart);
  return file;
}

result<File> create_unnamed_temp(const std::filesystem::path& dir, std::string_view stem) {
  // Deleted when its handle closes, which the system does for a killed process too.
  auto temp = create_new_temp(dir, std::filesystem::path(std::string(stem) + "-").wstring(),
                              GENERIC_READ | GENERIC_WRITE | DELETE, 0,
                              FILE_ATTRIBUTE_TEMPORARY | FILE_FLAG_DELETE_ON_CLOSE);
  if (!temp) return std::move(temp).error();
  return std::move(temp->file);
}

result<HeldTemp> create_held_temp(const std::filesystem::path& dir, const std::string& prefix) {
  const std::wstring wide_prefix = std::filesystem::path(prefix).wstring();
  for (int attempt = 0;; ++attempt) {
    // Shared for delete: the file is renamed over its target while open, and a cleanup that
    // finds it unheld (a killed build's) marks it for deletion through a handle of its own.
    auto temp = create_new_temp(dir, wide_prefix, GENERIC_READ | GENERIC_WRITE | DELETE,
                                FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                                FILE_ATTRIBUTE_NORMAL);
    if (!temp) return std::move(temp).error();
    if (!lock_byte(temp->file.native(), kHoldOffset, LOCKFILE_EXCLUSIVE_LOCK)) {
      Error e = last_error("cannot lock temp file '" + temp->path.string() + "'");
      mark_for_deletion(temp->file.native());
      return e;
    }
    // Not ours if another build's cleanup marked it for deletion between the create and the
    // lock (it saw an unheld leftover): make another.
    if (!delete_pending(temp->file.native())) return temp;
    if (attempt == 100)
      return Error(errc::io_error, "temp files in '" + dir.string() + "' keep disappearing");
  }
}

void remove_held_temp(HeldTemp& temp) {
  if (!mark_for_deletion(temp.file.native())) {
    temp.file = File();
    ::DeleteFileW(temp.path.c_str());
    return;
  }
  temp.file = File();  // the close removes it
}

void release_hold(const File& file) {
  unlock_byte(file.native(), kHoldOffset);
}

void remove_if_unheld(const std::filesystem::path& path) {
  // Not through a symbolic link or junction: the name itself.
  const File file(::CreateFileW(path.c_str(), GENERIC_READ | DELETE,
                                FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr,
                                OPEN_EXISTING, FILE_FLAG_OPEN_REPARSE_POINT, nullptr));
  if (!file.is_open()) return;
  BY_HANDLE_FILE_INFORMATION info{};
  if (!::GetFileInformationByHandle(file.native(), &info) ||
      (info.dwFileAttributes & (FILE_ATTRIBUTE_DIRECTORY | FILE_ATTRIBUTE_REPARSE_POINT)) ||
      ::GetFileType(file.native()) != FILE_TYPE_DISK)
    return;
  // A live build holds its byte; the lock taken here goes with the close.
  if (lock_byte(file.native(), kHoldOffset, LOCKFILE_EXCLUSIVE_LOCK | LOCKFILE_FAIL_IMMEDIATELY))
    mark_for_deletion(file.native());
}

status set_replacement_mode(const File&, const std::filesystem::path&, const std::string&) {
  return {};
}

status replace_file(const std::filesystem::path& from, const std::filesystem::path& to,
                    const std::string& what) {
  if (!::MoveFileExW(from.c_str(), to.c_str(), MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH))
    return last_error(what);
  return {};
}

status sync_folder(const std::filesystem::path&) {
  return {};
}

result<FolderLock> FolderLock::take(const std::filesystem::path& folder) {
  const std::filesystem::path lock_file = folder / ".drydb-lock";
  File file(::CreateFileW(lock_file.c_str(), GENERIC_READ | GENERIC_WRITE,
                          FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr,
                          OPEN_ALWAYS, FILE_ATTRIBUTE_HIDDEN, nullptr));
  if (!file.is_open()) return last_error("cannot open " + lock_file.string());
  if (!lock_byte(file.native(), 0, LOCKFILE_EXCLUSIVE_LOCK))
    return last_error("cannot lock " + folder.string());
  return FolderLock(std::move(file));
}

FolderLock::~FolderLock() {
  if (file_.is_open()) unlock_byte(file_.native(), 0);
}

void Region::release() noexcept {
  if (kind_ == Kind::mapping) ::UnmapViewOfFile(data_);
  if (kind_ == Kind::reserved) ::VirtualFree(data_, 0, MEM_RELEASE);
  kind_ = Kind::none;
}

result<Region> Region::map_file(const File& file, uint64_t size, const std::string& what) {
  if (size > SIZE_MAX) return Error(errc::out_of_memory, what + ": too large to map");
  HANDLE mapping = ::CreateFileMappingW(file.native(), nullptr, PAGE_READONLY, 0, 0, nullptr);
  if (mapping == nullptr) return last_error(what);
  void* base = ::MapViewOfFile(mapping, FILE_MAP_READ, 0, 0, static_cast<SIZE_T>(size));
  const DWORD code = ::GetLastError();
  ::CloseHandle(mapping);  // the view keeps the mapping
  if (base == nullptr) return error_of(what, code);
  Region r;
  r.data_ = static_cast<std::byte*>(base);
  r.size_ = r.span_ = size;
  r.kind_ = Kind::mapping;
  return r;
}

result<Region> Region::reserve(uint64_t size, const std::string& what) {
  // Large pages need a privilege most processes lack: small ones serve here.
  if (size > SIZE_MAX) return Error(errc::out_of_memory, what + ": too large");
  void* base =
      ::VirtualAlloc(nullptr, static_cast<SIZE_T>(size), MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
  if (base == nullptr)
    return Error(errc::out_of_memory, what + ": cannot reserve " + std::to_string(size) +
                                          " bytes: " + system_message(::GetLastError()));
  Region r;
  r.data_ = static_cast<std::byte*>(base);
  r.size_ = r.span_ = size;
  r.kind_ = Kind::reserved;
  return r;
}

status Region::make_read_only(const std::string& what) {
  DWORD old = 0;
  if (!::VirtualProtect(data_, static_cast<SIZE_T>(span_), PAGE_READONLY, &old))
    return last_error(what);
  return {};
}

}  // namespace platform
}  // namespace drydb

#endif  // _WIN32
