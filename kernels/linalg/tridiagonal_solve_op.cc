// TridiagonalSolve: the three ways TensorFlow 2.21's CPU kernel solves
// T * X = RHS for each batch member, in its order of operations: Gaussian
// elimination with partial pivoting (LAPACK's xGTSV), the same with tiny
// pivots perturbed (xLAGTF + xLAGTS, perturb_singular), and the Thomas
// algorithm without pivoting. A singular system gives NaN, not an error, as
// in TensorFlow (which only logs a warning).
#include "kernels/eigen_util.h"  // first: defines EIGEN_USE_THREADS

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>

#include "Eigen/Core"
#include "absl/strings/str_cat.h"
#include "kernels/math/misc_kernels.h"

namespace dfx::misc_internal {
namespace {

template <typename T>
using Matrix =
    Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using Row = Eigen::Matrix<T, 1, Eigen::Dynamic>;
template <typename T>
using Real = typename Eigen::NumTraits<T>::Real;

template <typename T>
class TridiagonalSolver {
 public:
  using R = Real<T>;
  using ConstRow = decltype(std::declval<const Eigen::Map<const Matrix<T>>&>()
                                .row(0));

  TridiagonalSolver(const T* diags, const T* rhs, T* x, int64_t n, int64_t k)
      : d_(diags, 3, n), rhs_(rhs, n, k), x_(x, n, k), n_(n) {}

  void Fill(T v) { x_.setConstant(v); }

  T super(int64_t i) const { return d_(0, i); }
  T diag(int64_t i) const { return d_(1, i); }
  T sub(int64_t i) const { return d_(2, i); }

  void Solve(bool pivoting, bool perturb) {
    const T zero(0);
    const T nan(std::numeric_limits<R>::quiet_NaN());
    if (n_ == 0) return;
    if (pivoting && perturb) {
      SolvePerturbed();
      return;
    }
    if (n_ == 1) {
      if (diag(0) == zero) {
        Fill(nan);
      } else {
        x_.row(0) = rhs_.row(0) / diag(0);
      }
      return;
    }
    if (pivoting) {
      SolvePivoting();
    } else {
      SolveThomas();
    }
  }

 private:
  // Moves a pivot smaller than 1 away from zero (or scales it and its row
  // up) so that neither row / pivot nor 1 / pivot overflows (xLAGTS).
  static void MaybePerturbPivot(R perturb, T& pivot, Row<T>& row) {
    const R one(1);
    const R safemin = std::numeric_limits<R>::min();
    const R bignum = one / safemin;
    R abs_pivot = std::abs(pivot);
    if (abs_pivot >= one) return;
    perturb = std::max(std::abs(perturb), safemin);
    perturb = std::copysign(perturb, std::real(pivot));
    bool stop = false;
    const R max_factor = row.array().abs().maxCoeff();
    while (abs_pivot < one && !stop) {
      if (abs_pivot < safemin) {
        if (abs_pivot == 0 || max_factor * safemin > abs_pivot) {
          pivot += perturb;
          perturb *= 2;
        } else {
          pivot *= bignum;
          row *= bignum;
          stop = true;
        }
      } else if (max_factor > abs_pivot * bignum) {
        pivot += perturb;
        perturb *= 2;
      } else {
        stop = true;
      }
      abs_pivot = std::abs(pivot);
    }
  }

