// The C API (include/drydb/c.h) over the public C++ API.
//
// Every exported function runs its body through guarded(): no exception crosses into C (with
// exceptions on, a std::bad_alloc from a std::string or std::vector the library grows becomes
// DRYDB_OUT_OF_MEMORY; built with -fno-exceptions, there is nothing to catch and an allocation
// failure terminates, as in the C++ library). Every handle is checked by checked() before use.
//
// Handles are C++ structs behind the C names. Their memory comes from a Shells pool per kind
// and is never given back to the system: release clears the handle's tag to a "released" one
// and queues the memory, which is reused only after kQuarantine later releases of that kind. So
// a released handle passed again reads a live tag saying "released" instead of freed memory (and
// sanitizers see no use-after-free), for as long as its memory has not been reused.
//
// Sharded datasets need drydb::dataset (simdjson): DRYDB_C_DATASETS is 1 when CMake links it.
// Without it the dataset functions are still exported (one ABI whatever the build) and return
// DRYDB_INVALID_STATE.
#include "drydb/c.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <new>
#include <optional>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__linux__)
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>
#elif defined(_WIN32)
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>
#endif

#include "drydb/builder.h"
#include "drydb/database.h"
#include "drydb/error.h"
#include "drydb/index.h"
#include "drydb/key.h"
#include "drydb/page_filter.h"
#include "drydb/range.h"
#include "drydb/table.h"
#include "drydb/ulid.h"
#include "drydb/uuid.h"
#include "drydb/value.h"

#ifndef DRYDB_C_DATASETS
#define DRYDB_C_DATASETS 0
#endif
#if DRYDB_C_DATASETS
#include "drydb/live_dataset.h"
#include "drydb/sharded.h"
#endif

// The C statuses are drydb::errc's numbers; a binding may branch on either.
static_assert(DRYDB_OK == static_cast<int>(drydb::errc::ok));
static_assert(DRYDB_INVALID_ARGUMENT == static_cast<int>(drydb::errc::invalid_argument));
static_assert(DRYDB_KEY_TOO_LONG == static_cast<int>(drydb::errc::key_too_long));
static_assert(DRYDB_DUPLICATE_KEY == static_cast<int>(drydb::errc::duplicate_key));
static_assert(DRYDB_DUPLICATE_NAME == static_cast<int>(drydb::errc::duplicate_name));
static_assert(DRYDB_WRONG_KEY_TYPE == static_cast<int>(drydb::errc::wrong_key_type));
static_assert(DRYDB_NOT_FOUND == static_cast<int>(drydb::errc::not_found));
static_assert(DRYDB_IO_ERROR == static_cast<int>(drydb::errc::io_error));
static_assert(DRYDB_CORRUPTION == static_cast<int>(drydb::errc::corruption));
static_assert(DRYDB_TRUNCATED == static_cast<int>(drydb::errc::truncated));
static_assert(DRYDB_BAD_MAGIC == static_cast<int>(drydb::errc::bad_magic));
static_assert(DRYDB_UNSUPPORTED_VERSION == static_cast<int>(drydb::errc::unsupported_version));
static_assert(DRYDB_UNKNOWN_ENCODING == static_cast<int>(drydb::errc::unknown_encoding));
static_assert(DRYDB_UNKNOWN_FILTER == static_cast<int>(drydb::errc::unknown_filter));
static_assert(DRYDB_VALUE_TOO_LARGE == static_cast<int>(drydb::errc::value_too_large));
static_assert(DRYDB_OUT_OF_MEMORY == static_cast<int>(drydb::errc::out_of_memory));
static_assert(DRYDB_INVALID_STATE == static_cast<int>(drydb::errc::invalid_state));
// errc's last value; a new errc needs its DRYDB_ constant, name and static_assert above.
static_assert(static_cast<int>(drydb::errc::invalid_state) == 16);
// The C-only statuses stay clear of errc's range.
static_assert(DRYDB_BUFFER_TOO_SMALL > static_cast<int>(drydb::errc::invalid_state));

namespace {

// Tags in each handle's first field: a live handle of each kind, and a released one.
enum Tag : uint32_t {
  kDbTag = 0x64624442,  // "BDbd"
  kTableTag = 0x6462544c,
  kValueTag = 0x64625641,
  kCursorTag = 0x64624355,
  kRangeTag = 0x64625241,
  kBuilderTag = 0x64624255,
  kTableBuilderTag = 0x64625442,
  kIndexTag = 0x64624958,
  kValueBatchTag = 0x64625642,
  kDatasetTag = 0x64624453,
  kShardedTableTag = 0x64625354,
  kLiveDatasetTag = 0x64624c44,
  kReleasedTag = 0x64625846,
};

// How many released handles of a kind wait before their memory is reused: the window in which a
// second use of a released handle is still reported as such.
constexpr size_t kQuarantine = 64;

thread_local std::string last_error;

int record(int code, std::string_view message) noexcept {
#if defined(__cpp_exceptions)
  try {
    last_error.assign(message.data(), message.size());
  } catch (...) {
    // No memory for the message: keep the code, say why the message is short.
    last_error.clear();
  }
#else
  last_error.assign(message.data(), message.size());
#endif
  return code;
}

int record(int code, const char* fn, std::string_view what) noexcept {
#if defined(__cpp_exceptions)
  try {
    return record(code, std::string(fn) + ": " + std::string(what));
  } catch (...) {
    return record(code, fn);
  }
#else
  return record(code, std::string(fn) + ": " + std::string(what));
#endif
}

int record(const drydb::Error& e) noexcept {
  const int code = &e.code.category() == &drydb::error_category() ? e.code.value() : DRYDB_IO_ERROR;
  return record(code, e.message);
}

// Callers that use AVX (.NET's JIT, any program built for AVX) may enter with the upper halves
// of the vector registers dirty. On Intel CPUs every SSE instruction the library then runs pays
// for the mixed state (a merge with the upper half: a get from .NET took 178 ns where the same
// call from C took 20). vzeroupper at entry clears it; where the library is itself built for AVX
// its instructions are VEX-encoded and pay nothing. vzeroupper needs AVX: tested once, at load.
#if defined(__x86_64__) && !defined(__AVX__)
const bool cpu_has_avx = [] {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx") != 0;
}();
DRYDB_ALWAYS_INLINE void clear_upper_vector_state() noexcept {
  // The clobbers keep the compiler from holding a vector value across it (there is none at an
  // exported function's entry).
  if (cpu_has_avx)
    __asm__ volatile("vzeroupper" ::
                         : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",
                           "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
}
#else
DRYDB_ALWAYS_INLINE void clear_upper_vector_state() noexcept {}
#endif

// Runs an exported function's body; nothing it throws leaves. Every exported function that does
// more than return a constant runs through here, which enters it with clean vector state.
template <class F>
int guarded(const char* fn, F&& body) noexcept {
  clear_upper_vector_state();
#if defined(__cpp_exceptions)
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return record(DRYDB_OUT_OF_MEMORY, fn, "out of memory");
  } catch (...) {
    return record(DRYDB_INVALID_STATE, fn, "unexpected exception");
  }
#else
  (void)fn;
  return body();
#endif
}

// A pool of handle memory of one kind; see the file's comment. Reached through a pointer that is
// never deleted, so the memory stays reachable (no leak report) after static destruction.
template <class T>
class Shells {
 public:
  static Shells& get() {
    static Shells* shells = new Shells;
    return *shells;
  }
  // A default-constructed T's memory, or an old released one's (its fields reset by the caller).
  T* take() {
    {
      std::lock_guard lock(mu_);
      if (released_.size() > kQuarantine) {
        T* t = released_.front();
        released_.pop_front();
        return t;
      }
    }
    return new T;
  }
  void give_back(T* t) noexcept {
    t->tag = kReleasedTag;
    std::lock_guard lock(mu_);
#if defined(__cpp_exceptions)
    try {
      released_.push_back(t);
    } catch (...) {
      // Without memory to queue it, the shell is kept (leaked) rather than freed: freeing it
      // would let a stale handle read freed memory.
    }
#else
    released_.push_back(t);
#endif
  }

 private:
  std::mutex mu_;
  std::deque<T*> released_;
};

}  // namespace

// ---- the handles ----------------------------------------------------------------------------

struct drydb_db {
  std::atomic<uint32_t> tag{0};
  std::optional<drydb::ReadOnlyDatabase> db;
  std::vector<drydb_table*> tables;
  // Values, value batches, cursors and ranges created on this database and not yet released:
  // close refuses unless 0.
  std::atomic<uint64_t> live{0};
  // Set by close before it waits for the calls that hold the database (Hold): a call that
  // finds it set refuses, as for a closed database.
  std::atomic<bool> closing{false};
};

struct drydb_table {
  std::atomic<uint32_t> tag{0};
  drydb_db* db = nullptr;
  std::optional<drydb::ReadOnlyTable> table;
  std::vector<drydb_index*> indexes;  // declaration order; owned by the database like the table
};

struct drydb_index {
  std::atomic<uint32_t> tag{0};
  drydb_db* db = nullptr;
  std::optional<drydb::SecondaryIndex> index;
};

struct drydb_value {
  std::atomic<uint32_t> tag{0};
  // The holder's owner: a database, or (db NULL) a dataset.
  drydb_db* db = nullptr;
  drydb_dataset* dataset = nullptr;
  drydb::Value value;
  drydb::Row row;  // what an index get holds
};

struct drydb_value_batch {
  std::atomic<uint32_t> tag{0};
  drydb_db* db = nullptr;
  // Sized at creation (capacity slots each), so a get_many allocates nothing: keys holds the
  // keys that passed their checks, at[i] the caller's position of keys[i].
  size_t capacity = 0;
  std::vector<drydb::Key> keys;
  std::vector<size_t> at;
  std::vector<drydb::Value> values;
};

struct drydb_cursor {
  std::atomic<uint32_t> tag{0};
  drydb_db* db = nullptr;
  drydb::Cursor cursor;
  // Whether any call positioned it: a fresh cursor's next/prev start at its first/last row,
  // one that ran off the table stays off.
  bool positioned = false;
};

struct drydb_range {
  std::atomic<uint32_t> tag{0};
  // The holder's owner: a database, or (db NULL) a dataset.
  drydb_db* db = nullptr;
  drydb_dataset* dataset = nullptr;
  drydb::Range range;
  // The walk: not begun, on a row (it), or ended.
  std::optional<drydb::Range::iterator> it;
  bool ended = false;
  // An index query's walk (index = true): rows [first, first + count) of the index, in `order`,
  // read through icursor; walked says how many rows were given.
  bool index = false;
  drydb::IndexCursor icursor;
  uint64_t first = 0, count = 0, walked = 0;
  drydb::SortOrder order = drydb::SortOrder::ascending;
  // drydb_range_next_batch's rows, and the copies of the rows it gives before a batch's last:
  // sized by the first batch and kept for the holder's life, so later batches allocate nothing.
  std::vector<drydb_row> batch;
  std::vector<std::byte> batch_bytes;
#if DRYDB_C_DATASETS
  // A sharded table's walk (sharded = true): srange, stepped through sit (which points into
  // srange, so it is reset before srange changes).
  bool sharded = false;
  drydb::ShardedRange srange;
  std::optional<drydb::ShardedRange::iterator> sit;
#endif
};

// A generation of a sharded dataset: opened (`opened`), or pinned from a live dataset (`source`,
// with the reader slot the pin holds). Its tables' handles are made when it is.
struct drydb_dataset {
  std::atomic<uint32_t> tag{0};
#if DRYDB_C_DATASETS
  std::optional<drydb::ShardedDatabase> opened;
  drydb_live_dataset* source = nullptr;
  std::optional<drydb::LiveDataset::Reader> reader;
  std::optional<drydb::LiveDataset::Pinned> pinned;
  const drydb::ShardedDatabase* db = nullptr;  // opened's, or the pinned generation
#endif
  std::vector<drydb_sharded_table*> tables;
  // Values and ranges created on this dataset and not yet released: close refuses unless 0.
  std::atomic<uint64_t> live{0};
  std::atomic<bool> closing{false};  // as drydb_db's
};

struct drydb_sharded_table {
  std::atomic<uint32_t> tag{0};
  drydb_dataset* dataset = nullptr;
#if DRYDB_C_DATASETS
  std::optional<drydb::ShardedTable> table;
#endif
};

struct drydb_live_dataset {
  std::atomic<uint32_t> tag{0};
#if DRYDB_C_DATASETS
  std::optional<drydb::LiveDataset> live;
  // Readers not pinning now, reused by the next pins: a Reader per pin, as LiveDataset asks (one
  // Pinned per Reader at a time), without taking a slot under its lock for every pin.
  std::mutex mu;
  std::vector<drydb::LiveDataset::Reader> idle;
#endif
  std::atomic<uint64_t> pins{0};  // pinned datasets not yet closed: close waits for 0
};

// Where a builder is: open (taking tables, rows and indexes), building (a build_to_file or
// _to_memory runs, perhaps on another thread than a release), built (or released). Atomic:
// drydb_builder_release reads it while a build on another thread may move it on.
enum class BuilderPhase : uint8_t { open, building, built };

struct drydb_builder {
  std::atomic<uint32_t> tag{0};
  std::optional<drydb::DatabaseBuilder> builder;
  std::vector<drydb_table_builder*> tables;
  std::atomic<BuilderPhase> phase{BuilderPhase::open};
};

struct drydb_table_builder {
  std::atomic<uint32_t> tag{0};
  drydb_builder* owner = nullptr;
  drydb::TableBuilder* table = nullptr;
};

