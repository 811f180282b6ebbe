// libFuzzer entry point of the "open" target (see open_target.h).
#include "open_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  drydb_fuzz::run_open(data, size);
  return 0;
}
