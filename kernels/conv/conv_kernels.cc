// CPU kernels of convolution, pooling and batch normalization: the family's
// registration function. The kernels live beside this file:
// convolution_ops.cc, pooling_ops.cc and batch_norm_ops.cc.
#include "kernels/conv/conv_util.h"
#include "kernels/kernels.h"

namespace dfx {

void RegisterConvKernels(KernelRegistry* registry) {
  conv_internal::RegisterConvolutionKernels(registry);
  conv_internal::RegisterPoolingKernels(registry);
  conv_internal::RegisterPoolingArgmaxKernels(registry);
  conv_internal::RegisterBatchNormKernels(registry);
}

}  // namespace dfx
