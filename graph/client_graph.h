// RewriteForStep: the client graph of one step, with each feed a
// client-terminated _Recv and each fetch a client-terminated _Send, pruned to
// what the fetches and targets need; and the rendezvous keys of those feeds
// and fetches.
#ifndef DFX_GRAPH_CLIENT_GRAPH_H_
#define DFX_GRAPH_CLIENT_GRAPH_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/graph.h"

namespace dfx {

struct ClientGraphOptions {
  // Tensor names "node:i" ("node" means "node:0").
  std::vector<std::string> feeds;
  std::vector<std::string> fetches;
  // Node names to run without fetching anything.
  std::vector<std::string> targets;
  // The full name of the device the client's tensors come from and go to
  // (the master task's CPU:0), and its incarnation.
  std::string client_device;
  uint64_t client_device_incarnation = 0;
};

// Returns a new graph for one step over `graph` (TensorFlow's convention):
// - each fed tensor "x:i" becomes a `_Recv` named "_recv_x_i" (tensor_type:
//   the tensor's base dtype; tensor_name "x:i"; send_device = recv_device =
//   client_device; send_device_incarnation = client_device_incarnation;
//   client_terminated true) whose output replaces every use of x:i;
// - each fetched tensor "y:j" gets a `_Send` named "_send_y_j" (T: the
//   base dtype, tensor_name "y:j", the same device attrs) reading y:j, or
//   its _Recv when y:j is also fed; a tensor fetched twice gets one _Send;
// - only the nodes reachable backwards over data and control edges from the
//   _Sends and the targets remain: a fed tensor cuts its producer off unless
//   the producer is needed through another output or a control edge. A
//   _Recv nothing reads is dropped.
// The inserted nodes have device and assigned device `client_device`; kept
// nodes keep their requested and assigned devices and attrs. Should an
// inserted name be taken, "_<n>" is appended. Node order is deterministic:
// _Recvs in feed order, kept nodes in `graph`'s id order, then _Sends in
// fetch order. `graph` is not changed; the result uses its op registry.
// Errors, all InvalidArgument naming the tensor or node: a malformed tensor
// name, a feed or fetch of a missing node or output, a tensor fed twice, a
// target that is not a node name, a fed tensor that a node takes as a
// reference, and a client_device that is not a full device name when there
// are feeds or fetches.
absl::StatusOr<std::unique_ptr<Graph>> RewriteForStep(
    const Graph& graph, const ClientGraphOptions& options);

// The rendezvous keys ("client;%016x incarnation;client;x:i;0:0") of the
// step's feeds and fetches, in the order of `options`, matching the keys the
// _Recv and _Send nodes of RewriteForStep use: the master puts feed i into
// RunGraph under feed_keys[i] and reads fetch j back under fetch_keys[j].
struct ClientRendezvousKeys {
  std::vector<std::string> feed_keys;
  std::vector<std::string> fetch_keys;
};
// InvalidArgument naming the tensor for a malformed tensor name.
absl::StatusOr<ClientRendezvousKeys> ClientStepRendezvousKeys(
    const ClientGraphOptions& options);

}  // namespace dfx

#endif  // DFX_GRAPH_CLIENT_GRAPH_H_
