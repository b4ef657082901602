// The per-element and per-channel arithmetic of the batch-normalization
// kernels (batch_norm_gpu.cu), as functions both nvcc (the kernels) and
// g++ (tests/gpu_session/gpu_host_math_test.cc, which runs them on the
// host against the CPU kernels) compile. Statistics are float, sums
// double, x/y/dy/dx of type T read into float and rounded once.
#ifndef DFX_GPU_KERNELS_BATCH_NORM_GPU_ELEMENT_CUH_
#define DFX_GPU_KERNELS_BATCH_NORM_GPU_ELEMENT_CUH_

#include <math.h>

#include <cstdint>

#include "gpu/kernels/batch_norm_gpu.h"
#include "gpu/kernels/half_math.cuh"

#define DFX_BN_FN inline __host__ __device__

namespace dfx::gpu::bn_element {

enum class SumKind { kX, kSquaredDeviation, kGrad };

// x (or dy) element i in float.
template <typename T>
DFX_BN_FN float Load(const T* p, int64_t i) {
  return static_cast<float>(Math<T>::In(p[i]));
}

// The flat index of element k (of outer * inner) of channel c.
DFX_BN_FN int64_t ChannelElement(const BnShape& s, int64_t c, int64_t k) {
  const int64_t o = k / s.inner, r = k % s.inner;
  return (o * s.channels + c) * s.inner + r;
}

// Adds element i (of channel c) to the channel's sums: x (kX), (x - mean)^2
// (kSquaredDeviation), or dy into *a and dy * (x - mean) into *b (kGrad).
template <typename T>
DFX_BN_FN void AddTerm(SumKind kind, const T* x, const T* dy, const float* mean,
                       int64_t c, int64_t i, double* a, double* b) {
  switch (kind) {
    case SumKind::kX:
      *a += Load(x, i);
      break;
    case SumKind::kSquaredDeviation: {
      const double d = double(Load(x, i)) - double(mean[c]);
      *a += d * d;
      break;
    }
    case SumKind::kGrad: {
      const double g = Load(dy, i);
      *a += g;
      *b += g * (double(Load(x, i)) - double(mean[c]));
      break;
    }
  }
}

// Channel c's batch mean from its sum over n elements.
DFX_BN_FN void Mean(int64_t c, double n, const double* sums,
                    float* saved_mean) {
  saved_mean[c] = static_cast<float>(sums[c] / n);
}

// Channel c's statistics: training, the biased batch variance from the
// squared deviations' sum `sq`, and the running ones (Bessel's correction,
// blended by `factor` unless 1); inference, the estimates throughout.
DFX_BN_FN void Stats(int64_t c, double n, const double* sq,
                     const float* est_mean, const float* est_var, float factor,
                     bool training, float* out_mean, float* out_var,
                     float* saved_mean, float* saved_var) {
  if (!training) {
    out_mean[c] = saved_mean[c] = est_mean[c];
    out_var[c] = saved_var[c] = est_var[c];
    return;
  }
  const float var = static_cast<float>(sq[c] / n);
  saved_var[c] = var;
  const float adjust =
      static_cast<float>(n) / static_cast<float>(n > 1 ? n - 1 : 1);
  if (factor == 1.0f) {
    out_mean[c] = saved_mean[c];
    out_var[c] = var * adjust;
  } else {
    out_mean[c] = (1.0f - factor) * est_mean[c] + factor * saved_mean[c];
    out_var[c] = (1.0f - factor) * est_var[c] + (factor * adjust) * var;
  }
}

// y element i.
template <typename T>
DFX_BN_FN T Normalize(const BnShape& s, const T* x, const float* mean,
                      const float* var, const float* scale, const float* offset,
                      float epsilon, int64_t i) {
  const int64_t c = (i / s.inner) % s.channels;
  const float factor = scale[c] / sqrtf(var[c] + epsilon);
  return Math<T>::Out((Load(x, i) - mean[c]) * factor + offset[c]);
}

// Channel c's offset and scale gradients from the kGrad sums.
DFX_BN_FN void GradStats(int64_t c, int64_t channels, const double* sums,
                         const float* var, float epsilon, float* scale_grad,
                         float* offset_grad) {
  const float rstd = 1.0f / sqrtf(var[c] + epsilon);
  offset_grad[c] = static_cast<float>(sums[c]);
  scale_grad[c] = static_cast<float>(sums[channels + c] * rstd);
}

// dx element i (training: through the batch statistics).
template <typename T>
DFX_BN_FN T Grad(const BnShape& s, const T* dy, const T* x, const float* scale,
                 const float* mean, const float* var, float epsilon,
                 bool training, const double* sums, int64_t i) {
  const double count = static_cast<double>(s.outer * s.inner);
  const int64_t c = (i / s.inner) % s.channels;
  const float rstd = 1.0f / sqrtf(var[c] + epsilon);
  if (!training) return Math<T>::Out(Load(dy, i) * (scale[c] * rstd));
  const float dy_mean = static_cast<float>(sums[c] / count);
  const float coef1 = scale[c] * rstd;
  const float coef2 =
      rstd * rstd * static_cast<float>(sums[s.channels + c] / count);
  const float xc = Load(x, i) - mean[c];
  return Math<T>::Out(coef1 * ((Load(dy, i) - dy_mean) - xc * coef2));
}

}  // namespace dfx::gpu::bn_element

#undef DFX_BN_FN

#endif  // DFX_GPU_KERNELS_BATCH_NORM_GPU_ELEMENT_CUH_
