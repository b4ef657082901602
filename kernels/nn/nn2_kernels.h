// Registration of the nn2 family's kernels, one function per file;
// RegisterNn2Kernels (kernels/kernels.h, defined in kernels/nn/nn2_kernels.cc)
// calls them all.
#ifndef DFX_KERNELS_NN_NN2_KERNELS_H_
#define DFX_KERNELS_NN_NN2_KERNELS_H_

#include "runtime/op_kernel.h"

namespace dfx::nn2_internal {

// QuantizeV2 and Dequantize (kernels/math/quantize_v2_ops.cc).
void RegisterQuantizeV2Kernels(KernelRegistry* registry);
// ParameterizedTruncatedNormal
// (kernels/random/parameterized_truncated_normal_op.cc).
void RegisterParameterizedTruncatedNormalKernels(KernelRegistry* registry);
// FractionalMaxPool, FractionalAvgPool and their gradients
// (kernels/nn/fractional_pool_ops.cc).
void RegisterFractionalPoolKernels(KernelRegistry* registry);
// CTCBeamSearchDecoder (kernels/nn/ctc_beam_search_op.cc).
void RegisterCtcBeamSearchKernels(KernelRegistry* registry);
// RandomShuffleQueueV2 (kernels/data_flow/queue_kernels.cc, beside the
// other queue kernels).
void RegisterRandomShuffleQueueKernels(KernelRegistry* registry);

}  // namespace dfx::nn2_internal

#endif  // DFX_KERNELS_NN_NN2_KERNELS_H_
