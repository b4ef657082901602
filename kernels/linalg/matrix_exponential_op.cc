// MatrixExponential: exp of each square matrix with Eigen's MatrixFunctions
// (scaling and squaring with Pade approximants), as TensorFlow 2.21's CPU
// kernel computes it; float, double, complex64, complex128 (the OpDef also
// allows half, for which TensorFlow has no kernel). TensorFlow deprecated the
// op at GraphDef version 27 in favour of tf.linalg.expm (a Python function
// of ordinary ops), so only old graphs hold it.
//
// Its own file: MatrixFunctions is slow to compile. float and complex64
// matrices are computed in double precision and rounded (MatrixFunctionOp,
// WideScalar): two instantiations, not four.
#include <complex>
#include <cstdint>

#include "kernels/linalg/matrix_batch.h"
#include "unsupported/Eigen/MatrixFunctions"

namespace dfx::linalg {
namespace {

struct ExpOf {
  template <typename T>
  RowMatrix<T> operator()(const RowMatrix<T>& x) const {
    return x.exp();
  }
};

}  // namespace

void RegisterMatrixExponentialKernels(KernelRegistry* registry) {
  RegisterKernel<MatrixFunctionOp<float, ExpOf, 20>>(
      registry,
      KernelDefBuilder("MatrixExponential").TypeConstraint<float>("T"));
  RegisterKernel<MatrixFunctionOp<double, ExpOf, 20>>(
      registry,
      KernelDefBuilder("MatrixExponential").TypeConstraint<double>("T"));
  RegisterKernel<MatrixFunctionOp<std::complex<float>, ExpOf, 20>>(
      registry, KernelDefBuilder("MatrixExponential")
                    .TypeConstraint<std::complex<float>>("T"));
  RegisterKernel<MatrixFunctionOp<std::complex<double>, ExpOf, 20>>(
      registry, KernelDefBuilder("MatrixExponential")
                    .TypeConstraint<std::complex<double>>("T"));
}

}  // namespace dfx::linalg
