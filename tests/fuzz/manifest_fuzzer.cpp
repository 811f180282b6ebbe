// libFuzzer entry point of the "manifest" target (see manifest_target.h).
#include "manifest_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  drydb_fuzz::run_manifest(data, size);
  return 0;
}
