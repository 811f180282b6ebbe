// drydb/build_points.h: named moments of a build to a file (and of a dataset's publish; synced
// and renamed are also reached by any AtomicFile's commit), and a hook called at each: a seam
// for tests that stop or signal a build exactly there instead of timing a kill
// (tests/write/crash_build_test.cpp, and the drydb tool's DRYDB_TEST_PAUSE, which
// tests/cli/cases/signals.sh uses). With no hook set, a point costs a load and a test; points
// are per build phase, never per row.
#pragma once

#include <cstdint>

namespace drydb {

enum class BuildPoint : uint8_t {
  run_spilled,    // a sorted run was written to its (unlinked) spill file
  temp_created,   // the temp file beside the target exists, empty
  pages_written,  // every page is in the temp file, not yet synced
  synced,         // the temp file is synced, not yet renamed over the target
  renamed,        // the target is the new file; its folder is not yet synced
  // A dataset's generations (dataset.h): the same seam for its races.
  dataset_locking,    // publish, rollback or discard is about to take the dataset's lock
  dataset_published,  // CURRENT names the published generation; retention is still to come
};

// "run_spilled", "temp_created", ...: the names above.
const char* build_point_name(BuildPoint point) noexcept;

using BuildPointHook = void (*)(BuildPoint);
// Sets the hook every build of the process calls at each point (nullptr: none), on the thread
// that reaches it. For tests: set it before builds start.
void set_build_point_hook(BuildPointHook hook) noexcept;

}  // namespace drydb