namespace {

template <class T>
struct TagOf;
template <>
struct TagOf<drydb_db> {
  static constexpr uint32_t tag = kDbTag;
  static constexpr const char* name = "database";
};
template <>
struct TagOf<drydb_table> {
  static constexpr uint32_t tag = kTableTag;
  static constexpr const char* name = "table";
};
template <>
struct TagOf<drydb_value> {
  static constexpr uint32_t tag = kValueTag;
  static constexpr const char* name = "value";
};
template <>
struct TagOf<drydb_cursor> {
  static constexpr uint32_t tag = kCursorTag;
  static constexpr const char* name = "cursor";
};
template <>
struct TagOf<drydb_range> {
  static constexpr uint32_t tag = kRangeTag;
  static constexpr const char* name = "range";
};
template <>
struct TagOf<drydb_index> {
  static constexpr uint32_t tag = kIndexTag;
  static constexpr const char* name = "index";
};
template <>
struct TagOf<drydb_value_batch> {
  static constexpr uint32_t tag = kValueBatchTag;
  static constexpr const char* name = "value batch";
};
template <>
struct TagOf<drydb_dataset> {
  static constexpr uint32_t tag = kDatasetTag;
  static constexpr const char* name = "dataset";
};
template <>
struct TagOf<drydb_sharded_table> {
  static constexpr uint32_t tag = kShardedTableTag;
  static constexpr const char* name = "sharded table";
};
template <>
struct TagOf<drydb_live_dataset> {
  static constexpr uint32_t tag = kLiveDatasetTag;
  static constexpr const char* name = "live dataset";
};
template <>
struct TagOf<drydb_builder> {
  static constexpr uint32_t tag = kBuilderTag;
  static constexpr const char* name = "builder";
};
template <>
struct TagOf<drydb_table_builder> {
  static constexpr uint32_t tag = kTableBuilderTag;
  static constexpr const char* name = "table builder";
};

// checked()'s answer for a handle that is not live: records why.
template <class T>
[[gnu::cold, gnu::noinline]] int not_live(const T* h, const char* fn) noexcept {
  if (h == nullptr)
    return record(DRYDB_INVALID_ARGUMENT, fn, std::string(TagOf<T>::name) + " is NULL");
  if (h->tag == kReleasedTag)
    return record(DRYDB_INVALID_ARGUMENT, fn,
                  std::string(TagOf<T>::name) + " has been released (or closed)");
  return record(DRYDB_INVALID_ARGUMENT, fn,
                std::string("not a drydb ") + TagOf<T>::name + " handle");
}

// DRYDB_OK if `h` is a live handle of its kind; else records why not. Inline: a query's handle
// checks are two compares, the message is built out of line.
template <class T>
inline int checked(const T* h, const char* fn) noexcept {
  if (h != nullptr && h->tag.load(std::memory_order_relaxed) == TagOf<T>::tag) [[likely]]
    return DRYDB_OK;
  return not_live(h, fn);
}

int null_argument(const char* fn, const char* what) noexcept {
  return record(DRYDB_INVALID_ARGUMENT, fn, std::string(what) + " is NULL");
}

#define DRYDB_CHECK(h)                                                      \
  do {                                                                      \
    if (int check_rc_ = checked((h), fn); check_rc_ != 0) return check_rc_; \
  } while (0)

// ---- holding a database for a call -----------------------------------------------------------
//
// A call that takes no holder (a count, get_copy, verify, a name or count accessor, a table's or
// index's lookup, a holder's creation) holds its database or dataset, the handle's owner, for its
// length, so that close, from any thread, waits for it rather than freeing what it reads. (A call
// that takes a value, batch, cursor or range holder needs no hold: close refuses while any holder
// is live.) Each thread publishes the owner it holds in a slot of its own, on a cache line no
// other thread writes: one store and a full fence a call, no read-modify-write of a shared line.
// Close marks the owner closing, then waits until no slot holds it. Both sides store, then load
// the other's word: either close sees the slot (and waits for the call), or the call sees the mark
// (and refuses as for a closed handle). Close therefore blocks while a call on another thread runs
// (each call is bounded; a verify of a large file is the longest). The order of each side's store
// and load: where Linux's membarrier (private expedited) is registered, close runs it between its
// store and its scan, which orders every other thread's plain store and load as a fence in each
// would, so a call pays a plain store (get_copy took 28 ns with a fence of its own where it takes
// 21 without a hold, on an Intel Xeon); Windows' FlushProcessWriteBuffers does the same. Elsewhere
// both sides are sequentially consistent.
// Whether close orders the calls' plain stores and loads itself (see above): registered once, at
// load. Not under ThreadSanitizer, which cannot see that order and checks the fenced one instead.
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define DRYDB_TSAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define DRYDB_TSAN 1
#endif
const bool close_fences_calls = [] {
#if defined(__linux__) && defined(SYS_membarrier) && !defined(DRYDB_TSAN)
  return syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
#elif defined(_WIN32) && !defined(DRYDB_TSAN)
  // Every Windows since Vista has FlushProcessWriteBuffers. Wine's (its ntdll exports
  // wine_get_version) was a stub that orders nothing until 2024 (Debian 12's wine 8.0 has the
  // stub), so under wine the calls keep the fenced order.
  const HMODULE ntdll = GetModuleHandleW(L"ntdll.dll");
  return ntdll == nullptr || GetProcAddress(ntdll, "wine_get_version") == nullptr;
#else
  return false;
#endif
}();

// The fence close runs for every thread's calls, where close_fences_calls.
void fence_calls() {
#if defined(__linux__) && defined(SYS_membarrier)
  if (syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) != 0) std::abort();
#elif defined(_WIN32)
  FlushProcessWriteBuffers();
#endif
}

class HoldSlots {
 public:
  struct alignas(64) Slot {
    std::atomic<const void*> owner{nullptr};
    bool taken = false;  // by a live thread; under mu_
  };

  static HoldSlots& get() {
    static HoldSlots* slots = new HoldSlots;  // never deleted: threads may outlive statics
    return *slots;
  }

  // A slot for a new thread: a free one, or a new one (addresses stay stable in the deque).
  Slot* take() {
    std::lock_guard lock(mu_);
    for (Slot& s : slots_)
      if (!s.taken) {
        s.taken = true;
        return &s;
      }
    Slot& s = slots_.emplace_back();
    s.taken = true;
    return &s;
  }

  void give_back(Slot* s) noexcept {
    std::lock_guard lock(mu_);
    s->owner.store(nullptr, std::memory_order_relaxed);
    s->taken = false;
  }

  // Returns once no thread holds `owner`, whose closing mark the caller has set.
  void wait_unheld(const void* owner) {
    while (held(owner))
      std::this_thread::yield();
  }

 private:
  bool held(const void* owner) {
    std::lock_guard lock(mu_);
    for (const Slot& s : slots_)
      if (s.owner.load(std::memory_order_seq_cst) == owner) return true;
    return false;
  }

  std::mutex mu_;
  std::deque<Slot> slots_;
};

// This thread's slot: taken at its first hold, given back when the thread exits (ThreadSlot).
// The hot path reads it with one load of a plain thread-local pointer: initial-exec, which glibc
// serves from the static TLS space it keeps for libraries loaded later (8 bytes of it), where
// the default model calls __tls_get_addr and checks an initialisation guard on every hold.
#if defined(__ELF__)
[[gnu::tls_model("initial-exec")]]
#endif
thread_local HoldSlots::Slot* this_thread_slot_ptr = nullptr;

// Owns a thread's slot: gives it back at the thread's exit.
class ThreadSlot {
 public:
  ThreadSlot() : slot_(HoldSlots::get().take()) {}
  ~ThreadSlot() {
    this_thread_slot_ptr = nullptr;
    HoldSlots::get().give_back(slot_);
  }
  ThreadSlot(const ThreadSlot&) = delete;
  ThreadSlot& operator=(const ThreadSlot&) = delete;
  HoldSlots::Slot* slot() const noexcept { return slot_; }

 private:
  HoldSlots::Slot* slot_;
};

[[gnu::noinline, gnu::cold]] HoldSlots::Slot* take_thread_slot() {
  static thread_local ThreadSlot owner;
  this_thread_slot_ptr = owner.slot();
  return this_thread_slot_ptr;
}

DRYDB_ALWAYS_INLINE std::atomic<const void*>& this_thread_slot() {
  HoldSlots::Slot* s = this_thread_slot_ptr;
  if (s == nullptr) [[unlikely]]
    s = take_thread_slot();
  return s->owner;
}

// The owner a handle's call holds: the database of a database, table or index handle, the
// dataset of a dataset or sharded table handle; nullptr (nothing to hold) for the others.
const drydb_db* owner_of(const drydb_db* h) noexcept {
  return h;
}
const drydb_db* owner_of(const drydb_table* h) noexcept {
  return h->db;
}
const drydb_db* owner_of(const drydb_index* h) noexcept {
  return h->db;
}
const drydb_dataset* owner_of(const drydb_dataset* h) noexcept {
  return h;
}
const drydb_dataset* owner_of(const drydb_sharded_table* h) noexcept {
  return h->dataset;
}
template <class H>
const drydb_db* owner_of(const H*) noexcept {
  return nullptr;
}

// Holds an owner for the rest of the call (see above); lets go when it goes out of scope.
class Hold {
 public:
  Hold() = default;
  Hold(const Hold&) = delete;
  Hold& operator=(const Hold&) = delete;
  ~Hold() {
    if (slot_ != nullptr) slot_->store(nullptr, std::memory_order_release);
  }

  // DRYDB_OK once `owner` (NULL: nothing to hold) is held; an error if it is closed or closing.
  template <class Owner>
  int enter(const Owner* owner, const char* fn) {
    if (owner == nullptr) return DRYDB_OK;
    std::atomic<const void*>& slot = this_thread_slot();
    bool closing;
    if (close_fences_calls) [[likely]] {
      slot.store(owner, std::memory_order_relaxed);
      std::atomic_signal_fence(std::memory_order_seq_cst);  // the compiler's order; close's fence
      closing = owner->closing.load(std::memory_order_relaxed);
    } else {
      slot.store(owner, std::memory_order_seq_cst);
      closing = owner->closing.load(std::memory_order_seq_cst);
    }
    if (closing) [[unlikely]] {
      slot.store(nullptr, std::memory_order_relaxed);
      return record(DRYDB_INVALID_ARGUMENT, fn,
                    std::is_same_v<Owner, drydb_db> ? "the database has been closed"
                                                    : "the dataset has been closed");
    }
    slot_ = &slot;
    return DRYDB_OK;
  }

 private:
  std::atomic<const void*>* slot_ = nullptr;
};

// Marks `owner` closing and waits until no call holds it: DRYDB_OK, or an error if another
// close of it is under way.
template <class Owner>
int start_closing(Owner* owner, const char* fn) {
  if (owner->closing.exchange(true, std::memory_order_seq_cst))
    return record(DRYDB_INVALID_ARGUMENT, fn,
                  std::is_same_v<Owner, drydb_db> ? "the database is being closed by another call"
                                                  : "the dataset is being closed by another call");
  if (close_fences_calls) fence_calls();
  HoldSlots::get().wait_unheld(owner);
  return DRYDB_OK;
}

// DRYDB_CHECK(h), then holds h's owner for the rest of the enclosing body.
#define DRYDB_HOLD(h)                                                                \
  DRYDB_CHECK(h);                                                                    \
  Hold hold_;                                                                        \
  do {                                                                               \
    if (int hold_rc_ = hold_.enter(owner_of(h), fn); hold_rc_ != 0) return hold_rc_; \
  } while (0)

