#include "tools/cli/inspect.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <tuple>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/graph.h"
#include "graph/node_def_util.h"
#include "graph/partition.h"
#include "kernels/kernels.h"
#include "master/step_planner.h"
#include "rpc/cluster_spec.h"
#include "runtime/device.h"
#include "tools/cli/command.h"
#include "tools/cli/command_util.h"

namespace dfx::cli {

const char kInspectUsage[] =
    R"(usage: dfx inspect --graph FILE [--local-devices N | --cluster JSON|@FILE]
                   [--feed NAME]... [--fetch NAME[:i]]... [--target NODE]...
                   [--dot OUT.dot] [--allow-soft-placement] [--optimized]

Shows how one step of a graph is placed over N local CPU devices
(/job:localhost/replica:0/task:0/device:CPU:0 .. N-1), or over the tasks of
a cluster, and cut into one partition per device, without running it.

  --graph FILE      GraphDef to inspect: binary (.pb) or text (.pbtxt, .txt)
  --local-devices N number of CPU devices (default 1)
  --cluster JSON|@FILE
                    place over a cluster in TensorFlow's form (as given to
                    'dfx server'), one CPU device per task, the master on
                    /job:worker/task:0 (or the first task); rendezvous keys
                    show made-up incarnations (the servers' are random)
  --feed NAME       tensor the step feeds ("node" or "node:i"; a
                    NAME=VALUE as given to 'dfx run' is accepted too)
  --fetch NAME[:i]  tensor the step fetches (repeatable)
  --target NODE     node the step runs without fetching (repeatable)
  --dot OUT.dot     also write the partitions as a Graphviz file: one
                    cluster per device, data edges solid, control edges
                    dotted, _Send -> _Recv transfers dashed
  --allow-soft-placement
                    move a node whose device does not exist to one that does
  --optimized       show the partitions after the graph optimizer (constant
                    folding, dead branches, arithmetic simplification, CSE,
                    Identity/NoOp removal), as sessions run
                    them by default, and what it did; without it, before
  -h, --help        print this help

Prints the placement (node -> device, by device then node), then for each
partition its nodes with their ops and its transfers: each _Send and _Recv
with the peer device ("client" for the step's feeds and fetches) and its
rendezvous key. At least one --fetch or --target is required. Exit status:
0 on success, 1 for bad input or a placement conflict, 2 for bad flags.
)";

namespace {

absl::Status UsageError(absl::string_view what) {
  return absl::InvalidArgumentError(what);
}

bool IsSend(const NodeDef& n) {
  return n.op() == "_Send" || n.op() == "_HostSend";
}
bool IsRecv(const NodeDef& n) {
  return n.op() == "_Recv" || n.op() == "_HostRecv";
}

std::string StringAttr(const NodeDef& n, absl::string_view name) {
  const AttrValue* attr = FindNodeAttr(n, name);
  return attr != nullptr && attr->has_s() ? attr->s() : std::string();
}

bool ClientTerminated(const NodeDef& n) {
  const AttrValue* attr = FindNodeAttr(n, "client_terminated");
  return attr != nullptr && attr->b();
}

// The device at the other end of a _Send or _Recv; "client" for the step's
// own feeds and fetches.
std::string PeerDevice(const NodeDef& n) {
  if (ClientTerminated(n)) return "client";
  return StringAttr(n, IsSend(n) ? "recv_device" : "send_device");
}

// Devices in `device_order` first, then the others in key order.
std::vector<std::string> OrderedDevices(
    const std::map<std::string, GraphDef>& partitions,
    const std::vector<std::string>& device_order) {
  std::vector<std::string> order;
  for (const std::string& d : device_order) {
    if (partitions.contains(d)) order.push_back(d);
  }
  for (const auto& [d, def] : partitions) {
    if (std::find(order.begin(), order.end(), d) == order.end()) {
      order.push_back(d);
    }
  }
  return order;
}

std::string DotEscape(absl::string_view s) {
  std::string escaped;
  for (char c : s) {
    if (c == '"' || c == '\\') escaped.push_back('\\');
    escaped.push_back(c);
  }
  return escaped;
}

std::string DotQuote(absl::string_view s) {
  return absl::StrCat("\"", DotEscape(s), "\"");
}

absl::Status WriteTextFile(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) {
    return absl::InvalidArgumentError(
        absl::StrCat("--dot: cannot write '", path, "'"));
  }
  f << text;
  f.close();
  if (!f) {
    return absl::InvalidArgumentError(
        absl::StrCat("--dot: cannot write '", path, "'"));
  }
  return absl::OkStatus();
}

void PrintPlan(const StepPlan& plan, const std::vector<std::string>& devices,
               std::ostream& out) {
  absl::flat_hash_map<std::string, size_t> rank;
  for (size_t i = 0; i < devices.size(); ++i) rank[devices[i]] = i;
  auto device_rank = [&rank, &devices](const std::string& d) {
    auto it = rank.find(d);
    return it == rank.end() ? devices.size() : it->second;
  };

  std::vector<std::tuple<size_t, std::string, std::string>> placement;
  std::set<std::string> used;
  for (const auto& [node, device] : plan.placement) {
    placement.emplace_back(device_rank(device), device, node);
    used.insert(device);
  }
  std::sort(placement.begin(), placement.end());
  out << "placement (" << placement.size() << " node"
      << (placement.size() == 1 ? "" : "s") << " on " << used.size() << " of "
      << devices.size() << " device" << (devices.size() == 1 ? "" : "s")
      << "):\n";
  for (const auto& [r, device, node] : placement) {
    out << "  " << node << " -> " << device << "\n";
  }

  const std::vector<std::string> order =
      OrderedDevices(plan.partitions, devices);
  for (const std::string& device : order) {
    const GraphDef& def = plan.partitions.at(device);
    out << "\npartition " << device << " (" << def.node_size() << " node"
        << (def.node_size() == 1 ? "" : "s") << "):\n";
    size_t width = 0;
    for (const NodeDef& n : def.node()) width = std::max(width, n.name().size());
    for (const NodeDef& n : def.node()) {
      out << "  " << n.name() << std::string(width - n.name().size() + 2, ' ')
          << n.op() << "\n";
    }
    bool header = false;
    for (const NodeDef& n : def.node()) {
      if (!IsSend(n) && !IsRecv(n)) continue;
      if (!header) {
        out << "  transfers:\n";
        header = true;
      }
      absl::StatusOr<std::string> key = SendRecvRendezvousKey(n);
      out << "    " << n.op() << " " << n.name()
          << (IsSend(n) ? " -> " : " <- ") << PeerDevice(n) << " key "
          << (key.ok() ? *key : std::string(key.status().message())) << "\n";
    }
  }
  out.flush();
}

}  // namespace

