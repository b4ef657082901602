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
// MatrixSolve, MatrixTriangularSolve, Qr, SelfAdjointEigV2, Svd.
void RegisterMatrixDecompositionKernels(KernelRegistry* registry);

}  // namespace dfx::linalg

#endif  // DFX_KERNELS_LINALG_MATRIX_KERNELS_H_
