// RegisterMatrixKernels: the matrix band/diagonal kernels, the dense
// decompositions and solvers, Eig, MatrixExponential and MatrixLogarithm.
#include "kernels/linalg/matrix_kernels.h"

#include "kernels/linalg/matrix_batch.h"

#include "kernels/kernels.h"

namespace dfx {

void RegisterMatrixKernels(KernelRegistry* registry) {
  linalg::RegisterMatrixDiagKernels(registry);
  linalg::RegisterMatrixDecompositionKernels(registry);
  linalg::RegisterEigKernels(registry);
  linalg::RegisterMatrixExponentialKernels(registry);
  linalg::RegisterMatrixLogarithmKernels(registry);
}

}  // namespace dfx
