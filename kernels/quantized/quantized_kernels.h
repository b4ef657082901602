// Helpers shared by the quantized family's kernel files (kernels/quantized/)
// and the registration of quantized_conv_ops.cc's kernels, which
// RegisterQuantizedKernels (quantized_kernels.cc) calls.
#ifndef DFX_KERNELS_QUANTIZED_QUANTIZED_KERNELS_H_
#define DFX_KERNELS_QUANTIZED_QUANTIZED_KERNELS_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "runtime/op_kernel.h"

namespace dfx::quantized {

// InvalidArgument "`name` must be rank 0 but is rank N" unless `t` is a
// scalar, as TensorFlow's range checks say.
absl::Status RequireRank0(const Tensor& t, absl::string_view name);

// Outputs `first` and `first + 1`: the scalars min and max.
void SetRange(OpKernelContext* ctx, int first, float min, float max);

// QuantizedMatMul, QuantizedConv2D, QuantizedMaxPool and QuantizedAvgPool
// (quantized_conv_ops.cc).
void RegisterQuantizedConvKernels(KernelRegistry* registry);

}  // namespace dfx::quantized

#endif  // DFX_KERNELS_QUANTIZED_QUANTIZED_KERNELS_H_