std::string PartitionsToDot(const std::map<std::string, GraphDef>& partitions,
                            const std::vector<std::string>& device_order) {
  const std::vector<std::string> order =
      OrderedDevices(partitions, device_order);
  std::string dot = "digraph dfx {\n  compound=true;\n  node [shape=box];\n";
  // _Recv nodes by rendezvous key, to draw each transfer.
  std::map<std::string, std::vector<std::string>> recvs_by_key;
  std::vector<std::pair<std::string, std::string>> sends;  // (node, key)
  for (size_t i = 0; i < order.size(); ++i) {
    size_t cluster = i;
    if (auto it = std::find(device_order.begin(), device_order.end(),
                            order[i]);
        it != device_order.end()) {
      cluster = static_cast<size_t>(it - device_order.begin());
    } else {
      cluster = device_order.size() + i;
    }
    const GraphDef& def = partitions.at(order[i]);
    absl::StrAppend(&dot, "  subgraph cluster_", cluster, " {\n    label=",
                    DotQuote(order[i]), ";\n");
    for (const NodeDef& n : def.node()) {
      // "\n" is Graphviz's line break inside a label.
      absl::StrAppend(&dot, "    ", DotQuote(n.name()), " [label=\"",
                      DotEscape(n.name()), "\\n", DotEscape(n.op()), "\"");
      if (IsSend(n) || IsRecv(n)) absl::StrAppend(&dot, ", style=rounded");
      absl::StrAppend(&dot, "];\n");
      if (IsSend(n) || IsRecv(n)) {
        absl::StatusOr<std::string> key = SendRecvRendezvousKey(n);
        if (key.ok() && !ClientTerminated(n)) {
          if (IsSend(n)) {
            sends.emplace_back(n.name(), *key);
          } else {
            recvs_by_key[*key].push_back(n.name());
          }
        }
      }
    }
    absl::StrAppend(&dot, "  }\n");
  }
  for (const std::string& device : order) {
    for (const NodeDef& n : partitions.at(device).node()) {
      for (const std::string& input : n.input()) {
        ParsedInput parsed;
        if (!ParseNodeInput(input, &parsed).ok()) continue;
        absl::StrAppend(&dot, "  ", DotQuote(parsed.node), " -> ",
                        DotQuote(n.name()));
        if (parsed.IsControl()) {
          absl::StrAppend(&dot, " [style=dotted]");
        } else if (parsed.index > 0) {
          absl::StrAppend(&dot, " [taillabel=", DotQuote(absl::StrCat(
                                                    ":", parsed.index)),
                          "]");
        }
        absl::StrAppend(&dot, ";\n");
      }
    }
  }
  for (const auto& [send, key] : sends) {
    auto it = recvs_by_key.find(key);
    if (it == recvs_by_key.end()) continue;
    for (const std::string& recv : it->second) {
      absl::StrAppend(&dot, "  ", DotQuote(send), " -> ", DotQuote(recv),
                      " [style=dashed, color=blue];\n");
    }
  }
  dot.append("}\n");
  return dot;
}

