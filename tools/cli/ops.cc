#include "tools/cli/ops.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "graph/graph_def_import.h"
#include "graph/node_def_util.h"
#include "graph/types.h"
#include "kernels/kernels.h"
#include "nlohmann/json.hpp"
#include "tools/cli/command.h"
#include "tools/cli/command_util.h"

namespace dfx::cli {

const char kOpsUsage[] =
    "usage: dfx ops [--filter TEXT] [--json]\n"
    "       dfx ops --graph FILE [--json]\n"
    "\n"
    "Without --graph, lists every op dfx registers, with the device types\n"
    "and dtypes its kernels serve. With --graph, lists the op types the\n"
    "graph file (binary GraphDef, or text .pbtxt) uses, its function\n"
    "library's bodies included, and for each whether dfx registers it and\n"
    "has a kernel for every node's dtypes (function calls and functional\n"
    "control flow are lowered and need none);\n"
    "exits 1 when something is missing, 0 when the graph can run.\n"
    "\n"
    "  --graph FILE   check this graph instead of listing all ops\n"
    "  --filter TEXT  list only ops whose name contains TEXT\n"
    "  --json         machine-readable output on stdout\n";

namespace {

absl::Status UsageError(absl::string_view message) {
  return absl::InvalidArgumentError(message);
}

// A kernel's constraints merged with those of the other registrations of
// the same op and device that constrain the same attrs: kernels registered
// once per dtype read as one line "T: float, double, int32".
struct KernelLine {
  std::string device;
  std::vector<std::string> attrs;  // constrained attrs, in order
  std::vector<std::vector<DataType>> allowed;
  // On a GPU: the args in host memory, or the whole kernel on the host.
  std::vector<std::string> host_args;
  bool on_host = false;
};

std::vector<KernelLine> MergeKernels(const std::vector<KernelDefBuilder>& defs) {
  std::vector<KernelLine> lines;
  for (const KernelDefBuilder& def : defs) {
    std::vector<std::string> attrs;
    for (const auto& c : def.constraints()) attrs.push_back(c.attr);
    KernelLine* line = nullptr;
    for (KernelLine& l : lines) {
      // Merge only single-attr constraints (or none): for several attrs the
      // cross product would claim combinations that are not registered.
      if (l.device == def.device_type() && l.attrs == attrs &&
          attrs.size() <= 1 && l.host_args == def.host_memory_args() &&
          l.on_host == def.all_host_memory()) {
        line = &l;
      }
    }
    if (line == nullptr) {
      lines.push_back({def.device_type(), attrs, {}, def.host_memory_args(),
                       def.all_host_memory()});
      line = &lines.back();
      line->allowed.resize(attrs.size());
    }
    for (size_t i = 0; i < def.constraints().size(); ++i) {
      for (DataType t : def.constraints()[i].allowed) {
        auto& v = line->allowed[i];
        if (std::find(v.begin(), v.end(), t) == v.end()) v.push_back(t);
      }
    }
  }
  return lines;
}

std::string KernelLineString(const KernelLine& line) {
  std::string text;
  if (line.attrs.empty()) {
    text = absl::StrCat(line.device, " (all types)");
  } else {
    std::vector<std::string> parts;
    for (size_t i = 0; i < line.attrs.size(); ++i) {
      std::vector<std::string> types;
      for (DataType t : line.allowed[i]) types.push_back(DataTypeString(t));
      parts.push_back(
          absl::StrCat(line.attrs[i], ": ", absl::StrJoin(types, ", ")));
    }
    text = absl::StrCat(line.device, " ", absl::StrJoin(parts, "; "));
  }
  // A GPU's kernel that reads args on the host, or runs there.
  if (line.on_host) {
    absl::StrAppend(&text, " (on the host)");
  } else if (!line.host_args.empty()) {
    absl::StrAppend(&text, " (host memory: ",
                    absl::StrJoin(line.host_args, ", "), ")");
  }
  return text;
}

// "mm (T=complex64)": a node and its type attrs, for "no kernel" reports.
std::string NodeWithTypes(const NodeDef& node) {
  std::vector<std::string> attrs;
  for (const auto& [name, value] : node.attr()) {
    if (value.value_case() == AttrValue::kType) {
      attrs.push_back(absl::StrCat(name, "=", DataTypeString(value.type())));
    }
  }
  std::sort(attrs.begin(), attrs.end());
  if (attrs.empty()) return node.name();
  return absl::StrCat(node.name(), " (", absl::StrJoin(attrs, ", "), ")");
}

int ListOps(const OpsCommandOptions& options, std::ostream& out) {
  const OpRegistry& ops = *OpRegistry::Global();
  const KernelRegistry& kernels = *StandardKernelRegistry();
  nlohmann::json json = nlohmann::json::array();
  size_t width = 0;
  std::vector<std::pair<std::string, std::vector<std::string>>> rows;
  for (const std::string& op : ops.ListOps()) {
    if (!options.filter.empty() && !absl::StrContains(op, options.filter)) {
      continue;
    }
    std::vector<std::string> lines;
    nlohmann::json jkernels = nlohmann::json::array();
    for (const KernelDefBuilder& def : kernels.KernelDefsOf(op)) {
      nlohmann::json constraints = nlohmann::json::object();
      for (const auto& c : def.constraints()) {
        std::vector<std::string> types;
        for (DataType t : c.allowed) types.push_back(DataTypeString(t));
        constraints[c.attr] = types;
      }
      jkernels.push_back({{"device", def.device_type()},
                          {"constraints", constraints},
                          {"host_memory", def.host_memory_args()},
                          {"on_host", def.all_host_memory()}});
    }
    for (const KernelLine& line : MergeKernels(kernels.KernelDefsOf(op))) {
      lines.push_back(KernelLineString(line));
    }
    json.push_back({{"op", op}, {"kernels", jkernels}});
    width = std::max(width, op.size());
    rows.emplace_back(op, std::move(lines));
  }
  if (options.json) {
    out << json.dump(1) << "\n";
    return kExitOk;
  }
  for (const auto& [op, lines] : rows) {
    out << op << std::string(width + 2 - op.size(), ' ');
    if (lines.empty()) {
      out << "(no kernel)\n";
      continue;
    }
    for (size_t i = 0; i < lines.size(); ++i) {
      if (i > 0) out << std::string(width + 2, ' ');
      out << lines[i] << "\n";
    }
  }
  out << rows.size() << " ops\n";
  return kExitOk;
}

int CheckGraph(const OpsCommandOptions& options, std::ostream& out,
               std::ostream& err) {
  absl::StatusOr<GraphDef> def = ReadGraphDefFile(options.graph_path);
  if (!def.ok()) {
    ReportError("ops", def.status(), err);
    return kExitError;
  }
  const std::vector<OpNeed> needs =
      CheckGraphOps(*def, *OpRegistry::Global(), *StandardKernelRegistry());
  int missing = 0;
  for (const OpNeed& need : needs) missing += need.ok() ? 0 : 1;

  if (options.json) {
    nlohmann::json json = nlohmann::json::array();
    for (const OpNeed& need : needs) {
      json.push_back({{"op", need.op},
                      {"nodes", need.nodes},
                      {"registered", need.registered},
                      {"nodes_without_kernel", need.nodes_without_kernel},
                      {"lowered", need.lowered},
                      {"ok", need.ok()}});
    }
    out << nlohmann::json{{"graph", options.graph_path},
                          {"nodes", def->node_size()},
                          {"ops", json},
                          {"missing", missing}}
               .dump(1)
        << "\n";
    return missing == 0 ? kExitOk : kExitError;
  }
  size_t width = 2;
  for (const OpNeed& need : needs) width = std::max(width, need.op.size());
  out << "graph '" << options.graph_path << "': " << def->node_size()
      << " nodes, " << needs.size() << " op types\n";
  for (const OpNeed& need : needs) {
    out << "  " << need.op << std::string(width + 2 - need.op.size(), ' ')
        << need.nodes << (need.nodes == 1 ? " node   " : " nodes  ");
    if (!need.registered) {
      out << "MISSING: op not registered\n";
    } else if (!need.nodes_without_kernel.empty()) {
      const auto& v = need.nodes_without_kernel;
      out << "MISSING: no kernel for "
          << absl::StrJoin(v.begin(), v.begin() + std::min<size_t>(v.size(), 3),
                           ", ")
          << (v.size() > 3 ? absl::StrCat(" and ", v.size() - 3, " more") : "")
          << "\n";
    } else {
      out << (need.lowered ? "ok (lowered into the functions it calls)\n"
                           : "ok\n");
    }
  }
  if (missing == 0) {
    out << "dfx has every op and kernel this graph needs\n";
    return kExitOk;
  }
  out << "dfx lacks " << missing << " of " << needs.size()
      << " op types this graph needs\n";
  return kExitError;
}

}  // namespace

absl::StatusOr<OpsCommandOptions> ParseOpsFlags(
    const std::vector<std::string>& args) {
  OpsCommandOptions options;
  DFX_ASSIGN_OR_RETURN(std::vector<Flag> flags,
                       SplitFlags(args, {"--graph", "--filter"}, {"--json"}));
  for (const auto& [flag, value] : flags) {
    if (flag == "--help") {
      options.help = true;
      return options;
    } else if (flag == "--json") {
      options.json = true;
    } else if (flag == "--graph") {
      if (value.empty()) return UsageError("--graph needs a file name");
      if (!options.graph_path.empty()) {
        return UsageError("--graph given more than once");
      }
      options.graph_path = value;
    } else if (flag == "--filter") {
      options.filter = value;
    }
  }
  if (!options.graph_path.empty() && !options.filter.empty()) {
    return UsageError("--filter lists registered ops; it does not go with --graph");
  }
  return options;
}

namespace {

// Function calls and functional control flow: dfx lowers them into the
// bodies they name and the TF1 control-flow primitives
// (graph/lower_functional_ops.h), so they need no kernel of their own.
bool IsLoweredOp(const std::string& op) {
  return op == "PartitionedCall" || op == "StatefulPartitionedCall" ||
         op == "If" || op == "StatelessIf" || op == "Case" ||
         op == "StatelessCase" || op == "While" || op == "StatelessWhile";
}

// The functions `node` names in its attrs (then_branch, body, f, branches,
// a dataset's map function, ...).
std::vector<std::string> FunctionsNamed(const NodeDef& node) {
  std::vector<std::string> names;
  for (const auto& [attr, value] : node.attr()) {
    if (value.value_case() == AttrValue::kFunc) {
      names.push_back(value.func().name());
    } else if (value.value_case() == AttrValue::kList) {
      for (const NameAttrList& f : value.list().func()) {
        names.push_back(f.name());
      }
    }
  }
  return names;
}

// Whether an attr of `node` is a function-body placeholder ("$T"): its
// types are known only when the function is instantiated.
bool HasPlaceholderAttr(const NodeDef& node) {
  for (const auto& [attr, value] : node.attr()) {
    if (value.value_case() == AttrValue::kPlaceholder) return true;
  }
  return false;
}

}  // namespace

std::vector<OpNeed> CheckGraphOps(const GraphDef& def, const OpRegistry& ops,
                                  const KernelRegistry& kernels) {
  std::set<std::string> functions;
  for (const FunctionDef& f : def.library().function()) {
    functions.insert(f.signature().name());
  }
  std::map<std::string, OpNeed> needs;
  // Device types that have any kernel: a node is served when one of them
  // has a kernel for it.
  std::set<std::string> device_types = {"CPU"};
  // `shown` names the node in reports: its name, or "function/node" for a
  // node of a function body.
  auto check = [&](const NodeDef& node, const std::string& shown) {
    OpNeed& need = needs[node.op()];
    need.op = node.op();
    ++need.nodes;
    for (const std::string& f : FunctionsNamed(node)) {
      if (!functions.contains(f)) {
        need.nodes_without_kernel.push_back(absl::StrCat(
            shown, " (calls function '", f,
            "', which is not in the graph's library)"));
      }
    }
    if (IsLoweredOp(node.op()) || functions.contains(node.op())) {
      // Lowered into their bodies: registered as far as the graph goes.
      need.registered = true;
      need.lowered = true;
      return;
    }
    const OpRegistrationData* data = ops.LookUp(node.op());
    need.registered = data != nullptr;
    if (data == nullptr) return;
    for (const KernelDefBuilder& k : kernels.KernelDefsOf(node.op())) {
      device_types.insert(k.device_type());
    }
    if (HasPlaceholderAttr(node)) {
      // Types come from the caller: any kernel of the op will do here.
      if (kernels.KernelDefsOf(node.op()).empty()) {
        need.nodes_without_kernel.push_back(shown);
      }
      return;
    }
    NodeDef with_defaults = node;
    AddDefaultAttrs(data->op_def, &with_defaults);
    bool served = false;
    for (const std::string& type : device_types) {
      served |= kernels.HasKernel(with_defaults, type);
    }
    if (!served) {
      with_defaults.set_name(shown);
      need.nodes_without_kernel.push_back(NodeWithTypes(with_defaults));
    }
  };
  for (const NodeDef& node : def.node()) check(node, node.name());
  // Function bodies: what the calls are lowered into, and what datasets
  // and other ops that take a function run.
  for (const FunctionDef& f : def.library().function()) {
    for (const NodeDef& node : f.node_def()) {
      check(node, absl::StrCat(f.signature().name(), "/", node.name()));
    }
  }
  std::vector<OpNeed> out;
  for (auto& [op, need] : needs) out.push_back(std::move(need));
  return out;
}

int OpsMain(const std::vector<std::string>& args, std::ostream& out,
            std::ostream& err) {
  absl::StatusOr<OpsCommandOptions> options = ParseOpsFlags(args);
  if (!options.ok()) {
    ReportError("ops",
                absl::InvalidArgumentError(absl::StrCat(
                    options.status().message(), " (see 'dfx ops --help')")),
                err);
    return kExitUsage;
  }
  if (options->help) {
    out << kOpsUsage;
    return kExitOk;
  }
  if (options->graph_path.empty()) return ListOps(*options, out);
  return CheckGraph(*options, out, err);
}

}  // namespace dfx::cli
