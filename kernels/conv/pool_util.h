// The geometry and attrs of 2-D pooling over NHWC tensors, shared by the
// pooling kernels (pooling_ops.cc, pooling_argmax_ops.cc). Private to
// kernels/conv/.
#ifndef DFX_KERNELS_CONV_POOL_UTIL_H_
#define DFX_KERNELS_CONV_POOL_UTIL_H_

#include "kernels/conv/conv_util.h"  // first: defines EIGEN_USE_THREADS

#include <algorithm>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "runtime/op_kernel.h"
#include "runtime/tensor_shape.h"

namespace dfx::conv_internal {

// A resolved 2-D pooling window over an NHWC input.
struct PoolGeom {
  int64_t batch = 0, in_rows = 0, in_cols = 0, depth = 0;
  int64_t window_rows = 1, window_cols = 1, depth_window = 1;
  int64_t stride_rows = 1, stride_cols = 1;
  int64_t out_rows = 0, out_cols = 0, out_depth = 0;
  int64_t pad_top = 0, pad_left = 0;

  absl::StatusOr<TensorShape> OutputShape() const {
    return TensorShape::Build({batch, out_rows, out_cols, out_depth});
  }
  // The rows [*begin, *end) of the input under output row `oh`.
  void RowWindow(int64_t oh, int64_t* begin, int64_t* end) const {
    const int64_t start = oh * stride_rows - pad_top;
    *begin = std::max<int64_t>(start, 0);
    *end = std::min(start + window_rows, in_rows);
  }
  void ColWindow(int64_t ow, int64_t* begin, int64_t* end) const {
    const int64_t start = ow * stride_cols - pad_left;
    *begin = std::max<int64_t>(start, 0);
    *end = std::min(start + window_cols, in_cols);
  }
};

// Pooling attrs as TensorFlow's CPU pooling kernels read them.
struct PoolAttrs {
  std::vector<int64_t> ksize;
  std::vector<int64_t> strides;
  Padding padding = Padding::kValid;
  std::vector<int64_t> explicit_paddings;
};

// InvalidArgument unless ksize and strides have 4 positive values;
// Unimplemented for a window or stride over the batch dimension.
absl::Status CheckWindow(const std::vector<int64_t>& ksize,
                         const std::vector<int64_t>& strides);

// Reads data_format (NHWC only on CPU; `op_class` names the kernel in the
// error), padding, explicit paddings and, when `from_attrs`, ksize and
// strides.
absl::Status ReadPoolAttrs(const OpKernelConstruction& ctx,
                           absl::string_view op_class, bool from_attrs,
                           PoolAttrs* attrs);

// As ReadPoolAttrs, for a device that also pools NCHW tensors (a GPU):
// an NCHW node's ksize, strides and explicit_paddings are read, checked
// and put in NHWC order (batch, rows, cols, depth), and *nchw is set, so
// MakePoolGeom serves both formats given the input's shape in NHWC order.
absl::Status ReadPoolAttrsAnyFormat(const OpKernelConstruction& ctx,
                                    absl::string_view op_class, bool from_attrs,
                                    PoolAttrs* attrs, bool* nchw);

// [n, c, h, w] as [n, h, w, c].
std::vector<int64_t> NchwToNhwc(const std::vector<int64_t>& v);

// Reads ksize and strides from int32 input tensors (the V2 ops).
absl::Status WindowFromInputs(const Tensor& ksize, const Tensor& strides,
                              PoolAttrs* attrs);

// TensorFlow's PoolParameters: the output geometry of pooling a tensor of
// `input_shape`. `allow_depth` admits a window across depth (MaxPool).
absl::Status MakePoolGeom(const TensorShape& input_shape,
                          const PoolAttrs& attrs, bool allow_depth,
                          PoolGeom* g);

}  // namespace dfx::conv_internal

#endif  // DFX_KERNELS_CONV_POOL_UTIL_H_