#define DRYDB_CHECK_OUT(p)                            \
  do {                                                \
    if ((p) == nullptr) return null_argument(fn, #p); \
  } while (0)

// An exported accessor: *out = get() for a live handle h (get runs after the checks).
template <class H, class T, class Get>
int read_out(const char* fn, const H* h, T* out, Get get) {
  return guarded(fn, [&]() -> int {
    DRYDB_HOLD(h);
    DRYDB_CHECK_OUT(out);
    *out = get();
    return DRYDB_OK;
  });
}

// The drydb::Key a drydb_key stands for, in *out.
int to_key(const drydb_key* k, const char* fn, std::optional<drydb::Key>* out) {
  if (k == nullptr) return null_argument(fn, "key");
  switch (k->kind) {
    case DRYDB_KEY_BYTES:
      if (k->data == nullptr && k->size != 0)
        return record(DRYDB_INVALID_ARGUMENT, fn, "bytes key with NULL data and a nonzero size");
      if (k->size > UINT32_MAX) return record(DRYDB_KEY_TOO_LONG, fn, "key of 4 GiB or more");
      out->emplace(std::span<const std::byte>(static_cast<const std::byte*>(k->data), k->size));
      return DRYDB_OK;
    case DRYDB_KEY_INT64:
      out->emplace(k->i64);
      return DRYDB_OK;
    case DRYDB_KEY_UUID:
    case DRYDB_KEY_ULID: {
      if (k->data == nullptr || k->size != 16)
        return record(DRYDB_INVALID_ARGUMENT, fn, "a UUID or ULID key takes 16 bytes of data");
      if (k->kind == DRYDB_KEY_UUID) {
        drydb::Uuid u;
        std::memcpy(u.bytes.data(), k->data, 16);
        out->emplace(u);
      } else {
        drydb::Ulid u;
        std::memcpy(u.bytes.data(), k->data, 16);
        out->emplace(u);
      }
      return DRYDB_OK;
    }
    default:
      return record(DRYDB_INVALID_ARGUMENT, fn, "unknown key kind " + std::to_string(k->kind));
  }
}

// use(the drydb::Key `k` stands for), or to_key's error. Int64 and bytes keys are built in
// place, without to_key's std::optional: the per-call path of a get.
template <class F>
DRYDB_ALWAYS_INLINE int with_key(const drydb_key* k, const char* fn, F&& use) {
  if (k != nullptr) [[likely]] {
    if (k->kind == DRYDB_KEY_INT64) return use(drydb::Key(k->i64));
    if (k->kind == DRYDB_KEY_BYTES && (k->data != nullptr || k->size == 0) && k->size <= UINT32_MAX)
      return use(
          drydb::Key(std::span<const std::byte>(static_cast<const std::byte*>(k->data), k->size)));
  }
  std::optional<drydb::Key> key;
  if (int rc = to_key(k, fn, &key); rc != 0) return rc;
  return use(*key);
}

// A bound's drydb::KeyBound in *out and whether it is exclusive.
int to_bound(const drydb_bound* b, const char* fn, std::optional<drydb::KeyBound>* out,
             bool* exclusive) {
  *exclusive = false;
  if (b == nullptr || b->kind == DRYDB_UNBOUNDED) {
    out->emplace(drydb::unbounded);
    return DRYDB_OK;
  }
  if (b->kind != DRYDB_INCLUSIVE && b->kind != DRYDB_EXCLUSIVE)
    return record(DRYDB_INVALID_ARGUMENT, fn, "unknown bound kind " + std::to_string(b->kind));
  std::optional<drydb::Key> key;
  if (int rc = to_key(&b->key, fn, &key); rc != 0) return rc;
  out->emplace(*key);
  *exclusive = b->kind == DRYDB_EXCLUSIVE;
  return DRYDB_OK;
}

int to_options(const drydb_bound* start, const drydb_bound* end, int32_t order, const char* fn,
               std::optional<drydb::KeyBound>* s, std::optional<drydb::KeyBound>* e,
               drydb::RangeOptions* options) {
  if (order != DRYDB_ASCENDING && order != DRYDB_DESCENDING)
    return record(DRYDB_INVALID_ARGUMENT, fn, "unknown order " + std::to_string(order));
  if (int rc = to_bound(start, fn, s, &options->start_exclusive); rc != 0) return rc;
  if (int rc = to_bound(end, fn, e, &options->end_exclusive); rc != 0) return rc;
  options->order =
      order == DRYDB_ASCENDING ? drydb::SortOrder::ascending : drydb::SortOrder::descending;
  return DRYDB_OK;
}

drydb::OpenOptions open_options(const drydb_open_options* o) {
  drydb::OpenOptions options;
  if (o == nullptr) return options;
  options.storage = o->storage == DRYDB_STORAGE_PREAD    ? drydb::StorageKind::pread
                    : o->storage == DRYDB_STORAGE_MEMORY ? drydb::StorageKind::memory
                                                         : drydb::StorageKind::mmap;
  if (o->page_cache_bytes != 0) options.page_cache_bytes = o->page_cache_bytes;
  return options;
}

int check_open_options(const drydb_open_options* o, const char* fn) {
  if (o != nullptr && (o->storage < DRYDB_STORAGE_MMAP || o->storage > DRYDB_STORAGE_MEMORY))
    return record(DRYDB_INVALID_ARGUMENT, fn, "unknown storage " + std::to_string(o->storage));
  return DRYDB_OK;
}

// Wraps an opened database in a handle with one table handle per table.
int adopt(drydb::ReadOnlyDatabase db, drydb_db** out) {
  drydb_db* h = Shells<drydb_db>::get().take();
  h->db.emplace(std::move(db));
  h->tables.clear();
  h->live.store(0, std::memory_order_relaxed);
  h->closing.store(false, std::memory_order_relaxed);
  for (const drydb::ReadOnlyTable& t : h->db->tables()) {
    drydb_table* th = Shells<drydb_table>::get().take();
    th->db = h;
    th->table.emplace(t);
    th->indexes.clear();
    for (const drydb::SecondaryIndex& i : t.indexes()) {
      drydb_index* ih = Shells<drydb_index>::get().take();
      ih->db = h;
      ih->index.emplace(i);
      ih->tag = kIndexTag;
      th->indexes.push_back(ih);
    }
    th->tag = kTableTag;
    h->tables.push_back(th);
  }
  h->tag = kDbTag;
  *out = h;
  return DRYDB_OK;
}

void release_tables(drydb_db* h) noexcept {
  for (drydb_table* t : h->tables) {
    for (drydb_index* i : t->indexes) {
      // i->db stays: a call that read this handle's tag before the close reads it to find the
      // database, whose closing mark then refuses it.
      i->index.reset();
      Shells<drydb_index>::get().give_back(i);
    }
    t->indexes.clear();
    t->table.reset();
    Shells<drydb_table>::get().give_back(t);
  }
  h->tables.clear();
}

// Writes a row's views to the caller's out pointers (any may be NULL).
void put_row(std::span<const std::byte> k, std::span<const std::byte> v, const void** key,
             size_t* key_size, const void** value, size_t* value_size) noexcept {
  if (key != nullptr) *key = k.data();
  if (key_size != nullptr) *key_size = k.size();
  if (value != nullptr) *value = v.data();
  if (value_size != nullptr) *value_size = v.size();
}

// A cursor's outcome after a positioning call or step that gave `on_row`.
int cursor_outcome(drydb_cursor* c, bool on_row) {
  c->positioned = true;
  if (on_row) return DRYDB_OK;
  if (!c->cursor.status()) return record(c->cursor.status().error());
  return DRYDB_END;
}

int cursor_read(drydb_cursor* c, const void** key, size_t* key_size, const void** value,
                size_t* value_size) {
  if (!c->cursor.valid()) return DRYDB_END;
  const drydb::Entry e = c->cursor.entry();
  if (!c->cursor.status()) return record(c->cursor.status().error());  // an overflow run failed
  put_row(e.key, e.value, key, key_size, value, value_size);
  return DRYDB_OK;
}

int cursor_step(drydb_cursor* c, bool forward) {
  bool on_row;
  if (!c->positioned)
    on_row = forward ? c->cursor.first() : c->cursor.last();
  else
    on_row = forward ? c->cursor.next() : c->cursor.prev();
  return cursor_outcome(c, on_row);
}

// The drydb_key_kind of an encoding's keys.
int32_t c_key_kind(const drydb::KeyEncoding& e) noexcept {
  switch (e.kind()) {
    case drydb::KeyKind::int64:
      return DRYDB_KEY_INT64;
    case drydb::KeyKind::uuid:
      return DRYDB_KEY_UUID;
    case drydb::KeyKind::ulid:
      return DRYDB_KEY_ULID;
    case drydb::KeyKind::bytes:
      break;
  }
  return DRYDB_KEY_BYTES;
}

// The built-in encoding of a drydb_key_kind, in *out.
int encoding_of(int32_t key_kind, const char* fn, drydb::KeyEncoding* out) {
  switch (key_kind) {
    case DRYDB_KEY_BYTES:
      *out = drydb::KeyEncoding::bytes();
      return DRYDB_OK;
    case DRYDB_KEY_INT64:
      *out = drydb::KeyEncoding::int64();
      return DRYDB_OK;
    case DRYDB_KEY_UUID:
      *out = drydb::KeyEncoding::uuid_v7();
      return DRYDB_OK;
    case DRYDB_KEY_ULID:
      *out = drydb::KeyEncoding::ulid();
      return DRYDB_OK;
    default:
      return record(DRYDB_INVALID_ARGUMENT, fn, "unknown key kind " + std::to_string(key_kind));
  }
}

// DRYDB_OK for a builder's page size: 0 (the default) or a power of two from 512 to 65536.
int check_page_size(uint32_t page_size, const char* fn) {
  if (page_size != 0 &&
      (page_size < 512 || page_size > 65536 || (page_size & (page_size - 1)) != 0))
    return record(
        DRYDB_INVALID_ARGUMENT, fn,
        "page size " + std::to_string(page_size) + " is not a power of two from 512 to 65536");
  return DRYDB_OK;
}

// A builder handle over a new DatabaseBuilder.
int new_builder(drydb::BuildOptions options, drydb_builder** out) {
  drydb_builder* b = Shells<drydb_builder>::get().take();
  b->builder.emplace(std::move(options));
  b->tables.clear();
  b->phase.store(BuilderPhase::open, std::memory_order_relaxed);
  b->tag = kBuilderTag;
  *out = b;
  return DRYDB_OK;
}

// DRYDB_OK while `b` takes tables, rows and indexes; else records why not (a build runs or has
// run).
int check_open(const drydb_builder* b, const char* fn) {
  switch (b->phase.load(std::memory_order_acquire)) {
    case BuilderPhase::open:
      return DRYDB_OK;
    case BuilderPhase::building:
      return record(DRYDB_INVALID_STATE, fn, "a build is running on this builder");
    case BuilderPhase::built:
      break;
  }
  return record(DRYDB_INVALID_STATE, fn, "the builder has built");
}

// DRYDB_OK if `b` has not failed; else DRYDB_INVALID_STATE naming its first error (sticky: every
// call after a failed one refuses, and changes nothing).
int check_not_failed(const drydb_builder* b, const char* fn) {
  if (const drydb::status& st = b->builder->status(); !st)
    return record(DRYDB_INVALID_STATE, fn, "the builder failed earlier: " + st.error().message);
  return DRYDB_OK;
}

// Moves `b` from open to building for one build; else records why not.
int begin_build(drydb_builder* b, const char* fn) {
  BuilderPhase seen = BuilderPhase::open;
  if (b->phase.compare_exchange_strong(seen, BuilderPhase::building, std::memory_order_acq_rel))
    return DRYDB_OK;
  return record(DRYDB_INVALID_STATE, fn,
                seen == BuilderPhase::building ? "a build is running on this builder"
                                               : "a builder builds once");
}

// Ends the build begin_build began when it goes out of scope, however the build returns (a
// std::bad_alloc included): the builder is built, and may be released.
struct BuildEnd {
  drydb_builder* b;
  explicit BuildEnd(drydb_builder* builder) : b(builder) {}
  BuildEnd(const BuildEnd&) = delete;
  BuildEnd& operator=(const BuildEnd&) = delete;
  ~BuildEnd() { b->phase.store(BuilderPhase::built, std::memory_order_release); }
};

// A range handle between walks: positioned anew, its walk not begun.
void restart(drydb_range* r) noexcept {
  r->it.reset();
#if DRYDB_C_DATASETS
  r->sit.reset();
#endif
  r->ended = false;
  r->walked = 0;
}

// Empties a range holder before it is positioned anew (by a table or an index query). The parts
// of another kind of walk than the last are left as they are (already empty): resetting every
// part cost more than positioning a table range.
void clear_range(drydb_range* r) {
  restart(r);
  r->range = drydb::Range();
  if (r->index) {
    r->index = false;
    r->icursor = drydb::IndexCursor();
    r->first = r->count = 0;
  }
#if DRYDB_C_DATASETS
  if (r->sharded) {
    r->sharded = false;
    r->srange = drydb::ShardedRange();
  }
#endif
}

// A value or range holder is released: its owner (database or dataset) counts one less.
void holder_released(drydb_db* db, drydb_dataset* dataset) noexcept {
  if (db != nullptr) db->live.fetch_sub(1, std::memory_order_release);
  if (dataset != nullptr) dataset->live.fetch_sub(1, std::memory_order_release);
}

// Positions an index range's walk over the rows an IndexRange covers.
void adopt_index_range(drydb_range* r, const drydb::SecondaryIndex& index,
                       const drydb::IndexRange& ir) {
  r->index = true;
  r->first = ir.first_rank();
  r->count = ir.size();
  r->order = ir.order();
  r->icursor = index.cursor();
}

// The next row of an index range's walk.
int index_range_next(drydb_range* r, const void** key, size_t* key_size, const void** value,
                     size_t* value_size) {
  if (r->ended) return DRYDB_END;
  const bool ascending = r->order == drydb::SortOrder::ascending;
  bool on_row = false;
  if (r->walked < r->count) {
    if (r->walked == 0)
      on_row = r->icursor.seek_rank(ascending ? r->first : r->first + r->count - 1);
    else
      on_row = ascending ? r->icursor.next() : r->icursor.prev();
  }
  if (!on_row) {
    r->ended = true;
    if (!r->icursor.status()) return record(r->icursor.status().error());
    return DRYDB_END;
  }
  ++r->walked;
  const drydb::Entry e = r->icursor.entry();
  if (!r->icursor.status()) {
    r->ended = true;
    return record(r->icursor.status().error());
  }
  put_row(e.key, e.value, key, key_size, value, value_size);
  return DRYDB_OK;
}

// The next row of a walk over `range` (a table's Range or a sharded table's ShardedRange) by
// the iterator `it`, which the walk's first step makes.
template <class RangeT>
int iterator_step(drydb_range* r, RangeT& range, std::optional<typename RangeT::iterator>& it,
                  const void** key, size_t* key_size, const void** value, size_t* value_size) {
  if (r->ended) return DRYDB_END;
  if (!it)
    it.emplace(range.begin());
  else
    ++*it;
  if (*it == std::default_sentinel) {
    r->ended = true;
    if (!range.status()) return record(range.status().error());
    return DRYDB_END;
  }
  const drydb::Entry e = **it;
  put_row(e.key, e.value, key, key_size, value, value_size);
  return DRYDB_OK;
}

// drydb_range_next's step, whatever positioned the range.
int range_step(drydb_range* range, const void** key, size_t* key_size, const void** value,
               size_t* value_size) {
  if (range->index) return index_range_next(range, key, key_size, value, value_size);
#if DRYDB_C_DATASETS
  if (range->sharded)
    return iterator_step(range, range->srange, range->sit, key, key_size, value, value_size);
#endif
  return iterator_step(range, range->range, range->it, key, key_size, value, value_size);
}

// drydb_range_next_batch's bounds: a row larger than kBatchRowBytes (key and value) is not
// copied, it ends its batch (whose last row needs no copy); kBatchBytes bounds one batch's copies.
constexpr size_t kBatchRowBytes = 4096, kBatchBytes = 65536;

// Copies n bytes; the small keys and values of most rows without a call to memcpy.
DRYDB_ALWAYS_INLINE void copy_bytes(std::byte* to, const void* from, size_t n) noexcept {
  const auto* f = static_cast<const std::byte*>(from);
  if (n >= 8 && n <= 16) {  // two 8-byte moves, overlapping when n < 16
    uint64_t a, b;
    std::memcpy(&a, f, 8);
    std::memcpy(&b, f + n - 8, 8);
    std::memcpy(to, &a, 8);
    std::memcpy(to + n - 8, &b, 8);
  } else if (n >= 4 && n < 8) {
    uint32_t a, b;
    std::memcpy(&a, f, 4);
    std::memcpy(&b, f + n - 4, 4);
    std::memcpy(to, &a, 4);
    std::memcpy(to + n - 4, &b, 4);
  } else if (n != 0) {
    std::memcpy(to, f, n);
  }
}

// Fills range->batch with up to max_rows rows from step(row) (DRYDB_OK with the row, else the
// walk's end or error), copying each row but the last into range->batch_bytes: the next step may
// leave its page (or rebuild its key in the walk's buffer). *n: the rows filled. Returns the
// status that ended it (DRYDB_OK when max_rows or the copy bounds did).
template <class Step>
DRYDB_ALWAYS_INLINE int fill_batch(drydb_range* range, size_t max_rows, size_t* n, Step step) {
  drydb_row* out = range->batch.data();
  std::byte* copies = range->batch_bytes.data();
  size_t filled = 0, used = 0;
  int rc;
  while (true) {
    drydb_row& row = out[filled];
    rc = step(row);
    if (rc != DRYDB_OK) break;
    if (++filled == max_rows) break;
    const size_t bytes = row.key_size + row.value_size;
    if (bytes > kBatchRowBytes || used + bytes > kBatchBytes) [[unlikely]]
      break;
    copy_bytes(copies + used, row.key, row.key_size);
    row.key = copies + used;
    used += row.key_size;
    copy_bytes(copies + used, row.value, row.value_size);
    row.value = copies + used;
    used += row.value_size;
  }
  *n = filled;
  return rc;
}

// ---- the queries every table-like handle shares -----------------------------------------------
//
// A file's table (drydb_table), a dataset's table (drydb_sharded_table) and a secondary index
// (drydb_index) answer the same queries, and a database, a dataset and a table list their tables
// or indexes alike: each exported function of these is one of the templates below, given its
// name for errors. The overloads first say what differs by handle.

// The C++ object a query handle asks.
const drydb::ReadOnlyTable& queried(const drydb_table* h) {
  return *h->table;
}
const drydb::SecondaryIndex& queried(const drydb_index* h) {
  return *h->index;
}
#if DRYDB_C_DATASETS
const drydb::ShardedTable& queried(const drydb_sharded_table* h) {
  return *h->table;
}
#endif

// Whether a value or range holder was made on the database (or dataset) a handle belongs to,
// and the word for that owner in errors.
template <class Holder>
bool same_owner(const drydb_table* h, const Holder* x) noexcept {
  return x->db == h->db;
}
template <class Holder>
bool same_owner(const drydb_index* h, const Holder* x) noexcept {
  return x->db == h->db;
}
template <class Holder>
bool same_owner(const drydb_sharded_table* h, const Holder* x) noexcept {
  return x->dataset == h->dataset;
}
#if DRYDB_C_DATASETS
constexpr const char* owner_word(const drydb_sharded_table*) noexcept {
  return "dataset";
}
#endif
template <class H>
constexpr const char* owner_word(const H*) noexcept {
  return "database";
}

// A holder made on `owner`, a database or a dataset.
template <class Holder>
void set_owner(Holder* x, drydb_db* owner) noexcept {
  x->db = owner;
  x->dataset = nullptr;
}
template <class Holder>
void set_owner(Holder* x, drydb_dataset* owner) noexcept {
  x->db = nullptr;
  x->dataset = owner;
}

// Puts a query's range in a range holder: a table's walk, an index's or a dataset's.
int adopt(drydb_range* r, const drydb_table*, drydb::result<drydb::Range> x) {
  if (!x) return record(x.error());
  r->range = std::move(*x);
  return DRYDB_OK;
}
int adopt(drydb_range* r, const drydb_index* h, drydb::result<drydb::IndexRange> x) {
  if (!x) return record(x.error());
  adopt_index_range(r, *h->index, *x);
  return DRYDB_OK;
}
#if DRYDB_C_DATASETS
int adopt(drydb_range* r, const drydb_sharded_table*, drydb::result<drydb::ShardedRange> x) {
  if (!x) return record(x.error());
  r->srange = std::move(*x);
  r->sharded = true;
  return DRYDB_OK;
}
#endif

// The handles a parent lists (a database's or a dataset's tables, a table's indexes), what
// errors call them, and the C++ lookup whose error names the ones there are.
template <class Parent>
struct Members;
template <>
struct Members<drydb_db> {
  static constexpr const char *kind = "table", *plural = "tables", *position = "table index";
  static const std::vector<drydb_table*>& of(const drydb_db* p) { return p->tables; }
  static auto lookup(const drydb_db* p, std::string_view name) { return p->db->table(name); }
};
template <>
struct Members<drydb_table> {
  static constexpr const char *kind = "index", *plural = "indexes", *position = "index position";
  static const std::vector<drydb_index*>& of(const drydb_table* p) { return p->indexes; }
  static auto lookup(const drydb_table* p, std::string_view name) { return p->table->index(name); }
};
#if DRYDB_C_DATASETS
template <>
struct Members<drydb_dataset> {
  static constexpr const char *kind = "table", *plural = "tables", *position = "table index";
  static const std::vector<drydb_sharded_table*>& of(const drydb_dataset* p) { return p->tables; }
  static auto lookup(const drydb_dataset* p, std::string_view name) { return p->db->table(name); }
};
#endif

template <class Parent, class Member>
int member_at(const char* fn, const Parent* parent, size_t position, const Member** out) {
  return guarded(fn, [&]() -> int {
    DRYDB_HOLD(parent);
    DRYDB_CHECK_OUT(out);
    *out = nullptr;
    const auto& members = Members<Parent>::of(parent);
    if (position >= members.size())
      return record(DRYDB_INVALID_ARGUMENT, fn,
                    std::string(Members<Parent>::position) + " " + std::to_string(position) +
                        " of " + std::to_string(members.size()) + " " + Members<Parent>::plural);
    *out = members[position];
    return DRYDB_OK;
  });
}

template <class Parent, class Member>
int member_named(const char* fn, const Parent* parent, const char* name, size_t name_size,
                 const Member** out) {
  return guarded(fn, [&]() -> int {
    DRYDB_HOLD(parent);
    DRYDB_CHECK_OUT(out);
    *out = nullptr;
    if (name == nullptr && name_size != 0) return null_argument(fn, "name");
    const std::string_view wanted(name, name_size);
    for (Member* m : Members<Parent>::of(parent))
      if (queried(m).name() == wanted) {
        *out = m;
        return DRYDB_OK;
      }
    // The C++ API's message, which lists the ones there are.
    auto found = Members<Parent>::lookup(parent, wanted);
    return found ? record(DRYDB_NOT_FOUND, fn, std::string("no such ") + Members<Parent>::kind)
                 : record(found.error());
  });
}

template <class H>
int query_name(const char* fn, const H* h, const char** name, size_t* size) {
  return guarded(fn, [&]() -> int {
    DRYDB_HOLD(h);
    DRYDB_CHECK_OUT(name);
    DRYDB_CHECK_OUT(size);
    *name = queried(h).name().data();
    *size = queried(h).name().size();
    return DRYDB_OK;
  });
}

template <class H>
int query_encoding_id(const char* fn, const H* h, const char** id, size_t* size) {
  return guarded(fn, [&]() -> int {
    DRYDB_HOLD(h);
    DRYDB_CHECK_OUT(id);
    DRYDB_CHECK_OUT(size);
    // Encodings live for the process (key_encoding.h), so the id outlives the database.
    const std::string_view s = queried(h).encoding().id();
    *id = s.data();
    *size = s.size();
    return DRYDB_OK;
  });
}

template <class H>
int query_count_range(const char* fn, const H* h, const drydb_bound* start, const drydb_bound* end,
                      uint64_t* out) {
  return guarded(fn, [&]() -> int {
    DRYDB_HOLD(h);
    DRYDB_CHECK_OUT(out);
    *out = 0;
    std::optional<drydb::KeyBound> s, e;
    drydb::RangeOptions options;
    if (int rc = to_options(start, end, DRYDB_ASCENDING, fn, &s, &e, &options); rc != 0) return rc;
    auto n = queried(h).count_range(*s, *e, options);
    if (!n) return record(n.error());
    *out = *n;
    return DRYDB_OK;
  });
}

// A table's get (a file's or a dataset's), its value held by `value`.
template <class H>
int query_get(const char* fn, const H* h, const drydb_key* key, drydb_value* value,
              const void** data, size_t* size) {
  return guarded(fn, [&]() -> int {
    if (data != nullptr) *data = nullptr;
    if (size != nullptr) *size = 0;
    // No hold (Hold): the live holder of this database keeps close from freeing it.
    DRYDB_CHECK(h);
    DRYDB_CHECK(value);
    // The holder lets go of its previous answer first (a page cache may need the slot); an index
    // get's row only if it holds one.
    value->value = drydb::Value();
    if (value->row) value->row = drydb::Row();
    if (!same_owner(h, value)) [[unlikely]]
      return record(DRYDB_INVALID_ARGUMENT, fn,
                    std::string("the value holder belongs to another ") + owner_word(h));
    return with_key(key, fn, [&](const drydb::Key& k) -> int {
      auto v = queried(h).get(k);
      if (!v) [[unlikely]]
        return record(v.error());
      if (!*v) return DRYDB_END;
      value->value = std::move(*v);
      if (data != nullptr) *data = value->value.bytes().data();
      if (size != nullptr) *size = value->value.size();
      return DRYDB_OK;
    });
  });
}

// A table's get, copied into the caller's buffer.
template <class H>
int query_get_copy(const char* fn, const H* h, const drydb_key* key, void* buffer, size_t capacity,
                   size_t* size) {
  return guarded(fn, [&]() -> int {
    DRYDB_HOLD(h);
    DRYDB_CHECK_OUT(size);
    *size = 0;
    if (buffer == nullptr && capacity != 0) return null_argument(fn, "buffer");
    return with_key(key, fn, [&](const drydb::Key& k) -> int {
      auto v = queried(h).get(k);
      if (!v) return record(v.error());
      if (!*v) return DRYDB_END;
      *size = v->size();
      if (v->size() > capacity)
        return record(DRYDB_BUFFER_TOO_SMALL, fn,
                      "the value has " + std::to_string(v->size()) + " bytes, the buffer " +
                          std::to_string(capacity));
      if (v->size() != 0) std::memcpy(buffer, v->bytes().data(), v->size());
      return DRYDB_OK;
    });
  });
}

// Empties `range` for a query of h and checks that it may hold one: DRYDB_OK or the error.
template <class H>
int take_range_holder(const char* fn, const H* h, drydb_range* range) {
  DRYDB_CHECK(h);
  DRYDB_CHECK(range);
  clear_range(range);
  if (!same_owner(h, range))
    return record(DRYDB_INVALID_ARGUMENT, fn,
                  std::string("the range holder belongs to another ") + owner_word(h));
  return DRYDB_OK;
}

template <class H>
int query_range(const char* fn, const H* h, const drydb_bound* start, const drydb_bound* end,
                int32_t order, drydb_range* range) {
  return guarded(fn, [&]() -> int {
    if (int rc = take_range_holder(fn, h, range); rc != DRYDB_OK) return rc;
    std::optional<drydb::KeyBound> s, e;
    drydb::RangeOptions options;
    if (int rc = to_options(start, end, order, fn, &s, &e, &options); rc != 0) return rc;
    return adopt(range, h, queried(h).get_range(*s, *e, options));
  });
}

template <class H>
int query_prefix(const char* fn, const H* h, const void* prefix, size_t size, int32_t order,
                 drydb_range* range) {
  return guarded(fn, [&]() -> int {
    if (int rc = take_range_holder(fn, h, range); rc != DRYDB_OK) return rc;
    if (prefix == nullptr && size != 0) return null_argument(fn, "prefix");
    if (order != DRYDB_ASCENDING && order != DRYDB_DESCENDING)
      return record(DRYDB_INVALID_ARGUMENT, fn, "unknown order " + std::to_string(order));
    return adopt(
        range, h,
        queried(h).prefix(
            std::span<const std::byte>(static_cast<const std::byte*>(prefix), size),
            order == DRYDB_ASCENDING ? drydb::SortOrder::ascending : drydb::SortOrder::descending));
  });
}

// Empties a recycled holder's shell before it is handed out: no value, no walk.
void clear_holder(drydb_value* v) {
  v->value = drydb::Value();
  v->row = drydb::Row();
}
void clear_holder(drydb_range* r) {
  clear_range(r);
}

// A value or range holder made on `owner`, a database or a dataset, counted among its live
// holders.
template <class Holder, class Owner>
int new_holder(const char* fn, Owner* owner, Holder** out) {
  return guarded(fn, [&]() -> int {
    DRYDB_CHECK_OUT(out);
    *out = nullptr;
    DRYDB_HOLD(owner);
    Holder* h = Shells<Holder>::get().take();
    set_owner(h, owner);
    clear_holder(h);
    h->tag = TagOf<Holder>::tag;
    owner->live.fetch_add(1, std::memory_order_relaxed);
    *out = h;
    return DRYDB_OK;
  });
}

}  // namespace

