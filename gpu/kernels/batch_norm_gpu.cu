// CUDA kernels of gpu/kernels/batch_norm_gpu.h: per-channel sums by one
// block per channel (threads stride over the channel's elements, then a
// tree in shared memory, in double), a one-thread-per-channel pass for the
// statistics, and a grid-stride element-wise pass.
#include "gpu/kernels/batch_norm_gpu.h"
#include "gpu/kernels/batch_norm_gpu_element.cuh"
#include "gpu/kernels/launch.h"

namespace dfx::gpu {
namespace {

using bn_element::SumKind;

#define DFX_GRID_STRIDE(i, n)                                             \
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n; \
       i += int64_t{gridDim.x} * blockDim.x)

// sums[c] (and sums[channels + c] for kGrad) over channel c's elements.
template <typename T>
__global__ void ChannelSumsKernel(BnShape s, SumKind kind, const T* x,
                                  const T* dy, const float* mean,
                                  double* sums) {
  __shared__ double a_part[kThreadsPerBlock];
  __shared__ double b_part[kThreadsPerBlock];
  const int64_t count = s.outer * s.inner;
  for (int64_t c = blockIdx.x; c < s.channels; c += gridDim.x) {
    double a = 0, b = 0;
    for (int64_t k = threadIdx.x; k < count; k += blockDim.x) {
      bn_element::AddTerm(kind, x, dy, mean, c,
                          bn_element::ChannelElement(s, c, k), &a, &b);
    }
    a_part[threadIdx.x] = a;
    b_part[threadIdx.x] = b;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
      if (threadIdx.x < half) {
        a_part[threadIdx.x] += a_part[threadIdx.x + half];
        b_part[threadIdx.x] += b_part[threadIdx.x + half];
      }
      __syncthreads();
    }
    if (threadIdx.x == 0) {
      sums[c] = a_part[0];
      if (kind == SumKind::kGrad) sums[s.channels + c] = b_part[0];
    }
    __syncthreads();
  }
}

__global__ void MeanKernel(int64_t channels, double n, const double* sums,
                           float* saved_mean) {
  DFX_GRID_STRIDE(c, channels) { bn_element::Mean(c, n, sums, saved_mean); }
}

__global__ void StatsKernel(int64_t channels, double n, const double* sq,
                            const float* est_mean, const float* est_var,
                            float factor, bool training, float* out_mean,
                            float* out_var, float* saved_mean,
                            float* saved_var) {
  DFX_GRID_STRIDE(c, channels) {
    bn_element::Stats(c, n, sq, est_mean, est_var, factor, training, out_mean,
                      out_var, saved_mean, saved_var);
  }
}

template <typename T>
__global__ void NormalizeKernel(BnShape s, const T* x, const float* mean,
                                const float* var, const float* scale,
                                const float* offset, float epsilon, T* y) {
  const int64_t n = s.outer * s.channels * s.inner;
  DFX_GRID_STRIDE(i, n) {
    y[i] = bn_element::Normalize(s, x, mean, var, scale, offset, epsilon, i);
  }
}

__global__ void GradStatsKernel(int64_t channels, const double* sums,
                                const float* var, float epsilon,
                                float* scale_grad, float* offset_grad) {
  DFX_GRID_STRIDE(c, channels) {
    bn_element::GradStats(c, channels, sums, var, epsilon, scale_grad,
                          offset_grad);
  }
}

template <typename T>
__global__ void GradKernel(BnShape s, const T* dy, const T* x,
                           const float* scale, const float* mean,
                           const float* var, float epsilon, bool training,
                           const double* sums, T* dx) {
  const int64_t n = s.outer * s.channels * s.inner;
  DFX_GRID_STRIDE(i, n) {
    dx[i] = bn_element::Grad(s, dy, x, scale, mean, var, epsilon, training,
                             sums, i);
  }
}

#undef DFX_GRID_STRIDE

}  // namespace

template <typename T>
cudaError_t LaunchBatchNorm(cudaStream_t stream, const BnShape& s, const T* x,
                            const float* scale, const float* offset,
                            const float* est_mean, const float* est_var,
                            float epsilon, float factor, bool training, T* y,
                            float* out_mean, float* out_var, float* saved_mean,
                            float* saved_var, double* sums) {
  if (s.channels == 0) return cudaSuccess;
  const double n = static_cast<double>(s.outer * s.inner);
  const int per_channel = BlocksFor(s.channels);
  if (training) {
    ChannelSumsKernel<<<BlockPerItem(s.channels), kThreadsPerBlock, 0,
                        stream>>>(
        s, SumKind::kX, x, static_cast<const T*>(nullptr), nullptr, sums);
    MeanKernel<<<per_channel, kThreadsPerBlock, 0, stream>>>(s.channels, n,
                                                             sums, saved_mean);
    ChannelSumsKernel<<<BlockPerItem(s.channels), kThreadsPerBlock, 0,
                        stream>>>(s, SumKind::kSquaredDeviation, x,
                                  static_cast<const T*>(nullptr), saved_mean,
                                  sums);
  }
  StatsKernel<<<per_channel, kThreadsPerBlock, 0, stream>>>(
      s.channels, n, sums, est_mean, est_var, factor, training, out_mean,
      out_var, saved_mean, saved_var);
  const int64_t total = s.outer * s.channels * s.inner;
  NormalizeKernel<<<BlocksFor(total), kThreadsPerBlock, 0, stream>>>(
      s, x, saved_mean, saved_var, scale, offset, epsilon, y);
  return cudaGetLastError();
}

template <typename T>
cudaError_t LaunchBatchNormGrad(cudaStream_t stream, const BnShape& s,
                                const T* dy, const T* x, const float* scale,
                                const float* mean, const float* var,
                                float epsilon, bool training, T* dx,
                                float* scale_grad, float* offset_grad,
                                double* sums) {
  if (s.channels == 0) return cudaSuccess;
  ChannelSumsKernel<<<BlockPerItem(s.channels), kThreadsPerBlock, 0, stream>>>(
      s, SumKind::kGrad, x, dy, mean, sums);
  GradStatsKernel<<<BlocksFor(s.channels), kThreadsPerBlock, 0, stream>>>(
      s.channels, sums, var, epsilon, scale_grad, offset_grad);
  const int64_t total = s.outer * s.channels * s.inner;
  GradKernel<<<BlocksFor(total), kThreadsPerBlock, 0, stream>>>(
      s, dy, x, scale, mean, var, epsilon, training, sums, dx);
  return cudaGetLastError();
}

#define DFX_INSTANTIATE(T)                                                \
  template cudaError_t LaunchBatchNorm<T>(                                \
      cudaStream_t, const BnShape&, const T*, const float*, const float*, \
      const float*, const float*, float, float, bool, T*, float*, float*, \
      float*, float*, double*);                                           \
  template cudaError_t LaunchBatchNormGrad<T>(                            \
      cudaStream_t, const BnShape&, const T*, const T*, const float*,     \
      const float*, const float*, float, bool, T*, float*, float*, double*);
DFX_INSTANTIATE(float)
DFX_INSTANTIATE(__half)
DFX_INSTANTIATE(__nv_bfloat16)
#undef DFX_INSTANTIATE

}  // namespace dfx::gpu
