// For the GPU OpKernels (g++): calls fn with a value of the CUDA type that
// stores `dtype` (float, double, __half, __nv_bfloat16), so one generic
// lambda launches the right instantiation of a templated kernel.
#ifndef DFX_GPU_KERNELS_DTYPE_DISPATCH_H_
#define DFX_GPU_KERNELS_DTYPE_DISPATCH_H_

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include "proto/types.pb.h"

namespace dfx::gpu {

// fn(T{}) for the floating-point dtypes; cudaErrorInvalidValue (a
// registration bug) for another.
template <typename Fn>
cudaError_t ByFloatType(DataType dtype, Fn&& fn) {
  switch (dtype) {
    case DT_FLOAT: return fn(float{});
    case DT_DOUBLE: return fn(double{});
    case DT_HALF: return fn(__half{});
    case DT_BFLOAT16: return fn(__nv_bfloat16{});
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace dfx::gpu

#endif  // DFX_GPU_KERNELS_DTYPE_DISPATCH_H_
