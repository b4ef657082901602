// Registration of the misc family's kernels, one function per file;
// RegisterMiscKernels (kernels/kernels.h, defined in
// kernels/math/quantize_ops.cc) calls them all.
#ifndef DFX_KERNELS_MATH_MISC_KERNELS_H_
#define DFX_KERNELS_MATH_MISC_KERNELS_H_

#include "runtime/op_kernel.h"

namespace dfx::misc_internal {

// FakeQuant* and QuantizeAndDequantizeV2/V3/V4 (kernels/math/quantize_ops.cc).
void RegisterQuantizationKernels(KernelRegistry* registry);
// BesselI0 ... BesselY1 (kernels/math/bessel_ops.cc).
void RegisterBesselKernels(KernelRegistry* registry);
// CumulativeLogsumexp and NthElement (kernels/math/misc_scan_ops.cc).
void RegisterMiscScanKernels(KernelRegistry* registry);
// Lu and TridiagonalMatMul (kernels/linalg/lu_tridiagonal_ops.cc).
void RegisterLuTridiagonalKernels(KernelRegistry* registry);
// TridiagonalSolve (kernels/linalg/tridiagonal_solve_op.cc).
void RegisterTridiagonalSolveKernels(KernelRegistry* registry);
// MatrixSquareRoot (kernels/linalg/matrix_square_root_op.cc).
void RegisterMatrixSquareRootKernels(KernelRegistry* registry);
// CTCGreedyDecoder (kernels/nn/ctc_greedy_decoder_op.cc).
void RegisterCtcKernels(KernelRegistry* registry);
// CTCLoss (kernels/nn/ctc_loss_op.cc).
void RegisterCtcLossKernels(KernelRegistry* registry);
// StringFormat (kernels/strings/string_format_op.cc).
void RegisterStringFormatKernels(KernelRegistry* registry);
// PrintV2 (kernels/strings/print_v2_op.cc).
void RegisterPrintV2Kernels(KernelRegistry* registry);
// SegmentSumV2, SegmentProdV2, SegmentMaxV2, SegmentMinV2
// (kernels/array/segment_v2_ops.cc).
void RegisterSegmentV2Kernels(KernelRegistry* registry);

}  // namespace dfx::misc_internal

#endif  // DFX_KERNELS_MATH_MISC_KERNELS_H_
