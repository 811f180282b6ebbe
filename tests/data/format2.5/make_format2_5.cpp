// Writes the format-2.5 golden files of format2_5_files.h into a folder:
//   drydb_make_format2_5 tests/data/format2.5
// Run once, with the format-2.5 builder; the files are committed. Kept to show how they were
// made; it refuses to run with a builder of another format version (see format2_5_files.h).
#include "../golden_writer.h"
#include "format2_5_files.h"

int main(int argc, char** argv) {
  using namespace drydb_golden;
  return write_golden_files(argc, argv, drydb_format2_5::files(), 5, add_columns_and_miss_filter);
}
