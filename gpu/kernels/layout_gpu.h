// Layout CUDA kernels the GPU convolution needs around cuDNN: a 4-D
// transpose (TensorFlow's HWIO filters into cuDNN's KRSC or KCRS) and
// zero padding of a 4-D activation (SAME padding that is not symmetric,
// which cuDNN cannot express). Byte-generic: elements of 2, 4 or 8 bytes.
#ifndef DFX_GPU_KERNELS_LAYOUT_GPU_H_
#define DFX_GPU_KERNELS_LAYOUT_GPU_H_

#include <cuda_runtime_api.h>

#include <cstdint>

namespace dfx::gpu {

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
