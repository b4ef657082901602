// Svd (and BatchSvd, its name before GraphDef version 13): the singular
// values and, with compute_uv, the singular vectors of each matrix, with
// Eigen's BDCSVD as TensorFlow's CPU kernel; float, double, complex64,
// complex128.
#include "kernels/eigen_util.h"  // first: defines EIGEN_USE_THREADS

#include <algorithm>
#include <complex>
#include <cstdint>
#include <limits>

#include "Eigen/Core"
#include "Eigen/SVD"
#include "graph/node_def_util.h"
#include "kernels/linalg/matrix_batch.h"
#include "kernels/linalg/matrix_kernels.h"
#include "runtime/op_kernel.h"

namespace dfx::linalg {
namespace {

// An SVD of T runs on a column-major copy in double precision
// (WideScalar<T>). Eigen's BDCSVD is the costliest template in the build:
// about 50 s of compile per scalar type on a row-major matrix, 35 s on a
// column-major one.
template <typename T>
using ColMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;

template <typename T>
class SvdOp : public OpKernel {
 public:
  explicit SvdOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(GetNodeAttr(ctx->def(), "compute_uv", &compute_uv_));
    ctx->SetStatus(GetNodeAttr(ctx->def(), "full_matrices", &full_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    DFX_OP_REQUIRES_OK(ctx, CheckRank(in, 0));
    const int64_t m = in.dim_size(in.dims() - 2);
    const int64_t n = in.dim_size(in.dims() - 1);
    const int64_t p = std::min(m, n);
    const int64_t u_cols = full_ ? m : p;
    const int64_t v_cols = full_ ? n : p;
    absl::StatusOr<TensorShape> s_shape = BatchShape(in, {p});
    DFX_OP_REQUIRES_OK(ctx, s_shape.status());
    // Without vectors TensorFlow's u and v have the batch shape (one
    // unwritten element per matrix); dfx writes zeros there.
    absl::StatusOr<TensorShape> u_shape =
        compute_uv_ ? BatchShape(in, {m, u_cols}) : BatchShape(in, {});
    DFX_OP_REQUIRES_OK(ctx, u_shape.status());
    absl::StatusOr<TensorShape> v_shape =
        compute_uv_ ? BatchShape(in, {n, v_cols}) : BatchShape(in, {});
    DFX_OP_REQUIRES_OK(ctx, v_shape.status());
    Tensor* s_out = nullptr;
    Tensor* u_out = nullptr;
    Tensor* v_out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *s_shape, &s_out));
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(1, *u_shape, &u_out));
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(2, *v_shape, &v_out));
    if (!compute_uv_) {
      std::fill_n(u_out->data<T>(), u_out->NumElements(), T(0));
      std::fill_n(v_out->data<T>(), v_out->NumElements(), T(0));
    }
    const T* src = in.data<T>();
    T* sd = s_out->data<T>();
    T* ud = u_out->data<T>();
    T* vd = v_out->data<T>();
    const T nan = T(std::numeric_limits<RealOf<T>>::quiet_NaN());
    DFX_OP_REQUIRES_OK(
        ctx,
        ForEachMatrix(
            *ctx->device(), NumMatrices(in),
            4.0 * m * n * std::max<int64_t>(p, 1), [&](int64_t b) {
              Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, 1>> s(sd + b * p, p);
              RowMap<T> u(compute_uv_ ? ud + b * m * u_cols : nullptr,
                          compute_uv_ ? m : 0, compute_uv_ ? u_cols : 0);
              RowMap<T> v(compute_uv_ ? vd + b * n * v_cols : nullptr,
                          compute_uv_ ? n : 0, compute_uv_ ? v_cols : 0);
              if (p == 0) {
                // An empty matrix: full U and V are identities.
                if (compute_uv_) {
                  u.setIdentity();
                  v.setIdentity();
                }
                return absl::OkStatus();
              }
              using W = WideScalar<T>;
              const ColMatrix<W> a =
                  ConstRowMap<T>(src + b * m * n, m, n).template cast<W>();
              Eigen::BDCSVD<ColMatrix<W>> svd;
              if (compute_uv_) {
                svd.compute(a, full_
                                   ? Eigen::ComputeFullU | Eigen::ComputeFullV
                                   : Eigen::ComputeThinU | Eigen::ComputeThinV);
              } else {
                svd.compute(a);
              }
              if (svd.info() != Eigen::Success) {
                // TensorFlow logs the failure and answers NaN.
                s.setConstant(nan);
                if (compute_uv_) {
                  u.setConstant(nan);
                  v.setConstant(nan);
                }
                return absl::OkStatus();
              }
              s = svd.singularValues().template cast<T>();
              if (compute_uv_) {
                u = svd.matrixU().template cast<T>();
                v = svd.matrixV().template cast<T>();
              }
              return absl::OkStatus();
            }));
  }

 private:
  bool compute_uv_ = true;
  bool full_ = false;
};

template <typename... Ts>
void RegisterSvd(KernelRegistry* r) {
  for (const char* name : {"Svd", "BatchSvd"}) {
    (RegisterKernel<SvdOp<Ts>>(r,
                               KernelDefBuilder(name).TypeConstraint<Ts>("T")),
     ...);
  }
}

}  // namespace

void RegisterSvdKernels(KernelRegistry* registry) {
  RegisterSvd<float, double, std::complex<float>, std::complex<double>>(
      registry);
}

}  // namespace dfx::linalg
