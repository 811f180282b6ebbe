// Writes the format-2.0 golden files of format2_files.h into a folder:
//   drydb_make_format2 tests/data/format2
// Run once, with the format-2.0 builder; the files are committed. Kept to show how they were
// made; it refuses to run with a builder of another format version (see format2_files.h).
#include "../golden_writer.h"
#include "format2_files.h"

int main(int argc, char** argv) {
  using namespace drydb_golden;
  // Format 2.0 is what every version's builder has: nothing to add to a table.
  return write_golden_files(argc, argv, drydb_format2::files(), 0,
                            [](drydb::TableBuilder&, const TableSpec&) {});
}
