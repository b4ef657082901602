// The per-element arithmetic of the pooling kernels (pool_gpu.cu), as
// functions both nvcc (the kernels: one thread per element) and g++ (a
// test that runs them on the host against the CPU kernels,
// tests/gpu_session/gpu_host_math_test.cc) compile.
#ifndef DFX_GPU_KERNELS_POOL_GPU_ELEMENT_CUH_
#define DFX_GPU_KERNELS_POOL_GPU_ELEMENT_CUH_

#include <cstdint>

#include "gpu/kernels/half_math.cuh"
#include "gpu/kernels/pool_gpu.h"

#define DFX_POOL_FN inline __host__ __device__

namespace dfx::gpu::pool_element {

template <typename T>
DFX_POOL_FN T Lowest();
template <>
DFX_POOL_FN float Lowest<float>() {
  return -3.402823466e38f;
}
template <>
DFX_POOL_FN double Lowest<double>() {
  return -1.7976931348623157e308;
}
template <>
DFX_POOL_FN __half Lowest<__half>() {
  __half_raw bits;
  bits.x = 0xfbff;  // -65504
  return __half(bits);
}
template <>
DFX_POOL_FN __nv_bfloat16 Lowest<__nv_bfloat16>() {
  __nv_bfloat16_raw bits;
  bits.x = 0xff7f;  // -3.3895e38
  return __nv_bfloat16(bits);
}

// The flat index of (n, h, w, c) in a tensor of `rows` x `cols` with the
// layout of `s`.
DFX_POOL_FN int64_t At(const PoolShape& s, int64_t rows, int64_t cols,
                       int64_t n, int64_t h, int64_t w, int64_t c) {
  return s.nchw ? ((n * s.depth + c) * rows + h) * cols + w
                : ((n * rows + h) * cols + w) * s.depth + c;
}

// (n, h, w, c) of flat index i of a tensor of `rows` x `cols`.
DFX_POOL_FN void Coords(const PoolShape& s, int64_t rows, int64_t cols,
                        int64_t i, int64_t* n, int64_t* h, int64_t* w,
                        int64_t* c) {
  if (s.nchw) {
    *w = i % cols;
    *h = (i / cols) % rows;
    *c = (i / (cols * rows)) % s.depth;
    *n = i / (cols * rows * s.depth);
  } else {
    *c = i % s.depth;
    *w = (i / s.depth) % cols;
    *h = (i / (s.depth * cols)) % rows;
    *n = i / (s.depth * cols * rows);
  }
}

// The input rows [*begin, *end) under output row `o`.
DFX_POOL_FN void Window(int64_t o, int64_t stride, int64_t pad, int64_t window,
                        int64_t limit, int64_t* begin, int64_t* end) {
  const int64_t start = o * stride - pad;
  *begin = start < 0 ? 0 : start;
  *end = start + window < limit ? start + window : limit;
}

// The flat index of output (n, oh, ow, c)'s window's first maximum (in
// row-major window order).
template <typename T>
DFX_POOL_FN int64_t ArgMax(const PoolShape& s, const T* in, int64_t n,
                           int64_t oh, int64_t ow, int64_t c) {
  using A = typename Math<T>::A;
  int64_t h0, h1, w0, w1;
  Window(oh, s.stride_rows, s.pad_top, s.window_rows, s.in_rows, &h0, &h1);
  Window(ow, s.stride_cols, s.pad_left, s.window_cols, s.in_cols, &w0, &w1);
  int64_t best = -1;
  A m = A(0);
  for (int64_t h = h0; h < h1; ++h) {
    for (int64_t w = w0; w < w1; ++w) {
      const int64_t i = At(s, s.in_rows, s.in_cols, n, h, w, c);
      const A v = Math<T>::In(in[i]);
      // As the CPU kernel: a NaN is never the maximum.
      if ((best < 0 && v == v) || v > m) {
        m = v;
        best = i;
      }
    }
  }
  return best;
}

// Output element i of MaxPool (max) or AvgPool.
template <typename T>
DFX_POOL_FN T PoolOutput(const PoolShape& s, bool max, const T* in, int64_t i) {
  using M = Math<T>;
  using A = typename M::A;
  int64_t n, oh, ow, c;
  Coords(s, s.out_rows, s.out_cols, i, &n, &oh, &ow, &c);
  if (max) {
    const int64_t at = ArgMax(s, in, n, oh, ow, c);
    // An all-NaN (or empty) window: the lowest value, as on the CPU.
    return at < 0 ? Lowest<T>() : in[at];
  }
  int64_t h0, h1, w0, w1;
  Window(oh, s.stride_rows, s.pad_top, s.window_rows, s.in_rows, &h0, &h1);
  Window(ow, s.stride_cols, s.pad_left, s.window_cols, s.in_cols, &w0, &w1);
  A sum = A(0);
  for (int64_t h = h0; h < h1; ++h) {
    for (int64_t w = w0; w < w1; ++w) {
      sum += M::In(in[At(s, s.in_rows, s.in_cols, n, h, w, c)]);
    }
  }
  const int64_t count = (h1 - h0) * (w1 - w0);
  return M::Out(count > 0 ? sum / A(count) : A(0));
}

// The output rows whose windows cover input row `h`: [*begin, *end).
DFX_POOL_FN void Covering(int64_t h, int64_t stride, int64_t pad,
                          int64_t window, int64_t limit, int64_t* begin,
                          int64_t* end) {
  // o * stride - pad <= h  and  h < o * stride - pad + window.
  const int64_t lo = h + pad - window + 1;
  *begin = lo <= 0 ? 0 : (lo + stride - 1) / stride;
  const int64_t hi = (h + pad) / stride + 1;
  *end = hi < limit ? hi : limit;
}

// Input-gradient element i of MaxPoolGrad (max: `in` is the original
// input) or AvgPoolGrad, gathered from the windows that cover it.
template <typename T>
DFX_POOL_FN T PoolGradInput(const PoolShape& s, bool max, const T* in,
                            const T* out_grad, int64_t i) {
  using M = Math<T>;
  using A = typename M::A;
  int64_t n, h, w, c;
  Coords(s, s.in_rows, s.in_cols, i, &n, &h, &w, &c);
  int64_t oh0, oh1, ow0, ow1;
  Covering(h, s.stride_rows, s.pad_top, s.window_rows, s.out_rows, &oh0, &oh1);
  Covering(w, s.stride_cols, s.pad_left, s.window_cols, s.out_cols, &ow0, &ow1);
  A sum = A(0);
  for (int64_t oh = oh0; oh < oh1; ++oh) {
    for (int64_t ow = ow0; ow < ow1; ++ow) {
      const int64_t o = At(s, s.out_rows, s.out_cols, n, oh, ow, c);
      if (max) {
        if (ArgMax(s, in, n, oh, ow, c) == i) sum += M::In(out_grad[o]);
      } else {
        int64_t h0, h1, w0, w1;
        Window(oh, s.stride_rows, s.pad_top, s.window_rows, s.in_rows, &h0,
               &h1);
        Window(ow, s.stride_cols, s.pad_left, s.window_cols, s.in_cols, &w0,
               &w1);
        sum += M::In(out_grad[o]) / A((h1 - h0) * (w1 - w0));
      }
    }
  }
  return M::Out(sum);
}

}  // namespace dfx::gpu::pool_element

#undef DFX_POOL_FN

#endif  // DFX_GPU_KERNELS_POOL_GPU_ELEMENT_CUH_
