// The arithmetic type of a stored type in the CUDA kernels of
// gpu/kernels/ (nvcc; and g++, for a test that runs a kernel's
// per-element arithmetic on the host). float16 and bfloat16 are computed
// in float (loaded with In, rounded once with Out), as TensorFlow's GPU
// kernels do; float and double are computed as they are.
#ifndef DFX_GPU_KERNELS_HALF_MATH_CUH_
#define DFX_GPU_KERNELS_HALF_MATH_CUH_

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace dfx::gpu {

template <typename T>
struct Math {
  using A = T;
  __host__ __device__ static A In(T x) { return x; }
  __host__ __device__ static T Out(A a) { return a; }
};
template <>
struct Math<__half> {
  using A = float;
  __host__ __device__ static float In(__half x) { return __half2float(x); }
  __host__ __device__ static __half Out(float a) { return __float2half_rn(a); }
};
template <>
struct Math<__nv_bfloat16> {
  using A = float;
  __host__ __device__ static float In(__nv_bfloat16 x) {
    return __bfloat162float(x);
  }
  __host__ __device__ static __nv_bfloat16 Out(float a) {
    return __float2bfloat16_rn(a);
  }
};

}  // namespace dfx::gpu

#endif  // DFX_GPU_KERNELS_HALF_MATH_CUH_
