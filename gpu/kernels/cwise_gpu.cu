// Element-wise CUDA kernels (gpu/kernels/cwise_gpu.h): grid-stride loops,
// one element per thread per step; the broadcast form walks the output
// index back into each input's offset through the reduced dims.
#include "gpu/kernels/cwise_gpu.h"

#include "gpu/kernels/half_math.cuh"
#include "gpu/kernels/launch.h"

namespace dfx::gpu {
namespace {

template <typename T>
__device__ T Unary(UnaryOp op, T x) {
  switch (op) {
    case UnaryOp::kRelu: return x > T(0) ? x : T(0);
    case UnaryOp::kNeg: return -x;
    case UnaryOp::kSquare: return x * x;
    case UnaryOp::kExp: return exp(x);
    case UnaryOp::kLog: return log(x);
    case UnaryOp::kTanh: return tanh(x);
    case UnaryOp::kSigmoid: return T(1) / (T(1) + exp(-x));
    case UnaryOp::kSqrt: return sqrt(x);
    case UnaryOp::kRsqrt: return T(1) / sqrt(x);
    case UnaryOp::kAbs: return x < T(0) ? -x : x;
    // NaN passes, as in TensorFlow's Relu6 (Eigen's PropagateNaN).
    case UnaryOp::kRelu6:
      return x != x ? x : x > T(0) ? (x < T(6) ? x : T(6)) : T(0);
  }
  return x;
}

template <typename T>
__device__ T Binary(BinaryOp op, T a, T b) {
  switch (op) {
    case BinaryOp::kAdd: return a + b;
    case BinaryOp::kSub: return a - b;
    case BinaryOp::kMul: return a * b;
    case BinaryOp::kDiv: return a / b;
    // NaN wins, as in TensorFlow's Maximum and Minimum.
    case BinaryOp::kMaximum: return (a != a || a > b) ? a : b;
    case BinaryOp::kMinimum: return (a != a || a < b) ? a : b;
    case BinaryOp::kSquaredDifference: return (a - b) * (a - b);
    case BinaryOp::kReluGrad: return b > T(0) ? a : T(0);
    case BinaryOp::kRelu6Grad:
      return b > T(0) && b < T(6) ? a : T(0);
  }
  return a;
}

// T is the stored type, M::A the one computed in (float for 16-bit types).
template <typename T>
__global__ void UnaryKernel(UnaryOp op, const T* in, T* out, int64_t n) {
  using M = Math<T>;
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{gridDim.x} * blockDim.x) {
    out[i] = M::Out(Unary(op, M::In(in[i])));
  }
}

template <typename T>
__global__ void SameShapeKernel(BinaryOp op, const T* a, const T* b, T* out,
                                int64_t n) {
  using M = Math<T>;
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{gridDim.x} * blockDim.x) {
    out[i] = M::Out(Binary(op, M::In(a[i]), M::In(b[i])));
  }
}

template <typename T>
__global__ void BroadcastKernel(BinaryOp op, BroadcastIteration it,
                                const T* a, const T* b, T* out, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{gridDim.x} * blockDim.x) {
    int64_t rest = i, ia = 0, ib = 0;
    for (int d = it.rank - 1; d >= 0; --d) {
      const int64_t k = rest % it.dims[d];
      rest /= it.dims[d];
      ia += k * it.a_strides[d];
      ib += k * it.b_strides[d];
    }
    out[i] = Math<T>::Out(Binary(op, Math<T>::In(a[ia]), Math<T>::In(b[ib])));
  }
}

// One block per channel (grid-stride over channels): each thread sums a
// strided share of the channel's elements, then the block adds its
// threads' sums in shared memory.
template <typename T>
__global__ void ChannelSumKernel(const T* in, T* out, int64_t outer,
                                 int64_t channels, int64_t inner) {
  using M = Math<T>;
  using A = typename M::A;
  __shared__ A partial[kThreadsPerBlock];
  const int64_t count = outer * inner;
  for (int64_t c = blockIdx.x; c < channels; c += gridDim.x) {
    A sum = A(0);
    for (int64_t e = threadIdx.x; e < count; e += blockDim.x) {
      const int64_t o = e / inner, i = e % inner;
      sum += M::In(in[(o * channels + c) * inner + i]);
    }
    partial[threadIdx.x] = sum;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
      if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
      __syncthreads();
    }
    if (threadIdx.x == 0) out[c] = M::Out(partial[0]);
    __syncthreads();
  }
}

}  // namespace

template <typename T>
cudaError_t LaunchChannelSum(cudaStream_t stream, const T* in, T* out,
                             int64_t outer, int64_t channels, int64_t inner) {
  if (channels <= 0) return cudaSuccess;
  ChannelSumKernel<T><<<BlockPerItem(channels), kThreadsPerBlock, 0, stream>>>(
      in, out, outer, channels, inner);
  return cudaGetLastError();
}

template <typename T>
cudaError_t LaunchUnary(cudaStream_t stream, UnaryOp op, const T* in, T* out,
                        int64_t n) {
  if (n <= 0) return cudaSuccess;
  UnaryKernel<T><<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(op, in, out, n);
  return cudaGetLastError();
}

template <typename T>
cudaError_t LaunchBinary(cudaStream_t stream, BinaryOp op,
                         const BroadcastIteration& it, const T* a,
                         const T* b, T* out, int64_t n) {
  if (n <= 0) return cudaSuccess;
  if (it.same_shape) {
    SameShapeKernel<T><<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(op, a, b, out, n);
  } else {
    BroadcastKernel<T><<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(op, it, a, b, out,
                                                           n);
  }
  return cudaGetLastError();
}

#define DFX_CWISE_GPU_INSTANTIATE(T)                                       \
  template cudaError_t LaunchUnary<T>(cudaStream_t, UnaryOp, const T*, T*, \
                                      int64_t);                            \
  template cudaError_t LaunchBinary<T>(cudaStream_t, BinaryOp,             \
                                       const BroadcastIteration&, const T*, \
                                       const T*, T*, int64_t);             \
  template cudaError_t LaunchChannelSum<T>(cudaStream_t, const T*, T*,     \
                                           int64_t, int64_t, int64_t);
DFX_CWISE_GPU_INSTANTIATE(float)
DFX_CWISE_GPU_INSTANTIATE(double)
DFX_CWISE_GPU_INSTANTIATE(__half)
DFX_CWISE_GPU_INSTANTIATE(__nv_bfloat16)
#undef DFX_CWISE_GPU_INSTANTIATE

}  // namespace dfx::gpu
