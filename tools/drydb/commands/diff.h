// `drydb diff OLD NEW`: what changed between two builds (files, dataset folders, generation
// folders or manifests), table by table, through drydb::diff (include/drydb/diff.h).
//
// Output (stdout), by mode:
//   summary (default)  a line per difference, nothing when the builds are equal:
//                        T: 3 added, 1 removed, 2 changed, 994 unchanged
//                        T: only in NEW (120 rows)          T: key encoding int64 in OLD, ...
//                        T.I: 2 entries added, 0 removed     T.I: unique in OLD, not in NEW
//   stat               JSON Lines, one per table and per index of either side, counts only:
//                        {"table":T,"in_old":true,"in_new":true,"old_rows":N,"new_rows":M,
//                         "added":A,"removed":R,"changed":C,"unchanged":U,"shape_changed":false}
//                        {"table":T,"index":I,"in_old":..,"in_new":..,"old_entries":..,
//                         "new_entries":..,"added":..,"removed":..,"shape_changed":..}
//   keys               JSON Lines, one per row or index entry that differs:
//                        {"table":T,"change":"added"|"removed"|"changed","key":K}
//                        {"table":T,"index":I,"change":"added"|"removed","key":K,"index_key":X}
//                      and one per table or index whose definition differs:
//                        {"table":T,"change":"table_added"|"table_removed"|"key_encoding"|"columns",...}
//                        {"table":T,"index":I,"change":"index_added"|"index_removed"|"definition",...}
//   rows               as keys, with the values: "value" (added, removed), "old_value" and
//                      "new_value" (changed), written as `drydb dump` writes them.
// Exit status, as diff(1)'s: 0 equal, 1 they differ, 2 an error.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace drydb::cli {

enum class DiffMode { summary, stat, keys, rows };

// Compares the builds at `old_path` and `new_path` (only `tables` when not empty), writes the
// mode's output to `out`, and returns the exit status.
int run_diff(const std::string& old_path, const std::string& new_path, DiffMode mode,
             const std::vector<std::string>& tables, std::FILE* out);

}  // namespace drydb::cli
