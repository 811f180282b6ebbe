// A child process that holds every descriptor of this process, with the flock(2) locks on them,
// until released: what any child forked by another thread holds between its fork and its exec
// (close-on-exec descriptors included). Tests that a lock the library drops stays dropped while
// such a child lives. POSIX only (fork): Windows has no fork, and its processes inherit only the
// handles marked inheritable, so there is no such child.
#pragma once

#if !defined(_WIN32)
#include <sys/wait.h>
#include <unistd.h>

namespace drydb_test {

class ForkedHolder {
 public:
  // Forks the child; in it, only async-signal-safe calls (the parent may have threads).
  ForkedHolder() {
    int fds[2];
    if (::pipe(fds) != 0) return;
    pid_ = ::fork();
    if (pid_ == 0) {
      ::close(fds[1]);
      char byte;
      while (::read(fds[0], &byte, 1) < 0) {
      }  // until the parent writes or closes its end
      ::_exit(0);
    }
    ::close(fds[0]);
    release_fd_ = fds[1];
  }
  ForkedHolder(const ForkedHolder&) = delete;
  ForkedHolder& operator=(const ForkedHolder&) = delete;
  ~ForkedHolder() { release(); }

  bool started() const noexcept { return pid_ > 0; }

  // Lets the child exit and waits for it.
  void release() {
    if (release_fd_ >= 0) ::close(release_fd_);
    release_fd_ = -1;
    if (pid_ > 0) {
      int status = 0;
      ::waitpid(pid_, &status, 0);
    }
    pid_ = -1;
  }

 private:
  pid_t pid_ = -1;
  int release_fd_ = -1;
};

}  // namespace drydb_test
#endif  // !defined(_WIN32)
