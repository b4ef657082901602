// Softmax and LogSoftmax along the last dimension on CPU: each row fused in
// three packet passes (softmax_rows.h), rows split over the intra-op pool.
// Half and bfloat16 rows are widened to float and rounded once.
#include "kernels/nn/softmax_rows.h"

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"

namespace dfx::nn_internal {
namespace {

using Eigen::bfloat16;
using Eigen::half;

template <typename T, bool kLog>
class SoftmaxOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    using A = AccumType<T>;
    const Tensor& logits = ctx->input(0);
    DFX_OP_REQUIRES(ctx, logits.dims() >= 1,
                    absl::InvalidArgumentError(absl::StrCat(
                        "logits must have >= 1 dimension, got ",
                        logits.shape().DebugString())));
    Tensor* out = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->forward_input_or_allocate_output(
                                {0}, 0, logits.shape(), &out));
    const int64_t total = logits.NumElements();
    if (total == 0) return;
    const int64_t classes = logits.dim_size(logits.dims() - 1);
    const int64_t rows = total / classes;
    const T* x = logits.data<T>();
    T* y = out->data<T>();
    // Per row: about 3 reads and 2 writes of the row in cache, an exp.
    const Eigen::TensorOpCost row_cost(
        static_cast<double>(classes * sizeof(T)),
        static_cast<double>(classes * sizeof(T)),
        static_cast<double>(classes * 8));
    ParallelForBlocks(
        *ctx->device(), rows, row_cost, [&](int64_t first, int64_t last) {
          if constexpr (std::is_same_v<A, T>) {
            for (int64_t r = first; r < last; ++r) {
              SoftmaxRow<A, kLog>(x + r * classes, y + r * classes, classes);
            }
          } else {
            std::vector<A> row(static_cast<size_t>(classes));
            for (int64_t r = first; r < last; ++r) {
              ConvertRun(x + r * classes, row.data(), classes);
              SoftmaxRow<A, kLog>(row.data(), row.data(), classes);
              ConvertRun(row.data(), y + r * classes, classes);
            }
          }
        });
  }
};

template <typename T>
void RegisterFloating(KernelRegistry* registry) {
  RegisterKernel<SoftmaxOp<T, false>>(
      registry, KernelDefBuilder("Softmax").TypeConstraint<T>("T"));
  RegisterKernel<SoftmaxOp<T, true>>(
      registry, KernelDefBuilder("LogSoftmax").TypeConstraint<T>("T"));
}

}  // namespace

void RegisterSoftmaxKernels(KernelRegistry* registry) {
  RegisterFloating<float>(registry);
  RegisterFloating<double>(registry);
  RegisterFloating<half>(registry);
  RegisterFloating<bfloat16>(registry);
}

}  // namespace dfx::nn_internal
