// The shape check every scatter op's shape function shares (defined in
// graph/ops/gather_ops.cc): ScatterNd, TensorScatter*, and the ScatterNd*
// updates of variables (graph/ops/state2_ops.cc).
#ifndef DFX_GRAPH_OPS_SCATTER_SHAPE_H_
#define DFX_GRAPH_OPS_SCATTER_SHAPE_H_

#include "absl/status/status.h"
#include "graph/shape_inference.h"

namespace dfx {

// Checks updates.shape == indices.shape[:-1] + output.shape[K:] (K =
// indices.shape[-1]) where all of it is known, as TensorFlow's scatter shape
// helper does; indices must have rank >= 1. InvalidArgument (c->Error)
// otherwise.
absl::Status CheckScatterShapes(InferenceContext* c,
                                const PartialShape& indices,
                                const PartialShape& updates,
                                const PartialShape& output);

}  // namespace dfx

#endif  // DFX_GRAPH_OPS_SCATTER_SHAPE_H_
