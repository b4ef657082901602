// MatrixLogarithm: the principal logarithm of each square complex matrix,
// with Eigen's MatrixFunctions (complex Schur form, inverse scaling and
// squaring on its blocks), as TensorFlow 2.21's CPU kernel computes it;
// complex64 and complex128 only, as in TensorFlow.
//
// Its own file: MatrixFunctions' complex instantiations are slow to
// compile. complex64 matrices are computed in complex128 and rounded
// (MatrixFunctionOp, WideScalar): one instantiation, not two.
#include <complex>
#include <cstdint>

#include "kernels/linalg/matrix_batch.h"
#include "unsupported/Eigen/MatrixFunctions"

namespace dfx::linalg {
namespace {

struct LogOf {
  template <typename T>
  RowMatrix<T> operator()(const RowMatrix<T>& x) const {
    return x.log();
  }
};

}  // namespace

void RegisterMatrixLogarithmKernels(KernelRegistry* registry) {
  RegisterKernel<MatrixFunctionOp<std::complex<float>, LogOf, 40>>(
      registry, KernelDefBuilder("MatrixLogarithm")
                    .TypeConstraint<std::complex<float>>("T"));
  RegisterKernel<MatrixFunctionOp<std::complex<double>, LogOf, 40>>(
      registry, KernelDefBuilder("MatrixLogarithm")
                    .TypeConstraint<std::complex<double>>("T"));
}

}  // namespace dfx::linalg
