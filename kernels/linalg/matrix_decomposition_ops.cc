// Dense decompositions and solvers over batches of matrices, with Eigen's
// dense algorithms (the ones TensorFlow's CPU kernels use, so results agree
// to rounding): Cholesky, MatrixInverse, MatrixDeterminant,
// LogMatrixDeterminant, MatrixSolve, MatrixTriangularSolve (broadcast batch
// dims). float, double, complex64, complex128, and half for MatrixInverse
// (inverted in float, as TensorFlow does). The deprecated Batch* names
// run the same kernels. Qr, SelfAdjointEigV2 and Svd are in files of their
// own (qr_op.cc, self_adjoint_eig_op.cc, svd_op.cc): each is a minute or
// more of Eigen templates to compile, and apart they compile side by side.
#include "kernels/eigen_util.h"  // first: defines EIGEN_USE_THREADS

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "Eigen/Cholesky"
#include "Eigen/Dense"
#include "Eigen/LU"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "graph/node_def_util.h"
#include "kernels/linalg/matrix_batch.h"
#include "kernels/linalg/matrix_kernels.h"
#include "runtime/op_kernel.h"

namespace dfx::linalg {
namespace {

template <typename T>
class CholeskyOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    DFX_OP_REQUIRES_OK(ctx, CheckSquare(in, 0));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    const int64_t n = in.dim_size(in.dims() - 1);
    if (out->NumElements() == 0) return;
    const T* src = in.data<T>();
    T* dst = out->data<T>();
    DFX_OP_REQUIRES_OK(
        ctx,
        ForEachMatrix(*ctx->device(), NumMatrices(in),
                      static_cast<double>(n) * n * n / 3, [&](int64_t b) {
                        ConstRowMap<T> a(src + b * n * n, n, n);
                        RowMap<T> l(dst + b * n * n, n, n);
                        // Reads the lower triangle only.
                        Eigen::LLT<RowMatrix<T>, Eigen::Lower> llt(a);
                        if (llt.info() == Eigen::Success) {
                          l = llt.matrixL();
                          return absl::OkStatus();
                        }
                        // TensorFlow 2.21 answers a matrix that is not
                        // positive definite with NaN in its lower
                        // triangle rather than an error (its upper
                        // triangle is left unwritten; dfx writes 0).
                        l.setZero();
                        l.template triangularView<Eigen::Lower>().setConstant(
                            T(std::numeric_limits<RealOf<T>>::quiet_NaN()));
                        return absl::OkStatus();
                      }));
  }
};

// Inverts `a` (or its adjoint) with a partially pivoted LU and hands the
// inverse (an Eigen expression) to `store`; InvalidArgument for an exact
// zero pivot.
template <typename T, typename M, typename Store>
absl::Status InvertInto(const M& a, bool adjoint, const Store& store) {
  const int64_t n = a.rows();
  Eigen::PartialPivLU<RowMatrix<T>> lu(n);
  if (adjoint) {
    lu.compute(a.adjoint());
  } else {
    lu.compute(a);
  }
  // Partial pivoting guarantees nothing, but an exact zero pivot is surely
  // singular.
  if (!(lu.matrixLU().diagonal().cwiseAbs().minCoeff() > RealOf<T>(0))) {
    return absl::InvalidArgumentError("Input is not invertible.");
  }
  store(lu.inverse());
  return absl::OkStatus();
}

