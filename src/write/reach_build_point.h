// The library's side of drydb/build_points.h: each named moment of a build calls this.
#pragma once

#include "drydb/build_points.h"

namespace drydb::detail {

// Calls the hook set_build_point_hook set, if any.
void reach_build_point(BuildPoint point) noexcept;

}  // namespace drydb::detail
