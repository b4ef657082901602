// CTCGreedyDecoder: best-path decoding of [max_time, batch, num_classes]
// logits, as TensorFlow 2.21's CPU kernel does it: the first largest class
// at each step, blanks dropped, repeats merged when asked, the sparse
// result in batch order, and the negated sum of the chosen logits.
#include "kernels/eigen_util.h"  // first: defines EIGEN_USE_THREADS

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/math/misc_kernels.h"
#include "kernels/nn/ctc_util.h"

namespace dfx::misc_internal {
namespace {

template <typename T>
class CTCGreedyDecoderOp : public OpKernel {
 public:
  explicit CTCGreedyDecoderOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("merge_repeated", &merge_repeated_));
    ctx->SetStatus(ctx->GetAttr("blank_index", &blank_index_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& inputs = ctx->input(0);
    const Tensor& seq_len = ctx->input(1);
    DFX_OP_REQUIRES_OK(ctx, ctc::CheckDecoderInputs(inputs, seq_len));
    const int64_t max_time = inputs.dim_size(0);
    const int64_t batch_size = inputs.dim_size(1);
    const int64_t num_classes = inputs.dim_size(2);
    const int32_t* lengths = seq_len.data<int32_t>();
    const int64_t blank =
        blank_index_ < 0 ? num_classes + blank_index_ : blank_index_;
    DFX_OP_REQUIRES(ctx, blank >= 0 && blank < num_classes,
                    absl::InvalidArgumentError(absl::StrCat(
                        "blank_index expected to be between ", -num_classes,
                        " and ", num_classes - 1, " but was ",
                        blank_index_)));
    Tensor* log_prob = nullptr;
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(
                                3, TensorShape({batch_size, 1}), &log_prob));
    const T* in = inputs.data<T>();
    T* lp = log_prob->data<T>();
    // One path per batch member.
    std::vector<std::vector<std::vector<int>>> sequences(
        batch_size, std::vector<std::vector<int>>(1));
    ParallelFor(
        *ctx->device(), batch_size,
        Eigen::TensorOpCost(max_time * num_classes * sizeof(T), 8,
                            max_time * num_classes),
        [&](int64_t first, int64_t last) {
          for (int64_t b = first; b < last; ++b) {
            T sum(0);
            int64_t prev = -1;
            for (int64_t t = 0; t < lengths[b]; ++t) {
              const T* row = in + (t * batch_size + b) * num_classes;
              int64_t best = 0;
              T best_value = row[0];
              for (int64_t c = 1; c < num_classes; ++c) {
                if (row[c] > best_value) {
                  best_value = row[c];
                  best = c;
                }
              }
              sum += -best_value;
              if (best != blank && !(merge_repeated_ && best == prev)) {
                sequences[b][0].push_back(static_cast<int>(best));
              }
              prev = best;
            }
            lp[b] = sum;
          }
        });
    DFX_OP_REQUIRES_OK(ctx, ctc::StoreDecodedSequences(sequences, 1, ctx));
  }

 private:
  bool merge_repeated_ = false;
  int64_t blank_index_ = -1;
};

}  // namespace

void RegisterCtcKernels(KernelRegistry* registry) {
  RegisterKernel<CTCGreedyDecoderOp<float>>(
      registry,
      KernelDefBuilder("CTCGreedyDecoder").TypeConstraint<float>("T"));
  RegisterKernel<CTCGreedyDecoderOp<double>>(
      registry,
      KernelDefBuilder("CTCGreedyDecoder").TypeConstraint<double>("T"));
}

}  // namespace dfx::misc_internal
