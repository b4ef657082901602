// The per-element arithmetic of the direct depthwise kernels
// (depthwise_gpu.cu), as functions both nvcc (the kernels) and g++
// (tests/gpu_session/gpu_host_math_test.cc, which runs them on the host
// against the CPU kernels) compile.
#ifndef DFX_GPU_KERNELS_DEPTHWISE_GPU_ELEMENT_CUH_
#define DFX_GPU_KERNELS_DEPTHWISE_GPU_ELEMENT_CUH_

#include <cstdint>

#include "gpu/kernels/depthwise_gpu.h"
#include "gpu/kernels/half_math.cuh"

#define DFX_DW_FN inline __host__ __device__

namespace dfx::gpu::depthwise_element {

// The flat index of (n, h, w, c) in an activation of rows x cols x depth
// in the layout of `s`.
DFX_DW_FN int64_t At(const DepthwiseShape& s, int64_t rows, int64_t cols,
                     int64_t depth, int64_t n, int64_t h, int64_t w,
                     int64_t c) {
  return s.nchw ? ((n * depth + c) * rows + h) * cols + w
                : ((n * rows + h) * cols + w) * depth + c;
}

// (n, h, w, c) of flat index i of such an activation.
DFX_DW_FN void Coords(const DepthwiseShape& s, int64_t rows, int64_t cols,
                      int64_t depth, int64_t i, int64_t* n, int64_t* h,
                      int64_t* w, int64_t* c) {
  if (s.nchw) {
    *w = i % cols;
    *h = (i / cols) % rows;
    *c = (i / (cols * rows)) % depth;
    *n = i / (cols * rows * depth);
  } else {
    *c = i % depth;
    *w = (i / depth) % cols;
    *h = (i / (depth * cols)) % rows;
    *n = i / (depth * cols * rows);
  }
}

// The filter's flat index of (fr, fc, c, m).
DFX_DW_FN int64_t FilterAt(const DepthwiseShape& s, int64_t fr, int64_t fc,
                           int64_t c, int64_t m) {
  return ((fr * s.filter_cols + fc) * s.in_depth + c) * s.multiplier + m;
}

// Output element i.
template <typename T>
DFX_DW_FN T Forward(const DepthwiseShape& s, const T* x, const T* filter,
                    int64_t i) {
  using M = Math<T>;
  const int64_t out_depth = s.in_depth * s.multiplier;
  int64_t n, oh, ow, k;
  Coords(s, s.out_rows, s.out_cols, out_depth, i, &n, &oh, &ow, &k);
  const int64_t c = k / s.multiplier, m = k % s.multiplier;
  typename M::A sum = 0;
  for (int64_t fr = 0; fr < s.filter_rows; ++fr) {
    const int64_t ih = oh * s.stride_rows - s.pad_top + fr;
    if (ih < 0 || ih >= s.in_rows) continue;
    for (int64_t fc = 0; fc < s.filter_cols; ++fc) {
      const int64_t iw = ow * s.stride_cols - s.pad_left + fc;
      if (iw < 0 || iw >= s.in_cols) continue;
      sum += M::In(x[At(s, s.in_rows, s.in_cols, s.in_depth, n, ih, iw, c)]) *
             M::In(filter[FilterAt(s, fr, fc, c, m)]);
    }
  }
  return M::Out(sum);
}

// Input-gradient element i: the outputs whose windows read it.
template <typename T>
DFX_DW_FN T BackpropInput(const DepthwiseShape& s, const T* filter, const T* dy,
                          int64_t i) {
  using M = Math<T>;
  const int64_t out_depth = s.in_depth * s.multiplier;
  int64_t n, ih, iw, c;
  Coords(s, s.in_rows, s.in_cols, s.in_depth, i, &n, &ih, &iw, &c);
  typename M::A sum = 0;
  for (int64_t fr = 0; fr < s.filter_rows; ++fr) {
    const int64_t row = ih + s.pad_top - fr;  // oh * stride_rows
    if (row < 0 || row % s.stride_rows != 0) continue;
    const int64_t oh = row / s.stride_rows;
    if (oh >= s.out_rows) continue;
    for (int64_t fc = 0; fc < s.filter_cols; ++fc) {
      const int64_t col = iw + s.pad_left - fc;
      if (col < 0 || col % s.stride_cols != 0) continue;
      const int64_t ow = col / s.stride_cols;
      if (ow >= s.out_cols) continue;
      for (int64_t m = 0; m < s.multiplier; ++m) {
        sum += M::In(dy[At(s, s.out_rows, s.out_cols, out_depth, n, oh, ow,
                           c * s.multiplier + m)]) *
               M::In(filter[FilterAt(s, fr, fc, c, m)]);
      }
    }
  }
  return M::Out(sum);
}

// Term j (of batch * out_rows * out_cols) of filter-gradient element f.
template <typename T>
DFX_DW_FN typename Math<T>::A FilterGradTerm(const DepthwiseShape& s,
                                             const T* x, const T* dy, int64_t f,
                                             int64_t j) {
  using M = Math<T>;
  const int64_t m = f % s.multiplier;
  const int64_t c = (f / s.multiplier) % s.in_depth;
  const int64_t fc = (f / (s.multiplier * s.in_depth)) % s.filter_cols;
  const int64_t fr = f / (s.multiplier * s.in_depth * s.filter_cols);
  const int64_t ow = j % s.out_cols;
  const int64_t oh = (j / s.out_cols) % s.out_rows;
  const int64_t n = j / (s.out_cols * s.out_rows);
  const int64_t ih = oh * s.stride_rows - s.pad_top + fr;
  const int64_t iw = ow * s.stride_cols - s.pad_left + fc;
  if (ih < 0 || ih >= s.in_rows || iw < 0 || iw >= s.in_cols) {
    return typename M::A(0);
  }
  return M::In(x[At(s, s.in_rows, s.in_cols, s.in_depth, n, ih, iw, c)]) *
         M::In(dy[At(s, s.out_rows, s.out_cols, s.in_depth * s.multiplier, n,
                     oh, ow, c * s.multiplier + m)]);
}

}  // namespace dfx::gpu::depthwise_element

#undef DFX_DW_FN

#endif  // DFX_GPU_KERNELS_DEPTHWISE_GPU_ELEMENT_CUH_
