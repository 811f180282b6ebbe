#include "test_pause.h"

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "common.h"
#include "drydb/build_points.h"

namespace drydb::cli {

namespace {
std::string g_point;  // DRYDB_TEST_PAUSE, or empty
bool g_paused = false;
volatile sig_atomic_t g_resumed = 0;  // SIGUSR1 came: go on, as if no signal had

extern "C" void on_resume(int) {
  g_resumed = 1;
}

void pause_at_build_point(BuildPoint point) {
  test_pause(std::string("build:") + build_point_name(point));
}
}  // namespace

void init_test_pauses() {
  const char* point = std::getenv("DRYDB_TEST_PAUSE");
  if (point == nullptr || *point == '\0') return;
  g_point = point;
  if (g_point.rfind("build:", 0) == 0) set_build_point_hook(pause_at_build_point);
}

void test_pause(std::string_view point) {
  if (g_point.empty() || g_paused || point != g_point) return;
  g_paused = true;
  // SIGINT and SIGTERM are blocked from before the line that tells the test to send one until
  // sigsuspend lets them in, so that one caught in between is not missed (it stays pending).
  sigset_t stop, before;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  sigaddset(&stop, SIGUSR1);
  ::sigprocmask(SIG_BLOCK, &stop, &before);
  struct sigaction resume {
  }, saved{};
  resume.sa_handler = on_resume;
  sigemptyset(&resume.sa_mask);
  ::sigaction(SIGUSR1, &resume, &saved);
  std::fflush(stdout);
  write_err(fmt::format("drydb: test pause at {} (pid {})\n", point, ::getpid()));
  std::fflush(stderr);
  // Every signal is let in while waiting: a caught one sets g_interrupted; any other takes its
  // action.
  sigset_t none;
  sigemptyset(&none);
  while (!g_interrupted && !g_resumed)
    ::sigsuspend(&none);
  ::sigprocmask(SIG_SETMASK, &before, nullptr);
  ::sigaction(SIGUSR1, &saved, nullptr);
}

}  // namespace drydb::cli
