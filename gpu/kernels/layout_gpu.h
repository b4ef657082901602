// Layout CUDA kernels: a transpose of up to kMaxPermuteDims dims
// (Transpose; the reductions' kept and reduced dims; TensorFlow's HWIO
// filters into cuDNN's KRSC or KCRS) and zero padding of a 4-D activation
// (SAME padding that is not symmetric, which cuDNN cannot express).
// Byte-generic: elements of 1, 2, 4 or 8 bytes (padding: 2, 4 or 8).
#ifndef DFX_GPU_KERNELS_LAYOUT_GPU_H_
#define DFX_GPU_KERNELS_LAYOUT_GPU_H_

#include <cuda_runtime_api.h>

#include <cstdint>

namespace dfx::gpu {

inline constexpr int kMaxPermuteDims = 8;

// out (dims out_dims, row-major, rank <= kMaxPermuteDims) gathers from
// `in` with in_strides (elements; 0 repeats a value: broadcasting).
cudaError_t LaunchStridedCopy(cudaStream_t stream, const void* in, void* out,
                              int element_size, int rank,
                              const int64_t* out_dims,
                              const int64_t* in_strides);

// `out` is `in` (dims `in_dims`, row-major, `rank` <= kMaxPermuteDims)
// with out's dim k being in's dim perm[k]. cudaErrorInvalidValue for
// another element size or rank.
cudaError_t LaunchPermute(cudaStream_t stream, const void* in, void* out,
                          int element_size, int rank, const int64_t* in_dims,
                          const int* perm);

// out[i0][i1][i2][i3] = in[...] with out's dim k being in's dim perm[k]
// (in_dims are in's dims, row-major). cudaErrorInvalidValue for another
// element size.
cudaError_t LaunchPermute4(cudaStream_t stream, const void* in, void* out,
                           int element_size, const int64_t in_dims[4],
                           const int perm[4]);

// `in` [d0, d1, d2, d3] into `out` [d0, d1 + before1 + after1, d2 +
// before2 + after2, d3] (NHWC: pad rows and columns), or with the padded
// dims 2 and 3 when `pad_last_two` (NCHW); zeros outside.
cudaError_t LaunchPad4(cudaStream_t stream, const void* in, void* out,
                       int element_size, const int64_t in_dims[4],
                       bool pad_last_two, int64_t before_a, int64_t after_a,
                       int64_t before_b, int64_t after_b);

}  // namespace dfx::gpu

#endif  // DFX_GPU_KERNELS_LAYOUT_GPU_H_
