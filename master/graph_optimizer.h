// The step-graph optimizer: rewrites the pruned, placed graph of one step
// signature before it is partitioned (master/step_planner.cc), without
// changing any result. Passes, in order:
// - constant folding: a stateless single-output node on a CPU device whose
//   data inputs are all Consts (with no control inputs) is evaluated once
//   with the real kernels and replaced, in place and under its own name, by
//   a Const; its output must have a static shape of at most
//   max_folded_constant_in_bytes;
// - dead-branch pruning (master/optimizer/dead_branches.h): what only the
//   untaken side of a Switch with a Const predicate feeds is removed;
// - shape materialization (with constant folding;
//   master/optimizer/shapes.h): Shape, Size and Rank of a tensor whose
//   static shape is known become Consts that wait for the tensor;
// - arithmetic simplification (master/optimizer/arithmetic.h): Add chains
//   to AddN, x*1, x+(-0.0), x-0, Neg(Neg(x)), inverse Transposes, Cast to
//   the same type, no-op Reshape/Squeeze/ExpandDims, Reshape of Reshape;
//   only rewrites that keep every bit of every result;
// - common-subexpression elimination: stateless nodes of the root frame
//   with the same op, attrs, device, inputs (any order for commutative ops)
//   and control inputs are merged into one;
// - Identity and NoOp removal: in the root frame, on one device, never of
//   ref or resource tensors, never next to a control-flow node; a removed
//   Identity's control inputs move to its consumers;
// - remapping (master/optimizer/remapper.h): Conv2D and MatMul with the
//   BiasAdd, inference FusedBatchNorm and activation after them become one
//   _FusedConv2D or _FusedMatMul on CPU devices, as TensorFlow's remapper
//   forms them; the fused node keeps the last node's name. Results may
//   differ from the unfused nodes' in float rounding (the batch norm's).
// Nodes the step feeds, fetches or targets are never removed.
#ifndef DFX_MASTER_GRAPH_OPTIMIZER_H_
#define DFX_MASTER_GRAPH_OPTIMIZER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "graph/graph.h"
#include "master/optimizer/shapes.h"
#include "proto/config.pb.h"
#include "runtime/op_kernel.h"

namespace dfx {

struct GraphOptimizerOptions {
  // Constant folding and shape materialization.
  bool constant_folding = true;
  bool common_subexpression_elimination = true;
  bool remove_identities = true;
  bool arithmetic_simplification = true;
  bool dead_branch_pruning = true;
  bool remapping = true;
  // TensorFlow's default, 10 MiB.
  int64_t max_folded_constant_in_bytes = int64_t{10} << 20;

  bool AnyEnabled() const {
    return constant_folding || common_subexpression_elimination ||
           remove_identities || arithmetic_simplification ||
           dead_branch_pruning || remapping;
  }
  // No pass at all.
  static GraphOptimizerOptions Off() {
    GraphOptimizerOptions off;
    off.constant_folding = false;
    off.common_subexpression_elimination = false;
    off.remove_identities = false;
    off.arithmetic_simplification = false;
    off.dead_branch_pruning = false;
    off.remapping = false;
    return off;
  }
};

// What a session's ConfigProto asks for, as TensorFlow reads it:
// graph_options.rewrite_options.disable_meta_optimizer turns everything off;
// optimizer_options.opt_level L1 (the default) turns on every pass, L0 only
// the ones its do_constant_folding / do_common_subexpression_elimination
// ask for; rewrite_options.constant_folding OFF, dependency_optimization OFF
// and arithmetic_optimization OFF turn off folding (and shape
// materialization), Identity/NoOp removal and arithmetic simplification,
// remapping OFF the fusions;
// a positive max_folded_constant_in_bytes replaces the 10 MiB cap.
// Dead-branch pruning (TensorFlow's loop optimizer, whose toggle dfx's
// RewriterConfig does not carry) is off only with L0 or
// disable_meta_optimizer.
GraphOptimizerOptions GraphOptimizerOptionsFromConfig(
    const ConfigProto& config);

struct GraphOptimizerStats {
  int constants_folded = 0;
  int nodes_merged = 0;  // by CSE
  int identities_removed = 0;
  int noops_removed = 0;
  int shapes_materialized = 0;  // Shape/Size/Rank that became Consts
  int dead_switches = 0;        // Switches whose untaken side was removed
  int dead_nodes_removed = 0;   // the nodes of those sides
  int add_chains = 0;           // Add chains that became one AddN
  int adds_absorbed = 0;        // Adds those chains removed
  int nodes_bypassed = 0;       // x*1, Neg(Neg(x)), ... read x instead
  int conv_fusions = 0;         // _FusedConv2D nodes formed
  int matmul_fusions = 0;       // _FusedMatMul nodes formed
  int nodes_fused = 0;          // nodes those replaced
  int biases_folded = 0;        // BiasAdds folded into a batch norm's mean
  int scale_shifts_fused = 0;   // Mul+Add of Consts fused as a batch norm
};

// Optimizes `graph` in place. Every node must have its assigned device.
// `kept` names nodes that must stay with their names (the step's fed,
// fetched and targeted nodes). `kernels` may be null (no folding and no
// AddN then). `feed_shapes` (may be null) says what shapes the step's fed
// tensors are known to have.
// Errors only for an inconsistent graph (Internal); a node that cannot be
// folded is left as it is, so that its error comes when the step runs.
absl::Status OptimizeStepGraph(
    const GraphOptimizerOptions& options, const std::vector<std::string>& kept,
    const KernelRegistry* kernels, Graph* graph,
    GraphOptimizerStats* stats = nullptr,
    const optimizer::FeedShapes* feed_shapes = nullptr);

}  // namespace dfx

#endif  // DFX_MASTER_GRAPH_OPTIMIZER_H_
