// MatrixExponential: exp of each square matrix with Eigen's MatrixFunctions
// (scaling and squaring with Pade approximants), as TensorFlow 2.21's CPU
// kernel computes it; float, double, complex64, complex128 (the OpDef also
// allows half, for which TensorFlow has no kernel). TensorFlow deprecated the
// op at GraphDef version 27 in favour of tf.linalg.expm (a Python function
// of ordinary ops), so only old graphs hold it.
//
// Its own file: MatrixFunctions is slow to compile.
#include <complex>
#include <cstdint>

#include "kernels/linalg/matrix_batch.h"
#include "unsupported/Eigen/MatrixFunctions"

namespace dfx::linalg {
namespace {

template <typename T>
class MatrixExponentialOp : public OpKernel {
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
                                 20.0 * n * n * n, [&](int64_t b) {
                                   const RowMatrix<T> a =
                                       Eigen::Map<const RowMatrix<T>>(
                                           src + b * n * n, n, n);
                                   Eigen::Map<RowMatrix<T>>(dst + b * n * n, n,
                                                            n) = a.exp();
                                   return absl::OkStatus();
                                 }));
  }
};

}  // namespace

void RegisterMatrixExponentialKernels(KernelRegistry* registry) {
  RegisterKernel<MatrixExponentialOp<float>>(
      registry,
      KernelDefBuilder("MatrixExponential").TypeConstraint<float>("T"));
  RegisterKernel<MatrixExponentialOp<double>>(
      registry,
      KernelDefBuilder("MatrixExponential").TypeConstraint<double>("T"));
  RegisterKernel<MatrixExponentialOp<std::complex<float>>>(
      registry, KernelDefBuilder("MatrixExponential")
                    .TypeConstraint<std::complex<float>>("T"));
  RegisterKernel<MatrixExponentialOp<std::complex<double>>>(
      registry, KernelDefBuilder("MatrixExponential")
                    .TypeConstraint<std::complex<double>>("T"));
}

}  // namespace dfx::linalg
