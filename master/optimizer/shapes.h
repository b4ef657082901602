// Static shapes of a step graph's tensors, and the pass that turns Shape,
// Size and Rank of a tensor whose shape is known into Consts (TensorFlow's
// constant folding does the same, "materialize shapes").
#ifndef DFX_MASTER_OPTIMIZER_SHAPES_H_
#define DFX_MASTER_OPTIMIZER_SHAPES_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "graph/control_flow.h"
#include "graph/graph.h"
#include "graph/shape_inference.h"
#include "master/optimizer/util.h"

namespace dfx::optimizer {

// Fed tensor ("x:0") -> the shape its value is known to have (the master
// checks a fed Placeholder's value against the Placeholder's shape attr).
using FeedShapes = absl::flat_hash_map<std::string, PartialShape>;

// What the ops' shape functions say of every output of the graph's
// root-frame nodes, in topological order. Unknown: the outputs of nodes in
// loop frames, of Exits, of stateful ops (a variable's value may change its
// shape), of nodes reading refs or resources, of nodes of non-plain types,
// of nodes whose shape function fails, and of _Recvs other than the client's
// feeds that `feeds` names.
class StepShapes {
 public:
  StepShapes(const Graph& graph, const GraphFrames& frames,
             const FeedShapes& feeds);

  // Unknown for a node added after the constructor ran, unless Alias said.
  const PartialShape& Get(const Node& n, int output) const;
  // `to` (a node added since) has the output shapes `from` had.
  void Alias(int from_id, const Node& to);

 private:
  std::vector<std::vector<PartialShape>> shapes_;
  PartialShape unknown_;
};

// Replaces each root-frame Shape, Size and Rank on a CPU device whose input
// comes from a node on the same device with a statically known (enough)
// shape by a Const of that value, under the same name, with a control edge
// from the input's node (so it still waits for the input, is dead when the
// input is, and fails when the input fails) and the node's own control
// inputs. Returns how many were replaced; Internal only when the graph
// cannot take a Const (a bug).
absl::StatusOr<int> MaterializeShapes(const GraphFrames& frames,
                                      const StepShapes& shapes, Graph* graph);

}  // namespace dfx::optimizer

#endif  // DFX_MASTER_OPTIMIZER_SHAPES_H_
