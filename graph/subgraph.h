// Rewriting a client graph for one step: feeds become _Arg nodes, fetches
// _Retval nodes, and the graph is pruned to what the fetches and targets
// need.
#ifndef DFX_GRAPH_SUBGRAPH_H_
#define DFX_GRAPH_SUBGRAPH_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "graph/op_registry.h"
#include "proto/graph.pb.h"

namespace dfx {

// A tensor name split into node and output index.
struct TensorId {
  std::string node;
  int index = 0;
  // "node:index".
  std::string ToString() const;
};

// Parses "node" (output 0) or "node:3". InvalidArgument naming the tensor for
// an empty node name, a bad index or a control input ("^node").
absl::StatusOr<TensorId> ParseTensorName(absl::string_view name);

// Rewrites `full` for a step with the given feeds, fetches and targets:
// - every use of fed tensor i becomes a use of a new `_Arg` node (attr index
//   = i, T = the tensor's dtype);
// - fetch j gets a `_Retval` node (index = j) reading the fetched tensor (its
//   `_Arg` when the tensor is also fed);
// - only nodes reachable backwards (data and control inputs) from the
//   `_Retval`s and the target nodes remain; a fed tensor cuts its producer
//   off unless the producer is needed for something else; unused `_Arg`s go.
// Every node's `device` field is cleared. Output order is deterministic:
// _Arg nodes in feed order, kept nodes in their order in `full`, then _Retval
// nodes in fetch order.
// Errors: `full` fails ImportGraphDef (its error); InvalidArgument naming the
// tensor for a feed or fetch of an unknown node or an output out of range,
// for a tensor fed twice, and naming the target for a target that is not a
// node name.
absl::StatusOr<GraphDef> RewriteForCallFrame(
    const GraphDef& full, absl::Span<const std::string> feeds,
    absl::Span<const std::string> fetches,
    absl::Span<const std::string> targets,
    const OpRegistry* ops = OpRegistry::Global());

}  // namespace dfx

#endif  // DFX_GRAPH_SUBGRAPH_H_
