// Qr: the QR decomposition of each matrix (full or reduced), with Eigen's
// HouseholderQR as TensorFlow's CPU kernel; half (computed in half, as
// TensorFlow's kernel does), float, double, complex64, complex128.
#include "kernels/eigen_util.h"  // first: defines EIGEN_USE_THREADS

#include <algorithm>
#include <complex>
#include <cstdint>
#include <type_traits>

#include "Eigen/Core"
#include "Eigen/QR"
#include "graph/node_def_util.h"
#include "kernels/linalg/matrix_batch.h"
#include "kernels/linalg/matrix_kernels.h"
#include "runtime/op_kernel.h"

namespace dfx::linalg {
namespace {

// Each matrix is decomposed on a column-major copy in double precision:
// half, float and double in double, complex64 and complex128 in complex128,
// the result rounded (as accurate as TensorFlow's or more; Householder
// reflections take their signs from the data, not from the precision).
// Eigen's HouseholderQR and its Q are then compiled for two scalar types,
// not five (this file took 51 s of compile CPU with five on row-major
// matrices).
template <typename T>
using QrScalar = std::conditional_t<Eigen::NumTraits<T>::IsComplex,
                                    std::complex<double>, double>;
template <typename T>
using ColMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;

template <typename T>
class QrOp : public OpKernel {
 public:
  explicit QrOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(GetNodeAttr(ctx->def(), "full_matrices", &full_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    DFX_OP_REQUIRES_OK(ctx, CheckRank(in, 0));
    const int64_t m = in.dim_size(in.dims() - 2);
    const int64_t n = in.dim_size(in.dims() - 1);
    const int64_t p = std::min(m, n);
    const int64_t q_cols = full_ ? m : p;
    absl::StatusOr<TensorShape> q_shape = BatchShape(in, {m, q_cols});
    DFX_OP_REQUIRES_OK(ctx, q_shape.status());
    absl::StatusOr<TensorShape> r_shape = BatchShape(in, {q_cols, n});
    DFX_OP_REQUIRES_OK(ctx, r_shape.status());
    Tensor* q_out = nullptr;
    Tensor* r_out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *q_shape, &q_out));
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(1, *r_shape, &r_out));
    const T* src = in.data<T>();
    T* qd = q_out->data<T>();
    T* rd = r_out->data<T>();
    DFX_OP_REQUIRES_OK(
        ctx,
        ForEachMatrix(
            *ctx->device(), NumMatrices(in), 2.0 * m * n * n, [&](int64_t b) {
              RowMap<T> q(qd + b * m * q_cols, m, q_cols);
              RowMap<T> r(rd + b * q_cols * n, q_cols, n);
              if (p == 0) {
                q.setIdentity();
                r.setZero();
                return absl::OkStatus();
              }
              using W = QrScalar<T>;
              const Eigen::HouseholderQR<ColMatrix<W>> qr(
                  ConstRowMap<T>(src + b * m * n, m, n).template cast<W>());
              q = (qr.householderQ() * ColMatrix<W>::Identity(m, q_cols))
                      .template cast<T>();
              r = ColMatrix<W>(qr.matrixQR()
                                   .topRows(q_cols)
                                   .template triangularView<Eigen::Upper>())
                      .template cast<T>();
              return absl::OkStatus();
            }));
  }

 private:
  bool full_ = false;
};

}  // namespace

void RegisterQrKernels(KernelRegistry* registry) {
  RegisterKernel<QrOp<Eigen::half>>(
      registry, KernelDefBuilder("Qr").TypeConstraint<Eigen::half>("T"));
  RegisterKernel<QrOp<float>>(
      registry, KernelDefBuilder("Qr").TypeConstraint<float>("T"));
  RegisterKernel<QrOp<double>>(
      registry, KernelDefBuilder("Qr").TypeConstraint<double>("T"));
  RegisterKernel<QrOp<std::complex<float>>>(
      registry,
      KernelDefBuilder("Qr").TypeConstraint<std::complex<float>>("T"));
  RegisterKernel<QrOp<std::complex<double>>>(
      registry,
      KernelDefBuilder("Qr").TypeConstraint<std::complex<double>>("T"));
}

}  // namespace dfx::linalg
