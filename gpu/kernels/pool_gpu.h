// 2-D max and average pooling over NHWC or NCHW tensors and their
// gradients, as
// direct CUDA kernels (TensorFlow's window semantics exactly: a window
// covers only the input's elements, padding is never a value; an average
// divides by the elements its window covers; a max's gradient goes to the
// window's first maximum in row-major order). Plain C++ for nvcc and g++.
#ifndef DFX_GPU_KERNELS_POOL_GPU_H_
#define DFX_GPU_KERNELS_POOL_GPU_H_

#include <cuda_runtime_api.h>

#include <cstdint>

namespace dfx::gpu {

struct PoolShape {
  int64_t batch, in_rows, in_cols, depth;
  int64_t out_rows, out_cols;
  int64_t window_rows, window_cols, stride_rows, stride_cols;
  int64_t pad_top, pad_left;
  // The tensors' layout: [batch, depth, rows, cols], else [batch, rows,
  // cols, depth].
  bool nchw;
};

// T is float, double, __half or __nv_bfloat16 (the 16-bit types computed
// in float, rounded once). `out` is [batch, out_rows, out_cols, depth] (or
// NCHW).
template <typename T>
cudaError_t LaunchPool(cudaStream_t stream, const PoolShape& s, bool max,
                       const T* in, T* out);
// in_grad (the input's shape) from out_grad (the output's): max pooling
// needs the original input, average pooling only the shapes (in null).
template <typename T>
cudaError_t LaunchPoolGrad(cudaStream_t stream, const PoolShape& s, bool max,
                           const T* in, const T* out_grad, T* in_grad);

}  // namespace dfx::gpu

#endif  // DFX_GPU_KERNELS_POOL_GPU_H_
