// Array CUDA kernels: Cast between the device dtypes, filling with one
// value, and gathering rows. Plain C++ for nvcc (array_gpu.cu) and g++.
#ifndef DFX_GPU_KERNELS_ARRAY_GPU_H_
#define DFX_GPU_KERNELS_ARRAY_GPU_H_

#include <cuda_runtime_api.h>

#include <cstdint>

namespace dfx::gpu {

// The dtypes Cast converts between on a GPU (TensorFlow's enum values are
// not visible to nvcc): float, double, half, bfloat16, int64, bool.
enum class CastType { kFloat, kDouble, kHalf, kBfloat16, kInt64, kBool };

// out[i] = in[i] converted (half and bfloat16 through float, bool as
// x != 0, float to int64 truncating toward zero).
cudaError_t LaunchCast(cudaStream_t stream, CastType from, const void* in,
                       CastType to, void* out, int64_t n);

// out[i] = the element_size bytes of `bits` (little-endian), i < n.
cudaError_t LaunchFillValue(cudaStream_t stream, void* out, int64_t n,
                            int element_size, uint64_t bits);
// out[i] = *value, `value` in device memory.
cudaError_t LaunchFillFromDevice(cudaStream_t stream, void* out, int64_t n,
                                 int element_size, const void* value);

// out[o][m][i] = params[o][indices[m]][i] over [outer, num_indices, inner]
// (params [outer, limit, inner]); indices (device memory) are in [0,
// limit), checked on the host.
cudaError_t LaunchGather(cudaStream_t stream, const void* params,
                         const int64_t* indices, void* out, int element_size,
                         int64_t outer, int64_t limit, int64_t num_indices,
                         int64_t inner);

}  // namespace dfx::gpu

#endif  // DFX_GPU_KERNELS_ARRAY_GPU_H_
