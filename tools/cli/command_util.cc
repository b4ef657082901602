#include "tools/cli/command_util.h"

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "graph/graph_def_import.h"
#include "graph/op_registry.h"

namespace dfx::cli {
namespace {

// A tensor name "node" or "node:i".
struct TensorRef {
  std::string node;
  int index = 0;
};

absl::StatusOr<TensorRef> ParseTensorName(absl::string_view name) {
  TensorRef ref;
  const size_t colon = name.rfind(':');
  ref.node = std::string(name.substr(0, colon));
  if (colon != absl::string_view::npos) {
    absl::string_view index = name.substr(colon + 1);
    if (index.empty() || !absl::SimpleAtoi(index, &ref.index) ||
        ref.index < 0 || index[0] == '+' || index[0] == '-') {
      return absl::InvalidArgumentError(absl::StrCat(
          "'", name, "' is not a tensor name (expected NODE or NODE:INDEX)"));
    }
  }
  if (ref.node.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "'", name, "' is not a tensor name (expected NODE or NODE:INDEX)"));
  }
  return ref;
}

}  // namespace

absl::StatusOr<std::vector<Flag>> SplitFlags(
    const std::vector<std::string>& args, const std::set<std::string>& valued,
    const std::set<std::string>& switches) {
  std::vector<Flag> flags;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "-h" || arg == "--help") {
      flags.push_back({"--help", ""});
      return flags;
    }
    if (!absl::StartsWith(arg, "--")) {
      return absl::InvalidArgumentError(
          absl::StrCat("unexpected argument '", arg, "'"));
    }
    Flag flag{arg, ""};
    bool has_value = false;
    if (const size_t eq = arg.find('='); eq != std::string::npos) {
      flag.name = arg.substr(0, eq);
      flag.value = arg.substr(eq + 1);
      has_value = true;
    }
    if (switches.contains(flag.name)) {
      if (has_value) {
        return absl::InvalidArgumentError(
            absl::StrCat(flag.name, " takes no value"));
      }
      flags.push_back(std::move(flag));
      continue;
    }
    if (!valued.contains(flag.name)) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown flag '", flag.name, "'"));
    }
    if (!has_value) {
      if (i + 1 >= args.size()) {
        return absl::InvalidArgumentError(
            absl::StrCat(flag.name, " needs a value"));
      }
      flag.value = args[++i];
    }
    flags.push_back(std::move(flag));
  }
  return flags;
}

absl::StatusOr<int64_t> ParsePositiveFlag(absl::string_view flag,
                                          absl::string_view value) {
  int64_t n = 0;
  if (!absl::SimpleAtoi(value, &n) || n <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, " '", value, "' is not a positive integer"));
  }
  return n;
}

absl::StatusOr<int> ParseLocalDevices(absl::string_view value) {
  absl::StatusOr<int64_t> n = ParsePositiveFlag("--local-devices", value);
  if (!n.ok()) return n.status();
  if (*n > kMaxLocalDevices) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--local-devices ", *n, " is more than ", kMaxLocalDevices));
  }
  return static_cast<int>(*n);
}

absl::StatusOr<LoadedGraph> LoadGraphFile(const std::string& path) {
  LoadedGraph loaded;
  absl::StatusOr<GraphDef> def = ReadGraphDefFile(path);
  if (!def.ok()) {
    if (absl::StrContains(def.status().message(), path)) return def.status();
    return absl::Status(def.status().code(),
                        absl::StrCat("graph '", path, "': ",
                                     def.status().message()));
  }
  loaded.def = *std::move(def);
  absl::StatusOr<std::unique_ptr<FunctionLibrary>> library =
      FunctionLibrary::Create(ReachableFunctions(loaded.def),
                              OpRegistry::Global());
  if (!library.ok()) {
    return absl::Status(library.status().code(),
                        absl::StrCat("graph '", path, "': ",
                                     library.status().message()));
  }
  loaded.library = *std::move(library);
  absl::StatusOr<std::unique_ptr<Graph>> graph =
      ImportGraphDef(loaded.def, loaded.library->op_registry());
  if (!graph.ok()) {
    return absl::Status(graph.status().code(),
                        absl::StrCat("graph '", path, "': ",
                                     graph.status().message()));
  }
  loaded.graph = *std::move(graph);
  return loaded;
}

absl::StatusOr<std::pair<const Node*, int>> FindTensor(
    const Graph& graph, absl::string_view name, absl::string_view flag) {
  absl::StatusOr<TensorRef> ref = ParseTensorName(name);
  if (!ref.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, " ", ref.status().message()));
  }
  const Node* node = graph.FindNode(ref->node);
  if (node == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        flag, " '", name, "': the graph has no node named '", ref->node, "'"));
  }
  if (ref->index >= node->num_outputs()) {
    return absl::InvalidArgumentError(absl::StrCat(
        flag, " '", name, "': node '", node->name(), "' (op ",
        node->type_string(), ") has ", node->num_outputs(), " output",
        node->num_outputs() == 1 ? "" : "s"));
  }
  return std::make_pair(node, ref->index);
}

absl::Status CheckNodeExists(const Graph& graph, absl::string_view name,
                             absl::string_view flag) {
  if (graph.FindNode(name) != nullptr) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      flag, " '", name, "': the graph has no node named '", name, "'"));
}

void ReportError(absl::string_view command, const absl::Status& status,
                 std::ostream& err) {
  std::string line(status.message());
  for (char& c : line) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  err << "dfx " << command << ": error: " << line << "\n";
  err.flush();
}

}  // namespace dfx::cli