absl::StatusOr<InspectCommandOptions> ParseInspectFlags(
    const std::vector<std::string>& args) {
  InspectCommandOptions options;
  DFX_ASSIGN_OR_RETURN(
      std::vector<Flag> flags,
      SplitFlags(args,
                 {"--graph", "--local-devices", "--feed", "--fetch",
                  "--target", "--dot", "--cluster"},
                 {"--allow-soft-placement", "--optimized"}));
  bool local_devices_given = false;
  for (const auto& [flag, value] : flags) {
    if (flag == "--help") {
      options.help = true;
      return options;
    } else if (flag == "--allow-soft-placement") {
      options.allow_soft_placement = true;
    } else if (flag == "--optimized") {
      options.optimized = true;
    } else if (flag == "--graph") {
      if (value.empty()) return UsageError("--graph needs a file name");
      if (!options.graph_path.empty()) {
        return UsageError("--graph given more than once");
      }
      options.graph_path = value;
    } else if (flag == "--local-devices") {
      DFX_ASSIGN_OR_RETURN(options.local_devices, ParseLocalDevices(value));
      local_devices_given = true;
    } else if (flag == "--cluster") {
      if (value.empty()) return UsageError("--cluster needs JSON or @FILE");
      options.cluster = value;
    } else if (flag == "--feed") {
      // "NAME=VALUE" as for dfx run: only the name matters here.
      std::string name = value.substr(0, value.find('='));
      if (name.empty()) return UsageError("--feed needs a tensor name");
      options.feeds.push_back(std::move(name));
    } else if (flag == "--fetch") {
      if (value.empty()) return UsageError("--fetch needs a tensor name");
      options.fetches.push_back(value);
    } else if (flag == "--target") {
      if (value.empty()) return UsageError("--target needs a node name");
      options.targets.push_back(value);
    } else if (flag == "--dot") {
      if (value.empty()) return UsageError("--dot needs a file name");
      options.dot_path = value;
    }
  }
  if (options.graph_path.empty()) return UsageError("--graph is required");
  if (local_devices_given && !options.cluster.empty()) {
    return UsageError("give --local-devices or --cluster, not both");
  }
  if (options.fetches.empty() && options.targets.empty()) {
    return UsageError("give at least one --fetch or --target");
  }
  return options;
}

