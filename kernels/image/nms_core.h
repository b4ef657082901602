// The greedy non-max suppression of NonMaxSuppression (v1) to V5 and
// NonMaxSuppressionWithOverlaps, and the box IoU they and
// CombinedNonMaxSuppression use.
//
// The selection is TensorFlow's: candidates above score_threshold pop from
// a max-heap by score (lower index first on ties); each is compared against
// the boxes selected since it was last looked at, newest first; a hard
// overlap drops it, a soft one (soft-NMS, sigma > 0) lowers its score by
// exp(-0.5 * sim^2 / sigma) and pushes it back. Scores and thresholds are
// in T, as TensorFlow's, so half results round as there.
#ifndef DFX_KERNELS_IMAGE_NMS_CORE_H_
#define DFX_KERNELS_IMAGE_NMS_CORE_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <queue>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "kernels/eigen_util.h"
#include "runtime/tensor.h"

namespace dfx {

// Intersection over union of the boxes at float offsets i and j of `boxes`
// (corners in either order), computed in float as TensorFlow does for
// every box type; 0 when either box has no area.
template <typename T>
float BoxIou(const T* boxes, int64_t i, int64_t j) {
  const T* a = boxes + i;
  const T* b = boxes + j;
  const float a0 = static_cast<float>(a[0]), a1 = static_cast<float>(a[1]);
  const float a2 = static_cast<float>(a[2]), a3 = static_cast<float>(a[3]);
  const float b0 = static_cast<float>(b[0]), b1 = static_cast<float>(b[1]);
  const float b2 = static_cast<float>(b[2]), b3 = static_cast<float>(b[3]);
  const float ymin_i = std::min(a0, a2);
  const float xmin_i = std::min(a1, a3);
  const float ymax_i = std::max(a0, a2);
  const float xmax_i = std::max(a1, a3);
  const float ymin_j = std::min(b0, b2);
  const float xmin_j = std::min(b1, b3);
  const float ymax_j = std::max(b0, b2);
  const float xmax_j = std::max(b1, b3);
  const float area_i = (ymax_i - ymin_i) * (xmax_i - xmin_i);
  const float area_j = (ymax_j - ymin_j) * (xmax_j - xmin_j);
  if (area_i <= 0.0f || area_j <= 0.0f) return 0.0f;
  const float iy_min = std::max(ymin_i, ymin_j);
  const float ix_min = std::max(xmin_i, xmin_j);
  const float iy_max = std::min(ymax_i, ymax_j);
  const float ix_max = std::min(xmax_i, xmax_j);
  const float inter =
      std::max(iy_max - iy_min, 0.0f) * std::max(ix_max - ix_min, 0.0f);
  return inter / (area_i + area_j - inter);
}

// Greedy NMS over scores[0, n): appends the selected indices (at most
// output_size) and their scores. `similarity(i, j)` is a float (the IoU, or
// a given overlap); a candidate whose similarity to a selected box exceeds
// `threshold` is dropped unless sigma > 0 (soft-NMS).
template <typename T, typename Similarity>
void GreedyNonMaxSuppression(const T* scores, int64_t n, int32_t output_size,
                             T threshold, T score_threshold, T sigma,
                             const Similarity& similarity,
                             std::vector<int32_t>* selected,
                             std::vector<T>* selected_scores) {
  struct Candidate {
    int32_t index;
    T score;
    // Selected boxes before this position were already compared.
    int32_t compared;
  };
  auto lower = [](const Candidate& a, const Candidate& b) {
    return (a.score == b.score && a.index > b.index) || a.score < b.score;
  };
  std::priority_queue<Candidate, std::deque<Candidate>, decltype(lower)> queue(
      lower);
  for (int64_t i = 0; i < n; ++i) {
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
      // TensorFlow keeps the similarity in a float between the two uses.
      const float overlap = similarity(next.index, (*selected)[j]);
      const T sim = static_cast<T>(overlap);
      const T weight =
          static_cast<T>(std::exp(static_cast<float>(scale * sim * sim)));
      next.score *= (soft || sim <= threshold) ? weight : T(0);
      if (!soft && sim > threshold) {
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

// GreedyNonMaxSuppression of boxes [n, 4] (corners in either order) by
// their IoU.
template <typename T>
void NonMaxSuppressionByIou(const T* boxes, const T* scores, int64_t n,
                            int32_t output_size, T iou_threshold,
                            T score_threshold, T sigma,
                            std::vector<int32_t>* selected,
                            std::vector<T>* selected_scores) {
  GreedyNonMaxSuppression(
      scores, n, output_size, iou_threshold, score_threshold, sigma,
      [boxes](int32_t i, int32_t j) {
        return BoxIou(boxes, 4 * int64_t{i}, 4 * int64_t{j});
      },
      selected, selected_scores);
}

// A scalar input of float or half type as T.
template <typename T>
T NmsScalarAs(const Tensor& t) {
  return t.dtype() == DT_HALF ? static_cast<T>(t.data<Eigen::half>()[0])
                              : static_cast<T>(t.data<float>()[0]);
}

// InvalidArgument unless t is a scalar; rank_note adds the shape
// function's wording, as V3 to V5 do.
inline absl::Status NmsCheckScalar(const Tensor& t, const char* name,
                                   bool rank_note) {
  if (t.dims() == 0) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      name, " must be 0-D, got shape ", t.shape().DebugString(),
      rank_note
          ? absl::StrCat(" (Shape must be rank 0 but is rank ", t.dims(), ")")
          : ""));
}

// scores: [num_boxes].
inline absl::Status NmsCheckScores(const Tensor& scores, int64_t num_boxes) {
  if (scores.dims() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "scores must be 1-D", scores.shape().DebugString(),
        " (Shape must be rank 1 but is rank ", scores.dims(), ")"));
  }
  if (scores.dim_size(0) != num_boxes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "scores has incompatible shape (Dimensions must be equal, but are ",
        num_boxes, " and ", scores.dim_size(0), ")"));
  }
  return absl::OkStatus();
}

// boxes: [num_boxes, 4]; scores: [num_boxes].
inline absl::Status NmsCheckBoxesAndScores(const Tensor& boxes,
                                           const Tensor& scores) {
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
  return NmsCheckScores(scores, boxes.dim_size(0));
}

}  // namespace dfx

#endif  // DFX_KERNELS_IMAGE_NMS_CORE_H_
