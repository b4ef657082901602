// Reduction CUDA kernels (gpu/kernels/reduce_gpu.h). inner == 1 (a row of
// r contiguous values per output): one block per row, each thread folds a
// strided share, then the block combines its threads' values in a tree in
// shared memory. inner > 1: one thread per output column, combining its r
// values in a tree of registers (pairs, then pairs of pairs) so that
// neighbouring threads read neighbouring addresses.
#include <cmath>

#include "gpu/kernels/half_math.cuh"
#include "gpu/kernels/launch.h"
#include "gpu/kernels/reduce_gpu.h"

namespace dfx::gpu {
namespace {

template <typename T>
__device__ __forceinline__ T Identity(ReduceOp op) {
  switch (op) {
    case ReduceOp::kProd: return T(1);
    case ReduceOp::kMax: return -T(INFINITY);
    case ReduceOp::kMin: return T(INFINITY);
    default: return T(0);
  }
}

template <typename T>
__device__ __forceinline__ T Combine(ReduceOp op, T a, T b) {
  switch (op) {
    case ReduceOp::kProd: return a * b;
    // NaN wins, as in TensorFlow.
    case ReduceOp::kMax: return (a != a || a > b) ? a : b;
    case ReduceOp::kMin: return (a != a || a < b) ? a : b;
    default: return a + b;
  }
}

template <typename T>
__device__ __forceinline__ T Finish(ReduceOp op, T acc, int64_t r) {
  if (op == ReduceOp::kMean) {
    return r == 0 ? T(NAN) : acc / T(r);
  }
  return acc;
}

// T is stored, A = Math<T>::A accumulated (float for 16-bit types).
template <typename T>
__global__ void RowReduceKernel(ReduceOp op, const T* in, T* out,
                                int64_t rows, int64_t r) {
  using M = Math<T>;
  using A = typename M::A;
  __shared__ A partial[kThreadsPerBlock];
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const T* p = in + row * r;
    A acc = Identity<A>(op);
    for (int64_t k = threadIdx.x; k < r; k += blockDim.x) {
      acc = Combine(op, acc, M::In(p[k]));
    }
    partial[threadIdx.x] = acc;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
      if (threadIdx.x < half) {
        partial[threadIdx.x] =
            Combine(op, partial[threadIdx.x], partial[threadIdx.x + half]);
      }
      __syncthreads();
    }
    if (threadIdx.x == 0) out[row] = M::Out(Finish(op, partial[0], r));
    __syncthreads();
  }
}

// Pairwise over the n values p[0], p[inner], ..., in A.
template <typename T, typename A = typename Math<T>::A>
__device__ A ColumnTree(ReduceOp op, const T* p, int64_t inner, int64_t n) {
  // An explicit stack of partial results: level l holds the combination of
  // 2^l consecutive values; merging equal levels keeps the tree balanced.
  A level_value[64];
  int level_of[64];
  int depth = 0;
  for (int64_t k = 0; k < n; ++k) {
    A v = Math<T>::In(p[k * inner]);
    int level = 0;
    while (depth > 0 && level_of[depth - 1] == level) {
      v = Combine(op, level_value[depth - 1], v);
      --depth;
      ++level;
    }
    level_value[depth] = v;
    level_of[depth] = level;
    ++depth;
  }
  A acc = Identity<A>(op);
  bool first = true;
  while (depth > 0) {
    acc = first ? level_value[depth - 1]
                : Combine(op, level_value[depth - 1], acc);
    first = false;
    --depth;
  }
  return acc;
}

template <typename T>
__global__ void ColumnReduceKernel(ReduceOp op, const T* in, T* out,
                                   int64_t outer, int64_t r, int64_t inner) {
  const int64_t n = outer * inner;
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{gridDim.x} * blockDim.x) {
    const int64_t o = i / inner, c = i % inner;
    out[i] = Math<T>::Out(
        Finish(op, ColumnTree(op, in + o * r * inner + c, inner, r), r));
  }
}

}  // namespace

template <typename T>
cudaError_t LaunchReduce(cudaStream_t stream, ReduceOp op, const T* in,
                         T* out, int64_t outer, int64_t r, int64_t inner) {
  if (outer * inner == 0) return cudaSuccess;
  if (inner == 1) {
    RowReduceKernel<T><<<BlockPerItem(outer), kThreadsPerBlock, 0, stream>>>(
        op, in, out, outer, r);
  } else {
    ColumnReduceKernel<T><<<BlocksFor(outer * inner), kThreadsPerBlock, 0,
                            stream>>>(op, in, out, outer, r, inner);
  }
  return cudaGetLastError();
}

template cudaError_t LaunchReduce<float>(cudaStream_t, ReduceOp, const float*,
                                         float*, int64_t, int64_t, int64_t);
template cudaError_t LaunchReduce<double>(cudaStream_t, ReduceOp,
                                          const double*, double*, int64_t,
                                          int64_t, int64_t);
template cudaError_t LaunchReduce<__half>(cudaStream_t, ReduceOp,
                                          const __half*, __half*, int64_t,
                                          int64_t, int64_t);
template cudaError_t LaunchReduce<__nv_bfloat16>(cudaStream_t, ReduceOp,
                                                 const __nv_bfloat16*,
                                                 __nv_bfloat16*, int64_t,
                                                 int64_t, int64_t);

}  // namespace dfx::gpu
