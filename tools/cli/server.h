// `dfx server`: runs one task of a cluster (master and worker) until SIGTERM
// or SIGINT.
#ifndef DFX_TOOLS_CLI_SERVER_H_
#define DFX_TOOLS_CLI_SERVER_H_

#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "rpc/grpc_server.h"
#include "runtime/network_policy.h"

namespace dfx::cli {

extern const char kServerUsage[];

struct ServerCommandOptions {
  GrpcServerOptions server;
  // --data-dir: the only directory tree file ops may use (empty: any path);
  // set process-wide by ServerMain (runtime/file_policy.h).
  std::string data_dir;
  // --graph-network: which connections graph ops (RpcServer, RpcClient, the
  // tf.data service ops) may make; set process-wide by ServerMain
  // (runtime/network_policy.h).
  GraphNetwork graph_network = GraphNetwork::kAll;
  // --log-level (empty: info) and --log-format.
  std::string log_level;
  std::string log_format = "text";
  bool help = false;
};

// Parses the flags after "server"; with neither --cluster nor --job/--task
// the task comes from `tf_config` (the TF_CONFIG variable, null when
// unset). InvalidArgument naming the flag or TF_CONFIG for bad input.
absl::StatusOr<ServerCommandOptions> ParseServerFlags(
    const std::vector<std::string>& args, const char* tf_config);

int ServerMain(const std::vector<std::string>& args, std::ostream& out,
               std::ostream& err);

}  // namespace dfx::cli

#endif  // DFX_TOOLS_CLI_SERVER_H_
