// CholeskyGrad (and BatchCholeskyGrad), MatrixSolveLs (and
// BatchMatrixSolveLs) and BandedTriangularSolve, with TensorFlow 2.21's
// checks. Plain loops over row-major matrices, except MatrixSolveLs's
// fast=False path, which is Eigen's complete orthogonal decomposition as
// in TensorFlow (the minimum-norm solution of a rank-deficient system),
// run in double precision.
#include "kernels/linalg/legacy_linalg.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "Eigen/QR"
#include "absl/strings/str_cat.h"
#include "kernels/linalg/batch_matmul_shape.h"
#include "kernels/linalg/gemm.h"
#include "kernels/linalg/matrix_batch.h"

namespace dfx::linalg {
namespace {

template <typename T>
T Conj(T x) {
  return x;
}
template <typename R>
std::complex<R> Conj(std::complex<R> x) {
  return std::conj(x);
}

// The outer dims of two inputs must be equal (LinearAlgebraOp).
absl::Status SameOuterDims(const Tensor& a, const Tensor& b) {
  bool same = a.dims() == b.dims();
  for (int i = 0; same && i < a.dims() - 2; ++i) {
    same = a.dim_size(i) == b.dim_size(i);
  }
  if (!same) {
    return absl::InvalidArgumentError(
        "All input tensors must have the same outer dimensions.");
  }
  return absl::OkStatus();
}

// CholeskyGrad: the gradient with respect to A = L L^T, symmetrized, from
// L and the gradient with respect to L (lower triangles of both read):
//   P = Phi(L^T Lbar), Phi the lower triangle with its diagonal halved;
//   S = L^-T P L^-1; output (S + S^T) / 2.
template <typename T>
class CholeskyGradOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& l = ctx->input(0);
    const Tensor& grad = ctx->input(1);
    DFX_OP_REQUIRES_OK(ctx, CheckRank(l, 0));
    DFX_OP_REQUIRES_OK(ctx, CheckRank(grad, 1));
    DFX_OP_REQUIRES_OK(ctx, SameOuterDims(l, grad));
    const int r = l.dims();
    DFX_OP_REQUIRES(
        ctx,
        l.dim_size(r - 1) == grad.dim_size(r - 1) &&
            l.dim_size(r - 2) == grad.dim_size(r - 2),
        absl::InvalidArgumentError(
            "Inputs (L and grad) must have the same shape."));
    DFX_OP_REQUIRES(
        ctx, l.dim_size(r - 1) == l.dim_size(r - 2),
        absl::InvalidArgumentError("Inputs must be a square matrices."));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, l.shape(), &out));
    const int64_t n = l.dim_size(r - 1);
    if (n == 0) return;
    const T* lp = l.data<T>();
    const T* gp = grad.data<T>();
    T* op = out->data<T>();
    DFX_OP_REQUIRES_OK(
        ctx, ForEachMatrix(*ctx->device(), NumMatrices(l), 4.0 * n * n * n,
                           [&](int64_t b) {
                             Gradient(lp + b * n * n, gp + b * n * n, n,
                                      op + b * n * n);
                             return absl::OkStatus();
                           }));
  }

 private:
  static void Gradient(const T* lm, const T* gm, int64_t n, T* out) {
    auto L = [&](int64_t i, int64_t j) { return j <= i ? lm[i * n + j] : T(0); };
    // P = Phi(L^T Lbar), Lbar lower triangular.
    std::vector<T> p(n * n, T(0));
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j <= i; ++j) {
        T sum = T(0);
        for (int64_t k = i; k < n; ++k) sum += L(k, i) * gm[k * n + j];
        p[i * n + j] = i == j ? sum / T(2) : sum;
      }
    }
    // M = L^-T P: solve L^T M = P (back substitution, column by column).
    for (int64_t c = 0; c < n; ++c) {
      for (int64_t i = n - 1; i >= 0; --i) {
        T v = p[i * n + c];
        for (int64_t k = i + 1; k < n; ++k) v -= L(k, i) * p[k * n + c];
        p[i * n + c] = v / L(i, i);
      }
    }
    // S = M L^-1: solve S L = M (row by row, from the last column).
    for (int64_t row = 0; row < n; ++row) {
      T* s = p.data() + row * n;
      for (int64_t j = n - 1; j >= 0; --j) {
        T v = s[j];
        for (int64_t k = j + 1; k < n; ++k) v -= s[k] * L(k, j);
        s[j] = v / L(j, j);
      }
    }
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        out[i * n + j] = (p[i * n + j] + p[j * n + i]) / T(2);
      }
    }
  }
};

