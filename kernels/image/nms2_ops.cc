// NonMaxSuppression (v1, float, iou_threshold an attr), NonMaxSuppressionV2
// (float and half), NonMaxSuppressionWithOverlaps (a given [n, n] overlap
// matrix) on nms_core.h's greedy selection, and CombinedNonMaxSuppression:
// per (batch, class) hard NMS, then per batch the best max_total_size
// detections by score, padded with zeros.
//
// CombinedNonMaxSuppression reproduces TensorFlow's ordering exactly: its
// per-class heap orders by score only and the per-batch sort is std::sort
// by descending score, so equal scores come out in the order those standard
// algorithms leave them (libstdc++'s, as TensorFlow's Linux builds).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <queue>
#include <vector>

#include "absl/strings/str_cat.h"
#include "kernels/eigen_util.h"
#include "kernels/image/image2_kernels.h"
#include "kernels/image/image_util.h"
#include "kernels/image/nms_core.h"
#include "runtime/op_kernel.h"

namespace dfx {
namespace {

using Eigen::half;

void WriteSelected(OpKernelContext* ctx, const std::vector<int32_t>& selected) {
  Tensor* out = nullptr;
  DFX_OP_REQUIRES_OK(
      ctx, ctx->allocate_output(
               0, TensorShape({static_cast<int64_t>(selected.size())}), &out));
  std::copy(selected.begin(), selected.end(), out->data<int32_t>());
}

// NonMaxSuppression (kV2 false: float, attr iou_threshold) and
// NonMaxSuppressionV2 (T float or half, input iou_threshold).
template <typename T, bool kV2>
class NonMaxSuppressionV1V2Op : public OpKernel {
 public:
  explicit NonMaxSuppressionV1V2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    if (!kV2) ctx->SetStatus(ctx->GetAttr("iou_threshold", &attr_threshold_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& boxes = ctx->input(0);
    const Tensor& scores = ctx->input(1);
    const Tensor& max_size = ctx->input(2);
    DFX_OP_REQUIRES_OK(ctx, NmsCheckScalar(max_size, "max_output_size", false));
    T threshold = static_cast<T>(attr_threshold_);
    if (kV2) {
      DFX_OP_REQUIRES_OK(ctx,
                         NmsCheckScalar(ctx->input(3), "iou_threshold", false));
      threshold = NmsScalarAs<T>(ctx->input(3));
    }
    DFX_OP_REQUIRES(
        ctx, threshold >= T(0) && threshold <= T(1),
        absl::InvalidArgumentError("iou_threshold must be in [0, 1]"));
    DFX_OP_REQUIRES_OK(ctx, NmsCheckBoxesAndScores(boxes, scores));
    const int32_t output_size = max_size.data<int32_t>()[0];
    DFX_OP_REQUIRES(
        ctx, output_size >= 0,
        absl::InvalidArgumentError("output size must be non-negative"));
    std::vector<int32_t> selected;
    std::vector<T> selected_scores;
    NonMaxSuppressionByIou(boxes.data<T>(), scores.data<T>(),
                           scores.dim_size(0), output_size, threshold,
                           std::numeric_limits<T>::lowest(), T(0), &selected,
                           &selected_scores);
    WriteSelected(ctx, selected);
  }

 private:
  float attr_threshold_ = 0.5f;
};

class NonMaxSuppressionWithOverlapsOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& overlaps = ctx->input(0);
    const Tensor& scores = ctx->input(1);
    const Tensor& max_size = ctx->input(2);
    DFX_OP_REQUIRES_OK(ctx, NmsCheckScalar(max_size, "max_output_size", false));
    DFX_OP_REQUIRES_OK(
        ctx, NmsCheckScalar(ctx->input(3), "overlap_threshold", false));
    const float threshold = ctx->input(3).data<float>()[0];
    DFX_OP_REQUIRES_OK(ctx,
                       NmsCheckScalar(ctx->input(4), "score_threshold", false));
    const float score_threshold = ctx->input(4).data<float>()[0];
    DFX_OP_REQUIRES(
        ctx, overlaps.dims() == 2,
        absl::InvalidArgumentError(absl::StrCat(
            "overlaps must be 2-D", overlaps.shape().DebugString())));
    const int64_t n = overlaps.dim_size(0);
    DFX_OP_REQUIRES(
        ctx, overlaps.dim_size(1) == n,
        absl::InvalidArgumentError(absl::StrCat(
            "overlaps must be square", overlaps.shape().DebugString())));
    DFX_OP_REQUIRES_OK(ctx, NmsCheckScores(scores, n));
    const int32_t output_size = max_size.data<int32_t>()[0];
    DFX_OP_REQUIRES(
        ctx, output_size >= 0,
        absl::InvalidArgumentError("output size must be non-negative"));
    std::vector<int32_t> selected;
    std::vector<float> selected_scores;
    const float* o = overlaps.data<float>();
    GreedyNonMaxSuppression(
        scores.data<float>(), n, output_size, threshold, score_threshold, 0.0f,
        [o, n](int32_t i, int32_t j) { return o[i * n + j]; }, &selected,
        &selected_scores);
    WriteSelected(ctx, selected);
  }
};

class CombinedNonMaxSuppressionOp : public OpKernel {
 public:
  explicit CombinedNonMaxSuppressionOp(OpKernelConstruction* ctx)
      : OpKernel(ctx) {
    ctx->SetStatus(ctx->GetAttr("pad_per_class", &pad_per_class_));
    ctx->SetStatus(ctx->GetAttr("clip_boxes", &clip_boxes_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& boxes = ctx->input(0);
    const Tensor& scores = ctx->input(1);
    DFX_OP_REQUIRES(ctx, boxes.dims() == 4,
                    absl::InvalidArgumentError(absl::StrCat(
                        "boxes must be 4-D [batch, num_boxes, q, 4], got "
                        "shape ",
                        boxes.shape().DebugString())));
    DFX_OP_REQUIRES(ctx, scores.dims() == 3,
                    absl::InvalidArgumentError(absl::StrCat(
                        "scores must be 3-D [batch, num_boxes, num_classes], "
                        "got shape ",
                        scores.shape().DebugString())));
    const int64_t num_boxes = boxes.dim_size(1);
    const int64_t num_classes = scores.dim_size(2);
    const int64_t q = boxes.dim_size(2);
    DFX_OP_REQUIRES(
        ctx, q == 1 || q == num_classes,
        absl::InvalidArgumentError(
            "third dimension of boxes must be either 1 or num classes"));
    DFX_OP_REQUIRES(ctx, boxes.dim_size(3) == 4,
                    absl::InvalidArgumentError("boxes must have 4 columns"));
    DFX_OP_REQUIRES(
        ctx, scores.dim_size(1) == num_boxes,
        absl::InvalidArgumentError("scores has incompatible shape"));
    DFX_OP_REQUIRES(ctx, boxes.dim_size(0) == scores.dim_size(0),
                    absl::InvalidArgumentError(
                        "boxes and scores must have same batch size"));
    DFX_OP_REQUIRES_OK(
        ctx, NmsCheckScalar(ctx->input(2), "max_size_per_class", false));
    const int32_t max_per_class = ctx->input(2).data<int32_t>()[0];
    DFX_OP_REQUIRES(
        ctx, max_per_class > 0,
        absl::InvalidArgumentError("max_size_per_class must be positive"));
    DFX_OP_REQUIRES_OK(ctx,
                       NmsCheckScalar(ctx->input(3), "max_total_size", false));
    const int32_t max_total = ctx->input(3).data<int32_t>()[0];
    DFX_OP_REQUIRES(ctx, max_total > 0,
                    absl::InvalidArgumentError("max_total_size must be > 0"));
    DFX_OP_REQUIRES_OK(ctx,
                       NmsCheckScalar(ctx->input(4), "iou_threshold", false));
    const float iou_threshold = ctx->input(4).data<float>()[0];
    DFX_OP_REQUIRES_OK(ctx,
                       NmsCheckScalar(ctx->input(5), "score_threshold", false));
    const float score_threshold = ctx->input(5).data<float>()[0];
    DFX_OP_REQUIRES(
        ctx, iou_threshold >= 0 && iou_threshold <= 1,
        absl::InvalidArgumentError("iou_threshold must be in [0, 1]"));

    const int64_t batches = boxes.dim_size(0);
    const int64_t per_class = std::min<int64_t>(max_per_class, num_boxes);
    const int64_t slots = per_class * num_classes;
    DFX_OP_REQUIRES(ctx, slots <= std::numeric_limits<int32_t>::max(),
                    absl::InvalidArgumentError(
                        "size_per_class * num_classes causes overflow"));
    int64_t per_batch = max_total;
    if (pad_per_class_) {
      per_batch = std::min<int64_t>(
          max_total, std::min<int64_t>(std::numeric_limits<int32_t>::max(),
                                       int64_t{max_per_class} * num_classes));
    }
    Tensor* out_boxes = nullptr;
    Tensor* out_scores = nullptr;
    Tensor* out_classes = nullptr;
    Tensor* out_valid = nullptr;
    DFX_OP_REQUIRES_OK(ctx, AllocateImageOutput(ctx, 3, {batches}, &out_valid));
    DFX_OP_REQUIRES_OK(
        ctx, AllocateImageOutput(ctx, 0, {batches, per_batch, 4}, &out_boxes));
    DFX_OP_REQUIRES_OK(
        ctx, AllocateImageOutput(ctx, 1, {batches, per_batch}, &out_scores));
    DFX_OP_REQUIRES_OK(
        ctx, AllocateImageOutput(ctx, 2, {batches, per_batch}, &out_classes));
    float* ob = out_boxes->data<float>();
    float* os = out_scores->data<float>();
    float* oc = out_classes->data<float>();
    std::fill(ob, ob + out_boxes->NumElements(), 0.0f);
    std::fill(os, os + out_scores->NumElements(), 0.0f);
    std::fill(oc, oc + out_classes->NumElements(), 0.0f);
    const float* box_data = boxes.data<float>();
    const float* score_data = scores.data<float>();
    std::vector<Result> results(slots);
    for (int64_t b = 0; b < batches; ++b) {
      std::fill(
          results.begin(), results.end(),
          Result{
              -1, -std::numeric_limits<float>::infinity(), -1, {0, 0, 0, 0}});
      const float* bb = box_data + b * num_boxes * q * 4;
      const float* sb = score_data + b * num_boxes * num_classes;
      for (int64_t c = 0; c < num_classes; ++c) {
        SelectClass(bb, sb, num_boxes, q, num_classes, c, per_class,
                    score_threshold, iou_threshold, &results);
      }
      std::sort(
          results.begin(), results.end(),
          [](const Result& a, const Result& r) { return r.score < a.score; });
      int64_t found = std::count_if(results.begin(), results.end(),
                                    [](const Result& r) { return r.box > -1; });
      const int64_t count = std::min(found, per_batch);
      out_valid->data<int32_t>()[b] = static_cast<int32_t>(count);
      for (int64_t k = 0; k < count; ++k) {
        const Result& r = results[k];
        float* dst = ob + (b * per_batch + k) * 4;
        for (int i = 0; i < 4; ++i) {
          dst[i] = clip_boxes_ ? std::max(std::min(r.coord[i], 1.0f), 0.0f)
                               : r.coord[i];
        }
        os[b * per_batch + k] = r.score;
        oc[b * per_batch + k] = static_cast<float>(r.cls);
      }
    }
  }

 private:
  struct Result {
    int32_t box;
    float score;
    int32_t cls;
    float coord[4];
  };

  // Hard NMS of class c of one batch into results[c * per_class, ...).
  static void SelectClass(const float* boxes, const float* scores,
                          int64_t num_boxes, int64_t q, int64_t num_classes,
                          int64_t c, int64_t per_class, float score_threshold,
                          float iou_threshold, std::vector<Result>* results) {
    struct Candidate {
      int32_t box;
      float score;
    };
    auto lower = [](const Candidate& a, const Candidate& b) {
      return a.score < b.score;
    };
    std::priority_queue<Candidate, std::vector<Candidate>, decltype(lower)>
        queue(lower);
    for (int64_t i = 0; i < num_boxes; ++i) {
      const float s = scores[i * num_classes + c];
      if (s > score_threshold) {
        queue.push(Candidate{static_cast<int32_t>(i), s});
      }
    }
    const int64_t column = q > 1 ? c : 0;
    std::vector<int32_t> selected;
    while (static_cast<int64_t>(selected.size()) < per_class &&
           !queue.empty()) {
      const Candidate next = queue.top();
      queue.pop();
      const int64_t at = (next.box * q + column) * 4;
      bool keep = true;
      for (int64_t j = static_cast<int64_t>(selected.size()) - 1; j >= 0; --j) {
        if (BoxIou(boxes, at, (selected[j] * q + column) * 4) > iou_threshold) {
          keep = false;
          break;
        }
      }
      if (!keep) continue;
      (*results)[selected.size() + per_class * c] =
          Result{next.box,
                 next.score,
                 static_cast<int32_t>(c),
                 {boxes[at], boxes[at + 1], boxes[at + 2], boxes[at + 3]}};
      selected.push_back(next.box);
    }
  }

  bool pad_per_class_ = false;
  bool clip_boxes_ = true;
};

}  // namespace

void RegisterNms2Kernels(KernelRegistry* registry) {
  RegisterKernel<NonMaxSuppressionV1V2Op<float, false>>(
      registry, KernelDefBuilder("NonMaxSuppression"));
  RegisterKernel<NonMaxSuppressionV1V2Op<float, true>>(
      registry,
      KernelDefBuilder("NonMaxSuppressionV2").TypeConstraint<float>("T"));
  RegisterKernel<NonMaxSuppressionV1V2Op<half, true>>(
      registry,
      KernelDefBuilder("NonMaxSuppressionV2").TypeConstraint<half>("T"));
  RegisterKernel<NonMaxSuppressionWithOverlapsOp>(
      registry, KernelDefBuilder("NonMaxSuppressionWithOverlaps"));
  RegisterKernel<CombinedNonMaxSuppressionOp>(
      registry, KernelDefBuilder("CombinedNonMaxSuppression"));
}

}  // namespace dfx
