// The CLI11 classes the tool's headers name only by pointer or reference, declared here once so
// that those headers need not include <CLI/CLI.hpp> (a large header-only library); the .cpp
// files that declare options include it.
#pragma once

namespace CLI {
class App;
class Option;
}  // namespace CLI
