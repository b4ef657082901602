// CUDA kernels of gpu/kernels/nn_gpu.h. The softmax family runs one block
// per row (grid-stride over rows): the block finds the row's maximum and
// its sum of exp(x - max) with tree reductions in shared memory, then each
// thread writes its strided share of the row. The optimizer updates are
// grid-stride element-wise loops that read their scalars from device
// memory.
#include <cmath>

#include "gpu/kernels/half_math.cuh"
#include "gpu/kernels/launch.h"
#include "gpu/kernels/nn_gpu.h"

namespace dfx::gpu {
namespace {

// The block's maximum (max) or sum (!max) of each thread's `v`, in every
// thread. `scratch` holds kThreadsPerBlock values.
template <typename T>
__device__ T BlockReduce(T v, bool max, T* scratch) {
  scratch[threadIdx.x] = v;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) {
      const T a = scratch[threadIdx.x], b = scratch[threadIdx.x + half];
      scratch[threadIdx.x] = max ? (a > b ? a : b) : a + b;
    }
    __syncthreads();
  }
  const T result = scratch[0];
  __syncthreads();
  return result;
}

// The row's maximum and log(sum(exp(x - max))), computed in A (float for
// the 16-bit types T, as TensorFlow's GPU kernels compute them).
template <typename T, typename A = typename Math<T>::A>
__device__ void RowStats(const T* row, int64_t classes, A* scratch, A* max,
                         A* log_sum) {
  using M = Math<T>;
  A m = -A(INFINITY);
  for (int64_t c = threadIdx.x; c < classes; c += blockDim.x) {
    const A x = M::In(row[c]);
    m = x > m ? x : m;
  }
  *max = BlockReduce(m, /*max=*/true, scratch);
  A s = 0;
  for (int64_t c = threadIdx.x; c < classes; c += blockDim.x) {
    s += exp(M::In(row[c]) - *max);
  }
  *log_sum = log(BlockReduce(s, /*max=*/false, scratch));
}

template <typename T>
__global__ void SoftmaxKernel(const T* logits, T* out, int64_t rows,
                              int64_t classes, bool take_log) {
  using M = Math<T>;
  using A = typename M::A;
  __shared__ A scratch[kThreadsPerBlock];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* row = logits + r * classes;
    A max, log_sum;
    RowStats(row, classes, scratch, &max, &log_sum);
    for (int64_t c = threadIdx.x; c < classes; c += blockDim.x) {
      const A shifted = M::In(row[c]) - max - log_sum;
      out[r * classes + c] = M::Out(take_log ? shifted : exp(shifted));
    }
  }
}

template <typename T>
__global__ void SoftmaxXentKernel(const T* logits, const T* labels, T* loss,
                                  T* backprop, int64_t rows,
                                  int64_t classes) {
  using M = Math<T>;
  using A = typename M::A;
  __shared__ A scratch[kThreadsPerBlock];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* row = logits + r * classes;
    const T* label = labels + r * classes;
    A max, log_sum;
    RowStats(row, classes, scratch, &max, &log_sum);
    A partial = 0;
    for (int64_t c = threadIdx.x; c < classes; c += blockDim.x) {
      const A shifted = M::In(row[c]) - max;
      const A l = M::In(label[c]);
      partial += l * (log_sum - shifted);
      backprop[r * classes + c] = M::Out(exp(shifted - log_sum) - l);
    }
    const A total = BlockReduce(partial, /*max=*/false, scratch);
    if (threadIdx.x == 0) loss[r] = M::Out(total);
  }
}

