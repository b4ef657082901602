// NonMaxSuppressionV3, V4 (pad_to_max_output_size) and V5 (soft-NMS with a
// Gaussian weight exp(-0.5 * iou^2 / sigma), selected_scores) on CPU, for
// T = float and half.
//
// The selection is kernels/image/nms_core.h's, shared with the image2
// family's NonMaxSuppression (v1), V2 and NonMaxSuppressionWithOverlaps.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/eigen_util.h"
#include "kernels/image/image_kernels.h"
#include "kernels/image/image_util.h"
#include "kernels/image/nms_core.h"
#include "runtime/op_kernel.h"

namespace dfx {
namespace {

using Eigen::half;

// kVersion 3, 4 or 5.
template <typename T, int kVersion>
class NonMaxSuppressionOp : public OpKernel {
 public:
  explicit NonMaxSuppressionOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    if (kVersion >= 4) {
      ctx->SetStatus(ctx->GetAttr("pad_to_max_output_size", &pad_));
    }
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& boxes = ctx->input(0);
    const Tensor& scores = ctx->input(1);
    const Tensor& max_size = ctx->input(2);
    DFX_OP_REQUIRES_OK(ctx, NmsCheckScalar(max_size, "max_output_size", true));
    DFX_OP_REQUIRES_OK(ctx,
                       NmsCheckScalar(ctx->input(3), "iou_threshold", true));
    const T iou_threshold = NmsScalarAs<T>(ctx->input(3));
    DFX_OP_REQUIRES(
        ctx, iou_threshold >= T(0) && iou_threshold <= T(1),
        absl::InvalidArgumentError("iou_threshold must be in [0, 1]"));
    DFX_OP_REQUIRES_OK(ctx,
                       NmsCheckScalar(ctx->input(4), "score_threshold", false));
    const T score_threshold = NmsScalarAs<T>(ctx->input(4));
    T sigma = T(0);
    if (kVersion == 5) {
      DFX_OP_REQUIRES_OK(
          ctx, NmsCheckScalar(ctx->input(5), "soft_nms_sigma", false));
      sigma = NmsScalarAs<T>(ctx->input(5));
      DFX_OP_REQUIRES(
          ctx, sigma >= T(0),
          absl::InvalidArgumentError("soft_nms_sigma_val must be >= 0"));
    }
    DFX_OP_REQUIRES_OK(ctx, NmsCheckBoxesAndScores(boxes, scores));
    const int32_t output_size = max_size.data<int32_t>()[0];
    DFX_OP_REQUIRES(
        ctx, output_size >= 0,
        absl::InvalidArgumentError("output size must be non-negative"));

    std::vector<int32_t> selected;
    std::vector<T> selected_scores;
    NonMaxSuppressionByIou(boxes.data<T>(), scores.data<T>(),
                           scores.dim_size(0), output_size, iou_threshold,
                           score_threshold, sigma, &selected, &selected_scores);
    const int32_t valid = static_cast<int32_t>(selected.size());
    if (pad_) {
      selected.resize(output_size, 0);
      selected_scores.resize(output_size, T(0));
    }
    const int64_t n = static_cast<int64_t>(selected.size());
    Tensor* indices = nullptr;
    DFX_OP_REQUIRES_OK(ctx,
                       ctx->allocate_output(0, TensorShape({n}), &indices));
    std::copy(selected.begin(), selected.end(), indices->data<int32_t>());
    int next = 1;
    if (kVersion == 5) {
      Tensor* out_scores = nullptr;
      DFX_OP_REQUIRES_OK(
          ctx, ctx->allocate_output(next++, TensorShape({n}), &out_scores));
      std::copy(selected_scores.begin(), selected_scores.end(),
                out_scores->data<T>());
    }
    if (kVersion >= 4) {
      Tensor* num = nullptr;
      DFX_OP_REQUIRES_OK(ctx,
                         ctx->allocate_output(next, TensorShape({}), &num));
      num->data<int32_t>()[0] = valid;
    }
  }

 private:
  bool pad_ = false;
};

}  // namespace

void RegisterNonMaxSuppressionKernels(KernelRegistry* registry) {
  RegisterKernel<NonMaxSuppressionOp<float, 3>>(
      registry,
      KernelDefBuilder("NonMaxSuppressionV3").TypeConstraint<float>("T"));
  RegisterKernel<NonMaxSuppressionOp<half, 3>>(
      registry,
      KernelDefBuilder("NonMaxSuppressionV3").TypeConstraint<half>("T"));
  RegisterKernel<NonMaxSuppressionOp<float, 4>>(
      registry,
      KernelDefBuilder("NonMaxSuppressionV4").TypeConstraint<float>("T"));
  RegisterKernel<NonMaxSuppressionOp<half, 4>>(
      registry,
      KernelDefBuilder("NonMaxSuppressionV4").TypeConstraint<half>("T"));
  RegisterKernel<NonMaxSuppressionOp<float, 5>>(
      registry,
      KernelDefBuilder("NonMaxSuppressionV5").TypeConstraint<float>("T"));
  RegisterKernel<NonMaxSuppressionOp<half, 5>>(
      registry,
      KernelDefBuilder("NonMaxSuppressionV5").TypeConstraint<half>("T"));
}

}  // namespace dfx
