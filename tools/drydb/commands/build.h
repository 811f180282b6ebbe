// `drydb build OUT`: a database from JSON Lines, CSV or TSV (or a `drydb
// dump`), streamed through the builder. See docs/cli.md for every flag.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cli11_fwd.h"

namespace drydb::cli {

class BuildCommand {
 public:
  // Declares the subcommand and its flags on `app`.
  explicit BuildCommand(CLI::App& app);
  ~BuildCommand();
  CLI::App* subcommand() const noexcept { return cmd_; }
  // Runs it after parsing; returns the exit status (CliErrors propagate).
  int run();

  struct Flags;  // what the flags say (defined in build.cpp)

 private:
  CLI::App* cmd_;
  std::unique_ptr<Flags> f_;
};

}  // namespace drydb::cli
