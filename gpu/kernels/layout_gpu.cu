#include "gpu/kernels/layout_gpu.h"

#include "gpu/kernels/launch.h"

namespace dfx::gpu {
namespace {

struct Dims4 {
  int64_t d[4];
};

struct PermuteDims {
  int rank;
  int64_t out_dims[kMaxPermuteDims];
  // The input's stride of each output dim.
  int64_t in_strides[kMaxPermuteDims];
};

template <typename E>
__global__ void PermuteKernel(const E* in, E* out, PermuteDims p, int64_t n) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{gridDim.x} * blockDim.x) {
    int64_t rest = i, src = 0;
    for (int k = p.rank - 1; k >= 0; --k) {
      const int64_t idx = rest % p.out_dims[k];
      rest /= p.out_dims[k];
      src += idx * p.in_strides[k];
    }
    out[i] = in[src];
  }
}

template <typename E>
__global__ void PadKernel(const E* in, E* out, Dims4 in_dims, Dims4 out_dims,
                          int a, int b, int64_t before_a, int64_t before_b) {
  const int64_t n = out_dims.d[0] * out_dims.d[1] * out_dims.d[2] * out_dims.d[3];
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{gridDim.x} * blockDim.x) {
    int64_t rest = i, idx[4];
    for (int k = 3; k >= 0; --k) {
      idx[k] = rest % out_dims.d[k];
      rest /= out_dims.d[k];
    }
    idx[a] -= before_a;
    idx[b] -= before_b;
    const bool inside = idx[a] >= 0 && idx[a] < in_dims.d[a] && idx[b] >= 0 &&
                        idx[b] < in_dims.d[b];
    out[i] = inside ? in[((idx[0] * in_dims.d[1] + idx[1]) * in_dims.d[2] +
                          idx[2]) * in_dims.d[3] + idx[3]]
                    : E(0);
  }
}

template <typename E>
cudaError_t StridedCopy(cudaStream_t stream, const void* in, void* out,
                        const PermuteDims& p) {
  int64_t n = 1;
  for (int k = 0; k < p.rank; ++k) n *= p.out_dims[k];
  if (n <= 0) return cudaSuccess;
  PermuteKernel<E><<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(
      static_cast<const E*>(in), static_cast<E*>(out), p, n);
  return cudaGetLastError();
}

template <typename E>
cudaError_t Pad(cudaStream_t stream, const void* in, void* out,
                const int64_t in_dims[4], bool pad_last_two, int64_t before_a,
                int64_t after_a, int64_t before_b, int64_t after_b) {
  const int a = pad_last_two ? 2 : 1, b = pad_last_two ? 3 : 2;
  Dims4 in_d, out_d;
  for (int k = 0; k < 4; ++k) in_d.d[k] = out_d.d[k] = in_dims[k];
  out_d.d[a] += before_a + after_a;
  out_d.d[b] += before_b + after_b;
  const int64_t n = out_d.d[0] * out_d.d[1] * out_d.d[2] * out_d.d[3];
  if (n <= 0) return cudaSuccess;
  PadKernel<E><<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(
      static_cast<const E*>(in), static_cast<E*>(out), in_d, out_d, a, b,
      before_a, before_b);
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchStridedCopy(cudaStream_t stream, const void* in, void* out,
                              int element_size, int rank,
                              const int64_t* out_dims,
                              const int64_t* in_strides) {
  if (rank < 0 || rank > kMaxPermuteDims) return cudaErrorInvalidValue;
  PermuteDims p;
  p.rank = rank;
  for (int k = 0; k < rank; ++k) {
    p.out_dims[k] = out_dims[k];
    p.in_strides[k] = in_strides[k];
  }
  switch (element_size) {
    case 1: return StridedCopy<unsigned char>(stream, in, out, p);
    case 2: return StridedCopy<unsigned short>(stream, in, out, p);
    case 4: return StridedCopy<unsigned int>(stream, in, out, p);
    case 8: return StridedCopy<unsigned long long>(stream, in, out, p);
    default: return cudaErrorInvalidValue;
  }
}

cudaError_t LaunchPermute(cudaStream_t stream, const void* in, void* out,
                          int element_size, int rank, const int64_t* in_dims,
                          const int* perm) {
  if (rank < 1 || rank > kMaxPermuteDims) return cudaErrorInvalidValue;
  int64_t in_strides[kMaxPermuteDims];
  int64_t out_dims[kMaxPermuteDims], strides[kMaxPermuteDims];
  int64_t n = 1;
  for (int k = rank - 1; k >= 0; --k) {
    in_strides[k] = n;
    n *= in_dims[k];
  }
  for (int k = 0; k < rank; ++k) {
    out_dims[k] = in_dims[perm[k]];
    strides[k] = in_strides[perm[k]];
  }
  return LaunchStridedCopy(stream, in, out, element_size, rank, out_dims,
                           strides);
}

cudaError_t LaunchPermute4(cudaStream_t stream, const void* in, void* out,
                           int element_size, const int64_t in_dims[4],
                           const int perm[4]) {
  return LaunchPermute(stream, in, out, element_size, 4, in_dims, perm);
}

cudaError_t LaunchPad4(cudaStream_t stream, const void* in, void* out,
                       int element_size, const int64_t in_dims[4],
                       bool pad_last_two, int64_t before_a, int64_t after_a,
                       int64_t before_b, int64_t after_b) {
  switch (element_size) {
    case 2:
      return Pad<unsigned short>(stream, in, out, in_dims, pad_last_two,
                                 before_a, after_a, before_b, after_b);
    case 4:
      return Pad<unsigned int>(stream, in, out, in_dims, pad_last_two,
                               before_a, after_a, before_b, after_b);
    case 8:
      return Pad<unsigned long long>(stream, in, out, in_dims, pad_last_two,
                                     before_a, after_a, before_b, after_b);
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace dfx::gpu
