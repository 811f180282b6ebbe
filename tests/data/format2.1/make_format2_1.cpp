// Writes the format-2.1 golden files of format2_1_files.h into a folder:
//   drydb_make_format2_1 tests/data/format2.1
// Run once, linked with the format-2.1 builder (the library at commit 5cd400f); the files are
// committed. Kept to show how they were made; it refuses to run with a builder of another
// format version (see format2_1_files.h).
#include "../golden_writer.h"
#include "format2_1_files.h"

int main(int argc, char** argv) {
  using namespace drydb_golden;
  return write_golden_files(argc, argv, drydb_format2_1::files(), 1, add_miss_filter);
}
