#include "gpu/kernels/index_gpu.h"

#include "gpu/kernels/launch.h"

namespace dfx::gpu {
namespace {

struct IndexCopyDims {
  int rank;
  int64_t dims[kMaxIndexCopyDims];
  int64_t src_strides[kMaxIndexCopyDims];
  int64_t dst_strides[kMaxIndexCopyDims];
  int64_t src_offset;
  int64_t dst_offset;
};

// One element per thread of a grid-stride loop over the row-major
// iteration space; E moves the bytes (no arithmetic on them).
template <typename E>
__global__ void IndexCopyKernel(const E* src, E* dst, IndexCopyDims p,
                                int64_t n) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{gridDim.x} * blockDim.x) {
    int64_t rest = i, s = p.src_offset, d = p.dst_offset;
    for (int k = p.rank - 1; k >= 0; --k) {
      const int64_t idx = rest % p.dims[k];
      rest /= p.dims[k];
      s += idx * p.src_strides[k];
      d += idx * p.dst_strides[k];
    }
    dst[d] = src[s];
  }
}

template <typename E>
cudaError_t Copy(cudaStream_t stream, const void* src, void* dst,
                 const IndexCopyDims& p, int64_t n) {
  IndexCopyKernel<E><<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(
      static_cast<const E*>(src), static_cast<E*>(dst), p, n);
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchIndexCopy(cudaStream_t stream, const void* src, void* dst,
                            int element_size, int rank, const int64_t* dims,
                            const int64_t* src_strides,
                            const int64_t* dst_strides, int64_t src_offset,
                            int64_t dst_offset) {
  if (rank < 1 || rank > kMaxIndexCopyDims) return cudaErrorInvalidValue;
  IndexCopyDims p;
  p.rank = rank;
  int64_t n = 1;
  for (int k = 0; k < rank; ++k) {
    p.dims[k] = dims[k];
    p.src_strides[k] = src_strides[k];
    p.dst_strides[k] = dst_strides[k];
    n *= dims[k];
  }
  p.src_offset = src_offset;
  p.dst_offset = dst_offset;
  if (n <= 0) return cudaSuccess;
  switch (element_size) {
    case 1:
      return Copy<unsigned char>(stream, src, dst, p, n);
    case 2:
      return Copy<unsigned short>(stream, src, dst, p, n);
    case 4:
      return Copy<unsigned int>(stream, src, dst, p, n);
    case 8:
      return Copy<unsigned long long>(stream, src, dst, p, n);
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace dfx::gpu