absl::Status ExecuteInspect(const InspectCommandOptions& options,
                            std::ostream& out) {
  DFX_ASSIGN_OR_RETURN(LoadedGraph loaded, LoadGraphFile(options.graph_path));
  Graph& graph = *loaded.graph;

  StepSignature signature;
  std::set<std::string> seen;
  for (const std::string& name : options.feeds) {
    DFX_RETURN_IF_ERROR(FindTensor(graph, name, "--feed").status());
    if (!seen.insert(name).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("--feed '", name, "' given more than once"));
    }
    signature.feeds.push_back(name);
  }
  seen.clear();
  for (const std::string& name : options.fetches) {
    DFX_RETURN_IF_ERROR(FindTensor(graph, name, "--fetch").status());
    if (seen.insert(name).second) signature.fetches.push_back(name);
  }
  seen.clear();
  for (const std::string& name : options.targets) {
    DFX_RETURN_IF_ERROR(CheckNodeExists(graph, name, "--target"));
    if (seen.insert(name).second) signature.targets.push_back(name);
  }

  PlacementConfig config;
  std::vector<std::string> device_names;
  std::string where =
      absl::StrCat(options.local_devices, " CPU device",
                   options.local_devices == 1 ? "" : "s");
  if (!options.cluster.empty()) {
    std::string text = options.cluster;
    if (text[0] == '@') {
      std::ifstream in(text.substr(1));
      if (!in) {
        return absl::NotFoundError(
            absl::StrCat("--cluster: cannot read '", text.substr(1), "'"));
      }
      std::stringstream buffer;
      buffer << in.rdbuf();
      text = buffer.str();
    }
    DFX_ASSIGN_OR_RETURN(ClusterDef cluster, ParseClusterJson(text));
    std::vector<std::string> tasks;
    for (const JobDef& job : cluster.job()) {
      std::map<int, std::string> sorted(job.tasks().begin(),
                                        job.tasks().end());
      for (const auto& [index, address] : sorted) {
        tasks.push_back(TaskName(job.name(), index));
      }
    }
    // The master's task (worker 0, as `dfx cluster up` prints) first: it is
    // where unconstrained nodes go.
    auto master = std::find(tasks.begin(), tasks.end(),
                            TaskName("worker", 0));
    if (master != tasks.end()) std::rotate(tasks.begin(), master, master + 1);
    uint64_t incarnation = 0x1000;
    for (const std::string& task : tasks) {
      DeviceAttributes attributes;
      attributes.set_name(task + "/device:CPU:0");
      attributes.set_device_type("CPU");
      attributes.set_incarnation(++incarnation);
      config.devices.push_back(attributes);
      device_names.push_back(attributes.name());
    }
    config.default_device = device_names.front();
    where = absl::StrCat("the cluster's ", tasks.size(), " tasks");
  } else {
    CpuDeviceOptions device_options;
    device_options.num_devices = options.local_devices;
    device_options.intra_op_threads = 1;  // nothing runs
    DFX_ASSIGN_OR_RETURN(std::unique_ptr<DeviceMgr> devices,
                         DeviceMgr::NewCpu(device_options));
    for (const Device* d : devices->ListDevices()) {
      config.devices.push_back(d->attributes());
      device_names.push_back(d->name());
    }
  }
  config.kernels = StandardKernelRegistry();
  config.allow_soft_placement = options.allow_soft_placement;
  // The worker's cut: the master registers one graph per task, which its
  // worker splits this way.
  config.partition_per_device = true;
  config.record_placement = true;
  config.optimizer = options.optimized ? GraphOptimizerOptions()
                                       : GraphOptimizerOptions::Off();

  absl::Status placed = PlaceSessionGraph(config, &graph);
  if (!placed.ok()) {
    return absl::Status(
        placed.code(),
        absl::StrCat("placing graph '", options.graph_path, "' on ", where,
                     ": ", placed.message()));
  }
  DFX_ASSIGN_OR_RETURN(StepPlan plan, PlanStep(graph, config, signature));
  // The file first, so that a failure prints nothing but the error.
  if (!options.dot_path.empty()) {
    DFX_RETURN_IF_ERROR(WriteTextFile(
        options.dot_path, PartitionsToDot(plan.partitions, device_names)));
  }
  if (options.optimized) {
    const GraphOptimizerStats& stats = plan.optimizer_stats;
    out << "optimizer: " << stats.constants_folded << " constants folded, "
        << stats.shapes_materialized << " shapes materialized, "
        << stats.dead_switches << " dead branches (" << stats.dead_nodes_removed
        << " nodes) removed, " << stats.add_chains << " Add chains ("
        << stats.adds_absorbed << " Adds) to AddN, " << stats.nodes_bypassed
        << " nodes bypassed, " << stats.nodes_merged << " nodes merged, "
        << stats.identities_removed << " Identity and " << stats.noops_removed
        << " NoOp nodes removed, " << stats.conv_fusions
        << " _FusedConv2D and " << stats.matmul_fusions
        << " _FusedMatMul formed (of " << stats.nodes_fused << " nodes)\n";
  }
  PrintPlan(plan, device_names, out);
  return absl::OkStatus();
}

int InspectMain(const std::vector<std::string>& args, std::ostream& out,
                std::ostream& err) {
  absl::StatusOr<InspectCommandOptions> options = ParseInspectFlags(args);
  if (!options.ok()) {
    ReportError("inspect",
                absl::InvalidArgumentError(absl::StrCat(
                    options.status().message(), " (see 'dfx inspect --help')")),
                err);
    return kExitUsage;
  }
  if (options->help) {
    out << kInspectUsage;
    return kExitOk;
  }
  absl::Status s = ExecuteInspect(*options, out);
  if (!s.ok()) {
    ReportError("inspect", s, err);
    return kExitError;
  }
  return kExitOk;
}

}  // namespace dfx::cli
