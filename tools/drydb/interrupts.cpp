// catch_interrupts (common.h): SIGINT and SIGTERM as a flag the tool's loops look at.
#include <signal.h>

#include "common.h"

namespace drydb::cli {

extern "C" void on_interrupt(int) {
  g_interrupted = 1;
}

void catch_interrupts(bool on) {
  struct sigaction sa {};
  sa.sa_handler = on ? on_interrupt : SIG_DFL;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

}  // namespace drydb::cli
