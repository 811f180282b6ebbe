// catch_interrupts, catch_sigint (common.h): SIGINT and SIGTERM as a flag the tool's loops
// look at.
#include <signal.h>

#include "common.h"

namespace drydb::cli {

extern "C" void on_interrupt(int) {
  g_interrupted = 1;
}

namespace {
void set_action(int signal, bool on) {
  struct sigaction sa {};
  sa.sa_handler = on ? on_interrupt : SIG_DFL;
  sigemptyset(&sa.sa_mask);
  sigaction(signal, &sa, nullptr);
}
}  // namespace

void catch_sigint(bool on) {
  set_action(SIGINT, on);
}

void catch_interrupts(bool on) {
  set_action(SIGINT, on);
  set_action(SIGTERM, on);
}

}  // namespace drydb::cli
