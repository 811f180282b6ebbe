// catch_interrupts, catch_sigint (common.h): SIGINT and SIGTERM as a flag the tool's loops
// look at.
#include <signal.h>

#include "common.h"

namespace drydb::cli {

extern "C" void on_interrupt(int) {
  g_interrupted = 1;
}

namespace {
// The action a signal had before the tool caught it, put back when it stops catching it: an
// inherited SIG_IGN (`nohup`, a background job of a non-interactive shell) stays in force.
struct Saved {
  struct sigaction action {};
  bool caught = false;
};
Saved g_sigint, g_sigterm;

void set_action(int signal, Saved& saved, bool on, int flags = 0) {
  if (on == saved.caught) return;
  if (on) {
    struct sigaction sa {};
    sa.sa_handler = on_interrupt;
    sa.sa_flags = flags;
    sigemptyset(&sa.sa_mask);
    sigaction(signal, &sa, &saved.action);
  } else {
    sigaction(signal, &saved.action, nullptr);
  }
  saved.caught = on;
}
}  // namespace

void catch_sigint(bool on) {
  set_action(SIGINT, g_sigint, on, SA_RESTART);
}

void catch_interrupts(bool on) {
  set_action(SIGINT, g_sigint, on);
  set_action(SIGTERM, g_sigterm, on);
}

}  // namespace drydb::cli
