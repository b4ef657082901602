// MatrixSquareRoot: the principal square root of each square matrix, as
// TensorFlow 2.21's CPU kernel computes it with Eigen's MatrixFunctions
// sqrt; float, double, complex64, complex128.
//
// Every matrix is computed as a complex128 one, with Eigen's algorithm for
// complex matrices written out here: A = U T U^* (Eigen's ComplexSchur), R
// the upper-triangular root of T (column by column, as Eigen's
// matrix_sqrt_triangular), sqrt(A) = U R U^*. A real matrix's root is the
// real part. Eigen's real algorithm (a real Schur form, 2x2 blocks) answers
// NaN everywhere when the matrix has a negative real eigenvalue, which has
// no real root; so does this. Compiling only the complex Schur form, not
// also the real one and two MatrixFunctions instantiations, took this file
// from 42 s of compile CPU to about 15.
#include "kernels/eigen_util.h"  // first: defines EIGEN_USE_THREADS

#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "Eigen/Core"
#include "Eigen/Eigenvalues"
#include "absl/strings/str_cat.h"
#include "kernels/math/misc_kernels.h"

namespace dfx::misc_internal {
namespace {

template <typename T>
using Matrix =
    Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Complex = std::complex<double>;
using ComplexMatrix = Eigen::Matrix<Complex, Eigen::Dynamic, Eigen::Dynamic>;

// The principal square root of `a`. With `real_input`, NaN everywhere when
// `a` (a real matrix) has a negative real eigenvalue, as Eigen's real
// algorithm gives: its real Schur form has a 1x1 block there, which the
// complex one shows as an eigenvalue of negative real part whose imaginary
// part is rounding.
ComplexMatrix PrincipalSqrt(const ComplexMatrix& a, bool real_input) {
  const int64_t n = a.rows();
  const Eigen::ComplexSchur<ComplexMatrix> schur(a);
  const ComplexMatrix& t = schur.matrixT();
  const ComplexMatrix& u = schur.matrixU();
  if (real_input) {
    const double tol = 1e-10 * t.norm();
    for (int64_t i = 0; i < n; ++i) {
      const Complex e = t(i, i);
      if (e.real() < 0 && std::abs(e.imag()) <= tol) {
        return ComplexMatrix::Constant(
            n, n, Complex(std::numeric_limits<double>::quiet_NaN(), 0));
      }
    }
  }
  ComplexMatrix r = ComplexMatrix::Zero(n, n);
  for (int64_t i = 0; i < n; ++i) r(i, i) = std::sqrt(t(i, i));
  for (int64_t j = 1; j < n; ++j) {
    for (int64_t i = j - 1; i >= 0; --i) {
      Complex sum(0, 0);
      for (int64_t k = i + 1; k < j; ++k) sum += r(i, k) * r(k, j);
      r(i, j) = (t(i, j) - sum) / (r(i, i) + r(j, j));
    }
  }
  return u * r * u.adjoint();
}

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
                    const ComplexMatrix a =
                        Eigen::Map<const Matrix<T>>(src + b * n * n, n, n)
                            .template cast<Complex>();
                    const ComplexMatrix root =
                        PrincipalSqrt(a, !Eigen::NumTraits<T>::IsComplex);
                    if constexpr (Eigen::NumTraits<T>::IsComplex) {
                      Eigen::Map<Matrix<T>>(dst + b * n * n, n, n) =
                          root.template cast<T>();
                    } else {
                      Eigen::Map<Matrix<T>>(dst + b * n * n, n, n) =
                          root.real().template cast<T>();
                    }
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
