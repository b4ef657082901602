#include "gpu/kernels/index_gpu.h"

#include "gpu/kernels/launch.h"

namespace dfx::gpu {
namespace {

// One element per thread of a grid-stride loop over the row-major
// iteration space; E moves the bytes (no arithmetic on them).
template <typename E>
__global__ void IndexCopyKernel(const E* src, E* dst, IndexCopyDims p,
                                int64_t n) {
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n;
       i += int64_t{gridDim.x} * blockDim.x) {
    int64_t s, d;
    IndexCopyOffsets(p, i, &s, &d);
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
  IndexCopyDims p;
  int64_t n = 0;
  if (!MakeIndexCopyDims(rank, dims, src_strides, dst_strides, src_offset,
                         dst_offset, &p, &n)) {
    return cudaErrorInvalidValue;
  }
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
