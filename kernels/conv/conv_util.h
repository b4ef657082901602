// Helpers shared by the convolution, pooling and batch-normalization kernels
// (kernels/conv/ only): attr parsing, windowed output sizes, the geometry of
// a grouped 2-D convolution, parallel loops over costly units, and the
// registration functions RegisterConvKernels calls.
#ifndef DFX_KERNELS_CONV_CONV_UTIL_H_
#define DFX_KERNELS_CONV_CONV_UTIL_H_

#include "kernels/eigen_util.h"  // first: defines EIGEN_USE_THREADS

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "runtime/op_kernel.h"

namespace dfx::conv_internal {

enum class Padding { kValid, kSame, kExplicit };

// InvalidArgument for anything but SAME, VALID, EXPLICIT.
absl::Status ParsePadding(const std::string& text, Padding* padding);

// The output size of one windowed dim and the padding before and after it,
// as TensorFlow's GetWindowedOutputSizeVerbose computes them. `explicit_*`
// are read for Padding::kExplicit only. InvalidArgument for a stride below 1,
// a dilation below 1 or a negative output size.
absl::Status WindowedOutputSize(int64_t in, int64_t window, int64_t dilation,
                                int64_t stride, Padding padding,
                                int64_t explicit_before, int64_t explicit_after,
                                int64_t* out, int64_t* pad_before,
                                int64_t* pad_after);

// The attrs of Conv2D, its gradients and the depthwise ops, in H/W terms.
struct ConvAttrs {
  bool nchw = false;
  int64_t stride_rows = 1;
  int64_t stride_cols = 1;
  int64_t dilation_rows = 1;
  int64_t dilation_cols = 1;
  Padding padding = Padding::kValid;
  // EXPLICIT only: top, bottom, left, right.
  int64_t explicit_pads[4] = {0, 0, 0, 0};
};

// Reads and checks strides, dilations, padding, explicit_paddings and
// data_format as TensorFlow's convolution kernel constructors do.
absl::Status ReadConvAttrs(const OpKernelConstruction& ctx, ConvAttrs* attrs);

// A grouped 2-D convolution over NHWC activations with an HWIO filter of
// shape [filter_rows, filter_cols, in_depth / groups, out_depth]. A
// depthwise convolution with multiplier M is the case groups = in_depth,
// out_depth = in_depth * M (its [KH, KW, C, M] filter has the same bytes).
struct ConvGeom {
  int64_t batch = 0;
  int64_t in_rows = 0;
  int64_t in_cols = 0;
  int64_t in_depth = 0;
  int64_t filter_rows = 0;
  int64_t filter_cols = 0;
  int64_t out_rows = 0;
  int64_t out_cols = 0;
  int64_t out_depth = 0;
  int64_t groups = 1;
  int64_t stride_rows = 1;
  int64_t stride_cols = 1;
  int64_t dilation_rows = 1;
  int64_t dilation_cols = 1;
  int64_t pad_top = 0;
  int64_t pad_bottom = 0;
  int64_t pad_left = 0;
  int64_t pad_right = 0;

  int64_t in_depth_per_group() const { return in_depth / groups; }
  int64_t out_depth_per_group() const { return out_depth / groups; }
  bool operator==(const ConvGeom& o) const;
  template <typename H>
  friend H AbslHashValue(H h, const ConvGeom& g) {
    return H::combine(std::move(h), g.batch, g.in_rows, g.in_cols, g.in_depth,
                      g.filter_rows, g.filter_cols, g.out_rows, g.out_cols,
                      g.out_depth, g.groups, g.stride_rows, g.stride_cols,
                      g.dilation_rows, g.dilation_cols, g.pad_top,
                      g.pad_bottom, g.pad_left, g.pad_right);
  }
};

// Sets out_rows, out_cols and the paddings of `geom` from its input and
// filter sizes and `attrs`.
absl::Status ComputeConvOutput(const ConvAttrs& attrs, ConvGeom* geom);

// Fills the input and filter parts of `geom` (not the output's: that is
// ComputeConvOutput) from an activation shape in attrs' data format and an
// HWIO filter shape ([KH, KW, C, M] when `depthwise`), with TensorFlow's
// checks and messages: 4-D shapes, dims below 2^31, the filter's depth
// dividing the input's (groups), a depthwise filter's depth equal to it.
absl::Status ConvInputAndFilter(const ConvAttrs& attrs,
                                const TensorShape& input,
                                const TensorShape& filter, bool depthwise,
                                ConvGeom* geom);

// InvalidArgument unless every dim of `shape` is below 2^31, as TensorFlow's
// kernels require ("<what> too large").
absl::Status CheckDimsFitInt(const TensorShape& shape, const char* what);

// Runs fn(first, last) over disjoint ranges covering [0, n) on the device's
// intra-op pool when the total work (n * cycles_per_unit) pays for it, else
// inline. Inline as well when called from a thread of that pool.
template <typename Fn>
void ParallelForCost(const Device& device, int64_t n, double cycles_per_unit,
                     Fn&& fn) {
  if (n <= 0) return;
  const ThreadPool* pool = device.intra_op_pool();
  if (pool == nullptr || pool->NumThreads() <= 1 ||
      pool->CurrentThreadId() >= 0 ||
      static_cast<double>(n) * cycles_per_unit < 50000.0) {
    fn(int64_t{0}, n);
    return;
  }
  device.eigen_cpu_device().parallelFor(
      n, Eigen::TensorOpCost(0, 0, cycles_per_unit),
      [&fn](Eigen::Index first, Eigen::Index last) {
        fn(static_cast<int64_t>(first), static_cast<int64_t>(last));
      });
}

// The number of threads compute libraries (oneDNN) may use for a kernel
// running on `device`: the size of its intra-op pool, at least 1.
int IntraOpThreads(const Device& device);

// Converts every element of `from` into `to` (same element count): half or
// bfloat16 to float and back. REQUIRES: a supported pair of dtypes.
void ConvertElements(const Device& device, const Tensor& from, Tensor* to);

void RegisterConvolutionKernels(KernelRegistry* registry);
void RegisterPoolingKernels(KernelRegistry* registry);
// MaxPoolWithArgmax, MaxPoolGradWithArgmax (pooling_argmax_ops.cc).
void RegisterPoolingArgmaxKernels(KernelRegistry* registry);
void RegisterBatchNormKernels(KernelRegistry* registry);

}  // namespace dfx::conv_internal

#endif  // DFX_KERNELS_CONV_CONV_UTIL_H_
