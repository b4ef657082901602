// Helpers the dfx subcommands share: flag splitting, graph loading,
// tensor-name lookup and the one-line error report.
#ifndef DFX_TOOLS_CLI_COMMAND_UTIL_H_
#define DFX_TOOLS_CLI_COMMAND_UTIL_H_

#include <memory>
#include <ostream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "graph/function_library.h"
#include "graph/graph.h"
#include "proto/graph.pb.h"

namespace dfx::cli {

// One flag of a command line: "--name VALUE", "--name=VALUE" or a switch.
struct Flag {
  std::string name;   // "--graph"; "--help" for -h and --help
  std::string value;  // empty for a switch
};

// Splits `args` into flags, left to right. `valued` names the flags that take
// a value (as the next argument or after '='), `switches` those that take
// none. "-h" or "--help" ends the scan: the flags before it are returned
// with a final {"--help"}. InvalidArgument naming the argument for a
// positional argument, an unknown flag, a switch given a value, or a valued
// flag at the end with no value.
absl::StatusOr<std::vector<Flag>> SplitFlags(
    const std::vector<std::string>& args, const std::set<std::string>& valued,
    const std::set<std::string>& switches);

// The value of `flag` as an integer >= 1; InvalidArgument
// "FLAG 'VALUE' is not a positive integer" otherwise.
absl::StatusOr<int64_t> ParsePositiveFlag(absl::string_view flag,
                                          absl::string_view value);

// The most CPU devices --local-devices may ask for.
inline constexpr int kMaxLocalDevices = 1024;

// The value of --local-devices: an integer from 1 to kMaxLocalDevices;
// InvalidArgument naming the flag and the value otherwise.
absl::StatusOr<int> ParseLocalDevices(absl::string_view value);

// A graph file read and imported with OpRegistry::Global().
struct LoadedGraph {
  GraphDef def;
  // The functions the graph reaches; `graph` uses its op registry (so a node
  // may call a function by name), so it is declared first.
  std::shared_ptr<const FunctionLibrary> library;
  std::unique_ptr<Graph> graph;
};

// ReadGraphDefFile then ImportGraphDef; errors keep their code and name the
// file ("graph 'PATH': ...").
absl::StatusOr<LoadedGraph> LoadGraphFile(const std::string& path);

// The node and output a tensor name ("node" or "node:i") refers to.
// InvalidArgument starting with `flag` and naming the tensor for a malformed
// name, a missing node or an output index past the node's outputs.
absl::StatusOr<std::pair<const Node*, int>> FindTensor(
    const Graph& graph, absl::string_view name, absl::string_view flag);

// InvalidArgument "FLAG 'NAME': the graph has no node named 'NAME'" unless
// `graph` holds a node `name`.
absl::Status CheckNodeExists(const Graph& graph, absl::string_view name,
                             absl::string_view flag);

// Writes "dfx COMMAND: error: MESSAGE" as one line (newlines in the message
// become spaces) to `err` and flushes it.
void ReportError(absl::string_view command, const absl::Status& status,
                 std::ostream& err);

}  // namespace dfx::cli

#endif  // DFX_TOOLS_CLI_COMMAND_UTIL_H_
