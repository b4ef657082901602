// Registration of the legacy family's linear-algebra kernels
// (legacy_linalg_ops.cc): CholeskyGrad, MatrixSolveLs, BandedTriangularSolve
// and their deprecated Batch* names. RegisterLegacyKernels calls it.
#ifndef DFX_KERNELS_LINALG_LEGACY_LINALG_H_
#define DFX_KERNELS_LINALG_LEGACY_LINALG_H_

#include "runtime/op_kernel.h"

namespace dfx::linalg {

void RegisterLegacyLinalgKernels(KernelRegistry* registry);

}  // namespace dfx::linalg

#endif  // DFX_KERNELS_LINALG_LEGACY_LINALG_H_
