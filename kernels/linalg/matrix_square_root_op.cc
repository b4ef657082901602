// MatrixSquareRoot: the principal square root of each square matrix, with
// Eigen's MatrixFunctions sqrt (real or complex Schur form), as TensorFlow
// 2.21's CPU kernel computes it; float, double, complex64, complex128.
#include "kernels/eigen_util.h"  // first: defines EIGEN_USE_THREADS

#include <complex>
#include <cstdint>
#include <type_traits>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "kernels/math/misc_kernels.h"
#include "unsupported/Eigen/MatrixFunctions"

namespace dfx::misc_internal {
namespace {

template <typename T>
using Matrix =
    Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// The type the square root is computed in: double precision. Eigen's
// MatrixFunctions (a Schur decomposition) cost a minute of compile per
// scalar type; float and complex64 matrices are computed in double precision
// and rounded, which halves that and is as accurate as TensorFlow's float
// result or more.
template <typename T>
using SqrtScalar = std::conditional_t<Eigen::NumTraits<T>::IsComplex,
                                      std::complex<double>, double>;

template <typename T>
class MatrixSquareRootOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    DFX_OP_REQUIRES(ctx, in.dims() >= 2,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Input tensor 0 must have rank >= 2, got ",
                        in.dims())));
    const int64_t n = in.dim_size(in.dims() - 1);
    DFX_OP_REQUIRES(ctx, in.dim_size(in.dims() - 2) == n,
                    absl::InvalidArgumentError("Input matrix must be square."));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    if (out->NumElements() == 0) return;
    int64_t batches = 1;
    for (int d = 0; d < in.dims() - 2; ++d) batches *= in.dim_size(d);
    const T* src = in.data<T>();
    T* dst = out->data<T>();
    ParallelFor(*ctx->device(), batches,
                Eigen::TensorOpCost(n * n * sizeof(T), n * n * sizeof(T),
                                    30.0 * n * n * n),
                [&](int64_t first, int64_t last) {
                  for (int64_t b = first; b < last; ++b) {
                    using W = SqrtScalar<T>;
                    const Matrix<W> a =
                        Eigen::Map<const Matrix<T>>(src + b * n * n, n, n)
                            .template cast<W>();
                    const Matrix<W> root = a.sqrt();
                    Eigen::Map<Matrix<T>>(dst + b * n * n, n, n) =
                        root.template cast<T>();
                  }
                });
  }
};

}  // namespace

void RegisterMatrixSquareRootKernels(KernelRegistry* registry) {
  RegisterKernel<MatrixSquareRootOp<float>>(
      registry,
      KernelDefBuilder("MatrixSquareRoot").TypeConstraint<float>("T"));
  RegisterKernel<MatrixSquareRootOp<double>>(
      registry,
      KernelDefBuilder("MatrixSquareRoot").TypeConstraint<double>("T"));
  RegisterKernel<MatrixSquareRootOp<std::complex<float>>>(
      registry, KernelDefBuilder("MatrixSquareRoot")
                    .TypeConstraint<std::complex<float>>("T"));
  RegisterKernel<MatrixSquareRootOp<std::complex<double>>>(
      registry, KernelDefBuilder("MatrixSquareRoot")
                    .TypeConstraint<std::complex<double>>("T"));
}

}  // namespace dfx::misc_internal
