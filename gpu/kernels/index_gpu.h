// The CUDA kernel of Tile, Slice, StridedSlice and StridedSliceGrad on a
// GPU: one copy between two strided views of device memory. Plain C++ for
// nvcc (index_gpu.cu) and g++; the per-element offsets are host and device
// code, so a test runs the kernel's arithmetic on the host.
#ifndef DFX_GPU_KERNELS_INDEX_GPU_H_
#define DFX_GPU_KERNELS_INDEX_GPU_H_

#include <cuda_runtime_api.h>

#include <cstdint>

namespace dfx::gpu {

// Dimensions of a copy after merging (a Tile of rank 8 walks 16).
inline constexpr int kMaxIndexCopyDims = 16;

// A copy's walk, passed to the kernel by value.
struct IndexCopyDims {
  int rank;
  int64_t dims[kMaxIndexCopyDims];
  int64_t src_strides[kMaxIndexCopyDims];
  int64_t dst_strides[kMaxIndexCopyDims];
  int64_t src_offset;
  int64_t dst_offset;
};

// `p` for the copy below and its element count in *n; false for a rank
// outside 1..kMaxIndexCopyDims.
bool MakeIndexCopyDims(int rank, const int64_t* dims,
                       const int64_t* src_strides, const int64_t* dst_strides,
                       int64_t src_offset, int64_t dst_offset, IndexCopyDims* p,
                       int64_t* n);

// The source and destination offsets (elements) of element i of the
// row-major iteration over p.dims.
inline __host__ __device__ void IndexCopyOffsets(const IndexCopyDims& p,
                                                 int64_t i, int64_t* src,
                                                 int64_t* dst) {
  int64_t rest = i, s = p.src_offset, d = p.dst_offset;
  for (int k = p.rank - 1; k >= 0; --k) {
    const int64_t idx = rest % p.dims[k];
    rest /= p.dims[k];
    s += idx * p.src_strides[k];
    d += idx * p.dst_strides[k];
  }
  *src = s;
  *dst = d;
}

// For every multi-index i of `dims` (rank 1..kMaxIndexCopyDims):
//   dst[dst_offset + sum_d i_d * dst_strides[d]] =
//       src[src_offset + sum_d i_d * src_strides[d]]
// counted in elements of element_size bytes (1, 2, 4 or 8). Source strides
// may be 0 (repeat) or negative (reverse); destination positions must be
// distinct. cudaErrorInvalidValue for another rank or element size.
cudaError_t LaunchIndexCopy(cudaStream_t stream, const void* src, void* dst,
                            int element_size, int rank, const int64_t* dims,
                            const int64_t* src_strides,
                            const int64_t* dst_strides, int64_t src_offset,
                            int64_t dst_offset);

}  // namespace dfx::gpu

#endif  // DFX_GPU_KERNELS_INDEX_GPU_H_
