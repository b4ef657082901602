// The dfx command: dispatches to its subcommands.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "spdlog/cfg/env.h"
#include "base/log.h"
#include "spdlog/spdlog.h"
#include "tools/cli/bench.h"
#include "tools/cli/cluster.h"
#include "tools/cli/command.h"
#include "tools/cli/data_service.h"
#include "tools/cli/inspect.h"
#include "tools/cli/ops.h"
#include "tools/cli/run.h"
#include "tools/cli/server.h"
#include "tools/cli/version.h"

namespace dfx::cli {
namespace {

// Each subcommand is one entry here and one file beside this one.
constexpr Command kCommands[] = {
    {"run", "run one step of a graph file, locally or on a cluster",
     RunMain},
    {"bench", "time a graph's step: latency percentiles and steps/s",
     BenchMain},
    {"inspect", "show a step's placement and per-device partitions",
     InspectMain},
    {"ops", "list dfx's ops and kernels, or what a graph file needs",
     OpsMain},
    {"server", "run one task of a cluster (master and worker)", ServerMain},
    {"cluster", "start or stop a local cluster of servers", ClusterMain},
    {"data-service", "run a tf.data service dispatcher or worker",
     DataServiceMain},
    {"version", "print the version, commit and build options", VersionMain},
};

void PrintUsage(std::ostream& os) {
  os << "usage: dfx COMMAND [FLAGS]\n\ncommands:\n";
  size_t width = 0;
  for (const Command& c : kCommands) {
    width = std::max(width, std::string(c.name).size());
  }
  for (const Command& c : kCommands) {
    const std::string name = c.name;
    os << "  " << name << std::string(width + 2 - name.size(), ' ') << c.summary
       << "\n";
  }
  os << "\n'dfx COMMAND --help' describes a command's flags.\n";
}

int Main(int argc, char** argv) {
  // Logs go to stderr so that stdout carries only results (e.g. --json);
  // SPDLOG_LEVEL=info (or debug, ...) makes them more verbose.
  // (`dfx server` takes --log-level and --log-format.)
  if (absl::Status s = dfx::ConfigureLogging("warn", "text"); !s.ok()) {
    std::cerr << "dfx: error: " << s.message() << "\n";
    return kExitError;
  }
  spdlog::cfg::load_env_levels();

  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    PrintUsage(std::cerr);
    return kExitUsage;
  }
  if (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
    PrintUsage(std::cout);
    return kExitOk;
  }
  if (args[0] == "--version") {
    args.erase(args.begin());
    return VersionMain(args, std::cout, std::cerr);
  }
  for (const Command& c : kCommands) {
    if (args[0] == c.name) {
      args.erase(args.begin());
      return c.main(args, std::cout, std::cerr);
    }
  }
  std::cerr << "dfx: error: unknown command '" << args[0]
            << "' (see 'dfx --help')\n";
  return kExitUsage;
}

}  // namespace
}  // namespace dfx::cli

#if defined(DFX_CPU_X86_64_V3)
// Built for x86-64-v3 (DFX_CPU_LEVEL): say so instead of dying of SIGILL on
// an older CPU. Compiled for the baseline itself, so it runs anywhere.
__attribute__((target("arch=x86-64"))) static void CheckCpuLevel() {
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
    std::fputs("dfx: error: this dfx was built for x86-64-v3 (AVX2, FMA), "
               "which this CPU lacks; rebuild with -DDFX_CPU_LEVEL=baseline\n",
               stderr);
    std::exit(1);
  }
}
#else
static void CheckCpuLevel() {}
#endif

int main(int argc, char** argv) {
  CheckCpuLevel();
  try {
    return dfx::cli::Main(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "dfx: error: internal error: " << e.what() << "\n";
    return dfx::cli::kExitError;
  }
}
