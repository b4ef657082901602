#include "master/step_planner.h"

#include <map>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/client_graph.h"
#include "graph/device_name.h"
#include "graph/node_def_util.h"
#include "graph/partition.h"
#include "graph/placer.h"
#include "graph/shape_inference.h"
#include "graph/subgraph.h"
#include "graph/types.h"

namespace dfx {
namespace {

const DeviceAttributes* FindDevice(const PlacementConfig& config,
                                   const std::string& name) {
  for (const DeviceAttributes& d : config.devices) {
    if (d.name() == name) return &d;
  }
  return nullptr;
}

// The string attr `name` of `n`, or null.
const std::string* StringAttrOf(const NodeDef& n, absl::string_view name) {
  const AttrValue* v = FindNodeAttr(n, name);
  return v == nullptr ? nullptr : &v->s();
}

// Every _Recv of the step must have something that sends to it: a _Send of
// the step with the same (send_device, recv_device, tensor_name), or, for
// a client-terminated one, a feed. A graph the client wrote with a _Recv
// and no sender would otherwise wait for ever.
absl::Status CheckEveryRecvHasASender(
    const std::map<std::string, GraphDef>& partitions,
    const StepSignature& signature) {
  absl::flat_hash_set<std::string> sent;
  const auto key = [](const NodeDef& n) -> std::string {
    const std::string* src = StringAttrOf(n, "send_device");
    const std::string* dst = StringAttrOf(n, "recv_device");
    const std::string* tensor = StringAttrOf(n, "tensor_name");
    if (src == nullptr || dst == nullptr || tensor == nullptr) return "";
    return absl::StrCat(*src, ";", *dst, ";", *tensor);
  };
  for (const auto& [device, def] : partitions) {
    for (const NodeDef& n : def.node()) {
      if (IsSendOp(n.op())) sent.insert(key(n));
    }
  }
  // Feeds by canonical name ("x" is "x:0"), as the client _Recvs have them.
  absl::flat_hash_set<std::string> fed;
  for (const std::string& feed : signature.feeds) {
    absl::StatusOr<TensorId> id = ParseTensorName(feed);
    fed.insert(id.ok() ? id->ToString() : feed);
  }
  for (const auto& [device, def] : partitions) {
    for (const NodeDef& n : def.node()) {
      if (!IsRecvOp(n.op())) continue;
      const AttrValue* client = FindNodeAttr(n, "client_terminated");
      if (client != nullptr && client->b()) {
        const std::string* tensor = StringAttrOf(n, "tensor_name");
        if (tensor != nullptr && fed.contains(*tensor)) continue;
        return absl::InvalidArgumentError(absl::StrCat(
            "node '", n.name(), "' (op ", n.op(), ") waits for tensor '",
            tensor == nullptr ? std::string() : *tensor,
            "' from the client, which the step does not feed: it would wait "
            "for ever"));
      }
      if (sent.contains(key(n))) continue;
      const std::string* src = StringAttrOf(n, "send_device");
      const std::string* tensor = StringAttrOf(n, "tensor_name");
      return absl::InvalidArgumentError(absl::StrCat(
          "node '", n.name(), "' (op ", n.op(), ") waits for tensor '",
          tensor == nullptr ? std::string() : *tensor, "' from device '",
          src == nullptr ? std::string() : *src,
          "', which no _Send of the step sends: it would wait for ever"));
    }
  }
  return absl::OkStatus();
}

// How big a fed tensor may be for the master to hand it to the tasks that
// read it (ForwardSmallFeeds): a RunGraph carries feeds as TensorProtos.
constexpr int64_t kMaxForwardedFeedBytes = 64 << 10;

// The declared shape of each fed Placeholder (output 0) that has one, by
// canonical name: the master checks every fed value against it
// (MasterSession::Run), so the step may count on it.
optimizer::FeedShapes DeclaredFeedShapes(const Graph& placed,
                                         const StepSignature& signature) {
  optimizer::FeedShapes shapes;
  for (const std::string& feed : signature.feeds) {
    absl::StatusOr<TensorId> id = ParseTensorName(feed);
    if (!id.ok() || id->index != 0) continue;
    const Node* n = placed.FindNode(id->node);
    if (n == nullptr || !absl::StartsWith(n->type_string(), "Placeholder")) {
      continue;
    }
    const AttrValue* shape = FindNodeAttr(n->def(), "shape");
    if (shape != nullptr && shape->has_shape()) {
      shapes[id->ToString()] = PartialShape::FromProto(shape->shape());
    }
  }
  return shapes;
}

// The fed tensors (of `declared`) the step knows to be at most
// kMaxForwardedFeedBytes: a fully defined shape and a fixed-size dtype.
absl::flat_hash_set<std::string> SmallFeeds(
    const Graph& placed, const optimizer::FeedShapes& declared) {
  absl::flat_hash_set<std::string> small;
  for (const auto& [name, shape] : declared) {
    if (!shape.FullyDefined()) continue;
    const Node* n = placed.FindNode(ParseTensorName(name)->node);
    const int element_bytes = DataTypeSize(BaseType(n->output_type(0)));
    if (element_bytes <= 0) continue;
    int64_t bytes = element_bytes;
    for (int64_t d : shape.dims) {
      bytes *= d;
      if (bytes > kMaxForwardedFeedBytes) break;
    }
    if (bytes <= kMaxForwardedFeedBytes) small.insert(name);
  }
  return small;
}

// "/job:worker/replica:0/task:3/device:CPU:0" -> "worker_0_3_CPU_0", for
// node names.
std::string DeviceSuffix(const DeviceName& d) {
  return absl::StrCat(d.job, "_", d.replica, "_", d.task, "_", d.type, "_",
                      d.id);
}

// Gives each CPU device of another task than the client's that reads a
// small fed tensor (SmallFeeds) a client-terminated _Recv of its own
// (send_device = recv_device = that device), so that the master sends the
// value with that task's RunGraph: the client's task no longer sends it on
// (one transfer less on the step's critical path, and no message between
// the tasks). The client's _Recv keeps its other readers, and goes when it
// has none.
absl::Status ForwardSmallFeeds(const PlacementConfig& config,
                               const std::string& client_device,
                               const absl::flat_hash_set<std::string>& small,
                               Graph* step) {
  if (small.empty()) return absl::OkStatus();
  DFX_ASSIGN_OR_RETURN(DeviceName client, DeviceName::Parse(client_device));
  const std::string client_task = client.TaskName();
  std::vector<Node*> recvs;
  for (Node* n : step->nodes()) {
    if (!IsRecvOp(n->type_string()) ||
        n->assigned_device_name() != client_device) {
      continue;
    }
    const AttrValue* terminated = FindNodeAttr(n->def(), "client_terminated");
    const std::string* tensor = StringAttrOf(n->def(), "tensor_name");
    if (terminated != nullptr && terminated->b() && tensor != nullptr &&
        small.contains(*tensor)) {
      recvs.push_back(n);
    }
  }
  for (Node* recv : recvs) {
    // The readers' edges by device, in name order (deterministic names).
    struct Readers {
      DeviceName name;
      uint64_t incarnation = 0;
      std::vector<const Edge*> edges;
    };
    std::map<std::string, Readers> by_device;
    for (const Edge* e : recv->out_edges()) {
      if (e->IsControlEdge()) continue;
      const std::string& device = e->dst->assigned_device_name();
      absl::StatusOr<DeviceName> name = DeviceName::Parse(device);
      const DeviceAttributes* attributes = FindDevice(config, device);
      if (!name.ok() || !name->IsFullySpecified() || name->type != "CPU" ||
          name->TaskName() == client_task || attributes == nullptr) {
        continue;
      }
      Readers& readers = by_device[device];
      readers.name = *std::move(name);
      readers.incarnation = attributes->incarnation();
      readers.edges.push_back(e);
    }
    for (const auto& [device, readers] : by_device) {
      const std::string base =
          absl::StrCat(recv->name(), "/", DeviceSuffix(readers.name));
      std::string node_name = base;
      for (int i = 1; step->FindNode(node_name) != nullptr; ++i) {
        node_name = absl::StrCat(base, "_", i);
      }
      NodeDef def = recv->def();
      def.set_name(node_name);
      def.set_device(device);
      auto& attr = *def.mutable_attr();
      attr["send_device"].set_s(device);
      attr["recv_device"].set_s(device);
      attr["send_device_incarnation"].set_i(
          static_cast<int64_t>(readers.incarnation));
      DFX_ASSIGN_OR_RETURN(Node * forwarded, step->AddNode(std::move(def)));
      forwarded->set_assigned_device_name(device);
      for (const Edge* e : readers.edges) {
        Node* dst = e->dst;
        const int input = e->dst_input;
        step->RemoveEdge(e);
        step->AddEdge(forwarded, 0, dst, input);
      }
    }
    if (recv->out_edges().empty()) step->RemoveNode(recv);
  }
  return absl::OkStatus();
}

std::string DefaultDevice(const PlacementConfig& config) {
  if (!config.default_device.empty()) return config.default_device;
  return config.devices.empty() ? std::string() : config.devices[0].name();
}

}  // namespace

absl::Status PlaceSessionGraph(const PlacementConfig& config, Graph* graph) {
  PlacerOptions options;
  for (const DeviceAttributes& d : config.devices) {
    options.devices.push_back({d.name(), d.device_type()});
  }
  options.default_device = DefaultDevice(config);
  options.allow_soft_placement = config.allow_soft_placement;
  if (config.kernels != nullptr) {
    const KernelRegistry* kernels = config.kernels;
    options.has_kernel = [kernels](const Node& n, const std::string& type) {
      return kernels->HasKernel(n.def(), type);
    };
  }
  return PlaceGraph(options, graph);
}

absl::StatusOr<StepPlan> PlanStep(const Graph& placed,
                                  const PlacementConfig& config,
                                  const StepSignature& signature) {
  const std::string client_device = DefaultDevice(config);
  const DeviceAttributes* client = FindDevice(config, client_device);
  if (client == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("client device '", client_device, "' is not a device "
                     "of the cluster"));
  }
  ClientGraphOptions options;
  options.feeds = signature.feeds;
  options.fetches = signature.fetches;
  options.targets = signature.targets;
  options.client_device = client_device;
  options.client_device_incarnation = client->incarnation();
  DFX_ASSIGN_OR_RETURN(std::unique_ptr<Graph> step,
                       RewriteForStep(placed, options));
  DFX_ASSIGN_OR_RETURN(ClientRendezvousKeys keys,
                       ClientStepRendezvousKeys(options));