template <typename T, typename Index>
__global__ void SparseSoftmaxXentKernel(const T* logits, const Index* labels,
                                        T* loss, T* backprop, int64_t rows,
                                        int64_t classes) {
  using M = Math<T>;
  using A = typename M::A;
  __shared__ A scratch[kThreadsPerBlock];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* row = logits + r * classes;
    const int64_t label = static_cast<int64_t>(labels[r]);
    A max, log_sum;
    RowStats(row, classes, scratch, &max, &log_sum);
    for (int64_t c = threadIdx.x; c < classes; c += blockDim.x) {
      const A shifted = M::In(row[c]) - max;
      backprop[r * classes + c] =
          M::Out(exp(shifted - log_sum) - (c == label ? A(1) : A(0)));
      if (c == label) loss[r] = M::Out(log_sum - shifted);
    }
  }
}

#define DFX_GRID_STRIDE(i, n)                                             \
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < n; \
       i += int64_t{gridDim.x} * blockDim.x)

template <typename T>
__global__ void GradientDescentKernel(T* var, const T* alpha, const T* delta,
                                      int64_t n) {
  const T a = *alpha;
  DFX_GRID_STRIDE(i, n) { var[i] -= a * delta[i]; }
}

template <typename T>
__global__ void MomentumKernel(T* var, T* accum, const T* lr, const T* grad,
                               const T* momentum, bool nesterov, int64_t n) {
  const T l = *lr, m = *momentum;
  DFX_GRID_STRIDE(i, n) {
    const T g = grad[i];
    const T a = accum[i] * m + g;
    accum[i] = a;
    var[i] -= nesterov ? g * l + a * m * l : a * l;
  }
}

template <typename T>
__global__ void KerasMomentumKernel(T* var, T* accum, const T* lr,
                                    const T* grad, const T* momentum,
                                    bool nesterov, int64_t n) {
  const T l = *lr, m = *momentum;
  DFX_GRID_STRIDE(i, n) {
    const T g = grad[i];
    const T a = accum[i] * m - g * l;
    accum[i] = a;
    var[i] += nesterov ? a * m - g * l : a;
  }
}

template <typename T>
__global__ void AdamKernel(T* var, T* m, T* v, const T* beta1_power,
                           const T* beta2_power, const T* lr, const T* beta1,
                           const T* beta2, const T* epsilon, const T* grad,
                           bool nesterov, int64_t n) {
  const T b1 = *beta1, b2 = *beta2, eps = *epsilon;
  const T alpha = *lr * sqrt(T(1) - *beta2_power) / (T(1) - *beta1_power);
  DFX_GRID_STRIDE(i, n) {
    const T g = grad[i];
    const T mi = m[i] + (g - m[i]) * (T(1) - b1);
    const T vi = v[i] + (g * g - v[i]) * (T(1) - b2);
    m[i] = mi;
    v[i] = vi;
    const T step = nesterov ? (g * (T(1) - b1) + b1 * mi) : mi;
    var[i] -= (step * alpha) / (sqrt(vi) + eps);
  }
}

#undef DFX_GRID_STRIDE

}  // namespace

template <typename T>
cudaError_t LaunchSoftmax(cudaStream_t stream, const T* logits, T* out,
                          int64_t rows, int64_t classes, bool log) {
  if (rows * classes == 0) return cudaSuccess;
  SoftmaxKernel<T><<<BlockPerItem(rows), kThreadsPerBlock, 0, stream>>>(
      logits, out, rows, classes, log);
  return cudaGetLastError();
}

template <typename T>
cudaError_t LaunchSoftmaxXent(cudaStream_t stream, const T* logits,
                              const T* labels, T* loss, T* backprop,
                              int64_t rows, int64_t classes) {
  if (rows == 0) return cudaSuccess;
  SoftmaxXentKernel<T><<<BlockPerItem(rows), kThreadsPerBlock, 0, stream>>>(
      logits, labels, loss, backprop, rows, classes);
  return cudaGetLastError();
}

