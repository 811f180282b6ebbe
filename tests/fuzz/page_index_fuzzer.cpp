// libFuzzer entry point of the "page_index" target (see page_target.h).
#include "page_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  drydb_fuzz::run_page_index(data, size);
  return 0;
}