  void SolvePerturbed() {
    const T zero(0);
    const R realzero(0);
    const T one(1);
    const R eps = std::numeric_limits<R>::epsilon();
    const int64_t n = n_;
    if (n == 1) {
      T denom = diag(0);
      const R tol = eps * std::abs(denom);
      Row<T> row = rhs_.row(0);
      MaybePerturbPivot(tol, denom, row);
      x_ = row * (one / denom);
      return;
    }
    // Columns: U's diagonal, superdiagonal and second superdiagonal.
    Eigen::Array<T, Eigen::Dynamic, 3> u(n, 3);
    u(0, 0) = diag(0);
    u(0, 1) = super(0);
    R max_abs_u = std::max(std::abs(u(0, 0)), std::abs(u(0, 1)));
    R scale1 = std::abs(u(0, 0)) + std::abs(u(0, 1));
    x_.row(0) = rhs_.row(0);
    for (int64_t k = 0; k < n - 1; ++k) {
      u(k + 1, 0) = diag(k + 1);
      R scale2 = std::abs(sub(k + 1)) + std::abs(u(k + 1, 0));
      if (k < n - 2) scale2 += std::abs(super(k + 1));
      if (sub(k + 1) == zero) {
        scale1 = scale2;
        u(k + 1, 1) = super(k + 1);
        u(k, 2) = zero;
        x_.row(k + 1) = rhs_.row(k + 1);
      } else {
        const R piv1 =
            u(k, 0) == zero ? realzero : std::abs(u(k, 0)) / scale1;
        const R piv2 = std::abs(sub(k + 1)) / scale2;
        if (piv2 <= piv1) {
          scale1 = scale2;
          const T factor = sub(k + 1) / u(k, 0);
          u(k + 1, 0) = diag(k + 1) - factor * u(k, 1);
          u(k + 1, 1) = super(k + 1);
          u(k, 2) = zero;
          x_.row(k + 1) = rhs_.row(k + 1) - factor * x_.row(k);
        } else {
          const T factor = u(k, 0) / sub(k + 1);
          u(k, 0) = sub(k + 1);
          u(k + 1, 0) = u(k, 1) - factor * diag(k + 1);
          u(k, 1) = diag(k + 1);
          if (k < n - 2) {
            u(k, 2) = super(k + 1);
            u(k + 1, 1) = -factor * super(k + 1);
          }
          x_.row(k + 1) = x_.row(k) - factor * rhs_.row(k + 1);
          x_.row(k) = rhs_.row(k + 1);
        }
      }
      if (k < n - 2) {
        for (int i = 0; i < 3; ++i) {
          max_abs_u = std::max(max_abs_u, std::abs(u(k, i)));
        }
      }
    }
    max_abs_u = std::max(max_abs_u, std::abs(u(n - 1, 0)));
    const R tol = eps * max_abs_u;
    T denom = u(n - 1, 0);
    Row<T> row = x_.row(n - 1);
    MaybePerturbPivot(tol, denom, row);
    x_.row(n - 1) = row * (one / denom);
    denom = u(n - 2, 0);
    row = x_.row(n - 2) - u(n - 2, 1) * x_.row(n - 1);
    MaybePerturbPivot(std::copysign(tol, std::real(denom)), denom, row);
    x_.row(n - 2) = row * (one / denom);
    for (int64_t k = n - 3; k >= 0; --k) {
      row = x_.row(k) - u(k, 1) * x_.row(k + 1) - u(k, 2) * x_.row(k + 2);
      denom = u(k, 0);
      MaybePerturbPivot(std::copysign(tol, std::real(denom)), denom, row);
      x_.row(k) = row * (one / denom);
    }
  }

  void SolvePivoting() {
    const T zero(0);
    const T nan(std::numeric_limits<R>::quiet_NaN());
    const int64_t n = n_;
    Eigen::Array<T, Eigen::Dynamic, 3> u(n, 3);
    u(0, 0) = diag(0);
    u(0, 1) = super(0);
    x_.row(0) = rhs_.row(0);
    for (int64_t i = 0; i < n - 1; ++i) {
      if (std::abs(u(i, 0)) >= std::abs(sub(i + 1))) {
        if (u(i, 0) == zero) {
          Fill(nan);
          return;
        }
        const T factor = sub(i + 1) / u(i, 0);
        u(i + 1, 0) = diag(i + 1) - factor * u(i, 1);
        x_.row(i + 1) = rhs_.row(i + 1) - factor * x_.row(i);
        if (i != n - 2) {
          u(i + 1, 1) = super(i + 1);
          u(i, 2) = zero;
        }
      } else {
        const T factor = u(i, 0) / sub(i + 1);
        u(i, 0) = sub(i + 1);
        u(i + 1, 0) = u(i, 1) - factor * diag(i + 1);
        u(i, 1) = diag(i + 1);
        x_.row(i + 1) = x_.row(i) - factor * rhs_.row(i + 1);
        x_.row(i) = rhs_.row(i + 1);
        if (i != n - 2) {
          u(i, 2) = super(i + 1);
          u(i + 1, 1) = -factor * super(i + 1);
        }
      }
    }
    if (u(n - 1, 0) == zero) {
      Fill(nan);
      return;
    }
    x_.row(n - 1) /= u(n - 1, 0);
    x_.row(n - 2) =
        (x_.row(n - 2) - u(n - 2, 1) * x_.row(n - 1)) / u(n - 2, 0);
    for (int64_t i = n - 3; i >= 0; --i) {
      x_.row(i) = (x_.row(i) - u(i, 1) * x_.row(i + 1) -
                   u(i, 2) * x_.row(i + 2)) /
                  u(i, 0);
    }
  }

