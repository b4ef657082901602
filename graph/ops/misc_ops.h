// The misc family's op registrations beyond quantization. They are called
// from RegisterQuantizationOps (graph/ops/quantization_ops.cc), the
// family's entry in ops.h, so that adding them changed no shared header.
#ifndef DFX_GRAPH_OPS_MISC_OPS_H_
#define DFX_GRAPH_OPS_MISC_OPS_H_

#include "absl/status/status.h"
#include "graph/op_registry.h"

namespace dfx {

// BesselI0 ... BesselY1, CumulativeLogsumexp, NthElement, Lu,
// TridiagonalMatMul, TridiagonalSolve, MatrixSquareRoot,
// CTCGreedyDecoder, CTCLoss, StringFormat, PrintV2, SegmentSumV2,
// SegmentProdV2, SegmentMaxV2, SegmentMinV2 (graph/ops/misc_math_ops.cc).
absl::Status RegisterMiscMathOps(OpRegistry* registry);

}  // namespace dfx

#endif  // DFX_GRAPH_OPS_MISC_OPS_H_