// ---- statuses ---------------------------------------------------------------------------------

extern "C" {

const char* drydb_last_error_message(void) {
  return last_error.c_str();
}

const char* drydb_status_name(int status) {
  switch (status) {
    case DRYDB_OK:
      return "ok";
    case DRYDB_END:
      return "end";
    case DRYDB_INVALID_ARGUMENT:
      return "invalid_argument";
    case DRYDB_KEY_TOO_LONG:
      return "key_too_long";
    case DRYDB_DUPLICATE_KEY:
      return "duplicate_key";
    case DRYDB_DUPLICATE_NAME:
      return "duplicate_name";
    case DRYDB_WRONG_KEY_TYPE:
      return "wrong_key_type";
    case DRYDB_NOT_FOUND:
      return "not_found";
    case DRYDB_IO_ERROR:
      return "io_error";
    case DRYDB_CORRUPTION:
      return "corruption";
    case DRYDB_TRUNCATED:
      return "truncated";
    case DRYDB_BAD_MAGIC:
      return "bad_magic";
    case DRYDB_UNSUPPORTED_VERSION:
      return "unsupported_version";
    case DRYDB_UNKNOWN_ENCODING:
      return "unknown_encoding";
    case DRYDB_UNKNOWN_FILTER:
      return "unknown_filter";
    case DRYDB_VALUE_TOO_LARGE:
      return "value_too_large";
    case DRYDB_OUT_OF_MEMORY:
      return "out_of_memory";
    case DRYDB_INVALID_STATE:
      return "invalid_state";
    case DRYDB_BUFFER_TOO_SMALL:
      return "buffer_too_small";
    default:
      return "unknown";
  }
}

int drydb_decode_int64_key(const void* key, size_t size, int64_t* out) {
  static constexpr const char* fn = "drydb_decode_int64_key";
  return guarded(fn, [&]() -> int {
    DRYDB_CHECK_OUT(key);
    DRYDB_CHECK_OUT(out);
    if (size != 8)
      return record(DRYDB_INVALID_ARGUMENT, fn,
                    "an int64 key has 8 bytes, not " + std::to_string(size));
    *out = drydb::decode_int64_key(static_cast<const std::byte*>(key));
    return DRYDB_OK;
  });
}

// ---- opening ----------------------------------------------------------------------------------

int drydb_db_open(const char* path, const drydb_open_options* options, drydb_db** out) {
  static constexpr const char* fn = "drydb_db_open";
  return guarded(fn, [&]() -> int {
    DRYDB_CHECK_OUT(out);
    *out = nullptr;
    DRYDB_CHECK_OUT(path);
    if (int rc = check_open_options(options, fn); rc != 0) return rc;
    auto db = drydb::ReadOnlyDatabase::open(path, open_options(options));
    if (!db) return record(db.error());
    return adopt(std::move(*db), out);
  });
}

int drydb_db_open_memory(const void* data, size_t size, const drydb_open_options* options,
                         drydb_db** out) {
  static constexpr const char* fn = "drydb_db_open_memory";
  return guarded(fn, [&]() -> int {
    DRYDB_CHECK_OUT(out);
    *out = nullptr;
    if (data == nullptr && size != 0) return null_argument(fn, "data");
    if (int rc = check_open_options(options, fn); rc != 0) return rc;
    auto db = drydb::ReadOnlyDatabase::open_memory(
        std::span<const std::byte>(static_cast<const std::byte*>(data), size),
        open_options(options));
    if (!db) return record(db.error());
    return adopt(std::move(*db), out);
  });
}

int drydb_db_close(drydb_db* db) {
  static constexpr const char* fn = "drydb_db_close";
  return guarded(fn, [&]() -> int {
    DRYDB_CHECK(db);
    const auto refuse_live = [&](uint64_t live) {
      return record(DRYDB_INVALID_STATE, fn,
                    std::to_string(live) +
                        " values, value batches, cursors or ranges of this database are still "
                        "live: release them first");
    };
    if (const uint64_t live = db->live.load(std::memory_order_acquire); live != 0)
      return refuse_live(live);
    if (int rc = start_closing(db, fn); rc != DRYDB_OK) return rc;
    // A holder made while close waited (its creation held the database) keeps it open.
    if (const uint64_t live = db->live.load(std::memory_order_acquire); live != 0) {
      db->closing.store(false, std::memory_order_seq_cst);
      return refuse_live(live);
    }
    release_tables(db);
    db->db.reset();
    Shells<drydb_db>::get().give_back(db);
    return DRYDB_OK;
  });
}

int drydb_db_verify(const drydb_db* db) {
  static constexpr const char* fn = "drydb_db_verify";
  return guarded(fn, [&]() -> int {
    DRYDB_HOLD(db);
    if (auto st = db->db->verify(); !st) return record(st.error());
    return DRYDB_OK;
  });
}

int drydb_db_table_count(const drydb_db* db, size_t* out) {
  return read_out("drydb_db_table_count", db, out, [&] { return db->tables.size(); });
}

int drydb_db_table_at(const drydb_db* db, size_t index, const drydb_table** out) {
  return member_at("drydb_db_table_at", db, index, out);
}

int drydb_db_table(const drydb_db* db, const char* name, size_t name_size,
                   const drydb_table** out) {
  return member_named("drydb_db_table", db, name, name_size, out);
}

// ---- a table ----------------------------------------------------------------------------------

int drydb_table_name(const drydb_table* table, const char** name, size_t* size) {
  return query_name("drydb_table_name", table, name, size);
}

int drydb_table_key_kind(const drydb_table* table, int32_t* out) {
  return read_out("drydb_table_key_kind", table, out,
                  [&] { return c_key_kind(queried(table).encoding()); });
}

int drydb_table_encoding_id(const drydb_table* table, const char** id, size_t* size) {
  return query_encoding_id("drydb_table_encoding_id", table, id, size);
}

int drydb_table_count(const drydb_table* table, uint64_t* out) {
  return read_out("drydb_table_count", table, out, [&] { return queried(table).count(); });
}

int drydb_table_count_range(const drydb_table* table, const drydb_bound* start,
                            const drydb_bound* end, uint64_t* out) {
  return query_count_range("drydb_table_count_range", table, start, end, out);
}

// ---- get --------------------------------------------------------------------------------------

int drydb_value_create(drydb_db* db, drydb_value** out) {
  return new_holder("drydb_value_create", db, out);
}

int drydb_value_release(drydb_value* value) {
  static constexpr const char* fn = "drydb_value_release";
  return guarded(fn, [&]() -> int {
    DRYDB_CHECK(value);
    value->value = drydb::Value();
    value->row = drydb::Row();
    holder_released(value->db, value->dataset);
    value->db = nullptr;
    value->dataset = nullptr;
    Shells<drydb_value>::get().give_back(value);
    return DRYDB_OK;
  });
}

int drydb_value_reset(drydb_value* value) {
  static constexpr const char* fn = "drydb_value_reset";
  return guarded(fn, [&]() -> int {
    DRYDB_CHECK(value);
    value->value = drydb::Value();
    value->row = drydb::Row();
    return DRYDB_OK;
  });
}

int drydb_table_get(const drydb_table* table, const drydb_key* key, drydb_value* value,
                    const void** data, size_t* size) {
  return query_get("drydb_table_get", table, key, value, data, size);
}

int drydb_table_get_copy(const drydb_table* table, const drydb_key* key, void* buffer,
                         size_t capacity, size_t* size) {
  return query_get_copy("drydb_table_get_copy", table, key, buffer, capacity, size);
}

// ---- cursors ----------------------------------------------------------------------------------

int drydb_cursor_create(const drydb_table* table, drydb_cursor** out) {
  static constexpr const char* fn = "drydb_cursor_create";
  return guarded(fn, [&]() -> int {
    DRYDB_CHECK_OUT(out);
    *out = nullptr;
    DRYDB_HOLD(table);
    drydb_cursor* c = Shells<drydb_cursor>::get().take();
    c->db = table->db;
    c->cursor = table->table->cursor();
    c->positioned = false;
    c->tag = kCursorTag;
    table->db->live.fetch_add(1, std::memory_order_relaxed);
    *out = c;
    return DRYDB_OK;
  });
}

int drydb_cursor_release(drydb_cursor* cursor) {
  static constexpr const char* fn = "drydb_cursor_release";
  return guarded(fn, [&]() -> int {
    DRYDB_CHECK(cursor);
    cursor->cursor = drydb::Cursor();
    cursor->db->live.fetch_sub(1, std::memory_order_release);
    cursor->db = nullptr;
    Shells<drydb_cursor>::get().give_back(cursor);
    return DRYDB_OK;
  });
}

int drydb_cursor_first(drydb_cursor* cursor) {
  static constexpr const char* fn = "drydb_cursor_first";
  return guarded(fn, [&]() -> int {
    DRYDB_CHECK(cursor);
    return cursor_outcome(cursor, cursor->cursor.first());
  });
}

int drydb_cursor_last(drydb_cursor* cursor) {
  static constexpr const char* fn = "drydb_cursor_last";
  return guarded(fn, [&]() -> int {
    DRYDB_CHECK(cursor);
    return cursor_outcome(cursor, cursor->cursor.last());
  });
}

int drydb_cursor_seek(drydb_cursor* cursor, const drydb_key* key) {
  static constexpr const char* fn = "drydb_cursor_seek";
  return guarded(fn, [&]() -> int {
    DRYDB_CHECK(cursor);
    std::optional<drydb::Key> k;
    if (int rc = to_key(key, fn, &k); rc != 0) return rc;
    return cursor_outcome(cursor, cursor->cursor.seek(*k));
  });
}

int drydb_cursor_seek_exact(drydb_cursor* cursor, const drydb_key* key) {
  static constexpr const char* fn = "drydb_cursor_seek_exact";
  return guarded(fn, [&]() -> int {
    DRYDB_CHECK(cursor);
    std::optional<drydb::Key> k;
    if (int rc = to_key(key, fn, &k); rc != 0) return rc;
    return cursor_outcome(cursor, cursor->cursor.seek_exact(*k));
  });
}

int drydb_cursor_seek_rank(drydb_cursor* cursor, uint64_t rank) {
  static constexpr const char* fn = "drydb_cursor_seek_rank";
  return guarded(fn, [&]() -> int {
    DRYDB_CHECK(cursor);
    return cursor_outcome(cursor, cursor->cursor.seek_rank(rank));
  });
}

int drydb_cursor_next(drydb_cursor* cursor) {
  static constexpr const char* fn = "drydb_cursor_next";
  return guarded(fn, [&]() -> int {
    DRYDB_CHECK(cursor);
    return cursor_step(cursor, true);
  });
}

int drydb_cursor_prev(drydb_cursor* cursor) {
  static constexpr const char* fn = "drydb_cursor_prev";
  return guarded(fn, [&]() -> int {
    DRYDB_CHECK(cursor);
    return cursor_step(cursor, false);
  });
}

int drydb_cursor_valid(const drydb_cursor* cursor, int* out) {
  return read_out("drydb_cursor_valid", cursor, out,
                  [&] { return cursor->cursor.valid() ? 1 : 0; });
}

int drydb_cursor_rank(const drydb_cursor* cursor, uint64_t* out) {
  static constexpr const char* fn = "drydb_cursor_rank";
  return guarded(fn, [&]() -> int {
    DRYDB_CHECK(cursor);
    DRYDB_CHECK_OUT(out);
    if (!cursor->cursor.valid())
      return record(DRYDB_INVALID_STATE, fn, "the cursor is not on a row");
    *out = cursor->cursor.rank();
    return DRYDB_OK;
  });
}

int drydb_cursor_current(drydb_cursor* cursor, const void** key, size_t* key_size,
                         const void** value, size_t* value_size) {
  static constexpr const char* fn = "drydb_cursor_current";
  return guarded(fn, [&]() -> int {
    DRYDB_CHECK(cursor);
    return cursor_read(cursor, key, key_size, value, value_size);
  });
}

int drydb_cursor_next_kv(drydb_cursor* cursor, const void** key, size_t* key_size,
                         const void** value, size_t* value_size) {
  static constexpr const char* fn = "drydb_cursor_next_kv";
  return guarded(fn, [&]() -> int {
    DRYDB_CHECK(cursor);
    if (int rc = cursor_step(cursor, true); rc != DRYDB_OK) return rc;
    return cursor_read(cursor, key, key_size, value, value_size);
  });
}

int drydb_cursor_prev_kv(drydb_cursor* cursor, const void** key, size_t* key_size,
                         const void** value, size_t* value_size) {
  static constexpr const char* fn = "drydb_cursor_prev_kv";
  return guarded(fn, [&]() -> int {
    DRYDB_CHECK(cursor);
    if (int rc = cursor_step(cursor, false); rc != DRYDB_OK) return rc;
    return cursor_read(cursor, key, key_size, value, value_size);
  });
}

// ---- ranges -----------------------------------------------------------------------------------

int drydb_range_create(drydb_db* db, drydb_range** out) {
  return new_holder("drydb_range_create", db, out);
}

int drydb_range_release(drydb_range* range) {
  static constexpr const char* fn = "drydb_range_release";
  return guarded(fn, [&]() -> int {
    DRYDB_CHECK(range);
    clear_range(range);
    holder_released(range->db, range->dataset);
    range->db = nullptr;
    range->dataset = nullptr;
    Shells<drydb_range>::get().give_back(range);
    return DRYDB_OK;
  });
}

int drydb_table_range(const drydb_table* table, const drydb_bound* start, const drydb_bound* end,
                      int32_t order, drydb_range* range) {
  return query_range("drydb_table_range", table, start, end, order, range);
}

int drydb_table_prefix(const drydb_table* table, const void* prefix, size_t size, int32_t order,
                       drydb_range* range) {
  return query_prefix("drydb_table_prefix", table, prefix, size, order, range);
}

int drydb_range_count(const drydb_range* range, uint64_t* out) {
  static constexpr const char* fn = "drydb_range_count";
  return guarded(fn, [&]() -> int {
    DRYDB_CHECK(range);
    DRYDB_CHECK_OUT(out);
#if DRYDB_C_DATASETS
    if (range->sharded) {
      *out = range->srange.size();
      return DRYDB_OK;
    }
#endif
    *out = range->index ? range->count : range->range.size();
    return DRYDB_OK;
  });
}

int drydb_range_next(drydb_range* range, const void** key, size_t* key_size, const void** value,
                     size_t* value_size) {
  static constexpr const char* fn = "drydb_range_next";
  return guarded(fn, [&]() -> int {
    DRYDB_CHECK(range);
    return range_step(range, key, key_size, value, value_size);
  });
}

int drydb_range_next_batch(drydb_range* range, size_t max_rows, const drydb_row** rows,
                           size_t* count) {
  static constexpr const char* fn = "drydb_range_next_batch";
  return guarded(fn, [&]() -> int {
    DRYDB_CHECK_OUT(rows);
    DRYDB_CHECK_OUT(count);
    *rows = nullptr;
    *count = 0;
    DRYDB_CHECK(range);
    if (max_rows == 0) return record(DRYDB_INVALID_ARGUMENT, fn, "max_rows is 0");
    max_rows = std::min<size_t>(max_rows, DRYDB_RANGE_BATCH_MAX);
    if (range->batch.size() < DRYDB_RANGE_BATCH_MAX) {
      range->batch.resize(DRYDB_RANGE_BATCH_MAX);
      range->batch_bytes.resize(kBatchBytes);
    }
    size_t n = 0;
    int rc;
    if (range->index
#if DRYDB_C_DATASETS
        || range->sharded
#endif
    ) {
      rc = fill_batch(range, max_rows, &n, [&](drydb_row& row) -> int {
        return range_step(range, &row.key, &row.key_size, &row.value, &row.value_size);
      });
    } else if (range->ended) {
      rc = DRYDB_END;
    } else {
      // A table's range: its iterator stepped here, inline, as a local the loop keeps in
      // registers (stepped in the holder, through range_step's per-row dispatch, each row cost
      // about 60 instructions), then put back on the batch's last row.
      bool fresh = !range->it;
      drydb::Range::iterator it = fresh ? range->range.begin() : *range->it;
      rc = fill_batch(range, max_rows, &n, [&](drydb_row& row) DRYDB_ALWAYS_INLINE_LAMBDA -> int {
        if (!fresh) ++it;
        fresh = false;
        if (it == std::default_sentinel) [[unlikely]] {
          range->ended = true;
          if (!range->range.status()) return record(range->range.status().error());
          return DRYDB_END;
        }
        const drydb::Entry e = *it;
        row = drydb_row{e.key.data(), e.key.size(), e.value.data(), e.value.size()};
        return DRYDB_OK;
      });
      range->it = it;
    }
    *rows = range->batch.data();
    *count = n;
    if (rc == DRYDB_END && n != 0) return DRYDB_OK;
    return rc;
  });
}

int drydb_range_rewind(drydb_range* range) {
  static constexpr const char* fn = "drydb_range_rewind";
  return guarded(fn, [&]() -> int {
    DRYDB_CHECK(range);
    restart(range);
    return DRYDB_OK;
  });
}

// ---- building ---------------------------------------------------------------------------------

int drydb_builder_create(uint32_t page_size, drydb_builder** out) {
  static constexpr const char* fn = "drydb_builder_create";
  return guarded(fn, [&]() -> int {
    DRYDB_CHECK_OUT(out);
    *out = nullptr;
    drydb::BuildOptions options;
    if (int rc = check_page_size(page_size, fn); rc != 0) return rc;
    if (page_size != 0) options.page_size = page_size;
    return new_builder(std::move(options), out);
  });
}

int drydb_builder_release(drydb_builder* builder) {
  static constexpr const char* fn = "drydb_builder_release";
  return guarded(fn, [&]() -> int {
    DRYDB_CHECK(builder);
    // Never under a running build (another thread's): it reads the builder until it returns.
    // Marking the builder built first also refuses a build that would start meanwhile.
    BuilderPhase seen = builder->phase.load(std::memory_order_acquire);
    while (seen != BuilderPhase::building &&
           !builder->phase.compare_exchange_weak(seen, BuilderPhase::built,
                                                 std::memory_order_acq_rel)) {
    }
    if (seen == BuilderPhase::building)
      return record(DRYDB_INVALID_STATE, fn,
                    "a build is running on this builder: release it after the build returns");
    for (drydb_table_builder* t : builder->tables) {
      t->table = nullptr;
      t->owner = nullptr;
      Shells<drydb_table_builder>::get().give_back(t);
    }
    builder->tables.clear();
    builder->builder.reset();
    Shells<drydb_builder>::get().give_back(builder);
    return DRYDB_OK;
  });
}

int drydb_builder_create_table(drydb_builder* builder, const char* name, size_t name_size,
                               int32_t key_kind, drydb_table_builder** out) {
  static constexpr const char* fn = "drydb_builder_create_table";
  return guarded(fn, [&]() -> int {
    DRYDB_CHECK_OUT(out);
    *out = nullptr;
    DRYDB_CHECK(builder);
    if (name == nullptr && name_size != 0) return null_argument(fn, "name");
    if (int rc = check_open(builder, fn); rc != 0) return rc;
    if (int rc = check_not_failed(builder, fn); rc != 0) return rc;
    drydb::KeyEncoding encoding = drydb::KeyEncoding::bytes();
    if (int rc = encoding_of(key_kind, fn, &encoding); rc != 0) return rc;
    drydb::TableBuilder& t =
        builder->builder->create_table(std::string_view(name, name_size), encoding);
    if (!builder->builder->status()) return record(builder->builder->status().error());
    builder->tables.reserve(builder->tables.size() + 1);  // so push_back below cannot throw
    drydb_table_builder* h = Shells<drydb_table_builder>::get().take();
    h->owner = builder;
    h->table = &t;
    h->tag = kTableBuilderTag;
    builder->tables.push_back(h);
    *out = h;
    return DRYDB_OK;
  });
}

int drydb_table_builder_append(drydb_table_builder* table, const drydb_key* key, const void* value,
                               size_t value_size) {
  static constexpr const char* fn = "drydb_table_builder_append";
  return guarded(fn, [&]() -> int {
    DRYDB_CHECK(table);
    if (value == nullptr && value_size != 0) return null_argument(fn, "value");
    if (int rc = check_open(table->owner, fn); rc != 0) return rc;
    if (int rc = check_not_failed(table->owner, fn); rc != 0) return rc;
    std::optional<drydb::Key> k;
    if (int rc = to_key(key, fn, &k); rc != 0) return rc;
    table->table->append(
        *k, std::span<const std::byte>(static_cast<const std::byte*>(value), value_size));
    if (!table->table->status()) return record(table->table->status().error());
    return DRYDB_OK;
  });
}

int drydb_builder_build_to_file(drydb_builder* builder, const char* path) {
  static constexpr const char* fn = "drydb_builder_build_to_file";
  return guarded(fn, [&]() -> int {
    DRYDB_CHECK(builder);
    DRYDB_CHECK_OUT(path);
    if (int rc = begin_build(builder, fn); rc != 0) return rc;
    const BuildEnd end{builder};
    if (auto st = builder->builder->build_to_file(path); !st) return record(st.error());
    return DRYDB_OK;
  });
}

int drydb_builder_build_to_memory(drydb_builder* builder, void** data, size_t* size) {
  static constexpr const char* fn = "drydb_builder_build_to_memory";
  return guarded(fn, [&]() -> int {
    DRYDB_CHECK_OUT(data);
    DRYDB_CHECK_OUT(size);
    *data = nullptr;
    *size = 0;
    DRYDB_CHECK(builder);
    if (int rc = begin_build(builder, fn); rc != 0) return rc;
    const BuildEnd end{builder};
    auto bytes = builder->builder->build_to_memory();
    if (!bytes) return record(bytes.error());
    void* p = std::malloc(bytes->size() == 0 ? 1 : bytes->size());
    if (p == nullptr) return record(DRYDB_OUT_OF_MEMORY, fn, "out of memory");
    std::memcpy(p, bytes->data(), bytes->size());
    *data = p;
    *size = bytes->size();
    return DRYDB_OK;
  });
}

void drydb_free(void* data) {
  std::free(data);
}

// ---- secondary indexes ------------------------------------------------------------------------

int drydb_table_index_count(const drydb_table* table, size_t* out) {
  return read_out("drydb_table_index_count", table, out, [&] { return table->indexes.size(); });
}

int drydb_table_index_at(const drydb_table* table, size_t position, const drydb_index** out) {
  return member_at("drydb_table_index_at", table, position, out);
}

int drydb_table_index(const drydb_table* table, const char* name, size_t name_size,
                      const drydb_index** out) {
  return member_named("drydb_table_index", table, name, name_size, out);
}

int drydb_index_name(const drydb_index* index, const char** name, size_t* size) {
  return query_name("drydb_index_name", index, name, size);
}

int drydb_index_unique(const drydb_index* index, int* out) {
  return read_out("drydb_index_unique", index, out, [&] { return index->index->unique() ? 1 : 0; });
}

int drydb_index_key_kind(const drydb_index* index, int32_t* out) {
  return read_out("drydb_index_key_kind", index, out,
                  [&] { return c_key_kind(queried(index).encoding()); });
}

int drydb_index_encoding_id(const drydb_index* index, const char** id, size_t* size) {
  return query_encoding_id("drydb_index_encoding_id", index, id, size);
}

int drydb_index_count(const drydb_index* index, uint64_t* out) {
  return read_out("drydb_index_count", index, out, [&] { return queried(index).count(); });
}

int drydb_index_count_range(const drydb_index* index, const drydb_bound* start,
                            const drydb_bound* end, uint64_t* out) {
  return query_count_range("drydb_index_count_range", index, start, end, out);
}

int drydb_index_get(const drydb_index* index, const drydb_key* key, drydb_value* holder,
                    const void** key_out, size_t* key_size, const void** value,
                    size_t* value_size) {
  static constexpr const char* fn = "drydb_index_get";
  return guarded(fn, [&]() -> int {
    put_row({}, {}, key_out, key_size, value, value_size);
    if (key_out != nullptr) *key_out = nullptr;
    if (value != nullptr) *value = nullptr;
    DRYDB_CHECK(index);
    DRYDB_CHECK(holder);
    holder->value = drydb::Value();
    holder->row = drydb::Row();
    if (holder->db != index->db)
      return record(DRYDB_INVALID_ARGUMENT, fn, "the value holder belongs to another database");
    std::optional<drydb::Key> k;
    if (int rc = to_key(key, fn, &k); rc != 0) return rc;
    auto r = index->index->get(*k);
    if (!r) return record(r.error());
    if (!*r) return DRYDB_END;
    holder->row = std::move(*r);
    put_row(holder->row.key(), holder->row.value(), key_out, key_size, value, value_size);
    return DRYDB_OK;
  });
}

int drydb_index_range(const drydb_index* index, const drydb_bound* start, const drydb_bound* end,
                      int32_t order, drydb_range* range) {
  return query_range("drydb_index_range", index, start, end, order, range);
}

int drydb_index_get_all(const drydb_index* index, const drydb_key* key, drydb_range* range) {
  static constexpr const char* fn = "drydb_index_get_all";
  return guarded(fn, [&]() -> int {
    DRYDB_CHECK(index);
    DRYDB_CHECK(range);
    clear_range(range);
    if (range->db != index->db)
      return record(DRYDB_INVALID_ARGUMENT, fn, "the range holder belongs to another database");
    std::optional<drydb::Key> k;
    if (int rc = to_key(key, fn, &k); rc != 0) return rc;
    auto r = index->index->get_all(*k);
    if (!r) return record(r.error());
    adopt_index_range(range, *index->index, *r);
    return DRYDB_OK;
  });
}

int drydb_index_prefix(const drydb_index* index, const void* prefix, size_t size, int32_t order,
                       drydb_range* range) {
  return query_prefix("drydb_index_prefix", index, prefix, size, order, range);
}

int drydb_range_index_key(drydb_range* range, const void** key, size_t* size) {
  static constexpr const char* fn = "drydb_range_index_key";
  return guarded(fn, [&]() -> int {
    DRYDB_CHECK(range);
    DRYDB_CHECK_OUT(key);
    DRYDB_CHECK_OUT(size);
    *key = nullptr;
    *size = 0;
    if (!range->index)
      return record(DRYDB_INVALID_STATE, fn, "the range is not positioned by an index query");
    if (range->walked == 0 || range->ended || !range->icursor.valid())
      return record(DRYDB_INVALID_STATE, fn, "the range is not on a row");
    const std::span<const std::byte> k = range->icursor.index_key();
    if (!range->icursor.status()) return record(range->icursor.status().error());
    *key = k.data();
    *size = k.size();
    return DRYDB_OK;
  });
}

// ---- get_many ---------------------------------------------------------------------------------

int drydb_value_batch_create(drydb_db* db, size_t capacity, drydb_value_batch** out) {
  static constexpr const char* fn = "drydb_value_batch_create";
  return guarded(fn, [&]() -> int {
    DRYDB_CHECK_OUT(out);
    *out = nullptr;
    DRYDB_HOLD(db);
    if (capacity == 0) return record(DRYDB_INVALID_ARGUMENT, fn, "a batch of 0 slots");
    if (capacity > (size_t{1} << 32))
      return record(DRYDB_INVALID_ARGUMENT, fn,
                    "a batch of " + std::to_string(capacity) + " slots (at most 2^32)");
    drydb_value_batch* b = Shells<drydb_value_batch>::get().take();
    b->db = db;
    b->keys.clear();
    b->at.clear();
    b->values.clear();
#if defined(__cpp_exceptions)
    try {
#endif
      b->keys.reserve(capacity);
      b->at.reserve(capacity);
      b->values.resize(capacity);
#if defined(__cpp_exceptions)
    } catch (...) {
      b->db = nullptr;
      Shells<drydb_value_batch>::get().give_back(b);
      throw;
    }
#endif
    b->capacity = capacity;
    b->tag = kValueBatchTag;
    db->live.fetch_add(1, std::memory_order_relaxed);
    *out = b;
    return DRYDB_OK;
  });
}

int drydb_value_batch_release(drydb_value_batch* batch) {
  static constexpr const char* fn = "drydb_value_batch_release";
  return guarded(fn, [&]() -> int {
    DRYDB_CHECK(batch);
    // The memory goes too: a released shell keeps only its tag's worth of state.
    std::vector<drydb::Value>().swap(batch->values);
    std::vector<drydb::Key>().swap(batch->keys);
    std::vector<size_t>().swap(batch->at);
    batch->capacity = 0;
    batch->db->live.fetch_sub(1, std::memory_order_release);
    batch->db = nullptr;
    Shells<drydb_value_batch>::get().give_back(batch);
    return DRYDB_OK;
  });
}

int drydb_value_batch_reset(drydb_value_batch* batch) {
  static constexpr const char* fn = "drydb_value_batch_reset";
  return guarded(fn, [&]() -> int {
    DRYDB_CHECK(batch);
    for (drydb::Value& v : batch->values)
      v = drydb::Value();
    return DRYDB_OK;
  });
}

int drydb_table_get_many(const drydb_table* table, const drydb_key* keys, size_t count,
                         drydb_value_batch* batch, int32_t* statuses, drydb_view* views) {
  static constexpr const char* fn = "drydb_table_get_many";
  return guarded(fn, [&]() -> int {
    DRYDB_CHECK(table);
    DRYDB_CHECK(batch);
    for (drydb::Value& v : batch->values)
      v = drydb::Value();
    if (batch->db != table->db)
      return record(DRYDB_INVALID_ARGUMENT, fn, "the value batch belongs to another database");
    if (count == 0) return DRYDB_OK;
    DRYDB_CHECK_OUT(keys);
    DRYDB_CHECK_OUT(statuses);
    DRYDB_CHECK_OUT(views);
    if (count > batch->capacity)
      return record(
          DRYDB_INVALID_ARGUMENT, fn,
          std::to_string(count) + " keys for a batch of " + std::to_string(batch->capacity));
    // Each key's own checks first: a key that fails them gets its status, the rest are looked
    // up together (get_many fails a whole batch for one bad key).
    const drydb::KeyKind kind = table->table->encoding().kind();
    int result = DRYDB_OK;
    batch->keys.clear();
    batch->at.clear();
    for (size_t i = 0; i < count; ++i) {
      views[i] = drydb_view{nullptr, 0};
      std::optional<drydb::Key> k;
      int rc = to_key(&keys[i], fn, &k);
      if (rc == DRYDB_OK && k->kind() != kind)
        rc = record(DRYDB_WRONG_KEY_TYPE, fn,
                    "key " + std::to_string(i) + " is of another kind than table " +
                        std::string(table->table->name()) + "'s keys");
      statuses[i] = rc;
      if (rc != DRYDB_OK) {
        result = rc;
        continue;
      }
      batch->keys.push_back(*k);  // within the reserved capacity: no allocation
      batch->at.push_back(i);
    }
    const size_t n = batch->keys.size();
    std::span<drydb::Value> values(batch->values.data(), n);
    if (!table->table->get_many(batch->keys, values)) {
      // A page failed to read or check: ask key by key, to give each its own status.
      for (size_t j = 0; j < n; ++j) {
        auto v = table->table->get(batch->keys[j]);
        if (!v) {
          statuses[batch->at[j]] = result = record(v.error());
          continue;
        }
        values[j] = std::move(*v);
      }
    }
    for (size_t j = 0; j < n; ++j) {
      const size_t i = batch->at[j];
      if (statuses[i] != DRYDB_OK) continue;
      if (!values[j]) {
        statuses[i] = DRYDB_END;
        continue;
      }
      views[i] = drydb_view{values[j].bytes().data(), values[j].size()};
    }
    return result;
  });
}

// ---- building: options, indexes, miss filters --------------------------------------------------

int drydb_builder_create_with_options(const drydb_builder_options* o, drydb_builder** out) {
  static constexpr const char* fn = "drydb_builder_create_with_options";
  return guarded(fn, [&]() -> int {
    DRYDB_CHECK_OUT(out);
    *out = nullptr;
    drydb::BuildOptions options;
    if (o != nullptr) {
      if (int rc = check_page_size(o->page_size, fn); rc != 0) return rc;
      if (o->page_size != 0) options.page_size = o->page_size;
      if (o->memory_budget != 0) options.memory_budget = o->memory_budget;
      if (o->temp_dir != nullptr) options.temp_dir = o->temp_dir;
      switch (o->compression) {
        case DRYDB_COMPRESSION_NONE:
          break;
        case DRYDB_COMPRESSION_LZ4:
          options.filters.push_back(drydb::filters::lz4());
          break;
        case DRYDB_COMPRESSION_ZSTD: {
          if (o->zstd_dictionary_bytes > drydb::filters::kMaxZstdDictionaryBytes)
            return record(DRYDB_INVALID_ARGUMENT, fn,
                          "a zstd dictionary of " + std::to_string(o->zstd_dictionary_bytes) +
                              " bytes (at most " +
                              std::to_string(drydb::filters::kMaxZstdDictionaryBytes) + ")");
          drydb::filters::ZstdOptions z;
          if (o->zstd_level != 0) z.level = o->zstd_level;
          z.dictionary_bytes = static_cast<size_t>(o->zstd_dictionary_bytes);
          options.filters.push_back(drydb::filters::zstd(z));
          break;
        }
        default:
          return record(DRYDB_INVALID_ARGUMENT, fn,
                        "unknown compression " + std::to_string(o->compression));
      }
      options.prefixed_keys = o->whole_keys == 0;
      options.file_identity = o->no_file_identity == 0;
    }
    return new_builder(std::move(options), out);
  });
}

int drydb_table_builder_add_index(drydb_table_builder* table, const char* name, size_t name_size,
                                  int unique, int32_t key_kind, drydb_index_key_fn index_key,
                                  void* ctx) {
  static constexpr const char* fn = "drydb_table_builder_add_index";
  return guarded(fn, [&]() -> int {
    DRYDB_CHECK(table);
    if (name == nullptr && name_size != 0) return null_argument(fn, "name");
    if (index_key == nullptr) return null_argument(fn, "index_key");
    if (int rc = check_open(table->owner, fn); rc != 0) return rc;
    if (int rc = check_not_failed(table->owner, fn); rc != 0) return rc;
    drydb::KeyEncoding encoding = drydb::KeyEncoding::bytes();
    if (int rc = encoding_of(key_kind, fn, &encoding); rc != 0) return rc;
    table->table->add_secondary_index(
        std::string_view(name, name_size), unique != 0, encoding,
        [index_key, ctx](std::span<const std::byte> key, std::span<const std::byte> value)
            -> drydb::result<std::optional<drydb::IndexKey>> {
          drydb_key out{};
          out.kind = -1;
          const int rc = index_key(ctx, key.data(), key.size(), value.data(), value.size(), &out);
          if (rc == DRYDB_END) return std::optional<drydb::IndexKey>();
          if (rc != DRYDB_OK) {
            const bool errc_value = rc >= DRYDB_INVALID_ARGUMENT && rc <= DRYDB_INVALID_STATE;
            return drydb::Error(
                errc_value ? static_cast<drydb::errc>(rc) : drydb::errc::invalid_argument,
                std::string("the index key function returned ") + drydb_status_name(rc) +
                    (errc_value ? "" : " (" + std::to_string(rc) + ")"));
          }
          std::optional<drydb::Key> k;
          if (int bad = to_key(&out, "the index key function", &k); bad != 0)
            return drydb::Error(static_cast<drydb::errc>(bad), last_error);
          return std::optional<drydb::IndexKey>(std::in_place, *k);
        });
    if (!table->table->status()) return record(table->table->status().error());
    return DRYDB_OK;
  });
}

int drydb_table_builder_add_miss_filter(drydb_table_builder* table, uint32_t bits_per_key) {
  static constexpr const char* fn = "drydb_table_builder_add_miss_filter";
  return guarded(fn, [&]() -> int {
    DRYDB_CHECK(table);
    if (int rc = check_open(table->owner, fn); rc != 0) return rc;
    if (int rc = check_not_failed(table->owner, fn); rc != 0) return rc;
    table->table->add_miss_filter(bits_per_key);
    if (!table->table->status()) return record(table->table->status().error());
    return DRYDB_OK;
  });
}

int drydb_table_miss_filter_bits(const drydb_table* table, uint32_t* out) {
  return read_out("drydb_table_miss_filter_bits", table, out,
                  [&] { return table->table->info().miss_filter_bits_per_key; });
}

}  // extern "C"

