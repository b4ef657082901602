#include "gpu/kernels/gpu_kernels.h"

namespace dfx::gpu {

// gpu/kernels/matmul_gpu.cc, cwise_gpu.cc, reduce_gpu.cc, nn_gpu.cc,
// array_gpu.cc, index_gpu.cc, pool_gpu.cc, batch_norm_gpu.cc, conv_gpu.cc
// (built when CMake finds cuDNN: DFX_HAVE_CUDNN).
void RegisterGpuMatMulKernels(KernelRegistry* registry);
void RegisterGpuCwiseKernels(KernelRegistry* registry);
void RegisterGpuReduceKernels(KernelRegistry* registry);
void RegisterGpuNnKernels(KernelRegistry* registry);
void RegisterGpuArrayKernels(KernelRegistry* registry);
void RegisterGpuIndexKernels(KernelRegistry* registry);
void RegisterGpuPoolKernels(KernelRegistry* registry);
void RegisterGpuBatchNormKernels(KernelRegistry* registry);
void RegisterGpuConvKernels(KernelRegistry* registry);

void RegisterGpuKernels(KernelRegistry* registry) {
  RegisterGpuMatMulKernels(registry);
  RegisterGpuCwiseKernels(registry);
  RegisterGpuReduceKernels(registry);
  RegisterGpuNnKernels(registry);
  RegisterGpuArrayKernels(registry);
  RegisterGpuIndexKernels(registry);
  RegisterGpuPoolKernels(registry);
  RegisterGpuBatchNormKernels(registry);
#if DFX_HAVE_CUDNN
  RegisterGpuConvKernels(registry);
#endif
}

}  // namespace dfx::gpu
