// Options for building and for opening a database.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <vector>

#include "drydb/page_filter.h"

namespace drydb {

class Executor;
class PageAllocator;

struct BuildOptions {
  // Bytes per page: a power of two from 512 to 65,536. Larger pages mean fewer,
  // shallower levels and longer allowed keys (max_key_length = page_size/4 - 64).
  uint32_t page_size = 4096;
  // Bytes of appended rows the builder keeps in memory (over all tables)
  // before it sorts them and spills them to a run file in temp_dir.
  size_t memory_budget = size_t{256} << 20;
  // Folder for spilled runs; empty = std::filesystem::temp_directory_path().
  // Run files are unlinked as soon as they are created, so a killed build
  // leaves none behind.
  std::filesystem::path temp_dir{};
  // Page filters, applied to every page in this order (see page_filter.h).
  // Filtered pages are stored packed rather than page-aligned, and a reader
  // decodes each into its page cache. Empty: pages stored as they are.
  std::vector<std::shared_ptr<PageFilter>> filters{};
  // Store the keys of each page of text/bytes keys after the prefix they
  // share (format 2.2): smaller files and faster searches where keys share
  // leading bytes (paths, URLs, names). A page holding a key longer than 256
  // bytes stores its keys whole. False writes pages as format 2.0 did.
  bool prefixed_keys = true;
  // Record the file's identity and seed every checksum with it (format 2.4,
  // docs/format.md "File identity"), each overflow run's with its first page
  // too (format 2.5): a reader then refuses a page of any other file, such as
  // another file copied over this one in place, and a run out of its place.
  // False writes checksums as format 2.3 did, for readers older than 2.4.
  bool file_identity = true;
};

// How a file's bytes are reached.
//
// mmap maps the file as it is. A mapped file must not be truncated or
// rewritten in place while open (a `truncate`, a `cp` over it): touching a
// page past a new, shorter end raises SIGBUS, which kills the process, and a
// page changed in place may return the changed bytes (pages are checked once,
// on first touch, and then trusted), as with LMDB and SQLite's mmap mode.
// drydb installs no signal handler: a library cannot own the process's
// SIGBUS. Replace files by rename (build_to_file does), which leaves the open
// mapping on the old file. Where the file cannot be trusted to stay put (others
// may write it, a tool reading whatever it is pointed at), use pread, or
// memory, which copies it at open: with pread a read past a new end is then
// errc::truncated, a failed read errc::io_error, a changed page not yet
// checked errc::corruption, never a crash (docs/errors.md, "Changing a file
// under an open database").
//
// memory reads the whole file at open into memory of its own, then read-only,
// and reads pages in place as mmap does. The huge pages (2 MiB) a file of that
// size or more fills are advised to be backed by transparent huge pages
// (Linux, where the system enables them for madvise; a file mapping gets
// 4 KiB pages on most file systems), so a descent's reads need fewer TLB
// entries. Gets on tables larger than the caches gain most (docs/benchmarks.md,
// "drydb, in memory"; side by side with mmap, gets took 0.82-0.87x their time
// on 16M-row tables, 0.84-0.97x on 1M-row ones, the same on a table the L2
// cache holds). The cost: memory the size of the file, private to the
// process (each process opening the file holds its own copy, where mappings
// share the system's page cache), and a read of all of it at open; filtered
// pages are decoded from it into the page cache, as from a mapping. Memory
// that cannot be reserved (an address-space limit, strict overcommit) is
// errc::out_of_memory from open; under Linux's default overcommit a shortage
// met while reading is the system's to settle, as for any allocation. Once
// open, a change of the file is never seen; a change during the read can
// leave a copy of mixed versions, whose pages fail their checks as pread's
// would.
enum class StorageKind : uint8_t {
  mmap,    // map the file; unfiltered pages are read in place, no copy, no cache
           // (filtered pages are decoded from the mapping into the page cache)
  pread,   // positional reads into the page cache; safe when the file changes
  memory,  // the file read whole into (huge-page) memory at open, then read in place
};

struct OpenOptions {
  // mmap (the default) reads in place with no copy, but a file truncated in
  // place under it kills the reader with SIGBUS; pread never does, and memory
  // copies the file at open (see StorageKind).
  StorageKind storage = StorageKind::mmap;
  // Bound on the bytes of leaf and overflow pages the cache holds (pread and
  // custom storage). Internal pages are not counted: they stay resident for
  // the database's life once read (typically about 1% of a file; more for
  // long keys). Pages held by value handles or cursors may exceed the bound
  // until released. When it is at least the file's size, pages are never
  // evicted and reads take no reference counts.
  size_t page_cache_bytes = size_t{64} << 20;
  // Where cached page memory comes from; nullptr = operator new. Must outlive
  // the database.
  PageAllocator* allocator = nullptr;
  // Factories for the page filters a file names, tried before the process
  // registry (register_page_filter); for a filter needing what only this
  // database should have, such as a decryption key.
  std::vector<PageFilterRegistration> filters{};
  // Where the database's *_async queries run (async.h); nullptr = drydb's
  // default pool. Must outlive the database.
  Executor* executor = nullptr;
};

}  // namespace drydb
