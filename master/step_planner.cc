#include "master/step_planner.h"

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/client_graph.h"
#include "graph/partition.h"
#include "graph/placer.h"

namespace dfx {
namespace {

const DeviceAttributes* FindDevice(const PlacementConfig& config,
                                   const std::string& name) {
  for (const DeviceAttributes& d : config.devices) {
    if (d.name() == name) return &d;
  }
  return nullptr;
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
  // Nodes of the session graph keep their placement; the client endpoints
  // live on the client device.
  for (Node* n : step->nodes()) {
    const Node* original = placed.FindNode(n->name());
    std::string device = original != nullptr
                             ? original->assigned_device_name()
                             : client_device;
    if (device.empty()) {
      return absl::InternalError(
          absl::StrCat("node '", n->name(), "' was never placed"));
    }
    n->set_assigned_device_name(device);
    plan.placement[n->name()] = device;
  }
  absl::flat_hash_map<std::string, uint64_t> incarnations;
  for (const DeviceAttributes& d : config.devices) {
    incarnations[d.name()] = d.incarnation();
  }
  PartitionOptions popts;
  popts.get_incarnation = [&incarnations](const std::string& device) {
    auto it = incarnations.find(device);
    return it == incarnations.end() ? uint64_t{0} : it->second;
  };
  DFX_ASSIGN_OR_RETURN(plan.partitions, Partition(*step, popts));
  plan.feed_keys = std::move(keys.feed_keys);
  plan.fetch_keys = std::move(keys.fetch_keys);
  return plan;
}

}  // namespace dfx
