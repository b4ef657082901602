// `dfx ops`: lists the registered ops with their kernels' device types and
// dtypes, or (with --graph) what a graph file needs and what dfx lacks.
#ifndef DFX_TOOLS_CLI_OPS_H_
#define DFX_TOOLS_CLI_OPS_H_

#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/op_registry.h"
#include "proto/graph.pb.h"
#include "runtime/op_kernel.h"

namespace dfx::cli {

extern const char kOpsUsage[];

struct OpsCommandOptions {
  std::string graph_path;  // --graph: check this graph; empty: list all ops
  std::string filter;      // --filter: only ops whose name contains it
  bool json = false;
  bool help = false;
};

// InvalidArgument naming the flag for an unknown flag or a missing value.
absl::StatusOr<OpsCommandOptions> ParseOpsFlags(
    const std::vector<std::string>& args);

// What one op type of a graph needs from dfx.
struct OpNeed {
  std::string op;
  int64_t nodes = 0;
  bool registered = false;
  // Nodes (with their type attrs, "mm (T=complex64)") for which no kernel of
  // any device type matches; empty when every node has one.
  std::vector<std::string> nodes_without_kernel;
  // A function call or functional control flow (If, While, ...): lowered
  // into the functions it calls, which are checked themselves.
  bool lowered = false;
  bool ok() const { return registered && nodes_without_kernel.empty(); }
};

// One entry per op type of `def` and of its function library's bodies
// (a body's node named "function/node"), sorted by op name. A call or
// functional control-flow op is ok when every function it names is in the
// library (dfx lowers it); a node whose attrs are the body's placeholders
// needs any kernel of its op.
std::vector<OpNeed> CheckGraphOps(const GraphDef& def, const OpRegistry& ops,
                                  const KernelRegistry& kernels);

// The `ops` subcommand. Listing: one line per op ("MatMul  CPU  T: float,
// double, ..."). With --graph: one line per op type of the graph and its
// status; exits 1 when dfx lacks an op or a kernel the graph needs, 0 when
// nothing is missing, 2 for usage errors.
int OpsMain(const std::vector<std::string>& args, std::ostream& out,
            std::ostream& err);

}  // namespace dfx::cli

#endif  // DFX_TOOLS_CLI_OPS_H_
