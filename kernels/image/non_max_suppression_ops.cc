// NonMaxSuppressionV3, V4 (pad_to_max_output_size) and V5 (soft-NMS with a
// Gaussian weight exp(-0.5 * iou^2 / sigma), selected_scores) on CPU, for
// T = float and half.
//
// The selection is TensorFlow's greedy one: candidates above
// score_threshold pop from a max-heap by score (lower index first on ties);
// each is compared against the boxes selected since it was last looked at,
// newest first; a hard overlap drops it, a soft one lowers its score and
// pushes it back. Arithmetic is in T, as TensorFlow's, so half results
// round as there.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <queue>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/eigen_util.h"
#include "kernels/image/image_kernels.h"
#include "kernels/image/image_util.h"
#include "runtime/op_kernel.h"

namespace dfx {
namespace {

using Eigen::half;

// A scalar input of float or half type as T.
template <typename T>
T ScalarAs(const Tensor& t) {
  return t.dtype() == DT_HALF ? static_cast<T>(t.data<half>()[0])
                              : static_cast<T>(t.data<float>()[0]);
}

absl::Status CheckScalar(const Tensor& t, const char* name, bool rank_note) {
  if (t.dims() == 0) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      name, " must be 0-D, got shape ", t.shape().DebugString(),
      rank_note
          ? absl::StrCat(" (Shape must be rank 0 but is rank ", t.dims(), ")")
          : ""));
}

absl::Status CheckBoxesAndScores(const Tensor& boxes, const Tensor& scores) {
  if (boxes.dims() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("boxes must be 2-D", boxes.shape().DebugString(),
                     " (Shape must be rank 2 but is rank ", boxes.dims(), ")"));
  }
  if (boxes.dim_size(1) != 4) {
    return absl::InvalidArgumentError(
        absl::StrCat("boxes must have 4 columns (Dimension must be 4 but is ",
                     boxes.dim_size(1), ")"));
  }
  if (scores.dims() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "scores must be 1-D", scores.shape().DebugString(),
        " (Shape must be rank 1 but is rank ", scores.dims(), ")"));
  }
  if (scores.dim_size(0) != boxes.dim_size(0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "scores has incompatible shape (Dimensions must be equal, but are ",
        boxes.dim_size(0), " and ", scores.dim_size(0), ")"));
  }
  return absl::OkStatus();
}

// Intersection over union of boxes i and j (corners in either order); 0
// when either box has no area.
template <typename T>
T Iou(const T* boxes, int64_t i, int64_t j) {
  const T* a = boxes + 4 * i;
  const T* b = boxes + 4 * j;
  const T ymin_i = std::min(a[0], a[2]);
  const T xmin_i = std::min(a[1], a[3]);
  const T ymax_i = std::max(a[0], a[2]);
  const T xmax_i = std::max(a[1], a[3]);
  const T ymin_j = std::min(b[0], b[2]);
  const T xmin_j = std::min(b[1], b[3]);
  const T ymax_j = std::max(b[0], b[2]);
  const T xmax_j = std::max(b[1], b[3]);
  const T area_i = (ymax_i - ymin_i) * (xmax_i - xmin_i);
  const T area_j = (ymax_j - ymin_j) * (xmax_j - xmin_j);
  if (area_i <= T(0) || area_j <= T(0)) return T(0);
  const T iy_min = std::max(ymin_i, ymin_j);
  const T ix_min = std::max(xmin_i, xmin_j);
  const T iy_max = std::min(ymax_i, ymax_j);
  const T ix_max = std::min(xmax_i, xmax_j);
  const T inter =
      std::max(iy_max - iy_min, T(0)) * std::max(ix_max - ix_min, T(0));
  return inter / (area_i + area_j - inter);
}

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
    DFX_OP_REQUIRES_OK(ctx, CheckScalar(max_size, "max_output_size", true));
    DFX_OP_REQUIRES_OK(ctx, CheckScalar(ctx->input(3), "iou_threshold", true));
    const T iou_threshold = ScalarAs<T>(ctx->input(3));
    DFX_OP_REQUIRES(
        ctx, iou_threshold >= T(0) && iou_threshold <= T(1),
        absl::InvalidArgumentError("iou_threshold must be in [0, 1]"));
    DFX_OP_REQUIRES_OK(ctx,
                       CheckScalar(ctx->input(4), "score_threshold", false));
    const T score_threshold = ScalarAs<T>(ctx->input(4));
    T sigma = T(0);
    if (kVersion == 5) {
      DFX_OP_REQUIRES_OK(ctx,
                         CheckScalar(ctx->input(5), "soft_nms_sigma", false));
      sigma = ScalarAs<T>(ctx->input(5));
      DFX_OP_REQUIRES(
          ctx, sigma >= T(0),
          absl::InvalidArgumentError("soft_nms_sigma_val must be >= 0"));
    }
    DFX_OP_REQUIRES_OK(ctx, CheckBoxesAndScores(boxes, scores));
    const int32_t output_size = max_size.data<int32_t>()[0];
    DFX_OP_REQUIRES(
        ctx, output_size >= 0,
        absl::InvalidArgumentError("output size must be non-negative"));

    std::vector<int32_t> selected;
    std::vector<T> selected_scores;
    Select(boxes.data<T>(), scores.data<T>(), scores.dim_size(0), output_size,
           iou_threshold, score_threshold, sigma, &selected, &selected_scores);
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
  struct Candidate {
    int32_t index;
    T score;
    // Selected boxes before this position were already compared.
    int32_t compared;
  };

  static void Select(const T* boxes, const T* scores, int64_t num_boxes,
                     int32_t output_size, T iou_threshold, T score_threshold,
                     T sigma, std::vector<int32_t>* selected,
                     std::vector<T>* selected_scores) {
    auto lower = [](const Candidate& a, const Candidate& b) {
      return (a.score == b.score && a.index > b.index) || a.score < b.score;
    };
    std::priority_queue<Candidate, std::deque<Candidate>, decltype(lower)>
        queue(lower);
    for (int64_t i = 0; i < num_boxes; ++i) {
      if (scores[i] > score_threshold) {
        queue.push(Candidate{static_cast<int32_t>(i), scores[i], 0});
      }
    }
    const bool soft = sigma > T(0);
    const T scale = soft ? static_cast<T>(-0.5f) / sigma : T(0);
    while (static_cast<int32_t>(selected->size()) < output_size &&
           !queue.empty()) {
      Candidate next = queue.top();
      queue.pop();
      const T original = next.score;
      bool hard_suppressed = false;
      for (int32_t j = static_cast<int32_t>(selected->size()) - 1;
           j >= next.compared; --j) {
        // TensorFlow keeps the overlap in a float between the two uses.
        const float overlap =
            static_cast<float>(Iou(boxes, next.index, (*selected)[j]));
        const T sim = static_cast<T>(overlap);
        const T weight =
            static_cast<T>(std::exp(static_cast<float>(scale * sim * sim)));
        next.score *= (soft || sim <= iou_threshold) ? weight : T(0);
        if (!soft && sim > iou_threshold) {
          hard_suppressed = true;
          break;
        }
        if (next.score <= score_threshold) break;
      }
      next.compared = static_cast<int32_t>(selected->size());
      if (hard_suppressed) continue;
      if (next.score == original) {
        selected->push_back(next.index);
        selected_scores->push_back(next.score);
      } else if (next.score > score_threshold) {
        queue.push(next);
      }
    }
  }

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
