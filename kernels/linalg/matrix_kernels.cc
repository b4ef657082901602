// RegisterMatrixKernels: the matrix band/diagonal kernels and the dense
// decompositions and solvers.
#include "kernels/kernels.h"
#include "kernels/linalg/matrix_kernels.h"

namespace dfx {

void RegisterMatrixKernels(KernelRegistry* registry) {
  linalg::RegisterMatrixDiagKernels(registry);
  linalg::RegisterMatrixDecompositionKernels(registry);
}

}  // namespace dfx