  StepPlan plan;
  // Nodes of the session graph keep their placement (RewriteForStep copies
  // it); the client endpoints live on the client device.
  for (const Node* n : step->nodes()) {
    const std::string& device = n->assigned_device_name();
    if (device.empty()) {
      return absl::InternalError(
          absl::StrCat("node '", n->name(), "' was never placed"));
    }
    if (config.record_placement) plan.placement[n->name()] = device;
  }
  const optimizer::FeedShapes feed_shapes =
      DeclaredFeedShapes(placed, signature);
  if (config.optimizer.AnyEnabled()) {
    std::vector<std::string> kept = signature.feeds;
    kept.insert(kept.end(), signature.fetches.begin(),
                signature.fetches.end());
    kept.insert(kept.end(), signature.targets.begin(),
                signature.targets.end());
    DFX_RETURN_IF_ERROR(OptimizeStepGraph(
        config.optimizer, kept, config.kernels, step.get(),
        &plan.optimizer_stats, &feed_shapes));
  }
  DFX_RETURN_IF_ERROR(ForwardSmallFeeds(config, client_device,
                                        SmallFeeds(placed, feed_shapes),
                                        step.get()));
  absl::flat_hash_map<std::string, uint64_t> incarnations;
  for (const DeviceAttributes& d : config.devices) {
    incarnations[d.name()] = d.incarnation();
  }
  PartitionOptions popts;
  if (!config.partition_per_device) {
    // Each device's task, parsed once per device, not once per node.
    using TaskOfDevice = absl::flat_hash_map<std::string, std::string>;
    popts.node_to_loc = [tasks = TaskOfDevice()](
                            const Node* n) mutable -> std::string {
      const std::string& device = n->assigned_device_name();
      auto it = tasks.find(device);
      if (it == tasks.end()) {
        absl::StatusOr<DeviceName> name = DeviceName::Parse(device);
        // Every device here is a full name from the cluster; a name that
        // is not stays its own partition and fails at its worker, named.
        it = tasks.emplace(device, name.ok() ? name->TaskName() : device)
                 .first;
      }
      return it->second;
    };
  }
  popts.get_incarnation = [&incarnations](const std::string& device) {
    auto it = incarnations.find(device);
    return it == incarnations.end() ? uint64_t{0} : it->second;
  };
  DFX_ASSIGN_OR_RETURN(plan.partitions, Partition(std::move(step), popts));
  DFX_RETURN_IF_ERROR(CheckEveryRecvHasASender(plan.partitions, signature));
  plan.feed_keys = std::move(keys.feed_keys);
  plan.fetch_keys = std::move(keys.fetch_keys);
  return plan;
}

}  // namespace dfx
