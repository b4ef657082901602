// MatMul on CPU through the shared GEMM of kernels/linalg/gemm.h (oneDNN for
// float, half and bfloat16; Eigen for double and the integers), on the
// device's intra-op pool.
#include "kernels/nn/nn_util.h"

#include <cstdint>

#include "absl/strings/str_cat.h"
#include "kernels/linalg/gemm.h"

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
    DFX_OP_REQUIRES(ctx, a.dims() == 2,
                    absl::InvalidArgumentError(absl::StrCat(
                        "In[0] is not a matrix. Instead it has shape ",
                        a.shape().DebugString())));
    DFX_OP_REQUIRES(ctx, b.dims() == 2,
                    absl::InvalidArgumentError(absl::StrCat(
                        "In[1] is not a matrix. Instead it has shape ",
                        b.shape().DebugString())));
    const int64_t m = a.dim_size(transpose_a_ ? 1 : 0);
    const int64_t k = a.dim_size(transpose_a_ ? 0 : 1);
    const int64_t kb = b.dim_size(transpose_b_ ? 1 : 0);
    const int64_t n = b.dim_size(transpose_b_ ? 0 : 1);
    DFX_OP_REQUIRES(
        ctx, k == kb,
        absl::InvalidArgumentError(absl::StrCat(
            "Matrix size-incompatible: In[0]: ", a.shape().DebugString(),
            ", In[1]: ", b.shape().DebugString(), " (transpose_a=",
            transpose_a_ ? "true" : "false", ", transpose_b=",
            transpose_b_ ? "true" : "false", ")")));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({m, n}), &out));
    linalg::Gemm<T>(*ctx->device(), m, n, k, a.data<T>(), a.dim_size(1),
                    transpose_a_, b.data<T>(), b.dim_size(1), transpose_b_,
                    out->data<T>(), n);
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
}

}  // namespace dfx::nn_internal
