// Depthwise convolutions (DepthwiseConv2dNative and its two gradients) as
// direct CUDA kernels: what conv_gpu.cc runs where cuDNN's grouped
// convolutions do not serve (float64, no usable cuDNN algorithm, or
// DFX_GPU_DEPTHWISE_DIRECT=1, as TensorFlow runs its own depthwise
// kernels outside float16). Plain C++ for nvcc (depthwise_gpu.cu) and g++.
#ifndef DFX_GPU_KERNELS_DEPTHWISE_GPU_H_
#define DFX_GPU_KERNELS_DEPTHWISE_GPU_H_

#include <cuda_runtime_api.h>

#include <cstdint>

namespace dfx::gpu {

// The geometry: activations [batch, rows, cols, depth] (or NCHW), the
// filter [filter_rows, filter_cols, in_depth, multiplier] (TensorFlow's),
// the output's depth in_depth * multiplier (channel c * multiplier + m).
struct DepthwiseShape {
  int64_t batch, in_rows, in_cols, in_depth, multiplier;
  int64_t filter_rows, filter_cols, out_rows, out_cols;
  int64_t stride_rows, stride_cols, pad_top, pad_left;
  bool nchw;
};

// T is float, double, __half or __nv_bfloat16 (the 16-bit types summed in
// float, rounded once). Each enqueues on `stream` and returns the launch
// error; every element of the result is written.
template <typename T>
cudaError_t LaunchDepthwiseForward(cudaStream_t stream, const DepthwiseShape& s,
                                   const T* x, const T* filter, T* y);
template <typename T>
cudaError_t LaunchDepthwiseBackpropInput(cudaStream_t stream,
                                         const DepthwiseShape& s,
                                         const T* filter, const T* dy, T* dx);
template <typename T>
cudaError_t LaunchDepthwiseBackpropFilter(cudaStream_t stream,
                                          const DepthwiseShape& s, const T* x,
                                          const T* dy, T* dfilter);

}  // namespace dfx::gpu

#endif  // DFX_GPU_KERNELS_DEPTHWISE_GPU_H_
