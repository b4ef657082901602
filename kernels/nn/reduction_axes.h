// The reductions' axes (reduction_indices, an int32 or int64 scalar or
// vector read on the host) as one flag per input dim, with TensorFlow's
// messages: shared by the CPU kernels (kernels/nn/reduction_ops.cc) and
// the GPU kernels (gpu/kernels/reduce_gpu.cc).
#ifndef DFX_KERNELS_NN_REDUCTION_AXES_H_
#define DFX_KERNELS_NN_REDUCTION_AXES_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "runtime/tensor.h"

namespace dfx {

// reduced[d] for each of the `rank` dims of the input; negative axes count
// from the end, duplicates are fine. InvalidArgument for indices of rank
// above 1 or an axis outside [-rank, rank).
inline absl::StatusOr<std::vector<bool>> ReductionAxes(const Tensor& indices,
                                                       int rank) {
  if (indices.dims() > 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "reduction_indices must be a scalar or a vector, got shape ",
        indices.shape().DebugString()));
  }
  std::vector<bool> reduced(rank, false);
  for (int64_t i = 0; i < indices.NumElements(); ++i) {
    const int64_t axis = indices.dtype() == DT_INT32
                             ? int64_t{indices.data<int32_t>()[i]}
                             : indices.data<int64_t>()[i];
    if (axis < -rank || axis >= rank) {
      return absl::InvalidArgumentError(
          absl::StrCat("Invalid reduction dimension (", axis,
                       " for input with ", rank, " dimension(s))"));
    }
    reduced[axis < 0 ? axis + rank : axis] = true;
  }
  return reduced;
}

}  // namespace dfx

#endif  // DFX_KERNELS_NN_REDUCTION_AXES_H_
