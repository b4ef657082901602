// Lu (partial-pivoting LU with the row permutation) and TridiagonalMatMul,
// as TensorFlow 2.21's CPU kernels compute them: float, double, complex64,
// complex128, every batch of matrices independently.
#include "kernels/eigen_util.h"  // first: defines EIGEN_USE_THREADS

#include <complex>
#include <cstdint>
#include <vector>

#include "Eigen/LU"
#include "absl/strings/str_cat.h"
#include "kernels/math/misc_kernels.h"

namespace dfx::misc_internal {
namespace {

template <typename T>
using Matrix =
    Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using Real = typename Eigen::NumTraits<T>::Real;

int64_t BatchCount(const Tensor& t) {
  int64_t n = 1;
  for (int i = 0; i < t.dims() - 2; ++i) n *= t.dim_size(i);
  return n;
}

// Lu: lu holds L (unit diagonal, below) and U (on and above), p the rows of
// the input in the order P * input = L * U takes them. A zero pivot is an
// error, as in TensorFlow (PartialPivLU would divide by it).
template <typename T, typename Index>
class LuOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    DFX_OP_REQUIRES(ctx, in.dims() >= 2,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Input tensor must have rank >= 2, got ", in.dims())));
    const int64_t n = in.dim_size(in.dims() - 1);
    DFX_OP_REQUIRES(ctx, in.dim_size(in.dims() - 2) == n,
                    absl::InvalidArgumentError("Input matrix must be square."));
    TensorShape p_shape;
    for (int i = 0; i < in.dims() - 1; ++i) {
      DFX_OP_REQUIRES_OK(ctx, p_shape.AddDim(in.dim_size(i)));
    }
    Tensor* lu = nullptr;
    Tensor* p = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &lu));
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(1, p_shape, &p));
    if (n == 0) return;
    const int64_t batches = BatchCount(in);
    const T* src = in.data<T>();
    T* dst = lu->data<T>();
    Index* perm = p->data<Index>();
    // Matrices run one after another: the first singular one is the error,
    // whatever the thread schedule.
    for (int64_t b = 0; b < batches; ++b) {
      Eigen::Map<const Matrix<T>> a(src + b * n * n, n, n);
      Eigen::PartialPivLU<Matrix<T>> dec(a);
      const Matrix<T>& packed = dec.matrixLU();
      const Real<T> min_abs_pivot = packed.diagonal().cwiseAbs().minCoeff();
      DFX_OP_REQUIRES(ctx, min_abs_pivot > Real<T>(0),
                      absl::InvalidArgumentError("Input is not invertible."));
      Eigen::Map<Matrix<T>>(dst + b * n * n, n, n) = packed;
      // P * input moves row i of the input to row indices(i); p lists, for
      // each row of P * input, the input row it came from.
      const auto& moved_to = dec.permutationP().indices();
      for (int64_t i = 0; i < n; ++i) {
        perm[b * n + moved_to(i)] = static_cast<Index>(i);
      }
    }
  }
};

// TridiagonalMatMul: output row i = subdiag[i] * rhs[i-1] + maindiag[i] *
// rhs[i] + superdiag[i] * rhs[i+1] (superdiag's last and subdiag's first
// element unused).
template <typename T>
class TridiagonalMatMulOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor* in[4];
    for (int i = 0; i < 4; ++i) {
      in[i] = &ctx->input(i);
      DFX_OP_REQUIRES(ctx, in[i]->dims() >= 2,
                      absl::InvalidArgumentError(absl::StrCat(
                          "Input tensor ", i, " must have rank >= 2, got ",
                          in[i]->dims())));
    }
    const int rank = in[3]->dims();
    for (int i = 0; i < 4; ++i) {
      DFX_OP_REQUIRES(ctx, in[i]->dims() == rank,
                      absl::InvalidArgumentError(
                          "All input tensors must have the same rank."));
      for (int d = 0; d < rank - 2; ++d) {
        DFX_OP_REQUIRES(ctx, in[i]->dim_size(d) == in[3]->dim_size(d),
                        absl::InvalidArgumentError(
                            "All input tensors must have the same outer "
                            "dimensions."));
      }
    }
    const int64_t m = in[3]->dim_size(rank - 2);
    const int64_t k = in[3]->dim_size(rank - 1);
    const char* names[] = {"superdiagonal", "main diagonal", "subdiagonal"};
    for (int i = 0; i < 3; ++i) {
      DFX_OP_REQUIRES(ctx,
                      in[i]->dim_size(rank - 2) == 1 &&
                          in[i]->dim_size(rank - 1) == m,
                      absl::InvalidArgumentError(
                          absl::StrCat("Invalid ", names[i], " shape.")));
    }
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in[3]->shape(), &out));
    const int64_t batches = BatchCount(*in[3]);
    const T* sup = in[0]->data<T>();
    const T* mid = in[1]->data<T>();
    const T* sub = in[2]->data<T>();
    const T* rhs = in[3]->data<T>();
    T* o = out->data<T>();
    ParallelFor(*ctx->device(), batches * m,
                Eigen::TensorOpCost(4 * k * sizeof(T), k * sizeof(T), 5 * k),
                [&](int64_t first, int64_t last) {
                  for (int64_t row = first; row < last; ++row) {
                    const int64_t b = row / m;
                    const int64_t i = row % m;
                    const T* r = rhs + row * k;
                    T* y = o + row * k;
                    for (int64_t c = 0; c < k; ++c) {
                      T v = mid[b * m + i] * r[c];
                      if (i > 0) v += sub[b * m + i] * r[c - k];
                      if (i + 1 < m) v += sup[b * m + i] * r[c + k];
                      y[c] = v;
                    }
                  }
                });
  }
};

template <typename... Ts>
void RegisterForLinalgTypes(KernelRegistry* r) {
  (RegisterKernel<LuOp<Ts, int32_t>>(
       r, KernelDefBuilder("Lu")
              .TypeConstraint<Ts>("T")
              .TypeConstraint("output_idx_type", {DT_INT32})),
   ...);
  (RegisterKernel<LuOp<Ts, int64_t>>(
       r, KernelDefBuilder("Lu")
              .TypeConstraint<Ts>("T")
              .TypeConstraint("output_idx_type", {DT_INT64})),
   ...);
  (RegisterKernel<TridiagonalMatMulOp<Ts>>(
       r, KernelDefBuilder("TridiagonalMatMul").TypeConstraint<Ts>("T")),
   ...);
}

}  // namespace

void RegisterLuTridiagonalKernels(KernelRegistry* registry) {
  RegisterForLinalgTypes<float, double, std::complex<float>,
                         std::complex<double>>(registry);
}

}  // namespace dfx::misc_internal
