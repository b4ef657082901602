// MatMul on CPU through the shared GEMM of kernels/linalg/gemm.h (oneDNN for
// float, half and bfloat16; Eigen for double, the integers and complex64/
// complex128), on the device's intra-op pool. MatMul transposes without
// conjugating, complex operands included, as TensorFlow's does.
#include "kernels/nn/nn_util.h"

#include <complex>
#include <cstdint>

#include "kernels/linalg/gemm.h"
#include "kernels/nn/matmul_shape.h"

namespace dfx::nn_internal {
namespace {

template <typename T>
class MatMulOp : public OpKernel {
 public:
  explicit MatMulOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("transpose_a", &transpose_a_));
    ctx->SetStatus(ctx->GetAttr("transpose_b", &transpose_b_));
    // grad_a / grad_b only steer TensorFlow's GPU autotuning; nothing here.
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    absl::StatusOr<MatMulDims> d =
        MatMulShape(a.shape(), b.shape(), transpose_a_, transpose_b_);
    DFX_OP_REQUIRES_OK(ctx, d.status());
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(0, TensorShape({d->m, d->n}), &out));
    linalg::Gemm<T>(*ctx->device(), d->m, d->n, d->k, a.data<T>(),
                    a.dim_size(1), transpose_a_, b.data<T>(), b.dim_size(1),
                    transpose_b_, out->data<T>(), d->n);
  }

 private:
  bool transpose_a_ = false;
  bool transpose_b_ = false;
};

template <typename T>
void Register(KernelRegistry* registry) {
  RegisterKernel<MatMulOp<T>>(
      registry, KernelDefBuilder("MatMul").TypeConstraint<T>("T"));
}

}  // namespace

void RegisterMatMulKernels(KernelRegistry* registry) {
  Register<float>(registry);
  Register<double>(registry);
  Register<Eigen::half>(registry);
  Register<Eigen::bfloat16>(registry);
  Register<int32_t>(registry);
  Register<int64_t>(registry);
  Register<std::complex<float>>(registry);
  Register<std::complex<double>>(registry);
}

}  // namespace dfx::nn_internal
