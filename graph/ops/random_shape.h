// The shape function of the random ops whose input 0 names the output's
// shape (graph/ops/random_ops.cc); the nn2 family's
// ParameterizedTruncatedNormal uses it too.
#ifndef DFX_GRAPH_OPS_RANDOM_SHAPE_H_
#define DFX_GRAPH_OPS_RANDOM_SHAPE_H_

#include "absl/status/status.h"
#include "graph/shape_inference.h"

namespace dfx {

// Output 0 takes the shape named by the 1-D int32/int64 tensor at input 0:
// its values when it is a constant, else as many unknown dims as it has
// elements when that is known. InvalidArgument for a shape input that is
// not a vector or a constant dim below -1.
absl::Status RandomShapeFn(InferenceContext* c);

}  // namespace dfx

#endif  // DFX_GRAPH_OPS_RANDOM_SHAPE_H_