// MatrixSolveLs: the least-squares solutions X of A X = B, A [..., m, n],
// B [..., m, k]. fast: the regularized normal equations by Cholesky
// ((A^H A + l2 I) X = A^H B when m >= n, X = A^H (A A^H + l2 I)^-1 B
// otherwise); else the complete orthogonal decomposition (l2 ignored).
template <typename T>
class MatrixSolveLsOp : public OpKernel {
 public:
  explicit MatrixSolveLsOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("fast", &fast_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& rhs = ctx->input(1);
    const Tensor& l2 = ctx->input(2);
    DFX_OP_REQUIRES(ctx, l2.dims() == 0,
                    absl::InvalidArgumentError(absl::StrCat(
                        "l2_regularizer must be scalar, got shape ",
                        l2.shape().DebugString())));
    const double lambda = l2.scalar<double>();
    DFX_OP_REQUIRES(
        ctx, lambda >= 0,
        absl::InvalidArgumentError("l2_regularizer must be >= 0."));
    DFX_OP_REQUIRES_OK(ctx, CheckRank(a, 0));
    DFX_OP_REQUIRES_OK(ctx, CheckRank(rhs, 1));
    DFX_OP_REQUIRES_OK(ctx, SameOuterDims(a, rhs));
    const int r = a.dims();
    const int64_t m = a.dim_size(r - 2), n = a.dim_size(r - 1);
    const int64_t k = rhs.dim_size(r - 1);
    DFX_OP_REQUIRES(
        ctx, rhs.dim_size(r - 2) == m,
        absl::InvalidArgumentError("Input matrix and rhs are incompatible."));
    absl::StatusOr<TensorShape> shape = BatchShape(a, {n, k});
    DFX_OP_REQUIRES_OK(ctx, shape.status());
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
    if (out->NumElements() == 0) return;
    if (m == 0) {
      std::fill_n(out->data<T>(), out->NumElements(), T(0));
      return;
    }
    const T* ap = a.data<T>();
    const T* bp = rhs.data<T>();
    T* xp = out->data<T>();
    const T reg = static_cast<T>(static_cast<Real>(lambda));
    DFX_OP_REQUIRES_OK(
        ctx, ForEachMatrix(
                 *ctx->device(), NumMatrices(a),
                 2.0 * m * n * (std::max(m, n) + k), [&](int64_t b) {
                   if (!fast_) {
                     SolveMinNorm(ap + b * m * n, bp + b * m * k, m, n, k,
                                  xp + b * n * k);
                     return absl::OkStatus();
                   }
                   return SolveNormal(ap + b * m * n, bp + b * m * k, m, n,
                                      k, reg, xp + b * n * k);
                 }));
  }

 private:
  using Real = typename Eigen::NumTraits<T>::Real;

  // Eigen's complete orthogonal decomposition, in double precision for
  // float and complex64 (one instantiation per precision: it is the
  // costliest template here), the result rounded.
  static void SolveMinNorm(const T* a, const T* b, int64_t m, int64_t n,
                           int64_t k, T* x) {
    using D = std::conditional_t<Eigen::NumTraits<T>::IsComplex,
                                 std::complex<double>, double>;
    const RowMatrix<D> am =
        Eigen::Map<const RowMatrix<T>>(a, m, n).template cast<D>();
    const RowMatrix<D> bm =
        Eigen::Map<const RowMatrix<T>>(b, m, k).template cast<D>();
    const RowMatrix<D> sol = am.completeOrthogonalDecomposition().solve(bm);
    Eigen::Map<RowMatrix<T>>(x, n, k) = sol.template cast<T>();
  }

