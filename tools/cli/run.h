// `dfx run`: runs one step of a graph file in a local session, or on a
// cluster (--target grpc://HOST:PORT), and prints or saves the fetched
// tensors.
#ifndef DFX_TOOLS_CLI_RUN_H_
#define DFX_TOOLS_CLI_RUN_H_

#include <cstdint>
#include <memory>
#include <ostream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "runtime/session.h"
#include "runtime/tensor.h"
#include "tools/cli/command_util.h"

namespace dfx::cli {

// What `dfx run` was asked to do, as parsed from its flags.
struct RunCommandOptions {
  std::string graph_path;
  // (tensor name, value): value is a JSON literal or "@file.npy".
  std::vector<std::pair<std::string, std::string>> feeds;
  std::vector<std::string> fetches;  // "node" or "node:i"
  std::vector<std::string> targets;  // node names
  // "grpc://host:port" (a --target holding "://"); empty: a local session.
  std::string session_target;
  bool json = false;
  std::string out_dir;  // empty: write no .npy files
  int64_t timeout_ms = 0;  // 0: the session's default
  int local_devices = 0;   // CPU devices of the session; 0: its default
  bool allow_soft_placement = false;
  // --no-optimize: the session's graph optimizer is switched off
  // (graph_options.rewrite_options.disable_meta_optimizer).
  bool no_optimize = false;
  // --no-remap: graph_options.rewrite_options.remapping OFF (no fusions).
  bool no_remap = false;
  // With a grpc:// target: the files of --auth-token-file, --tls-ca,
  // --tls-cert, --tls-key, and --security (JSON or @FILE); empty: unset.
  std::string auth_token_file;
  std::string tls_ca;
  std::string tls_cert;
  std::string tls_key;
  std::string security;
  // --trace FILE: run with FULL_TRACE and write the step's Chrome trace
  // (runtime/chrome_trace.h) there; empty: no tracing.
  std::string trace_path;
  bool help = false;
};

extern const char kRunUsage[];

// Parses the flags after "run". InvalidArgument naming the flag for an
// unknown flag, a missing or malformed value (--local-devices must be 1 to
// kMaxLocalDevices), no --graph, or neither --fetch nor --target (unless
// --help was given).
absl::StatusOr<RunCommandOptions> ParseRunFlags(
    const std::vector<std::string>& args);

// The pieces of ParseRunFlags, for commands that take run's flags
// (`dfx bench`): the flags SplitFlags should accept; ApplyRunFlag applies
// one of them to `options` (false for a flag that is not run's,
// InvalidArgument naming the flag for a bad value); CheckRunOptions makes
// the checks across flags once all are read (--graph given, a --fetch or
// --target, security flags only with a grpc:// target, ...).
const std::set<std::string>& RunValuedFlags();
const std::set<std::string>& RunSwitches();
absl::StatusOr<bool> ApplyRunFlag(const Flag& flag, RunCommandOptions* options);
absl::Status CheckRunOptions(const RunCommandOptions& options);

// A step ready to run: the loaded graph, the feeds parsed against it, the
// fetches (each once, in order).
struct PreparedRun {
  LoadedGraph loaded;
  std::vector<std::pair<std::string, Tensor>> feeds;
  std::vector<std::string> fetches;
};

// Loads options.graph_path, parses each --feed against the fed node's dtype
// (and a placeholder's shape), and checks that every fetch and target
// names a node of the graph. InvalidArgument naming the file, feed, fetch
// or target.
absl::StatusOr<PreparedRun> PrepareRun(const RunCommandOptions& options);

// The session a run asks for: on options.session_target (with its security
// files), or else "local" with options.local_devices CPU devices; with
// allow_soft_placement, the optimizer off for no_optimize, and
// operation_timeout_in_ms = options.timeout_ms.
absl::StatusOr<std::unique_ptr<Session>> CreateRunSession(
    const RunCommandOptions& options);

// Loads the graph, resolves and parses the feeds against it, runs one step
// in a session on options.session_target, or else in a "local" one
// (device_count {"CPU": local_devices} when set), with
// allow_soft_placement, and writes the fetches to `out` (JSON or readable)
// and to options.out_dir. InvalidArgument naming the file, feed, fetch or
// target for bad input; a session error as the session returned it.
absl::Status ExecuteRun(const RunCommandOptions& options, std::ostream& out);

// The `run` subcommand: ParseRunFlags then ExecuteRun. Errors print as one
// line "dfx run: error: ..." on `err`; returns 2 for usage errors, 1 for
// other errors, 0 on success.
int RunMain(const std::vector<std::string>& args, std::ostream& out,
            std::ostream& err);

}  // namespace dfx::cli

#endif  // DFX_TOOLS_CLI_RUN_H_
