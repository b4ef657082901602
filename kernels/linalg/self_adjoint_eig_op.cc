// SelfAdjointEigV2: the eigenvalues (and, with compute_v, eigenvectors) of
// each self-adjoint matrix, with Eigen's SelfAdjointEigenSolver as
// TensorFlow's CPU kernel. float, double, complex64, complex128; the
// deprecated SelfAdjointEig, BatchSelfAdjointEig and BatchSelfAdjointEigV2
// (float and double, as TensorFlow 2.21 serves them) run the same kernel.
#include "kernels/eigen_util.h"  // first: defines EIGEN_USE_THREADS

#include <algorithm>
#include <complex>
#include <cstdint>
#include <initializer_list>
#include <type_traits>

#include "Eigen/Core"
#include "Eigen/Eigenvalues"
#include "graph/node_def_util.h"
#include "kernels/linalg/matrix_batch.h"
#include "kernels/linalg/matrix_kernels.h"
#include "runtime/op_kernel.h"

namespace dfx::linalg {
namespace {

// Each matrix is solved on a column-major copy, complex64 ones in
// complex128 (the result rounded, as accurate as TensorFlow's or more):
// three instantiations of Eigen's SelfAdjointEigenSolver instead of four,
// none on a row-major matrix (this file compiled in 35 s of CPU before).
// float stays in float: the signs of its eigenvectors, which the legacy
// goldens compare, can change with the precision of the QL iterations.
template <typename T>
using SolverScalar = std::conditional_t<std::is_same_v<T, std::complex<float>>,
                                        std::complex<double>, T>;
template <typename T>
using ColMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;

// The solver for the n x n matrix at src (row-major T), reading its lower
// triangle only.
template <typename T>
using Solver = Eigen::SelfAdjointEigenSolver<ColMatrix<SolverScalar<T>>>;

template <typename T>
void Solve(const T* src, int64_t n, bool vectors, Solver<T>* eig) {
  eig->compute(ConstRowMap<T>(src, n, n).template cast<SolverScalar<T>>(),
               vectors ? Eigen::ComputeEigenvectors : Eigen::EigenvaluesOnly);
}

template <typename T>
class SelfAdjointEigV2Op : public OpKernel {
 public:
  // SelfAdjointEig and BatchSelfAdjointEig (v1, deprecated at version 11)
  // have one output, [..., n + 1, n]: the eigenvalues in row 0, the
  // eigenvectors (as columns) below.
  explicit SelfAdjointEigV2Op(OpKernelConstruction* ctx)
      : OpKernel(ctx),
        v1_(ctx->def().op() == "SelfAdjointEig" ||
            ctx->def().op() == "BatchSelfAdjointEig") {
    if (!v1_) {
      ctx->SetStatus(GetNodeAttr(ctx->def(), "compute_v", &compute_v_));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    DFX_OP_REQUIRES_OK(ctx, CheckSquare(in, 0));
    const int64_t n = in.dim_size(in.dims() - 1);
    if (v1_) {
      ComputeV1(ctx, n);
      return;
    }
    absl::StatusOr<TensorShape> e_shape = BatchShape(in, {n});
    DFX_OP_REQUIRES_OK(ctx, e_shape.status());
    // Without vectors TensorFlow's v has the batch shape (one unwritten
    // element per matrix); dfx writes zeros there.
    absl::StatusOr<TensorShape> v_shape =
        compute_v_ ? BatchShape(in, {n, n}) : BatchShape(in, {});
    DFX_OP_REQUIRES_OK(ctx, v_shape.status());
    Tensor* e_out = nullptr;
    Tensor* v_out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *e_shape, &e_out));
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(1, *v_shape, &v_out));
    if (!compute_v_) std::fill_n(v_out->data<T>(), v_out->NumElements(), T(0));
    if (n == 0) return;
    const T* src = in.data<T>();
    T* ed = e_out->data<T>();
    T* vd = v_out->data<T>();
    DFX_OP_REQUIRES_OK(
        ctx, ForEachMatrix(*ctx->device(), NumMatrices(in), 9.0 * n * n * n,
                           [&](int64_t b) {
                             Solver<T> eig;
                             Solve(src + b * n * n, n, compute_v_, &eig);
                             if (eig.info() != Eigen::Success) {
                               return absl::InvalidArgumentError(
                                   "Self-adjoint eigen decomposition was not "
                                   "successful. The input might not be valid.");
                             }
                             Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, 1>>(
                                 ed + b * n, n) =
                                 eig.eigenvalues().template cast<T>();
                             if (compute_v_) {
                               RowMap<T>(vd + b * n * n, n, n) =
                                   eig.eigenvectors().template cast<T>();
                             }
                             return absl::OkStatus();
                           }));
  }

 private:
  void ComputeV1(OpKernelContext* ctx, int64_t n) {
    const Tensor& in = ctx->input(0);
    absl::StatusOr<TensorShape> shape = BatchShape(in, {n + 1, n});
    DFX_OP_REQUIRES_OK(ctx, shape.status());
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
    if (n == 0) return;
    const T* src = in.data<T>();
    T* dst = out->data<T>();
    DFX_OP_REQUIRES_OK(
        ctx,
        ForEachMatrix(
            *ctx->device(), NumMatrices(in), 9.0 * n * n * n, [&](int64_t b) {
              Solver<T> eig;
              Solve(src + b * n * n, n, true, &eig);
              if (eig.info() != Eigen::Success) {
                return absl::InvalidArgumentError(
                    "Self-adjoint eigen decomposition was not "
                    "successful. The input might not be valid.");
              }
              RowMap<T> result(dst + b * (n + 1) * n, n + 1, n);
              result.row(0) = eig.eigenvalues().transpose().template cast<T>();
              result.bottomRows(n) = eig.eigenvectors().template cast<T>();
              return absl::OkStatus();
            }));
  }

  const bool v1_;
  bool compute_v_ = true;
};

template <typename... Ts>
void RegisterNames(KernelRegistry* r,
                   std::initializer_list<const char*> names) {
  for (const char* name : names) {
    (RegisterKernel<SelfAdjointEigV2Op<Ts>>(
         r, KernelDefBuilder(name).TypeConstraint<Ts>("T")),
     ...);
  }
}

}  // namespace

void RegisterSelfAdjointEigKernels(KernelRegistry* registry) {
  RegisterNames<float, double, std::complex<float>, std::complex<double>>(
      registry, {"SelfAdjointEigV2"});
  RegisterNames<float, double>(
      registry,
      {"BatchSelfAdjointEigV2", "SelfAdjointEig", "BatchSelfAdjointEig"});
}

}  // namespace dfx::linalg
