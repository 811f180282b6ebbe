// libFuzzer entry point of the "page" target (see page_target.h).
#include "page_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  drydb_fuzz::run_page(data, size);
  return 0;
}
