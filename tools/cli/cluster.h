// `dfx cluster up|down`: a local cluster of dfx servers on 127.0.0.1 for
// trying things out and for tests.
#ifndef DFX_TOOLS_CLI_CLUSTER_H_
#define DFX_TOOLS_CLI_CLUSTER_H_

#include <ostream>
#include <string>
#include <vector>

namespace dfx::cli {

extern const char kClusterUsage[];

int ClusterMain(const std::vector<std::string>& args, std::ostream& out,
                std::ostream& err);

}  // namespace dfx::cli

#endif  // DFX_TOOLS_CLI_CLUSTER_H_
