// The remapper: fuses a convolution or matrix product with the bias, batch
// norm and activation after it into one _FusedConv2D or _FusedMatMul node
// (kernels/conv/fused_kernels.cc), as TensorFlow's Grappler remapper does
// on CPU (tensorflow/core/grappler/optimizers/remapper.cc).
#ifndef DFX_MASTER_OPTIMIZER_REMAPPER_H_
#define DFX_MASTER_OPTIMIZER_REMAPPER_H_

#include "absl/status/statusor.h"
#include "graph/control_flow.h"
#include "graph/graph.h"
#include "master/optimizer/shapes.h"
#include "master/optimizer/util.h"
#include "runtime/op_kernel.h"

namespace dfx::optimizer {

struct RemapperStats {
  int conv_fusions = 0;    // _FusedConv2D nodes formed
  int matmul_fusions = 0;  // _FusedMatMul nodes formed
  int nodes_fused = 0;     // nodes those replaced (the contraction included)
  int biases_folded = 0;   // BiasAdds taken into a scale and shift's mean
  int scale_shifts_fused = 0;  // Mul + Add of Consts fused as a batch norm
};

// Forms, on root-frame nodes of one CPU device:
// - Conv2D + BiasAdd [+ activation] -> _FusedConv2D [BiasAdd(, act)];
// - Conv2D + FusedBatchNorm{,V2,V3} (is_training false) [+ activation]
//   -> _FusedConv2D [FusedBatchNorm(, act)];
// - Conv2D + BiasAdd + FusedBatchNorm (the frozen Keras 2 pattern): as in
//   TensorFlow, Conv2D + BiasAdd only (folding the bias into the batch
//   norm's mean would round differently);
// - Conv2D [+ BiasAdd] + Mul + Add/AddV2 [+ activation], the Mul's and
//   Add's other operands Consts of shape [depth] and the bias a Const (the
//   inference batch norm Keras 3 freezes into arithmetic): _FusedConv2D
//   [FusedBatchNorm(, act)] with scale = the Mul's Const, offset = the
//   Add's, mean = -bias (or 0), variance 1 and epsilon 0, which computes
//   ((x + bias) * scale + offset) in the same float operations (beyond
//   TensorFlow's remapper; float only);
// Every fusion gives the unfused graph's results bit for bit with a Relu,
// Relu6 or no activation (the kernels share the convolution, the product
// and the float operations of the epilogue); Elu, LeakyRelu, Sigmoid and
// Tanh are computed by other code than the separate kernels' and may
// differ in the last bits.
// - MatMul + BiasAdd [+ activation] -> _FusedMatMul [BiasAdd(, act)];
// activation: Relu, Relu6, Elu, LeakyRelu (and Sigmoid, Tanh after a
// MatMul). Only where the fused kernel serves the dtype (Conv2D: float,
// double; MatMul: float, half, bfloat16), data_format is NHWC, the
// convolution is not grouped and every argument has the output depth as
// its static shape (so the fused node fails exactly where the original
// ones would), every intermediate output has exactly one consumer (the
// next node of the pattern), is not in `kept` and has no control
// consumers, and a batch norm's outputs other than y are unread (a kept batch
// norm ends no pattern: a fetch may name them). The fused node takes the last
// node's name, device and consumers; the intermediates' control inputs move to
// it; `shapes` learns its shapes, so that a pattern reading it fuses too.
// Internal only for a graph that cannot take the rewrite (a bug).
absl::StatusOr<RemapperStats> FuseContractions(const KeptNodes& kept,
                                               const GraphFrames& frames,
                                               const KernelRegistry* kernels,
                                               StepShapes* shapes,
                                               Graph* graph);

}  // namespace dfx::optimizer

#endif  // DFX_MASTER_OPTIMIZER_REMAPPER_H_