  // The normal equations by plain loops: the Gram matrix (n x n when
  // m >= n, else m x m), its Cholesky factor, two triangular solves.
  static absl::Status SolveNormal(const T* a, const T* b, int64_t m,
                                  int64_t n, int64_t k, T reg, T* x) {
    const bool tall = m >= n;
    const int64_t g = tall ? n : m;
    auto at = [&](int64_t i, int64_t j) { return a[i * n + j]; };
    // gram = A^H A or A A^H, plus reg on the diagonal.
    std::vector<T> gram(g * g);
    for (int64_t i = 0; i < g; ++i) {
      for (int64_t j = 0; j < g; ++j) {
        T sum = T(0);
        if (tall) {
          for (int64_t p = 0; p < m; ++p) sum += Conj(at(p, i)) * at(p, j);
        } else {
          for (int64_t p = 0; p < n; ++p) sum += at(i, p) * Conj(at(j, p));
        }
        gram[i * g + j] = i == j ? sum + reg : sum;
      }
    }
    // gram = L L^H, L in the lower triangle.
    for (int64_t j = 0; j < g; ++j) {
      Real d = std::real(gram[j * g + j]);
      for (int64_t p = 0; p < j; ++p) d -= std::norm(gram[j * g + p]);
      if (!(d > Real(0))) {
        return absl::InvalidArgumentError(
            "Input matrix was rank deficient or ill-conditioned. Try "
            "setting fast=False or provide a larger l2_regularizer > 0.");
      }
      const Real root = std::sqrt(d);
      gram[j * g + j] = T(root);
      for (int64_t i = j + 1; i < g; ++i) {
        T v = gram[i * g + j];
        for (int64_t p = 0; p < j; ++p) {
          v -= gram[i * g + p] * Conj(gram[j * g + p]);
        }
        gram[i * g + j] = v / root;
      }
    }
    // y = A^H B (tall) or B, [g, k]; then L L^H y' = y in place.
    std::vector<T> y(g * k);
    for (int64_t i = 0; i < g; ++i) {
      for (int64_t c = 0; c < k; ++c) {
        T sum = T(0);
        if (tall) {
          for (int64_t p = 0; p < m; ++p) sum += Conj(at(p, i)) * b[p * k + c];
        } else {
          sum = b[i * k + c];
        }
        y[i * k + c] = sum;
      }
    }
    for (int64_t c = 0; c < k; ++c) {
      for (int64_t i = 0; i < g; ++i) {
        T v = y[i * k + c];
        for (int64_t p = 0; p < i; ++p) v -= gram[i * g + p] * y[p * k + c];
        y[i * k + c] = v / gram[i * g + i];
      }
      for (int64_t i = g - 1; i >= 0; --i) {
        T v = y[i * k + c];
        for (int64_t p = i + 1; p < g; ++p) {
          v -= Conj(gram[p * g + i]) * y[p * k + c];
        }
        y[i * k + c] = v / gram[i * g + i];
      }
    }
    if (tall) {
      std::copy(y.begin(), y.end(), x);
      return absl::OkStatus();
    }
    // X = A^H y'.
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t c = 0; c < k; ++c) {
        T sum = T(0);
        for (int64_t p = 0; p < m; ++p) sum += Conj(at(p, i)) * y[p * k + c];
        x[i * k + c] = sum;
      }
    }
    return absl::OkStatus();
  }

  bool fast_ = true;
};

