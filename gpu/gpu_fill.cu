#include "gpu/gpu_fill.h"

namespace dfx::gpu {
namespace {

__global__ void IotaKernel(int32_t* out, int64_t n, int32_t start) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{gridDim.x} * blockDim.x) {
    out[i] = start + static_cast<int32_t>(i);
  }
}

}  // namespace

cudaError_t LaunchIota(cudaStream_t stream, int32_t* out, int64_t n,
                       int32_t start) {
  if (n <= 0) return cudaSuccess;
  constexpr int kThreads = 256;
  const int64_t blocks64 = (n + kThreads - 1) / kThreads;
  const int blocks = static_cast<int>(blocks64 < 4096 ? blocks64 : 4096);
  IotaKernel<<<blocks, kThreads, 0, stream>>>(out, n, start);
  return cudaGetLastError();
}

}  // namespace dfx::gpu
