// AddN: the element-wise sum of N tensors of one shape.
#include <algorithm>
#include <complex>

#include "kernels/math/cwise_ops.h"

namespace dfx {
namespace {

using math_internal::ConstFlatMap;
using math_internal::FlatMap;

template <typename T>
class AddNOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const int n = ctx->num_inputs();
    const Tensor& first = ctx->input(0);
    for (int i = 1; i < n; ++i) {
      // Inputs fed by one output are one tensor (the executor's shared
      // slot): checked once.
      if (&ctx->input(i) == &ctx->input(i - 1)) continue;
      DFX_OP_REQUIRES(ctx, ctx->input(i).shape() == first.shape(),
                      absl::InvalidArgumentError(absl::StrCat(
                          "inputs must have the same size and shape.  "
                          "Input 0: ",
                          first.shape().DebugString(), " != input ", i, ": ",
                          ctx->input(i).shape().DebugString())));
    }
    if (n == 1) {
      ctx->set_output(0, first);
      return;
    }
    // The sum may be written over input 0 or 1, never a later one: every
    // block is written with the first two before the rest are read.
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(
                                {0, 1}, 0, first.shape(), &out));
    T* o = out->data<T>();
    const Eigen::TensorOpCost cost(n * sizeof(T), sizeof(T), n - 1);
    ParallelFor(*ctx->device(), first.NumElements(), cost,
                [&](int64_t begin, int64_t end) {
                  // Blocks small enough that the partial sum stays in L1
                  // while every input is added to it.
                  constexpr int64_t kBlock = 2048;
                  for (int64_t b = begin; b < end; b += kBlock) {
                    const int64_t len = std::min(kBlock, end - b);
                    FlatMap<T> acc(o + b, len);
                    acc = ConstFlatMap<T>(ctx->input(0).data<T>() + b, len) +
                          ConstFlatMap<T>(ctx->input(1).data<T>() + b, len);
                    for (int i = 2; i < n; ++i) {
                      acc += ConstFlatMap<T>(ctx->input(i).data<T>() + b, len);
                    }
                  }
                });
  }
};

template <typename... Ts>
void RegisterAddN(KernelRegistry* registry) {
  (RegisterKernel<AddNOp<Ts>>(registry,
                              KernelDefBuilder("AddN").TypeConstraint<Ts>("T")),
   ...);
}

}  // namespace

void RegisterAddNKernels(KernelRegistry* registry) {
  RegisterAddN<float, double, Eigen::half, Eigen::bfloat16, int32_t, int64_t,
               int8_t, uint8_t, int16_t, uint16_t, uint32_t, uint64_t,
               std::complex<float>,
               std::complex<double>>(registry);
}

}  // namespace dfx
