// The parts of the misc family's op registrations; RegisterMiscOps
// (graph/ops/ops.h, defined in misc_math_ops.cc) calls both.
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
// FakeQuantWithMinMax* and QuantizeAndDequantizeV2/V3/V4 with gradients
// (graph/ops/quantization_ops.cc).
absl::Status RegisterQuantizationOps(OpRegistry* registry);

}  // namespace dfx

#endif  // DFX_GRAPH_OPS_MISC_OPS_H_