  void SolveThomas() {
    const T zero(0);
    const T nan(std::numeric_limits<R>::quiet_NaN());
    const int64_t n = n_;
    Eigen::Matrix<T, Eigen::Dynamic, 1> u(n);
    if (diag(0) == zero) {
      Fill(nan);
      return;
    }
    u(0) = super(0) / diag(0);
    x_.row(0) = rhs_.row(0) / diag(0);
    for (int64_t i = 1; i < n; ++i) {
      const T denom = diag(i) - sub(i) * u(i - 1);
      if (denom == zero) {
        Fill(nan);
        return;
      }
      u(i) = super(i) / denom;
      x_.row(i) = (rhs_.row(i) - sub(i) * x_.row(i - 1)) / denom;
    }
    for (int64_t i = n - 2; i >= 0; --i) {
      x_.row(i) -= u(i) * x_.row(i + 1);
    }
  }

  Eigen::Map<const Matrix<T>> d_;
  Eigen::Map<const Matrix<T>> rhs_;
  Eigen::Map<Matrix<T>> x_;
  const int64_t n_;
};

template <typename T>
class TridiagonalSolveOp : public OpKernel {
 public:
  explicit TridiagonalSolveOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("partial_pivoting", &pivoting_));
    ctx->SetStatus(ctx->GetAttr("perturb_singular", &perturb_));
    if (ctx->status().ok() && !pivoting_ && perturb_) {
      ctx->SetStatus(absl::InvalidArgumentError(
          "Setting perturb_singular requires also setting partial_pivoting."));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& diags = ctx->input(0);
    const Tensor& rhs = ctx->input(1);
    for (int i = 0; i < 2; ++i) {
      DFX_OP_REQUIRES(ctx, ctx->input(i).dims() >= 2,
                      absl::InvalidArgumentError(absl::StrCat(
                          "Input tensor ", i, " must have rank >= 2, got ",
                          ctx->input(i).dims())));
    }
    const int rank = rhs.dims();
    DFX_OP_REQUIRES(ctx, diags.dims() == rank,
                    absl::InvalidArgumentError(
                        "All input tensors must have the same rank."));
    for (int d = 0; d < rank - 2; ++d) {
      DFX_OP_REQUIRES(ctx, diags.dim_size(d) == rhs.dim_size(d),
                      absl::InvalidArgumentError(
                          "All input tensors must have the same outer "
                          "dimensions."));
    }
    DFX_OP_REQUIRES(ctx, diags.dim_size(rank - 2) == 3,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Expected diagonals to be provided as a matrix with 3 "
                        "rows, got ",
                        diags.dim_size(rank - 2), " rows.")));
    const int64_t n = diags.dim_size(rank - 1);
    DFX_OP_REQUIRES(ctx, rhs.dim_size(rank - 2) == n,
                    absl::InvalidArgumentError(absl::StrCat(
                        "Expected the same number of left-hand sides and "
                        "right-hand sides, got ",
                        n, " and ", rhs.dim_size(rank - 2), ".")));
    const int64_t k = rhs.dim_size(rank - 1);
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, rhs.shape(), &out));
    if (out->NumElements() == 0) return;
    int64_t batches = 1;
    for (int d = 0; d < rank - 2; ++d) batches *= rhs.dim_size(d);
    const T* dp = diags.data<T>();
    const T* rp = rhs.data<T>();
    T* xp = out->data<T>();
    const bool pivoting = pivoting_;
    const bool perturb = perturb_;
    ParallelFor(*ctx->device(), batches,
                Eigen::TensorOpCost(4 * n * (k + 1) * sizeof(T),
                                    n * k * sizeof(T), 10 * n * (k + 1)),
                [&](int64_t first, int64_t last) {
                  for (int64_t b = first; b < last; ++b) {
                    TridiagonalSolver<T> solver(dp + b * 3 * n,
                                                rp + b * n * k,
                                                xp + b * n * k, n, k);
                    solver.Solve(pivoting, perturb);
                  }
                });
  }

 private:
  bool pivoting_ = true;
  bool perturb_ = false;
};

}  // namespace

void RegisterTridiagonalSolveKernels(KernelRegistry* registry) {
  RegisterKernel<TridiagonalSolveOp<float>>(
      registry,
      KernelDefBuilder("TridiagonalSolve").TypeConstraint<float>("T"));
  RegisterKernel<TridiagonalSolveOp<double>>(
      registry,
      KernelDefBuilder("TridiagonalSolve").TypeConstraint<double>("T"));
  RegisterKernel<TridiagonalSolveOp<std::complex<float>>>(
      registry, KernelDefBuilder("TridiagonalSolve")
                    .TypeConstraint<std::complex<float>>("T"));
  RegisterKernel<TridiagonalSolveOp<std::complex<double>>>(
      registry, KernelDefBuilder("TridiagonalSolve")
                    .TypeConstraint<std::complex<double>>("T"));
}

}  // namespace dfx::misc_internal