// BandedTriangularSolve: op(A) X = B with A triangular and banded, given
// as [..., bands, n] in LEFT_RIGHT storage (lower: row d holds
// subdiagonal d at A's row index; upper: row bands-1-s holds superdiagonal
// s at A's row index); batch dims broadcast.
template <typename T>
class BandedTriangularSolveOp : public OpKernel {
 public:
  explicit BandedTriangularSolveOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("lower", &lower_));
    ctx->SetStatus(ctx->GetAttr("adjoint", &adjoint_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& bands = ctx->input(0);
    const Tensor& rhs = ctx->input(1);
    DFX_OP_REQUIRES(ctx, bands.dims() >= 2,
                    absl::InvalidArgumentError(absl::StrCat(
                        "In[0] ndims must be >= 2: ", bands.dims())));
    DFX_OP_REQUIRES(ctx, rhs.dims() >= 2,
                    absl::InvalidArgumentError(absl::StrCat(
                        "In[1] ndims must be >= 2: ", rhs.dims())));
    DFX_OP_REQUIRES(ctx, bands.NumElements() > 0,
                    absl::InvalidArgumentError(
                        "In[0] must not be an empty tensor"));
    DFX_OP_REQUIRES(ctx, rhs.NumElements() > 0,
                    absl::InvalidArgumentError(
                        "In[1] must not be an empty tensor"));
    // The batch dims broadcast as BatchMatMul's; bands [nb, n] "times"
    // rhs [n, k] checks n.
    BatchMatMulShapes s;
    DFX_OP_REQUIRES_OK(ctx, ComputeBatchMatMulShapes(bands, rhs, false, false,
                                                     Version::kV2, &s));
    const int64_t nb = s.m, n = s.k, k = s.n;
    DFX_OP_REQUIRES(
        ctx, nb <= n,
        absl::InvalidArgumentError(absl::StrCat(
            "Number of bands must not exceed the matrix size: ", nb, " vs. ",
            n)));
    std::vector<int64_t> out_dims = s.out_batch;
    out_dims.push_back(n);
    out_dims.push_back(k);
    absl::StatusOr<TensorShape> out_shape = TensorShape::Build(out_dims);
    DFX_OP_REQUIRES_OK(ctx, out_shape.status());
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *out_shape, &out));
    if (out->NumElements() == 0) return;
    const std::vector<int64_t> a_index =
        BroadcastBatchIndex(s.out_batch, s.x_batch);
    const std::vector<int64_t> b_index =
        BroadcastBatchIndex(s.out_batch, s.y_batch);
    const T* ap = bands.data<T>();
    const T* bp = rhs.data<T>();
    T* xp = out->data<T>();
    DFX_OP_REQUIRES_OK(
        ctx, ForEachMatrix(*ctx->device(), out->NumElements() / (n * k),
                           2.0 * n * nb * k, [&](int64_t b) {
                             const int64_t ai = a_index.empty() ? b : a_index[b];
                             const int64_t bi = b_index.empty() ? b : b_index[b];
                             Solve(ap + ai * nb * n, nb, n, bp + bi * n * k,
                                   k, xp + b * n * k);
                             return absl::OkStatus();
                           }));
  }

 private:
  // A(i, j) of the banded matrix (zero outside the band).
  T At(const T* bands, int64_t nb, int64_t n, int64_t i, int64_t j) const {
    if (lower_) {
      const int64_t d = i - j;
      return d >= 0 && d < nb ? bands[d * n + i] : T(0);
    }
    const int64_t s = j - i;
    return s >= 0 && s < nb ? bands[(nb - 1 - s) * n + i] : T(0);
  }

  void Solve(const T* bands, int64_t nb, int64_t n, const T* b, int64_t k,
             T* x) const {
    // op(A)(i, j): A(i, j), or conj(A(j, i)) for the adjoint; op(A) is
    // lower triangular when lower_ != adjoint_.
    auto op = [&](int64_t i, int64_t j) {
      return adjoint_ ? Conj(At(bands, nb, n, j, i)) : At(bands, nb, n, i, j);
    };
    const bool forward = lower_ != adjoint_;
    for (int64_t c = 0; c < k; ++c) {
      for (int64_t step = 0; step < n; ++step) {
        const int64_t i = forward ? step : n - 1 - step;
        T v = b[i * k + c];
        const int64_t lo = forward ? std::max<int64_t>(0, i - nb + 1) : i + 1;
        const int64_t hi = forward ? i : std::min<int64_t>(n, i + nb);
        for (int64_t j = lo; j < hi; ++j) v -= op(i, j) * x[j * k + c];
        x[i * k + c] = v / op(i, i);
      }
    }
  }

  bool lower_ = true;
  bool adjoint_ = false;
};

template <typename... Ts>
void RegisterWithComplex(KernelRegistry* r) {
  (RegisterKernel<MatrixSolveLsOp<Ts>>(
       r, KernelDefBuilder("MatrixSolveLs").TypeConstraint<Ts>("T")),
   ...);
  (RegisterKernel<BandedTriangularSolveOp<Ts>>(
       r, KernelDefBuilder("BandedTriangularSolve").TypeConstraint<Ts>("T")),
   ...);
}

}  // namespace

// TensorFlow 2.21's CPU kernels: CholeskyGrad and the Batch* names for
// float and double only; MatrixSolveLs and BandedTriangularSolve for
// complex types too (no half, which the OpDefs allow).
void RegisterLegacyLinalgKernels(KernelRegistry* registry) {
  for (const char* name : {"CholeskyGrad", "BatchCholeskyGrad"}) {
    RegisterKernel<CholeskyGradOp<float>>(
        registry, KernelDefBuilder(name).TypeConstraint<float>("T"));
    RegisterKernel<CholeskyGradOp<double>>(
        registry, KernelDefBuilder(name).TypeConstraint<double>("T"));
  }
  RegisterKernel<MatrixSolveLsOp<float>>(
      registry,
      KernelDefBuilder("BatchMatrixSolveLs").TypeConstraint<float>("T"));
  RegisterKernel<MatrixSolveLsOp<double>>(
      registry,
      KernelDefBuilder("BatchMatrixSolveLs").TypeConstraint<double>("T"));
  RegisterWithComplex<float, double, std::complex<float>,
                      std::complex<double>>(registry);
}

}  // namespace dfx::linalg
