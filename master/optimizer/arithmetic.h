// Arithmetic simplification of a step graph: rewrites that give bit for bit
// the result the original nodes give (TensorFlow's Grappler does more, and
// some of it changes results: see the .cc and docs/architecture.md).
#ifndef DFX_MASTER_OPTIMIZER_ARITHMETIC_H_
#define DFX_MASTER_OPTIMIZER_ARITHMETIC_H_

#include "absl/status/statusor.h"
#include "graph/control_flow.h"
#include "graph/graph.h"
#include "master/optimizer/shapes.h"
#include "master/optimizer/util.h"
#include "runtime/op_kernel.h"

namespace dfx::optimizer {

struct ArithmeticStats {
  int add_chains = 0;      // chains of Add/AddV2 that became one AddN
  int adds_absorbed = 0;   // Add/AddV2 nodes those chains removed
  int nodes_bypassed = 0;  // x*1, x+(-0.0), Neg(Neg(x)), Cast to T, ...
};

// On root-frame nodes, all on one device, of plain types, with static
// shapes from `shapes` (kept up to date for the nodes it replaces):
// - a node whose value is its input's, bit for bit, is bypassed (its
//   consumers read the input; control inputs move to them): x*1 and 1*x
//   (real types), x+c and c+x with c all -0.0 (floats) or 0 (integers),
//   x-c with c all +0.0 or 0, each only when the result has x's static
//   shape (a scalar c never broadcasts x); Neg(Neg(x)); Transpose by the
//   identity permutation, or of a Transpose by the inverse permutation, when
//   x's rank is known; Cast to x's own dtype; Reshape, Squeeze and
//   ExpandDims (and chains of them) whose static output shape is x's;
// - Reshape of a chain of Reshape/Squeeze/ExpandDims whose shapes are all
//   static reads the chain's input;
// - a chain of Add/AddV2 (float, double, int32, int64) whose inputs and
//   results all have one static shape, whose inner nodes feed only the next
//   and are not kept, becomes one AddN under the last one's name: for
//   floats only a chain (each Add absorbs at most one inner Add, so AddN's
//   left-to-right sum adds in the same order), for integers any tree.
// Kept nodes are never bypassed (an AddN keeps the chain's last name).
// Internal only for a graph that cannot take the rewrite (a bug).
absl::StatusOr<ArithmeticStats> SimplifyArithmetic(
    const KeptNodes& kept, const GraphFrames& frames,
    const KernelRegistry* kernels, StepShapes* shapes, Graph* graph);

}  // namespace dfx::optimizer

#endif  // DFX_MASTER_OPTIMIZER_ARITHMETIC_H_
