// `dfx inspect`: shows how a graph file is placed over N local CPU devices
// and cut into per-device partitions for one step, as text and as Graphviz.
#ifndef DFX_TOOLS_CLI_INSPECT_H_
#define DFX_TOOLS_CLI_INSPECT_H_

#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "proto/graph.pb.h"

namespace dfx::cli {

// What `dfx inspect` was asked to do, as parsed from its flags.
struct InspectCommandOptions {
  std::string graph_path;
  int local_devices = 1;
  std::string cluster;  // --cluster: JSON or @FILE; empty: local devices
  std::vector<std::string> feeds;    // tensor names "node" or "node:i"
  std::vector<std::string> fetches;  // tensor names
  std::vector<std::string> targets;  // node names
  std::string dot_path;              // empty: write no Graphviz file
  bool allow_soft_placement = false;
  // --optimized: partitions of the step graph after the graph optimizer (as
  // a session runs it by default); without it, the graph before.
  bool optimized = false;
  bool help = false;
};

extern const char kInspectUsage[];

// Parses the flags after "inspect". A --feed may be NAME=VALUE (as for
// `dfx run`); the value is ignored. InvalidArgument naming the flag for an
// unknown flag, a missing or malformed value (--local-devices must be 1 to
// kMaxLocalDevices), no --graph, or neither --fetch nor --target (unless
// --help was given).
absl::StatusOr<InspectCommandOptions> ParseInspectFlags(
    const std::vector<std::string>& args);

// The Graphviz text of a step's partitions (keyed by device name; clusters
// follow `device_order`, then any other device in key order): one
// `subgraph cluster_<i>` per device, nodes labelled "name\nOp", data edges
// solid, control edges dotted, and each _Send -> _Recv pair with the same
// rendezvous key as a dashed edge between clusters.
std::string PartitionsToDot(const std::map<std::string, GraphDef>& partitions,
                            const std::vector<std::string>& device_order);

// Loads and places the graph over options.local_devices CPU devices
// ("/job:localhost/replica:0/task:0/device:CPU:i"), plans the step and
// writes the placement and partitions to `out`, and the Graphviz file to
// options.dot_path when set. InvalidArgument naming the file, feed, fetch,
// target, or nodes and devices of a placement conflict.
absl::Status ExecuteInspect(const InspectCommandOptions& options,
                            std::ostream& out);

// The `inspect` subcommand: ParseInspectFlags then ExecuteInspect. Errors
// print as one line "dfx inspect: error: ..." on `err`; returns 2 for usage
// errors, 1 for other errors, 0 on success.
int InspectMain(const std::vector<std::string>& args, std::ostream& out,
                std::ostream& err);

}  // namespace dfx::cli

#endif  // DFX_TOOLS_CLI_INSPECT_H_
