// CUDA kernels of gpu/kernels/pool_gpu.h: one thread per output element
// (forward) or per input element (gradient, gathering from the windows
// that cover it, so no atomics and the same sum every run).
#include "gpu/kernels/launch.h"
#include "gpu/kernels/pool_gpu.h"

namespace dfx::gpu {
namespace {

#define DFX_GRID_STRIDE(i, n)                                             \
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n; \
       i += int64_t{gridDim.x} * blockDim.x)

template <typename T>
__device__ T Lowest();
template <>
__device__ float Lowest<float>() {
  return -3.402823466e38f;
}
template <>
__device__ double Lowest<double>() {
  return -1.7976931348623157e308;
}

// The input rows [*begin, *end) under output row `o`.
__device__ void Window(int64_t o, int64_t stride, int64_t pad, int64_t window,
                       int64_t limit, int64_t* begin, int64_t* end) {
  const int64_t start = o * stride - pad;
  *begin = start < 0 ? 0 : start;
  *end = start + window < limit ? start + window : limit;
}

// The flat NHWC index of output (n, oh, ow, c)'s window's first maximum.
template <typename T>
__device__ int64_t ArgMax(const PoolShape& s, const T* in, int64_t n,
                          int64_t oh, int64_t ow, int64_t c) {
  int64_t h0, h1, w0, w1;
  Window(oh, s.stride_rows, s.pad_top, s.window_rows, s.in_rows, &h0, &h1);
  Window(ow, s.stride_cols, s.pad_left, s.window_cols, s.in_cols, &w0, &w1);
  int64_t best = -1;
  T m = T(0);
  for (int64_t h = h0; h < h1; ++h) {
    for (int64_t w = w0; w < w1; ++w) {
      const int64_t i = ((n * s.in_rows + h) * s.in_cols + w) * s.depth + c;
      const T v = in[i];
      // As the CPU kernel: a NaN is never the maximum.
      if ((best < 0 && v == v) || v > m) {
        m = v;
        best = i;
      }
    }
  }
  return best;
}

template <typename T>
__global__ void PoolKernel(PoolShape s, bool max, const T* in, T* out) {
  const int64_t total = s.batch * s.out_rows * s.out_cols * s.depth;
  DFX_GRID_STRIDE(i, total) {
    const int64_t c = i % s.depth;
    const int64_t ow = (i / s.depth) % s.out_cols;
    const int64_t oh = (i / (s.depth * s.out_cols)) % s.out_rows;
    const int64_t n = i / (s.depth * s.out_cols * s.out_rows);
    if (max) {
      const int64_t at = ArgMax(s, in, n, oh, ow, c);
      // An all-NaN (or empty) window: the lowest value, as on the CPU.
      out[i] = at < 0 ? Lowest<T>() : in[at];
      continue;
    }
    int64_t h0, h1, w0, w1;
    Window(oh, s.stride_rows, s.pad_top, s.window_rows, s.in_rows, &h0, &h1);
    Window(ow, s.stride_cols, s.pad_left, s.window_cols, s.in_cols, &w0,
           &w1);
    T sum = T(0);
    for (int64_t h = h0; h < h1; ++h) {
      for (int64_t w = w0; w < w1; ++w) {
        sum += in[((n * s.in_rows + h) * s.in_cols + w) * s.depth + c];
      }
    }
    const int64_t count = (h1 - h0) * (w1 - w0);
    out[i] = count > 0 ? sum / T(count) : T(0);
  }
}

// The output rows whose windows cover input row `h`: [*begin, *end).
__device__ void Covering(int64_t h, int64_t stride, int64_t pad,
                         int64_t window, int64_t limit, int64_t* begin,
                         int64_t* end) {
  // o * stride - pad <= h  and  h < o * stride - pad + window.
  const int64_t lo = h + pad - window + 1;
  *begin = lo <= 0 ? 0 : (lo + stride - 1) / stride;
  const int64_t hi = (h + pad) / stride + 1;
  *end = hi < limit ? hi : limit;
}

template <typename T>
__global__ void PoolGradKernel(PoolShape s, bool max, const T* in,
                               const T* out_grad, T* in_grad) {
  const int64_t total = s.batch * s.in_rows * s.in_cols * s.depth;
  DFX_GRID_STRIDE(i, total) {
    const int64_t c = i % s.depth;
    const int64_t w = (i / s.depth) % s.in_cols;
    const int64_t h = (i / (s.depth * s.in_cols)) % s.in_rows;
    const int64_t n = i / (s.depth * s.in_cols * s.in_rows);
    int64_t oh0, oh1, ow0, ow1;
    Covering(h, s.stride_rows, s.pad_top, s.window_rows, s.out_rows, &oh0,
             &oh1);
    Covering(w, s.stride_cols, s.pad_left, s.window_cols, s.out_cols, &ow0,
             &ow1);
    T sum = T(0);
    for (int64_t oh = oh0; oh < oh1; ++oh) {
      for (int64_t ow = ow0; ow < ow1; ++ow) {
        const int64_t o = ((n * s.out_rows + oh) * s.out_cols + ow) * s.depth + c;
        if (max) {
          if (ArgMax(s, in, n, oh, ow, c) == i) sum += out_grad[o];
        } else {
          int64_t h0, h1, w0, w1;
          Window(oh, s.stride_rows, s.pad_top, s.window_rows, s.in_rows, &h0,
                 &h1);
          Window(ow, s.stride_cols, s.pad_left, s.window_cols, s.in_cols,
                 &w0, &w1);
          sum += out_grad[o] / T((h1 - h0) * (w1 - w0));
        }
      }
    }
    in_grad[i] = sum;
  }
}

#undef DFX_GRID_STRIDE

}  // namespace

template <typename T>
cudaError_t LaunchPool(cudaStream_t stream, const PoolShape& s, bool max,
                       const T* in, T* out) {
  const int64_t n = s.batch * s.out_rows * s.out_cols * s.depth;
  if (n == 0) return cudaSuccess;
  PoolKernel<T><<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(s, max, in,
                                                               out);
  return cudaGetLastError();
}

template <typename T>
cudaError_t LaunchPoolGrad(cudaStream_t stream, const PoolShape& s, bool max,
                           const T* in, const T* out_grad, T* in_grad) {
  const int64_t n = s.batch * s.in_rows * s.in_cols * s.depth;
  if (n == 0) return cudaSuccess;
  PoolGradKernel<T><<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(
      s, max, in, out_grad, in_grad);
  return cudaGetLastError();
}

template cudaError_t LaunchPool<float>(cudaStream_t, const PoolShape&, bool,
                                       const float*, float*);
template cudaError_t LaunchPool<double>(cudaStream_t, const PoolShape&, bool,
                                        const double*, double*);
template cudaError_t LaunchPoolGrad<float>(cudaStream_t, const PoolShape&,
                                           bool, const float*, const float*,
                                           float*);
template cudaError_t LaunchPoolGrad<double>(cudaStream_t, const PoolShape&,
                                            bool, const double*,
                                            const double*, double*);

}  // namespace dfx::gpu
