// Registration functions of the matrix kernels (kernels/linalg/matrix_*.cc),
// called by RegisterMatrixKernels.
#ifndef DFX_KERNELS_LINALG_MATRIX_KERNELS_H_
#define DFX_KERNELS_LINALG_MATRIX_KERNELS_H_

#include "runtime/op_kernel.h"

namespace dfx::linalg {

// MatrixBandPart, MatrixDiag{,V2,V3}, MatrixDiagPart{,V2,V3},
// MatrixSetDiag{,V2,V3}.
void RegisterMatrixDiagKernels(KernelRegistry* registry);
// Cholesky, MatrixInverse, MatrixDeterminant, LogMatrixDeterminant,
// MatrixSolve, MatrixTriangularSolve, Qr, SelfAdjointEigV2, Svd (the last
// three by the functions below), and their deprecated Batch* names.
void RegisterMatrixDecompositionKernels(KernelRegistry* registry);
// Qr (kernels/linalg/qr_op.cc).
void RegisterQrKernels(KernelRegistry* registry);
// SelfAdjointEigV2 and its v1 and Batch names (self_adjoint_eig_op.cc).
void RegisterSelfAdjointEigKernels(KernelRegistry* registry);
// Svd and BatchSvd (svd_op.cc).
void RegisterSvdKernels(KernelRegistry* registry);

}  // namespace dfx::linalg

#endif  // DFX_KERNELS_LINALG_MATRIX_KERNELS_H_
