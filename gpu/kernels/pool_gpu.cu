// CUDA kernels of gpu/kernels/pool_gpu.h: one thread per output element
// (forward) or per input element (gradient, gathering from the windows
// that cover it, so no atomics and the same sum every run).
#include "gpu/kernels/launch.h"
#include "gpu/kernels/pool_gpu.h"
#include "gpu/kernels/pool_gpu_element.cuh"

namespace dfx::gpu {
namespace {

#define DFX_GRID_STRIDE(i, n)                                             \
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n; \
       i += int64_t{gridDim.x} * blockDim.x)

template <typename T>
__global__ void PoolKernel(PoolShape s, bool max, const T* in, T* out) {
  const int64_t total = s.batch * s.out_rows * s.out_cols * s.depth;
  DFX_GRID_STRIDE(i, total) {
    out[i] = pool_element::PoolOutput(s, max, in, i);
  }
}

template <typename T>
__global__ void PoolGradKernel(PoolShape s, bool max, const T* in,
                               const T* out_grad, T* in_grad) {
  const int64_t total = s.batch * s.in_rows * s.in_cols * s.depth;
  DFX_GRID_STRIDE(i, total) {
    in_grad[i] = pool_element::PoolGradInput(s, max, in, out_grad, i);
  }
}

#undef DFX_GRID_STRIDE

}  // namespace

template <typename T>
cudaError_t LaunchPool(cudaStream_t stream, const PoolShape& s, bool max,
                       const T* in, T* out) {
  const int64_t n = s.batch * s.out_rows * s.out_cols * s.depth;
  if (n == 0) return cudaSuccess;
  PoolKernel<T><<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(s, max, in,
                                                               out);
  return cudaGetLastError();
}

template <typename T>
cudaError_t LaunchPoolGrad(cudaStream_t stream, const PoolShape& s, bool max,
                           const T* in, const T* out_grad, T* in_grad) {
  const int64_t n = s.batch * s.in_rows * s.in_cols * s.depth;
  if (n == 0) return cudaSuccess;
  PoolGradKernel<T><<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(
      s, max, in, out_grad, in_grad);
  return cudaGetLastError();
}

#define DFX_INSTANTIATE(T)                                                     \
  template cudaError_t LaunchPool<T>(cudaStream_t, const PoolShape&, bool,     \
                                     const T*, T*);                            \
  template cudaError_t LaunchPoolGrad<T>(cudaStream_t, const PoolShape&, bool, \
                                         const T*, const T*, T*);
DFX_INSTANTIATE(float)
DFX_INSTANTIATE(double)
DFX_INSTANTIATE(__half)
DFX_INSTANTIATE(__nv_bfloat16)
#undef DFX_INSTANTIATE

}  // namespace dfx::gpu
