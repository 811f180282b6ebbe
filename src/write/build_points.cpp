#include "write/reach_build_point.h"

#include <atomic>

namespace drydb {

namespace {
std::atomic<BuildPointHook> g_hook{nullptr};
}  // namespace

const char* build_point_name(BuildPoint point) noexcept {
  switch (point) {
    case BuildPoint::run_spilled:
      return "run_spilled";
    case BuildPoint::temp_created:
      return "temp_created";
    case BuildPoint::pages_written:
      return "pages_written";
    case BuildPoint::synced:
      return "synced";
    case BuildPoint::renamed:
      return "renamed";
    case BuildPoint::dataset_locking:
      return "dataset_locking";
    case BuildPoint::dataset_published:
      return "dataset_published";
  }
  return "unknown";
}

void set_build_point_hook(BuildPointHook hook) noexcept {
  g_hook.store(hook, std::memory_order_release);
}

void detail::reach_build_point(BuildPoint point) noexcept {
  if (const BuildPointHook hook = g_hook.load(std::memory_order_acquire)) hook(point);
}

}  // namespace drydb
