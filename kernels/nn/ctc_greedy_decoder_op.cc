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
    DFX_OP_REQUIRES(ctx, inputs.dims() == 3,
                    absl::InvalidArgumentError("inputs is not a 3-Tensor"));
    DFX_OP_REQUIRES(ctx, inputs.NumElements() > 0,
                    absl::InvalidArgumentError("inputs must not be empty"));
    const int64_t max_time = inputs.dim_size(0);
    const int64_t batch_size = inputs.dim_size(1);
    const int64_t num_classes = inputs.dim_size(2);
    DFX_OP_REQUIRES(ctx, seq_len.dims() == 1,
                    absl::InvalidArgumentError(
                        "sequence_length is not a vector"));
    DFX_OP_REQUIRES(ctx, seq_len.dim_size(0) == batch_size,
                    absl::FailedPreconditionError(absl::StrCat(
                        "len(sequence_length) != batch_size.  "
                        "len(sequence_length):  ",
                        seq_len.dim_size(0), " batch_size: ", batch_size)));
    const int32_t* lengths = seq_len.data<int32_t>();
    for (int64_t b = 0; b < batch_size; ++b) {
      DFX_OP_REQUIRES(ctx, lengths[b] <= max_time,
                      absl::FailedPreconditionError(absl::StrCat(
                          "sequence_length(", b, ") <= ", max_time)));
    }
    DFX_OP_REQUIRES(ctx, num_classes <= std::numeric_limits<int>::max(),
                    absl::InvalidArgumentError(
                        "num_classes cannot exceed max int"));
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
    std::vector<std::vector<int64_t>> sequences(batch_size);
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
                sequences[b].push_back(best);
              }
              prev = best;
            }
            lp[b] = sum;
          }
        });
    int64_t total = 0;
    int64_t longest = 0;
    for (const auto& s : sequences) {
      total += static_cast<int64_t>(s.size());
      longest = std::max<int64_t>(longest, static_cast<int64_t>(s.size()));
    }
    Tensor* indices = nullptr;
    Tensor* values = nullptr;
    Tensor* shape = nullptr;
    DFX_OP_REQUIRES_OK(
        ctx, ctx->allocate_output(0, TensorShape({total, 2}), &indices));
    DFX_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(1, TensorShape({total}), &values));
    DFX_OP_REQUIRES_OK(ctx, ctx->allocate_output(2, TensorShape({2}), &shape));
    int64_t* ip = indices->data<int64_t>();
    int64_t* vp = values->data<int64_t>();
    int64_t k = 0;
    for (int64_t b = 0; b < batch_size; ++b) {
      for (size_t t = 0; t < sequences[b].size(); ++t, ++k) {
        ip[2 * k] = b;
        ip[2 * k + 1] = static_cast<int64_t>(t);
        vp[k] = sequences[b][t];
      }
    }
    shape->data<int64_t>()[0] = batch_size;
    shape->data<int64_t>()[1] = longest;
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
