// Partition: cuts a placed Graph into one GraphDef per location (device),
// joining every edge that crosses a cut with a _Send/_Recv pair; and the
// rendezvous key a _Send/_Recv node's attrs stand for.
#ifndef DFX_GRAPH_PARTITION_H_
#define DFX_GRAPH_PARTITION_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "graph/graph.h"
#include "proto/graph.pb.h"

namespace dfx {

struct PartitionOptions {
  // The partition a node belongs to. Default: its assigned_device_name(),
  // which must then be non-empty. An empty location is InvalidArgument
  // naming the node.
  std::function<std::string(const Node*)> node_to_loc;

  // The incarnation of a full device name, written into every inserted
  // _Send/_Recv (send_device_incarnation, the int64 holding the uint64
  // bits). Required when any edge crosses partitions (InvalidArgument
  // otherwise).
  std::function<uint64_t(const std::string& device)> get_incarnation;

  // A node name not used before, from a prefix (the source node's name).
  // Default: "<prefix>/_<n>" from a counter local to the Partition call,
  // skipping names the graph or earlier calls already hold.
  std::function<std::string(const std::string& prefix)> new_name;
};

// Cuts `graph` into partitions, keyed by location (with the default
// node_to_loc, the full device name). Follows TensorFlow's graph_partition:
// - Each node goes to its location's GraphDef with its `device` field set to
//   its assigned device name (its location when that is empty) and its
//   inputs rebuilt: data inputs in slot order, then control inputs.
// - A data edge between locations becomes a `_Send` in the source partition
//   and a `_Recv` in the destination partition, one pair per (source node,
//   output, destination partition) however many consumers there are. Attrs:
//   tensor_name "edge_<id of the first such edge>_<source node name>";
//   send_device / recv_device: the source's and the (first) consumer's
//   devices; send_device_incarnation from get_incarnation(send_device);
//   client_terminated false; T / tensor_type the output's base dtype (a
//   reference travels by value). Each node's `device` is its partition's.
// - A control edge between locations becomes a Const (DT_FLOAT, shape [0])
//   in the source partition with a control input from the source, sent by a
//   _Send/_Recv pair, and a control input from that _Recv on the
//   destination (one pair per (source node, destination partition)).
// - Loops (TF1 frames) that span partitions: every partition that receives
//   a value inside loop frame F gets a control loop of its own for F —
//   Const -> Enter(F) -> Merge <- NextIteration <- Switch(Merge, LoopCond):1
//   (float dummies named "_cloop/<frame>/_<n>"), with the frame's LoopCond
//   received from its partition when it lives elsewhere — and each _Recv of
//   F in that partition gets a control input from the control loop's Merge,
//   so it runs once per iteration in F's frame and iteration (whose ids are
//   part of the rendezvous key). A nested frame's control Enter reads its
//   parent frame's control Merge. An Enter's or NextIteration's output is
//   never cut (it belongs to iteration 0, or to the next iteration): the
//   node is copied into the consuming partition (named new_name(node)) and
//   its input crosses instead. No round trip to the master per iteration:
//   the LoopCond's value is the only extra tensor sent.
// - Every partition gets the graph's versions and library.
// Inserted nodes are named by new_name(source node name), so names stay
// unique over all partitions. Output is deterministic (nodes follow the
// graph's id order; inserted nodes come where they are first needed). Each
// partition imports with ImportOptions::allow_internal_names.
// Errors: InvalidArgument naming the node for an empty location or an
// unconnected data input, or when get_incarnation is needed but unset; for a
// graph whose loops cross partitions, BuildGraphFrames' errors and a frame
// without a LoopCond.
absl::StatusOr<std::map<std::string, GraphDef>> Partition(
    const Graph& graph, const PartitionOptions& opts = {});
// The same for a graph the caller is done with: its NodeDefs are moved into
// the partitions instead of copied (a third of a 100,000-node step's
// partitioning).
absl::StatusOr<std::map<std::string, GraphDef>> Partition(
    std::unique_ptr<Graph> graph, const PartitionOptions& opts = {});

// True for the ops that hand a tensor to another device: _Send and
// _HostSend; _Recv and _HostRecv.
bool IsSendOp(absl::string_view op);
bool IsRecvOp(absl::string_view op);

// "src_device;%016x src_incarnation;dst_device;tensor_name;0:0", the key
// runtime's Rendezvous::CreateKey builds for a top-level graph.
std::string SendRecvRendezvousKey(absl::string_view src_device,
                                  uint64_t src_incarnation,
                                  absl::string_view dst_device,
                                  absl::string_view tensor_name);

// The key a _Send, _Recv, _HostSend or _HostRecv node uses, from its attrs
// (send_device, send_device_incarnation, recv_device, tensor_name).
// InvalidArgument naming the node for another op or a missing or malformed
// attr.
absl::StatusOr<std::string> SendRecvRendezvousKey(const NodeDef& node);

}  // namespace dfx

#endif  // DFX_GRAPH_PARTITION_H_
