// Reduction CUDA kernels: one reduced axis between two kept ones,
// [outer, r, inner] -> [outer, inner], which every reduction comes to after
// its dims are simplified (and, for alternating kept and reduced dims,
// permuted: gpu/kernels/reduce_gpu.cc). Plain C++ for nvcc and g++.
#ifndef DFX_GPU_KERNELS_REDUCE_GPU_H_
#define DFX_GPU_KERNELS_REDUCE_GPU_H_

#include <cuda_runtime_api.h>

#include <cstdint>

namespace dfx::gpu {

enum class ReduceOp { kSum, kMean, kProd, kMax, kMin };

// out[o][i] = op over k < r of in[o][k][i]; Mean divides the sum by r. An
// empty reduction (r == 0) gives the op's identity (Max: -inf, Min: +inf,
// Mean: NaN), as TensorFlow. Each output is combined pairwise (a tree), so
// a float sum of n values is off by O(log n) ulps. T is float, double,
// __half or __nv_bfloat16 (accumulated in float, rounded once).
template <typename T>
cudaError_t LaunchReduce(cudaStream_t stream, ReduceOp op, const T* in,
                         T* out, int64_t outer, int64_t r, int64_t inner);

}  // namespace dfx::gpu

#endif  // DFX_GPU_KERNELS_REDUCE_GPU_H_
