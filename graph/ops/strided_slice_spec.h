// StridedSlice's index arithmetic, shared by its shape function and by the
// StridedSlice and StridedSliceGrad kernels: turns begin/end/strides and the
// five masks into one (begin, end, stride) per input dimension and the
// output's shape, with TensorFlow's rules and errors.
#ifndef DFX_GRAPH_OPS_STRIDED_SLICE_SPEC_H_
#define DFX_GRAPH_OPS_STRIDED_SLICE_SPEC_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"

namespace dfx {

// The five mask attrs of StridedSlice (bit i refers to entry i of begin,
// end and strides).
struct StridedSliceMasks {
  int32_t begin_mask = 0;
  int32_t end_mask = 0;
  int32_t ellipsis_mask = 0;
  int32_t new_axis_mask = 0;
  int32_t shrink_axis_mask = 0;
};

// The slice in dense form: one entry per input dimension.
struct StridedSliceSpec {
  // Canonical first index, bound and step of each input dimension (valid
  // where the dimension and the begin/end values are known). The elements
  // taken along dimension i are begin[i], begin[i] + strides[i], ... while
  // before end[i] in the direction of strides[i].
  std::vector<int64_t> begin;
  std::vector<int64_t> end;
  std::vector<int64_t> strides;
  // Elements taken along each input dimension; -1 where unknown.
  std::vector<int64_t> processing_dims;
  // The output's dims (shrunk axes dropped, new axes added as 1); -1 where
  // unknown.
  std::vector<int64_t> final_dims;
  // For each output dim, the input dimension it walks, or -1 for a new
  // axis (shrunk input dims have no output dim).
  std::vector<int64_t> final_to_processing;
  // Every dimension is taken whole with stride 1: the output holds the
  // input's elements in order.
  bool is_identity = false;
  // Every stride is 1.
  bool is_simple_slice = false;
  // Dimension 0 is sliced with stride 1 and every other is taken whole: the
  // output is a contiguous run of the input.
  bool slice_dim0 = false;
};

// Computes the dense spec of a strided slice of a tensor with `input_dims`
// (-1 for an unknown dim). `begin` and `end` are null when their values are
// unknown (only a shape function passes null). Returns InvalidArgument, with
// TensorFlow's wording and no node name, for lengths that differ or reach
// 32, more than one ellipsis, a zero stride, more indices than dimensions,
// a shrunk index out of range or a shrunk index with a non-positive stride.
absl::Status ComputeStridedSliceSpec(absl::Span<const int64_t> input_dims,
                                     const std::vector<int64_t>* begin,
                                     const std::vector<int64_t>* end,
                                     const std::vector<int64_t>& strides,
                                     const StridedSliceMasks& masks,
                                     StridedSliceSpec* spec);

}  // namespace dfx

#endif  // DFX_GRAPH_OPS_STRIDED_SLICE_SPEC_H_
