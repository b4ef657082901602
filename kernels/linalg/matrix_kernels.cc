// RegisterMatrixKernels: the matrix band/diagonal kernels and the dense
// decompositions and solvers.
#include "kernels/linalg/matrix_kernels.h"

#include "kernels/kernels.h"

namespace dfx {

void RegisterMatrixKernels(KernelRegistry* registry) {
  linalg::RegisterMatrixDiagKernels(registry);
  linalg::RegisterMatrixDecompositionKernels(registry);
}

}  // namespace dfx
