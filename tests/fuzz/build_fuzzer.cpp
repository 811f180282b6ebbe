// libFuzzer entry point of the "build" target (see build_target.h).
#include "build_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  drydb_fuzz::run_build(data, size);
  return 0;
}
