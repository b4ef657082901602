// SparseSoftmaxCrossEntropyWithLogits' input checks, with TensorFlow's
// messages, shared by the CPU kernel (kernels/nn/loss_ops.cc) and the GPU
// kernel (gpu/kernels/nn_gpu.cc): the labels are read on the host in both.
#ifndef DFX_KERNELS_NN_SPARSE_XENT_CHECKS_H_
#define DFX_KERNELS_NN_SPARSE_XENT_CHECKS_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/tensor.h"

namespace dfx {

// logits [batch, classes] (classes > 0), labels [batch].
inline absl::Status CheckSparseXentShapes(const Tensor& logits,
                                          const Tensor& labels) {
  if (logits.dims() != 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "logits must be 2-D, but got shape ", logits.shape().DebugString()));
  }
  if (labels.dims() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "labels must be 1-D, but got shape ", labels.shape().DebugString()));
  }
  if (logits.dim_size(0) != labels.dim_size(0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "logits and labels must have the same first dimension, got logits "
        "shape ",
        logits.shape().DebugString(), " and labels shape ",
        labels.shape().DebugString()));
  }
  if (logits.dim_size(1) <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Must have at least one class, but got logits shape ",
        logits.shape().DebugString()));
  }
  return absl::OkStatus();
}

// Every label (Index: int32_t or int64_t, host memory) in [0, classes).
template <typename Index>
absl::Status CheckSparseLabels(const Tensor& labels, int64_t classes) {
  const Index* label = labels.data<Index>();
  for (int64_t r = 0; r < labels.NumElements(); ++r) {
    if (label[r] < 0 || static_cast<int64_t>(label[r]) >= classes) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Received a label value of ", label[r],
          " which is outside the valid range of [0, ", classes,
          ").  Label values: ", absl::StrJoin(labels.span<Index>(), " ")));
    }
  }
  return absl::OkStatus();
}

}  // namespace dfx

#endif  // DFX_KERNELS_NN_SPARSE_XENT_CHECKS_H_