template <typename T>
class MatrixInverseOp : public OpKernel {
 public:
  explicit MatrixInverseOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(GetNodeAttr(ctx->def(), "adjoint", &adjoint_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    DFX_OP_REQUIRES_OK(ctx, CheckSquare(in, 0));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    const int64_t n = in.dim_size(in.dims() - 1);
    if (out->NumElements() == 0) return;
    const T* src = in.data<T>();
    T* dst = out->data<T>();
    DFX_OP_REQUIRES_OK(
        ctx,
        ForEachMatrix(
            *ctx->device(), NumMatrices(in), static_cast<double>(n) * n * n,
            [&](int64_t b) {
              ConstRowMap<T> a(src + b * n * n, n, n);
              if constexpr (std::is_same_v<T, Eigen::half>) {
                // half inverts in float, rounded once at the end,
                // as TensorFlow's kernel does.
                const RowMatrix<float> f = a.template cast<float>();
                return InvertInto<float>(f, adjoint_, [&](const auto& inverse) {
                  RowMap<T>(dst + b * n * n, n, n) = inverse.template cast<T>();
                });
              } else {
                return InvertInto<T>(a, adjoint_, [&](const auto& inverse) {
                  RowMap<T>(dst + b * n * n, n, n) = inverse;
                });
              }
            }));
  }

 private:
  bool adjoint_ = false;
};

// sign and log|det| of a square matrix from its partially pivoted LU, as
// TensorFlow's SLogDet: an infinite log|det| (a zero pivot, or overflow)
// gives sign 0 and -inf or +inf; NaN input gives NaN.
template <typename T>
RealOf<T> SignLogDet(const ConstRowMap<T>& a, T* sign) {
  using R = RealOf<T>;
  *sign = T(1);
  R log_abs_det = R(0);
  if (a.rows() > 0) {
    // Column-major like TensorFlow's, so pivots agree exactly.
    using ColMajor = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;
    const ColMajor copy = a;
    Eigen::PartialPivLU<ColMajor> lu(copy);
    *sign = T(static_cast<R>(lu.permutationP().determinant()));
    const auto diag = lu.matrixLU().diagonal().array().eval();
    const auto abs_diag = diag.cwiseAbs().eval();
    log_abs_det += abs_diag.log().sum();
    *sign *= (diag / abs_diag.template cast<T>()).prod();
  }
  if (std::isinf(log_abs_det)) {
    *sign = T(0);
    log_abs_det = log_abs_det > 0 ? std::numeric_limits<R>::infinity()
                                  : -std::numeric_limits<R>::infinity();
  }
  return log_abs_det;
}

template <typename T, bool kLog>
class DeterminantOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    DFX_OP_REQUIRES_OK(ctx, CheckSquare(in, 0));
    absl::StatusOr<TensorShape> shape = BatchShape(in, {});
    DFX_OP_REQUIRES_OK(ctx, shape.status());
    Tensor* out0 = nullptr;
    Tensor* out1 = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out0));
    if (kLog) DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(1, *shape, &out1));
    const int64_t n = in.dim_size(in.dims() - 1);
    const T* src = in.data<T>();
    T* o0 = out0->data<T>();
    T* o1 = kLog ? out1->data<T>() : nullptr;
    DFX_OP_REQUIRES_OK(
        ctx, ForEachMatrix(*ctx->device(), out0->NumElements(),
                           static_cast<double>(n) * n * n, [&](int64_t b) {
                             ConstRowMap<T> a(src + b * n * n, n, n);
                             T sign;
                             const RealOf<T> log_abs_det =
                                 SignLogDet<T>(a, &sign);
                             if (kLog) {
                               o0[b] = sign;
                               o1[b] = T(log_abs_det);
                             } else {
                               o0[b] = sign * T(std::exp(log_abs_det));
                             }
                             return absl::OkStatus();
                           }));
  }
};

template <typename T>
class MatrixSolveOp : public OpKernel {
 public:
  explicit MatrixSolveOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(GetNodeAttr(ctx->def(), "adjoint", &adjoint_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& matrix = ctx->input(0);
    const Tensor& rhs = ctx->input(1);
    DFX_OP_REQUIRES_OK(ctx, CheckRank(matrix, 0));
    DFX_OP_REQUIRES_OK(ctx, CheckRank(rhs, 1));
    bool same_outer = matrix.dims() == rhs.dims();
    for (int i = 0; same_outer && i < matrix.dims() - 2; ++i) {
      same_outer = matrix.dim_size(i) == rhs.dim_size(i);
    }
    DFX_OP_REQUIRES(
        ctx, same_outer,
        absl::InvalidArgumentError(
            "All input tensors must have the same outer dimensions."));
    const int rank = matrix.dims();
    const int64_t n = matrix.dim_size(rank - 1);
    DFX_OP_REQUIRES(ctx, matrix.dim_size(rank - 2) == n,
                    absl::InvalidArgumentError("Input matrix must be square."));
    DFX_OP_REQUIRES(
        ctx, rhs.dim_size(rank - 2) == n,
        absl::InvalidArgumentError("Input matrix and rhs are incompatible."));
    const int64_t k = rhs.dim_size(rank - 1);
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, rhs.shape(), &out));
    if (out->NumElements() == 0) return;
    const T* a_data = matrix.data<T>();
    const T* b_data = rhs.data<T>();
    T* dst = out->data<T>();
    DFX_OP_REQUIRES_OK(
        ctx,
        ForEachMatrix(*ctx->device(), NumMatrices(matrix),
                      static_cast<double>(n) * n * (n + k), [&](int64_t b) {
                        ConstRowMap<T> a(a_data + b * n * n, n, n);
                        ConstRowMap<T> r(b_data + b * n * k, n, k);
                        Eigen::PartialPivLU<RowMatrix<T>> lu(n);
                        if (adjoint_) {
                          lu.compute(a.adjoint());
                        } else {
                          lu.compute(a);
                        }
                        if (!(lu.matrixLU().diagonal().cwiseAbs().minCoeff() >
                              RealOf<T>(0))) {
                          return absl::InvalidArgumentError(
                              "Input matrix is not invertible.");
                        }
                        RowMap<T>(dst + b * n * k, n, k) = lu.solve(r);
                        return absl::OkStatus();
                      }));
  }

 private:
  bool adjoint_ = false;
};

