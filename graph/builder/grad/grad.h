// Registration functions of the standard gradient functions, one per family,
// as graph/ops/ops.h registers the ops.
#ifndef DFX_GRAPH_BUILDER_GRAD_GRAD_H_
#define DFX_GRAPH_BUILDER_GRAD_GRAD_H_

#include "absl/status/status.h"
#include "graph/builder/gradients.h"

namespace dfx {

// Element-wise math, reductions, MatMul and BatchMatMulV2, AddN, Cast.
absl::Status RegisterMathGradients(GradientRegistry* registry);
// Activations, softmax and cross-entropy losses, BiasAdd, convolution,
// pooling, batch normalization, L2Loss.
absl::Status RegisterNnGradients(GradientRegistry* registry);
// Shape and indexing ops: Identity, Reshape, Transpose, ConcatV2, Pack,
// Slice, StridedSlice, Tile, Pad, GatherV2, Select, ..., and the ops that
// carry no gradient (StopGradient, Shape, ZerosLike, ...).
absl::Status RegisterArrayGradients(GradientRegistry* registry);

// Switch and Merge of conditionals (not of loops).
absl::Status RegisterControlFlowGradients(GradientRegistry* registry);
// TensorArray element ops (ReadV3, WriteV3, GatherV3, ScatterV3, ConcatV3,
// SplitV3) and TensorList ones (GetItem, SetItem, Stack, FromTensor).
absl::Status RegisterDataFlowGradients(GradientRegistry* registry);

// All of the above.
absl::Status RegisterStandardGradients(GradientRegistry* registry);

}  // namespace dfx

#endif  // DFX_GRAPH_BUILDER_GRAD_GRAD_H_
