#include "gpu/kernels/gpu_kernels.h"

namespace dfx::gpu {

// gpu/kernels/matmul_gpu.cc, gpu/kernels/cwise_gpu.cc.
void RegisterGpuMatMulKernels(KernelRegistry* registry);
void RegisterGpuCwiseKernels(KernelRegistry* registry);

void RegisterGpuKernels(KernelRegistry* registry) {
  RegisterGpuMatMulKernels(registry);
  RegisterGpuCwiseKernels(registry);
}

}  // namespace dfx::gpu