// ---- sharded datasets -------------------------------------------------------------------------

#if DRYDB_C_DATASETS

namespace {

drydb::ShardedOptions sharded_options(const drydb_open_options* o) {
  drydb::ShardedOptions options;
  options.open = open_options(o);
  return options;
}

// Gives back a dataset handle's tables, pin and reader (to its live dataset's idle readers), and
// the handle. Requires: no holder of it live.
void discard_dataset(drydb_dataset* h) noexcept {
  for (drydb_sharded_table* t : h->tables) {
    t->table.reset();  // t->dataset stays, as a table's db does (release_tables)
    Shells<drydb_sharded_table>::get().give_back(t);
  }
  h->tables.clear();
  h->db = nullptr;
  h->opened.reset();
  h->pinned.reset();  // the slot is idle from here: a refresh may release the generation
  if (h->reader) {
    drydb_live_dataset* live = h->source;
    {
      std::lock_guard lock(live->mu);
#if defined(__cpp_exceptions)
      try {
        live->idle.push_back(std::move(*h->reader));
      } catch (...) {
        // No memory to keep the reader for reuse: it is destroyed below, freeing its slot.
      }
#else
      live->idle.push_back(std::move(*h->reader));
#endif
    }
    h->reader.reset();
    live->pins.fetch_sub(1, std::memory_order_release);
  }
  h->source = nullptr;
  Shells<drydb_dataset>::get().give_back(h);
}

// Makes the table handles of a dataset handle whose db is set, and hands it out.
int adopt_dataset(drydb_dataset* h, drydb_dataset** out) {
#if defined(__cpp_exceptions)
  try {
#endif
    const std::vector<drydb::ShardedTable> tables = h->db->tables();
    h->tables.reserve(tables.size());
    for (const drydb::ShardedTable& t : tables) {
      drydb_sharded_table* th = Shells<drydb_sharded_table>::get().take();
      th->dataset = h;
      th->table.emplace(t);
      th->tag = kShardedTableTag;
      h->tables.push_back(th);  // within the reserved capacity
    }
#if defined(__cpp_exceptions)
  } catch (...) {
    discard_dataset(h);
    throw;
  }
#endif
  h->live.store(0, std::memory_order_relaxed);
  h->tag = kDatasetTag;
  *out = h;
  return DRYDB_OK;
}

// A fresh dataset handle's memory, its fields cleared (a reused shell keeps old values).
drydb_dataset* new_dataset() {
  drydb_dataset* h = Shells<drydb_dataset>::get().take();
  h->tables.clear();
  h->db = nullptr;
  h->source = nullptr;
  h->live.store(0, std::memory_order_relaxed);
  h->closing.store(false, std::memory_order_relaxed);
  return h;
}

}  // namespace

