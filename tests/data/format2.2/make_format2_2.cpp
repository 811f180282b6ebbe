// Writes the format-2.2 golden files of format2_2_files.h into a folder:
//   drydb_make_format2_2 tests/data/format2.2
// Run once, linked with the format-2.2 builder (the library at commit c77602d, which stores a
// page's keys after their shared prefix by default); the files are committed. Kept to show how
// they were made; it refuses to run with a builder of another format version (see
// format2_2_files.h).
#include "../golden_writer.h"
#include "format2_2_files.h"

int main(int argc, char** argv) {
  using namespace drydb_golden;
  return write_golden_files(argc, argv, drydb_format2_2::files(), 2, add_miss_filter);
}