// Solves op(A) X = B with A triangular (only its `lower` or upper triangle
// read), op the adjoint when `adjoint`; batch dims broadcast. A zero on
// the diagonal gives inf/NaN, not an error, as in TensorFlow.
template <typename T>
class MatrixTriangularSolveOp : public OpKernel {
 public:
  explicit MatrixTriangularSolveOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(GetNodeAttr(ctx->def(), "lower", &lower_));
    ctx->SetStatus(GetNodeAttr(ctx->def(), "adjoint", &adjoint_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& matrix = ctx->input(0);
    const Tensor& rhs = ctx->input(1);
    DFX_OP_REQUIRES(ctx, matrix.dims() >= 2,
                    absl::InvalidArgumentError(absl::StrCat(
                        "In[0] ndims must be >= 2: ", matrix.dims())));
    DFX_OP_REQUIRES(ctx, rhs.dims() >= 2,
                    absl::InvalidArgumentError(absl::StrCat(
                        "In[1] ndims must be >= 2: ", rhs.dims())));
    const int ar = matrix.dims();
    const int br = rhs.dims();
    const int rank = std::max(ar, br) - 2;
    std::vector<int64_t> a_batch(rank), b_batch(rank), out_batch(rank);
    for (int i = 0; i < rank; ++i) {
      const int ia = ar - 2 - rank + i;
      const int ib = br - 2 - rank + i;
      a_batch[i] = ia >= 0 ? matrix.dim_size(ia) : 1;
      b_batch[i] = ib >= 0 ? rhs.dim_size(ib) : 1;
      DFX_OP_REQUIRES(
          ctx, a_batch[i] == b_batch[i] || a_batch[i] == 1 || b_batch[i] == 1,
          absl::InvalidArgumentError(absl::StrCat(
              "In[0] and In[1] must have compatible batch dimensions: ",
              matrix.shape().DebugString(), " vs. ",
              rhs.shape().DebugString())));
      out_batch[i] = a_batch[i] == 1 ? b_batch[i] : a_batch[i];
    }
    const int64_t n = matrix.dim_size(ar - 1);
    DFX_OP_REQUIRES(
        ctx, matrix.dim_size(ar - 2) == n,
        absl::InvalidArgumentError(absl::StrCat(
            "In[0] matrices in the last dimensions must be square (", n,
            " =/= ", matrix.dim_size(ar - 2), ")")));
    DFX_OP_REQUIRES(
        ctx, rhs.dim_size(br - 2) == n,
        absl::InvalidArgumentError(absl::StrCat(
            "In[0] mismatch In[1] shape: ", n, " vs. ", rhs.dim_size(br - 2),
            ": ", matrix.shape().DebugString(), " ", rhs.shape().DebugString(),
            " ", lower_ ? 1 : 0, " ", adjoint_ ? 1 : 0)));
    const int64_t k = rhs.dim_size(br - 1);
    TensorShape out_shape;
    for (int64_t d : out_batch) DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(d));
    DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(n));
    DFX_OP_REQUIRES_OK(ctx, out_shape.AddDim(k));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    int64_t batches = 1;
    for (int64_t d : out_batch) batches *= d;
    const T* a_data = matrix.data<T>();
    const T* b_data = rhs.data<T>();
    T* dst = out->data<T>();
    DFX_OP_REQUIRES_OK(
        ctx, ForEachMatrix(
                 *ctx->device(), batches, static_cast<double>(n) * n * k,
                 [&](int64_t b) {
                   // Row-major batch index to each operand's index, with
                   // broadcast dims of size 1 held at 0.
                   int64_t ai = 0, bi = 0, rest = b;
                   int64_t a_stride = 1, b_stride = 1;
                   for (int i = rank - 1; i >= 0; --i) {
                     const int64_t idx = rest % out_batch[i];
                     rest /= out_batch[i];
                     if (a_batch[i] != 1) ai += idx * a_stride;
                     if (b_batch[i] != 1) bi += idx * b_stride;
                     a_stride *= a_batch[i];
                     b_stride *= b_batch[i];
                   }
                   ConstRowMap<T> a(a_data + ai * n * n, n, n);
                   RowMap<T> x(dst + b * n * k, n, k);
                   x = ConstRowMap<T>(b_data + bi * n * k, n, k);
                   if (lower_ && !adjoint_) {
                     a.template triangularView<Eigen::Lower>().solveInPlace(x);
                   } else if (lower_) {
                     a.adjoint()
                         .template triangularView<Eigen::Upper>()
                         .solveInPlace(x);
                   } else if (!adjoint_) {
                     a.template triangularView<Eigen::Upper>().solveInPlace(x);
                   } else {
                     a.adjoint()
                         .template triangularView<Eigen::Lower>()
                         .solveInPlace(x);
                   }
                   return absl::OkStatus();
                 }));
  }

 private:
  bool lower_ = true;
  bool adjoint_ = false;
};

