// Consumer test program: built against drydb the ways a user does (installed CMake package,
// pkg-config, add_subdirectory); see tests/consumer/run.cmake. It proves that the package's
// headers are found, that the static library and its dependencies link, and that it runs.
#include <drydb/result.h>

#include <cstdio>
#include <string>

namespace {
drydb::result<int> answer() {
  return 42;
}
drydb::result<int> failure() {
  return drydb::unexpected(drydb::errc::not_found, "no table 't'");
}
}  // namespace

int main() {
  drydb::result<int> ok = answer();
  drydb::result<int> bad = failure();
  // Error::to_string() and the error category are compiled into libdrydb, so this links it.
  const std::string text = bad ? std::string() : bad.error().to_string();
  if (!ok || *ok != 42 || text.find("drydb:6") == std::string::npos) {
    std::fprintf(stderr, "consumer: unexpected result: '%s'\n", text.c_str());
    return 1;
  }
  std::printf("consumer: drydb package OK: %s\n", text.c_str());
  return 0;
}
