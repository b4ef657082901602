// Helpers shared by the step-graph optimizer's passes (master/optimizer/ and
// master/graph_optimizer.cc): which nodes a pass may touch, graph order, and
// the edge surgery the passes do. Internal to the master module.
#ifndef DFX_MASTER_OPTIMIZER_UTIL_H_
#define DFX_MASTER_OPTIMIZER_UTIL_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "graph/control_flow.h"
#include "graph/graph.h"
#include "runtime/tensor.h"

namespace dfx::optimizer {

// The nodes the step feeds, fetches or targets, by node name: they keep
// their names and are never removed.
using KeptNodes = absl::flat_hash_set<std::string>;

bool IsCpuDevice(const std::string& full_name);

// Types whose values a rewrite may move around freely.
bool PlainType(DataType t);
bool AllPlainTypes(const Node& n);

// Ops no pass may fold, merge or remove, whatever the registry says.
bool NeverTouched(const Node& n);

// Whether a data input of `n` comes from a ref or resource output (a read
// Identity of a VariableV2 takes its value when it runs: moving or merging
// it could change which value its consumers see).
bool ReadsRefOrResource(const Node& n);

bool HasControlInputs(const Node& n);

// The sources of `n`'s control inputs.
std::vector<Node*> ControlInputs(const Node& n);

// Nodes in an order where every node comes after its inputs, ignoring the
// back edges out of NextIteration nodes.
std::vector<Node*> TopologicalOrder(const Graph& graph);

// Whether `n` is in the root frame (`frames` may be older than `n`: nodes
// added since are in the root frame only when the passes say so, and they
// only add nodes there).
bool InRootFrame(const GraphFrames& frames, const Node& n);

// The Const `n` reads through data input `i` when that Const has no control
// inputs, else null.
const Node* ConstInput(const Node& n, int i);

// The value of a Const node; an error for a malformed one.
absl::StatusOr<Tensor> ConstValue(const Node& c);

// A Const named `name` holding `value` (no device, no inputs).
NodeDef ConstNodeDef(const std::string& name, const Tensor& value);

// Every consumer of output `from_output` of `from` (and, when `from` has
// them, its control consumers) reads `to:to_output` instead, and waits for
// `extra_control` too. `from` itself stays.
void ForwardOutput(Graph* graph, Node* from, int from_output, Node* to,
                   int to_output, const std::vector<Node*>& extra_control);

// Replaces `n` by a node built from `def` (its name must be n's), on n's
// assigned device, with n's out edges (data edges keep their output index)
// and control inputs; `inputs` become its data inputs in order. Returns the
// new node.
struct OutputRef {
  Node* node;
  int index;
};
absl::StatusOr<Node*> ReplaceNode(Graph* graph, Node* n, NodeDef def,
                                  const std::vector<OutputRef>& inputs);

// Removes `n` when nothing reads it (no data or control consumer) and it is
// not kept, then, the same way, those of its inputs that are Consts or in
// `also`, and so on: the callers name only nodes they proved cannot fail.
void RemoveIfUnread(Graph* graph, const KeptNodes& kept, Node* n,
                    const absl::flat_hash_set<const Node*>& also = {});

}  // namespace dfx::optimizer

#endif  // DFX_MASTER_OPTIMIZER_UTIL_H_
