// ConvRunner: computes one pass (forward, gradient of the input, gradient of
// the filter) of a grouped 2-D convolution described by a ConvGeom. float runs
// on oneDNN primitives, cached per geometry; half and bfloat16 are widened to
// float around the same path; double and int32 run on direct loops over the
// intra-op pool.
#ifndef DFX_KERNELS_CONV_CONV_BACKEND_H_
#define DFX_KERNELS_CONV_CONV_BACKEND_H_

#include <memory>

#include "absl/status/status.h"
#include "kernels/conv/conv_util.h"
#include "runtime/op_kernel.h"

namespace dfx::conv_internal {

enum class ConvPass {
  kForward,         // reads input and filter, writes output
  kBackwardData,    // reads filter and output (its gradient), writes input
  kBackwardFilter,  // reads input and output (its gradient), writes filter
};

// One per kernel. Thread-safe: concurrent steps may run the same kernel.
class ConvRunner {
 public:
  ConvRunner();
  ~ConvRunner();
  ConvRunner(const ConvRunner&) = delete;
  ConvRunner& operator=(const ConvRunner&) = delete;

  // `input` holds [batch, in_rows, in_cols, in_depth], `filter`
  // [filter_rows, filter_cols, in_depth / groups, out_depth] (or the same
  // bytes under another shape) and `output` [batch, out_rows, out_cols,
  // out_depth] of `geom`, all of one dtype (float, double, half, bfloat16 or
  // int32); the tensor `pass` writes is allocated by the caller. Errors:
  // ResourceExhausted for scratch memory, Internal when oneDNN fails.
  absl::Status Run(OpKernelContext* ctx, ConvPass pass, const ConvGeom& geom,
                   Tensor* input, Tensor* filter, Tensor* output);

  // The oneDNN implementation that ran (or would run) for a float pass, for
  // benchmarks and tests ("jit:avx2", ...); "reference" when oneDNN declines.
  std::string ImplementationName(ConvPass pass, const ConvGeom& geom);

  // Whether a float pass reorders the filter (or its gradient) between
  // TensorFlow's layout and oneDNN's on every call.
  bool ReordersFilter(ConvPass pass, const ConvGeom& geom);

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace dfx::conv_internal

#endif  // DFX_KERNELS_CONV_CONV_BACKEND_H_