template <typename... Ts>
void RegisterAll(KernelRegistry* r) {
  (RegisterKernel<CholeskyOp<Ts>>(
       r, KernelDefBuilder("Cholesky").TypeConstraint<Ts>("T")),
   ...);
  (RegisterKernel<MatrixInverseOp<Ts>>(
       r, KernelDefBuilder("MatrixInverse").TypeConstraint<Ts>("T")),
   ...);
  (RegisterKernel<DeterminantOp<Ts, false>>(
       r, KernelDefBuilder("MatrixDeterminant").TypeConstraint<Ts>("T")),
   ...);
  (RegisterKernel<DeterminantOp<Ts, true>>(
       r, KernelDefBuilder("LogMatrixDeterminant").TypeConstraint<Ts>("T")),
   ...);
  (RegisterKernel<MatrixSolveOp<Ts>>(
       r, KernelDefBuilder("MatrixSolve").TypeConstraint<Ts>("T")),
   ...);
  (RegisterKernel<MatrixTriangularSolveOp<Ts>>(
       r, KernelDefBuilder("MatrixTriangularSolve").TypeConstraint<Ts>("T")),
   ...);
}

// The deprecated Batch* names (GraphDef version < 13) run the same kernels,
// for the types TensorFlow 2.21 serves them: no new instantiations.
template <typename... Ts>
void RegisterBatchNames(KernelRegistry* r) {
  (RegisterKernel<CholeskyOp<Ts>>(
       r, KernelDefBuilder("BatchCholesky").TypeConstraint<Ts>("T")),
   ...);
  (RegisterKernel<MatrixInverseOp<Ts>>(
       r, KernelDefBuilder("BatchMatrixInverse").TypeConstraint<Ts>("T")),
   ...);
  (RegisterKernel<MatrixSolveOp<Ts>>(
       r, KernelDefBuilder("BatchMatrixSolve").TypeConstraint<Ts>("T")),
   ...);
  (RegisterKernel<MatrixTriangularSolveOp<Ts>>(
       r,
       KernelDefBuilder("BatchMatrixTriangularSolve").TypeConstraint<Ts>("T")),
   ...);
}

template <typename... Ts>
void RegisterBatchNamesWithComplex(KernelRegistry* r) {
  (RegisterKernel<DeterminantOp<Ts, false>>(
       r, KernelDefBuilder("BatchMatrixDeterminant").TypeConstraint<Ts>("T")),
   ...);
}

}  // namespace

void RegisterMatrixDecompositionKernels(KernelRegistry* registry) {
  RegisterAll<float, double, std::complex<float>, std::complex<double>>(
      registry);
  RegisterBatchNames<float, double>(registry);
  RegisterKernel<MatrixInverseOp<Eigen::half>>(
      registry,
      KernelDefBuilder("MatrixInverse").TypeConstraint<Eigen::half>("T"));
  RegisterBatchNamesWithComplex<float, double, std::complex<float>,
                                std::complex<double>>(registry);
  RegisterQrKernels(registry);
  RegisterSelfAdjointEigKernels(registry);
  RegisterSvdKernels(registry);
}

}  // namespace dfx::linalg
