// The placer: assigns every node of a graph to one device, honouring device
// constraints, colocation groups and kernel availability.
#ifndef DFX_GRAPH_PLACER_H_
#define DFX_GRAPH_PLACER_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "graph/graph.h"

namespace dfx {

struct PlacerDevice {
  std::string name;  // full name, e.g. /job:worker/replica:0/task:1/device:CPU:0
  std::string type;  // "CPU", "GPU"
};

struct PlacerOptions {
  // Candidate devices in preference order (the order breaks ties, so the
  // result is deterministic). Must not be empty.
  std::vector<PlacerDevice> devices;
  // Where unconstrained nodes with no placed input go; defaults to the
  // first device.
  std::string default_device;
  // True when some kernel serves `node` on a device of `device_type`. When
  // unset every node is assumed to run everywhere.
  std::function<bool(const Node& node, const std::string& device_type)>
      has_kernel;
  // Move a node whose requested device matches nothing, or has no kernel
  // for it, to a device that can run it instead of failing.
  bool allow_soft_placement = false;
};

// Sets every node's assigned device name. The rules, in order:
//  - nodes in one colocation group run on one device: a group is formed by
//    the `_class` attr ("loc:@other_node") and by edges carrying a reference
//    or resource (a node that takes a variable's ref goes with the
//    variable);
//  - a group's requested devices (full or partial specs) are merged; the
//    group may go only to devices matching the merged spec and having a
//    kernel for every member;
//  - among those, a group prefers the device of its first placed data input
//    (no transfer), then the default device, then the first candidate;
//  - then, as TensorFlow's placer does with generator nodes, a Const in no
//    colocation group moves to its consumers' device when all its data
//    consumers are on one device that its own request allows and that has
//    a kernel for it (a constant a ps-side update uses stays on the ps).
// Errors are InvalidArgument naming the nodes and devices: a malformed
// device spec, colocation with an unknown node, colocated nodes asking for
// different devices, and — without soft placement — a spec no device
// matches or a device with no kernel for the node.
absl::Status PlaceGraph(const PlacerOptions& options, Graph* graph);

}  // namespace dfx

#endif  // DFX_GRAPH_PLACER_H_
