// FusedBatchNorm and its gradient as direct CUDA kernels, computing what
// the CPU kernels (kernels/conv/batch_norm_ops.cc) compute: per-channel
// sums in double, element-wise math in float. x is viewed as [outer,
// channels, inner] (channel-last formats: inner == 1). T, the type of x,
// y, dy and dx, is float, __half or __nv_bfloat16 (read into float,
// rounded once); scale, offset and the statistics are float. Plain C++
// for nvcc and g++.
#ifndef DFX_GPU_KERNELS_BATCH_NORM_GPU_H_
#define DFX_GPU_KERNELS_BATCH_NORM_GPU_H_

#include <cuda_runtime_api.h>

#include <cstdint>

namespace dfx::gpu {

struct BnShape {
  int64_t outer = 0, channels = 0, inner = 1;
};

// The forward pass. Training: the batch's mean and (biased) variance per
// channel into saved_mean/saved_var, the running statistics (Bessel's
// correction; blended with est_* unless factor == 1) into out_mean/out_var;
// inference: est_* throughout. Then y = (x - mean) * scale / sqrt(var +
// epsilon) + offset. `sums` is device scratch of 2 * channels doubles.
template <typename T>
cudaError_t LaunchBatchNorm(cudaStream_t stream, const BnShape& s, const T* x,
                            const float* scale, const float* offset,
                            const float* est_mean, const float* est_var,
                            float epsilon, float factor, bool training, T* y,
                            float* out_mean, float* out_var, float* saved_mean,
                            float* saved_var, double* sums);

// The gradient: offset_grad = sum(dy), scale_grad = sum(dy * (x - mean)) *
// rstd, and dx (training: through the batch statistics; inference: dy *
// scale * rstd). `sums` as above.
template <typename T>
cudaError_t LaunchBatchNormGrad(cudaStream_t stream, const BnShape& s,
                                const T* dy, const T* x, const float* scale,
                                const float* mean, const float* var,
                                float epsilon, bool training, T* dx,
                                float* scale_grad, float* offset_grad,
                                double* sums);

}  // namespace dfx::gpu

#endif  // DFX_GPU_KERNELS_BATCH_NORM_GPU_H_