extern "C" {

int drydb_dataset_open(const char* path, const drydb_open_options* options, drydb_dataset** out) {
  static constexpr const char* fn = "drydb_dataset_open";
  return guarded(fn, [&]() -> int {
    DRYDB_CHECK_OUT(out);
    *out = nullptr;
    DRYDB_CHECK_OUT(path);
    if (int rc = check_open_options(options, fn); rc != 0) return rc;
    auto db = drydb::ShardedDatabase::open(path, sharded_options(options));
    if (!db) return record(db.error());
    drydb_dataset* h = new_dataset();
    h->opened.emplace(std::move(*db));
    h->db = &*h->opened;
    return adopt_dataset(h, out);
  });
}

int drydb_dataset_close(drydb_dataset* dataset) {
  static constexpr const char* fn = "drydb_dataset_close";
  return guarded(fn, [&]() -> int {
    DRYDB_CHECK(dataset);
    const auto refuse_live = [&](uint64_t live) {
      return record(DRYDB_INVALID_STATE, fn,
                    std::to_string(live) +
                        " values or ranges of this dataset are still live: release them first");
    };
    if (const uint64_t live = dataset->live.load(std::memory_order_acquire); live != 0)
      return refuse_live(live);
    if (int rc = start_closing(dataset, fn); rc != DRYDB_OK) return rc;
    if (const uint64_t live = dataset->live.load(std::memory_order_acquire); live != 0) {
      dataset->closing.store(false, std::memory_order_seq_cst);
      return refuse_live(live);
    }
    discard_dataset(dataset);
    return DRYDB_OK;
  });
}

int drydb_dataset_generation(const drydb_dataset* dataset, uint64_t* out) {
  return read_out("drydb_dataset_generation", dataset, out,
                  [&] { return dataset->db->generation(); });
}

int drydb_dataset_shard_count(const drydb_dataset* dataset, uint32_t* out) {
  return read_out("drydb_dataset_shard_count", dataset, out,
                  [&] { return static_cast<uint32_t>(dataset->db->shard_count()); });
}

int drydb_dataset_verify(const drydb_dataset* dataset) {
  static constexpr const char* fn = "drydb_dataset_verify";
  return guarded(fn, [&]() -> int {
    DRYDB_HOLD(dataset);
    if (auto st = dataset->db->verify(); !st) return record(st.error());
    return DRYDB_OK;
  });
}

int drydb_dataset_table_count(const drydb_dataset* dataset, size_t* out) {
  return read_out("drydb_dataset_table_count", dataset, out,
                  [&] { return dataset->tables.size(); });
}

int drydb_dataset_table_at(const drydb_dataset* dataset, size_t index,
                           const drydb_sharded_table** out) {
  return member_at("drydb_dataset_table_at", dataset, index, out);
}

int drydb_dataset_table(const drydb_dataset* dataset, const char* name, size_t name_size,
                        const drydb_sharded_table** out) {
  return member_named("drydb_dataset_table", dataset, name, name_size, out);
}

int drydb_sharded_table_name(const drydb_sharded_table* table, const char** name, size_t* size) {
  return query_name("drydb_sharded_table_name", table, name, size);
}

int drydb_sharded_table_key_kind(const drydb_sharded_table* table, int32_t* out) {
  return read_out("drydb_sharded_table_key_kind", table, out,
                  [&] { return c_key_kind(queried(table).encoding()); });
}

int drydb_sharded_table_encoding_id(const drydb_sharded_table* table, const char** id,
                                    size_t* size) {
  return query_encoding_id("drydb_sharded_table_encoding_id", table, id, size);
}

int drydb_sharded_table_count(const drydb_sharded_table* table, uint64_t* out) {
  return read_out("drydb_sharded_table_count", table, out, [&] { return queried(table).count(); });
}

int drydb_sharded_table_shard_of(const drydb_sharded_table* table, const drydb_key* key,
                                 uint32_t* out) {
  static constexpr const char* fn = "drydb_sharded_table_shard_of";
  return guarded(fn, [&]() -> int {
    DRYDB_HOLD(table);
    DRYDB_CHECK_OUT(out);
    *out = 0;
    std::optional<drydb::Key> k;
    if (int rc = to_key(key, fn, &k); rc != 0) return rc;
    // The partition function routes encoded bytes: a key of another kind has none to route.
    if (k->kind() != table->table->encoding().kind())
      return record(
          DRYDB_WRONG_KEY_TYPE, fn,
          "a key of another kind than table '" + std::string(table->table->name()) + "''s keys");
    *out = table->table->shard_of(*k);
    return DRYDB_OK;
  });
}

int drydb_sharded_table_count_range(const drydb_sharded_table* table, const drydb_bound* start,
                                    const drydb_bound* end, uint64_t* out) {
  return query_count_range("drydb_sharded_table_count_range", table, start, end, out);
}

int drydb_dataset_value_create(drydb_dataset* dataset, drydb_value** out) {
  return new_holder("drydb_dataset_value_create", dataset, out);
}

int drydb_sharded_table_get(const drydb_sharded_table* table, const drydb_key* key,
                            drydb_value* value, const void** data, size_t* size) {
  return query_get("drydb_sharded_table_get", table, key, value, data, size);
}

int drydb_sharded_table_get_copy(const drydb_sharded_table* table, const drydb_key* key,
                                 void* buffer, size_t capacity, size_t* size) {
  return query_get_copy("drydb_sharded_table_get_copy", table, key, buffer, capacity, size);
}

int drydb_dataset_range_create(drydb_dataset* dataset, drydb_range** out) {
  return new_holder("drydb_dataset_range_create", dataset, out);
}

int drydb_sharded_table_range(const drydb_sharded_table* table, const drydb_bound* start,
                              const drydb_bound* end, int32_t order, drydb_range* range) {
  return query_range("drydb_sharded_table_range", table, start, end, order, range);
}

int drydb_sharded_table_prefix(const drydb_sharded_table* table, const void* prefix, size_t size,
                               int32_t order, drydb_range* range) {
  return query_prefix("drydb_sharded_table_prefix", table, prefix, size, order, range);
}

// ---- live datasets ----------------------------------------------------------------------------

int drydb_live_dataset_open(const char* path, const drydb_open_options* options,
                            drydb_live_dataset** out) {
  static constexpr const char* fn = "drydb_live_dataset_open";
  return guarded(fn, [&]() -> int {
    DRYDB_CHECK_OUT(out);
    *out = nullptr;
    DRYDB_CHECK_OUT(path);
    if (int rc = check_open_options(options, fn); rc != 0) return rc;
    auto live = drydb::LiveDataset::open(path, sharded_options(options));
    if (!live) return record(live.error());
    drydb_live_dataset* h = Shells<drydb_live_dataset>::get().take();
    h->live.emplace(std::move(*live));
    h->idle.clear();
    h->pins.store(0, std::memory_order_relaxed);
    h->tag = kLiveDatasetTag;
    *out = h;
    return DRYDB_OK;
  });
}

int drydb_live_dataset_close(drydb_live_dataset* live) {
  static constexpr const char* fn = "drydb_live_dataset_close";
  return guarded(fn, [&]() -> int {
    DRYDB_CHECK(live);
    if (const uint64_t pins = live->pins.load(std::memory_order_acquire); pins != 0)
      return record(DRYDB_INVALID_STATE, fn,
                    std::to_string(pins) +
                        " pinned datasets of this live dataset are still open: close them first");
    live->idle.clear();  // every Reader before the LiveDataset, as it requires
    live->live.reset();
    Shells<drydb_live_dataset>::get().give_back(live);
    return DRYDB_OK;
  });
}

int drydb_live_dataset_refresh(drydb_live_dataset* live, int* swapped) {
  static constexpr const char* fn = "drydb_live_dataset_refresh";
  return guarded(fn, [&]() -> int {
    if (swapped != nullptr) *swapped = 0;
    DRYDB_CHECK(live);
    auto r = live->live->refresh();
    if (!r) return record(r.error());
    if (swapped != nullptr) *swapped = *r ? 1 : 0;
    return DRYDB_OK;
  });
}

int drydb_live_dataset_generation(const drydb_live_dataset* live, uint64_t* out) {
  return read_out("drydb_live_dataset_generation", live, out,
                  [&] { return live->live->generation(); });
}

int drydb_live_dataset_retired(const drydb_live_dataset* live, size_t* out) {
  return read_out("drydb_live_dataset_retired", live, out, [&] { return live->live->retired(); });
}

int drydb_live_dataset_pin(drydb_live_dataset* live, drydb_dataset** out) {
  static constexpr const char* fn = "drydb_live_dataset_pin";
  return guarded(fn, [&]() -> int {
    DRYDB_CHECK_OUT(out);
    *out = nullptr;
    DRYDB_CHECK(live);
    drydb_dataset* h = new_dataset();
    {
      std::lock_guard lock(live->mu);
      if (!live->idle.empty()) {
        h->reader.emplace(std::move(live->idle.back()));
        live->idle.pop_back();
      }
    }
#if defined(__cpp_exceptions)
    try {
#endif
      if (!h->reader) h->reader.emplace(live->live->reader());
#if defined(__cpp_exceptions)
    } catch (...) {
      Shells<drydb_dataset>::get().give_back(h);
      throw;
    }
#endif
    h->source = live;
    live->pins.fetch_add(1, std::memory_order_relaxed);
    h->pinned.emplace(h->reader->pin());
    h->db = &**h->pinned;
    return adopt_dataset(h, out);  // on failure, the pin and reader go back
  });
}

}  // extern "C"

