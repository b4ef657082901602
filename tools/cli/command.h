// The shape of a dfx subcommand: its name, a one-line summary, and its entry.
#ifndef DFX_TOOLS_CLI_COMMAND_H_
#define DFX_TOOLS_CLI_COMMAND_H_

#include <ostream>
#include <string>
#include <vector>

namespace dfx::cli {

// Exit statuses of every subcommand.
inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 1;  // bad input, failed step
inline constexpr int kExitUsage = 2;  // bad flags

// Runs a subcommand on the arguments after its name; results go to `out`,
// diagnostics (one line per error) to `err`. Returns the exit status.
using CommandMain = int (*)(const std::vector<std::string>& args,
                            std::ostream& out, std::ostream& err);

struct Command {
  const char* name;
  const char* summary;
  CommandMain main;
};

}  // namespace dfx::cli

#endif  // DFX_TOOLS_CLI_COMMAND_H_
