// Planning a step: place the session's graph over the cluster's devices, and
// for one (feeds, fetches, targets) prune it, add the client endpoints and
// cut it into one partition per task (as TensorFlow's master does; each
// worker cuts its partition again by device) or per device.
#ifndef DFX_MASTER_STEP_PLANNER_H_
#define DFX_MASTER_STEP_PLANNER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/graph.h"
#include "master/graph_optimizer.h"
#include "proto/debug.pb.h"
#include "proto/device_attributes.pb.h"
#include "runtime/op_kernel.h"

namespace dfx {

struct PlacementConfig {
  // Every device of the cluster, in preference order.
  std::vector<DeviceAttributes> devices;
  // Unconstrained nodes with no placed input go here (the client's CPU:0).
  std::string default_device;
  // Decides which devices can run a node; null means any.
  const KernelRegistry* kernels = nullptr;
  bool allow_soft_placement = false;
  // What PlanStep's optimizer does to each step graph (on by default).
  GraphOptimizerOptions optimizer;
  // PlanStep's cut: one partition per task (the master's: one
  // RegisterGraph and one RunGraph per task and step, whatever its number
  // of devices), or per device (`dfx inspect`, to show the worker's cut).
  bool partition_per_device = false;
  // Fill StepPlan::placement (`dfx inspect`; the master does not read it,
  // and a name-sorted map of every node costs a 100,000-node step's plan
  // about 4%).
  bool record_placement = false;
};

// Assigns every node of the session's full graph to a device (placing the
// whole graph once keeps a node's device the same for every step).
// InvalidArgument naming nodes and devices on conflicts.
absl::Status PlaceSessionGraph(const PlacementConfig& config, Graph* graph);

struct StepSignature {
  std::vector<std::string> feeds;
  std::vector<std::string> fetches;
  std::vector<std::string> targets;
  // The run's tfdbg watches (RunOptions.debug_options' tensor watches),
  // which the workers insert into their partitions; not read by PlanStep.
  DebugOptions debug_options;
};

struct StepPlan {
  // Partitions keyed by task ("/job:worker/replica:0/task:0") or, with
  // PlacementConfig::partition_per_device, by full device name; every
  // node's `device` is its own device.
  std::map<std::string, GraphDef> partitions;
  // Rendezvous keys of the client feeds and fetches, in signature order,
  // on the client device. A small feed read on another task's CPU device
  // is received there instead (or too) by a _Recv of its own, whose key
  // names that device (SendRecvRendezvousKey of the node).
  std::vector<std::string> feed_keys;
  std::vector<std::string> fetch_keys;
  // Node name -> device for every node of the pruned step graph (before
  // it is optimized); only with PlacementConfig::record_placement.
  std::map<std::string, std::string> placement;
  // What the optimizer did to the step graph.
  GraphOptimizerStats optimizer_stats;
};

// Runs the step-graph optimizer (config.optimizer) between pruning and
// partitioning; then a fed Placeholder of at most 64 KiB (fully defined
// declared shape) read on another task's CPU device gets a client-terminated
// _Recv there, so that the master sends its value with that task's
// RunGraph instead of the client's task sending it on.
// REQUIRES: `placed` went through PlaceSessionGraph with `config`.
// InvalidArgument naming the tensor or node for a bad feed, fetch or target.
absl::StatusOr<StepPlan> PlanStep(const Graph& placed,
                                  const PlacementConfig& config,
                                  const StepSignature& signature);

}  // namespace dfx

#endif  // DFX_MASTER_STEP_PLANNER_H_
