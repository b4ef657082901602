// CUDA kernels of gpu/kernels/depthwise_gpu.h: one thread per output
// element (forward) or input element (its gradient, gathered from the
// outputs that read it: no atomics), and one block per filter element for
// the filter's gradient (threads stride over batch and positions, then a
// tree in shared memory).
#include "gpu/kernels/depthwise_gpu.h"
#include "gpu/kernels/depthwise_gpu_element.cuh"
#include "gpu/kernels/launch.h"

namespace dfx::gpu {
namespace {

namespace dw = depthwise_element;

#define DFX_GRID_STRIDE(i, n)                                             \
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n; \
       i += int64_t{gridDim.x} * blockDim.x)

template <typename T>
__global__ void ForwardKernel(DepthwiseShape s, const T* x, const T* filter,
                              T* y, int64_t n) {
  DFX_GRID_STRIDE(i, n) { y[i] = dw::Forward(s, x, filter, i); }
}

template <typename T>
__global__ void BackpropInputKernel(DepthwiseShape s, const T* filter,
                                    const T* dy, T* dx, int64_t n) {
  DFX_GRID_STRIDE(i, n) { dx[i] = dw::BackpropInput(s, filter, dy, i); }
}

template <typename T>
__global__ void BackpropFilterKernel(DepthwiseShape s, const T* x, const T* dy,
                                     T* dfilter, int64_t filter_size) {
  using A = typename Math<T>::A;
  __shared__ A partial[kThreadsPerBlock];
  const int64_t count = s.batch * s.out_rows * s.out_cols;
  for (int64_t f = blockIdx.x; f < filter_size; f += gridDim.x) {
    A sum = A(0);
    for (int64_t j = threadIdx.x; j < count; j += blockDim.x) {
      sum += dw::FilterGradTerm(s, x, dy, f, j);
    }
    partial[threadIdx.x] = sum;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
      if (threadIdx.x < half)
        partial[threadIdx.x] += partial[threadIdx.x + half];
      __syncthreads();
    }
    if (threadIdx.x == 0) dfilter[f] = Math<T>::Out(partial[0]);
    __syncthreads();
  }
}

#undef DFX_GRID_STRIDE

}  // namespace

template <typename T>
cudaError_t LaunchDepthwiseForward(cudaStream_t stream, const DepthwiseShape& s,
                                   const T* x, const T* filter, T* y) {
  const int64_t n =
      s.batch * s.out_rows * s.out_cols * s.in_depth * s.multiplier;
  if (n <= 0) return cudaSuccess;
  ForwardKernel<T>
      <<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(s, x, filter, y, n);
  return cudaGetLastError();
}

template <typename T>
cudaError_t LaunchDepthwiseBackpropInput(cudaStream_t stream,
                                         const DepthwiseShape& s,
                                         const T* filter, const T* dy, T* dx) {
  const int64_t n = s.batch * s.in_rows * s.in_cols * s.in_depth;
  if (n <= 0) return cudaSuccess;
  BackpropInputKernel<T>
      <<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(s, filter, dy, dx, n);
  return cudaGetLastError();
}

template <typename T>
cudaError_t LaunchDepthwiseBackpropFilter(cudaStream_t stream,
                                          const DepthwiseShape& s, const T* x,
                                          const T* dy, T* dfilter) {
  const int64_t size =
      s.filter_rows * s.filter_cols * s.in_depth * s.multiplier;
  if (size <= 0) return cudaSuccess;
  BackpropFilterKernel<T><<<BlockPerItem(size), kThreadsPerBlock, 0, stream>>>(
      s, x, dy, dfilter, size);
  return cudaGetLastError();
}

#define DFX_INSTANTIATE(T)                                          \
  template cudaError_t LaunchDepthwiseForward<T>(                   \
      cudaStream_t, const DepthwiseShape&, const T*, const T*, T*); \
  template cudaError_t LaunchDepthwiseBackpropInput<T>(             \
      cudaStream_t, const DepthwiseShape&, const T*, const T*, T*); \
  template cudaError_t LaunchDepthwiseBackpropFilter<T>(            \
      cudaStream_t, const DepthwiseShape&, const T*, const T*, T*);
DFX_INSTANTIATE(float)
DFX_INSTANTIATE(double)
DFX_INSTANTIATE(__half)
DFX_INSTANTIATE(__nv_bfloat16)
#undef DFX_INSTANTIATE

}  // namespace dfx::gpu
