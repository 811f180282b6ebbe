// `drydb shard route|verify|publish|rollback|merge|split`: sharded datasets
// (docs/sharding.md) from the command line, through the drydb::dataset
// library (its one writer of manifests). See docs/cli.md for every flag.
#pragma once

#include <cstdio>
#include <memory>
#include <string>

#include "cli11_fwd.h"

namespace drydb::cli {

class ShardCommand {
 public:
  // Declares the subcommand, its subcommands and their flags on `app`.
  explicit ShardCommand(CLI::App& app);
  ~ShardCommand();
  CLI::App* subcommand() const noexcept { return cmd_; }
  // Runs it after parsing; returns the exit status (CliErrors propagate).
  int run();

  struct Flags;  // what the flags say (defined in shard.cpp)

 private:
  CLI::App* cmd_;
  std::unique_ptr<Flags> f_;
};

// `drydb verify DATASET` and `drydb shard verify DATASET`: opens the dataset
// with its checksums checked against the manifest, verifies every shard (as
// `drydb verify FILE`), and checks that every row of a hash-partitioned table
// is in the shard its key routes to (a range shard's first and last keys,
// which opening checks, bound all of its rows). Prints one "ok" line to `out`;
// a CliError at the first fault.
void verify_dataset(const std::string& path, std::FILE* out);

}  // namespace drydb::cli