#else  // !DRYDB_C_DATASETS

namespace {
int no_datasets(const char* fn) noexcept {
  return record(DRYDB_INVALID_STATE, fn,
                "this libdrydb_c was built without sharded datasets (drydb::dataset needs "
                "simdjson)");
}
}  // namespace

#define DRYDB_NO_DATASETS(name, params) \
  int name params {                     \
    return no_datasets(#name);          \
  }

extern "C" {
DRYDB_NO_DATASETS(drydb_dataset_open, (const char*, const drydb_open_options*, drydb_dataset**))
DRYDB_NO_DATASETS(drydb_dataset_close, (drydb_dataset*))
DRYDB_NO_DATASETS(drydb_dataset_generation, (const drydb_dataset*, uint64_t*))
DRYDB_NO_DATASETS(drydb_dataset_shard_count, (const drydb_dataset*, uint32_t*))
DRYDB_NO_DATASETS(drydb_dataset_verify, (const drydb_dataset*))
DRYDB_NO_DATASETS(drydb_dataset_table_count, (const drydb_dataset*, size_t*))
DRYDB_NO_DATASETS(drydb_dataset_table_at,
                  (const drydb_dataset*, size_t, const drydb_sharded_table**))
DRYDB_NO_DATASETS(drydb_dataset_table,
                  (const drydb_dataset*, const char*, size_t, const drydb_sharded_table**))
DRYDB_NO_DATASETS(drydb_sharded_table_name, (const drydb_sharded_table*, const char**, size_t*))
DRYDB_NO_DATASETS(drydb_sharded_table_key_kind, (const drydb_sharded_table*, int32_t*))
DRYDB_NO_DATASETS(drydb_sharded_table_encoding_id,
                  (const drydb_sharded_table*, const char**, size_t*))
DRYDB_NO_DATASETS(drydb_sharded_table_count, (const drydb_sharded_table*, uint64_t*))
DRYDB_NO_DATASETS(drydb_sharded_table_shard_of,
                  (const drydb_sharded_table*, const drydb_key*, uint32_t*))
DRYDB_NO_DATASETS(drydb_sharded_table_count_range,
                  (const drydb_sharded_table*, const drydb_bound*, const drydb_bound*, uint64_t*))
DRYDB_NO_DATASETS(drydb_dataset_value_create, (drydb_dataset*, drydb_value**))
DRYDB_NO_DATASETS(drydb_sharded_table_get, (const drydb_sharded_table*, const drydb_key*,
                                            drydb_value*, const void**, size_t*))
DRYDB_NO_DATASETS(drydb_sharded_table_get_copy,
                  (const drydb_sharded_table*, const drydb_key*, void*, size_t, size_t*))
DRYDB_NO_DATASETS(drydb_dataset_range_create, (drydb_dataset*, drydb_range**))
DRYDB_NO_DATASETS(drydb_sharded_table_range, (const drydb_sharded_table*, const drydb_bound*,
                                              const drydb_bound*, int32_t, drydb_range*))
DRYDB_NO_DATASETS(drydb_sharded_table_prefix,
                  (const drydb_sharded_table*, const void*, size_t, int32_t, drydb_range*))
DRYDB_NO_DATASETS(drydb_live_dataset_open,
                  (const char*, const drydb_open_options*, drydb_live_dataset**))
DRYDB_NO_DATASETS(drydb_live_dataset_close, (drydb_live_dataset*))
DRYDB_NO_DATASETS(drydb_live_dataset_refresh, (drydb_live_dataset*, int*))
DRYDB_NO_DATASETS(drydb_live_dataset_generation, (const drydb_live_dataset*, uint64_t*))
DRYDB_NO_DATASETS(drydb_live_dataset_retired, (const drydb_live_dataset*, size_t*))
DRYDB_NO_DATASETS(drydb_live_dataset_pin, (drydb_live_dataset*, drydb_dataset**))
}  // extern "C"

#endif  // DRYDB_C_DATASETS
