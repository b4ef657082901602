// Element-wise CUDA kernels: unary functions and binary ops with NumPy
// broadcasting (the iteration Broadcast in kernels/broadcast.h reduces to
// at most kMaxCwiseDims dims), and the per-channel sum of BiasAddGrad. Plain C++ and the CUDA runtime's types, so
// both nvcc (cwise_gpu.cu) and g++ (the OpKernels) include it.
#ifndef DFX_GPU_KERNELS_CWISE_GPU_H_
#define DFX_GPU_KERNELS_CWISE_GPU_H_

#include <cuda_runtime_api.h>

#include <cstdint>

namespace dfx::gpu {

enum class UnaryOp { kRelu, kNeg, kSquare, kExp, kLog, kTanh, kSigmoid,
                     kSqrt, kRsqrt, kAbs, kRelu6 };
// kReluGrad: a = gradients, b = features: a where b > 0, else 0;
// kRelu6Grad: a where 0 < b < 6, else 0.
enum class BinaryOp { kAdd, kSub, kMul, kDiv, kMaximum, kMinimum,
                      kSquaredDifference, kReluGrad, kRelu6Grad };

inline constexpr int kMaxCwiseDims = 8;

// The output's dims (row-major, product = the element count) and each
// input's element strides over them (0 where it is broadcast).
struct BroadcastIteration {
  int rank = 0;
  int64_t dims[kMaxCwiseDims] = {};
  int64_t a_strides[kMaxCwiseDims] = {};
  int64_t b_strides[kMaxCwiseDims] = {};
  // Both inputs have the output's shape (read in order).
  bool same_shape = false;
};

// Enqueue on `stream`; the launch error (cudaSuccess when enqueued). T is
// float, double, __half or __nv_bfloat16 (computed in float, rounded once).
template <typename T>
cudaError_t LaunchUnary(cudaStream_t stream, UnaryOp op, const T* in, T* out,
                        int64_t n);
template <typename T>
cudaError_t LaunchBinary(cudaStream_t stream, BinaryOp op,
                         const BroadcastIteration& it, const T* a,
                         const T* b, T* out, int64_t n);

// out[c] = the sum of in[o][c][i] over o < outer and i < inner (in is
// [outer, channels, inner], row-major): BiasAddGrad in both data formats.
template <typename T>
cudaError_t LaunchChannelSum(cudaStream_t stream, const T* in, T* out,
                             int64_t outer, int64_t channels, int64_t inner);

}  // namespace dfx::gpu

#endif  // DFX_GPU_KERNELS_CWISE_GPU_H_
