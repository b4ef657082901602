#include "gpu/kernels/gpu_kernels.h"

namespace dfx::gpu {

// gpu/kernels/matmul_gpu.cc, gpu/kernels/cwise_gpu.cc,
// gpu/kernels/conv_gpu.cc (built when CMake finds cuDNN: DFX_HAVE_CUDNN).
void RegisterGpuMatMulKernels(KernelRegistry* registry);
void RegisterGpuCwiseKernels(KernelRegistry* registry);
void RegisterGpuConvKernels(KernelRegistry* registry);

void RegisterGpuKernels(KernelRegistry* registry) {
  RegisterGpuMatMulKernels(registry);
  RegisterGpuCwiseKernels(registry);
#if DFX_HAVE_CUDNN
  RegisterGpuConvKernels(registry);
#endif
}

}  // namespace dfx::gpu
