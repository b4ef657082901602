// MatMul on CPU: an Eigen tensor contraction, on the device's intra-op pool
// when the product is large enough.
#include "kernels/nn/nn_util.h"

#include <array>
#include <cstdint>

#include "absl/strings/str_cat.h"

namespace dfx::nn_internal {
namespace {

// Products with fewer multiply-adds than this run inline: the pool's
// scheduling would cost more than it saves.
constexpr int64_t kParallelMatMulWork = 64 * 1024;

template <typename T>
class MatMulOp : public OpKernel {
 public:
  explicit MatMulOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("transpose_a", &transpose_a_));
    ctx->SetStatus(ctx->GetAttr("transpose_b", &transpose_b_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& a = ctx->input(0);
    const Tensor& b = ctx->input(1);
    DFX_OP_REQUIRES(ctx, a.dims() == 2,
                    NodeInvalidArgument(
                        *ctx, absl::StrCat("In[0] is not a matrix. Instead it "
                                           "has shape ",
                                           a.shape().DebugString())));
    DFX_OP_REQUIRES(ctx, b.dims() == 2,
                    NodeInvalidArgument(
                        *ctx, absl::StrCat("In[1] is not a matrix. Instead it "
                                           "has shape ",
                                           b.shape().DebugString())));
    const int64_t m = a.dim_size(transpose_a_ ? 1 : 0);
    const int64_t k = a.dim_size(transpose_a_ ? 0 : 1);
    const int64_t kb = b.dim_size(transpose_b_ ? 1 : 0);
    const int64_t n = b.dim_size(transpose_b_ ? 0 : 1);
    DFX_OP_REQUIRES(
        ctx, k == kb,
        NodeInvalidArgument(
            *ctx, absl::StrCat("Matrix size-incompatible: In[0]: ",
                               a.shape().DebugString(), ", In[1]: ",
                               b.shape().DebugString(), " (transpose_a=",
                               transpose_a_ ? "true" : "false",
                               ", transpose_b=",
                               transpose_b_ ? "true" : "false", ")")));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({m, n}), &out));
    if (out->NumElements() == 0) return;
    auto out_m = matrix<T>(*out);
    if (k == 0) {
      out_m.setZero();  // an empty sum
      return;
    }
    // Contract a's inner dimension (after the transposes) with b's.
    const std::array<Eigen::IndexPair<Eigen::DenseIndex>, 1> dims = {
        Eigen::IndexPair<Eigen::DenseIndex>(transpose_a_ ? 0 : 1,
                                            transpose_b_ ? 1 : 0)};
    // The contraction holds its operands by reference: keep the maps named.
    const auto a_m = matrix<T>(a);
    const auto b_m = matrix<T>(b);
    const auto product = a_m.contract(b_m, dims);
    // m * n * k would overflow for huge shapes; each factor is checked first.
    const int64_t mn = m * n;
    if (mn >= kParallelMatMulWork || k >= kParallelMatMulWork ||
        mn * k >= kParallelMatMulWork) {
      out_m.device(ctx->device()->eigen_cpu_device()) = product;
    } else {
      out_m = product;
    }
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
  Register<int32_t>(registry);
  Register<int64_t>(registry);
}

}  // namespace dfx::nn_internal
