/* Linked into the shared libraries drydb ships for Linux when they carry the C++ runtime inside
 * (DRYDB_STATIC_RUNTIME): the two glibc functions newer than glibc 2.34 that the static
 * libstdc++ and libgcc of this toolchain call, written on older ones, so that the libraries run
 * on glibc 2.34 (Ubuntu 22.04, RHEL 9) although they are built on a newer one. The same two for
 * x86-64 and aarch64 (Debian 12's g++ 12 and its cross compiler, both over glibc 2.36); nothing
 * here is specific to either.
 *
 * - arc4random (glibc 2.36): libstdc++'s std::random_device, drawn in by its string objects;
 *   here from getrandom (glibc 2.25), as glibc's own is.
 * - _dl_find_object (glibc 2.35): libgcc's unwinder finds the unwind tables of the object that
 *   holds a return address with it; here from dl_iterate_phdr (glibc 2.2.5) and dladdr1, which
 *   libgcc used before 2.35 existed.
 *
 * Both are hidden: the library's own references (the static runtime's) bind to them at its link,
 * and the process's own libc keeps its versions for everyone else. scripts/check_shipped.py checks
 * that no newer glibc symbol version is left. */
#define _GNU_SOURCE
#include <features.h>
#if defined(__GLIBC__)
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/random.h>

#define DRYDB_HIDDEN __attribute__((visibility("hidden")))

DRYDB_HIDDEN uint32_t arc4random(void) {
  uint32_t value;
  for (;;) {
    ssize_t n = getrandom(&value, sizeof value, 0);
    if (n == (ssize_t)sizeof value) return value;
    if (n < 0 && errno != EINTR) abort(); /* as glibc's: no random bytes is not an answer */
  }
}

/* What dl_iterate_phdr's walk looks for, and what it found. */
struct drydb_find_object {
  uintptr_t address;
  struct dl_find_object* result;
  int found;
};

static int drydb_find_in_object(struct dl_phdr_info* info, size_t size, void* data) {
  struct drydb_find_object* find = (struct drydb_find_object*)data;
  (void)size;
  uintptr_t start = UINTPTR_MAX, end = 0;
  const void* eh_frame = NULL;
  int holds = 0;
  for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)* ph = &info->dlpi_phdr[i];
    const uintptr_t at = info->dlpi_addr + ph->p_vaddr;
    if (ph->p_type == PT_LOAD) {
      if (at < start) start = at;
      if (at + ph->p_memsz > end) end = at + ph->p_memsz;
      if (find->address >= at && find->address < at + ph->p_memsz) holds = 1;
    } else if (ph->p_type == PT_GNU_EH_FRAME) {
      eh_frame = (const void*)at;
    }
  }
  if (!holds) return 0;
  struct dl_find_object* r = find->result;
  r->dlfo_flags = 0;
  r->dlfo_map_start = (void*)start;
  r->dlfo_map_end = (void*)end;
  r->dlfo_eh_frame = (void*)eh_frame;
#if DLFO_STRUCT_HAS_EH_DBASE
  r->dlfo_eh_dbase = NULL; /* no DW_EH_PE_datarel on the targets this is built for */
#endif
  Dl_info dl;
  struct link_map* map = NULL;
  if (dladdr1((void*)find->address, &dl, (void**)&map, RTLD_DL_LINKMAP) == 0) map = NULL;
  r->dlfo_link_map = map;
  find->found = 1;
  return 1;
}

DRYDB_HIDDEN int _dl_find_object(void* address, struct dl_find_object* result) {
  struct drydb_find_object find = {(uintptr_t)address, result, 0};
  dl_iterate_phdr(drydb_find_in_object, &find);
  return find.found ? 0 : -1;
}
#endif /* __GLIBC__ */