template <typename T, typename Index>
cudaError_t LaunchSparseSoftmaxXent(cudaStream_t stream, const T* logits,
                                    const Index* labels, T* loss,
                                    T* backprop, int64_t rows,
                                    int64_t classes) {
  if (rows == 0) return cudaSuccess;
  SparseSoftmaxXentKernel<T, Index>
      <<<BlockPerItem(rows), kThreadsPerBlock, 0, stream>>>(
          logits, labels, loss, backprop, rows, classes);
  return cudaGetLastError();
}

template <typename T>
cudaError_t LaunchApplyGradientDescent(cudaStream_t stream, T* var,
                                       const T* alpha, const T* delta,
                                       int64_t n) {
  if (n == 0) return cudaSuccess;
  GradientDescentKernel<T><<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(
      var, alpha, delta, n);
  return cudaGetLastError();
}

template <typename T>
cudaError_t LaunchApplyMomentum(cudaStream_t stream, T* var, T* accum,
                                const T* lr, const T* grad, const T* momentum,
                                bool nesterov, int64_t n) {
  if (n == 0) return cudaSuccess;
  MomentumKernel<T><<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(
      var, accum, lr, grad, momentum, nesterov, n);
  return cudaGetLastError();
}

template <typename T>
cudaError_t LaunchApplyKerasMomentum(cudaStream_t stream, T* var, T* accum,
                                     const T* lr, const T* grad,
                                     const T* momentum, bool nesterov,
                                     int64_t n) {
  if (n == 0) return cudaSuccess;
  KerasMomentumKernel<T><<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(
      var, accum, lr, grad, momentum, nesterov, n);
  return cudaGetLastError();
}

template <typename T>
cudaError_t LaunchApplyAdam(cudaStream_t stream, T* var, T* m, T* v,
                            const T* beta1_power, const T* beta2_power,
                            const T* lr, const T* beta1, const T* beta2,
                            const T* epsilon, const T* grad, bool nesterov,
                            int64_t n) {
  if (n == 0) return cudaSuccess;
  AdamKernel<T><<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(
      var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad,
      nesterov, n);
  return cudaGetLastError();
}

#define DFX_INSTANTIATE_SOFTMAX(T)                                            \
  template cudaError_t LaunchSoftmax<T>(cudaStream_t, const T*, T*, int64_t,  \
                                        int64_t, bool);                       \
  template cudaError_t LaunchSoftmaxXent<T>(cudaStream_t, const T*, const T*, \
                                            T*, T*, int64_t, int64_t);        \
  template cudaError_t LaunchSparseSoftmaxXent<T, int32_t>(                   \
      cudaStream_t, const T*, const int32_t*, T*, T*, int64_t, int64_t);      \
  template cudaError_t LaunchSparseSoftmaxXent<T, int64_t>(                   \
      cudaStream_t, const T*, const int64_t*, T*, T*, int64_t, int64_t);
DFX_INSTANTIATE_SOFTMAX(float)
DFX_INSTANTIATE_SOFTMAX(double)
DFX_INSTANTIATE_SOFTMAX(__half)
DFX_INSTANTIATE_SOFTMAX(__nv_bfloat16)
#undef DFX_INSTANTIATE_SOFTMAX

#define DFX_INSTANTIATE(T)                                                \
  template cudaError_t LaunchApplyGradientDescent<T>(                     \
      cudaStream_t, T*, const T*, const T*, int64_t);                     \
  template cudaError_t LaunchApplyMomentum<T>(                            \
      cudaStream_t, T*, T*, const T*, const T*, const T*, bool, int64_t); \
  template cudaError_t LaunchApplyKerasMomentum<T>(                       \
      cudaStream_t, T*, T*, const T*, const T*, const T*, bool, int64_t); \
  template cudaError_t LaunchApplyAdam<T>(                                \
      cudaStream_t, T*, T*, T*, const T*, const T*, const T*, const T*,   \
      const T*, const T*, const T*, bool, int64_t);
DFX_INSTANTIATE(float)
DFX_INSTANTIATE(double)
#undef DFX_INSTANTIATE

}  // namespace dfx::gpu
