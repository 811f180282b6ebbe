// Writes the format-2.4 golden files of format2_4_files.h into a folder:
//   drydb_make_format2_4 tests/data/format2.4
// Run once, with the format-2.4 builder; the files are committed. Kept to show how they were
// made; it refuses to run with a builder of another format version (see format2_4_files.h).
#include "../golden_writer.h"
#include "format2_4_files.h"

int main(int argc, char** argv) {
  using namespace drydb_golden;
  return write_golden_files(argc, argv, drydb_format2_4::files(), 4, add_columns_and_miss_filter);
}
