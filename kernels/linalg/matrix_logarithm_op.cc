// MatrixLogarithm: the principal logarithm of each square complex matrix,
// with Eigen's MatrixFunctions (complex Schur form, inverse scaling and
// squaring on its blocks), as TensorFlow 2.21's CPU kernel computes it;
// complex64 and complex128 only, as in TensorFlow.
//
// Its own file: MatrixFunctions' complex instantiations are slow to
// compile.
#include <complex>
#include <cstdint>

#include "kernels/linalg/matrix_batch.h"
#include "unsupported/Eigen/MatrixFunctions"

namespace dfx::linalg {
namespace {

template <typename T>
class MatrixLogarithmOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    DFX_OP_REQUIRES_OK(ctx, CheckSquareMatrices(in, 0));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    const int64_t n = in.dim_size(in.dims() - 1);
    if (n == 0) return;
    const T* src = in.data<T>();
    T* dst = out->data<T>();
    DFX_OP_REQUIRES_OK(
        ctx, ForEachSquareMatrix(*ctx->device(), MatrixCount(in),
                                 40.0 * n * n * n, [&](int64_t b) {
                                   const RowMatrix<T> a =
                                       Eigen::Map<const RowMatrix<T>>(
                                           src + b * n * n, n, n);
                                   Eigen::Map<RowMatrix<T>>(dst + b * n * n, n,
                                                            n) = a.log();
                                   return absl::OkStatus();
                                 }));
  }
};

}  // namespace

void RegisterMatrixLogarithmKernels(KernelRegistry* registry) {
  RegisterKernel<MatrixLogarithmOp<std::complex<float>>>(
      registry, KernelDefBuilder("MatrixLogarithm")
                    .TypeConstraint<std::complex<float>>("T"));
  RegisterKernel<MatrixLogarithmOp<std::complex<double>>>(
      registry, KernelDefBuilder("MatrixLogarithm")
                    .TypeConstraint<std::complex<double>>("T"));
}

}  // namespace dfx::linalg
